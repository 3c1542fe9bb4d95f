// Drop: Drop impls run in reverse declaration order at scope end, fields after their
// struct, temporaries at the end of their statement, moved values only once, on early
// return and break, reassignment drops the old value, forget skips drop, drop glue
// of arrays and enums, drop_in_place through a raw pointer.

#![feature(no_core)]
#![no_core]
#![no_main]
#![allow(dead_code, unused_assignments)]

extern crate mini_core;
use mini_core::*;

static mut LOG: [u8; 128] = [0; 128];
static mut LEN: usize = 0;

fn log(c: u8) {
    unsafe {
        if LEN < 128 {
            LOG[LEN] = c;
            LEN += 1;
        }
    }
}

fn flush(label: &str) {
    unsafe {
        let l = &raw const LOG;
        outln!(label, ": ", str_from_utf8_unchecked(&(&*l)[..LEN]));
        LEN = 0;
    }
}

struct D(u8);

impl Drop for D {
    fn drop(&mut self) {
        log(self.0);
    }
}

struct Outer {
    _a: D,
    _b: D,
}

impl Drop for Outer {
    fn drop(&mut self) {
        log(b'O');
    }
}

enum Maybe {
    Yes(D),
    No,
}

fn make(c: u8) -> D {
    D(c)
}

fn consume(d: D) {
    log(b'(');
    let _keep = d;
    log(b')');
}

#[inline(never)]
fn early(flag: bool) -> u32 {
    let _x = D(b'x');
    if flag {
        return 1;
    }
    let _y = D(b'y');
    2
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    {
        let _a = D(b'a');
        let _b = D(b'b');
        let _c = D(b'c');
    }
    flush("scope");
    {
        let _o = Outer { _a: D(b'1'), _b: D(b'2') };
    }
    flush("fields");
    {
        let _x = make(b't').0;
        log(b'-');
    }
    flush("temporary");
    {
        let d = D(b'm');
        consume(d);
        log(b'!');
    }
    flush("moved");
    {
        let r1 = early(black_box(true));
        let r2 = early(black_box(false));
        outln!("early ", r1, " ", r2);
    }
    flush("early return");
    {
        let mut d = D(b'p');
        log(b'=');
        d = D(b'q');
        log(b';');
        let _ = &d;
    }
    flush("reassign");
    {
        let d = D(b'f');
        forget(d);
        let _e = D(b'e');
    }
    flush("forget");
    {
        let _arr = [D(b'0'), D(b'1'), D(b'2')];
        let _m = Maybe::Yes(D(b'Y'));
        let _n = Maybe::No;
        let _tuple = (D(b'T'), 5u8, D(b'U'));
    }
    flush("glue");
    {
        let mut i = 0u8;
        loop {
            let _l = D(b'a' + i);
            if i == 3 {
                break;
            }
            i += 1;
        }
        log(b'.');
    }
    flush("loop");
    {
        let mut slot = ManuallyDrop::new(D(b'M'));
        log(b'<');
        unsafe { drop_in_place(&mut slot as *mut ManuallyDrop<D> as *mut D) };
        log(b'>');
    }
    flush("drop_in_place");
    {
        let cond = black_box(true);
        let d = D(b'c');
        if cond {
            drop(d);
            log(b'|');
        }
        log(b'$');
    }
    flush("conditional move");
    0
}
