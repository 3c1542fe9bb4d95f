// Bit counting and permutation of every width: count_ones, leading_zeros,
// trailing_zeros (including of zero), swap_bytes, reverse_bits, rotations.

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

macro_rules! bits {
    ($t:ty, $($v:expr),*) => {{
        $(
            let x: $t = black_box($v as $t);
            outln!(
                stringify!($t), " ", Hex(x), " ones ", x.count_ones(), " lz ", x.leading_zeros(),
                " tz ", x.trailing_zeros(), " bswap ", Hex(x.swap_bytes()), " brev ", Hex(x.reverse_bits()),
                " rotl5 ", Hex(x.rotate_left(black_box(5))), " rotr3 ", Hex(x.rotate_right(black_box(3)))
            );
        )*
    }};
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    bits!(u8, 0, 1, 0x80, 0xa5, 0xff);
    bits!(i8, -1, -128, 0x35);
    bits!(u16, 0, 0x8001, 0x1234);
    bits!(i16, -2, 0x7fff);
    bits!(u32, 0, 1, 0x8000_0000u32, 0xdead_beefu32, 0x0f0f_0f0f);
    bits!(i32, -1, 0x1000);
    bits!(u64, 0, 1, 0x8000_0000_0000_0000u64, 0x0123_4567_89ab_cdefu64);
    bits!(i64, -1, 0x100_0000_0000);
    bits!(usize, 0, 0xffff_ffff_ffffusize);
    bits!(u128, 0, 1, 1u128 << 127, 0x0123_4567_89ab_cdef_0011_2233_4455_6677u128, 1u128 << 64);
    bits!(i128, -1, 1i128 << 70);
    // Population count of a range, a loop of bit operations.
    let mut total = 0u32;
    let mut parity = 0u64;
    let mut x = black_box(0x9e37_79b9_7f4a_7c15u64);
    let mut i = 0;
    while i < 100 {
        total += x.count_ones();
        parity ^= x & x.wrapping_neg();
        x = x.rotate_left(7) ^ (x >> 3u32);
        i += 1;
    }
    outln!("total ", total, " parity ", Hex(parity), " x ", Hex(x));
    0
}
