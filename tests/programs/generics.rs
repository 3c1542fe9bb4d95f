// Generics: trait bounds, where clauses, associated types and consts, generic structs
// and impls, blanket impls, PhantomData, monomorphised numeric code, impl Trait.
use std::collections::BTreeMap;
use std::fmt::Display;
use std::marker::PhantomData;
use std::ops::{Add, Mul};

trait Zero {
    const ZERO: Self;
}
impl Zero for i64 {
    const ZERO: i64 = 0;
}
impl Zero for f64 {
    const ZERO: f64 = 0.0;
}
impl Zero for u8 {
    const ZERO: u8 = 0;
}

fn dot<T: Copy + Zero + Add<Output = T> + Mul<Output = T>>(a: &[T], b: &[T]) -> T {
    a.iter().zip(b).fold(T::ZERO, |acc, (&x, &y)| acc + x * y)
}

fn largest<T: PartialOrd + Copy>(xs: &[T]) -> Option<T> {
    let mut it = xs.iter();
    let mut best = *it.next()?;
    for &x in it {
        if x > best {
            best = x;
        }
    }
    Some(best)
}

#[derive(Debug, Clone, PartialEq)]
struct Pair<A, B> {
    a: A,
    b: B,
}

impl<A: Display, B: Display> Pair<A, B> {
    fn show(&self) -> String {
        format!("<{}, {}>", self.a, self.b)
    }
}

impl<A, B> Pair<A, B> {
    fn swap(self) -> Pair<B, A> {
        Pair { a: self.b, b: self.a }
    }
}

trait Describe {
    fn describe(&self) -> String;
}

impl<T: std::fmt::Debug> Describe for T {
    fn describe(&self) -> String {
        format!("«{:?}»", self)
    }
}

trait Container {
    type Item;
    fn items(&self) -> Vec<Self::Item>;
}

struct Evens(u32);
impl Container for Evens {
    type Item = u32;
    fn items(&self) -> Vec<u32> {
        (0..self.0).map(|i| i * 2).collect()
    }
}

fn sum_container<C>(c: &C) -> u64
where
    C: Container,
    C::Item: Into<u64>,
{
    c.items().into_iter().map(Into::into).sum()
}

struct Meters<T>(f64, PhantomData<T>);
struct Metric;
impl<T> Meters<T> {
    fn new(v: f64) -> Self {
        Meters(v, PhantomData)
    }
}

fn counter<K: Ord + Clone>(items: &[K]) -> BTreeMap<K, usize> {
    let mut m = BTreeMap::new();
    for k in items {
        *m.entry(k.clone()).or_insert(0) += 1;
    }
    m
}

fn make_adder(n: i32) -> impl Fn(i32) -> i32 {
    move |x| x + n
}

fn evens_up_to(n: u32) -> impl Iterator<Item = u32> {
    (0..=n).filter(|x| x % 2 == 0)
}

fn main() {
    println!("dot i64 {}", dot(&[1i64, 2, 3], &[4, 5, 6]));
    println!("dot f64 {}", dot(&[0.5, 1.5], &[2.0, 4.0]));
    println!("dot u8 {}", dot(&[1u8, 2], &[3, 4]));
    println!("largest {:?} {:?} {:?} {:?}", largest(&[3, 9, 2]), largest(&[1.5, -2.0]), largest::<char>(&[]), largest(&["b", "abc"]));
    let p = Pair { a: 1, b: "x" };
    println!("{} {:?} {}", p.show(), p.clone().swap(), p == Pair { a: 1, b: "x" });
    println!("{} {} {}", 5.describe(), "s".describe(), p.describe());
    println!("sum {}", sum_container(&Evens(10)));
    let m: Meters<Metric> = Meters::new(2.5);
    println!("meters {} size {}", m.0, std::mem::size_of::<Meters<Metric>>());
    println!("{:?}", counter(&["a", "b", "a", "c", "a"]));
    println!("{:?}", counter(&[3, 1, 3]));
    let add5 = make_adder(5);
    println!("{} {:?}", add5(10), evens_up_to(9).collect::<Vec<_>>());
    let v: Vec<Box<dyn Fn(i32) -> i32>> = vec![Box::new(make_adder(1)), Box::new(make_adder(-1))];
    println!("{:?}", v.iter().map(|f| f(0)).collect::<Vec<_>>());
}
