// 128-bit multiplication overflow under overflow checks, and a remainder overflow
// checked before it (i128::MIN % -1 through checked_rem, which must not panic).
// expect-exit: 101
// expect-stderr-contains: attempt to multiply with overflow

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    outln!("checked_rem ", i128::MIN.checked_rem(black_box(-1)));
    let mut x: i128 = black_box(-3);
    loop {
        outln!("x = ", x);
        x = x * black_box(1_000_000_007i128);
    }
}
