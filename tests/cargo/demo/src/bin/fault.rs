// A program that faults: `cargo-vliw run --bin fault` must fail with the
// simulator's message, not hang or crash the tools.
fn main() {
    println!("about to fault");
    let p = std::hint::black_box(8usize) as *const u64;
    println!("{}", unsafe { p.read_volatile() });
}
