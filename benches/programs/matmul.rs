// Loops over arrays: dense matrix multiplication, f64 and i32.
use std::hint::black_box;

const N: usize = 48;

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
fn matmul_f64(a: &[f64], b: &[f64], c: &mut [f64], n: usize) {
    for i in 0..n {
        for j in 0..n {
            let mut s = 0.0;
            for k in 0..n {
                s += a[i * n + k] * b[k * n + j];
            }
            c[i * n + j] = s;
        }
    }
}

#[inline(never)]
fn matmul_i32(a: &[i32], b: &[i32], c: &mut [i32], n: usize) {
    for i in 0..n {
        for k in 0..n {
            let aik = a[i * n + k];
            for j in 0..n {
                c[i * n + j] = c[i * n + j].wrapping_add(aik.wrapping_mul(b[k * n + j]));
            }
        }
    }
}

fn main() {
    let mut rng = Rng(black_box(0x0f0f_1e1e_2d2d_3c3c));
    let af: Vec<f64> = (0..N * N).map(|_| (rng.next() % 1000) as f64 / 500.0 - 1.0).collect();
    let bf: Vec<f64> = (0..N * N).map(|_| (rng.next() % 1000) as f64 / 500.0 - 1.0).collect();
    let ai: Vec<i32> = (0..N * N).map(|_| (rng.next() % 200) as i32 - 100).collect();
    let bi: Vec<i32> = (0..N * N).map(|_| (rng.next() % 200) as i32 - 100).collect();
    let mut cf = vec![0.0f64; N * N];
    let mut ci = vec![0i32; N * N];
    let n = black_box(N);
    matmul_f64(black_box(&af), black_box(&bf), &mut cf, n);
    matmul_i32(black_box(&ai), black_box(&bi), &mut ci, n);
    let trace: f64 = (0..N).map(|i| cf[i * N + i]).sum();
    let hf = cf.iter().fold(0u64, |h, x| h.rotate_left(9) ^ x.to_bits());
    let si: i64 = ci.iter().map(|&x| x as i64).sum();
    let hi = ci.iter().fold(0u32, |h, &x| h.rotate_left(5) ^ x as u32);
    println!("f64 trace: {:.9} hash: {:016x}", trace, hf);
    println!("i32 sum: {} hash: {:08x}", si, hi);
}
