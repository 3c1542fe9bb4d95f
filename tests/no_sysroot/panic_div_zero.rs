// Division by zero panics (a check that exists whatever the overflow checks).
// expect-exit: 101
// expect-stderr-contains: attempt to divide by zero

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    let mut d = 3i64;
    loop {
        let q = black_box(1000i64) / black_box(d);
        outln!("1000 / ", d, " = ", q);
        d -= 1;
    }
}
