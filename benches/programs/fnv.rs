// Loops over arrays: FNV-1a (32 and 64 bit) over many short and one long key.
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

fn fnv1a64(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn fnv1a32(data: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in data {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

#[inline(never)]
fn kernel(data: &[u8], key_len: usize) -> (u64, u32, u64) {
    let mut x = 0u64;
    let mut y = 0u32;
    for key in data.chunks(key_len) {
        x ^= fnv1a64(key);
        y = y.wrapping_add(fnv1a32(key));
    }
    (x, y, fnv1a64(data))
}

fn main() {
    let mut rng = Rng(black_box(0x0bad_f00d_dead_c0de));
    let data: Vec<u8> = (0..65536).map(|_| (rng.next() >> 32) as u8).collect();
    let (x, y, z) = kernel(black_box(&data), black_box(13));
    println!("fnv64 xor: {:016x} fnv32 sum: {:08x}", x, y);
    println!("fnv64 all: {:016x} empty: {:016x}", z, fnv1a64(black_box(b"")));
}
