//! A ψ that chooses between two values by comparing them is their minimum or
//! maximum: `p = a > b; x = ψ(T?a, p?b)` is `x = min a, b` (one operation the
//! machine has, `min`, `max`, `minu`, `maxu`: no compare to wait for, no guard, no
//! register class for the lowering to keep). If-conversion makes this of every
//! clamp (`if s > 255 { 255 } else { s }`), and of `a.min(b)` written as a branch.
//!
//! The compare must be an unguarded normal 64-bit compare of the block (`cmp.lt`,
//! `le`, `gt`, `ge` and their unsigned forms, register or immediate; the ψ's guard
//! may be either of its predicates, negated or not), the ψ's two arguments the
//! compare's two operands (an immediate operand as the register a `movi` of the same
//! constant defines). Equal operands make the two choices equal, so `<` and `<=`
//! give the same operation. A longer ψ whose first two arguments are such a choice
//! gets the `min` or `max` as its first argument (`x < lo ? lo : x > hi ? hi : x` is
//! `ψ(T?x, p?hi, q?lo)`, which becomes `t = min x, hi; ψ(T?t, q?lo)`; the whole is no
//! clamp when `lo > hi`). Compares left unread are removed.

use rustc_hash::FxHashMap as HashMap;

use vliw_isa::{CmpType, Opcode};

use crate::mir::{Imm, MInst, MOp, MachFunction, Reg, RegClass};

/// The relation of a compare: (`less`: `<`/`<=` rather than `>`/`>=`, unsigned).
fn relation(op: Opcode) -> Option<(bool, bool)> {
    use Opcode::*;
    Some(match op {
        CmpLt | CmpLe | CmpLtI | CmpLeI => (true, false),
        CmpGt | CmpGe | CmpGtI | CmpGeI => (false, false),
        CmpLtu | CmpLeu | CmpLtuI | CmpLeuI => (true, true),
        CmpGtu | CmpGeu | CmpGtuI | CmpGeuI => (false, true),
        _ => return None,
    })
}

/// Replaces every such ψ of `mf` by a `min` or `max`; returns how many.
pub fn select_min_max(mf: &mut MachFunction) -> usize {
    // the constants `movi` defines, for immediate operands
    let constants = mf.movi_constants();
    let mut made = 0;
    for b in mf.layout.clone() {
        // each predicate of the block's compares: (compare, which of its two)
        let mut compares: HashMap<Reg, (MInst, bool)> = HashMap::default();
        let mut at = 0;
        while at < mf.block_len(b) {
            let id = mf.block_inst_ids(b)[at];
            at += 1;
            let inst = mf.inst(id);
            if inst.guard.is_always()
                && inst.ctype == CmpType::Normal
                && inst.opcode().and_then(relation).is_some()
            {
                for (i, &d) in inst.defs.iter().enumerate() {
                    if d != Reg::P0 {
                        compares.insert(d, (inst.clone(), i == 1));
                    }
                }
                continue;
            }
            if inst.op != MOp::Psi
                || inst.uses.len() < 2
                || !inst.psi_guards[0].is_always()
                || inst.psi_guards[1].is_always()
            {
                continue;
            }
            let Some(Reg::Virtual(x)) = inst.defs.first().copied() else {
                continue;
            };
            if mf.vregs[x] != RegClass::Gpr {
                continue;
            }
            let g = inst.psi_guards[1];
            let Some((cmp, second)) = compares.get(&g.pred) else {
                continue;
            };
            let (mut less, unsigned) = relation(cmp.opcode().expect("a compare")).expect("known");
            // the guard holds where the relation does not: the other predicate, or
            // a negated one (both: it holds again)
            if *second != g.negated {
                less = !less;
            }
            let a = cmp.uses[0];
            let is_b = |r: Reg| match (&cmp.imm, cmp.uses.get(1)) {
                (Imm::None, Some(&rb)) => r == rb,
                (Imm::Const(c), None) => constants.get(&r) == Some(c),
                _ => false,
            };
            let (u0, u1) = (inst.uses[0], inst.uses[1]);
            // x = (a rel b) ? u1 : u0
            let choose_a_when_related = if u1 == a && is_b(u0) {
                true
            } else if u0 == a && is_b(u1) {
                false
            } else {
                continue;
            };
            // (a < b ? a : b) is the minimum; (a > b ? a : b) the maximum
            let minimum = less == choose_a_when_related;
            let op = match (minimum, unsigned) {
                (true, false) => Opcode::Min,
                (false, false) => Opcode::Max,
                (true, true) => Opcode::Minu,
                (false, true) => Opcode::Maxu,
            };
            let b_reg = if u0 == a { u1 } else { u0 };
            let loc = inst.loc;
            if inst.uses.len() == 2 {
                let mut m = MInst::op(op, &[Reg::Virtual(x)], &[a, b_reg], Imm::None);
                m.loc = loc;
                *mf.inst_mut(id) = m;
            } else {
                let t = Reg::Virtual(mf.new_vreg(RegClass::Gpr));
                let psi = mf.inst_mut(id);
                psi.uses.splice(0..2, [t]);
                psi.psi_guards.remove(1);
                let mut m = MInst::op(op, &[t], &[a, b_reg], Imm::None);
                m.loc = loc;
                // before the ψ, which `at` names again: it is looked at again
                mf.insert_inst(b, at - 1, m);
            }
            made += 1;
        }
    }
    if made > 0 {
        crate::pcp::sweep::remove_dead_operations(mf);
    }
    made
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::Interpreter;
    use crate::mir::Phase;

    fn run(mf: &MachFunction, args: &[u64]) -> Vec<u64> {
        Interpreter::new([mf]).call("f", args).unwrap()
    }

    /// Every relation, both argument orders, the guard as either predicate and
    /// negated, register and immediate operands: the result equals the ψ's on
    /// values around the bound, signed and unsigned.
    #[test]
    fn clamps_become_min_and_max() {
        let mut made_total = 0;
        for rel in ["lt", "le", "gt", "ge", "ltu", "leu", "gtu", "geu"] {
            for (first, second) in [("v0", "v1"), ("v1", "v0")] {
                for guard in ["pv2", "pv3", "!pv2", "!pv3"] {
                    for operand in ["v1", "255"] {
                        let text = format!(
                            "machine function @f export {{
block0:
    v0 = copy r3
    v1 = movi 255
    pv2, pv3 = cmp.{rel} v0, {operand}
    v4 = psi p0: {first}, {guard}: {second}
    r3 = copy v4
    ret uses[r3]
}}
"
                        );
                        let before = MachFunction::parse(&text).unwrap();
                        let mut after = before.clone();
                        let made = select_min_max(&mut after);
                        after.verify(Phase::Ssa).unwrap();
                        assert_eq!(made, 1, "{text}\n{after}");
                        assert!(
                            !after.to_string().contains("cmp"),
                            "the compare is left unread:\n{after}"
                        );
                        made_total += made;
                        for x in [0u64, 1, 254, 255, 256, 1000, u64::MAX, u64::MAX - 300] {
                            assert_eq!(
                                run(&after, &[x]),
                                run(&before, &[x]),
                                "{x}:\n{before}\n{after}"
                            );
                        }
                    }
                }
            }
        }
        assert_eq!(made_total, 8 * 2 * 4 * 2);
    }

    /// `x < lo ? lo : x > hi ? hi : x` with `lo > hi` too: the first two arguments
    /// become a `min`, the ψ keeps the last.
    #[test]
    fn a_clamp_keeps_its_outer_choice() {
        let text = "machine function @f export {
block0:
    v0 = copy r3
    v1 = copy r4
    v2 = copy r5
    pv3, pv4 = cmp.gt v0, v2
    pv5, pv6 = cmp.lt v0, v1
    v7 = psi p0: v0, pv3: v2, pv5: v1
    r3 = copy v7
    ret uses[r3]
}
";
        let before = MachFunction::parse(text).unwrap();
        let mut after = before.clone();
        assert_eq!(select_min_max(&mut after), 1, "{after}");
        after.verify(Phase::Ssa).unwrap();
        let out = after.to_string();
        assert!(out.contains("= min v0, v2"), "{out}");
        assert!(out.contains("v7 = psi p0: v8, pv5: v1"), "{out}");
        for (lo, hi) in [(-5i64, 5i64), (5, -5), (0, 0)] {
            for x in -8i64..=8 {
                let args = [x as u64, lo as u64, hi as u64];
                assert_eq!(run(&after, &args), run(&before, &args), "{x} {lo} {hi}");
            }
        }
    }

    #[test]
    fn other_choices_stay() {
        let text = "machine function @f export {
block0:
    v0 = copy r3
    v1 = movi 255
    v5 = movi 254
    pv2, pv3 = cmp.gt v0, v1
    v4 = psi p0: v0, pv2: v5
    (pv2) pv6, pv7 = cmp.eq.unc v0, v1
    v8 = psi p0: v0, pv6: v1
    r3 = copy v4
    r4 = copy v8
    ret uses[r3 r4]
}
";
        let mut mf = MachFunction::parse(text).unwrap();
        assert_eq!(select_min_max(&mut mf), 0, "{mf}");
    }
}
