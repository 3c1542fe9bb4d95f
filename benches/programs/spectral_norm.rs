// Floats: spectral norm of the infinite matrix A(i,j) = 1/((i+j)(i+j+1)/2+i+1), n = 100.
use std::hint::black_box;

fn a(i: usize, j: usize) -> f64 {
    1.0 / (((i + j) * (i + j + 1) / 2 + i + 1) as f64)
}

fn mul_av(v: &[f64], out: &mut [f64]) {
    for i in 0..v.len() {
        let mut s = 0.0;
        for j in 0..v.len() {
            s += a(i, j) * v[j];
        }
        out[i] = s;
    }
}

fn mul_atv(v: &[f64], out: &mut [f64]) {
    for i in 0..v.len() {
        let mut s = 0.0;
        for j in 0..v.len() {
            s += a(j, i) * v[j];
        }
        out[i] = s;
    }
}

fn mul_atav(v: &[f64], out: &mut [f64], tmp: &mut [f64]) {
    mul_av(v, tmp);
    mul_atv(tmp, out);
}

#[inline(never)]
fn kernel(n: usize, iters: usize) -> f64 {
    let mut u = vec![1.0; n];
    let mut v = vec![0.0; n];
    let mut tmp = vec![0.0; n];
    for _ in 0..iters {
        mul_atav(&u, &mut v, &mut tmp);
        mul_atav(&v, &mut u, &mut tmp);
    }
    let mut vbv = 0.0;
    let mut vv = 0.0;
    for i in 0..n {
        vbv += u[i] * v[i];
        vv += v[i] * v[i];
    }
    (vbv / vv).sqrt()
}

fn main() {
    let r = kernel(black_box(100), black_box(10));
    println!("spectral norm: {:.9}", r);
    println!("bits: {:016x}", r.to_bits());
}
