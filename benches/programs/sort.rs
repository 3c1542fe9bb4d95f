// Pointer chasing and recursion: hand-written quicksort and merge sort.
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

fn quicksort(a: &mut [i32]) {
    if a.len() <= 16 {
        for i in 1..a.len() {
            let x = a[i];
            let mut j = i;
            while j > 0 && a[j - 1] > x {
                a[j] = a[j - 1];
                j -= 1;
            }
            a[j] = x;
        }
        return;
    }
    let mid = a.len() / 2;
    let last = a.len() - 1;
    // median of three pivot
    if a[mid] < a[0] {
        a.swap(mid, 0);
    }
    if a[last] < a[0] {
        a.swap(last, 0);
    }
    if a[last] < a[mid] {
        a.swap(last, mid);
    }
    let pivot = a[mid];
    let (mut i, mut j) = (0usize, last);
    loop {
        while a[i] < pivot {
            i += 1;
        }
        while a[j] > pivot {
            j -= 1;
        }
        if i >= j {
            break;
        }
        a.swap(i, j);
        i += 1;
        j -= 1;
    }
    let (l, r) = a.split_at_mut(j + 1);
    quicksort(l);
    quicksort(r);
}

fn merge_sort(a: &mut [i32], tmp: &mut [i32]) {
    let n = a.len();
    if n <= 1 {
        return;
    }
    let mid = n / 2;
    {
        let (l, r) = a.split_at_mut(mid);
        let (tl, tr) = tmp.split_at_mut(mid);
        merge_sort(l, tl);
        merge_sort(r, tr);
    }
    let (mut i, mut j, mut k) = (0, mid, 0);
    while i < mid && j < n {
        if a[i] <= a[j] {
            tmp[k] = a[i];
            i += 1;
        } else {
            tmp[k] = a[j];
            j += 1;
        }
        k += 1;
    }
    while i < mid {
        tmp[k] = a[i];
        i += 1;
        k += 1;
    }
    while j < n {
        tmp[k] = a[j];
        j += 1;
        k += 1;
    }
    a.copy_from_slice(&tmp[..n]);
}

#[inline(never)]
fn kernel(q: &mut [i32], m: &mut [i32], tmp: &mut [i32]) {
    quicksort(q);
    merge_sort(m, tmp);
}

fn main() {
    let mut rng = Rng(black_box(0x2718_2818_2845_9045));
    let n = 8000;
    let data: Vec<i32> = (0..n).map(|_| (rng.next() % 1_000_000) as i32 - 500_000).collect();
    let mut q = data.clone();
    let mut m = data.clone();
    let mut tmp = vec![0i32; n];
    kernel(black_box(&mut q), black_box(&mut m), &mut tmp);
    let sorted = q.windows(2).all(|w| w[0] <= w[1]);
    let same = q == m;
    let h = q.iter().fold(0u64, |h, &x| h.wrapping_mul(1_000_003).wrapping_add(x as u64));
    println!("sorted: {} same: {} min: {} max: {}", sorted, same, q[0], q[n - 1]);
    println!("hash: {:016x} median: {}", h, q[n / 2]);
}
