// Const generics: fixed-size matrices with const dimensions, a ring buffer of N items,
// generic array functions, const expressions, default const parameters.
use std::ops::Mul;

#[derive(Debug, Clone, Copy, PartialEq)]
struct Matrix<const R: usize, const C: usize>([[i64; C]; R]);

impl<const R: usize, const C: usize> Matrix<R, C> {
    fn transpose(&self) -> Matrix<C, R> {
        let mut out = [[0; R]; C];
        for r in 0..R {
            for c in 0..C {
                out[c][r] = self.0[r][c];
            }
        }
        Matrix(out)
    }
}

impl<const R: usize, const K: usize, const C: usize> Mul<Matrix<K, C>> for Matrix<R, K> {
    type Output = Matrix<R, C>;
    fn mul(self, rhs: Matrix<K, C>) -> Matrix<R, C> {
        let mut out = [[0; C]; R];
        for r in 0..R {
            for c in 0..C {
                out[r][c] = (0..K).map(|k| self.0[r][k] * rhs.0[k][c]).sum();
            }
        }
        Matrix(out)
    }
}

struct Ring<T, const N: usize = 4> {
    items: [Option<T>; N],
    next: usize,
}

impl<T: Copy + std::fmt::Debug, const N: usize> Ring<T, N> {
    fn new() -> Self {
        Ring { items: [None; N], next: 0 }
    }
    fn push(&mut self, v: T) -> Option<T> {
        let old = self.items[self.next].replace(v);
        self.next = (self.next + 1) % N;
        old
    }
    fn in_order(&self) -> Vec<T> {
        (0..N).filter_map(|i| self.items[(self.next + i) % N]).collect()
    }
}

fn sum_all<const N: usize>(xs: [u32; N]) -> u32 {
    xs.iter().sum()
}

fn chunked<const N: usize>(v: &[u8]) -> Vec<[u8; N]> {
    v.chunks_exact(N).map(|c| c.try_into().unwrap()).collect()
}

const fn cube(n: usize) -> usize {
    n * n * n
}

fn main() {
    let a = Matrix([[1, 2, 3], [4, 5, 6]]);
    let b = a.transpose();
    println!("{:?}\n{:?}", a, b);
    println!("a*b {:?}", a * b);
    println!("b*a {:?}", b * a);
    let mut m = Matrix([[1, 1], [1, 0]]);
    let base = m;
    for _ in 0..40 {
        m = m * base;
    }
    println!("fib via matrix {:?}", m.0[0]);
    let mut r: Ring<char> = Ring::new();
    for c in "abcdef".chars() {
        if let Some(old) = r.push(c) {
            print!("evict {old} ");
        }
    }
    println!("\nring {:?}", r.in_order());
    let mut r8: Ring<u16, 8> = Ring::new();
    for i in 0..5 {
        r8.push(i * 100);
    }
    println!("ring8 {:?}", r8.in_order());
    println!("sums {} {} {}", sum_all([1, 2, 3]), sum_all([10; 7]), sum_all([]));
    println!("{:?}", chunked::<3>(b"abcdefgh"));
    const SIZE: usize = cube(3);
    let arr = [1u8; SIZE];
    println!("cube {} len {}", SIZE, arr.len());
    let id: Matrix<3, 3> = Matrix(std::array::from_fn(|r| std::array::from_fn(|c| (r == c) as i64)));
    println!("identity {:?} eq {}", id, id * id == id);
}
