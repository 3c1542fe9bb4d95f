// Loops over arrays: dot product and saxpy, f64 and i64.
use std::hint::black_box;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

#[inline(never)]
fn dot_f64(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

#[inline(never)]
fn saxpy_f64(alpha: f64, x: &[f64], y: &mut [f64]) {
    for i in 0..x.len() {
        y[i] += alpha * x[i];
    }
}

#[inline(never)]
fn dot_i64(a: &[i64], b: &[i64]) -> i64 {
    let mut s = 0i64;
    for i in 0..a.len() {
        s = s.wrapping_add(a[i].wrapping_mul(b[i]));
    }
    s
}

#[inline(never)]
fn saxpy_i64(alpha: i64, x: &[i64], y: &mut [i64]) {
    for i in 0..x.len() {
        y[i] = y[i].wrapping_add(alpha.wrapping_mul(x[i]));
    }
}

fn main() {
    let mut rng = Rng(black_box(0x5555_aaaa_1234_4321));
    let n = 4096;
    let xf: Vec<f64> = (0..n).map(|_| (rng.next() % 2001) as f64 / 1000.0 - 1.0).collect();
    let mut yf: Vec<f64> = (0..n).map(|_| (rng.next() % 2001) as f64 / 1000.0 - 1.0).collect();
    let xi: Vec<i64> = (0..n).map(|_| (rng.next() % 2001) as i64 - 1000).collect();
    let mut yi: Vec<i64> = (0..n).map(|_| (rng.next() % 2001) as i64 - 1000).collect();
    let mut df = 0.0;
    let mut di = 0i64;
    for r in 0..black_box(20) {
        saxpy_f64(black_box(0.5 - r as f64 * 0.01), &xf, &mut yf);
        df += dot_f64(black_box(&xf), black_box(&yf));
        saxpy_i64(black_box(3 - r as i64), &xi, &mut yi);
        di = di.wrapping_add(dot_i64(black_box(&xi), black_box(&yi)));
    }
    println!("dot f64: {:.6e} bits {:016x}", df, df.to_bits());
    println!("dot i64: {}", di);
}
