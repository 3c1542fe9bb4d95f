//! What is known of an integer value from the operations that make it, without
//! running them: the unsigned range it stays in, whether its low bits make it
//! nonzero. `rvsdg-fold` decides compares by it, divisions whose divisor it proves
//! nonzero need no I/O state (`rewrite::division_cannot_trap`), and the memory
//! state splitting keeps an indexed access it proves within its slot on the slot's
//! own state.

use vliw_ir::Opcode;

use super::rewrite::{const_of, producer_op, vty};
use crate::graph::{Node, NodeKind, Origin};
use crate::ops::{Op, Rvsdg};

/// The unsigned values `o` may take, `[min, max]`, when known better than the whole
/// type: a constant; from the operation that makes it (`band` with a constant,
/// `urem` by one, `ushr` by one, extensions of narrower values, `iadd` of a constant,
/// `ishl` by one and `imul` by one that cannot wrap); the output of a γ as the union
/// of what its arms give (but `undef`, which may be any of those), and an argument of
/// an arm as what enters it (a class that a chain of `if`s picks, as MIR leaves
/// `counts[class]`'s bounds check after it). At most `depth` operations back.
pub(crate) fn unsigned_range(g: &Rvsdg, o: Origin, depth: u32) -> Option<(u128, u128)> {
    use Opcode::*;
    let ty = vty(g, o);
    if let Some(c) = const_of(g, o) {
        return Some((c, c));
    }
    let below = |x: Origin| {
        depth
            .checked_sub(1)
            .and_then(|d| unsigned_range(g, x, d))
            .unwrap_or((0, vty(g, x).mask()))
    };
    let p = match o {
        Origin::Out(p, k) => {
            if let NodeKind::Gamma { .. } = g.kind(p) {
                return gamma_range(g, p, k, depth)?.filter(|&(lo, hi)| lo > 0 || hi < ty.mask());
            }
            p
        }
        Origin::Arg(r, i) => {
            let owner = g.owner(r)?;
            if !matches!(g.kind(owner), NodeKind::Gamma { .. }) {
                return None;
            }
            // the γ's input 0 is its predicate
            let d = depth.checked_sub(1)?;
            return unsigned_range(g, g.input(owner, i as usize + 1), d);
        }
    };
    let inputs = g.inputs(p);
    let opcode = match g.op(p)? {
        Op::Inst(data) => data.opcode(),
        Op::SafeDiv(div) => *div,
        _ => return None,
    };
    let (lo, hi) = match opcode {
        Band => {
            let m = const_of(g, inputs[1])?;
            (0, m.min(below(inputs[0]).1))
        }
        Uextend => below(inputs[0]),
        Ushr => {
            let k = const_of(g, inputs[1])? % ty.bits() as u128;
            let (lo, hi) = below(inputs[0]);
            (lo >> k, hi >> k)
        }
        // (a safe division's divisor is not zero; a constant one bounds the remainder)
        Urem if matches!(g.op(p), Some(Op::SafeDiv(_))) => {
            let c = const_of(g, inputs[1])?;
            let (lo, hi) = below(inputs[0]);
            if hi < c {
                (lo, hi)
            } else {
                (0, c.checked_sub(1)?)
            }
        }
        // `x << k` and `x * m` where no value of `x` overflows (a scaled index)
        Ishl => {
            let k = const_of(g, inputs[1])? % ty.bits() as u128;
            let (lo, hi) = below(inputs[0]);
            if hi.checked_shl(k as u32)? > ty.mask() {
                return None;
            }
            (lo << k, hi << k)
        }
        Imul => {
            let m = const_of(g, inputs[1])?;
            let (lo, hi) = below(inputs[0]);
            if hi.checked_mul(m)? > ty.mask() {
                return None;
            }
            (lo * m, hi * m)
        }
        Iadd => {
            let c = const_of(g, inputs[1])?;
            let (lo, hi) = below(inputs[0]);
            // only where no value of the operand wraps
            if hi.checked_add(c)? > ty.mask() {
                return None;
            }
            (lo + c, hi + c)
        }
        _ => return None,
    };
    (lo > 0 || hi < ty.mask()).then_some((lo, hi))
}

/// The union of the unsigned ranges that the arms of γ `p` give its output `k`:
/// `None` when one is unknown, `Some(None)` when every arm gives `undef` (a poison
/// placeholder: the arm's path does not read the value, which may then be any of the
/// others), directly or through a nested γ.
fn gamma_range(g: &Rvsdg, p: Node, k: u32, depth: u32) -> Option<Option<(u128, u128)>> {
    let d = depth.checked_sub(1)?;
    let mut range: Option<(u128, u128)> = None;
    for &arm in g.kind(p).subregions() {
        let r = g.results(arm)[k as usize];
        if is_undef(g, r) {
            continue;
        }
        let arm_range = match r {
            Origin::Out(q, j) if matches!(g.kind(q), NodeKind::Gamma { .. }) => {
                match gamma_range(g, q, j, d)? {
                    Some(x) => x,
                    None => continue,
                }
            }
            _ => unsigned_range(g, r, d)?,
        };
        let (lo, hi) = arm_range;
        range = Some(range.map_or((lo, hi), |(l, h)| (l.min(lo), h.max(hi))));
    }
    Some(range)
}

/// Whether `o` is `x + c` or `x | c` with `c` not zero in the low bits of `x` that
/// are known zero ([`low_zero_bits`]): those bits of the value are `c`'s, so it is
/// not zero (`2 * x + 1`, `(x << 3) | 4`).
pub(crate) fn low_bits_nonzero(g: &Rvsdg, o: Origin) -> bool {
    let Some((p, data)) = producer_op(g, o) else {
        return false;
    };
    let (Opcode::Iadd | Opcode::Bor) = data.opcode() else {
        return false;
    };
    let (x, c) = (g.input(p, 0), g.input(p, 1));
    let Some(c) = const_of(g, c) else {
        return false;
    };
    let low = match low_zero_bits(g, x, 8) {
        k if k >= 128 => u128::MAX,
        k => (1u128 << k) - 1,
    };
    c & low != 0
}

/// Whether `o` is an `undef`.
pub(crate) fn is_undef(g: &Rvsdg, o: Origin) -> bool {
    g.producer(o)
        .and_then(|p| g.op(p))
        .is_some_and(|op| matches!(op, Op::Inst(d) if d.opcode() == Opcode::Undef))
}

/// How many low bits of integer `o` are known to be zero: a constant's trailing
/// zeros, `x << k` and `x * m` adding `k` and `m`'s, `x & c` the more of the two, a
/// sum the fewer of its two operands', extensions their operand's. At most `depth`
/// operations back.
pub(crate) fn low_zero_bits(g: &Rvsdg, o: Origin, depth: u32) -> u32 {
    use Opcode::*;
    let bits = vty(g, o).bits();
    if let Some(c) = const_of(g, o) {
        return ((c & vty(g, o).mask()).trailing_zeros()).min(bits);
    }
    let Some(d) = depth.checked_sub(1) else {
        return 0;
    };
    let Some((n, data)) = producer_op(g, o) else {
        return 0;
    };
    let (a, b) = match g.inputs(n) {
        [a, b, ..] => (*a, Some(*b)),
        [a] => (*a, None),
        [] => return 0,
    };
    let zeros = match (data.opcode(), b) {
        (Ishl, Some(b)) => const_of(g, b).map_or(0, |k| {
            let k = (k % bits as u128) as u32;
            low_zero_bits(g, a, d) + k
        }),
        (Imul, Some(b)) => low_zero_bits(g, a, d) + low_zero_bits(g, b, d),
        (Band, Some(b)) => low_zero_bits(g, a, d).max(low_zero_bits(g, b, d)),
        (Iadd | Isub | Bor | Bxor, Some(b)) => low_zero_bits(g, a, d).min(low_zero_bits(g, b, d)),
        (Uextend | Sextend, None) => low_zero_bits(g, a, d),
        _ => 0,
    };
    zeros.min(bits)
}
