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
    // a panic at opt-level 3 unwinds through frames of a crate built at opt-level 0
    // (release), at opt-level 0 through frames built at opt-level 3 (dev)
    let level = if cfg!(debug_assertions) { "opt-level 0" } else { "opt-level 3" };
    std::panic::set_hook(Box::new(|_| println!("  panicking")));
    for n in [2usize, 9] {
        let mut len = 0;
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            guards::with_guards(&mut || {
                let _here = guards::Guard("main's closure", level);
                len = demo::longest_words("a bb ccc")[n].len();
            });
            len
        }));
        println!("word {n}: {:?}", r.map_err(|_| "panicked"));
    }
    std::process::exit(if args.is_empty() { 0 } else { args.len() as i32 + 10 });
}
