// Integer arithmetic of every width up to 64 bits: add, sub, mul, div, rem, shifts,
// bit operations, casts between widths (truncation, sign and zero extension). The
// operands come through black_box so that the operations are compiled, not folded.

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

macro_rules! arith {
    ($t:ty, $a:expr, $b:expr) => {{
        let a: $t = black_box($a);
        let b: $t = black_box($b);
        outln!(
            stringify!($t), " a=", a, " b=", b,
            " add=", a.wrapping_add(b), " sub=", a.wrapping_sub(b), " mul=", a.wrapping_mul(b),
            " div=", a / b, " rem=", a % b
        );
        outln!(
            "  and=", a & b, " or=", a | b, " xor=", a ^ b, " not=", !a,
            " shl3=", a << 3u32, " shr3=", a >> 3u32, " shl_b=", a.wrapping_shl(b as u32),
            " shr_b=", a.wrapping_shr(b as u32)
        );
        outln!(
            "  lt=", a < b, " le=", a <= b, " gt=", a > b, " ge=", a >= b, " eq=", a == b,
            " ne=", a != b
        );
    }};
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    arith!(u8, 200, 7);
    arith!(u8, 3, 250);
    arith!(i8, -100, 7);
    arith!(i8, 101, -3);
    arith!(u16, 60000, 259);
    arith!(i16, -30000, 77);
    arith!(u32, 4000000000, 65537);
    arith!(i32, -2000000000, 48271);
    arith!(i32, 7, -2);
    arith!(u64, 0xfedc_ba98_7654_3210, 0x1_0000_0001);
    arith!(i64, -9_000_000_000_000_000_000, 1_000_003);
    arith!(usize, 123456789012, 1000);
    arith!(isize, -123456789012, -1000);

    // Casts: truncation, sign and zero extension, through every width.
    let x: i64 = black_box(-1234567890123);
    outln!("i64->u8 ", x as u8, " i8 ", x as i8, " u16 ", x as u16, " i16 ", x as i16);
    outln!("i64->u32 ", x as u32, " i32 ", x as i32, " u64 ", x as u64, " u128 ", x as u128);
    let y: u8 = black_box(0xf0);
    outln!("u8->i8 ", y as i8, " i16 ", y as i16, " i64 ", y as i64, " via i8 ", y as i8 as i64);
    let z: i8 = black_box(-3);
    outln!("i8->u16 ", z as u16, " u32 ", z as u32, " u64 ", z as u64, " i128 ", z as i128);
    let w: u32 = black_box(0x8000_0001);
    outln!("u32->i32 ", w as i32, " i64 ", w as i64, " via i32 ", w as i32 as i64);
    let b: bool = black_box(true);
    outln!("bool->u8 ", b as u8, " i32 ", b as i32, " char->u32 ", 'Z' as u32, " u8->char ", 97u8 as char);

    // Signed division and remainder round toward zero.
    let mut i = -7i32;
    while i <= 7 {
        let d = black_box(3i32);
        out!(i, "/3=", i / d, " ", i, "%3=", i % d, " ", i, "/-3=", i / -d, "; ");
        i += 7;
    }
    outln!();
    // Arithmetic vs logical shifts.
    let s: i32 = black_box(-256);
    let u: u32 = black_box(0x8000_0000);
    outln!("sar ", s >> 4u32, " shr ", u >> 4u32, " i64 sar ", (s as i64) >> 40u32);
    // Sums that wrap in narrow types but not in wide ones.
    let mut acc8 = 0u8;
    let mut acc16 = 0u16;
    let mut acc64 = 0u64;
    let mut k = 0u32;
    while k < 1000 {
        let v = black_box(k);
        acc8 = acc8.wrapping_add(v as u8);
        acc16 = acc16.wrapping_add((v * 7) as u16);
        acc64 += (v as u64) * (v as u64);
        k += 1;
    }
    outln!("sums ", acc8, " ", acc16, " ", acc64);
    0
}
