// Statics and constants with relocations: a static table of pointers to other
// statics, a table of function pointers, strings and nested references in statics,
// static mut state, structs of references, consts (inlined) vs statics (one address),
// and data in .rodata, .data and .bss.

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

static ONE: u32 = 1;
static TWO: u32 = 2;
static THREE: u32 = 3;
static NUMBERS: [&u32; 3] = [&THREE, &ONE, &TWO];
static NESTED: &&[&u32; 3] = &&NUMBERS;

fn square(x: i64) -> i64 {
    x * x
}
fn cube(x: i64) -> i64 {
    x * x * x
}
fn negate(x: i64) -> i64 {
    -x
}

static OPS: [(&str, fn(i64) -> i64); 3] = [("square", square), ("cube", cube), ("negate", negate)];

struct Entry {
    name: &'static str,
    value: u64,
    next: Option<&'static Entry>,
}

static LAST: Entry = Entry { name: "last", value: 300, next: None };
static MIDDLE: Entry = Entry { name: "middle", value: 200, next: Some(&LAST) };
static FIRST: Entry = Entry { name: "first", value: 100, next: Some(&MIDDLE) };

static GREETING: &str = "static greeting";
static WORDS: [&str; 4] = ["alpha", "beta", "", "delta"];
static BYTES: &[u8] = b"\x00\x01\xfe\xff";
static WIDE: u128 = 0x0011_2233_4455_6677_8899_aabb_ccdd_eeff;
static FLOATS: [f64; 3] = [0.5, -1.25, 1e100];

const LIMIT: usize = 3;
const TABLE: [u16; 5] = [10, 20, 30, 40, 50];

static mut COUNTER: u64 = 0;
static mut ZEROS: [u32; 1000] = [0; 1000];
static mut LOG: [u8; 32] = [b'.'; 32];

static SELF_REF: SelfRef = SelfRef { me: &SELF_REF, id: 42 };
struct SelfRef {
    me: &'static SelfRef,
    id: u32,
}

// Pointers to the middle of arrays (relocations with addends).
static INTO: &u64 = &ARRAY[3];
static ARRAY: [u64; 5] = [11, 22, 33, 44, 55];
static SLICE: &[u64] = &ARRAY;

#[inline(never)]
fn bump(by: u64) -> u64 {
    unsafe {
        COUNTER += by;
        COUNTER
    }
}

#[inline(never)]
fn log(i: usize, c: u8) {
    unsafe {
        LOG[i % 32] = c;
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    out!("numbers");
    for i in 0..NUMBERS.len() {
        out!(" ", *NUMBERS[i]);
    }
    outln!(" nested ", *(**NESTED)[black_box(1)] + *(**NESTED)[2]);
    for i in 0..OPS.len() {
        let (name, f) = OPS[i];
        outln!(name, "(7) = ", f(black_box(7)));
    }
    let mut e = Some(&FIRST);
    while let Some(entry) = e {
        out!(entry.name, "=", entry.value, " ");
        e = entry.next;
    }
    outln!();
    outln!(GREETING, " ", GREETING.len(), " words ", WORDS, " bytes ", BYTES);
    outln!("wide ", Hex(WIDE), " floats ", FLOATS);
    let mut t = 0;
    for i in 0..LIMIT {
        t += TABLE[i];
    }
    outln!("const table ", t, " ", TABLE[black_box(4)]);
    for i in 1..=10 {
        bump(i);
    }
    outln!("counter ", unsafe { COUNTER });
    unsafe {
        ZEROS[black_box(999)] = 7;
        let z = &raw const ZEROS;
        let mut s = 0;
        for i in 0..1000 {
            s += (*z)[i];
        }
        outln!("bss sum ", s);
    }
    let msg = b"hello statics";
    for i in 0..msg.len() {
        log(i * 2, msg[i]);
    }
    unsafe {
        let l = &raw const LOG;
        outln!("log ", str_from_utf8_unchecked(&*l));
    }
    outln!("self ref ", SELF_REF.me.me.me.id, " same ", (SELF_REF.me as *const SelfRef) == (&SELF_REF as *const SelfRef));
    outln!("into ", *INTO, " slice ", SLICE, " ", SLICE[black_box(4)]);
    outln!("same static ", (&ONE as *const u32) == (NUMBERS[1] as *const u32), " distinct ", (&ONE as *const u32) == (&TWO as *const u32));
    0
}
