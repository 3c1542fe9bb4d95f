// Printing: every type mini_core's `out!`/`outln!` and print_* helpers print, through
// vliw_write on stdout and stderr. The first program to get running.

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    print_str("Hello, VLIW!\n");
    outln!("u8 ", 255u8, " u16 ", 65535u16, " u32 ", 4294967295u32);
    outln!("u64 ", u64::MAX, " usize ", 12345usize);
    outln!("i8 ", -128i8, " i16 ", -32768i16, " i32 ", i32::MIN, " i64 ", i64::MIN);
    outln!("u128 ", u128::MAX);
    outln!("i128 ", i128::MIN, " ", i128::MAX);
    outln!("u128 10^30 ", 1_000_000_000_000_000_000_000_000_000_000u128);
    outln!("u128 2^64 ", 18446744073709551616u128, " 2^64-1 ", 18446744073709551615u128);
    outln!("bool ", true, " ", false, " char ", 'A', 'é', '€', '😀');
    outln!("hex ", Hex(0xdead_beefu32), " ", Hex(0u8), " ", Hex(-1i16), " ", Hex(u128::MAX));
    outln!("f64 ", 1.0f64, " ", 0.1f64, " ", -2.5f64, " ", 0.0f64, " ", -0.0f64);
    outln!("f64 ", 1.0f64 / 0.0, " ", -1.0f64 / 0.0, " ", 0.0f64 / 0.0, " ", 5e-324f64);
    outln!("f32 ", 1.5f32, " ", 0.1f32, " ", 3.4028235e38f32, " ", 1e-45f32);
    outln!("slice ", [1i32, -2, 3], " option ", Some(7u8), " ", None::<u8>);
    outln!("pair ", (1u8, "two"), " ordering ", Less, " ", Equal, " ", Greater);
    print_u64(42);
    print_str(" ");
    print_i64(-42);
    print_str(" ");
    print_u128(u128::MAX / 3);
    print_str(" ");
    print_i128(-(1i128 << 100));
    print_str(" ");
    print_hex(0x0123_4567_89ab_cdef);
    print_str(" ");
    print_f64_bits(1.0);
    print_str(" ");
    print_f64(core_pi());
    print_str(" ");
    print_f32(2.0f32);
    print_str("\n");
    errln!("this line goes to stderr");
    0
}

fn core_pi() -> f64 {
    3.141592653589793
}
