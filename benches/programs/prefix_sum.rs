// Loops over arrays: inclusive/exclusive prefix sums and a prefix-max scan.
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
fn kernel(src: &[i64], incl: &mut [i64], excl: &mut [i64], pmax: &mut [i64]) {
    let mut s = 0i64;
    let mut m = i64::MIN;
    for i in 0..src.len() {
        excl[i] = s;
        s = s.wrapping_add(src[i]);
        incl[i] = s;
        if src[i] > m {
            m = src[i];
        }
        pmax[i] = m;
    }
}

fn main() {
    let mut rng = Rng(black_box(0xa5a5_5a5a_0f0f_f0f0));
    let n = 16384;
    let mut src: Vec<i64> = (0..n).map(|_| (rng.next() % 100_001) as i64 - 50_000).collect();
    let mut incl = vec![0i64; n];
    let mut excl = vec![0i64; n];
    let mut pmax = vec![0i64; n];
    let mut h = 0u64;
    for r in 0..black_box(8) {
        kernel(black_box(&src), &mut incl, &mut excl, &mut pmax);
        for i in 0..n {
            h = h.rotate_left(1) ^ (incl[i] ^ excl[i].wrapping_mul(3) ^ pmax[i]) as u64;
        }
        src[r * 7] += 1000;
    }
    println!("last: {} {} {}", incl[n - 1], excl[n - 1], pmax[n - 1]);
    println!("hash: {:016x}", h);
}
