// Float formatting: Display/Debug/precision/exponent forms, NaN, infinities, -0.0,
// subnormals, extremes, shortest round-trip output.
fn main() {
    let xs: [f64; 16] = [
        0.0, -0.0, 1.0, -1.5, 0.1, 1.0 / 3.0, 2.0f64.sqrt(), 1e21, 1e-7, 123456789.125,
        f64::MAX, f64::MIN_POSITIVE, 5e-324, f64::EPSILON, 1e15, 0.3,
    ];
    for x in xs {
        println!("{x} | {x:?} | {x:.3} | {x:e} | {x:E} | {x:12.4e} | {x:+.1}");
    }
    let specials = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -f64::NAN];
    for x in specials {
        println!("{x} {x:?} {x:8.2} {x:<8}| {x:e} {x:+}");
    }
    let fs: [f32; 9] = [0.1, 1.0 / 3.0, 16777216.0, 16777217.0, f32::MAX, f32::MIN_POSITIVE, 1e-45, -0.0, 3.4e38];
    for x in fs {
        println!("f32 {x} {x:?} {x:.10} {x:e}");
    }
    println!("[{:10.3}] [{:<10.3}] [{:^10.3}] [{:+010.2}] [{:010.2}]", 3.14159, 2.5, -1.0, 7.777, -7.777);
    println!("rounding half: {:.0} {:.0} {:.0} {:.0} {:.1} {:.1} {:.2}", 0.5, 1.5, 2.5, -0.5, 0.25, 0.35, 1.005);
    println!("{:.20}", 0.1);
    println!("{:.30e}", 1.0 / 7.0);
    println!("{:.0e} {:.3e} {:e}", 9.99, 123456.0, 1e300 * 10.0);
    println!("{}", 1e300 * 1e10);
    println!("{:?} {:?} {:?}", 1e16, 1.5e-5, 123e200);
    println!("{} {}", f64::MAX.to_string().len(), 5e-324f64.to_string().len());
    let tiny = f64::from_bits(1);
    let sub = f64::MIN_POSITIVE / 4.0;
    println!("{tiny:e} {sub:e} {} {}", sub.is_normal(), sub.is_subnormal());
    println!("{:?}", (0.1f64 + 0.2, 0.1f32 + 0.2));
    let sum: f64 = (1..=1000).map(|i| 1.0 / (i as f64)).sum();
    println!("harmonic(1000) = {sum} {sum:.15}");
}
