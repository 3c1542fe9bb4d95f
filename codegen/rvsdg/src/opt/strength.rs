//! Strength reduction: multiplications and divisions by constants as cheaper
//! operations. On the machine (`docs/isa.md` §8), a multiply (`mul`, `mulh`,
//! `mulhu`) takes 3 cycles, a division or remainder 20 and, in the IR's lowering, a
//! check of the divisor before it; shifts and logic take 1.
//!
//! - `imul x, 2^k` → `ishl x, k` (every width). Multiplications by `2^k ± 1` stay
//!   multiplications: a shift and an add would save one cycle of latency for two ALU
//!   operations instead of one multiply, on a machine with two multiply units.
//! - A division or remainder whose divisor is a constant that cannot make it trap
//!   (`Op::SafeDiv`, or one that still has the I/O state, which then goes around it):
//!   - unsigned by `2^k`: `ushr x, k`, `band x, 2^k - 1` (every width);
//!   - unsigned by `d ≥ 2^(w-1)`: the quotient is `x ≥ d` (0 or 1), the remainder
//!     `x ≥ d ? x - d : x`;
//!   - signed by `±2^k`: the dividend biased by `2^k - 1` when negative (so that the
//!     arithmetic shift rounds toward zero, as `sdiv` does), shifted, negated for a
//!     negative divisor; the remainder is the dividend minus the biased dividend
//!     with its low `k` bits cleared (every width);
//!   - any other divisor, for 8, 16, 32 and 64 bits: multiplication by a "magic"
//!     number, the high half of the product (`umulhi`, `smulhi`) shifted (Granlund
//!     and Montgomery, PLDI 1994; Warren, *Hacker's Delight*, 2nd ed., §10-3 to
//!     §10-10): for unsigned, `umulhi x, m >> s`, or when `m` needs `w + 1` bits
//!     and `d` is even, the dividend first shifted right by the zeros of `d`, else
//!     the "add" form `(((x - t) >> 1) + t) >> (s - 1)`; for signed, `smulhi x, m`,
//!     `± x` when the signs of `m` and `d` differ, `>> s` arithmetic, plus its sign
//!     bit (rounding toward zero); the remainder is `x - q * d`, with the quotient
//!     of a division of the same operands when there is one. `i128` divisions
//!     other than by powers of two are left alone (no 128-bit high multiply on the
//!     machine).
//!
//! - A bit's mask applied to a constant and combined: `a ^ (-(x & 1) & c)` (and `|`,
//!   `+`; `-y` as `ineg y` or `0 - y`) → `select(x & 1 != 0, a ^ c, a)`. The mask
//!   costs a negate and an `and` on the path from `x` (four operations deep to the
//!   result, as CRC and LFSR steps write it), the select one compare (three deep),
//!   and `a ^ c` runs beside the compare.
//!
//! Divisions by 1 and -1 are the fold pass's (`fold.rs`); `i1` divisions too.
//!
//! Counters: `strength.multiplications`, `strength.divisions`, `strength.remainders`,
//! `strength.bit-selects`.

use rustc_hash::FxHashMap;
use vliw_ir::{InstructionData, IntCC, Opcode, Type};

use super::rewrite::{Rewriter, const_of, division_cannot_trap, producer_op, sext, vty};
use crate::graph::{Node, Origin};
use crate::ops::{Op, Rvsdg};
use crate::report::Report;

/// Reduces the multiplications and divisions by constants of every λ of `g`.
pub fn strength_reduction(g: &mut Rvsdg, report: &mut Report) {
    let (mut muls, mut divs, mut rems, mut selects) = (0, 0, 0, 0);
    let mut rw = Rewriter::new(g);
    let mut quotients = Quotients::default();
    for l in rw.g.lambdas() {
        let body = rw.g.lambda_body(l);
        for r in rw.g.regions_below(body) {
            for n in rw.g.topological_order(r) {
                if !rw.g.is_alive(n) {
                    continue;
                }
                let Some(op) = rw.g.op(n).cloned() else {
                    continue;
                };
                match reduce(&mut rw, &mut quotients, n, &op) {
                    Some(Opcode::Imul) => muls += 1,
                    Some(Opcode::Udiv | Opcode::Sdiv) => divs += 1,
                    Some(Opcode::Bxor | Opcode::Bor | Opcode::Iadd) => selects += 1,
                    Some(_) => rems += 1,
                    None => {}
                }
                // one pass is enough: nothing it makes can be reduced further
                rw.take_touched();
            }
        }
    }
    report.count("strength.multiplications", muls);
    report.count("strength.divisions", divs);
    report.count("strength.remainders", rems);
    report.count("strength.bit-selects", selects);
}

/// Reduces node `n`; the opcode it reduced.
fn reduce(rw: &mut Rewriter, quotients: &mut Quotients, n: Node, op: &Op) -> Option<Opcode> {
    let opcode = match op {
        Op::SafeDiv(opcode) => *opcode,
        Op::Inst(InstructionData::Binary { opcode, .. }) => *opcode,
        _ => return None,
    };
    let g = &*rw.g;
    // (the verifier's shape: a value and its states)
    let states = op.states().count();
    if g.inputs(n).len() != 2 + states || g.num_outputs(n) != 1 + states {
        return None;
    }
    let (a, b) = (g.input(n, 0), g.input(n, 1));
    let ty = vty(g, a);
    if !ty.is_int() || ty == Type::I1 || !g.is_used(n) {
        return None;
    }
    let v = match opcode {
        Opcode::Imul if op.is_pure() => {
            let (x, c) = match (const_of(g, a), const_of(g, b)) {
                (_, Some(c)) => (a, c),
                (Some(c), None) => (b, c),
                (None, None) => return None,
            };
            if c < 2 || !c.is_power_of_two() {
                return None;
            }
            let k = rw.int(n, ty, c.trailing_zeros() as i128);
            rw.binary(n, Opcode::Ishl, x, k)
        }
        Opcode::Udiv | Opcode::Urem | Opcode::Sdiv | Opcode::Srem => {
            if !division_cannot_trap(g, opcode, a, b) {
                return None;
            }
            let d = const_of(g, b)?;
            divide(rw, quotients, n, opcode, a, d, ty)?
        }
        Opcode::Bxor | Opcode::Bor | Opcode::Iadd if op.is_pure() => {
            let (other, bit, c) = [(a, b), (b, a)]
                .into_iter()
                .find_map(|(other, m)| bit_mask(g, m).map(|(bit, c)| (other, bit, c)))?;
            let zero = rw.int(n, ty, 0);
            let set = rw.icmp(n, IntCC::Ne, bit, zero);
            let c = rw.constant(n, crate::ops::Ty::Val(ty), c);
            let with = rw.binary(n, opcode, other, c);
            rw.select(n, set, with, other)
        }
        _ => return None,
    };
    rw.replace(Origin::Out(n, 0), v);
    // a division that still had the I/O state: the chain goes around it
    rw.bypass_state(n);
    rw.remove(n);
    Some(opcode)
}

/// `(y, c)` when `m` is `-y & c` with `y = x & 1` and `c` a constant (`-y` as `ineg y`
/// or `0 - y`; constants are on the right once folded).
fn bit_mask(g: &Rvsdg, m: Origin) -> Option<(Origin, u128)> {
    let binary = |o: Origin| match producer_op(g, o)? {
        (n, InstructionData::Binary { opcode, .. }) => {
            Some((*opcode, g.input(n, 0), g.input(n, 1)))
        }
        _ => None,
    };
    let (Opcode::Band, neg, c) = binary(m)? else {
        return None;
    };
    let c = const_of(g, c)?;
    let y = match producer_op(g, neg)? {
        (
            n,
            InstructionData::Unary {
                opcode: Opcode::Ineg,
                ..
            },
        ) => g.input(n, 0),
        _ => match binary(neg)? {
            (Opcode::Isub, zero, y) if const_of(g, zero) == Some(0) => y,
            _ => return None,
        },
    };
    let (Opcode::Band, _, one) = binary(y)? else {
        return None;
    };
    (const_of(g, one) == Some(1)).then_some((y, c))
}

/// The sequence for `opcode x, d` (`d` a constant that cannot trap, of type `ty`).
fn divide(
    rw: &mut Rewriter,
    quotients: &mut Quotients,
    n: Node,
    opcode: Opcode,
    x: Origin,
    d: u128,
    ty: Type,
) -> Option<Origin> {
    let rem = matches!(opcode, Opcode::Urem | Opcode::Srem);
    let signed = matches!(opcode, Opcode::Sdiv | Opcode::Srem);
    // the quotient by a magic number of the same dividend and divisor, made for the
    // division or the remainder met before
    let q = match quotients.get(&(x, d, signed)) {
        Some(&q) if rw.g.producer(q).is_some_and(|p| rw.g.is_alive(p)) => Quotient::Of(q),
        _ if signed => signed_quotient(rw, n, x, d, ty, rem)?,
        _ => unsigned_quotient(rw, n, x, d, ty, rem)?,
    };
    if let Quotient::Of(q) = q {
        quotients.insert((x, d, signed), q);
    }
    Some(match q {
        Quotient::Done(v) => v,
        Quotient::Of(q) if !rem => q,
        // x - q * d
        Quotient::Of(q) => {
            let dv = rw.int(n, ty, d as i128);
            let p = rw.binary(n, Opcode::Imul, q, dv);
            rw.binary(n, Opcode::Isub, x, p)
        }
    })
}

/// The quotients made by magic numbers, by dividend, divisor and signedness.
type Quotients = FxHashMap<(Origin, u128, bool), Origin>;

/// What a quotient sequence gives: the quotient (the result of a division; a
/// remainder is `x - q * d`), or directly the result asked for.
enum Quotient {
    Of(Origin),
    Done(Origin),
}

fn unsigned_quotient(
    rw: &mut Rewriter,
    n: Node,
    x: Origin,
    d: u128,
    ty: Type,
    rem: bool,
) -> Option<Quotient> {
    let w = ty.bits();
    if d < 2 {
        return None; // by 1: the fold pass's
    }
    if d.is_power_of_two() {
        return Some(Quotient::Done(if rem {
            let mask = rw.int(n, ty, (d - 1) as i128);
            rw.binary(n, Opcode::Band, x, mask)
        } else {
            let k = rw.int(n, ty, d.trailing_zeros() as i128);
            rw.binary(n, Opcode::Ushr, x, k)
        }));
    }
    if w > 64 {
        return None;
    }
    let dv = rw.int(n, ty, d as i128);
    if d >> (w - 1) != 0 {
        // the quotient is 0 or 1
        let big = rw.icmp(n, IntCC::Uge, x, dv);
        return Some(Quotient::Done(if rem {
            let less = rw.binary(n, Opcode::Isub, x, dv);
            rw.select(n, big, less, x)
        } else {
            rw.unary(n, Opcode::Uextend, big, ty)
        }));
    }
    let magic = unsigned_magic(d, w)?;
    let mut y = x;
    if magic.pre_shift > 0 {
        let k = rw.int(n, ty, magic.pre_shift as i128);
        y = rw.binary(n, Opcode::Ushr, x, k);
    }
    let m = rw.int(n, ty, magic.multiplier as i128);
    let mut q = rw.binary(n, Opcode::Umulhi, y, m);
    if magic.add {
        // (x - t) / 2 + t = (x + t) / 2 without overflow (t ≤ x)
        let diff = rw.binary(n, Opcode::Isub, x, q);
        let one = rw.int(n, ty, 1);
        let half = rw.binary(n, Opcode::Ushr, diff, one);
        q = rw.binary(n, Opcode::Iadd, half, q);
    }
    if magic.post_shift > 0 {
        let s = rw.int(n, ty, magic.post_shift as i128);
        q = rw.binary(n, Opcode::Ushr, q, s);
    }
    Some(Quotient::Of(q))
}

fn signed_quotient(
    rw: &mut Rewriter,
    n: Node,
    x: Origin,
    d: u128,
    ty: Type,
    rem: bool,
) -> Option<Quotient> {
    let w = ty.bits();
    let ds = sext(ty, d);
    let ad = ds.unsigned_abs();
    if ad < 2 {
        return None; // by 1 and -1: the fold pass's
    }
    if ad.is_power_of_two() {
        let k = ad.trailing_zeros();
        // the bias: 2^k - 1 for a negative dividend, else 0
        let sign = if k == 1 {
            x
        } else {
            let top = rw.int(n, ty, w as i128 - 1);
            rw.binary(n, Opcode::Sshr, x, top)
        };
        let down = rw.int(n, ty, (w - k) as i128);
        let bias = rw.binary(n, Opcode::Ushr, sign, down);
        let t = rw.binary(n, Opcode::Iadd, x, bias);
        return Some(Quotient::Done(if rem {
            // -2^k: every bit from k up
            let mask = rw.int(n, ty, (1i128 << k).wrapping_neg());
            let cleared = rw.binary(n, Opcode::Band, t, mask);
            rw.binary(n, Opcode::Isub, x, cleared)
        } else {
            let kv = rw.int(n, ty, k as i128);
            let q = rw.binary(n, Opcode::Sshr, t, kv);
            if ds < 0 {
                rw.unary(n, Opcode::Ineg, q, ty)
            } else {
                q
            }
        }));
    }
    let (magic, shift) = signed_magic(ds, w)?;
    let m = rw.int(n, ty, magic as i128);
    let mut q = rw.binary(n, Opcode::Smulhi, x, m);
    let m_negative = sext(ty, magic) < 0;
    if ds > 0 && m_negative {
        q = rw.binary(n, Opcode::Iadd, q, x);
    } else if ds < 0 && !m_negative {
        q = rw.binary(n, Opcode::Isub, q, x);
    }
    if shift > 0 {
        let s = rw.int(n, ty, shift as i128);
        q = rw.binary(n, Opcode::Sshr, q, s);
    }
    // add 1 to a negative quotient: rounding toward zero
    let top = rw.int(n, ty, w as i128 - 1);
    let sign = rw.binary(n, Opcode::Ushr, q, top);
    q = rw.binary(n, Opcode::Iadd, q, sign);
    Some(Quotient::Of(q))
}

/// The magic number of an unsigned division: the quotient is
/// `umulhi(x >> pre_shift, multiplier) >> post_shift`, or with `add`,
/// `(((x - t) >> 1) + t) >> post_shift` where `t = umulhi(x, multiplier)`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct UnsignedMagic {
    pub multiplier: u128,
    pub add: bool,
    pub pre_shift: u32,
    pub post_shift: u32,
}

/// The magic number for `w`-bit unsigned division by `d` (not a power of two, below
/// `2^w`; `w` at most 64).
pub(crate) fn unsigned_magic(d: u128, w: u32) -> Option<UnsignedMagic> {
    if w > 64 || d < 3 || d.is_power_of_two() || d >> w != 0 {
        return None;
    }
    let (m, p) = magic_search(d, w, w)?;
    if m >> w == 0 {
        return Some(UnsignedMagic {
            multiplier: m,
            add: false,
            pre_shift: 0,
            post_shift: p - w,
        });
    }
    // an even divisor: dividing the dividend by its factor 2^z first leaves fewer
    // bits to be exact on, and the multiplier fits
    let z = d.trailing_zeros();
    if z > 0
        && let Some((m, p)) = magic_search(d >> z, w - z, w)
        && m >> w == 0
    {
        return Some(UnsignedMagic {
            multiplier: m,
            add: false,
            pre_shift: z,
            post_shift: p - w,
        });
    }
    // m has w + 1 bits (p > w then): its top bit is added separately
    Some(UnsignedMagic {
        multiplier: m - (1 << w),
        add: true,
        pre_shift: 0,
        post_shift: p - w - 1,
    })
}

/// The smallest `p ≥ w` for which `m = ⌈2^p / d⌉` gives `⌊x·m / 2^p⌋ = ⌊x / d⌋` for
/// every `x < 2^bits`, and that `m` (Hacker's Delight §10-9, (27)): the condition is
/// `2^p > nc·(m·d − 2^p)`, `nc` the largest such `x` with `x mod d = d − 1`. Found by
/// long division of `2^p` by `d`, one bit of `p` at a time (no wider arithmetic than
/// `u128`: `p ≤ w + ⌈log2 d⌉` keeps `m` below `2^(w+1)`).
fn magic_search(d: u128, bits: u32, w: u32) -> Option<(u128, u32)> {
    let nc = (1u128 << bits) - 1 - (1u128 << bits) % d;
    // q = ⌊2^p / d⌋, r = 2^p mod d, from p = 0 (d ≥ 2)
    let (mut q, mut r) = (0u128, 1u128);
    for p in 0..=2 * w {
        if p >= w {
            let e = if r == 0 { 0 } else { d - r };
            let m = q + u128::from(r != 0);
            if p >= 128 || (1u128 << p) > nc.checked_mul(e)? {
                return Some((m, p));
            }
        }
        q = q.checked_mul(2)?;
        r *= 2;
        if r >= d {
            q += 1;
            r -= d;
        }
    }
    None
}

/// The magic number (its `w` bits) and shift of a `w`-bit signed division by `d`
/// (`3 ≤ |d| < 2^(w-1)`, not a power of two; `w` at most 64): Hacker's Delight
/// §10-6, Figure 10-1, in exact arithmetic.
pub(crate) fn signed_magic(d: i128, w: u32) -> Option<(u128, u32)> {
    let ad = d.unsigned_abs();
    if !(2..=64).contains(&w) || ad < 3 || ad.is_power_of_two() || ad >> (w - 1) != 0 {
        return None;
    }
    let two = 1u128 << (w - 1);
    let t = two + u128::from(d < 0);
    let anc = t - 1 - t % ad; // |nc|
    let mut p = w - 1;
    let (mut q1, mut r1) = (two / anc, two % anc); // 2^p / |nc|
    let (mut q2, mut r2) = (two / ad, two % ad); // 2^p / |d|
    loop {
        p += 1;
        q1 *= 2;
        r1 *= 2;
        if r1 >= anc {
            q1 += 1;
            r1 -= anc;
        }
        q2 *= 2;
        r2 *= 2;
        if r2 >= ad {
            q2 += 1;
            r2 -= ad;
        }
        let delta = ad - r2;
        if !(q1 < delta || (q1 == delta && r1 == 0)) {
            break;
        }
        if p >= 2 * w {
            return None;
        }
    }
    let mask = (1u128 << w) - 1;
    let m = (q2 + 1) & mask;
    let m = if d < 0 { m.wrapping_neg() & mask } else { m };
    Some((m, p - w))
}

#[cfg(test)]
mod tests;
