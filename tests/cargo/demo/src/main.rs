// The binary half of the `cargo` suite's demo crate: `cargo-vliw run` runs it on the
// simulator; its output and exit code must equal the host's `cargo run`.
use std::collections::BTreeMap;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    println!("args: {args:?}");
    println!("sum of squares: {}", demo::sum_squares(10));
    let mut counts = BTreeMap::new();
    for w in demo::longest_words("the cat saw the other cat and the dog") {
        *counts.entry(w).or_insert(0) += 1;
    }
    println!("{counts:?}");
    std::process::exit(if args.is_empty() { 0 } else { args.len() as i32 + 10 });
}
