// Branchy integer code: clamping and median-of-3 / median-of-5 filters.
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

fn med3(a: i32, b: i32, c: i32) -> i32 {
    if a < b {
        if b < c { b } else if a < c { c } else { a }
    } else if a < c {
        a
    } else if b < c {
        c
    } else {
        b
    }
}

fn med5(mut v: [i32; 5]) -> i32 {
    // partial insertion sort
    for i in 1..5 {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1] > x {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
    v[2]
}

#[inline(never)]
fn kernel(input: &[i32], out3: &mut [i32], out5: &mut [i32], lo: i32, hi: i32) -> i64 {
    let n = input.len();
    let mut sum: i64 = 0;
    for i in 0..n {
        let a = input[if i == 0 { 0 } else { i - 1 }];
        let b = input[i];
        let c = input[if i + 1 < n { i + 1 } else { n - 1 }];
        let m = med3(a, b, c);
        let m = if m < lo { lo } else if m > hi { hi } else { m };
        out3[i] = m;
        sum += m as i64;
    }
    for i in 2..n - 2 {
        let m = med5([input[i - 2], input[i - 1], input[i], input[i + 1], input[i + 2]]);
        let m = m.clamp(lo, hi);
        out5[i] = m;
        sum = sum.wrapping_mul(31).wrapping_add(m as i64);
    }
    sum
}

fn main() {
    let mut rng = Rng(black_box(0xdead_beef_cafe_f00d));
    let n = 20_000;
    let input: Vec<i32> = (0..n).map(|_| (rng.next() % 20001) as i32 - 10000).collect();
    let mut out3 = vec![0i32; n];
    let mut out5 = vec![0i32; n];
    let s = kernel(black_box(&input), &mut out3, &mut out5, black_box(-6000), black_box(7000));
    let x3: i64 = out3.iter().map(|&x| x as i64).sum();
    let x5 = out5.iter().fold(0u32, |h, &x| h.rotate_left(5) ^ x as u32);
    println!("sum: {}", s);
    println!("out3 sum: {} out5 hash: {:08x}", x3, x5);
}
