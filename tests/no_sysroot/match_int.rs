// match on integers: dense cases (a jump table), sparse cases (compare chains),
// ranges, guards, bindings, match on u8 and char, negative i64 and u128 values.

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

#[inline(never)]
fn dense(x: u32) -> u32 {
    match x {
        0 => 100,
        1 => 211,
        2 => 322,
        3 => 433,
        4 => 544,
        5 => 655,
        6 => 766,
        7 => 877,
        8 => 988,
        9 => 1099,
        _ => 0,
    }
}

#[inline(never)]
fn sparse(x: i64) -> &'static str {
    match x {
        -1_000_000_000_000 => "minus a trillion",
        -7 => "minus seven",
        0 => "zero",
        42 => "forty-two",
        65536 => "two to the sixteenth",
        i64::MAX => "max",
        _ => "other",
    }
}

#[inline(never)]
fn ranges(x: i32) -> u8 {
    match x {
        i32::MIN..=-100 => 1,
        -99..=-1 => 2,
        0 => 3,
        1..=9 => 4,
        10 | 20 | 30 => 5,
        11..=99 => 6,
        _ => 7,
    }
}

#[inline(never)]
fn guards(x: u64) -> u64 {
    match x {
        n if n % 15 == 0 => 15,
        n if n % 5 == 0 => 5,
        n if n % 3 == 0 => 3,
        n @ 100..=200 => n * 2,
        n => n,
    }
}

#[inline(never)]
fn char_class(c: char) -> &'static str {
    match c {
        'a' | 'e' | 'i' | 'o' | 'u' => "vowel",
        'a'..='z' => "consonant",
        'A'..='Z' => "upper",
        '0'..='9' => "digit",
        ' ' | '\t' | '\n' => "space",
        'é' => "e-acute",
        _ => "other",
    }
}

#[inline(never)]
fn wide(x: u128) -> u32 {
    match x {
        0 => 0,
        1 => 1,
        0xffff_ffff_ffff_ffff => 2,
        0x1_0000_0000_0000_0000 => 3,
        340282366920938463463374607431768211455 => 4,
        _ => 5,
    }
}

#[inline(never)]
fn byte(b: u8) -> u32 {
    match b {
        0..=31 => 0,
        b' ' => 1,
        b'0'..=b'9' => 2,
        127 => 3,
        128..=255 => 4,
        _ => 5,
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    out!("dense");
    for i in 0..12u32 {
        out!(" ", dense(black_box(i)));
    }
    outln!();
    let xs = [-1_000_000_000_000i64, -7, -6, 0, 42, 43, 65536, i64::MAX, i64::MIN];
    for i in 0..xs.len() {
        outln!("sparse ", xs[i], " ", sparse(black_box(xs[i])));
    }
    out!("ranges");
    let rs = [i32::MIN, -100, -99, -1, 0, 1, 9, 10, 11, 20, 99, 100, i32::MAX];
    for i in 0..rs.len() {
        out!(" ", ranges(black_box(rs[i])));
    }
    outln!();
    out!("guards");
    for i in 95..110u64 {
        out!(" ", guards(black_box(i)));
    }
    outln!();
    let s = "az Q7 \té!";
    let b = s.as_bytes();
    // ASCII bytes only, plus the two-byte é decoded by hand.
    let mut i = 0;
    while i < b.len() {
        let c = if b[i] == 0xc3 && i + 1 < b.len() {
            i += 1;
            'é'
        } else {
            b[i] as char
        };
        out!(char_class(black_box(c)), " ");
        i += 1;
    }
    outln!();
    out!("wide");
    let ws = [0u128, 1, 2, u64::MAX as u128, 1u128 << 64, u128::MAX, (1u128 << 64) + 1];
    for i in 0..ws.len() {
        out!(" ", wide(black_box(ws[i])));
    }
    outln!();
    out!("bytes");
    let bs = [0u8, 31, 32, 48, 57, 58, 127, 128, 255];
    for i in 0..bs.len() {
        out!(" ", byte(black_box(bs[i])));
    }
    outln!();
    0
}
