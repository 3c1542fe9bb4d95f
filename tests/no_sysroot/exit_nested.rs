// vliw_exit called deep inside a call chain ends the program at once with its code;
// nothing after it runs.
// expect-exit: 7

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

#[inline(never)]
fn descend(depth: u32) -> u32 {
    if depth == 0 {
        outln!("bottom reached, exiting with 7");
        exit(black_box(7));
    }
    outln!("depth ", depth);
    descend(depth - 1) + 1
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    let r = descend(black_box(5));
    outln!("not reached ", r);
    0
}
