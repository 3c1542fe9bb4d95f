// Arrays and slices: indexing with bounds checks that pass, subslices, iteration,
// arrays copied by value, 2-D arrays, arrays of structs, sorting and searching,
// slice equality, and large arrays on the stack.

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

#[inline(never)]
fn sum(xs: &[i64]) -> i64 {
    let mut s = 0;
    for x in xs.iter() {
        s += *x;
    }
    s
}

#[inline(never)]
fn insertion_sort(xs: &mut [i32]) {
    let mut i = 1;
    while i < xs.len() {
        let mut j = i;
        while j > 0 && xs[j - 1] > xs[j] {
            xs.swap(j - 1, j);
            j -= 1;
        }
        i += 1;
    }
}

#[inline(never)]
fn binary_search(xs: &[i32], target: i32) -> Option<usize> {
    let mut lo = 0;
    let mut hi = xs.len();
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if xs[mid] == target {
            return Some(mid);
        } else if xs[mid] < target {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    None
}

#[inline(never)]
fn by_value(mut a: [u16; 5]) -> [u16; 5] {
    a[0] = 999;
    a
}

#[inline(never)]
fn transpose(m: [[u8; 3]; 3]) -> [[u8; 3]; 3] {
    let mut t = [[0u8; 3]; 3];
    for i in 0..3usize {
        for j in 0..3usize {
            t[j][i] = m[i][j];
        }
    }
    t
}

struct Point {
    x: i32,
    y: i32,
}

#[inline(never)]
fn centroid(ps: &[Point]) -> (i32, i32) {
    let mut sx = 0;
    let mut sy = 0;
    for p in ps.iter() {
        sx += p.x;
        sy += p.y;
    }
    (sx / ps.len() as i32, sy / ps.len() as i32)
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    let a = [3i64, -1, 4, -1, 5, -9, 2, 6];
    outln!("sum ", sum(&a), " first half ", sum(&a[..4]), " tail ", sum(&a[5..]), " mid ", sum(&a[2..6]), " empty ", sum(&a[3..3]));
    outln!("len ", a.len(), " ", a[1..7].len(), " last ", a[a.len() - 1]);

    let mut v = [38, 27, 43, 3, 9, 82, 10, -5, 0, 27];
    insertion_sort(&mut v);
    outln!("sorted ", v);
    outln!("search 43 ", binary_search(&v, black_box(43)), " 4 ", binary_search(&v, 4), " -5 ", binary_search(&v, -5));

    let orig = [1u16, 2, 3, 4, 5];
    let changed = by_value(orig);
    outln!("orig ", orig, " changed ", changed);
    let copy = orig;
    outln!("eq ", orig == copy, " ", orig == changed, " slices ", orig[1..] == copy[1..], " ", orig[..2] == changed[..2]);

    let m = [[1u8, 2, 3], [4, 5, 6], [7, 8, black_box(9)]];
    let t = transpose(m);
    outln!("transpose ", t[0], " ", t[1], " ", t[2]);

    let ps = [Point { x: 1, y: 2 }, Point { x: -7, y: 8 }, Point { x: 30, y: black_box(-1) }];
    outln!("centroid ", centroid(&ps));

    // A large array on the stack: a prime sieve.
    let mut sieve = [true; 10000];
    sieve[0] = false;
    sieve[1] = false;
    let mut i = 2;
    while i * i < sieve.len() {
        if sieve[i] {
            let mut j = i * i;
            while j < sieve.len() {
                sieve[j] = false;
                j += i;
            }
        }
        i += 1;
    }
    let mut count = 0;
    let mut last = 0;
    for k in 0..sieve.len() {
        if sieve[k] {
            count += 1;
            last = k;
        }
    }
    outln!("primes below 10000: ", count, ", largest ", last);

    // Byte arrays and mutation through slices of slices.
    let mut buf = [0u8; 16];
    {
        let (left, right) = (0usize, 8usize);
        let s = &mut buf[left..right];
        for k in 0..s.len() {
            s[k] = (k * 3) as u8;
        }
    }
    let tail = &mut buf[8..];
    tail[7] = 0xff;
    outln!("buf ", buf);
    0
}
