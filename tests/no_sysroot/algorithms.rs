// Small complete programs: CRC-32, FNV-1a hashing, a xorshift generator and
// quicksort of its output, matrix multiplication, the N-queens count, and a
// base64 encoder: mixes of loops, memory, calls and integer arithmetic.

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

fn crc32(data: &[u8]) -> u32 {
    let mut table = [0u32; 256];
    for i in 0..256u32 {
        let mut c = i;
        for _ in 0..8 {
            c = if c & 1 != 0 { 0xedb8_8320 ^ (c >> 1) } else { c >> 1 };
        }
        table[i as usize] = c;
    }
    let mut crc = !0u32;
    for b in data.iter() {
        crc = table[((crc ^ *b as u32) & 0xff) as usize] ^ (crc >> 8);
    }
    !crc
}

fn fnv1a(data: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in data.iter() {
        h ^= *b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13u32;
        x ^= x >> 7u32;
        x ^= x << 17u32;
        self.0 = x;
        x
    }
}

fn quicksort(xs: &mut [u32]) {
    if xs.len() <= 1 {
        return;
    }
    let pivot = xs[(xs.len() - 1) / 2];
    let mut i = 0;
    let mut j = xs.len() - 1;
    loop {
        while xs[i] < pivot {
            i += 1;
        }
        while xs[j] > pivot {
            j -= 1;
        }
        if i >= j {
            break;
        }
        xs.swap(i, j);
        i += 1;
        j -= 1;
    }
    let (left, right) = (0..j + 1, j + 1..xs.len());
    quicksort(&mut xs[left]);
    quicksort(&mut xs[right]);
}

fn matmul(a: &[[i64; 4]; 4], b: &[[i64; 4]; 4]) -> [[i64; 4]; 4] {
    let mut c = [[0i64; 4]; 4];
    for i in 0..4 {
        for j in 0..4 {
            let mut s = 0;
            for k in 0..4 {
                s += a[i][k] * b[k][j];
            }
            c[i][j] = s;
        }
    }
    c
}

fn queens(n: usize, row: usize, cols: u32, d1: u32, d2: u32) -> u32 {
    if row == n {
        return 1;
    }
    let mut count = 0;
    for c in 0..n {
        let (bc, b1, b2) = (1u32 << c, 1u32 << (row + c), 1u32 << (row + n - c));
        if cols & bc == 0 && d1 & b1 == 0 && d2 & b2 == 0 {
            count += queens(n, row + 1, cols | bc, d1 | b1, d2 | b2);
        }
    }
    count
}

fn base64(input: &[u8], out: &mut [u8]) -> usize {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut o = 0;
    let mut i = 0;
    while i < input.len() {
        let b0 = input[i] as u32;
        let b1 = if i + 1 < input.len() { input[i + 1] as u32 } else { 0 };
        let b2 = if i + 2 < input.len() { input[i + 2] as u32 } else { 0 };
        let n = (b0 << 16) | (b1 << 8) | b2;
        out[o] = alphabet[(n >> 18) as usize & 63];
        out[o + 1] = alphabet[(n >> 12) as usize & 63];
        out[o + 2] = if i + 1 < input.len() { alphabet[(n >> 6) as usize & 63] } else { b'=' };
        out[o + 3] = if i + 2 < input.len() { alphabet[n as usize & 63] } else { b'=' };
        o += 4;
        i += 3;
    }
    o
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    let msg = black_box(b"The quick brown fox jumps over the lazy dog");
    outln!("crc32 ", Hex(crc32(msg)), " fnv1a ", Hex(fnv1a(msg)));
    let mut rng = XorShift(black_box(88172645463325252));
    let mut xs = [0u32; 200];
    for i in 0..xs.len() {
        xs[i] = (rng.next() % 1000) as u32;
    }
    quicksort(&mut xs);
    let mut sorted = true;
    for i in 1..xs.len() {
        sorted &= xs[i - 1] <= xs[i];
    }
    outln!("sorted ", sorted, " min ", xs[0], " median ", xs[100], " max ", xs[199], " first ", &xs[..8]);
    let a = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, black_box(16)]];
    let mut m = a;
    for _ in 0..5 {
        m = matmul(&m, &a);
        for i in 0..4 {
            for j in 0..4 {
                m[i][j] %= 1_000_003;
            }
        }
    }
    outln!("matrix ", m[0], " ", m[3]);
    out!("queens");
    for n in 1..=black_box(8) {
        out!(" ", queens(n, 0, 0, 0, 0));
    }
    outln!();
    let mut out = [0u8; 64];
    let inputs = ["", "f", "fo", "foo", "foob", "fooba", "foobar", "VLIW-64!"];
    for i in 0..inputs.len() {
        let n = base64(inputs[i].as_bytes(), &mut out);
        outln!("base64(\"", inputs[i], "\") = ", unsafe { str_from_utf8_unchecked(&out[..n]) });
    }
    0
}
