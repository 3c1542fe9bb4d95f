// 128-bit division and remainder, and conversions between 128-bit integers and floats,
// at their edges: divisors above, equal to and just below the dividend, powers of two,
// u128::MAX, divisors beyond 2^64, negative operands, `MIN / -1` through checked_div;
// u128/i128 to f64/f32 at rounding boundaries (2^53 + 1, exactly-half remainders,
// sticky bits far below, carries into the exponent, f32 overflow); f64/f32 to u128/i128
// at 2^127, 2^128 and below 1. Pseudo-random sweeps check q * d + r = n and r < d and
// print checksums of every result, division and conversions. (On the VLIW target these
// are calls to mini_core's `builtins`.)

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

#[inline(never)]
fn udiv(n: u128, d: u128) {
    outln!("u ", n, " / ", d, " = ", n / d, " r ", n % d);
}

#[inline(never)]
fn sdiv(n: i128, d: i128) {
    outln!("s ", n, " / ", d, " = ", n.checked_div(d), " r ", n.checked_rem(d));
}

#[inline(never)]
fn to_floats(n: u128) {
    let i = n as i128;
    outln!(
        "u128 ", Hex(n), ": f64 ", n as f64, " f32 ", n as f32,
        " | i128 ", i, ": f64 ", i as f64, " f32 ", i as f32
    );
}

#[inline(never)]
fn from_f64(x: f64) {
    outln!("f64 ", x, ": u128 ", x as u128, " i128 ", x as i128);
}

#[inline(never)]
fn from_f32(x: f32) {
    outln!("f32 ", x, ": u128 ", x as u128, " i128 ", x as i128);
}

/// xorshift64*, with a random width so that every pairing of bit lengths occurs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn wide(&mut self) -> u128 {
        let v = ((self.next() as u128) << 64) | self.next() as u128;
        let w = (self.next() % 129) as u32;
        if w == 128 { v } else { v >> w }
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    let max = u128::MAX;
    let p64 = 1u128 << 64;
    // Dividends and divisors: small, at 2^64, powers of two, near the top.
    let values = [
        0u128, 1, 2, 3, 7, 10, 1_000_000_007, u64::MAX as u128, p64, p64 + 1, (p64 << 1) - 1,
        1 << 100, (1 << 100) + 12345, 0x1234_5678_9abc_def0_0fed_cba9_8765_4321, 1 << 127,
        (1 << 127) - 1, (1 << 127) + 1, max - 1, max,
    ];
    for i in 0..values.len() {
        for j in 0..values.len() {
            let d = values[j];
            if d != 0 {
                udiv(black_box(values[i]), black_box(d));
            }
        }
    }
    // Divisor just above, equal to, just below the dividend; quotient of 1 and 2.
    let n = black_box(0xdead_beef_0000_0000_1234_5678_0000_0001u128);
    udiv(n, black_box(n + 1));
    udiv(n, black_box(n));
    udiv(n, black_box(n - 1));
    udiv(n, black_box(n / 2));
    udiv(n, black_box(n / 2 + 1));
    // Every power of two as the divisor (the quotient is a shift, the remainder a mask).
    let mut s = 0;
    while s < 128 {
        let d = black_box(1u128 << s);
        outln!("pow2 ", s, " q ", Hex(max / d), " r ", Hex(n % d));
        s += 1;
    }
    // Signed: every sign combination, i128::MIN, and MIN / -1 (None: it would panic).
    let signed = [
        0i128, 1, -1, 2, -2, 3, -3, 7, -7, 1 << 64, -(1 << 64), (1 << 100) + 3, -(1 << 100) - 3,
        i128::MAX, i128::MIN + 1, i128::MIN,
    ];
    for i in 0..signed.len() {
        for j in 0..signed.len() {
            if signed[j] != 0 {
                sdiv(black_box(signed[i]), black_box(signed[j]));
            }
        }
    }
    let (a, b) = (black_box(-1_000_000_000_000_000_000_000_000_007i128), black_box(97i128));
    outln!("ops ", a / b, " ", a % b, " ", -a / b, " ", -a % b, " ", a / -b, " ", a % -b);

    // Sweep: q * d + r == n, r < d, and a checksum of all quotients and remainders.
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut sum_u: u128 = 0;
    let mut sum_s: u128 = 0;
    let mut bad = 0;
    let mut k = 0;
    while k < 2000 {
        let n = rng.wide();
        let d = rng.wide();
        if d != 0 {
            let (q, r) = (n / d, n % d);
            if r >= d || q.wrapping_mul(d).wrapping_add(r) != n {
                bad += 1;
            }
            sum_u = sum_u.wrapping_mul(31).wrapping_add(q ^ (r << 1));
            let (sn, sd) = (n as i128, d as i128);
            if let Some(q) = sn.checked_div(sd) {
                let r = sn % sd;
                sum_s = sum_s.wrapping_mul(31).wrapping_add((q as u128) ^ ((r as u128) << 1));
            }
        }
        k += 1;
    }
    outln!("sweep bad ", bad, " sum ", Hex(sum_u), " ", Hex(sum_s));

    // Integers to floats. f64 keeps 53 bits, f32 24: one above the limit rounds down
    // (below half), exactly half rounds to even (down from an even significand, up
    // from an odd one), and any lower bit set makes it more than half.
    let p53 = 1u128 << 53;
    let p24 = 1u128 << 24;
    let ints = [
        0u128, 1, p24 - 1, p24, p24 + 1, p24 + 2, p24 + 3, p53 - 1, p53, p53 + 1, p53 + 2,
        p53 + 3, (p53 + 1) << 60, ((p53 + 1) << 60) + 1, ((p53 + 3) << 60), (p53 + 1) << 74,
        ((p53 + 1) << 74) | 1, ((p53 << 1) + 1) << 20, ((p53 << 1) + 3) << 20,
        (((p53 << 1) + 1) << 20) + 1, (p24 + 1) << 100, ((p24 + 1) << 100) + 1,
        (p24 + 3) << 100, u64::MAX as u128, p64, p64 + 1, max, max - 1, max << 103,
        (max << 104) - 1, max << 75, (max << 74) >> 1, 1 << 127, (1 << 127) - 1,
        (1 << 127) + 1, 0x8000_0000_0000_0400_0000_0000_0000_0000,
        0x8000_0000_0000_0400_0000_0000_0000_0001, 0x8000_0000_0000_0c00_0000_0000_0000_0000,
    ];
    for i in 0..ints.len() {
        to_floats(black_box(ints[i]));
        to_floats(black_box(ints[i]).wrapping_neg());
    }

    // Floats to integers: truncation, saturation, NaN to 0.
    let p127 = black_box(170141183460469231731687303715884105728.0f64); // 2^127
    let f64s = [
        0.0f64, -0.0, 0.999, -0.999, 1.0, -1.0, 2.5, -2.5, 9007199254740993.0,
        18446744073709551616.0, -18446744073709551616.0, p127, -p127, p127 * 2.0, -p127 * 2.0,
        p127 * 0.9999999999999999, p127 * 1.9999999999999998, -p127 * 1.0000000000000002,
        1e300, -1e300, 5e-324, -5e-324,
    ];
    for i in 0..f64s.len() {
        from_f64(black_box(f64s[i]));
    }
    let inf = black_box(1.0f64) / black_box(0.0);
    from_f64(inf);
    from_f64(-inf);
    from_f64(inf - inf);
    let f32s = [
        0.0f32, -0.0, 0.75, -0.75, 16777217.0, 1.0e20, -1.0e20, 1.7014118e38, -1.7014118e38,
        3.4028235e38, -3.4028235e38, 1e-45,
    ];
    for i in 0..f32s.len() {
        from_f32(black_box(f32s[i]));
    }
    from_f32(black_box(1.0f32) / black_box(0.0));
    from_f32(black_box(-1.0f32) / black_box(0.0));
    from_f32(black_box(0.0f32) / black_box(0.0));

    // Sweep: a checksum of the bits of conversions both ways, over every bit length
    // and every float exponent that reaches the 128-bit range.
    let mut sum_f: u64 = 0;
    let mut sum_i: u128 = 0;
    let mut k = 0;
    while k < 2000 {
        let n = rng.wide();
        let i = n as i128;
        let f = (n as f64).to_bits() ^ ((n as f32).to_bits() as u64) << 7;
        let g = (i as f64).to_bits() ^ ((i as f32).to_bits() as u64) << 9;
        sum_f = sum_f.wrapping_mul(31).wrapping_add(f ^ (g << 1));
        let r = rng.next();
        let x = f64::from_bits((r & 0x800f_ffff_ffff_ffff) | ((r >> 52) % 140 + 1000) << 52);
        let y = f32::from_bits(((r as u32) & 0x807f_ffff) | (((r >> 40) % 140 + 100) as u32) << 23);
        let c = (x as u128) ^ (x as i128 as u128) << 1 ^ (y as u128) << 2 ^ (y as i128 as u128) << 3;
        sum_i = sum_i.wrapping_mul(31).wrapping_add(c);
        k += 1;
    }
    outln!("conversion sweep ", Hex(sum_f), " ", Hex(sum_i));
    0
}
