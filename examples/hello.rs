// args: Ada Lovelace
//! The first program: greets its arguments.
//!
//!     ./y.sh run examples/hello.rs -- Ada Lovelace
//!
//! Compiled by our backend for VLIW-64 and run on the simulator; `--stats` after
//! `run` prints the cycles it took.

fn main() {
    let names: Vec<String> = std::env::args().skip(1).collect();
    if names.is_empty() {
        println!("Hello from VLIW-64!");
    } else {
        println!("Hello, {}, from VLIW-64!", names.join(" "));
    }
    let total: u64 = (1..=10).map(|i: u64| i * i).sum();
    println!("The squares of 1 to 10 add up to {total}.");
}
