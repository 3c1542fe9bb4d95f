// std::mem::size_of and align_of of common types on a 64-bit target (both sides are
// LP64; types whose alignment may differ between ABIs, like u128, are left out of
// align_of and of composite layouts).
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::mem::{align_of, size_of, size_of_val};
use std::num::NonZeroU32;
use std::rc::Rc;

#[allow(dead_code)]
struct Packed {
    a: u8,
    b: u32,
    c: u16,
}

#[allow(dead_code)]
#[repr(C)]
struct InOrder {
    a: u8,
    b: u32,
    c: u16,
}

#[allow(dead_code)]
enum E {
    A,
    B(u32),
    C { x: u64 },
}

macro_rules! sizes {
    ($($t:ty),*) => {$(
        println!("{:<28} {}", stringify!($t), size_of::<$t>());
    )*};
}

fn main() {
    sizes!(u8, u16, u32, u64, u128, usize, i8, isize, f32, f64, bool, char, (), [u8; 0], [u32; 5]);
    sizes!(&u8, &str, &[u64], Box<u8>, Box<str>, Box<[u8]>, Option<&u8>, Option<Box<u8>>, Option<u32>, Option<NonZeroU32>, Option<bool>, Option<char>);
    sizes!(String, Vec<u8>, Rc<u8>, Cell<u32>, RefCell<u32>, Option<String>, Result<u32, ()>, Result<(), Box<u8>>);
    sizes!(fn(), fn(i32) -> i32, &dyn Fn(), Box<dyn Fn()>, Option<fn()>, (u8, u32), (u8, u16, u8), Packed, InOrder, E, Option<E>);
    sizes!(HashMap<u32, u32>, BTreeMap<u32, u32>, VecDeque<u8>, std::ops::Range<usize>, std::cmp::Ordering, Option<std::cmp::Ordering>);
    println!("align u8 {} u16 {} u32 {} u64 {} f64 {} usize {} InOrder {}", align_of::<u8>(), align_of::<u16>(), align_of::<u32>(), align_of::<u64>(), align_of::<f64>(), align_of::<usize>(), align_of::<InOrder>());
    let arr = [1u16; 7];
    let s: &[u16] = &arr[1..];
    println!("size_of_val {} {} {}", size_of_val(&arr), size_of_val(s), size_of_val("héllo"));
    let closure_unit = || 1;
    let x = 5u64;
    let closure_cap = move || x + 1;
    println!("closures {} {}", size_of_val(&closure_unit), size_of_val(&closure_cap));
    println!("{} {}", closure_unit(), closure_cap());
}
