// Function pointers: as values, in arrays, as arguments and results, through
// generic code, pointers to functions of several signatures (including 128-bit and
// struct arguments), and a tiny interpreter dispatching through a table.

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

fn add(a: i64, b: i64) -> i64 {
    a + b
}
fn sub(a: i64, b: i64) -> i64 {
    a - b
}
fn mul(a: i64, b: i64) -> i64 {
    a.wrapping_mul(b)
}
fn max2(a: i64, b: i64) -> i64 {
    if a > b { a } else { b }
}

#[inline(never)]
fn apply(f: fn(i64, i64) -> i64, a: i64, b: i64) -> i64 {
    f(a, b)
}

#[inline(never)]
fn fold(xs: &[i64], init: i64, f: fn(i64, i64) -> i64) -> i64 {
    let mut acc = init;
    for x in xs.iter() {
        acc = f(acc, *x);
    }
    acc
}

#[inline(never)]
fn pick(name: &str) -> Option<fn(i64, i64) -> i64> {
    let b = name.as_bytes();
    if b.len() != 3 {
        return None;
    }
    match b[0] {
        b'a' => Some(add),
        b's' => Some(sub),
        b'm' if b[1] == b'u' => Some(mul),
        b'm' => Some(max2),
        _ => None,
    }
}

fn wide(a: u128, b: u8) -> u128 {
    (a << b) | 1
}

struct P {
    x: i32,
    y: i32,
}

fn swap_p(p: P) -> P {
    P { x: p.y, y: p.x }
}

fn compose<A, B, C>(f: fn(A) -> B, g: fn(B) -> C, x: A) -> C {
    g(f(x))
}

fn double(x: u32) -> u64 {
    x as u64 * 2
}

fn describe(x: u64) -> bool {
    x > 100
}

// A stack machine: each instruction is an index into a table of functions.
fn op_push1(st: &mut [i64; 16], sp: &mut usize) {
    st[*sp] = 1;
    *sp += 1;
}
fn op_dup(st: &mut [i64; 16], sp: &mut usize) {
    st[*sp] = st[*sp - 1];
    *sp += 1;
}
fn op_add(st: &mut [i64; 16], sp: &mut usize) {
    *sp -= 1;
    st[*sp - 1] += st[*sp];
}
fn op_mul(st: &mut [i64; 16], sp: &mut usize) {
    *sp -= 1;
    st[*sp - 1] *= st[*sp];
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    let ops: [fn(i64, i64) -> i64; 4] = [add, sub, mul, max2];
    let a = black_box(17);
    let b = black_box(-5);
    for i in 0..ops.len() {
        outln!("op ", i, " ", ops[i](a, b), " via apply ", apply(ops[i], b, a));
    }
    let xs = [3, 1, 4, 1, 5, 9, 2, 6];
    outln!("fold add ", fold(&xs, 0, add), " mul ", fold(&xs, 1, mul), " max ", fold(&xs, i64::MIN, max2));
    let names = ["add", "sub", "mul", "max", "div", "x"];
    for i in 0..names.len() {
        match pick(names[i]) {
            Some(f) => outln!(names[i], "(100, 7) = ", f(100, 7)),
            None => outln!(names[i], ": none"),
        }
    }
    let w: fn(u128, u8) -> u128 = black_box(wide);
    outln!("wide ", w(black_box(3), 100));
    let s: fn(P) -> P = black_box(swap_p);
    let p = s(P { x: 1, y: black_box(2) });
    outln!("struct arg ", p.x, " ", p.y);
    outln!("compose ", compose(double, describe, black_box(40)), " ", compose(double, describe, 60));
    let table: [fn(&mut [i64; 16], &mut usize); 4] = [op_push1, op_dup, op_add, op_mul];
    // ((1+1) * (1+1+1))^2 computed by the machine.
    let program = [0u8, 0, 2, 0, 0, 2, 0, 2, 3, 1, 3];
    let mut st = [0i64; 16];
    let mut sp = 0usize;
    for i in 0..program.len() {
        table[black_box(program[i]) as usize](&mut st, &mut sp);
    }
    outln!("machine result ", st[0], " depth ", sp);
    let same: fn(i64, i64) -> i64 = add;
    outln!("fn ptr eq ", (same as usize) == (ops[0] as usize), " ", (same as usize) == (ops[1] as usize));
    0
}
