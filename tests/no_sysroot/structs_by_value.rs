// Structs and tuples passed and returned by value: one field, two fields (a register
// pair), mixed widths with padding, floats, 128-bit fields, and larger aggregates that
// travel in memory (indirect arguments and returns), nested structs, arrays in structs.

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

struct One(u32);

struct Pair {
    a: i64,
    b: i64,
}

struct Mixed {
    tag: u8,
    wide: u64,
    small: i16,
    flag: bool,
}

struct Floats {
    x: f64,
    y: f32,
}

struct Big {
    v: [u64; 6],
    name: &'static str,
}

struct WithU128 {
    a: u8,
    w: u128,
}

struct Nested {
    p: Pair,
    m: Mixed,
    one: One,
}

#[inline(never)]
fn one(x: One) -> One {
    One(x.0 * 3 + 1)
}

#[inline(never)]
fn swap_pair(p: Pair) -> Pair {
    Pair { a: p.b, b: p.a }
}

#[inline(never)]
fn bump(m: Mixed) -> Mixed {
    Mixed { tag: m.tag + 1, wide: m.wide << 1u32, small: -m.small, flag: !m.flag }
}

#[inline(never)]
fn scale(f: Floats, k: f64) -> Floats {
    Floats { x: f.x * k, y: f.y * (k as f32) }
}

#[inline(never)]
fn reverse(mut b: Big) -> Big {
    let mut i = 0;
    while i < 3 {
        let t = b.v[i];
        b.v[i] = b.v[5 - i];
        b.v[5 - i] = t;
        i += 1;
    }
    b.name = "reversed";
    b
}

#[inline(never)]
fn add_w(x: WithU128, y: WithU128) -> WithU128 {
    WithU128 { a: x.a ^ y.a, w: x.w + y.w }
}

#[inline(never)]
fn rebuild(n: Nested) -> Nested {
    Nested { p: swap_pair(n.p), m: bump(n.m), one: one(n.one) }
}

#[inline(never)]
fn tuple(a: (u8, u64), b: (i32, i32, i32)) -> (u64, i32) {
    (a.0 as u64 + a.1, b.0 * b.1 - b.2)
}

#[inline(never)]
fn unit_and_empty(_u: (), e: Empty, x: u32) -> u32 {
    let Empty = e;
    x + 1
}

struct Empty;

fn print_mixed(m: &Mixed) {
    outln!("Mixed { tag: ", m.tag, ", wide: ", m.wide, ", small: ", m.small, ", flag: ", m.flag, " }");
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    outln!("one ", one(One(black_box(13))).0);
    let p = swap_pair(Pair { a: black_box(-1), b: 1 << 40 });
    outln!("pair ", p.a, " ", p.b);
    let m = bump(Mixed { tag: black_box(9), wide: 0x8000_0000_0000_0001, small: -300, flag: false });
    print_mixed(&m);
    let f = scale(Floats { x: black_box(1.5), y: 0.25 }, 4.0);
    outln!("floats ", f.x, " ", f.y);
    let b = reverse(Big { v: [1, 2, 3, 4, 5, black_box(6)], name: "big" });
    outln!("big ", b.v, " ", b.name);
    let w = add_w(WithU128 { a: 0xf0, w: u64::MAX as u128 }, WithU128 { a: black_box(0x0f), w: 1 });
    outln!("u128 field ", w.a, " ", w.w);
    let n = rebuild(Nested {
        p: Pair { a: 5, b: black_box(6) },
        m: Mixed { tag: 1, wide: 2, small: 3, flag: true },
        one: One(4),
    });
    out!("nested ", n.p.a, " ", n.p.b, " ");
    print_mixed(&n.m);
    outln!("  one ", n.one.0);
    outln!("tuple ", tuple((black_box(200), 1000), (6, 7, black_box(8))));
    outln!("unit ", unit_and_empty((), Empty, black_box(41)));
    outln!("sizes ", size_of::<Mixed>(), " ", size_of::<Big>(), " ", size_of::<WithU128>(), " ", size_of::<Nested>(), " ", size_of::<Empty>());
    // Many round trips, with values that change each time.
    let mut acc = Pair { a: 1, b: 2 };
    let mut i = 0;
    while i < 1000 {
        acc = swap_pair(acc);
        acc.a = acc.a.wrapping_mul(3).wrapping_add(i);
        i += 1;
    }
    outln!("acc ", acc.a, " ", acc.b);
    0
}
