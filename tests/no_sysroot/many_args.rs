// The calling convention beyond registers: more than eight arguments (the rest on the
// stack), mixed widths, 128-bit and struct arguments among them, many return values
// through a struct, and deep argument shuffles between calls.

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

#[inline(never)]
fn twelve(a: u8, b: i16, c: u32, d: i64, e: u64, f: i8, g: u16, h: i32, i: u64, j: i64, k: u8, l: i32) -> i64 {
    a as i64 - b as i64 + c as i64 - d + e as i64 - f as i64 + g as i64 - h as i64 + i as i64 - j + k as i64 * 1000 - l as i64 * 100000
}

#[inline(never)]
fn wide_args(a: u128, b: u64, c: i128, d: u128, e: u8, f: i128, g: u128) -> u128 {
    a.wrapping_add(b as u128).wrapping_add(c as u128).wrapping_mul(3).wrapping_add(d) ^ ((e as u128) << 64) ^ (f as u128).wrapping_add(g)
}

struct S3 {
    a: u64,
    b: u64,
    c: u64,
}

struct S1 {
    v: u16,
}

#[inline(never)]
fn structs(x: S3, n1: u32, y: S1, n2: u32, z: S3, n3: u64, w: S1, n4: u8, v: S3) -> S3 {
    S3 {
        a: x.a + z.a + v.a + n1 as u64 + y.v as u64,
        b: x.b * 2 + z.b * 3 + v.b * 4 + n2 as u64 + w.v as u64,
        c: x.c ^ z.c ^ v.c ^ n3 ^ n4 as u64,
    }
}

#[inline(never)]
fn floats(a: f64, b: f32, c: f64, d: f32, e: f64, f: f32, g: f64, h: f32, i: f64, j: f32, k: f64) -> f64 {
    a + b as f64 * 2.0 + c * 3.0 + d as f64 * 4.0 + e * 5.0 + f as f64 * 6.0 + g * 7.0 + h as f64 * 8.0 + i * 9.0 + j as f64 * 10.0 + k * 11.0
}

#[inline(never)]
fn rotate(a: u32, b: u32, c: u32, d: u32, e: u32, f: u32, g: u32, h: u32, i: u32, j: u32, depth: u32) -> u32 {
    if depth == 0 {
        return a ^ b.rotate_left(1) ^ c.rotate_left(2) ^ d.rotate_left(3) ^ e.rotate_left(4) ^ f.rotate_left(5) ^ g.rotate_left(6) ^ h.rotate_left(7) ^ i.rotate_left(8) ^ j.rotate_left(9);
    }
    rotate(j, a, b, c, d, e, f, g, h, i.wrapping_add(depth), depth - 1)
}

#[inline(never)]
fn callback(f: fn(u64, u64, u64, u64, u64, u64, u64, u64, u64, u64) -> u64, x: u64) -> u64 {
    f(x, x + 1, x + 2, x + 3, x + 4, x + 5, x + 6, x + 7, x + 8, x + 9)
}

fn weighted(a: u64, b: u64, c: u64, d: u64, e: u64, f: u64, g: u64, h: u64, i: u64, j: u64) -> u64 {
    a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i + 10 * j
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    outln!("twelve ", twelve(black_box(200), -300, 70000, -5_000_000_000, 1 << 40, -8, 65535, i32::MIN, 99, -99, 7, black_box(-3)));
    outln!("wide ", wide_args(black_box(1u128 << 90), u64::MAX, -5, 12345678901234567890123456789, 0xab, i128::MIN, black_box(7)));
    let r = structs(
        S3 { a: 1, b: 2, c: 3 },
        10,
        S1 { v: 20 },
        30,
        S3 { a: black_box(100), b: 200, c: 300 },
        0xff00,
        S1 { v: 40 },
        0x0f,
        S3 { a: 1000, b: 2000, c: black_box(3000) },
    );
    outln!("structs ", r.a, " ", r.b, " ", r.c);
    outln!("floats ", floats(black_box(1.0), 0.5, 0.25, 0.125, 1e-3, -2.0, 1e10, 3.0, -0.5, 1.0, black_box(2.0)));
    outln!("rotate ", Hex(rotate(1, 2, 3, 4, 5, 6, 7, 8, 9, black_box(10), black_box(25))));
    outln!("callback ", callback(weighted, black_box(100)));
    0
}
