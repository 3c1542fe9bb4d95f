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
/// `urem` by one, `ushr` by one, extensions of narrower values, `iadd` or `isub` of a
/// constant, `ishl` by one and `imul` by one that cannot wrap, `select`s of two); the
/// output of a γ as the union of what its arms give (but `undef`, which may be any
/// of those), and an argument of an arm as what enters it (a class that a chain of
/// `if`s picks, as MIR leaves `counts[class]`'s bounds check after it), narrowed by
/// the γ's compare of it with a constant (`j > 0` in the arm where it holds); a loop
/// variable of a θ (and what the θ gives of it) as a range its first value is in and
/// its next values stay in when it is (`j` counting down from 4 to 0 while `j > 0`:
/// `[0, 4]`, `med5`'s insertion sort). At most `depth` operations back.
pub(crate) fn unsigned_range(g: &Rvsdg, o: Origin, depth: u32) -> Option<(u128, u128)> {
    range(g, o, depth, &mut Vec::new())
}

/// How deep a loop variable's next value is looked at (`loop_variable_range`).
const RANGE_DEPTH: u32 = 10;

/// What [`unsigned_range`] knows with the θ arguments of `assumed` in their ranges
/// (the loop variables whose range is being checked).
fn range(
    g: &Rvsdg,
    o: Origin,
    depth: u32,
    assumed: &mut Vec<(Origin, (u128, u128))>,
) -> Option<(u128, u128)> {
    use Opcode::*;
    let ty = vty(g, o);
    if let Some(c) = const_of(g, o) {
        return Some((c, c));
    }
    if let Some(&(_, r)) = assumed.iter().find(|(a, _)| *a == o) {
        return Some(r);
    }
    let p = match o {
        Origin::Out(p, k) => match g.kind(p) {
            NodeKind::Gamma { .. } => {
                return gamma_range(g, p, k, depth, assumed)?
                    .filter(|&(lo, hi)| lo > 0 || hi < ty.mask());
            }
            // what the last iteration gives (the variable's first value may be an
            // `undef` nothing reads)
            NodeKind::Theta { .. } => {
                let next = g.results(g.theta_body(p))[1 + k as usize];
                return range(g, next, depth.checked_sub(1)?, assumed);
            }
            _ => p,
        },
        Origin::Arg(r, i) => {
            let owner = g.owner(r)?;
            let d = depth.checked_sub(1)?;
            return match g.kind(owner) {
                NodeKind::Gamma { .. } => arm_argument_range(g, owner, r, i, d, assumed),
                NodeKind::Theta { .. } => loop_variable_range(g, owner, i, d, assumed),
                _ => None,
            };
        }
    };
    let below = |x: Origin, assumed: &mut Vec<(Origin, (u128, u128))>| {
        depth
            .checked_sub(1)
            .and_then(|d| range(g, x, d, assumed))
            .unwrap_or((0, vty(g, x).mask()))
    };
    let inputs = g.inputs(p).to_vec();
    let opcode = match g.op(p)? {
        Op::Inst(data) => data.opcode(),
        Op::SafeDiv(div) => *div,
        _ => return None,
    };
    let (lo, hi) = match opcode {
        Band => {
            let m = const_of(g, inputs[1])?;
            (0, m.min(below(inputs[0], assumed).1))
        }
        Uextend => below(inputs[0], assumed),
        Ushr => {
            let k = const_of(g, inputs[1])? % ty.bits() as u128;
            let (lo, hi) = below(inputs[0], assumed);
            (lo >> k, hi >> k)
        }
        // (a safe division's divisor is not zero; a constant one bounds the remainder)
        Urem if matches!(g.op(p), Some(Op::SafeDiv(_))) => {
            let c = const_of(g, inputs[1])?;
            let (lo, hi) = below(inputs[0], assumed);
            if hi < c {
                (lo, hi)
            } else {
                (0, c.checked_sub(1)?)
            }
        }
        // `x << k` and `x * m` where no value of `x` overflows (a scaled index)
        Ishl => {
            let k = const_of(g, inputs[1])? % ty.bits() as u128;
            let (lo, hi) = below(inputs[0], assumed);
            if hi.checked_shl(k as u32)? > ty.mask() {
                return None;
            }
            (lo << k, hi << k)
        }
        Imul => {
            let m = const_of(g, inputs[1])?;
            let (lo, hi) = below(inputs[0], assumed);
            if hi.checked_mul(m)? > ty.mask() {
                return None;
            }
            (lo * m, hi * m)
        }
        Iadd | Isub => {
            let c = const_of(g, inputs[1])? & ty.mask();
            let (lo, hi) = below(inputs[0], assumed);
            // `x + c` as `x - (2^n - c)` when that is the smaller step (`j - 1`)
            let (add, sub) = match opcode {
                Iadd if c > ty.mask() / 2 => (0, ty.mask() - c + 1),
                Iadd => (c, 0),
                _ => (0, c),
            };
            // only where no value of the operand wraps
            if hi.checked_add(add)? > ty.mask() || lo < sub {
                return None;
            }
            (lo + add - sub, hi + add - sub)
        }
        Select => {
            let (a, b) = (below(inputs[1], assumed), below(inputs[2], assumed));
            (a.0.min(b.0), a.1.max(b.1))
        }
        _ => return None,
    };
    (lo > 0 || hi < ty.mask()).then_some((lo, hi))
}

/// The range of argument `i` of arm `arm` of γ `gamma`: what enters it, narrowed by
/// the γ's predicate when that is a two-way `match` of a compare of the entering
/// value (or of `x` when it is `x ± c`) with a constant.
fn arm_argument_range(
    g: &Rvsdg,
    gamma: Node,
    arm: crate::graph::Region,
    i: u32,
    depth: u32,
    assumed: &mut Vec<(Origin, (u128, u128))>,
) -> Option<(u128, u128)> {
    let entering = g.input(gamma, i as usize + 1);
    let whole = range(g, entering, depth, assumed);
    let narrowed = (|| {
        let m = g.producer(g.input(gamma, 0))?;
        let [on_false, on_true] = super::unroll::match2_alternatives(g, m)?;
        if on_false == on_true {
            return None;
        }
        let holds = g.kind(gamma).subregions().iter().position(|&a| a == arm)? as u32 == on_true;
        let (c, data) = producer_op(g, g.input(m, 0))?;
        let vliw_ir::InstructionData::IntCompare { cond, .. } = data else {
            return None;
        };
        let (a, b) = (g.input(c, 0), g.input(c, 1));
        // the compared value `x cc k`, the constant on the right
        let (x, cc, k) = match (const_of(g, a), const_of(g, b)) {
            (None, Some(k)) => (a, *cond, k),
            (Some(k), None) => (b, cond.swap_args(), k),
            _ => return None,
        };
        let cc = if holds { cc } else { cc.inverse() };
        let ty = vty(g, x);
        let (lo, hi) = range(g, x, depth, assumed).unwrap_or((0, ty.mask()));
        use vliw_ir::IntCC::*;
        let (lo, hi) = match cc {
            Ult => (lo, hi.min(k.checked_sub(1)?)),
            Ule => (lo, hi.min(k)),
            Ugt => (lo.max(k.checked_add(1)?), hi),
            Uge => (lo.max(k), hi),
            Eq => (lo.max(k), hi.min(k)),
            Ne if k == lo => (lo.checked_add(1)?, hi),
            Ne if k == hi => (lo, hi.checked_sub(1)?),
            _ => return None,
        };
        if lo > hi {
            return None; // the arm never runs
        }
        if x == entering {
            return Some((lo, hi));
        }
        // `x ± c`, without wrapping for any `x` of the narrowed range
        let (q, d) = producer_op(g, entering)?;
        if !matches!(d.opcode(), Opcode::Iadd | Opcode::Isub) || g.input(q, 0) != x {
            return None;
        }
        let c = const_of(g, g.input(q, 1))? & ty.mask();
        let step = match d.opcode() {
            Opcode::Iadd if c > ty.mask() / 2 => -((ty.mask() - c + 1) as i128),
            Opcode::Iadd => c as i128,
            Opcode::Isub => -(c as i128),
            _ => return None,
        };
        let (lo, hi) = (lo as i128 + step, hi as i128 + step);
        (lo >= 0 && hi <= ty.mask() as i128).then_some((lo as u128, hi as u128))
    })();
    narrowed.or(whole)
}

/// The range of loop variable `i` of θ `theta`: one that its first value is in and
/// that its next value stays in when the variable is in it: the first value's range,
/// or that range down to 0 (a count down) or up to the type's end (a count up).
fn loop_variable_range(
    g: &Rvsdg,
    theta: Node,
    i: u32,
    depth: u32,
    assumed: &mut Vec<(Origin, (u128, u128))>,
) -> Option<(u128, u128)> {
    let body = g.theta_body(theta);
    let arg = Origin::Arg(body, i);
    let next = g.results(body)[1 + i as usize];
    if next == arg {
        return range(g, g.input(theta, i as usize), depth, assumed);
    }
    let (lo, hi) = range(g, g.input(theta, i as usize), depth, assumed)?;
    let mask = vty(g, arg).mask();
    // the next value is some way into the body: a fresh budget for it, once (a loop
    // variable of an inner loop met there is then looked at within what is left)
    let budget = if assumed.is_empty() {
        RANGE_DEPTH
    } else {
        depth
    };
    for candidate in [(lo, hi), (0, hi), (lo, mask)] {
        if candidate == (0, mask) {
            continue;
        }
        assumed.push((arg, candidate));
        let stays = range(g, next, budget, assumed)
            .is_some_and(|(a, b)| candidate.0 <= a && b <= candidate.1);
        assumed.pop();
        if stays {
            return Some(candidate);
        }
    }
    None
}

/// The union of the unsigned ranges that the arms of γ `p` give its output `k`:
/// `None` when one is unknown, `Some(None)` when every arm gives `undef` (a poison
/// placeholder: the arm's path does not read the value, which may then be any of the
/// others), directly or through a nested γ.
fn gamma_range(
    g: &Rvsdg,
    p: Node,
    k: u32,
    depth: u32,
    assumed: &mut Vec<(Origin, (u128, u128))>,
) -> Option<Option<(u128, u128)>> {
    let d = depth.checked_sub(1)?;
    let mut union: Option<(u128, u128)> = None;
    for &arm in g.kind(p).subregions() {
        let r = g.results(arm)[k as usize];
        // (an `undef` that enters the arm is one too)
        let entering = match r {
            Origin::Arg(_, i) => g.input(p, i as usize + 1),
            Origin::Out(..) => r,
        };
        if is_undef(g, entering) {
            continue;
        }
        let arm_range = match r {
            Origin::Out(q, j) if matches!(g.kind(q), NodeKind::Gamma { .. }) => {
                match gamma_range(g, q, j, d, assumed)? {
                    Some(x) => x,
                    None => continue,
                }
            }
            _ => range(g, r, d, assumed)?,
        };
        let (lo, hi) = arm_range;
        union = Some(union.map_or((lo, hi), |(l, h)| (l.min(lo), h.max(hi))));
    }
    Some(union)
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
