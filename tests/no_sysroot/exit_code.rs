// Exit codes: test_main's return value becomes the exit status (here 42), and output
// written before returning is all there.
// expect-exit: 42

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    let mut total = 0;
    for i in 0..black_box(10) {
        total += i;
        out!(i, " ");
    }
    outln!();
    outln!("total ", total);
    // 45 - 3 = 42.
    total - 3
}
