//! Integer and floating-point semantics that need more than one Rust operator:
//! division edge cases, 32-bit forms, high products, float bit handling.
//! Kept as small pure functions so that tests can check them directly.

#[inline(always)]
pub(crate) fn sext32(x: u64) -> u64 {
    x as i32 as i64 as u64
}

/// Sign-extends the low `bytes` bytes of `x`.
#[inline(always)]
pub(crate) fn sext(x: u64, bytes: usize) -> i64 {
    let shift = 64 - 8 * bytes as u32;
    ((x << shift) as i64) >> shift
}

/// Signed division: x/0 = -1, MIN/-1 = MIN.
#[inline(always)]
pub(crate) fn div(a: u64, b: u64) -> u64 {
    let (a, b) = (a as i64, b as i64);
    if b == 0 {
        u64::MAX
    } else {
        a.wrapping_div(b) as u64
    }
}

/// Unsigned division: x/0 = all ones.
#[inline(always)]
pub(crate) fn divu(a: u64, b: u64) -> u64 {
    a.checked_div(b).unwrap_or(u64::MAX)
}

/// Signed remainder (sign of the dividend): x%0 = x, MIN%-1 = 0.
#[inline(always)]
pub(crate) fn rem(a: u64, b: u64) -> u64 {
    let (a, b) = (a as i64, b as i64);
    if b == 0 {
        a as u64
    } else {
        a.wrapping_rem(b) as u64
    }
}

/// Unsigned remainder: x%0 = x.
#[inline(always)]
pub(crate) fn remu(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { a % b }
}

/// `divw`: signed 32-bit division of the low halves, result sign-extended.
#[inline(always)]
pub(crate) fn divw(a: u64, b: u64) -> u64 {
    let (a, b) = (a as i32, b as i32);
    let q = if b == 0 { -1 } else { a.wrapping_div(b) };
    q as i64 as u64
}

/// `divuw`: unsigned 32-bit division, the 32-bit quotient sign-extended.
#[inline(always)]
pub(crate) fn divuw(a: u64, b: u64) -> u64 {
    let (a, b) = (a as u32, b as u32);
    let q = a.checked_div(b).unwrap_or(u32::MAX);
    sext32(q as u64)
}

/// `remw`: signed 32-bit remainder, sign-extended.
#[inline(always)]
pub(crate) fn remw(a: u64, b: u64) -> u64 {
    let (a, b) = (a as i32, b as i32);
    let r = if b == 0 { a } else { a.wrapping_rem(b) };
    r as i64 as u64
}

/// `remuw`: unsigned 32-bit remainder, the 32-bit result sign-extended.
#[inline(always)]
pub(crate) fn remuw(a: u64, b: u64) -> u64 {
    let (a, b) = (a as u32, b as u32);
    let r = if b == 0 { a } else { a % b };
    sext32(r as u64)
}

#[inline(always)]
pub(crate) fn mulh(a: u64, b: u64) -> u64 {
    ((a as i64 as i128 * b as i64 as i128) >> 64) as u64
}

#[inline(always)]
pub(crate) fn mulhu(a: u64, b: u64) -> u64 {
    ((a as u128 * b as u128) >> 64) as u64
}

/// The f32 in the low 32 bits of a register.
#[inline(always)]
pub(crate) fn f32_of(x: u64) -> f32 {
    f32::from_bits(x as u32)
}

/// An f32 result: its bits, zero-extended.
#[inline(always)]
pub(crate) fn of_f32(x: f32) -> u64 {
    x.to_bits() as u64
}

#[inline(always)]
pub(crate) fn f64_of(x: u64) -> f64 {
    f64::from_bits(x)
}

#[inline(always)]
pub(crate) fn of_f64(x: f64) -> u64 {
    x.to_bits()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: u64 = i64::MIN as u64;
    const NEG1: u64 = u64::MAX;

    #[test]
    fn division_edge_cases() {
        assert_eq!(div(7, 0), NEG1);
        assert_eq!(div(MIN, NEG1), MIN);
        assert_eq!(div(-7i64 as u64, 2), -3i64 as u64, "rounds toward zero");
        assert_eq!(divu(7, 0), u64::MAX);
        assert_eq!(rem(7, 0), 7);
        assert_eq!(rem(MIN, NEG1), 0);
        assert_eq!(rem(-7i64 as u64, 2), -1i64 as u64, "sign of the dividend");
        assert_eq!(remu(7, 0), 7);
        assert_eq!(divw(0xdead_0000_0000_0007, 0), NEG1);
        assert_eq!(
            divw(0x8000_0000, 0xffff_ffff),
            0xffff_ffff_8000_0000,
            "i32::MIN / -1"
        );
        assert_eq!(
            divw(0x1_0000_0010, 0xffff_fffe),
            0xffff_ffff_ffff_fff8,
            "low halves only: 16 / -2"
        );
        assert_eq!(divuw(5, 0), NEG1);
        assert_eq!(divuw(0xffff_fffe, 1), 0xffff_ffff_ffff_fffe);
        assert_eq!(remw(0x8000_0000, 0xffff_ffff), 0);
        assert_eq!(
            remw(0x1234_ffff_fff9, 0),
            0xffff_ffff_ffff_fff9,
            "x%0 = x, sign-extended"
        );
        assert_eq!(remuw(0xffff_fff9, 0), 0xffff_ffff_ffff_fff9);
        assert_eq!(remuw(0xffff_fff9, 0x10), 9);
    }

    #[test]
    fn high_products_and_extensions() {
        assert_eq!(mulh(NEG1, NEG1), 0);
        assert_eq!(mulh(MIN, 2), NEG1);
        assert_eq!(mulhu(NEG1, NEG1), NEG1 - 1);
        assert_eq!(sext(0x80, 1), -128);
        assert_eq!(sext(0x7fff, 2), 0x7fff);
        assert_eq!(sext(0xffff_ffff, 4), -1);
        assert_eq!(sext(5, 8), 5);
        assert_eq!(of_f32(-0.0), 0x8000_0000);
        assert_eq!(f32_of(0xffff_ffff_3f80_0000), 1.0, "upper bits ignored");
    }
}
