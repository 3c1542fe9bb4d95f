//! Which guards of a hyperblock are disjoint (never both true), for de Ferrière's
//! §4.6 reordering of ψ arguments. If-conversion makes one block of a region, so the
//! function's Predicate Partition Graph no longer sees the region's predicates; their
//! partition is in the compares that define them instead:
//!
//! - the two predicates of an unguarded normal compare are complements, and so are
//!   the two of a `.unc` compare (each under the compare's guard, both false where
//!   it is false);
//! - a `.unc` compare's predicates imply its guard; `pand d = a, b` implies `a`,
//!   `pandn d = a, b` implies `a` and excludes `b`;
//! - a guard and its negation are complements;
//! - the predicates of unguarded normal compares of one register with constants
//!   are half-lines of its values: `x < 0` implies `x < 100` (the arms of an
//!   `if`/`else if` chain on one value).
//!
//! Two guards are disjoint when something each implies (itself included) is a
//! complementary pair. The relation is sound, not complete: it answers "unknown" for
//! anything the compares do not show.

use rustc_hash::FxHashMap as HashMap;

use vliw_isa::{CmpType, Opcode, semantics as sem, semantics::OpClass};

use crate::mir::{Imm, MBlock, MGuard, MInst, MOp, MachFunction, Reg};

/// What a predicate register is, from its definition.
#[derive(Copy, Clone, Debug)]
struct Origin {
    /// The other predicate of its compare, which is its complement where the compare
    /// ran (and where a `.unc` compare did not, both are false).
    partner: Option<Reg>,
    /// A guard it implies.
    implies: Option<MGuard>,
    /// A guard it is disjoint from (`pandn`'s second operand).
    excludes: Option<MGuard>,
    /// What it says of a register's value, when it is a compare with a constant.
    bound: Option<Bound>,
}

/// `reg ≤ k` (`upper`) or `reg ≥ k`, signed or unsigned, as a predicate of an
/// unguarded normal compare of `reg` with a constant says.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Bound {
    reg: Reg,
    signed: bool,
    upper: bool,
    k: i128,
}

impl Bound {
    fn complement(self) -> Bound {
        Bound {
            upper: !self.upper,
            k: if self.upper { self.k + 1 } else { self.k - 1 },
            ..self
        }
    }

    /// Whether every value within `self` is within `other`.
    fn within(self, other: Bound) -> bool {
        self.reg == other.reg
            && self.signed == other.signed
            && self.upper == other.upper
            && if self.upper {
                self.k <= other.k
            } else {
                self.k >= other.k
            }
    }
}

/// The bounds the two predicates of `inst` say, when it is an unguarded normal
/// compare of a register with a constant (64-bit: the 32-bit forms compare the low
/// halves).
fn bounds(inst: &MInst) -> Option<(Bound, Bound)> {
    use Opcode::*;
    if inst.ctype != CmpType::Normal || !inst.guard.is_always() {
        return None;
    }
    // (a virtual register has one value; a physical one may be written between two
    // compares)
    let (Some(o), Imm::Const(c), Some(&reg @ Reg::Virtual(_))) =
        (inst.opcode(), &inst.imm, inst.uses.first())
    else {
        return None;
    };
    let (s, u) = (i128::from(*c), i128::from(*c as u64));
    let (signed, upper, k) = match o {
        CmpLtI => (true, true, s - 1),
        CmpLeI => (true, true, s),
        CmpGtI => (true, false, s + 1),
        CmpGeI => (true, false, s),
        CmpLtuI => (false, true, u - 1),
        CmpLeuI => (false, true, u),
        CmpGtuI => (false, false, u + 1),
        CmpGeuI => (false, false, u),
        _ => return None,
    };
    let b = Bound {
        reg,
        signed,
        upper,
        k,
    };
    Some((b, b.complement()))
}

/// The predicate relations of one block (see the module documentation).
pub struct Guards {
    origin: HashMap<Reg, Origin>,
}

impl Guards {
    pub fn of_block(mf: &MachFunction, b: MBlock) -> Guards {
        let mut origin = HashMap::default();
        for inst in mf.block_insts(b) {
            let Some((pair, implies)) = describe(inst) else {
                continue;
            };
            let said = bounds(inst);
            let excludes = (inst.op == MOp::Op(Opcode::Pandn) && inst.guard.is_always())
                .then(|| inst.uses.get(1).map(|&b| MGuard::new(b, false)))
                .flatten();
            for (i, &d) in inst.defs.iter().enumerate() {
                if d == Reg::P0 {
                    continue;
                }
                let partner = (pair && inst.defs.len() == 2)
                    .then(|| inst.defs[1 - i])
                    .filter(|&q| q != Reg::P0);
                let bound = said.map(|(t, f)| if i == 0 { t } else { f });
                origin.insert(
                    d,
                    Origin {
                        partner,
                        implies,
                        excludes,
                        bound,
                    },
                );
            }
        }
        Guards { origin }
    }

    /// The guards `g` implies, `g` first.
    fn ancestors(&self, g: MGuard) -> Vec<MGuard> {
        let mut out = vec![g];
        let mut at = g;
        while !at.negated
            && let Some(Origin {
                implies: Some(up), ..
            }) = self.origin.get(&at.pred)
            && out.len() < 16
        {
            out.push(*up);
            at = *up;
        }
        out
    }

    fn complementary(&self, x: MGuard, y: MGuard) -> bool {
        if x.is_always() || y.is_always() {
            return false;
        }
        if x.pred == y.pred {
            return x.negated != y.negated;
        }
        let partners = |a: Reg, b: Reg| self.origin.get(&a).is_some_and(|o| o.partner == Some(b));
        // p and q of one compare: p and q are disjoint, as are !p and !q only for a
        // normal unguarded compare (then q = !p); keep to the first
        !x.negated && !y.negated && partners(x.pred, y.pred)
    }

    /// Whether `x` is true only where `y` is (sound; `false` when unknown): `y` is
    /// the true guard, `x` itself, or a guard `x` implies through its compares.
    pub fn implies(&self, x: MGuard, y: MGuard) -> bool {
        y.is_always()
            || self.ancestors(x).contains(&y)
            || matches!((self.bound(x), self.bound(y)), (Some(a), Some(b)) if a.within(b))
    }

    /// What `g` says of a register's value, when it is a compare with a constant.
    fn bound(&self, g: MGuard) -> Option<Bound> {
        let b = self.origin.get(&g.pred)?.bound?;
        Some(if g.negated { b.complement() } else { b })
    }

    /// Where `x` or `y` is true, when the compares show it: everywhere for a guard
    /// and its negation or the two predicates of an unguarded normal compare, the
    /// compare's guard for the two of a `.unc` compare. `None` when unknown.
    pub fn union(&self, x: MGuard, y: MGuard) -> Option<MGuard> {
        if x.is_always() || y.is_always() {
            return Some(MGuard::ALWAYS);
        }
        if x.pred == y.pred {
            return (x.negated != y.negated).then_some(MGuard::ALWAYS);
        }
        if x.negated || y.negated {
            return None;
        }
        let o = self.origin.get(&x.pred)?;
        if o.partner != Some(y.pred) {
            return None;
        }
        // a `.unc` pair implies its guard; an unguarded normal pair implies nothing
        Some(o.implies.unwrap_or(MGuard::ALWAYS))
    }

    /// Whether `x` and `y` are never both true (sound; `false` when unknown).
    pub fn disjoint(&self, x: MGuard, y: MGuard) -> bool {
        let (xs, ys) = (self.ancestors(x), self.ancestors(y));
        // what one side (or a guard it implies) excludes, the other implies
        let excluded = |from: &[MGuard], other: MGuard| {
            from.iter().any(|&a| {
                !a.negated
                    && self
                        .origin
                        .get(&a.pred)
                        .and_then(|o| o.excludes)
                        .is_some_and(|e| self.implies(other, e))
            })
        };
        xs.iter()
            .any(|&a| ys.iter().any(|&b| self.complementary(a, b)))
            || excluded(&xs, y)
            || excluded(&ys, x)
            || matches!(
                (self.bound(x), self.bound(y)),
                (Some(a), Some(b)) if a.within(b.complement())
            )
    }
}

/// For a predicate-defining operation: (its two definitions are disjoint, the guard
/// they imply).
fn describe(inst: &MInst) -> Option<(bool, Option<MGuard>)> {
    let o = inst.opcode()?;
    match sem::class(o) {
        OpClass::Compare => match inst.ctype {
            CmpType::Unc => Some((true, (!inst.guard.is_always()).then_some(inst.guard))),
            CmpType::Normal if inst.guard.is_always() => Some((true, None)),
            _ => None,
        },
        OpClass::PredLogic
            if matches!(o, Opcode::Pand | Opcode::Pandn) && inst.guard.is_always() =>
        {
            Some((false, inst.uses.first().map(|&a| MGuard::new(a, false))))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vliw_isa::semantics;

    /// Every pair of guards of compares of one register with constants, against
    /// the compares evaluated on values around the constants and at the ends of
    /// both orders: `implies` and `disjoint` never claim what a value refutes, and
    /// find the implications between bounds of one kind.
    #[test]
    fn bounds_imply_and_exclude_soundly() {
        let ops = [
            ("lt", Opcode::CmpLtI),
            ("le", Opcode::CmpLeI),
            ("gt", Opcode::CmpGtI),
            ("ge", Opcode::CmpGeI),
            ("ltu", Opcode::CmpLtuI),
            ("leu", Opcode::CmpLeuI),
            ("gtu", Opcode::CmpGtuI),
            ("geu", Opcode::CmpGeuI),
        ];
        let constants = [i64::MIN, -100, -1, 0, 1, 100, i64::MAX];
        let mut text = String::from("machine function @f export {\nblock0:\n    v0 = copy r3\n");
        let mut preds = Vec::new();
        let mut k = 1;
        for (name, op) in ops {
            for c in constants {
                text += &format!("    pv{k}, pv{} = cmp.{name} v0, {c}\n", k + 1);
                preds.push((k, op, c, false));
                preds.push((k + 1, op, c, true));
                k += 2;
            }
        }
        text += "    ret\n}\n";
        let f = MachFunction::parse(&text).unwrap();
        let b = f.layout[0];
        let guards = Guards::of_block(&f, b);
        let reg = |n: usize| Reg::Virtual(crate::mir::VReg::from_u32(n as u32));
        let mut samples: Vec<u64> = Vec::new();
        for c in constants {
            for d in -2i64..=2 {
                samples.push(c.wrapping_add(d) as u64);
            }
        }
        let truth = |(_, op, c, second): (usize, Opcode, i64, bool), neg: bool, v: u64| {
            let t = semantics::condition(op, v, c as u64);
            (t != second) != neg
        };
        let (mut implied, mut excluded) = (0, 0);
        for &x in &preds {
            for &y in &preds {
                for (xn, yn) in [(false, false), (false, true), (true, false), (true, true)] {
                    let (gx, gy) = (MGuard::new(reg(x.0), xn), MGuard::new(reg(y.0), yn));
                    if guards.implies(gx, gy) {
                        implied += 1;
                        for &v in &samples {
                            assert!(
                                !truth(x, xn, v) || truth(y, yn, v),
                                "{gx:?} does not imply {gy:?} at {v}"
                            );
                        }
                    }
                    if guards.disjoint(gx, gy) {
                        excluded += 1;
                        for &v in &samples {
                            assert!(
                                !(truth(x, xn, v) && truth(y, yn, v)),
                                "{gx:?} and {gy:?} both hold at {v}"
                            );
                        }
                    }
                }
            }
        }
        assert!(implied > 1000 && excluded > 500, "{implied} {excluded}");
        // x < 0 implies x < 100; x <= 100 does not imply x < 100
        let find = |op: Opcode, c: i64| preds.iter().find(|p| p.1 == op && p.2 == c).unwrap().0;
        let lt0 = MGuard::new(reg(find(Opcode::CmpLtI, 0)), false);
        let lt100 = MGuard::new(reg(find(Opcode::CmpLtI, 100)), false);
        let le100 = MGuard::new(reg(find(Opcode::CmpLeI, 100)), false);
        assert!(guards.implies(lt0, lt100));
        assert!(!guards.implies(le100, lt100));
        assert!(guards.implies(lt100, le100));
    }
}
