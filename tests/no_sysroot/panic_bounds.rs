// Bounds checks of array and slice indexing: the message names the length and index.
// expect-exit: 101
// expect-stderr-contains: index out of bounds: the len is 5 but the index is 5

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

#[inline(never)]
fn get(s: &[u32], i: usize) -> u32 {
    s[i]
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    let a = [10u32, 20, 30, 40, 50];
    outln!("get(a, 4) = ", get(&a, black_box(4)));
    outln!("a.get(9) = ", a.get(9));
    let mut i = 0;
    loop {
        outln!("a[", i, "] = ", a[black_box(i)]);
        i += 1;
    }
}
