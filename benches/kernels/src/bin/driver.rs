//! The driver of the dynamic comparison (`./y.sh bench hexagon`, see ../../README.md):
//! calls every kernel of the `kernels` crate on deterministic inputs and prints one
//! line `NAME CHECKSUM` per kernel (the checksum of its results, in hex).
//!
//! The same source is built three ways, and the three outputs must be identical: for
//! the host by LLVM (std, the expectation), for Hexagon by LLVM (`no_std`, `no_main`,
//! run by `qemu-hexagon`: a `_start` in assembly and Linux's `write` and `exit` system
//! calls), and for VLIW-64 by our backend (std, run by `vliw-run`). The kernels are
//! in their own crate, reached through `extern "C"` symbols, so they are never inlined
//! here: the bench counts what executes inside each call by the kernel's address
//! range and its caller's (qemu's execution log on one side, `vliw-run --profile` on
//! the other). Nothing in this file is measured.
//!
//! Inputs come from a fixed xorshift generator; floating-point inputs are small
//! dyadic fractions. Sizes are chosen so that the whole run under `qemu-hexagon
//! -singlestep` (one log line per executed packet) takes a second or two.

#![cfg_attr(target_arch = "hexagon", no_std, no_main)]
#![cfg_attr(target_arch = "hexagon", feature(asm_experimental_arch))]
#![allow(clippy::needless_range_loop)]

use core::fmt::Write as _;
use kernels::*;

/// xorshift64* (Vigna): deterministic on every platform.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A value in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        (self.next() >> 16) % n
    }

    /// An `i32` in `lo..hi`.
    fn int(&mut self, lo: i32, hi: i32) -> i32 {
        lo + self.below((hi - lo) as u64) as i32
    }

    /// A multiple of 1/64 in `-16..16`: exact in `f32` and `f64`.
    fn real(&mut self) -> f64 {
        self.int(-1024, 1024) as f64 / 64.0
    }
}

/// FNV-style mixing of 64-bit values.
struct Sum(u64);

impl Sum {
    fn new() -> Sum {
        Sum(0xcbf2_9ce4_8422_2325)
    }

    fn add(&mut self, v: u64) {
        self.0 = (self.0 ^ v).wrapping_mul(0x0000_0100_0000_01b3);
    }

    fn add_all<T: Copy>(&mut self, values: &[T], f: impl Fn(T) -> u64) {
        for &v in values {
            self.add(f(v));
        }
    }
}

/// A line of output, formatted without allocation.
struct Line {
    buf: [u8; 96],
    len: usize,
}

impl core::fmt::Write for Line {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let end = self.len + s.len();
        if end > self.buf.len() {
            return Err(core::fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

fn report(name: &str, sum: &Sum) {
    let mut line = Line {
        buf: [0; 96],
        len: 0,
    };
    let _ = writeln!(line, "{name} {:016x}", sum.0);
    platform::write(&line.buf[..line.len]);
}

const N: usize = 1024;

/// Calls every kernel once or a few times and prints the checksums, in the order of
/// the kernels crate.
fn run() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let rng = &mut rng;

    // ------------------------------------------------------------ branchy integer code
    let mut xs = [0i32; N];
    for x in xs.iter_mut() {
        *x = rng.int(-5000, 25000);
    }
    let mut counts = [0u32; 4];
    unsafe { classify(xs.as_ptr(), N, counts.as_mut_ptr()) };
    let mut s = Sum::new();
    s.add_all(&counts, u64::from);
    report("classify", &s);

    for x in xs.iter_mut() {
        *x = rng.int(-3000, 3000);
    }
    unsafe { clamp_all(xs.as_mut_ptr(), N, -1000, 1000) };
    let mut s = Sum::new();
    s.add_all(&xs, |v| v as u64);
    report("clamp_all", &s);

    for x in xs.iter_mut() {
        *x = rng.int(-100, 100);
    }
    let mut out = [0i32; N];
    unsafe { median3(xs.as_ptr(), N, out.as_mut_ptr()) };
    let mut s = Sum::new();
    s.add_all(&out[..N - 2], |v| v as u64);
    report("median3", &s);

    let alphabet = b"0123456789012345  ,\n-+x";
    let mut bytes = [0u8; 4 * N];
    for b in bytes.iter_mut() {
        *b = alphabet[rng.below(alphabet.len() as u64) as usize];
    }
    let mut s = Sum::new();
    s.add(unsafe { count_numbers(bytes.as_ptr(), bytes.len()) } as u64);
    report("count_numbers", &s);

    let mut sorted = [0i32; N];
    for (i, x) in sorted.iter_mut().enumerate() {
        *x = 2 * i as i32;
    }
    let mut s = Sum::new();
    for _ in 0..256 {
        let key = rng.int(-2, 2 * N as i32 + 2);
        s.add(unsafe { binary_search(sorted.as_ptr(), N, key) } as u64);
    }
    report("binary_search", &s);

    let mut words = [0u32; N];
    for w in words.iter_mut() {
        *w = rng.next() as u32;
    }
    let mut s = Sum::new();
    s.add(unsafe { branchy_hash(words.as_ptr(), N) } as u64);
    report("branchy_hash", &s);

    let mut ys = [0i32; N];
    for (x, y) in xs.iter_mut().zip(ys.iter_mut()) {
        *x = rng.next() as i32;
        *y = rng.next() as i32;
    }
    let mut s = Sum::new();
    s.add(unsafe { abs_min_max(xs.as_ptr(), ys.as_ptr(), N) } as u64);
    report("abs_min_max", &s);

    let mut a8 = [0u8; 4 * N];
    let mut b8 = [0u8; 4 * N];
    for (a, b) in a8.iter_mut().zip(b8.iter_mut()) {
        *a = rng.next() as u8;
        *b = rng.next() as u8;
    }
    let mut out8 = [0u8; 4 * N];
    unsafe { saturating_add_u8(a8.as_ptr(), b8.as_ptr(), out8.as_mut_ptr(), 4 * N) };
    let mut s = Sum::new();
    s.add_all(&out8, u64::from);
    report("saturating_add_u8", &s);

    // ------------------------------------------------------------ loops over arrays
    for (x, y) in xs.iter_mut().zip(ys.iter_mut()) {
        *x = rng.next() as i32;
        *y = rng.next() as i32;
    }
    let mut s = Sum::new();
    s.add(unsafe { dot_i32(xs.as_ptr(), ys.as_ptr(), N) } as u64);
    report("dot_i32", &s);

    let mut a64 = [0i64; N];
    let mut b64 = [0i64; N];
    for (a, b) in a64.iter_mut().zip(b64.iter_mut()) {
        *a = rng.next() as i64;
        *b = rng.next() as i64;
    }
    let mut s = Sum::new();
    s.add(unsafe { dot_i64(a64.as_ptr(), b64.as_ptr(), N) } as u64);
    report("dot_i64", &s);

    let mut xf = [0f32; N];
    let mut yf = [0f32; N];
    for (x, y) in xf.iter_mut().zip(yf.iter_mut()) {
        *x = rng.real() as f32;
        *y = rng.real() as f32;
    }
    unsafe { saxpy_f32(1.375, xf.as_ptr(), yf.as_mut_ptr(), N) };
    let mut s = Sum::new();
    s.add_all(&yf, |v| v.to_bits() as u64);
    report("saxpy_f32", &s);

    let mut xd = [0f64; N];
    let mut yd = [0f64; N];
    for (x, y) in xd.iter_mut().zip(yd.iter_mut()) {
        *x = rng.real();
        *y = rng.real();
    }
    unsafe { daxpy_f64(-2.625, xd.as_ptr(), yd.as_mut_ptr(), N) };
    let mut s = Sum::new();
    s.add_all(&yd, f64::to_bits);
    report("daxpy_f64", &s);

    const M: usize = 24;
    let mut ma = [0i32; M * M];
    let mut mb = [0i32; M * M];
    for (a, b) in ma.iter_mut().zip(mb.iter_mut()) {
        *a = rng.int(-1000, 1000);
        *b = rng.int(-1000, 1000);
    }
    let mut mc = [0i32; M * M];
    unsafe { matmul_i32(ma.as_ptr(), mb.as_ptr(), mc.as_mut_ptr(), M) };
    let mut s = Sum::new();
    s.add_all(&mc, |v| v as u64);
    report("matmul_i32", &s);

    for x in xs.iter_mut() {
        *x = rng.int(-100_000, 100_000);
    }
    let mut out = [0i32; N];
    unsafe { stencil3(xs.as_ptr(), out.as_mut_ptr(), N) };
    let mut s = Sum::new();
    s.add_all(&out, |v| v as u64);
    report("stencil3", &s);

    for a in a64.iter_mut() {
        *a = rng.next() as i64;
    }
    unsafe { prefix_sum(a64.as_mut_ptr(), N) };
    let mut s = Sum::new();
    s.add_all(&a64, |v| v as u64);
    report("prefix_sum", &s);

    for b in bytes.iter_mut() {
        *b = rng.next() as u8;
    }
    let mut s = Sum::new();
    s.add(unsafe { crc32_bitwise(bytes.as_ptr(), N) } as u64);
    report("crc32_bitwise", &s);

    let mut s = Sum::new();
    s.add(unsafe { fnv1a64(bytes.as_ptr(), bytes.len()) });
    report("fnv1a64", &s);

    let mut state = [0u32; 8];
    let mut w = [0u32; 64];
    let mut k = [0u32; 64];
    for v in state.iter_mut().chain(k.iter_mut()) {
        *v = rng.next() as u32;
    }
    for _ in 0..16 {
        for v in w.iter_mut() {
            *v = rng.next() as u32;
        }
        unsafe { sha256_rounds(state.as_mut_ptr(), w.as_ptr(), k.as_ptr()) };
    }
    let mut s = Sum::new();
    s.add_all(&state, u64::from);
    report("sha256_rounds", &s);

    let mut wide = [0u64; N / 2];
    for v in wide.iter_mut() {
        *v = rng.next();
    }
    let mut s = Sum::new();
    s.add(unsafe { popcount_loop(wide.as_ptr(), N / 2) });
    report("popcount_loop", &s);

    unsafe { fill_u32(words.as_mut_ptr(), N, 0xdead_beef) };
    let mut s = Sum::new();
    s.add_all(&words, u64::from);
    report("fill_u32", &s);

    for x in xs.iter_mut() {
        *x = rng.next() as i32;
    }
    unsafe { reverse_i32(xs.as_mut_ptr(), N - 1) };
    let mut s = Sum::new();
    s.add_all(&xs, |v| v as u64);
    report("reverse_i32", &s);

    // ------------------------------------------------------------ pointer chasing
    // A list through the nodes in a random order (a random permutation by
    // Fisher-Yates), so that successive nodes are not adjacent in memory.
    let mut order = [0u16; N];
    for (i, o) in order.iter_mut().enumerate() {
        *o = i as u16;
    }
    for i in (1..N).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        order.swap(i, j);
    }
    let mut nodes: [Node; N] = core::array::from_fn(|i| Node {
        value: i as i64 * 7 - 300,
        next: core::ptr::null(),
    });
    let base = nodes.as_mut_ptr();
    for i in 0..N - 1 {
        unsafe { (*base.add(order[i] as usize)).next = base.add(order[i + 1] as usize) };
    }
    let mut total = 0i64;
    let length = unsafe { list_length(base.add(order[0] as usize), &mut total) };
    let mut s = Sum::new();
    s.add(length as u64);
    s.add(total as u64);
    report("list_length", &s);

    // A balanced search tree over the keys 0, 2, 4, ... in an array: node i's
    // children are 2i+1 and 2i+2 (an implicit heap layout filled in order).
    const T: usize = 1023;
    let mut tree: [Tree; T] = core::array::from_fn(|_| Tree {
        key: 0,
        left: core::ptr::null(),
        right: core::ptr::null(),
    });
    let mut next_key = 0i64;
    fill_in_order(&mut tree, 0, &mut next_key);
    let root = tree.as_mut_ptr();
    for i in 0..T / 2 {
        unsafe {
            (*root.add(i)).left = root.add(2 * i + 1);
            (*root.add(i)).right = root.add(2 * i + 2);
        }
    }
    let mut s = Sum::new();
    for _ in 0..256 {
        let key = rng.int(-2, 2 * T as i32 + 2) as i64;
        s.add(unsafe { tree_search_depth(root, key) } as u64);
    }
    report("tree_search_depth", &s);

    // ------------------------------------------------------------ floats
    const B: usize = 32;
    let mut pos = [0f64; 3 * B];
    let mut vel = [0f64; 3 * B];
    let mut mass = [0f64; B];
    for p in pos.iter_mut() {
        *p = rng.real();
    }
    for m in mass.iter_mut() {
        *m = 1.0 + rng.below(64) as f64 / 16.0;
    }
    for _ in 0..4 {
        unsafe { nbody_pairs(pos.as_ptr(), vel.as_mut_ptr(), mass.as_ptr(), B, 0.01) };
    }
    let mut s = Sum::new();
    s.add_all(&vel, f64::to_bits);
    report("nbody_pairs", &s);

    let mut s = Sum::new();
    for row in 0..16 {
        for column in 0..24 {
            let cx = -2.25 + column as f64 * 0.125;
            let cy = -1.0 + row as f64 * 0.125;
            s.add(mandelbrot_point(cx, cy, 100) as u64);
        }
    }
    report("mandelbrot_point", &s);

    let mut coefficients = [0f32; 8];
    for c in coefficients.iter_mut() {
        *c = rng.real() as f32 / 16.0;
    }
    let mut at = [0f32; N / 2];
    for x in at.iter_mut() {
        *x = rng.real() as f32 / 16.0;
    }
    let mut values = [0f32; N / 2];
    unsafe {
        horner_f32(
            coefficients.as_ptr(),
            coefficients.len(),
            at.as_ptr(),
            values.as_mut_ptr(),
            N / 2,
        )
    };
    let mut s = Sum::new();
    s.add_all(&values, |v| v.to_bits() as u64);
    report("horner_f32", &s);
}

/// Gives the nodes of the implicit tree rooted at `i` the keys 0, 2, 4, ... in
/// order (an in-order walk), so that it is a search tree.
fn fill_in_order(tree: &mut [Tree], i: usize, next: &mut i64) {
    if i >= tree.len() {
        return;
    }
    fill_in_order(tree, 2 * i + 1, next);
    tree[i].key = *next;
    *next += 2;
    fill_in_order(tree, 2 * i + 2, next);
}

#[cfg(not(target_arch = "hexagon"))]
fn main() {
    run();
}

#[cfg(not(target_arch = "hexagon"))]
mod platform {
    pub fn write(bytes: &[u8]) {
        use std::io::Write;
        std::io::stdout()
            .write_all(bytes)
            .expect("cannot write to stdout");
    }
}

/// Hexagon under `qemu-hexagon` (Linux user mode): qemu sets the stack pointer
/// (`r29`); `_start` aligns it and calls `driver_main`, whose result is the exit
/// status. System calls: the number in `r6`, arguments from `r0`, `trap0(#1)`.
#[cfg(target_arch = "hexagon")]
mod platform {
    core::arch::global_asm!(
        ".globl _start",
        ".type _start,@function",
        "_start:",
        "  r29 = and(r29, #-8)",
        "  call driver_main",
        "  r6 = #93",
        "  trap0(#1)",
        ".size _start, .-_start",
    );

    // The bench's check of its packet counting: `calibrate_loop(n)` executes
    // exactly 2n + 3 packets (the set-up packet, a `nop` packet, a hardware loop of
    // two packets run n times, the return packet) and returns 3n. The bench counts
    // the packets of its call in qemu's log and compares (CALIBRATION_TRIPS and
    // CALIBRATION_PACKETS in build_system/src/bench_hexagon_run.rs).
    core::arch::global_asm!(
        ".globl calibrate_loop",
        ".type calibrate_loop,@function",
        ".p2align 4",
        "calibrate_loop:",
        "  {{ loop0(.Lcalibrate_body, r0)",
        "    r1 = #0 }}",
        "  {{ nop }}",
        ".Lcalibrate_body:",
        "  {{ r1 = add(r1, #1) }}",
        "  {{ r1 = add(r1, #2) }} :endloop0",
        "  {{ r0 = r1",
        "    jumpr r31 }}",
        ".size calibrate_loop, .-calibrate_loop",
    );

    unsafe extern "C" {
        fn calibrate_loop(n: u32) -> u32;
    }

    const CALIBRATION_TRIPS: u32 = 1000;
    const SYS_WRITE: i32 = 64;
    const SYS_EXIT: i32 = 93;

    #[unsafe(no_mangle)]
    extern "C" fn driver_main() -> i32 {
        if unsafe { calibrate_loop(CALIBRATION_TRIPS) } != 3 * CALIBRATION_TRIPS {
            return 70;
        }
        super::run();
        0
    }

    fn exit(code: i32) -> ! {
        unsafe {
            core::arch::asm!("trap0(#1)", in("r0") code, in("r6") SYS_EXIT, options(noreturn))
        }
    }

    pub fn write(mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let written: i32;
            unsafe {
                core::arch::asm!(
                    "trap0(#1)",
                    inlateout("r0") 1i32 => written,
                    in("r1") bytes.as_ptr(),
                    in("r2") bytes.len(),
                    in("r6") SYS_WRITE,
                    options(nostack)
                )
            };
            if written <= 0 {
                exit(74);
            }
            bytes = &bytes[written as usize..];
        }
    }

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        exit(101)
    }
}
