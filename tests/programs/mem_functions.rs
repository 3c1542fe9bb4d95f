// memcpy, memmove and memset (the runtime's, in assembly: sysroot/runtime/mem.s) at
// every length up to 80 and a few long ones, from and to every offset modulo 8, and
// overlapping in both directions: each result hashed with what is around it, so a
// byte written outside the range shows too.
use std::hint::black_box;

/// FNV-1a over `bytes`.
fn hash(bytes: &[u8], mut h: u64) -> u64 {
    for &b in bytes {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    h
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
}

fn main() {
    let mut lengths: Vec<usize> = (0..=80).collect();
    lengths.extend([95, 96, 97, 255, 256, 1000, 4099]);
    let mut copies = 0xcbf2_9ce4_8422_2325u64;
    let mut moves = copies;
    let mut fills = copies;
    let mut count = 0;
    for &n in &lengths {
        for src_off in 0..8 {
            for dst_off in 0..8 {
                // copy_nonoverlapping: memcpy for lengths the compiler does not know
                let src = pattern(n + 16, n as u8);
                let mut dst = vec![0xeeu8; n + 16];
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        black_box(src.as_ptr().add(src_off)),
                        black_box(dst.as_mut_ptr().add(dst_off)),
                        black_box(n),
                    );
                }
                copies = hash(&dst, copies);
                // copy within one buffer: memmove, forward and backward
                let mut buf = pattern(n + 16, 7);
                unsafe {
                    let p = buf.as_mut_ptr();
                    std::ptr::copy(black_box(p.add(src_off)), black_box(p.add(dst_off)), black_box(n));
                }
                moves = hash(&buf, moves);
                // write_bytes: memset
                let mut fill = vec![0x11u8; n + 16];
                unsafe {
                    std::ptr::write_bytes(
                        black_box(fill.as_mut_ptr().add(dst_off)),
                        black_box(0xa0 | src_off as u8),
                        black_box(n),
                    );
                }
                fills = hash(&fill, fills);
                count += 1;
            }
        }
    }
    println!("{count} cases");
    println!("memcpy {copies:016x}");
    println!("memmove {moves:016x}");
    println!("memset {fills:016x}");
    // what the functions return, and an empty copy from a dangling pointer
    let mut a = [1u8, 2, 3, 4];
    let b = [9u8; 4];
    a.copy_from_slice(black_box(&b));
    let empty: &[u8] = black_box(&[]);
    let mut none: [u8; 0] = [];
    none.copy_from_slice(empty);
    println!("{a:?} {none:?}");
}
