// Raw pointers: arithmetic (add, offset, offset_from), reads and writes through
// *mut, casts between pointer types (byte views of integers, little-endian on both
// machines), null checks, pointers to struct fields, volatile accesses, copies with
// copy/copy_nonoverlapping/write_bytes (memmove, memcpy, memset).

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

struct Header {
    magic: u32,
    len: u16,
    flags: u8,
    data: [u8; 9],
}

#[inline(never)]
fn fill(p: *mut u32, n: usize, start: u32) {
    let mut i = 0;
    while i < n {
        unsafe { p.add(i).write(start + i as u32 * 3) };
        i += 1;
    }
}

#[inline(never)]
fn sum_back(end: *const u32, n: usize) -> u32 {
    let mut s = 0;
    let mut i = 1;
    while i <= n {
        s += unsafe { end.offset(-(i as isize)).read() };
        i += 1;
    }
    s
}

#[inline(never)]
fn maybe_deref(p: *const i64) -> i64 {
    if p.is_null() { -1 } else { unsafe { *p } }
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    let mut arr = [0u32; 10];
    let base = arr.as_mut_ptr();
    fill(base, 10, black_box(7));
    outln!("filled ", arr);
    let end = unsafe { (arr.as_ptr()).add(10) };
    outln!("sum of last 4 ", sum_back(end, 4), " distance ", unsafe { end.offset_from(arr.as_ptr()) });

    // Byte views: little-endian.
    let x: u64 = black_box(0x1122_3344_5566_7788);
    let bytes = &x as *const u64 as *const u8;
    out!("bytes");
    for i in 0..8 {
        out!(" ", Hex(unsafe { bytes.add(i).read() }));
    }
    outln!();
    let mut y: u32 = 0;
    let yb = &mut y as *mut u32 as *mut u8;
    unsafe {
        yb.write(0xef);
        yb.add(1).write(0xbe);
        yb.add(2).write(0xad);
        yb.add(3).write(0xde);
    }
    outln!("assembled ", Hex(y));
    let h16 = &x as *const u64 as *const u16;
    outln!("halves ", Hex(unsafe { h16.add(1).read() }), " word ", Hex(unsafe { (&x as *const u64 as *const u32).add(1).read() }));

    // Pointers to fields.
    let mut h = Header { magic: 0xfeed_f00d, len: 9, flags: 0, data: [0; 9] };
    let flags = &mut h.flags as *mut u8;
    unsafe { *flags |= 0x81 };
    let data = h.data.as_mut_ptr();
    let mut i = 0;
    while i < 9 {
        unsafe { *data.add(i) = (i * i) as u8 };
        i += 1;
    }
    outln!("header ", Hex(h.magic), " ", h.len, " ", Hex(h.flags), " ", h.data);

    // Null.
    let v = black_box(123i64);
    outln!("deref ", maybe_deref(&v), " null ", maybe_deref(null()));

    // Volatile.
    let mut cell = 0u64;
    let cp = &mut cell as *mut u64;
    let mut k = 0;
    while k < 5 {
        unsafe { intrinsics::volatile_store(cp, intrinsics::volatile_load(cp) + k) };
        k += 1;
    }
    outln!("volatile ", cell);

    // copy (overlapping), copy_nonoverlapping, write_bytes.
    let mut buf = [0u8; 24];
    let mut j = 0;
    while j < 24 {
        buf[j] = j as u8;
        j += 1;
    }
    let p = buf.as_mut_ptr();
    unsafe {
        copy(p, p.add(3), 10);
        copy(p.add(16), p.add(14), 8);
    }
    outln!("memmove ", buf);
    let src = [0xaau8; 11];
    let mut dst = [0u8; 16];
    unsafe {
        copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr().add(2), black_box(11));
        write_bytes(dst.as_mut_ptr().add(5), 0x11, 3);
    }
    outln!("memcpy ", dst);
    let mut words = [0u64; 4];
    unsafe { write_bytes(words.as_mut_ptr(), 0xab, black_box(4)) };
    outln!("memset ", Hex(words[0]), " ", Hex(words[3]));
    // A struct copied through raw pointers.
    let a = Header { magic: 1, len: 2, flags: 3, data: [4; 9] };
    let mut b = Header { magic: 0, len: 0, flags: 0, data: [0; 9] };
    unsafe { copy_nonoverlapping(&a as *const Header, &mut b as *mut Header, 1) };
    outln!("copied ", b.magic, " ", b.len, " ", b.flags, " ", b.data, " size ", size_of::<Header>());
    0
}
