// A panic with `RUST_BACKTRACE=1`: the `cargo` suite runs `cargo-vliw run --bin
// backtrace` and expects std's report with the names of the frames below, read
// from the executable's symbol table, and exit status 101, as on the host.
use std::hint::black_box;

#[inline(never)]
fn inner_frame(n: u32) -> u32 {
    if black_box(n) > 1 {
        panic!("a panic two frames below main");
    }
    n
}

#[inline(never)]
fn outer_frame(n: u32) -> u32 {
    black_box(inner_frame(n + 1)) + 1
}

fn main() {
    println!("{}", outer_frame(black_box(1)));
}
