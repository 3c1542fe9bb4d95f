// Conversions between 128-bit integers and floats (compilers often call runtime
// functions for them): rounding to nearest even, saturation, NaN to 0, negative
// values, values beyond 2^64.

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

#[inline(never)]
fn show(x: f64) {
    outln!(x, ": i128 ", x as i128, " u128 ", x as u128, " f32->i128 ", (x as f32) as i128);
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    let xs = [0.0f64, -0.0, 1.5, -1.5, 1e19, 1.8446744073709552e19, 3.5e19, -3.5e19, 1e38, 1.7e38, -1.7e38, 3.4e38, 1e39, -1e39];
    for i in 0..xs.len() {
        show(black_box(xs[i]));
    }
    let inf = black_box(1.0f64) / black_box(0.0);
    show(inf);
    show(-inf);
    show(inf - inf);
    let us = [0u128, 1, u64::MAX as u128, (u64::MAX as u128) + 1, (1u128 << 100) + 1, (1u128 << 53) + 1, ((1u128 << 54) + 3) << 60, u128::MAX];
    for i in 0..us.len() {
        let n = black_box(us[i]);
        outln!("u128 ", n, ": f64 ", n as f64, " f32 ", n as f32);
    }
    let is = [-1i128, i128::MIN, i128::MAX, -(1i128 << 90) - 1, -((1i128 << 24) + 1)];
    for i in 0..is.len() {
        let n = black_box(is[i]);
        outln!("i128 ", n, ": f64 ", n as f64, " f32 ", n as f32);
    }
    0
}
