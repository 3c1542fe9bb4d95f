//! The rewrite of what the analysis proved (004 §4.3.3 and Table 3), keeping machine
//! SSA valid and the function's meaning.
//!
//! Per operation of a reached block, from the facts of its final local pass:
//!
//! - **Off-predicated** (its guard fails on every path that reaches it, holds on
//!   none): removed. A `.unc` compare is not: under a false guard it still writes
//!   false, and its predicates become constants instead.
//! - **Guard proved**: a guard that holds on every path that reaches the operation
//!   is dropped; a branch or trap so guarded becomes unconditional and what follows
//!   it in the block goes.
//! - **Constants**: a pure operation whose every definition is constant becomes
//!   constant definitions without guard (`movi`; a predicate `copy p0` or `pandn p0,
//!   p0`): where the guard failed the register was undefined, so any value there is
//!   as good. A compare whose predicates are constant is folded so; one with a
//!   constant condition under a `.unc` type writes its guard and false (Table 3's
//!   `cmp.unc GFBA,HFBA (TRUE)`).
//! - **Predicate logic** with a constant operand becomes a copy or a negation of the
//!   other (Table 3's `G = OR(GFBA,GFDCA)`, a false operand dropped: `por` with false
//!   is a copy).
//! - **ψ**: an argument that is never the value on any path is dropped (its guard
//!   false, or a guard to its right true, wherever the ψ runs); a ψ left with one
//!   argument is a copy. The arguments left keep covering every run of the ψ (the
//!   value's argument is never dropped), which `psi::select` relies on when it takes
//!   the first argument for the default.
//!
//! Then block parameters proved constant become constant definitions at the start
//! of their block (their arguments removed from every branch to it), and the
//! registers of removed definitions, which every remaining read saw undefined, are
//! read as `r0` or `p0` instead (any value refines undefined), or as a guard that
//! never holds.

use rustc_hash::FxHashSet as HashSet;

use vliw_isa::semantics::{self as sem, OpClass};
use vliw_isa::{CmpType, Opcode};

use super::PcpStats;
use super::global::Analysis;
use super::lattice::Lat;
use super::propagate::{BlockFacts, InstFacts};
use crate::mir::{Imm, InstId, MBlock, MGuard, MInst, MOp, MachFunction, Reg, RegClass, VReg};

/// Rewrites `mf` by `analysis` (of this very function).
pub fn rewrite(mf: &mut MachFunction, analysis: &Analysis, stats: &mut PcpStats) {
    let mut undefined: HashSet<VReg> = HashSet::default();
    for b in mf.layout.clone() {
        if let Some(facts) = analysis.facts.get(&b) {
            rewrite_block(mf, b, facts, stats, &mut undefined);
        }
    }
    materialize_params(mf, analysis, stats);
    read_undefined_as_zero(mf, &undefined);
}

/// Whether an operation only computes its definitions (no memory, control, or
/// physical register written).
pub fn is_pure(inst: &MInst) -> bool {
    let virtual_defs = inst
        .defs
        .iter()
        .all(|d| d.as_virtual().is_some() || *d == Reg::P0 || *d == Reg::ZERO)
        && inst.implicit_defs.is_empty();
    virtual_defs
        && match inst.op {
            MOp::Psi | MOp::Copy | MOp::ParallelCopy => true,
            MOp::Op(o) => sem::class(o).is_pure(),
        }
}

/// A `.unc` compare: it writes its predicates (false) even where its guard fails, so
/// it is never off-predicated.
fn writes_when_off(inst: &MInst) -> bool {
    matches!(inst.op, MOp::Op(o) if sem::class(o) == OpClass::Compare) && inst.ctype == CmpType::Unc
}

fn is_control(inst: &MInst) -> bool {
    matches!(inst.op, MOp::Op(o) if sem::class(o) == OpClass::Control)
}

fn rewrite_block(
    mf: &mut MachFunction,
    b: MBlock,
    facts: &BlockFacts,
    stats: &mut PcpStats,
    undefined: &mut HashSet<VReg>,
) {
    let ids = mf.take_block_insts(b);
    let mut order: Vec<InstId> = Vec::with_capacity(ids.len());
    let mut ended = false;
    let no_facts = InstFacts::default();
    for (i, &id) in ids.iter().enumerate() {
        let virtual_defs: Vec<VReg> = mf
            .inst(id)
            .defs
            .iter()
            .filter_map(|r| r.as_virtual())
            .collect();
        if ended {
            // after a branch proved taken: never runs
            undefined.extend(virtual_defs);
            continue;
        }
        let f = facts.insts.get(i).unwrap_or(&no_facts);
        let mut inst = mf.inst(id).clone();
        if !f.reached {
            ended = inst.is_unconditional_exit();
            order.push(id);
            continue;
        }
        if !f.may_hold && f.may_fail && !writes_when_off(&inst) {
            stats.off_predicated_removed += 1;
            if is_control(&inst) {
                stats.branches_decided += 1;
            }
            undefined.extend(virtual_defs);
            continue;
        }
        let mut changed = false;
        if f.may_hold && !f.may_fail && !inst.guard.is_always() {
            inst.guard = MGuard::ALWAYS;
            changed = true;
            if is_control(&inst) {
                stats.branches_decided += 1;
            }
        }
        match simplify(mf, &inst, f, facts, stats) {
            Simplified::Keep => {
                if changed {
                    *mf.inst_mut(id) = inst.clone();
                }
                order.push(id);
            }
            Simplified::Replace(new) => {
                for n in new {
                    order.push(mf.make_inst(n));
                }
            }
            Simplified::Remove => undefined.extend(virtual_defs),
        }
        ended = inst.is_unconditional_exit();
    }
    mf.set_block_insts(b, order);
}

/// What becomes of one operation.
enum Simplified {
    Keep,
    Replace(Vec<MInst>),
    /// Never defines anything on any path.
    Remove,
}

fn simplify(
    mf: &mut MachFunction,
    inst: &MInst,
    f: &InstFacts,
    facts: &BlockFacts,
    stats: &mut PcpStats,
) -> Simplified {
    if !is_pure(inst) {
        return Simplified::Keep;
    }
    let element = |r: Reg| match r {
        Reg::Virtual(v) => facts.defs.get(&v).copied().unwrap_or(Lat::Top),
        Reg::Physical(_) => Lat::Top,
    };
    let is_compare = matches!(inst.op, MOp::Op(o) if sem::class(o) == OpClass::Compare);
    let defs: Vec<Reg> = inst
        .defs
        .iter()
        .copied()
        .filter(|d| d.as_virtual().is_some())
        .collect();
    let constant: Vec<(Reg, u64)> = defs
        .iter()
        .filter_map(|&d| element(d).constant().map(|c| (d, c)))
        .collect();
    // every definition constant: constant definitions
    if !defs.is_empty() && constant.len() == defs.len() {
        let new: Vec<MInst> = constant
            .iter()
            .map(|&(d, c)| materialize(mf, d, c, inst))
            .collect();
        if new.len() == 1 && same_operation(&new[0], inst) {
            return Simplified::Keep;
        }
        if is_compare {
            stats.compares_folded += 1;
        } else {
            stats.constants += new.len();
        }
        return Simplified::Replace(new);
    }
    // a `.unc` compare with a constant condition: its guard and false
    if is_compare
        && inst.ctype == CmpType::Unc
        && let Some(c) = f.condition.as_bool()
    {
        let (yes, no) = if c { (0, 1) } else { (1, 0) };
        let mut new = Vec::new();
        if let Some(&d) = inst.defs.get(yes).filter(|d| d.as_virtual().is_some()) {
            new.push(guard_as_predicate(d, inst.guard, inst));
        }
        if let Some(&d) = inst.defs.get(no).filter(|d| d.as_virtual().is_some()) {
            new.push(materialize(mf, d, 0, inst));
        }
        stats.compares_folded += 1;
        return Simplified::Replace(new);
    }
    // a compare with some predicates constant: those written by constants
    if is_compare && !constant.is_empty() {
        let mut kept = inst.clone();
        for d in kept.defs.iter_mut() {
            if constant.iter().any(|&(c, _)| c == *d) {
                *d = Reg::P0;
            }
        }
        let mut new = vec![kept];
        new.extend(constant.iter().map(|&(d, c)| materialize(mf, d, c, inst)));
        stats.compares_folded += 1;
        return Simplified::Replace(new);
    }
    match inst.op {
        MOp::Psi => simplify_psi(inst, f, stats),
        MOp::Op(o) if sem::class(o) == OpClass::PredLogic => simplify_logic(o, inst, f, stats),
        _ => Simplified::Keep,
    }
}

/// `d = c`, unguarded, where `like` stood.
fn materialize(mf: &MachFunction, d: Reg, c: u64, like: &MInst) -> MInst {
    let mut m = match mf.class_of(d) {
        RegClass::Gpr => MInst::op(Opcode::Movi, &[d], &[], Imm::Const(c as i64)),
        RegClass::Pred if c != 0 => MInst::copy(d, Reg::P0),
        RegClass::Pred => MInst::op(Opcode::Pandn, &[d], &[Reg::P0, Reg::P0], Imm::None),
    };
    m.loc = like.loc;
    m
}

/// `d = g` for a guard `g` (a predicate register, maybe negated).
fn guard_as_predicate(d: Reg, g: MGuard, like: &MInst) -> MInst {
    let mut m = if g.negated {
        MInst::op(Opcode::Pnot, &[d], &[g.pred], Imm::None)
    } else {
        MInst::copy(d, g.pred)
    };
    m.loc = like.loc;
    m
}

/// Whether `new` computes what `old` does the same way (guard aside).
fn same_operation(new: &MInst, old: &MInst) -> bool {
    new.op == old.op && new.defs == old.defs && new.uses == old.uses && new.imm == old.imm
}

fn simplify_psi(inst: &MInst, f: &InstFacts, stats: &mut PcpStats) -> Simplified {
    if f.psi_wins.len() != inst.uses.len() || f.psi_wins.iter().all(|&w| w) {
        return Simplified::Keep;
    }
    let mut psi = inst.clone();
    psi.uses.clear();
    psi.psi_guards.clear();
    for (k, &win) in f.psi_wins.iter().enumerate() {
        if win {
            psi.uses.push(inst.uses[k]);
            psi.psi_guards.push(inst.psi_guards[k]);
        }
    }
    stats.psi_args_dropped += inst.uses.len() - psi.uses.len();
    match psi.uses.len() {
        0 => Simplified::Remove,
        1 => {
            let mut copy = MInst::copy(psi.defs[0], psi.uses[0]).with_guard(psi.guard);
            copy.loc = psi.loc;
            Simplified::Replace(vec![copy])
        }
        _ => Simplified::Replace(vec![psi]),
    }
}

/// Predicate logic with one operand constant (and the result not): a copy or a
/// negation of the other operand.
fn simplify_logic(op: Opcode, inst: &MInst, f: &InstFacts, stats: &mut PcpStats) -> Simplified {
    let (Some(&d), Some(&a)) = (inst.defs.first(), inst.uses.first()) else {
        return Simplified::Keep;
    };
    let b = inst.uses.get(1).copied();
    let ka = f.operands.first().and_then(|l| l.as_bool());
    let kb = f.operands.get(1).and_then(|l| l.as_bool());
    // (copy the other operand, or negate it)
    enum Out {
        Copy(Reg),
        Not(Reg),
    }
    let out = match (op, ka, kb, b) {
        (Opcode::Por, Some(false), _, Some(b)) => Out::Copy(b),
        (Opcode::Por, _, Some(false), _) => Out::Copy(a),
        (Opcode::Porn, _, Some(true), _) => Out::Copy(a),
        (Opcode::Porn, Some(false), _, Some(b)) => Out::Not(b),
        (Opcode::Pand, Some(true), _, Some(b)) => Out::Copy(b),
        (Opcode::Pand, _, Some(true), _) => Out::Copy(a),
        (Opcode::Pandn, _, Some(false), _) => Out::Copy(a),
        (Opcode::Pandn, Some(true), _, Some(b)) => Out::Not(b),
        (Opcode::Pxor, Some(false), _, Some(b)) => Out::Copy(b),
        (Opcode::Pxor, _, Some(false), _) => Out::Copy(a),
        (Opcode::Pxor, Some(true), _, Some(b)) => Out::Not(b),
        (Opcode::Pxor, _, Some(true), _) => Out::Not(a),
        _ => return Simplified::Keep,
    };
    let mut new = match out {
        Out::Copy(s) => MInst::copy(d, s),
        Out::Not(s) => MInst::op(Opcode::Pnot, &[d], &[s], Imm::None),
    };
    new.guard = inst.guard;
    new.loc = inst.loc;
    stats.ors_simplified += 1;
    Simplified::Replace(vec![new])
}

/// Block parameters proved constant become constant definitions at the start of
/// their block; their arguments leave every branch to it.
fn materialize_params(mf: &mut MachFunction, analysis: &Analysis, stats: &mut PcpStats) {
    let entry = mf.layout.first().copied();
    for b in mf.layout.clone() {
        if Some(b) == entry || !analysis.reached(b) {
            continue;
        }
        let params = mf.blocks[b].params.clone();
        let constant: Vec<(usize, u64)> = params
            .iter()
            .enumerate()
            .filter_map(|(k, &p)| analysis.value(p).constant().map(|c| (k, c)))
            .collect();
        if constant.is_empty() {
            continue;
        }
        let drop = |k: usize| constant.iter().any(|&(j, _)| j == k);
        for pb in mf.layout.clone() {
            for &id in mf.blocks[pb].insts.clone().iter() {
                let inst = mf.inst_mut(id);
                if inst.is(Opcode::Br)
                    && inst.imm == Imm::Block(b)
                    && inst.args.len() == params.len()
                {
                    let args = core::mem::take(&mut inst.args);
                    inst.args = args
                        .into_iter()
                        .enumerate()
                        .filter(|&(k, _)| !drop(k))
                        .map(|(_, a)| a)
                        .collect();
                }
            }
        }
        mf.blocks[b].params = params
            .iter()
            .enumerate()
            .filter(|&(k, _)| !drop(k))
            .map(|(_, &p)| p)
            .collect();
        let like = MInst::new(MOp::Copy);
        for (n, &(k, c)) in constant.iter().enumerate() {
            let m = materialize(mf, params[k].into(), c, &like);
            mf.insert_inst(b, n, m);
        }
        stats.constants += constant.len();
    }
}

/// Every read of a register whose definition was removed reads `r0` or `p0`
/// instead; a guard reading one becomes `(!p0)`, never true: where the machine read
/// an undefined guard, a pure operation left its definitions undefined and an effect
/// stopped the run, and not running does both (an always-true guard could make a
/// trap in the middle of a block unconditional).
fn read_undefined_as_zero(mf: &mut MachFunction, undefined: &HashSet<VReg>) {
    if undefined.is_empty() {
        return;
    }
    let classes: Vec<RegClass> = mf.vregs.values().copied().collect();
    let is_undefined = |r: Reg| matches!(r, Reg::Virtual(v) if undefined.contains(&v));
    let replace = |r: &mut Reg| {
        if let Reg::Virtual(v) = *r
            && undefined.contains(&v)
        {
            *r = match classes.get(cranelift_entity::EntityRef::index(v)) {
                Some(RegClass::Pred) => Reg::P0,
                _ => Reg::ZERO,
            };
        }
    };
    let never = MGuard::new(Reg::P0, true);
    for b in mf.layout.clone() {
        for id in mf.blocks[b].insts.clone() {
            let inst = mf.inst_mut(id);
            if is_undefined(inst.guard.pred) {
                inst.guard = never;
            }
            for g in &mut inst.psi_guards {
                if is_undefined(g.pred) {
                    *g = never;
                }
            }
            for u in inst.uses.iter_mut().chain(inst.args.iter_mut()) {
                replace(u);
            }
        }
    }
}
