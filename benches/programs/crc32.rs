// Loops over arrays: table-driven CRC-32 (IEEE) and bitwise CRC-32C.
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

fn make_table() -> [u32; 256] {
    let mut t = [0u32; 256];
    for i in 0..256u32 {
        let mut c = i;
        for _ in 0..8 {
            c = if c & 1 != 0 { 0xedb8_8320 ^ (c >> 1) } else { c >> 1 };
        }
        t[i as usize] = c;
    }
    t
}

#[inline(never)]
fn crc32(table: &[u32; 256], data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c = table[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

#[inline(never)]
fn crc32c_bitwise(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= b as u32;
        for _ in 0..8 {
            let mask = (c & 1).wrapping_neg();
            c = (c >> 1) ^ (0x82f6_3b78 & mask);
        }
    }
    !c
}

fn main() {
    let mut rng = Rng(black_box(0x7777_1111_3333_9999));
    let data: Vec<u8> = (0..65536).map(|_| (rng.next() >> 24) as u8).collect();
    let table = make_table();
    let a = crc32(&table, black_box(&data));
    let b = crc32c_bitwise(black_box(&data[..8192]));
    let check = crc32(&table, black_box(b"123456789"));
    println!("crc32(check): {:08x}", check);
    println!("crc32: {:08x} crc32c: {:08x}", a, b);
}
