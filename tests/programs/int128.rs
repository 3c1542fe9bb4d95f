// 128-bit integers: multiplication, division, remainder, shifts, comparisons, parsing,
// formatting in every radix, conversions, checked/wrapping ops, a factorial and fibonacci.
use std::hint::black_box;

fn main() {
    let a = black_box(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128);
    let b = black_box(0xffff_ffff_ffffu128);
    println!("a {a} b {b}");
    println!("mul {} wrapping_mul {:#x}", a.wrapping_mul(b), a.wrapping_mul(a));
    println!("div {} rem {}", a / b, a % b);
    println!("div small {} rem small {}", a / 10, a % 10);
    println!("shl {:#x} shr {:#x} shl 64 {:#x} shr 100 {:#x}", a << 4, a >> 4, a << 64, a >> 100);
    let n = black_box(-170141183460469231731687303715884105728i128);
    println!("i128 min {n} max {} neg/1 {:?}", i128::MAX, n.checked_div(-1));
    let c = black_box(-123456789012345678901234567890i128);
    let d = black_box(987654321987i128);
    println!("signed div {} rem {} euclid {} {}", c / d, c % d, c.div_euclid(d), c.rem_euclid(d));
    println!("shr signed {} {}", c >> 7, (c as u128) >> 7);
    println!("cmp {} {} {:?}", c < d, a > b, c.cmp(&d));
    println!("hex {:x} oct {:o} bin-len {}", c as u128, a, format!("{a:b}").len());
    println!("{:>45}|{:<+45}|", c, a);
    println!("parse {:?} {:?} {:?}", "-99999999999999999999999999".parse::<i128>(), u128::from_str_radix("ffffffffffffffffffffffffffffffff", 16), "340282366920938463463374607431768211456".parse::<u128>().map_err(|e| e.to_string()));
    println!("checked {:?} {:?} {:?} overflowing {:?}", u128::MAX.checked_add(1), a.checked_mul(a), c.checked_mul(d), i128::MAX.overflowing_add(1));
    println!("saturating {} {}", a.saturating_mul(a), i128::MIN.saturating_sub(1));
    println!("lz {} tz {} ones {} swap {:#x}", a.leading_zeros(), a.trailing_zeros(), a.count_ones(), a.swap_bytes());
    println!("to u64 {} {} from f64 {} to f64 {:?}", a as u64, (a >> 64) as u64, 1e30f64 as u128, a as f64);
    println!("pow {:?} isqrt {}", 10u128.checked_pow(38), u128::MAX.isqrt());
    let mut f: u128 = 1;
    for i in 1..=34u128 {
        f *= i;
    }
    println!("34! = {f}");
    let (mut x, mut y) = (0i128, 1i128);
    for _ in 0..180 {
        let z = x + y;
        x = y;
        y = z;
    }
    println!("fib(180) = {x}");
    // digits by repeated division
    let mut digits = Vec::new();
    let mut v = f;
    while v > 0 {
        digits.push((v % 1000) as u16);
        v /= 1000;
    }
    println!("groups {:?}", digits);
    let mut h: u128 = 0x6c62272e07bb014262b821756295c58d;
    for byte in b"hello world" {
        h ^= *byte as u128;
        h = h.wrapping_mul(0x0000000001000000000000000000013B);
    }
    println!("fnv1a-128 {h:032x}");
    let pairs = [(7u128, 3u128), (u128::MAX, 1), (u128::MAX, u128::MAX), (1 << 127, 3), (12345678901234567890123456789, 98765432109876543210)];
    for (p, q) in pairs {
        let (p, q) = black_box((p, q));
        println!("{p} /% {q} = {} {}", p / q, p % q);
    }
}
