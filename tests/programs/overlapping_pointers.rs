// Loops through raw pointers that may overlap: each kernel is called with arrays
// apart, overlapping ahead, overlapping behind and equal, at several lengths, and
// the buffers are hashed. Loop versioning (rvsdg-version) runs such loops as a copy
// whose loads and stores the schedulers reorder across pointers only when a check
// before the loop finds the byte ranges apart; every overlapping call here must take
// the original loop and give the sequential result.
use std::hint::black_box;

#[inline(never)]
unsafe fn axpy_i32(a: i32, x: *const i32, y: *mut i32, n: usize) {
    let mut i = 0;
    while i < n {
        unsafe { *y.add(i) = a.wrapping_mul(*x.add(i)).wrapping_add(*y.add(i)) };
        i += 1;
    }
}

#[inline(never)]
unsafe fn axpy_f64(a: f64, x: *const f64, y: *mut f64, n: usize) {
    let mut i = 0;
    while i < n {
        unsafe { *y.add(i) = a * *x.add(i) + *y.add(i) };
        i += 1;
    }
}

#[inline(never)]
unsafe fn add_sat_u8(a: *const u8, b: *const u8, out: *mut u8, n: usize) {
    let mut i = 0;
    while i < n {
        unsafe { *out.add(i) = (*a.add(i)).saturating_add(*b.add(i)) };
        i += 1;
    }
}

/// A copy forward, word by word: overlapping ahead, it smears the first words.
#[inline(never)]
unsafe fn copy_forward(src: *const u64, dst: *mut u64, n: usize) {
    let mut i = 0;
    while i < n {
        unsafe { *dst.add(i) = *src.add(i) ^ (i as u64) };
        i += 1;
    }
}

/// Two loads of `x` at different offsets and a store through `out`.
#[inline(never)]
unsafe fn diff2(x: *const i64, out: *mut i64, n: usize) {
    let mut i = 0;
    while i < n {
        unsafe { *out.add(i) = (*x.add(i + 2)).wrapping_sub(*x.add(i)).wrapping_mul(3) };
        i += 1;
    }
}

fn hash<T: Copy>(xs: &[T], bits: impl Fn(T) -> u64) -> u64 {
    xs.iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, &x| (h ^ bits(x)).wrapping_mul(0x100_0000_01b3))
}

fn main() {
    const LEN: usize = 160;
    let offsets: [isize; 9] = [-17, -5, -1, 0, 1, 3, 8, 40, 48];
    let lengths = [1usize, 2, 3, 4, 5, 7, 16, 31, 40];
    let mut total = 0u64;
    for &d in &offsets {
        for &n in &lengths {
            // x at 48, y = x + d elements: apart when |d| >= n
            let base = 48usize;
            let y_at = (base as isize + black_box(d)) as usize;

            let mut w: Vec<i32> = (0..LEN as i32).map(|k| k * 7 - 100).collect();
            let p = w.as_mut_ptr();
            unsafe { axpy_i32(black_box(3), p.add(base), p.add(y_at), black_box(n)) };
            let h1 = hash(&w, |v| v as u32 as u64);

            let mut f: Vec<f64> = (0..LEN).map(|k| k as f64 * 0.5 - 3.0).collect();
            let q = f.as_mut_ptr();
            unsafe { axpy_f64(black_box(1.25), q.add(base), q.add(y_at), black_box(n)) };
            let h2 = hash(&f, f64::to_bits);

            let mut bytes: Vec<u8> = (0..LEN).map(|k| (k * 37 % 256) as u8).collect();
            let b = bytes.as_mut_ptr();
            let other = ((base as isize) - black_box(d)) as usize;
            unsafe { add_sat_u8(b.add(base), b.add(other), b.add(y_at), black_box(n)) };
            let h3 = hash(&bytes, u64::from);

            let mut words: Vec<u64> = (0..LEN as u64).map(|k| k * 0x9e37_79b9).collect();
            let c = words.as_mut_ptr();
            unsafe { copy_forward(c.add(base), c.add(y_at), black_box(n)) };
            let h4 = hash(&words, |v| v);

            let mut longs: Vec<i64> = (0..LEN as i64).map(|k| k * k - 50).collect();
            let l = longs.as_mut_ptr();
            unsafe { diff2(l.add(base - 20), l.add(y_at - 20), black_box(n)) };
            let h5 = hash(&longs, |v| v as u64);

            let h = h1 ^ h2.rotate_left(13) ^ h3.rotate_left(26) ^ h4.rotate_left(39) ^ h5.rotate_left(52);
            if n == 7 || n == 31 {
                println!("d={d:>3} n={n:>2}: {h1:016x} {h2:016x} {h3:016x} {h4:016x} {h5:016x}");
            }
            total = total.rotate_left(5) ^ h;
        }
    }
    println!("total {total:016x}");
}
