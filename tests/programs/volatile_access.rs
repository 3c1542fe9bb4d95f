// Volatile loads and stores of every kind of layout (issue 19): scalars of each width
// (u128, floats, bool, char, pointers, niche-carrying options), scalar pairs ((u32,
// u8), (f64, bool), &str), memory aggregates (arrays, a struct of mixed fields, a
// packed struct, enums with data, a union), MaybeUninit of bytes, of a struct and of
// a pair of pointers (rayon-core's JobRef, read by crossbeam-deque's Buffer::read),
// zero-sized types, SIMD vectors, large arrays; `volatile_copy_memory`,
// `volatile_copy_nonoverlapping_memory`, `volatile_set_memory` with constant and
// run-time counts, and the unaligned intrinsics. Volatile reads around plain writes
// through other pointers must see every write (no read merged or dropped).
#![feature(core_intrinsics, portable_simd, f16, f128)]
#![allow(internal_features)]

use std::fmt::Debug;
use std::hint::black_box;
use std::intrinsics::{
    unaligned_volatile_load, unaligned_volatile_store, volatile_copy_memory,
    volatile_copy_nonoverlapping_memory, volatile_set_memory,
};
use std::marker::PhantomData;
use std::mem::{MaybeUninit, size_of};
use std::num::NonZeroU32;
use std::ptr::{read_volatile, write_volatile};
use std::simd::Simd;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Mixed {
    a: u8,
    b: u64,
    c: u16,
    d: f32,
    e: [u8; 3],
    f: i128,
}

#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct ReprC {
    x: u16,
    y: u32,
    z: u8,
}

#[derive(Clone, Copy)]
#[repr(C, packed)]
struct Packed {
    a: u8,
    b: u32,
    c: u64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Shape {
    Empty,
    Dot(u8),
    Rect(u64, u32),
    Named([u8; 5], u16),
}

#[derive(Clone, Copy)]
union Bits {
    word: u32,
    bytes: [u8; 6],
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Zst;

/// rayon-core's `JobRef`: a data pointer and a function pointer.
#[derive(Clone, Copy)]
struct JobRef {
    pointer: *const (),
    execute_fn: unsafe fn(*const ()) -> u64,
}

unsafe fn execute_job(p: *const ()) -> u64 {
    unsafe { *(p as *const u64) * 3 }
}

/// Write `a` then `b` into a slot, volatile, reading it back after each: both reads
/// must see their write.
#[inline(never)]
fn twice<T: Copy + Debug>(name: &str, a: T, b: T) {
    let mut slot = MaybeUninit::<T>::uninit();
    let p = slot.as_mut_ptr();
    unsafe {
        write_volatile(p, a);
        let ra = read_volatile(p);
        write_volatile(p, b);
        let rb = read_volatile(p);
        let rc = read_volatile(p);
        println!("{name}: {ra:?} {rb:?} {rc:?}");
    }
}

/// The same, inlined into the caller (constant addresses, values the optimizer
/// knows).
#[inline(always)]
fn twice_inline<T: Copy + Debug>(name: &str, a: T, b: T) {
    let mut slot = MaybeUninit::<T>::uninit();
    let p = slot.as_mut_ptr();
    unsafe {
        write_volatile(p, a);
        let ra = read_volatile(p);
        write_volatile(p, b);
        let rb = read_volatile(p);
        println!("{name} (inline): {ra:?} {rb:?}");
    }
}

fn scalars() {
    twice("u8", 7u8, 250u8);
    twice("u16", 0x1234u16, 0xfedc);
    twice("u32", 0xdead_beefu32, 1);
    twice("u64", u64::MAX, 0x0123_4567_89ab_cdef);
    twice("u128", u128::MAX / 3, 1u128 << 100);
    twice("i128", i128::MIN, -5i128);
    twice("f32", 1.5f32, -0.0);
    twice("f64", std::f64::consts::PI, f64::INFINITY);
    twice("bool", true, false);
    twice("char", 'é', '\u{10ffff}');
    twice("usize", usize::MAX, 42usize);
    twice("Option<NonZeroU32>", NonZeroU32::new(9), None);
    twice("Option<&u32>", Some(&5u32), None);
    twice("f16 bits", 1.25f16.to_bits(), (-2.0f16).to_bits());
    twice("f128 bits", 1.25f128.to_bits(), (-2.0f128).to_bits());
    let mut h = MaybeUninit::<f16>::uninit();
    let mut q = MaybeUninit::<f128>::uninit();
    unsafe {
        write_volatile(h.as_mut_ptr(), black_box(3.5f16));
        write_volatile(q.as_mut_ptr(), black_box(-7.25f128));
        let (h, q) = (read_volatile(h.as_ptr()), read_volatile(q.as_ptr()));
        println!("f16 {:#x} f128 {:#x}", h.to_bits(), q.to_bits());
    }
    twice_inline("u32", 3u32, 4);
    twice_inline("u128", 3u128 << 70, 4);
}

fn pairs() {
    twice("(u32, u8)", (0xffff_0000u32, 0x55u8), (1, 2));
    twice("(f64, bool)", (2.5f64, true), (-1.0, false));
    twice("(u8, u64)", (3u8, u64::MAX), (4, 5));
    twice("&str", "volatile", "reads");
    twice("&[u16]", &[1u16, 2, 3][..], &[][..]);
    twice("Option<u32>", Some(8u32), None);
    twice("Result<u16, i64>", Ok::<u16, i64>(3), Err(-9));
    twice_inline("(u32, u8)", (5u32, 6u8), (7, 8));
    twice_inline("&str", "in", "line");
}

fn aggregates() {
    twice("[u64; 3]", [1u64, 2, 3], [u64::MAX, 0, 7]);
    twice("[u8; 3]", [1u8, 2, 3], [9, 8, 7]);
    twice("[u16; 7]", [1u16, 2, 3, 4, 5, 6, 7], [7, 6, 5, 4, 3, 2, 1]);
    twice("[bool; 5]", [true, false, true, true, false], [false; 5]);
    let m1 = Mixed {
        a: 1,
        b: 2,
        c: 3,
        d: 4.5,
        e: [5, 6, 7],
        f: -8,
    };
    let m2 = Mixed {
        a: 255,
        b: u64::MAX,
        c: 65535,
        d: -0.25,
        e: [0, 1, 2],
        f: i128::MAX,
    };
    twice("Mixed", m1, m2);
    twice_inline("Mixed", m1, m2);
    twice(
        "ReprC",
        ReprC { x: 1, y: 2, z: 3 },
        ReprC { x: 4, y: 5, z: 6 },
    );
    twice("[Mixed; 2]", [m1, m2], [m2, m1]);
    twice("Shape", Shape::Rect(10, 20), Shape::Named(*b"hello", 77));
    twice("Shape 2", Shape::Dot(4), Shape::Empty);
    twice("Option<(u32, u64)>", Some((1u32, 2u64)), None);
    twice("(u8, u16, u32)", (1u8, 2u16, 3u32), (4, 5, 6));
    twice_inline("[u64; 3]", [4u64, 5, 6], [6, 5, 4]);

    let big: [u32; 60] = std::array::from_fn(|i| (i * i) as u32);
    let mut slot = [0u32; 60];
    unsafe {
        write_volatile(&mut slot, big);
        let r = read_volatile(&slot);
        println!("[u32; 60]: sum {} last {}", r.iter().sum::<u32>(), r[59]);
    }

    let mut p = Packed { a: 0, b: 0, c: 0 };
    unsafe {
        write_volatile(
            &mut p,
            Packed {
                a: 1,
                b: 0x0203_0405,
                c: 0x0607_0809_0a0b_0c0d,
            },
        );
        let r = read_volatile(&p);
        let (a, b, c) = (r.a, r.b, r.c);
        println!("Packed: {a} {b:#x} {c:#x}");
        // fields at odd offsets, volatile and unaligned
        let pb = std::ptr::addr_of_mut!(p.b);
        let pc = std::ptr::addr_of_mut!(p.c);
        unaligned_volatile_store(pb, 0x1122_3344);
        unaligned_volatile_store(pc, unaligned_volatile_load(pc) + 1);
        let b = unaligned_volatile_load(pb);
        let c = unaligned_volatile_load(pc);
        let (pa, pb2) = (p.a, p.b);
        println!("Packed fields: {pa} {b:#x} {c:#x} {pb2:#x}");
    }

    let mut u = Bits { bytes: [0; 6] };
    unsafe {
        write_volatile(&mut u, Bits { word: 0x0403_0201 });
        let r = read_volatile(&u);
        println!("union word {:#x}", r.word);
        write_volatile(
            &mut u,
            Bits {
                bytes: [9, 8, 7, 6, 5, 4],
            },
        );
        let r = read_volatile(&u);
        println!("union bytes {:?}", r.bytes);
    }
}

fn maybe_uninit() {
    // MaybeUninit<[u8; 40]>: a Memory value of no type but its bytes
    let src: [u8; 40] = std::array::from_fn(|i| i as u8 * 3);
    let mut slot = MaybeUninit::<[u8; 40]>::uninit();
    unsafe {
        write_volatile(
            slot.as_mut_ptr().cast::<MaybeUninit<[u8; 40]>>(),
            MaybeUninit::new(src),
        );
        let r: MaybeUninit<[u8; 40]> = read_volatile(slot.as_ptr().cast());
        let r = r.assume_init();
        println!("MaybeUninit<[u8; 40]>: {:?}", &r[..]);
    }
    let mut m = MaybeUninit::<Mixed>::uninit();
    let value = Mixed {
        a: 9,
        b: 99,
        c: 999,
        d: 9.5,
        e: [1, 2, 3],
        f: 9999,
    };
    unsafe {
        let mp = &mut m as *mut MaybeUninit<Mixed>;
        write_volatile(mp, MaybeUninit::new(value));
        let r = read_volatile(mp).assume_init();
        println!("MaybeUninit<Mixed>: {r:?} equal {}", r == value);
    }
    // a deque of JobRefs, as crossbeam-deque's Buffer: volatile writes and reads of
    // MaybeUninit<JobRef>
    let data = [10u64, 20, 30, 40];
    let mut buffer: [MaybeUninit<JobRef>; 4] = [MaybeUninit::uninit(); 4];
    let base = buffer.as_mut_ptr();
    unsafe {
        for (i, d) in data.iter().enumerate() {
            let job = JobRef {
                pointer: d as *const u64 as *const (),
                execute_fn: execute_job,
            };
            write_volatile(base.add(i), MaybeUninit::new(job));
        }
        let mut results = Vec::new();
        for i in (0..4).rev() {
            let job = read_volatile(base.add(black_box(i))).assume_init();
            results.push((job.execute_fn)(job.pointer));
        }
        println!("JobRef deque: {results:?}");
    }
    twice("MaybeUninit<u64> (as u64)", 1u64, 2);
    let mut mu = MaybeUninit::<(u32, u8)>::uninit();
    unsafe {
        write_volatile(&mut mu, MaybeUninit::new((3, 4)));
        let r = read_volatile(&mu).assume_init();
        println!("MaybeUninit<(u32, u8)>: {r:?}");
    }
}

fn zero_sized() {
    twice("()", (), ());
    twice("Zst", Zst, Zst);
    twice("[u32; 0]", [0u32; 0], []);
    twice("PhantomData", PhantomData::<u64>, PhantomData);
    let mut z = [Zst; 4];
    unsafe {
        write_volatile(&mut z, [Zst; 4]);
        println!("[Zst; 4]: {:?}", read_volatile(&z));
        volatile_copy_memory(z.as_mut_ptr(), z.as_ptr().add(1), 3);
        volatile_set_memory(z.as_mut_ptr(), 0xff, 4);
    }
}

fn simd() {
    twice(
        "u32x4",
        Simd::<u32, 4>::from_array([1, 2, 3, 4]),
        Simd::splat(9),
    );
    twice(
        "f32x2",
        Simd::<f32, 2>::from_array([0.5, -1.5]),
        Simd::splat(2.0),
    );
    twice(
        "u8x16",
        Simd::<u8, 16>::from_array(std::array::from_fn(|i| i as u8)),
        Simd::splat(200),
    );
    twice("i64x2", Simd::<i64, 2>::from_array([-1, 1]), Simd::splat(0));
}

fn copies() {
    let src: Vec<u8> = (0..300).map(|i| (i * 7 % 251) as u8).collect();
    for &len in &[0usize, 1, 3, 8, 15, 16, 17, 40, 128, 129, 300] {
        // constant counts (one per length, via a match) and run-time ones
        let mut a = vec![0u8; 310];
        let mut b = vec![0u8; 310];
        unsafe {
            match len {
                3 => volatile_copy_nonoverlapping_memory(a.as_mut_ptr().add(1), src.as_ptr(), 3),
                17 => volatile_copy_nonoverlapping_memory(a.as_mut_ptr().add(1), src.as_ptr(), 17),
                129 => {
                    volatile_copy_nonoverlapping_memory(a.as_mut_ptr().add(1), src.as_ptr(), 129)
                }
                n => volatile_copy_nonoverlapping_memory(a.as_mut_ptr().add(1), src.as_ptr(), n),
            }
            volatile_copy_nonoverlapping_memory(b.as_mut_ptr(), src.as_ptr(), black_box(len));
        }
        println!(
            "copy {len}: {} {}",
            a.iter().map(|&x| x as u32).sum::<u32>(),
            b.iter().map(|&x| x as u32).sum::<u32>()
        );
    }
    // overlapping, both directions, typed
    let mut w: [u32; 12] = std::array::from_fn(|i| i as u32 + 1);
    unsafe {
        volatile_copy_memory(w.as_mut_ptr().add(2), w.as_ptr(), 6);
        println!("move up: {w:?}");
        volatile_copy_memory(w.as_mut_ptr(), w.as_ptr().add(3), 8);
        println!("move down: {w:?}");
        volatile_copy_memory(w.as_mut_ptr().add(1), w.as_ptr(), black_box(10));
        println!("move up (run-time count): {w:?}");
        let mut big: [u64; 40] = std::array::from_fn(|i| i as u64);
        volatile_copy_memory(big.as_mut_ptr().add(1), big.as_ptr(), 39);
        println!("move [u64; 40]: {} {}", big[1], big[39]);
    }
    // fills: constant and run-time counts, of bytes and of wider types
    let mut f = [0u16; 20];
    unsafe {
        volatile_set_memory(f.as_mut_ptr().add(1), 0xab, 5);
        volatile_set_memory(f.as_mut_ptr().add(10), 0x01, black_box(7));
        println!("set: {f:x?}");
        let mut g = [1u8; 200];
        volatile_set_memory(g.as_mut_ptr(), 0x5a, 150);
        volatile_set_memory(g.as_mut_ptr().add(3), black_box(0x77), 1);
        println!("set 150: {} {} {}", g[2], g[3], g[150]);
    }
}

/// Volatile reads of a location that plain writes through another pointer change
/// between them: each read must be made again.
#[inline(never)]
fn rereads(cell: *mut u64, alias: *mut u64, arr: *mut [u32; 4], arr_alias: *mut u32) {
    unsafe {
        let mut seen = Vec::new();
        for i in 0..4u64 {
            seen.push(read_volatile(cell));
            *alias = i * 10 + 1;
            seen.push(read_volatile(cell));
        }
        println!("rereads: {seen:?}");
        let a = read_volatile(arr);
        *arr_alias.add(2) = 77;
        let b = read_volatile(arr);
        println!("array rereads: {a:?} {b:?}");
        // a volatile read nobody uses, then a volatile write of the same value
        let _ = read_volatile(cell);
        write_volatile(cell, read_volatile(cell));
        write_volatile(cell, 5);
        write_volatile(cell, 6);
        println!("last write: {}", *alias);
    }
}

fn main() {
    println!(
        "sizes: Mixed {} Shape {} JobRef {}",
        size_of::<Mixed>(),
        size_of::<Shape>(),
        size_of::<JobRef>()
    );
    scalars();
    pairs();
    aggregates();
    maybe_uninit();
    zero_sized();
    simd();
    copies();
    let mut cell = 0u64;
    let mut arr = [1u32, 2, 3, 4];
    let c = &mut cell as *mut u64;
    let a = &mut arr as *mut [u32; 4];
    rereads(c, c, a, a.cast());
}
