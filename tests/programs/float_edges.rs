// Exact float operations: rounding modes, sqrt, abs, copysign, min/max, mul_add, casts
// (saturating float->int), f32<->f64 conversions, to_bits/from_bits, classification.
#![allow(invalid_nan_comparisons)]

use std::hint::black_box;

fn main() {
    let xs = [2.5f64, -2.5, 3.5, -0.4, 0.5, 1.49999999, -7.0, 1e20, f64::NAN, f64::INFINITY, -0.0];
    for x in xs {
        let x = black_box(x);
        println!(
            "{x:?}: floor {:?} ceil {:?} round {:?} round_ties_even {:?} trunc {:?} fract {:?} abs {:?} signum {:?}",
            x.floor(), x.ceil(), x.round(), x.round_ties_even(), x.trunc(), x.fract(), x.abs(), x.signum()
        );
    }
    for x in [0.0f64, 2.0, 1e-300, 1e300, -1.0, 0.25, 12345.678] {
        println!("sqrt({x:?}) = {:?} bits {:#018x}", black_box(x).sqrt(), black_box(x).sqrt().to_bits());
    }
    println!("copysign {:?} {:?} {:?}", 3.0f64.copysign(-0.0), (-2.0f64).copysign(1.0), f64::NAN.copysign(-1.0).is_sign_negative());
    println!("min/max {:?} {:?} {:?} {:?}", 1.0f64.min(f64::NAN), f64::NAN.max(2.0), 1.0f64.max(3.0), (-1.0f32).min(-2.0));
    println!("clamp {:?} {:?}", 5.5f64.clamp(0.0, 1.0), (-3.0f64).clamp(-1.0, 1.0));
    println!("mul_add {:?} {:?}", black_box(0.1f64).mul_add(10.0, -1.0), black_box(2.0f32).mul_add(3.0, 4.0));
    println!("div {:?} {:?} {:?} {:?}", 1.0 / black_box(0.0f64), -1.0 / black_box(0.0f64), black_box(0.0f64) / 0.0 == 0.0, 7.5f64 % 2.0);
    println!("rem {:?} {:?} rem_euclid {:?} div_euclid {:?}", -7.5f64 % 2.0, 7.5f64 % -2.0, (-7.5f64).rem_euclid(2.0), (-7.5f64).div_euclid(2.0));
    for v in [1e10f64, -1e10, 300.7, -300.7, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.99, -0.99, 2147483647.5, 4294967295.9] {
        let v = black_box(v);
        println!("{v:?} as u8 {} i8 {} u32 {} i32 {} u64 {} i64 {} u128 {} i128 {}", v as u8, v as i8, v as u32, v as i32, v as u64, v as i64, v as u128, v as i128);
    }
    for i in [i64::MAX, i64::MIN, (1i64 << 53) + 1, -(1i64 << 53) - 3, 123456789123] {
        let i = black_box(i);
        println!("{i} as f64 {:?} as f32 {:?}", i as f64, i as f32);
    }
    println!("u64::MAX as f32 {:?} as f64 {:?} u128::MAX as f32 {:?} as f64 {:?}", u64::MAX as f32, u64::MAX as f64, u128::MAX as f32, u128::MAX as f64);
    for d in [0.1f64, 1e39, 1e-46, 3.4028235677973366e38, 1.0000000596046448, 1.00000017881393432617, f64::NAN, -0.0] {
        let f = black_box(d) as f32;
        println!("{d:?} as f32 {f:?} bits {:#010x} back {:?}", f.to_bits(), f as f64);
    }
    println!("bits {:#018x} {:#018x} {:#010x}", 1.0f64.to_bits(), (-2.5f64).to_bits(), f32::MIN_POSITIVE.to_bits());
    println!("from_bits {:?} {:?} {:?}", f64::from_bits(0x4009_21fb_5444_2d18), f32::from_bits(0x7f80_0000), f64::from_bits(0x8000_0000_0000_0001));
    for x in [0.0f64, 5e-324, 1.0, f64::INFINITY, f64::NAN] {
        println!("{x:?}: {:?} normal {} finite {} nan {} sign_neg {}", x.classify(), x.is_normal(), x.is_finite(), x.is_nan(), x.is_sign_negative());
    }
    println!("next {:?} {:?}", 1.0f64.next_up(), 1.0f64.next_down());
    println!("total_cmp {:?} {:?}", (-0.0f64).total_cmp(&0.0), f64::NAN.total_cmp(&f64::INFINITY));
    println!("eq {} {} {}", 0.0f64 == -0.0, f64::NAN == f64::NAN, f64::NAN.partial_cmp(&1.0).is_none());
    println!("recip {:?} to_degrees {:?} hypot-free {:?}", 4.0f64.recip(), std::f64::consts::PI.to_degrees(), (3.0f64 * 3.0 + 4.0 * 4.0).sqrt());
    let mut acc = 0.0f32;
    for i in 0..10000 {
        acc += black_box(i as f32) * 0.001;
    }
    println!("f32 accumulate {acc:?}");
}
