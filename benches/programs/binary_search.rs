// Branchy integer code: hand-written binary search over a sorted array.
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

fn bsearch(a: &[u32], key: u32) -> Option<usize> {
    let mut lo = 0usize;
    let mut hi = a.len();
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let v = a[mid];
        if v == key {
            return Some(mid);
        } else if v < key {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    None
}

fn lower_bound(a: &[u32], key: u32) -> usize {
    let mut lo = 0usize;
    let mut len = a.len();
    while len > 0 {
        let half = len / 2;
        if a[lo + half] < key {
            lo += half + 1;
            len -= half + 1;
        } else {
            len = half;
        }
    }
    lo
}

#[inline(never)]
fn kernel(a: &[u32], keys: &[u32]) -> (u64, u64) {
    let mut found = 0u64;
    let mut acc = 0u64;
    for &k in keys {
        match bsearch(a, k) {
            Some(i) => {
                found += 1;
                acc = acc.wrapping_add(i as u64);
            }
            None => acc = acc.wrapping_mul(3).wrapping_add(lower_bound(a, k) as u64),
        }
    }
    (found, acc)
}

fn main() {
    let mut rng = Rng(black_box(0x9e37_79b9_7f4a_7c15));
    let n = 4096;
    let mut a = Vec::with_capacity(n);
    let mut v = 0u32;
    for _ in 0..n {
        v += 1 + (rng.next() % 7) as u32;
        a.push(v);
    }
    let keys: Vec<u32> = (0..30_000).map(|_| (rng.next() % (v as u64 + 10)) as u32).collect();
    let (found, acc) = kernel(black_box(&a), black_box(&keys));
    println!("found: {}", found);
    println!("acc: {}", acc);
}
