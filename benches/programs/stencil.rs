// Loops over arrays: 1-D (integer) and 2-D (f64 Jacobi) stencils.
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
fn stencil_1d(src: &[i32], dst: &mut [i32]) {
    let n = src.len();
    for i in 2..n - 2 {
        dst[i] = (src[i - 2] + 4 * src[i - 1] + 6 * src[i] + 4 * src[i + 1] + src[i + 2]) >> 4;
    }
}

#[inline(never)]
fn jacobi_2d(src: &[f64], dst: &mut [f64], w: usize, h: usize) {
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let c = y * w + x;
            dst[c] = 0.2 * (src[c] + src[c - 1] + src[c + 1] + src[c - w] + src[c + w]);
        }
    }
}

fn main() {
    let mut rng = Rng(black_box(0x1357_9bdf_2468_ace0));
    let n = 8192;
    let mut a: Vec<i32> = (0..n).map(|_| (rng.next() % 65536) as i32).collect();
    let mut b = a.clone();
    for _ in 0..black_box(10) {
        stencil_1d(black_box(&a), &mut b);
        std::mem::swap(&mut a, &mut b);
    }
    let s1: i64 = a.iter().map(|&x| x as i64).sum();

    let (w, h) = (black_box(64usize), black_box(64usize));
    let mut g: Vec<f64> = (0..w * h).map(|_| (rng.next() % 1000) as f64).collect();
    let mut g2 = g.clone();
    for _ in 0..black_box(20) {
        jacobi_2d(black_box(&g), &mut g2, w, h);
        std::mem::swap(&mut g, &mut g2);
    }
    let s2: f64 = g.iter().sum();
    let h2 = g.iter().fold(0u64, |h, x| h.rotate_left(11) ^ x.to_bits());
    println!("1d sum: {}", s1);
    println!("2d sum: {:.6} hash: {:016x}", s2, h2);
}
