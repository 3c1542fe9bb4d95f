// Parsing floats: decimal and exponent forms, inf/nan spellings, rounding to nearest,
// f32 vs f64, errors.
fn main() {
    let inputs = [
        "0", "-0", "1.5", ".5", "5.", "1e10", "1E-10", "-3.25e+2", "inf", "-infinity", "NaN", "nan",
        "1e400", "1e-400", "2.2250738585072014e-308", "4.9e-324", "0.1", "0.30000000000000004",
        "123456789012345678901234567890", "1.7976931348623157e308", "1.7976931348623159e308",
        "", "abc", "1.2.3", "e5", "1e", "+", " 1.0", "0x1p3", "9007199254740993",
    ];
    for s in inputs {
        let d = s.parse::<f64>();
        let f = s.parse::<f32>();
        match (d, f) {
            (Ok(d), Ok(f)) => println!("{s:?}: f64 {d:?} ({:#018x}) f32 {f:?} ({:#010x})", d.to_bits(), f.to_bits()),
            (d, f) => println!("{s:?}: f64 {:?} f32 {:?}", d.map_err(|e| e.to_string()), f.map_err(|e| e.to_string())),
        }
    }
    // Round-trip: shortest repr parses back to the same bits.
    let mut x = 1.0f64;
    let mut bad = 0;
    for i in 0..500 {
        x = x * 1.37 + (i as f64) / 7.0;
        if x > 1e200 {
            x /= 1e190;
        }
        let back: f64 = x.to_string().parse().unwrap();
        let back2: f64 = format!("{x:e}").parse().unwrap();
        if back.to_bits() != x.to_bits() || back2.to_bits() != x.to_bits() {
            bad += 1;
        }
    }
    println!("round-trip failures {bad}, last {x:e}");
    let sum: f64 = "1.5 2.25 -0.75 1e2".split(' ').map(|t| t.parse::<f64>().unwrap()).sum();
    println!("sum {sum}");
}
