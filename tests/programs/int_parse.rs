// Parsing integers: every width, signs, radixes, and each kind of ParseIntError.
fn main() {
    let inputs = ["0", "42", "-42", "+7", "255", "256", "-129", "", "-", "+", " 1", "1 ", "12a", "9999999999999999999999", "-0", "0x10", "１"];
    for s in inputs {
        let a = s.parse::<u8>();
        let b = s.parse::<i8>();
        let c = s.parse::<i64>();
        println!(
            "{s:?}: u8 {:?} i8 {:?} i64 {:?}",
            a.map_err(|e| e.to_string()),
            b.map_err(|e| format!("{:?}", e.kind())),
            c.map_err(|e| e.to_string())
        );
    }
    println!("{:?}", "18446744073709551615".parse::<u64>());
    println!("{:?}", "18446744073709551616".parse::<u64>().map_err(|e| e.to_string()));
    println!("{:?}", "-9223372036854775808".parse::<i64>());
    println!("{:?}", "-170141183460469231731687303715884105728".parse::<i128>());
    println!("{:?}", "340282366920938463463374607431768211455".parse::<u128>());
    for (s, radix) in [("ff", 16), ("FF", 16), ("-101", 2), ("777", 8), ("zz", 36), ("Zz", 36), ("12", 2), ("g", 16)] {
        println!("{s} radix {radix}: {:?}", i32::from_str_radix(s, radix).map_err(|e| e.to_string()));
    }
    let total: Result<i32, _> = "1,2,3,4".split(',').map(str::parse::<i32>).sum();
    let bad: Result<Vec<i32>, _> = "1,x,3".split(',').map(str::parse::<i32>).collect();
    println!("{:?} {:?}", total, bad.map_err(|e| e.to_string()));
    let n: usize = "123".parse().unwrap();
    let m = "  77  ".trim().parse::<u16>().unwrap_or(0);
    println!("{} {}", n * 2, m + 1);
    println!("{:?}", "1_000".parse::<u32>().is_err());
}
