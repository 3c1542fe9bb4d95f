// wrapping_*, checked_*, overflowing_* and saturating_* of every integer width at the
// edges of their ranges, including 128 bits; the overflow flag of add/sub/mul.

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

macro_rules! edges {
    ($t:ty) => {{
        let max: $t = black_box(<$t>::MAX);
        let min: $t = black_box(<$t>::MIN);
        let one: $t = black_box(1);
        let two: $t = black_box(2);
        let zero: $t = black_box(0);
        outln!(stringify!($t), " min ", min, " max ", max);
        outln!("  wrapping add ", max.wrapping_add(one), " sub ", min.wrapping_sub(one), " mul ", max.wrapping_mul(two), " neg ", min.wrapping_neg());
        outln!("  checked add ", max.checked_add(one), " ", max.checked_add(zero), " sub ", min.checked_sub(one), " mul ", max.checked_mul(two), " ", one.checked_mul(two));
        outln!("  checked div ", max.checked_div(zero), " ", max.checked_div(two), " rem ", max.checked_rem(zero), " ", max.checked_rem(two));
        outln!("  checked div min/-1 ", min.checked_div(zero.wrapping_sub(one)), " rem ", min.checked_rem(zero.wrapping_sub(one)));
        outln!("  overflowing add ", max.overflowing_add(one), " sub ", min.overflowing_sub(one), " mul ", max.overflowing_mul(max), " ", two.overflowing_mul(two));
        outln!("  saturating add ", max.saturating_add(one), " sub ", min.saturating_sub(one), " ", min.saturating_add(one));
        outln!("  pow ", two.wrapping_pow(<$t>::BITS - 1), " ", two.wrapping_pow(<$t>::BITS), " ", black_box(3 as $t).wrapping_pow(5));
    }};
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    edges!(u8);
    edges!(i8);
    edges!(u16);
    edges!(i16);
    edges!(u32);
    edges!(i32);
    edges!(u64);
    edges!(i64);
    edges!(usize);
    edges!(isize);
    edges!(u128);
    edges!(i128);
    // A running checked computation: the first factorial that overflows each width.
    let mut f32_ = 1u32;
    let mut f64_ = 1u64;
    let mut f128_ = 1i128;
    let mut n = 1;
    let mut done = [false; 3];
    while n < 40 {
        if !done[0] {
            match f32_.checked_mul(n as u32) {
                Some(v) => f32_ = v,
                None => {
                    outln!("u32 overflows at ", n, "!");
                    done[0] = true;
                }
            }
        }
        if !done[1] {
            match f64_.checked_mul(n as u64) {
                Some(v) => f64_ = v,
                None => {
                    outln!("u64 overflows at ", n, "!");
                    done[1] = true;
                }
            }
        }
        if !done[2] {
            let (v, o) = f128_.overflowing_mul(n as i128);
            if o {
                outln!("i128 overflows at ", n, "! (wrapped to ", v, ")");
                done[2] = true;
            } else {
                f128_ = v;
            }
        }
        n += 1;
    }
    0
}
