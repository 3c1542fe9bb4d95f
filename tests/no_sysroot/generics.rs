// Generics: generic functions and structs monomorphized at many types, trait bounds
// with associated types and constants, const generics, generic methods, static
// dispatch through traits with default methods.

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

fn largest<T: PartialOrd + Copy>(xs: &[T]) -> T {
    let mut m = xs[0];
    for x in xs.iter() {
        if *x > m {
            m = *x;
        }
    }
    m
}

fn sum_all<T: Add<Output = T> + Copy>(xs: &[T], zero: T) -> T {
    let mut s = zero;
    for x in xs.iter() {
        s = s + *x;
    }
    s
}

struct Stack<T, const N: usize> {
    items: [T; N],
    len: usize,
}

impl<T: Copy, const N: usize> Stack<T, N> {
    fn new(fill: T) -> Self {
        Stack { items: [fill; N], len: 0 }
    }
    fn push(&mut self, x: T) -> bool {
        if self.len == N {
            return false;
        }
        self.items[self.len] = x;
        self.len += 1;
        true
    }
    fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            None
        } else {
            self.len -= 1;
            Some(self.items[self.len])
        }
    }
    fn capacity(&self) -> usize {
        N
    }
}

trait Monoid {
    const ID: Self;
    fn op(self, other: Self) -> Self;
}

impl Monoid for u64 {
    const ID: u64 = 0;
    fn op(self, other: u64) -> u64 {
        self + other
    }
}

struct MaxI32(i32);
impl Monoid for MaxI32 {
    const ID: MaxI32 = MaxI32(i32::MIN);
    fn op(self, other: MaxI32) -> MaxI32 {
        if other.0 > self.0 { other } else { self }
    }
}

struct Concat {
    bits: u128,
    len: u32,
}
impl Monoid for Concat {
    const ID: Concat = Concat { bits: 0, len: 0 };
    fn op(self, other: Concat) -> Concat {
        Concat { bits: (self.bits << other.len) | other.bits, len: self.len + other.len }
    }
}

fn mconcat<M: Monoid, F: Fn(u32) -> M>(n: u32, f: F) -> M {
    let mut acc = M::ID;
    for i in 0..n {
        acc = acc.op(f(i));
    }
    acc
}

trait Container {
    type Item;
    fn get(&self, i: usize) -> Option<Self::Item>;
    fn first(&self) -> Option<Self::Item> {
        self.get(0)
    }
}

struct Evens;
impl Container for Evens {
    type Item = u64;
    fn get(&self, i: usize) -> Option<u64> {
        Some(2 * i as u64)
    }
}

struct Word(&'static str);
impl Container for Word {
    type Item = u8;
    fn get(&self, i: usize) -> Option<u8> {
        self.0.as_bytes().get(i).map(|b| *b)
    }
}

fn third<C: Container>(c: &C) -> Option<C::Item> {
    c.get(2)
}

struct Pair<A, B> {
    a: A,
    b: B,
}

impl<A: Copy, B: Copy> Pair<A, B> {
    fn swap(&self) -> Pair<B, A> {
        Pair { a: self.b, b: self.a }
    }
}

fn size_report<T>() -> usize {
    size_of::<T>() * 100 + align_of::<T>()
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    outln!("largest ", largest(&[3u8, 9, 2]), " ", largest(&[-3i64, -9, -2]), " ", largest(&[1.5f64, -2.0, 0.25]), " ", largest(&['q', 'z', 'a']));
    outln!("sum ", sum_all(&[1u16, 2, 3], 0), " ", sum_all(&[1i128 << 100, 1 << 100], 0), " ", sum_all(&[0.5f32, 0.25], 0.0));
    let mut s: Stack<u32, 4> = Stack::new(0);
    let mut pushed = 0;
    while s.push(black_box(pushed * 10)) {
        pushed += 1;
    }
    out!("stack cap ", s.capacity(), " pushed ", pushed, " popped");
    while let Some(x) = s.pop() {
        out!(" ", x);
    }
    outln!();
    let mut big: Stack<(u8, i64), 100> = Stack::new((0, 0));
    for i in 0..black_box(150) {
        big.push((i as u8, -(i as i64)));
    }
    outln!("big stack len ", big.len, " top ", big.pop());
    outln!("mconcat sum ", mconcat(black_box(100), |i| i as u64));
    outln!("mconcat max ", mconcat(10, |i| MaxI32((i as i32 * 7) % 11)).0);
    let c = mconcat(8, |i| Concat { bits: (i % 2) as u128, len: 1 + i % 3 });
    outln!("mconcat concat ", Hex(c.bits), " len ", c.len);
    outln!("containers ", Evens.first(), " ", third(&Evens), " ", Word("hey").first(), " ", third(&Word("hey")), " ", third(&Word("no")));
    let p = Pair { a: 1u8, b: -2i128 };
    let q = p.swap();
    outln!("pair swap ", q.a, " ", q.b);
    outln!("sizes ", size_report::<u8>(), " ", size_report::<u128>(), " ", size_report::<Pair<u8, u64>>(), " ", size_report::<Stack<u16, 3>>(), " ", size_report::<[u32; 0]>());
    0
}
