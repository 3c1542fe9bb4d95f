// Floating point, f64 and f32: arithmetic, comparisons (NaN included), conversions
// to and from integers (Rust's saturating `as`, NaN to 0), f32 <-> f64, sqrt, fused
// multiply-add, rounding functions, abs/copysign/min/max, subnormals, infinities.
// Results are printed exactly (hexadecimal floats); NaN is printed as `NaN` only,
// since its sign and payload are not specified.

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

#[inline(never)]
fn arith64(a: f64, b: f64) {
    outln!("f64 ", a, " ", b, ": + ", a + b, " - ", a - b, " * ", a * b, " / ", a / b, " fma ", a.mul_add(b, 1.0));
}

#[inline(never)]
fn arith32(a: f32, b: f32) {
    outln!("f32 ", a, " ", b, ": + ", a + b, " - ", a - b, " * ", a * b, " / ", a / b, " fma ", a.mul_add(b, 1.0));
}

#[inline(never)]
fn compare(a: f64, b: f64) {
    outln!(
        "cmp ", a, " ", b, ": < ", a < b, " <= ", a <= b, " > ", a > b, " >= ", a >= b,
        " == ", a == b, " != ", a != b, " partial_cmp ", a.partial_cmp(&b)
    );
}

#[inline(never)]
fn to_ints(x: f64) {
    outln!(
        "as ints ", x, ": i8 ", x as i8, " u8 ", x as u8, " i32 ", x as i32, " u32 ", x as u32,
        " i64 ", x as i64, " u64 ", x as u64, " usize ", x as usize
    );
}

#[inline(never)]
fn to_ints32(x: f32) {
    outln!("f32 as ints ", x, ": i16 ", x as i16, " u16 ", x as u16, " i32 ", x as i32, " u64 ", x as u64);
}

#[inline(never)]
fn rounding(x: f64) {
    outln!(
        "round ", x, ": floor ", x.floor(), " ceil ", x.ceil(), " trunc ", x.trunc(),
        " round ", x.round(), " abs ", x.abs(), " sqrt ", x.abs().sqrt()
    );
}

fn newton_sqrt(x: f64) -> f64 {
    let mut g = x / 2.0;
    for _ in 0..30 {
        g = 0.5 * (g + x / g);
    }
    g
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    let inf = black_box(1.0f64) / black_box(0.0);
    let nan = black_box(0.0f64) / black_box(0.0);
    arith64(black_box(0.1), black_box(0.2));
    arith64(black_box(1e308), black_box(10.0));
    arith64(black_box(-3.5), black_box(2.0));
    arith64(black_box(5e-324), black_box(0.5));
    arith64(black_box(2.2250738585072014e-308), black_box(3.0));
    arith64(inf, black_box(2.0));
    arith64(black_box(1.0), inf);
    arith64(black_box(-0.0), black_box(0.0));
    arith32(black_box(0.1), black_box(0.2));
    arith32(black_box(3e38), black_box(10.0));
    arith32(black_box(-1.0 / 3.0), black_box(7.0));
    arith32(black_box(1e-45), black_box(0.5));

    compare(black_box(1.0), black_box(2.0));
    compare(black_box(-0.0), black_box(0.0));
    compare(nan, black_box(1.0));
    compare(nan, nan);
    compare(inf, black_box(1e308));
    outln!("is_nan ", nan.is_nan(), " ", inf.is_nan(), " is_infinite ", inf.is_infinite(), " ", (-inf).is_infinite(), " ", black_box(1e308f64).is_infinite());
    outln!("sign ", black_box(-0.0f64).is_sign_negative(), " ", black_box(0.0f64).is_sign_negative(), " ", (-inf).is_sign_negative());

    let xs = [0.0f64, -0.0, 0.4, 0.5, 0.6, 1.5, 2.5, -1.5, -2.5, 127.9, 128.0, 255.5, 256.0, -129.7, 1e10, -1e10, 4294967295.9, 9.3e18, 1.9e19, -9.3e18, -1e19, 1e300];
    for i in 0..xs.len() {
        to_ints(black_box(xs[i]));
    }
    to_ints(inf);
    to_ints(-inf);
    to_ints(nan);
    to_ints32(black_box(40000.75f32));
    to_ints32(black_box(-40000.75f32));
    to_ints32(black_box(1.8e19f32));
    to_ints32(black_box(nan as f32));

    let ints = [0i64, 1, -1, 9007199254740993, -9007199254740993, i64::MAX, i64::MIN, 16777217, 123456789];
    for i in 0..ints.len() {
        let n = black_box(ints[i]);
        outln!("from i64 ", n, ": f64 ", n as f64, " f32 ", n as f32);
    }
    let uints = [u64::MAX, 1u64 << 63, (1u64 << 53) + 1, 0xffff_ffff];
    for i in 0..uints.len() {
        let n = black_box(uints[i]);
        outln!("from u64 ", n, ": f64 ", n as f64, " f32 ", n as f32);
    }
    outln!("from small ", black_box(-7i8) as f64, " ", black_box(250u8) as f32, " ", black_box(-30000i16) as f32, " ", black_box(u32::MAX) as f32, " ", black_box(i32::MIN) as f64);

    let f: f32 = black_box(0.1);
    let d: f64 = black_box(0.1);
    outln!("f32->f64 ", f as f64, " f64->f32 ", d as f32, " big ", black_box(1e300f64) as f32, " tiny ", black_box(1e-300f64) as f32, " nan ", nan as f32);

    let rs = [2.5f64, -2.5, 0.49999999999999994, 3.7, -3.7, 1e16 + 1.0, 0.0, -0.0, 2.0];
    for i in 0..rs.len() {
        rounding(black_box(rs[i]));
    }
    outln!("copysign ", black_box(3.0f64).copysign(-1.0), " ", black_box(-3.0f64).copysign(0.0), " ", black_box(2.0f32).copysign(-0.0));
    outln!("min/max ", black_box(1.0f64).min(2.0), " ", black_box(1.0f64).max(2.0), " ", nan.min(3.0), " ", nan.max(-3.0), " ", black_box(4.0f64).min(nan), " ", black_box(-1.5f32).max(-2.5));
    outln!("sqrt ", black_box(2.0f64).sqrt(), " ", black_box(2.0f32).sqrt(), " ", black_box(-1.0f64).sqrt(), " ", black_box(1e-310f64).sqrt());
    outln!("newton ", newton_sqrt(black_box(2.0)), " ", newton_sqrt(black_box(1e10)));
    let mut h = 0.0f64;
    let mut h32 = 0.0f32;
    for i in 1..=black_box(1000) {
        h += 1.0 / i as f64;
        h32 += 1.0 / i as f32;
    }
    outln!("harmonic ", h, " ", h32);
    // Powers of two by repeated multiplication, down into subnormals and back.
    let mut p = black_box(1.0f64);
    for _ in 0..1074 {
        p *= 0.5;
    }
    outln!("2^-1074 ", p, " then ", p * 0.5, " back ", p * 1.0e300 * 1.0e300);
    0
}
