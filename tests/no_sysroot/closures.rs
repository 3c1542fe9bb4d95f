// Closures: capturing by reference, by mutable reference and by move; passed as
// generic Fn/FnMut/FnOnce parameters and as &dyn Fn / &mut dyn FnMut; returned as
// impl Fn; stored in structs; closures without captures coerced to fn pointers.

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

fn apply_twice<F: Fn(i64) -> i64>(f: F, x: i64) -> i64 {
    f(f(x))
}

fn call_n<F: FnMut()>(n: u32, mut f: F) {
    for _ in 0..n {
        f();
    }
}

fn consume<F: FnOnce() -> u128>(f: F) -> u128 {
    f()
}

#[inline(never)]
fn dyn_call(f: &dyn Fn(u32, u32) -> u32, a: u32, b: u32) -> u32 {
    f(a, b)
}

#[inline(never)]
fn dyn_mut(f: &mut dyn FnMut(u8), bytes: &[u8]) {
    for b in bytes.iter() {
        f(*b);
    }
}

fn make_adder(n: i64) -> impl Fn(i64) -> i64 {
    move |x| x + n
}

fn make_counter() -> impl FnMut() -> u32 {
    let mut c = 0;
    move || {
        c += 1;
        c
    }
}

fn compose<A, B, C>(f: impl Fn(A) -> B, g: impl Fn(B) -> C) -> impl Fn(A) -> C {
    move |x| g(f(x))
}

struct Button<F: Fn(u32) -> u32> {
    clicks: u32,
    on_click: F,
}

impl<F: Fn(u32) -> u32> Button<F> {
    fn click(&mut self) -> u32 {
        self.clicks += 1;
        (self.on_click)(self.clicks)
    }
}

struct Big {
    a: [u64; 4],
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    let k = black_box(3i64);
    let times_k = |x: i64| x * k;
    outln!("apply_twice ", apply_twice(times_k, 5), " ", apply_twice(|x| x - 1, 0));

    let mut total = 0u64;
    let mut step = 1u64;
    call_n(black_box(10), || {
        total += step;
        step *= 2;
    });
    outln!("call_n total ", total, " step ", step);

    let big = Big { a: [1, 2, 3, black_box(4)] };
    let owned = move || (big.a[0] + big.a[1] * 10 + big.a[2] * 100 + big.a[3] * 1000) as u128;
    outln!("consume ", consume(owned));
    let s = black_box(7u128);
    outln!("consume move ", consume(move || s << 100));

    let base = black_box(100u32);
    outln!("dyn ", dyn_call(&|a, b| a * b + base, 6, 7), " ", dyn_call(&|a, b| if a > b { a } else { b }, 3, 9));

    let mut hist = [0u32; 4];
    let mut count = 0;
    dyn_mut(
        &mut |b| {
            hist[(b % 4) as usize] += 1;
            count += 1;
        },
        b"closures capture environment",
    );
    outln!("hist ", hist, " count ", count);

    let add5 = make_adder(black_box(5));
    let add_neg = make_adder(-100);
    outln!("adders ", add5(10), " ", add_neg(10), " ", compose(add5, add_neg)(1));
    let mut c1 = make_counter();
    let mut c2 = make_counter();
    c1();
    c1();
    outln!("counters ", c1(), " ", c2(), " ", c1());

    let sq_then_str = compose(|x: u32| x * x, |y: u32| y > 50);
    outln!("compose ", sq_then_str(7), " ", sq_then_str(8));

    let mult = black_box(3);
    let mut btn = Button { clicks: 0, on_click: |n| n * mult };
    btn.click();
    btn.click();
    outln!("button ", btn.click(), " clicks ", btn.clicks);

    let f: fn(u8) -> u8 = |x| x.wrapping_mul(37);
    outln!("coerced ", f(black_box(7)));

    // Closures capturing other closures, nested three deep.
    let a = black_box(2);
    let f1 = |x: i32| x + a;
    let f2 = |x: i32| f1(x) * f1(x);
    let f3 = |x: i32| f2(f1(x)) - a;
    outln!("nested ", f3(1), " ", f3(-2));
    0
}
