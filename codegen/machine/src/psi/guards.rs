//! Which guards of a hyperblock are disjoint (never both true), for de Ferrière's
//! §4.6 reordering of ψ arguments. If-conversion makes one block of a region, so the
//! function's Predicate Partition Graph no longer sees the region's predicates; their
//! partition is in the compares that define them instead:
//!
//! - the two predicates of an unguarded normal compare are complements, and so are
//!   the two of a `.unc` compare (each under the compare's guard, both false where
//!   it is false);
//! - a `.unc` compare's predicates imply its guard; `pand d = a, b` implies `a`;
//! - a guard and its negation are complements.
//!
//! Two guards are disjoint when something each implies (itself included) is a
//! complementary pair. The relation is sound, not complete: it answers "unknown" for
//! anything the compares do not show.

use std::collections::HashMap;

use vliw_isa::{CmpType, Opcode, semantics as sem, semantics::OpClass};

use crate::mir::{MBlock, MGuard, MInst, MachFunction, Reg};

/// What a predicate register is, from its definition.
#[derive(Copy, Clone, Debug)]
struct Origin {
    /// The other predicate of its compare, which is its complement where the compare
    /// ran (and where a `.unc` compare did not, both are false).
    partner: Option<Reg>,
    /// A guard it implies.
    implies: Option<MGuard>,
}

/// The predicate relations of one block (see the module documentation).
pub struct Guards {
    origin: HashMap<Reg, Origin>,
}

impl Guards {
    pub fn of_block(mf: &MachFunction, b: MBlock) -> Guards {
        let mut origin = HashMap::new();
        for inst in mf.block_insts(b) {
            let Some((pair, implies)) = describe(inst) else {
                continue;
            };
            for (i, &d) in inst.defs.iter().enumerate() {
                if d == Reg::P0 {
                    continue;
                }
                let partner = (pair && inst.defs.len() == 2)
                    .then(|| inst.defs[1 - i])
                    .filter(|&q| q != Reg::P0);
                origin.insert(d, Origin { partner, implies });
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
        y.is_always() || self.ancestors(x).contains(&y)
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
        xs.iter()
            .any(|&a| ys.iter().any(|&b| self.complementary(a, b)))
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
        OpClass::PredLogic if o == Opcode::Pand && inst.guard.is_always() => {
            Some((false, inst.uses.first().map(|&a| MGuard::new(a, false))))
        }
        _ => None,
    }
}
