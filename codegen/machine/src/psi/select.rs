//! ψ to `sel` chains (003 §3, Fig. 7).
//!
//! `x = ψ(g1?a1, g2?a2, ..., gn?an)` is the value of the last argument whose guard is
//! true. As a chain of selects from the left:
//!
//! ```text
//! t2 = sel g2, a2, a1        (sel takes a positive predicate: a negated guard swaps
//! t3 = sel g3, a3, t2         the two operands)
//! x  = sel gn, an, t(n-1)
//! ```
//!
//! The first guard is not tested: it is promoted to true (003 §3.1's condition 2: the
//! guards of a ψ made by if-conversion cover every run of the ψ's block, since the
//! edges into a join are its only ways in), so when no later guard holds, `a1` is the
//! value. An argument defined under a guard that is false holds garbage on the machine
//! (an undefined value in the interpreter), and the chain selects it only when its
//! guard, which implies the definition's, is true. A ψ of one argument is a copy. A
//! guarded ψ (never made by if-conversion) keeps its guard on every operation of its
//! chain, which then only writes when it holds. Predicates have no select: a ψ of
//! predicates becomes `(g ∧ yes) ∨ (no ∧ ¬g)` per argument.

use vliw_isa::Opcode;

use crate::mir::{Imm, InstId, MGuard, MInst, MOp, MachFunction, Reg, RegClass};

/// Lowers every ψ of `mf` to `sel` chains; returns how many `sel`s it made.
pub fn lower_to_selects(mf: &mut MachFunction) -> usize {
    let mut made = 0;
    for b in mf.layout.clone() {
        if !mf.block_insts(b).any(|i| i.op == MOp::Psi) {
            continue;
        }
        let old = mf.take_block_insts(b);
        let mut order: Vec<InstId> = Vec::with_capacity(old.len());
        for id in old {
            if mf.inst(id).op != MOp::Psi {
                order.push(id);
                continue;
            }
            let psi = mf.inst(id).clone();
            let n = psi.uses.len();
            if n <= 1 {
                let src = psi.uses.first().copied().unwrap_or(Reg::ZERO);
                let mut copy = MInst::copy(psi.defs[0], src).with_guard(psi.guard);
                copy.loc = psi.loc;
                order.push(mf.make_inst(copy));
                continue;
            }
            let chain = select_chain(mf, &psi);
            made += n - 1;
            for op in chain {
                order.push(mf.make_inst(op));
            }
        }
        mf.set_block_insts(b, order);
    }
    made
}

/// The `sel` chain of one ψ of two arguments or more (see the module documentation).
pub fn select_chain(mf: &mut MachFunction, psi: &MInst) -> Vec<MInst> {
    let class = mf.class_of(psi.defs[0]);
    let n = psi.uses.len();
    let mut out = Vec::new();
    let mut acc = psi.uses[0];
    for k in 1..n {
        let d = if k + 1 == n {
            psi.defs[0]
        } else {
            mf.new_vreg(class).into()
        };
        for op in choice(mf, class, psi.psi_guards[k], psi.uses[k], acc, d) {
            let mut op = op.with_guard(psi.guard);
            op.loc = psi.loc;
            out.push(op);
        }
        acc = d;
    }
    out
}

/// `d = g ? a : b` for a register class: one `sel` (which takes a positive predicate:
/// a negated guard swaps the operands), or for predicates `(g ∧ a) ∨ (b ∧ ¬g)`.
fn choice(mf: &mut MachFunction, class: RegClass, g: MGuard, a: Reg, b: Reg, d: Reg) -> Vec<MInst> {
    let (yes, no) = if g.negated { (b, a) } else { (a, b) };
    if class == RegClass::Pred {
        let (t, u) = (mf.new_vreg(class).into(), mf.new_vreg(class).into());
        vec![
            MInst::op(Opcode::Pand, &[t], &[g.pred, yes], Imm::None),
            MInst::op(Opcode::Pandn, &[u], &[no, g.pred], Imm::None),
            MInst::op(Opcode::Por, &[d], &[t, u], Imm::None),
        ]
    } else {
        vec![MInst::op(Opcode::Sel, &[d], &[g.pred, yes, no], Imm::None)]
    }
}

/// Every `(g) d = op ... keeps k` of `mf` (out of Psi-SSA by predicated copies,
/// `super::copies`) as `(g) t = op ...` and `d = g ? t : k` (a `sel`): for the
/// allocators and SSA destruction that do not take `keeps`. Returns how many.
pub fn lower_keeps(mf: &mut MachFunction) -> usize {
    let mut made = 0;
    for b in mf.layout.clone() {
        if !mf.block_insts(b).any(|i| i.keep.is_some()) {
            continue;
        }
        let old = mf.take_block_insts(b);
        let mut order: Vec<InstId> = Vec::with_capacity(old.len() + 4);
        for id in old {
            let Some(k) = mf.inst(id).keep else {
                order.push(id);
                continue;
            };
            let d = mf.inst(id).defs[0];
            let class = mf.class_of(d);
            let t: Reg = mf.new_vreg(class).into();
            let inst = mf.inst_mut(id);
            inst.keep = None;
            inst.defs[0] = t;
            let (g, loc) = (inst.guard, inst.loc);
            order.push(id);
            for mut op in choice(mf, class, g, t, k, d) {
                op.loc = loc;
                order.push(mf.make_inst(op));
            }
            made += 1;
        }
        mf.set_block_insts(b, order);
    }
    made
}
