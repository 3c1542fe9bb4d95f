// Comparisons (signed and unsigned, at the edges of every width), branches, boolean
// logic with short-circuit evaluation, min/max, Ordering, and selects that a
// predicating compiler may turn into branch-free code.

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

static mut CALLS: u32 = 0;

#[inline(never)]
fn noisy(v: bool) -> bool {
    unsafe { CALLS += 1 };
    v
}

#[inline(never)]
fn classify(x: i64) -> &'static str {
    if x < -1000 {
        "very negative"
    } else if x < 0 {
        "negative"
    } else if x == 0 {
        "zero"
    } else if x <= 1000 {
        "positive"
    } else {
        "very positive"
    }
}

#[inline(never)]
fn clamp(x: i32, lo: i32, hi: i32) -> i32 {
    if x < lo { lo } else if x > hi { hi } else { x }
}

#[inline(never)]
fn abs_diff(a: u64, b: u64) -> u64 {
    if a > b { a - b } else { b - a }
}

macro_rules! cmp_edges {
    ($t:ty) => {{
        let vals: [$t; 5] = [<$t>::MIN, black_box(<$t>::MIN + 1), black_box(0 as $t), black_box(<$t>::MAX - 1), <$t>::MAX];
        out!(stringify!($t), ":");
        let mut i = 0;
        while i < 5 {
            let mut j = 0;
            while j < 5 {
                let (a, b) = (vals[i], vals[j]);
                let code = (a < b) as u32 | ((a <= b) as u32) << 1u32 | ((a > b) as u32) << 2u32
                    | ((a >= b) as u32) << 3u32 | ((a == b) as u32) << 4u32 | ((a != b) as u32) << 5u32;
                out!(" ", code);
                j += 1;
            }
            i += 1;
        }
        outln!();
    }};
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    cmp_edges!(u8);
    cmp_edges!(i8);
    cmp_edges!(u16);
    cmp_edges!(i16);
    cmp_edges!(u32);
    cmp_edges!(i32);
    cmp_edges!(u64);
    cmp_edges!(i64);
    cmp_edges!(u128);
    cmp_edges!(i128);

    let xs = [-5000i64, -3, 0, 7, 1000, 1001, i64::MIN, i64::MAX];
    for i in 0..xs.len() {
        outln!(xs[i], " is ", classify(black_box(xs[i])));
    }
    for x in -3..4 {
        out!(clamp(black_box(x * 10), -15, 22), " ");
    }
    outln!();
    outln!("abs_diff ", abs_diff(black_box(3), black_box(10)), " ", abs_diff(black_box(u64::MAX), black_box(1)));
    outln!("min ", min(black_box(3i32), -4), " max ", max(black_box(3u64), 9), " min char ", min('x', 'b'));
    outln!("cmp ", black_box(1u8).cmp(&2), " ", black_box(-1i64).cmp(&-1), " ", black_box(7u128).cmp(&3));

    // Short-circuit evaluation: the right side runs only when needed.
    let t = black_box(true);
    let f = black_box(false);
    let r1 = noisy(f) && noisy(t);
    let r2 = noisy(t) || noisy(f);
    let r3 = noisy(t) && noisy(f) || noisy(t);
    let r4 = (noisy(f) || noisy(f)) && noisy(t);
    outln!("logic ", r1, " ", r2, " ", r3, " ", r4, " calls ", unsafe { CALLS });
    outln!("xor ", t ^ f, " not ", !t, " and ", t & f, " or ", t | f);

    // Branch-free style selects in a loop.
    let mut evens = 0;
    let mut odd_sum = 0i64;
    let mut maxv = i64::MIN;
    for i in 0..black_box(100i64) {
        let v = (i * 37 + 11) % 101 - 50;
        evens += if v % 2 == 0 { 1 } else { 0 };
        odd_sum += if v % 2 != 0 { v } else { 0 };
        maxv = if v > maxv { v } else { maxv };
    }
    outln!("evens ", evens, " odd_sum ", odd_sum, " max ", maxv);
    0
}
