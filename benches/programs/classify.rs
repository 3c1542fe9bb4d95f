// Branchy integer code: classify values into ranges.
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
fn kernel(data: &[i64], counts: &mut [u64; 8]) -> i64 {
    let mut acc: i64 = 0;
    for &v in data {
        let class = if v < -1000 {
            0
        } else if v < -100 {
            1
        } else if v < 0 {
            2
        } else if v == 0 {
            3
        } else if v < 100 {
            4
        } else if v < 1000 {
            5
        } else if v < 10000 {
            6
        } else {
            7
        };
        counts[class] += 1;
        acc = acc.wrapping_add(match class {
            0 | 7 => v >> 3,
            1 | 6 => v.wrapping_mul(3),
            2 | 5 => v ^ 0x55,
            _ => 1,
        });
    }
    acc
}

fn main() {
    let mut rng = Rng(black_box(0x1234_5678_9abc_def1));
    let n = 50_000;
    let mut data = Vec::with_capacity(n);
    for _ in 0..n {
        let r = rng.next();
        let scale = [10i64, 200, 2000, 40000][(r & 3) as usize];
        data.push(((r >> 8) % (2 * scale as u64 + 1)) as i64 - scale);
    }
    let mut counts = [0u64; 8];
    let mut acc = 0i64;
    for _ in 0..black_box(2) {
        acc = acc.wrapping_add(kernel(black_box(&data), &mut counts));
    }
    println!("counts: {:?}", counts);
    println!("acc: {}", acc);
}
