// `#[thread_local]` statics: initialized (.tdata) and zero-initialized (.tbss), of
// several sizes and alignments, read, written and read back directly and through
// pointers; a struct, an array indexed at run time, a pointer to ordinary data held in
// a thread-local; and thread-locals of mini_core, another crate.

#![feature(no_core, thread_local)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

#[thread_local]
static mut BYTE: u8 = 0x5a;
#[thread_local]
static mut HALF: i16 = -1234;
#[thread_local]
static mut WORD: u32 = 0xdead_beef;
#[thread_local]
static mut QUAD: u64 = 0x0123_4567_89ab_cdef;
#[thread_local]
static mut WIDE: u128 = 0x1111_2222_3333_4444_5555_6666_7777_8888;
#[thread_local]
static mut FLOAT: f64 = 2.5;

#[thread_local]
static mut ZERO_BYTE: u8 = 0;
#[thread_local]
static mut ZERO_QUAD: u64 = 0;
#[thread_local]
static mut ZERO_ARRAY: [u32; 64] = [0; 64];

#[repr(align(64))]
struct Aligned {
    tag: u8,
    values: [u64; 3],
}

#[thread_local]
static mut ALIGNED: Aligned = Aligned { tag: 7, values: [10, 20, 30] };
#[thread_local]
static mut ZERO_ALIGNED: Aligned = Aligned { tag: 0, values: [0; 3] };

static GREETING: &str = "hello from a thread-local pointer";
#[thread_local]
static mut TEXT: &str = GREETING;

#[thread_local]
static mut FLAG: bool = false;

#[inline(never)]
fn add_through(p: *mut u64, by: u64) -> u64 {
    unsafe {
        *p = *p + by;
        *p
    }
}

#[inline(never)]
fn fill(p: *mut u32, n: usize, seed: u32) {
    let mut i = 0;
    while i < n {
        unsafe { *p.add(i) = seed.wrapping_mul(i as u32 + 1) };
        i += 1;
    }
}

#[inline(never)]
fn sum(p: *const u32, n: usize) -> u64 {
    let mut s = 0u64;
    let mut i = 0;
    while i < n {
        s += unsafe { *p.add(i) } as u64;
        i += 1;
    }
    s
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    unsafe {
        // Initial values.
        outln!("byte ", Hex(BYTE), " half ", { HALF }, " word ", Hex(WORD), " quad ", Hex(QUAD));
        outln!("wide ", Hex(WIDE), " float ", { FLOAT });
        outln!("zeros ", { ZERO_BYTE }, " ", { ZERO_QUAD }, " ", { ZERO_ARRAY[black_box(63)] });
        outln!("aligned ", { ALIGNED.tag }, " ", { ALIGNED.values[black_box(2)] }, " ", { ZERO_ALIGNED.values[black_box(1)] });
        outln!("text ", { TEXT });

        // Alignment of the thread-local copies.
        let a = (&raw const ALIGNED) as usize;
        let z = (&raw const ZERO_ALIGNED) as usize;
        let q = (&raw const WIDE) as usize;
        outln!("aligned to 64: ", a % 64 == 0, " ", z % 64 == 0, " u128 to 16: ", q % 16 == 0);

        // Writes, then read back.
        BYTE = BYTE.wrapping_add(black_box(1));
        HALF = HALF * black_box(2);
        WORD ^= black_box(0xffff_0000);
        QUAD = QUAD.rotate_left(black_box(8));
        WIDE = WIDE.wrapping_mul(black_box(3));
        FLOAT = FLOAT * black_box(-4.0);
        ZERO_BYTE = black_box(200);
        ZERO_QUAD = black_box(0xffff_0000_0000);
        outln!("byte ", Hex(BYTE), " half ", { HALF }, " word ", Hex(WORD), " quad ", Hex(QUAD));
        outln!("wide ", Hex(WIDE), " float ", { FLOAT }, " zb ", { ZERO_BYTE }, " zq ", Hex(ZERO_QUAD));

        // Through pointers.
        let p = &raw mut QUAD;
        outln!("through pointer ", Hex(add_through(p, black_box(0x10))), " = ", Hex(QUAD));
        let zq = &raw mut ZERO_QUAD;
        outln!("zero quad + 2 ", add_through(zq, 2));
        fill((&raw mut ZERO_ARRAY) as *mut u32, 64, black_box(3));
        outln!("array sum ", sum((&raw const ZERO_ARRAY) as *const u32, 64), " [10] ", { ZERO_ARRAY[black_box(10)] });
        let i = black_box(5usize);
        ZERO_ARRAY[i] = 999;
        outln!("array[5] ", { ZERO_ARRAY[5] });
        ZERO_ALIGNED.values[black_box(2)] = 77;
        ZERO_ALIGNED.tag = 1;
        ALIGNED.values[0] += ZERO_ALIGNED.values[2];
        outln!("aligned ", { ALIGNED.values[0] }, " ", { ZERO_ALIGNED.tag }, " ", { ZERO_ALIGNED.values[2] });
        FLAG = !FLAG;
        outln!("flag ", { FLAG });
        TEXT = "replaced";
        outln!("text ", { TEXT });

        // Another crate's thread-locals.
        outln!("mini_core counter ", { tls::TLS_COUNTER });
        outln!("bump ", tls::bump_counter(black_box(5)), " ", tls::bump_counter(1));
        tls::TLS_COUNTER = tls::TLS_COUNTER * 2;
        outln!("mini_core counter ", { tls::TLS_COUNTER });
        tls::TLS_PAIR[black_box(1)] = 42;
        let pair = &raw const tls::TLS_PAIR;
        outln!("pair ", (*pair)[0], " ", (*pair)[1]);
    }
    0
}
