// Float remainder `%` (C's fmod, which is exact: x - trunc(x / y) * y), f64 and f32:
// signs (the result has the dividend's), |x| below, equal to and far above |y|,
// subnormal operands and results, zeros, infinities and NaN. (On the VLIW target a call
// to mini_core's `builtins::fmod`/`fmodf`.)

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

#[inline(never)]
fn rem64(x: f64, y: f64) {
    outln!("f64 ", x, " % ", y, " = ", x % y);
}

#[inline(never)]
fn rem32(x: f32, y: f32) {
    outln!("f32 ", x, " % ", y, " = ", x % y);
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    let inf = black_box(1.0f64) / black_box(0.0);
    let nan = inf - inf;
    let xs = [
        0.0f64, -0.0, 1.0, -1.0, 5.5, -5.5, 0.1, 3.0, 7.0, 1e300, -1e300, 1.7976931348623157e308,
        2.2250738585072014e-308, 4.9406564584124654e-324, 1.5e-310, 9007199254740993.0, inf,
        -inf, nan,
    ];
    let ys = [
        1.0f64, -1.0, 0.1, 3.0, -3.0, 5.5, 2.0, 1e-300, 2.2250738585072014e-308,
        4.9406564584124654e-324, 7e-320, 0.0, -0.0, inf, -inf, nan,
    ];
    for i in 0..xs.len() {
        for j in 0..ys.len() {
            rem64(black_box(xs[i]), black_box(ys[j]));
        }
    }
    let xs32 = [
        0.0f32, -0.0, 1.0, -7.25, 0.1, 16777217.0, 3.4028235e38, -3.4028235e38, 1.1754944e-38,
        1e-45, 3e-40,
    ];
    let ys32 = [1.0f32, -0.1, 3.0, 1e-45, 1.1754942e-38, 2.5e-39, 0.0, 1e30];
    for i in 0..xs32.len() {
        for j in 0..ys32.len() {
            rem32(black_box(xs32[i]), black_box(ys32[j]));
        }
    }
    let inf32 = black_box(1.0f32) / black_box(0.0);
    rem32(black_box(2.0), inf32);
    rem32(inf32, black_box(2.0));
    rem32(inf32 - inf32, black_box(2.0));

    // Sweep: a checksum of the bits of x % y for pseudo-random x and y of every sign and
    // of exponents up to 2^40 apart (NaN results counted, not summed).
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut sum: u64 = 0;
    let mut nans = 0;
    let mut k = 0;
    while k < 1500 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let (a, b) = (seed, seed.rotate_left(29));
        let x = f64::from_bits((a & 0x800f_ffff_ffff_ffff) | ((a >> 52) % 41 + 1000) << 52);
        let y = f64::from_bits((b & 0x800f_ffff_ffff_ffff) | ((b >> 52) % 41 + 1000) << 52);
        let xs = f32::from_bits(((a as u32) & 0x807f_ffff) | (((a >> 40) % 41 + 100) as u32) << 23);
        let ys = f32::from_bits(((b as u32) & 0x807f_ffff) | (((b >> 40) % 41 + 100) as u32) << 23);
        let (r, rs) = (x % y, xs % ys);
        if r.is_nan() || rs.is_nan() {
            nans += 1;
        } else {
            sum = sum.wrapping_mul(31).wrapping_add(r.to_bits() ^ (rs.to_bits() as u64) << 11);
        }
        k += 1;
    }
    outln!("sweep ", Hex(sum), " NaN ", nans);
    0
}
