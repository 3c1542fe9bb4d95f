// Integer edge cases at every width: MIN/MAX, wrapping/checked/saturating/overflowing
// arithmetic, division and remainder signs, abs, neg, shifts, casts.
use std::hint::black_box;

macro_rules! edges {
    ($($t:ty),*) => {$(
        let (min, max) = (black_box(<$t>::MIN), black_box(<$t>::MAX));
        let one: $t = black_box(1);
        println!("{}: min {} max {} bits {}", stringify!($t), min, max, <$t>::BITS);
        println!("  wrapping add {} sub {} mul {} neg {}", max.wrapping_add(one), min.wrapping_sub(one), max.wrapping_mul(max), min.wrapping_neg());
        println!("  checked add {:?} sub {:?} mul {:?} div0 {:?} div {:?} rem {:?}", max.checked_add(one), min.checked_sub(one), max.checked_mul(2 as $t), max.checked_div(0 as $t), min.checked_div(one), max.checked_rem(7 as $t));
        println!("  saturating add {} sub {} mul {}", max.saturating_add(one), min.saturating_sub(one), max.saturating_mul(3 as $t));
        println!("  overflowing add {:?} sub {:?} mul {:?}", max.overflowing_add(one), min.overflowing_sub(one), max.overflowing_mul(max));
        println!("  pow {:?} {:?} wrapping_pow {}", (3 as $t).checked_pow(5), (3 as $t).checked_pow(100), (3 as $t).wrapping_pow(100));
        println!("  shl {} shr {} wrapping_shl {} checked_shl {:?}", one << 3, max >> 2, one.wrapping_shl(<$t>::BITS + 1), one.checked_shl(<$t>::BITS));
    )*};
}

fn main() {
    edges!(u8, i8, u16, i16, u32, i32, u64, i64, usize, isize);
    for (a, b) in [(7i32, 2i32), (-7, 2), (7, -2), (-7, -2)] {
        let (a, b) = black_box((a, b));
        println!("{a} / {b} = {} rem {} div_euclid {} rem_euclid {}", a / b, a % b, a.div_euclid(b), a.rem_euclid(b));
    }
    let m = black_box(i32::MIN);
    println!("abs {:?} {} {} unsigned_abs {}", m.checked_abs(), m.wrapping_abs(), m.saturating_abs(), m.unsigned_abs());
    println!("overflowing_neg {:?} checked_neg {:?}", m.overflowing_neg(), m.checked_neg());
    println!("signum {} {} {} is_negative {}", (-9i64).signum(), 0i64.signum(), 9i64.signum(), m.is_negative());
    let big = black_box(300i32);
    println!("casts {} {} {} {} {}", big as u8, big as i8, -1i32 as u32, -1i64 as u16, u64::MAX as i32);
    println!("try_from {:?} {:?} {:?}", u8::try_from(big).map_err(|e| e.to_string()), i8::try_from(-5i64), u32::try_from(-1i32).is_err());
    println!("from {} {} {}", u64::from(7u32), i64::from(-3i8), f64::from(5u32));
    println!("abs_diff {} {} midpoint {}", 3u8.abs_diff(250), (-100i8).abs_diff(100), 7u32.midpoint(10));
    println!("isqrt {} {} ilog2 {} ilog10 {} ilog {}", 99u32.isqrt(), u64::MAX.isqrt(), 1000u32.ilog2(), 999_999u64.ilog10(), 3u32.pow(10).ilog(3));
    println!("next_power_of_two {} {:?} is_power_of_two {}", 17u32.next_power_of_two(), u32::MAX.checked_next_power_of_two(), 64u8.is_power_of_two());
    println!("div_ceil {} next_multiple_of {}", 17u32.div_ceil(5), 17u32.next_multiple_of(5));
    let mut acc = black_box(1u64);
    for i in 1..=25u64 {
        acc = acc.wrapping_mul(i).rotate_left(3) ^ i;
    }
    println!("mix {acc}");
}
