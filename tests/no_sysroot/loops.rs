// Loops: while, loop with break values, for over ranges (exclusive, inclusive,
// reversed, empty), labeled break and continue in nested loops, early return.

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

#[inline(never)]
fn first_square_above(n: u64) -> u64 {
    let mut i = 0u64;
    loop {
        if i * i > n {
            return i;
        }
        i += 1;
    }
}

#[inline(never)]
fn collatz_steps(mut n: u64) -> u32 {
    let mut steps = 0;
    while n != 1 {
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        steps += 1;
    }
    steps
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    let n = black_box(10u32);
    let mut s = 0u32;
    for i in 0..n {
        s += i;
    }
    outln!("sum 0..10 ", s);
    s = 0;
    for i in 1..=n {
        s += i * i;
    }
    outln!("squares 1..=10 ", s);
    out!("rev");
    for i in (0..n).rev() {
        out!(" ", i);
    }
    outln!();
    let mut count = 0;
    for _ in 5..black_box(5) {
        count += 1;
    }
    for _ in 5..=black_box(4) {
        count += 1;
    }
    outln!("empty ranges ran ", count, " times");
    for i in 250u8..=255 {
        out!(i, " ");
    }
    outln!("(u8 up to 255 inclusive)");
    for i in -3i8..3 {
        out!(i, " ");
    }
    outln!();

    // loop with a value.
    let mut k = 0;
    let found = loop {
        k += 7;
        if k % 5 == 3 {
            break k;
        }
    };
    outln!("found ", found);

    // Labeled break and continue: pairs (i, j) with i*j == 24, stop at the first i > 6.
    let mut pairs = 0;
    'outer: for i in 1..100u32 {
        for j in 1..100u32 {
            if j > i {
                continue 'outer;
            }
            if i > 12 {
                break 'outer;
            }
            if i * j == 24 {
                out!("(", i, ",", j, ") ");
                pairs += 1;
            }
        }
    }
    outln!("pairs ", pairs);

    outln!("first square above 1000: ", first_square_above(black_box(1000)));
    let mut longest = 0;
    let mut arg = 0;
    for i in 1..black_box(3000u64) {
        let st = collatz_steps(i);
        if st > longest {
            longest = st;
            arg = i;
        }
    }
    outln!("collatz longest below 3000: ", arg, " with ", longest, " steps");

    // A nested loop nest with a running checksum (many iterations).
    let mut h = 0u32;
    let mut i = 0u32;
    while i < 200 {
        let mut j = 0u32;
        while j < 200 {
            h = h.rotate_left(5) ^ (i * 31 + j);
            j += 1;
        }
        i += 1;
    }
    outln!("hash ", Hex(h));
    0
}
