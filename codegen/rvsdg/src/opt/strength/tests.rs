//! The magic numbers: Hacker's Delight's tables, and the formulas they feed checked
//! against plain division (every 8-bit divisor and dividend; every 16-bit divisor on
//! sampled dividends). The sequences built from them are checked through the
//! evaluator in `tests/strength.rs`.

use super::{UnsignedMagic, signed_magic, unsigned_magic};

/// The quotient the unsigned magic number gives, in exact arithmetic.
fn unsigned_by_magic(x: u128, mg: UnsignedMagic, w: u32) -> u128 {
    if mg.add {
        let t = (x * mg.multiplier) >> w;
        (((x - t) >> 1) + t) >> mg.post_shift
    } else {
        (((x >> mg.pre_shift) * mg.multiplier) >> w) >> mg.post_shift
    }
}

/// The quotient the signed magic number gives, in exact arithmetic.
fn signed_by_magic(x: i128, d: i128, m: u128, s: u32, w: u32) -> i128 {
    let shift = 128 - w;
    let m = ((m << shift) as i128) >> shift;
    let mut q = (x * m) >> w;
    if d > 0 && m < 0 {
        q += x;
    }
    if d < 0 && m > 0 {
        q -= x;
    }
    q >>= s;
    q + i128::from(q < 0)
}

#[test]
fn unsigned_magic_numbers_are_hackers_delights() {
    // Table 10-2 (32 bits) and its 64-bit counterpart (whose shifts for the "add"
    // form are one more: after the halving)
    let table: [(u32, u128, u128, bool, u32); 7] = [
        (32, 3, 0xAAAA_AAAB, false, 1),
        (32, 5, 0xCCCC_CCCD, false, 2),
        (32, 7, 0x2492_4925, true, 2),
        (32, 10, 0xCCCC_CCCD, false, 3),
        (64, 3, 0xAAAA_AAAA_AAAA_AAAB, false, 1),
        (64, 7, 0x2492_4924_9249_2493, true, 2),
        (64, 10, 0xCCCC_CCCC_CCCC_CCCD, false, 3),
    ];
    for (w, d, m, add, s) in table {
        let mg = unsigned_magic(d, w).unwrap();
        assert_eq!(
            (mg.multiplier, mg.add, mg.pre_shift, mg.post_shift),
            (m, add, 0, s),
            "{w}-bit / {d}"
        );
    }
    // an even divisor whose multiplier would need 33 bits: shifted first instead
    let mg = unsigned_magic(14, 32).unwrap();
    assert!(!mg.add && mg.pre_shift == 1, "{mg:?}");
}

#[test]
fn signed_magic_numbers_are_hackers_delights() {
    // Table 10-1
    let table: [(u32, i128, u128, u32); 9] = [
        (32, 3, 0x5555_5556, 0),
        (32, 5, 0x6666_6667, 1),
        (32, 6, 0x2AAA_AAAB, 0),
        (32, 7, 0x9249_2493, 2),
        (32, 10, 0x6666_6667, 2),
        (32, -5, 0x9999_9999, 1),
        (32, -7, 0x6DB6_DB6D, 2),
        (64, 3, 0x5555_5555_5555_5556, 0),
        (64, 7, 0x4924_9249_2492_4925, 1),
    ];
    for (w, d, m, s) in table {
        assert_eq!(signed_magic(d, w), Some((m, s)), "{w}-bit / {d}");
    }
}

#[test]
fn no_magic_where_none_is_needed() {
    for d in [0, 1, 2, 4, 1 << 31] {
        assert_eq!(unsigned_magic(d, 32), None, "{d}");
    }
    assert_eq!(unsigned_magic(1 << 32, 32), None, "too wide");
    assert_eq!(unsigned_magic(3, 128), None, "128 bits");
    for d in [0, 1, -1, 2, -2, 4, -(1 << 31)] {
        assert_eq!(signed_magic(d, 32), None, "{d}");
    }
}

#[test]
fn every_8_bit_division_by_magic_is_exact() {
    for d in 3u128..256 {
        if d.is_power_of_two() {
            continue;
        }
        let mg = unsigned_magic(d, 8).unwrap();
        assert!(mg.multiplier < 256, "{d}: {mg:?}");
        for x in 0..256 {
            assert_eq!(unsigned_by_magic(x, mg, 8), x / d, "{x} / {d}: {mg:?}");
        }
    }
    for d in -127i128..128 {
        if d.unsigned_abs() < 3 || d.unsigned_abs().is_power_of_two() {
            continue;
        }
        let (m, s) = signed_magic(d, 8).unwrap();
        for x in -128i128..128 {
            assert_eq!(
                signed_by_magic(x, d, m, s, 8),
                x / d,
                "{x} / {d}: {m:#x} >> {s}"
            );
        }
    }
}

#[test]
fn every_16_bit_divisor_gives_exact_quotients() {
    // the dividends where a wrong multiplier shows first: around multiples of d, and
    // the top of the range
    let mut xs: Vec<u128> = (0..64).chain(65536 - 64..65536).collect();
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..64 {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        xs.push(u128::from(s) & 0xffff);
    }
    for d in 3u128..65536 {
        if d.is_power_of_two() {
            continue;
        }
        let mg = unsigned_magic(d, 16).unwrap();
        let near = [d - 1, d, d + 1, 65535 / d * d, 65535 / d * d - 1];
        for &x in xs.iter().chain(near.iter().filter(|&&x| x < 65536)) {
            assert_eq!(unsigned_by_magic(x, mg, 16), x / d, "{x} / {d}: {mg:?}");
        }
        let ds = d as i128 - 32768; // every signed divisor
        if ds.unsigned_abs() < 3 || ds.unsigned_abs().is_power_of_two() {
            continue;
        }
        let (m, sh) = signed_magic(ds, 16).unwrap();
        for &x in xs.iter().chain(near.iter()) {
            let x = (x as i128 & 0xffff) - 32768;
            assert_eq!(signed_by_magic(x, ds, m, sh, 16), x / ds, "{x} / {ds}");
        }
    }
}

#[test]
fn wide_divisors_give_exact_quotients_at_the_edges() {
    for w in [32u32, 64] {
        let top = (1u128 << w) - 1;
        for d in [
            3u128,
            5,
            6,
            7,
            10,
            11,
            12,
            14,
            25,
            641,
            1000,
            6_700_417,
            top / 3,
            top / 2 - 1,
        ] {
            let mg = unsigned_magic(d, w).unwrap();
            for x in [
                0,
                1,
                d - 1,
                d,
                d + 1,
                top,
                top - 1,
                top / d * d,
                top / d * d - 1,
            ] {
                assert_eq!(unsigned_by_magic(x, mg, w), x / d, "{w}: {x} / {d}");
            }
            let half = 1i128 << (w - 1);
            for ds in [d as i128, -(d as i128)] {
                if ds.unsigned_abs() >= half as u128 {
                    continue;
                }
                let (m, s) = signed_magic(ds, w).unwrap();
                let xs = [
                    0,
                    1,
                    -1,
                    half - 1,
                    -half,
                    -half + 1,
                    ds,
                    ds - 1,
                    -ds,
                    7 * ds + 3,
                ];
                for x in xs.into_iter().filter(|x| (-half..half).contains(x)) {
                    assert_eq!(signed_by_magic(x, ds, m, s, w), x / ds, "{w}: {x} / {ds}");
                }
            }
        }
    }
}
