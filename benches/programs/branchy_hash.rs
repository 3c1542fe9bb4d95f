// Branchy integer code: a hash whose mixing depends on the data.
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
fn kernel(data: &[u32]) -> (u64, u32) {
    let mut h: u64 = 0x8422_2325_cbf2_9ce4;
    let mut odd = 0u32;
    for &w in data {
        if w & 1 == 1 {
            odd += 1;
            h = h.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ w as u64;
        } else if w & 6 == 2 {
            h = h.rotate_left(w & 63) ^ (w as u64).wrapping_shl(7);
        } else if w > 0x8000_0000 {
            h ^= h >> 29;
            h = h.wrapping_add(w as u64);
        } else {
            h = h.wrapping_sub((w as u64) << 3) ^ 0x5bd1_e995;
        }
        if h & 0xff == 0 {
            h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        }
    }
    (h, odd)
}

fn main() {
    let mut rng = Rng(black_box(0x2545_f491_4f6c_dd1d));
    let data: Vec<u32> = (0..100_000).map(|_| (rng.next() >> 16) as u32).collect();
    let (h, odd) = kernel(black_box(&data));
    println!("hash: {:016x}", h);
    println!("odd: {}", odd);
}
