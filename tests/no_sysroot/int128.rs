// 128-bit integers: add, sub, mul, div, rem (signed and unsigned), shifts by variable
// amounts across the 64-bit boundary, comparisons, casts, passing and returning
// u128/i128 by value (two registers) and in memory.

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

#[inline(never)]
fn mul_add(a: u128, b: u128, c: u128) -> u128 {
    a.wrapping_mul(b).wrapping_add(c)
}

#[inline(never)]
fn div_rem(a: i128, b: i128) -> (i128, i128) {
    (a / b, a % b)
}

struct Wide {
    lo: u8,
    v: u128,
    hi: u8,
}

#[inline(never)]
fn sum_wide(w: &Wide) -> u128 {
    w.v + w.lo as u128 + ((w.hi as u128) << 120)
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    let a: u128 = black_box(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
    let b: u128 = black_box(0xffff_ffff_0000_0001);
    outln!("a ", a, " b ", b);
    outln!("add ", a.wrapping_add(b), " sub ", a.wrapping_sub(b), " rsub ", b.wrapping_sub(a));
    outln!("mul ", a.wrapping_mul(b), " full ", (a >> 64) * b);
    outln!("div ", a / b, " rem ", a % b);
    outln!("and ", Hex(a & b), " or ", Hex(a | b), " xor ", Hex(a ^ b), " not ", Hex(!a));
    let mut s = 0u32;
    while s < 128 {
        let n = black_box(s);
        outln!(
            "shift ", n, " shl ", Hex(a << n), " shr ", Hex(a >> n),
            " sar ", ((a as i128) | (1i128 << 127)) >> n
        );
        s += 13;
    }
    let c: i128 = black_box(-170141183460469231731687303715884105727);
    let d: i128 = black_box(-12345678901234567890123);
    let (q, r) = div_rem(c, d);
    outln!("i128 div ", q, " rem ", r);
    let (q, r) = div_rem(black_box(1000000000000000000000000000007), black_box(-97));
    outln!("i128 div ", q, " rem ", r);
    let (q, r) = div_rem(black_box(-5), black_box(3));
    outln!("i128 div ", q, " rem ", r);
    outln!("lt ", c < d, " ult ", (c as u128) < (d as u128), " eq ", c == c, " gt ", d > c);
    outln!("mul_add ", mul_add(a, b, black_box(u128::MAX)));
    // Factorials up to 34! fit in u128.
    let mut f: u128 = 1;
    let mut i = 1u128;
    while i <= 34 {
        f *= i;
        i += 1;
    }
    outln!("34! ", f);
    // Powers of ten and back by division.
    let mut p: u128 = 1;
    let mut k = 0;
    while k < 38 {
        p *= 10;
        k += 1;
    }
    out!("10^38 ", p);
    while p > 1 {
        p /= black_box(1000);
        out!(" ", p);
    }
    outln!();
    // Casts.
    let m: i128 = black_box(-2);
    outln!("casts ", m as u128, " ", m as i64, " ", m as u8, " ", (u64::MAX as u128) + 1, " ", (-1i64) as i128);
    let w = Wide { lo: 1, v: black_box(1u128 << 100), hi: 3 };
    outln!("wide ", sum_wide(&w));
    outln!("min/max ", u128::MAX, " ", i128::MAX, " ", i128::MIN);
    outln!("leading ", a.leading_zeros(), " trailing ", b.trailing_zeros(), " ones ", a.count_ones());
    0
}
