// Arithmetic overflow with overflow checks on (the suite builds with
// -Coverflow-checks=on at every opt level): the panic message, its location, and exit
// status 101. The output before the panic must appear.
// expect-exit: 101
// expect-stderr-contains: attempt to add with overflow

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

#[inline(never)]
fn add(a: u8, b: u8) -> u8 {
    a + b
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    let mut x = 250u8;
    let mut i = 0;
    while i < 10 {
        outln!("x = ", x);
        x = add(x, black_box(1));
        i += 1;
    }
    outln!("not reached");
    0
}
