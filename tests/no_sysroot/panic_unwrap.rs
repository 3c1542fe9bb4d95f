// Option::unwrap on None: a panic with a #[track_caller] location in the program,
// through a generic function of mini_core.
// expect-exit: 101
// expect-stderr-contains: called `Option::unwrap()` on a `None` value

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

fn find(haystack: &[i32], needle: i32) -> Option<usize> {
    let mut i = 0;
    while i < haystack.len() {
        if haystack[i] == needle {
            return Some(i);
        }
        i += 1;
    }
    None
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    let h = [3, 1, 4, 1, 5, 9, 2, 6];
    outln!("find 5: ", find(&h, black_box(5)).unwrap());
    outln!("find 7: ", find(&h, black_box(7)).unwrap());
    0
}
