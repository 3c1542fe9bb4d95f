// Enums: C-like with explicit discriminants and casts, enums with data of several
// shapes, niche-optimized layouts (Option<&T>, Option<bool>, Option<NonZero-like>),
// enums passed and returned by value, nested matches, size_of of the layouts.

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

#[repr(u8)]
enum Color {
    Red = 1,
    Green = 2,
    Blue = 4,
    White = 7,
}

impl Clone for Color {
    fn clone(&self) -> Self {
        *self
    }
}
impl Copy for Color {}

enum Shape {
    Point,
    Circle { r: u32 },
    Rect { w: u32, h: u32 },
    Poly(u8, [i16; 3]),
    Big(u128),
}

#[inline(never)]
fn area(s: &Shape) -> u128 {
    match s {
        Shape::Point => 0,
        Shape::Circle { r } => (3 * *r * *r) as u128,
        Shape::Rect { w, h } => (*w as u128) * (*h as u128),
        Shape::Poly(n, sides) => (*n as u128) * ((sides[0] + sides[1] + sides[2]) as u128),
        Shape::Big(v) => *v,
    }
}

#[inline(never)]
fn make(i: u32) -> Shape {
    match i % 5 {
        0 => Shape::Point,
        1 => Shape::Circle { r: i },
        2 => Shape::Rect { w: i, h: i + 1 },
        3 => Shape::Poly(i as u8, [1, 2, i as i16]),
        _ => Shape::Big((i as u128) << 100),
    }
}

#[inline(never)]
fn name(c: Color) -> &'static str {
    match c {
        Color::Red => "red",
        Color::Green => "green",
        Color::Blue => "blue",
        Color::White => "white",
    }
}

enum Expr<'a> {
    Num(i64),
    Add(&'a Expr<'a>, &'a Expr<'a>),
    Mul(&'a Expr<'a>, &'a Expr<'a>),
    Neg(&'a Expr<'a>),
}

fn eval(e: &Expr) -> i64 {
    match e {
        Expr::Num(n) => *n,
        Expr::Add(a, b) => eval(a) + eval(b),
        Expr::Mul(a, b) => eval(a) * eval(b),
        Expr::Neg(a) => -eval(a),
    }
}

#[inline(never)]
fn first_positive<'a>(xs: &'a [i32]) -> Option<&'a i32> {
    let mut i = 0;
    while i < xs.len() {
        if xs[i] > 0 {
            return Some(&xs[i]);
        }
        i += 1;
    }
    None
}

#[inline(never)]
fn flip(b: Option<bool>) -> Option<bool> {
    match b {
        Some(true) => Some(false),
        Some(false) => None,
        None => Some(true),
    }
}

enum Tri {
    A(u64),
    B(u64),
    C,
}

#[inline(never)]
fn step(t: Tri) -> Tri {
    match t {
        Tri::A(n) if n > 3 => Tri::B(n / 2),
        Tri::A(n) => Tri::A(n * 3 + 1),
        Tri::B(0) => Tri::C,
        Tri::B(n) => Tri::B(n - 1),
        Tri::C => Tri::A(1),
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    let colors = [Color::Red, Color::Green, Color::Blue, Color::White];
    for i in 0..colors.len() {
        let c = black_box(colors[i]);
        outln!(name(c), " = ", c as u8, " as i32 ", c as i32);
    }
    let mut total: u128 = 0;
    for i in 0..black_box(10u32) {
        let s = make(i);
        let a = area(&s);
        outln!("shape ", i, " area ", a);
        total += a;
    }
    outln!("total ", total);

    let two = Expr::Num(2);
    let three = Expr::Num(black_box(3));
    let sum = Expr::Add(&two, &three);
    let neg = Expr::Neg(&sum);
    let seven = Expr::Num(7);
    let prod = Expr::Mul(&neg, &seven);
    outln!("eval ", eval(&prod));

    let xs = [-3, 0, -1, 9, 4];
    outln!("first positive ", first_positive(&xs), " ", first_positive(&xs[..3]));
    let mut b = None;
    for _ in 0..4 {
        b = flip(black_box(b));
        out!(b, " ");
    }
    outln!();
    let mut t = Tri::A(1);
    for _ in 0..12 {
        t = step(t);
        match t {
            Tri::A(n) => out!("A", n, " "),
            Tri::B(n) => out!("B", n, " "),
            Tri::C => out!("C "),
        }
    }
    outln!();
    outln!(
        "sizes ", size_of::<Color>(), " ", size_of::<Option<&u8>>(), " ", size_of::<Option<bool>>(),
        " ", size_of::<Option<u32>>(), " ", size_of::<Tri>(), " ", size_of::<Option<Option<bool>>>(),
        " ", size_of::<Option<Color>>()
    );
    0
}
