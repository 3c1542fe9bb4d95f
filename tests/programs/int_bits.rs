// Bit operations: count_ones/zeros, leading/trailing zeros, rotate, swap_bytes,
// reverse_bits, to/from bytes in both endiannesses, bitwise ops on signed values.
use std::hint::black_box;

fn main() {
    for v in [0u32, 1, 0x80, 0xF0F0, 0x8000_0000, u32::MAX, 0x1234_5678] {
        let v = black_box(v);
        println!(
            "{v:#010x}: ones {} zeros {} lz {} tz {} lo {} to {} rotl8 {:#010x} rotr4 {:#010x} swap {:#010x} rev {:#010x}",
            v.count_ones(), v.count_zeros(), v.leading_zeros(), v.trailing_zeros(), v.leading_ones(), v.trailing_ones(),
            v.rotate_left(8), v.rotate_right(4), v.swap_bytes(), v.reverse_bits()
        );
    }
    for v in [0u8, 1, 0x96, 0xFF] {
        println!("u8 {v:#04x}: lz {} rotl3 {:#04x} rev {:#04x}", v.leading_zeros(), v.rotate_left(3), v.reverse_bits());
    }
    for v in [1u64, 0xDEAD_BEEF_0000_0001, u64::MAX >> 1] {
        println!("u64 {v:#x}: lz {} tz {} ones {} swap {:#x}", v.leading_zeros(), v.trailing_zeros(), v.count_ones(), v.swap_bytes());
    }
    for v in [-1i16, i16::MIN, 0x0F0F] {
        println!("i16 {v}: lz {} ones {} rotl1 {} >>2 {} as u16 >>2 {}", v.leading_zeros(), v.count_ones(), v.rotate_left(1), v >> 2, (v as u16) >> 2);
    }
    let x = black_box(0x0102_0304_0506_0708u64);
    println!("le {:?}", x.to_le_bytes());
    println!("be {:?}", x.to_be_bytes());
    println!("from_le {:#x} from_be {:#x}", u64::from_le_bytes(x.to_be_bytes()), u32::from_be_bytes([0xde, 0xad, 0xbe, 0xef]));
    println!("i32 from_le_bytes {}", i32::from_le_bytes([0xff, 0xff, 0xff, 0x7f]));
    let a = black_box(-0x5Ai32);
    let b = black_box(0x3Ci32);
    println!("and {} or {} xor {} not {} shl {} shr {}", a & b, a | b, a ^ b, !a, a << 4, a >> 3);
    let mut bits = 0u128;
    for i in (0..128).step_by(7) {
        bits |= 1u128 << i;
    }
    println!("u128 bits {bits:#x} ones {} lz {} tz {}", bits.count_ones(), bits.leading_zeros(), bits.trailing_zeros());
    // popcount table via Kernighan's trick vs count_ones
    let mut mismatches = 0;
    for v in 0..4096u32 {
        let mut n = v;
        let mut c = 0;
        while n != 0 {
            n &= n - 1;
            c += 1;
        }
        if c != v.count_ones() {
            mismatches += 1;
        }
    }
    println!("popcount mismatches {mismatches}");
    let gray: Vec<u8> = (0..16u8).map(|i| i ^ (i >> 1)).collect();
    println!("gray {:?}", gray);
}
