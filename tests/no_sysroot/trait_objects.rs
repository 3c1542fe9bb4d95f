// Trait objects: &dyn and &mut dyn with vtables of several methods, default methods,
// supertraits, dyn in arrays and as fields, size_of_val through a vtable, generic
// code calling through dyn, and drop of values behind &mut dyn (not owned).

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

trait Shape {
    fn area(&self) -> u64;
    fn name(&self) -> &'static str;
    fn scale(&mut self, k: u32);
    fn describe(&self) {
        outln!(self.name(), " with area ", self.area());
    }
}

struct Square(u32);
struct Rect {
    w: u32,
    h: u32,
}
struct Tri {
    base: u64,
    height: u64,
    label: u8,
}

impl Shape for Square {
    fn area(&self) -> u64 {
        (self.0 * self.0) as u64
    }
    fn name(&self) -> &'static str {
        "square"
    }
    fn scale(&mut self, k: u32) {
        self.0 *= k;
    }
}

impl Shape for Rect {
    fn area(&self) -> u64 {
        self.w as u64 * self.h as u64
    }
    fn name(&self) -> &'static str {
        "rect"
    }
    fn scale(&mut self, k: u32) {
        self.w *= k;
        self.h *= k;
    }
    fn describe(&self) {
        outln!("a ", self.w, "x", self.h, " rect");
    }
}

impl Shape for Tri {
    fn area(&self) -> u64 {
        self.base * self.height / 2
    }
    fn name(&self) -> &'static str {
        if self.label == b'r' { "right triangle" } else { "triangle" }
    }
    fn scale(&mut self, k: u32) {
        self.base *= k as u64;
        self.height *= k as u64;
    }
}

trait Named {
    fn id(&self) -> u32;
}

trait Animal: Named {
    fn sound(&self) -> &'static str;
    fn legs(&self) -> u32 {
        4
    }
}

struct Dog;
struct Bird(u32);

impl Named for Dog {
    fn id(&self) -> u32 {
        1
    }
}
impl Animal for Dog {
    fn sound(&self) -> &'static str {
        "woof"
    }
}
impl Named for Bird {
    fn id(&self) -> u32 {
        self.0
    }
}
impl Animal for Bird {
    fn sound(&self) -> &'static str {
        "tweet"
    }
    fn legs(&self) -> u32 {
        2
    }
}

#[inline(never)]
fn total_area(shapes: &[&dyn Shape]) -> u64 {
    let mut t = 0;
    for s in shapes.iter() {
        t += s.area();
    }
    t
}

#[inline(never)]
fn grow(s: &mut dyn Shape, k: u32) -> u64 {
    s.scale(k);
    s.area()
}

#[inline(never)]
fn zoo(a: &dyn Animal) {
    outln!("animal ", a.id(), " says ", a.sound(), " on ", a.legs(), " legs");
}

struct Holder<'a> {
    tag: u8,
    inner: &'a dyn Shape,
}

fn largest<'a>(shapes: &[&'a dyn Shape]) -> &'a dyn Shape {
    let mut best = shapes[0];
    for s in shapes.iter() {
        if s.area() > best.area() {
            best = *s;
        }
    }
    best
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    let mut sq = Square(black_box(3));
    let mut re = Rect { w: 4, h: black_box(5) };
    let mut tr = Tri { base: 6, height: 7, label: b'r' };
    {
        let shapes: [&dyn Shape; 3] = [&sq, &re, &tr];
        for s in shapes.iter() {
            s.describe();
        }
        outln!("total ", total_area(&shapes));
        outln!("largest is a ", largest(&shapes).name());
        outln!("sizes ", size_of_val(shapes[0]), " ", size_of_val(shapes[1]), " ", size_of_val(shapes[2]));
        let h = Holder { tag: 9, inner: shapes[2] };
        outln!("holder ", h.tag, " ", h.inner.name());
    }
    outln!("grown ", grow(&mut sq, 2), " ", grow(&mut re, black_box(3)), " ", grow(&mut tr, 10));
    let shapes: [&dyn Shape; 3] = [&tr, &sq, &re];
    outln!("total after ", total_area(&shapes), " largest ", largest(&shapes).name());
    let d = Dog;
    let b = Bird(black_box(77));
    let animals: [&dyn Animal; 2] = [&d, &b];
    for i in 0..2 {
        zoo(animals[i]);
    }
    let n: &dyn Named = animals[1];
    outln!("upcast id ", n.id());
    0
}
