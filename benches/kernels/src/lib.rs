//! Kernel functions for the comparison with LLVM's Hexagon backend (`./y.sh bench
//! hexagon`, see README.md): each is compiled by our backend and by LLVM for
//! `hexagon-unknown-none-elf` at `-Copt-level=3`; the bundles of one are counted
//! beside the packets of the other, statically, and as executed when
//! `src/bin/driver.rs` calls them (under `qemu-hexagon` and `vliw-run`).
//!
//! Every kernel is an `extern "C"` function over raw pointers and lengths, with no
//! panicking path and no call into `core` that might stay out of line, so that both
//! compilers see the same self-contained code.

#![no_std]
#![allow(clippy::missing_safety_doc)]

// ---------------------------------------------------------------- branchy integer code

/// Counts the values of `xs` in each of four ranges, writing the counts to `counts[0..4]`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn classify(xs: *const i32, n: usize, counts: *mut u32) {
    let (mut neg, mut small, mut mid, mut big) = (0u32, 0u32, 0u32, 0u32);
    let mut i = 0;
    while i < n {
        let x = unsafe { *xs.add(i) };
        if x < 0 {
            neg += 1;
        } else if x < 100 {
            small += 1;
        } else if x < 10_000 {
            mid += 1;
        } else {
            big += 1;
        }
        i += 1;
    }
    unsafe {
        *counts = neg;
        *counts.add(1) = small;
        *counts.add(2) = mid;
        *counts.add(3) = big;
    }
}

/// Clamps every value of `xs` into `lo..=hi` in place.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clamp_all(xs: *mut i32, n: usize, lo: i32, hi: i32) {
    let mut i = 0;
    while i < n {
        let p = unsafe { xs.add(i) };
        let x = unsafe { *p };
        let y = if x < lo {
            lo
        } else if x > hi {
            hi
        } else {
            x
        };
        unsafe { *p = y };
        i += 1;
    }
}

/// Writes the median of each window of three consecutive values of `xs` to `out`
/// (`n - 2` values).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn median3(xs: *const i32, n: usize, out: *mut i32) {
    if n < 3 {
        return;
    }
    let mut i = 0;
    while i + 2 < n {
        let (a, b, c) = unsafe { (*xs.add(i), *xs.add(i + 1), *xs.add(i + 2)) };
        let m = if a < b {
            if b < c {
                b
            } else if a < c {
                c
            } else {
                a
            }
        } else if a < c {
            a
        } else if b < c {
            c
        } else {
            b
        };
        unsafe { *out.add(i) = m };
        i += 1;
    }
}

/// Counts the numbers in a byte buffer with a small state machine (digits, optional
/// sign, separators), returning how many well-formed numbers it saw.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn count_numbers(bytes: *const u8, n: usize) -> u32 {
    // 0: between tokens, 1: after a sign, 2: in digits, 3: in a bad token.
    let mut state = 0u32;
    let mut count = 0u32;
    let mut i = 0;
    while i < n {
        let c = unsafe { *bytes.add(i) };
        let digit = c.wrapping_sub(b'0') < 10;
        let space = c == b' ' || c == b',' || c == b'\n';
        state = match state {
            0 => {
                if digit {
                    2
                } else if c == b'-' || c == b'+' {
                    1
                } else if space {
                    0
                } else {
                    3
                }
            }
            1 => {
                if digit {
                    2
                } else if space {
                    0
                } else {
                    3
                }
            }
            2 => {
                if digit {
                    2
                } else if space {
                    count += 1;
                    0
                } else {
                    3
                }
            }
            _ => {
                if space {
                    0
                } else {
                    3
                }
            }
        };
        i += 1;
    }
    if state == 2 {
        count += 1;
    }
    count
}

/// Returns the index of `key` in the sorted `xs`, or `n` when it is absent.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn binary_search(xs: *const i32, n: usize, key: i32) -> usize {
    let mut lo = 0usize;
    let mut hi = n;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let x = unsafe { *xs.add(mid) };
        if x == key {
            return mid;
        } else if x < key {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    n
}

/// Hashes `xs` with a mix whose steps depend on the bits of the state.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn branchy_hash(xs: *const u32, n: usize) -> u32 {
    let mut h = 0x811c_9dc5u32;
    let mut i = 0;
    while i < n {
        let x = unsafe { *xs.add(i) };
        h ^= x;
        if h & 1 != 0 {
            h = h.wrapping_mul(0x9e37_79b1);
        } else {
            h = h.wrapping_add(0x7f4a_7c15) ^ (h >> 7);
        }
        if h & 0x100 != 0 {
            h ^= h << 5;
        }
        i += 1;
    }
    h
}

/// Sums `abs(a - b)`, `min` and `max` of pairs through chains of selects.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn abs_min_max(a: *const i32, b: *const i32, n: usize) -> i64 {
    let mut acc = 0i64;
    let mut i = 0;
    while i < n {
        let (x, y) = unsafe { (*a.add(i), *b.add(i)) };
        let d = x.wrapping_sub(y);
        let abs = if d < 0 { d.wrapping_neg() } else { d };
        let lo = if x < y { x } else { y };
        let hi = if x < y { y } else { x };
        acc = acc
            .wrapping_add(abs as i64)
            .wrapping_add(lo as i64)
            .wrapping_sub(hi as i64);
        i += 1;
    }
    acc
}

/// Adds `b` to `a` element-wise with unsigned 8-bit saturation, writing to `out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn saturating_add_u8(a: *const u8, b: *const u8, out: *mut u8, n: usize) {
    let mut i = 0;
    while i < n {
        let s = unsafe { *a.add(i) as u32 + *b.add(i) as u32 };
        let v = if s > 255 { 255 } else { s };
        unsafe { *out.add(i) = v as u8 };
        i += 1;
    }
}

// ---------------------------------------------------------------- loops over arrays

/// Dot product of two `i32` arrays, accumulated in `i32` (wrapping).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dot_i32(a: *const i32, b: *const i32, n: usize) -> i32 {
    let mut acc = 0i32;
    let mut i = 0;
    while i < n {
        acc = acc.wrapping_add(unsafe { (*a.add(i)).wrapping_mul(*b.add(i)) });
        i += 1;
    }
    acc
}

/// Dot product of two `i64` arrays (wrapping).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dot_i64(a: *const i64, b: *const i64, n: usize) -> i64 {
    let mut acc = 0i64;
    let mut i = 0;
    while i < n {
        acc = acc.wrapping_add(unsafe { (*a.add(i)).wrapping_mul(*b.add(i)) });
        i += 1;
    }
    acc
}

/// `y = a * x + y` over `f32` arrays.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn saxpy_f32(a: f32, x: *const f32, y: *mut f32, n: usize) {
    let mut i = 0;
    while i < n {
        unsafe { *y.add(i) = a * *x.add(i) + *y.add(i) };
        i += 1;
    }
}

/// `y = a * x + y` over `f64` arrays.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn daxpy_f64(a: f64, x: *const f64, y: *mut f64, n: usize) {
    let mut i = 0;
    while i < n {
        unsafe { *y.add(i) = a * *x.add(i) + *y.add(i) };
        i += 1;
    }
}

/// `c = a * b` for row-major `n x n` `i32` matrices (wrapping).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn matmul_i32(a: *const i32, b: *const i32, c: *mut i32, n: usize) {
    let mut i = 0;
    while i < n {
        let mut j = 0;
        while j < n {
            let mut acc = 0i32;
            let mut k = 0;
            while k < n {
                acc = acc
                    .wrapping_add(unsafe { (*a.add(i * n + k)).wrapping_mul(*b.add(k * n + j)) });
                k += 1;
            }
            unsafe { *c.add(i * n + j) = acc };
            j += 1;
        }
        i += 1;
    }
}

/// Three-point stencil `out[i] = (x[i-1] + 2 x[i] + x[i+1]) / 4` over the interior of `xs`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn stencil3(xs: *const i32, out: *mut i32, n: usize) {
    let mut i = 1;
    while i + 1 < n {
        let s = unsafe {
            (*xs.add(i - 1))
                .wrapping_add((*xs.add(i)).wrapping_mul(2))
                .wrapping_add(*xs.add(i + 1))
        };
        unsafe { *out.add(i) = s >> 2 };
        i += 1;
    }
}

/// Inclusive prefix sum of `xs` in place (wrapping).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn prefix_sum(xs: *mut i64, n: usize) {
    let mut acc = 0i64;
    let mut i = 0;
    while i < n {
        let p = unsafe { xs.add(i) };
        acc = acc.wrapping_add(unsafe { *p });
        unsafe { *p = acc };
        i += 1;
    }
}

/// CRC-32 (IEEE, reflected) of a byte buffer, bit by bit.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn crc32_bitwise(bytes: *const u8, n: usize) -> u32 {
    let mut crc = !0u32;
    let mut i = 0;
    while i < n {
        crc ^= unsafe { *bytes.add(i) } as u32;
        let mut bit = 0;
        while bit < 8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xedb8_8320 & mask);
            bit += 1;
        }
        i += 1;
    }
    !crc
}

/// 64-bit FNV-1a hash of a byte buffer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fnv1a64(bytes: *const u8, n: usize) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut i = 0;
    while i < n {
        h ^= unsafe { *bytes.add(i) } as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    h
}

/// The 64 rounds of SHA-256 compression over one block given as 64 expanded words
/// `w`, updating the eight words of `state`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sha256_rounds(state: *mut u32, w: *const u32, k: *const u32) {
    // Written out rather than `rotate_right`: no call into `core`.
    #[allow(clippy::manual_rotate)]
    #[inline(always)]
    fn rotr(x: u32, s: u32) -> u32 {
        (x >> s) | (x << (32 - s))
    }
    let (mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h) = unsafe {
        (
            *state,
            *state.add(1),
            *state.add(2),
            *state.add(3),
            *state.add(4),
            *state.add(5),
            *state.add(6),
            *state.add(7),
        )
    };
    let mut i = 0;
    while i < 64 {
        let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
        let ch = (e & f) ^ (!e & g);
        let t1 = h
            .wrapping_add(s1)
            .wrapping_add(ch)
            .wrapping_add(unsafe { *k.add(i) })
            .wrapping_add(unsafe { *w.add(i) });
        let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
        let maj = (a & b) ^ (a & c) ^ (b & c);
        let t2 = s0.wrapping_add(maj);
        h = g;
        g = f;
        f = e;
        e = d.wrapping_add(t1);
        d = c;
        c = b;
        b = a;
        a = t1.wrapping_add(t2);
        i += 1;
    }
    unsafe {
        *state = (*state).wrapping_add(a);
        *state.add(1) = (*state.add(1)).wrapping_add(b);
        *state.add(2) = (*state.add(2)).wrapping_add(c);
        *state.add(3) = (*state.add(3)).wrapping_add(d);
        *state.add(4) = (*state.add(4)).wrapping_add(e);
        *state.add(5) = (*state.add(5)).wrapping_add(f);
        *state.add(6) = (*state.add(6)).wrapping_add(g);
        *state.add(7) = (*state.add(7)).wrapping_add(h);
    }
}

/// Total number of set bits in `xs`, counted with the clear-lowest-bit loop.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn popcount_loop(xs: *const u64, n: usize) -> u64 {
    let mut total = 0u64;
    let mut i = 0;
    while i < n {
        let mut x = unsafe { *xs.add(i) };
        while x != 0 {
            x &= x.wrapping_sub(1);
            total += 1;
        }
        i += 1;
    }
    total
}

/// Fills `n` words at `p` with `value` with volatile stores (a memset loop that LLVM
/// cannot replace by a call to `memset`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fill_u32(p: *mut u32, n: usize, value: u32) {
    let mut i = 0;
    while i < n {
        unsafe { core::ptr::write_volatile(p.add(i), value) };
        i += 1;
    }
}

/// Reverses `xs` in place.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn reverse_i32(xs: *mut i32, n: usize) {
    if n < 2 {
        return;
    }
    let mut i = 0;
    let mut j = n - 1;
    while i < j {
        unsafe {
            let a = *xs.add(i);
            *xs.add(i) = *xs.add(j);
            *xs.add(j) = a;
        }
        i += 1;
        j -= 1;
    }
}

// ---------------------------------------------------------------- pointer chasing

/// A singly linked list node.
#[repr(C)]
pub struct Node {
    pub value: i64,
    pub next: *const Node,
}

/// Length of a null-terminated linked list, and the sum of its values in `*sum`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn list_length(mut node: *const Node, sum: *mut i64) -> usize {
    let mut len = 0;
    let mut s = 0i64;
    while node as usize != 0 {
        unsafe {
            s = s.wrapping_add((*node).value);
            node = (*node).next;
        }
        len += 1;
    }
    unsafe { *sum = s };
    len
}

/// A binary tree node.
#[repr(C)]
pub struct Tree {
    pub key: i64,
    pub left: *const Tree,
    pub right: *const Tree,
}

/// Depth of the path a search for `key` takes in a binary search tree (iterative).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tree_search_depth(mut t: *const Tree, key: i64) -> u32 {
    let mut depth = 0;
    while t as usize != 0 {
        depth += 1;
        let k = unsafe { (*t).key };
        if key == k {
            break;
        }
        t = unsafe { if key < k { (*t).left } else { (*t).right } };
    }
    depth
}

// ---------------------------------------------------------------- floats

/// One n-body velocity update over all pairs of `n` bodies (positions `pos` and
/// velocities `vel` as xyz triples, masses `mass`), with a softened inverse-square
/// force that needs no square root.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nbody_pairs(
    pos: *const f64,
    vel: *mut f64,
    mass: *const f64,
    n: usize,
    dt: f64,
) {
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n {
            unsafe {
                let dx = *pos.add(3 * i) - *pos.add(3 * j);
                let dy = *pos.add(3 * i + 1) - *pos.add(3 * j + 1);
                let dz = *pos.add(3 * i + 2) - *pos.add(3 * j + 2);
                let r2 = dx * dx + dy * dy + dz * dz + 0.01;
                let mag = dt / (r2 * r2);
                let mi = *mass.add(i) * mag;
                let mj = *mass.add(j) * mag;
                *vel.add(3 * i) -= dx * mj;
                *vel.add(3 * i + 1) -= dy * mj;
                *vel.add(3 * i + 2) -= dz * mj;
                *vel.add(3 * j) += dx * mi;
                *vel.add(3 * j + 1) += dy * mi;
                *vel.add(3 * j + 2) += dz * mi;
            }
            j += 1;
        }
        i += 1;
    }
}

/// Escape-time iteration count of the Mandelbrot set at `(cx, cy)`, up to `limit`.
#[unsafe(no_mangle)]
pub extern "C" fn mandelbrot_point(cx: f64, cy: f64, limit: u32) -> u32 {
    let (mut x, mut y) = (0.0f64, 0.0f64);
    let mut i = 0;
    while i < limit {
        let x2 = x * x;
        let y2 = y * y;
        if x2 + y2 > 4.0 {
            break;
        }
        y = 2.0 * x * y + cy;
        x = x2 - y2 + cx;
        i += 1;
    }
    i
}

/// Evaluates the polynomial with coefficients `c[0..n]` (highest degree first) at each
/// `xs[i]` by Horner's rule, writing to `out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn horner_f32(
    c: *const f32,
    n: usize,
    xs: *const f32,
    out: *mut f32,
    m: usize,
) {
    let mut i = 0;
    while i < m {
        let x = unsafe { *xs.add(i) };
        let mut acc = 0.0f32;
        let mut k = 0;
        while k < n {
            acc = acc * x + unsafe { *c.add(k) };
            k += 1;
        }
        unsafe { *out.add(i) = acc };
        i += 1;
    }
}
