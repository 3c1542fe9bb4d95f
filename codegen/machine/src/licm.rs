//! Constants out of loops (`machine-licm`): the unguarded `movi`s of a loop's blocks
//! move to the end of its preheader, equal constants merged into one register.
//!
//! The RVSDG hoists the invariant computations it sees, but constants appear later
//! too: instruction selection makes one for each ψ argument and `sel` operand,
//! if-conversion brings the arms' constants into one block, and scheduling across
//! side exits (`pre-sched-region`) moves them up into the loop's header, where they
//! take a slot in every trip (`count_numbers`' header held four: 2, 3, 2, 3). A
//! `movi` reads nothing, so it is invariant wherever it is.
//!
//! A loop gives up its constants only when it has a preheader (one predecessor from
//! outside, which ends in an unconditional branch to the header, its only
//! successor), calls nothing (a constant live across a call needs a callee-saved
//! register or a reload) and the hoisted constants leave no block where more values
//! are live than there are registers that had none before (the SSA allocator's
//! pressure analysis, as `cse` asks it for the constants it merges). Inner loops go
//! first, so that a constant can leave a nest level by level. A preheader with a call
//! that may unwind gets a block of its own for them after the call
//! (`MachFunction::end_of_normal_path`).

use std::collections::HashMap;

use cranelift_entity::EntityRef;

use vliw_isa::Opcode;
use vliw_ssa::LoopForest;

use crate::mir::{Imm, InstId, MBlock, MOp, MachFunction, Reg};
use crate::ssa_regalloc::analysis::Analysis;
use crate::ssa_view::{block, block_preds, cfg_of, mblock};

#[derive(Clone, Copy, Debug, Default)]
pub struct LicmStats {
    /// Constants moved to a preheader.
    pub hoisted: usize,
    /// Of those, the ones merged with an equal constant there.
    pub merged: usize,
    /// Loops whose hoisting the register pressure refused.
    pub refused: usize,
}

/// Moves the constants of every loop of `mf` that has a preheader to it (see the
/// module documentation).
pub fn hoist_constants(mf: &mut MachFunction) -> LicmStats {
    let mut stats = LicmStats::default();
    let cfg = cfg_of(mf);
    let loops = LoopForest::compute(&cfg);
    let preds = block_preds(mf, &cfg);
    let over = |f: &MachFunction| Analysis::compute(f).map_or(usize::MAX, |a| a.violations.len());
    let mut pressure = over(mf);
    // innermost first: the forest lists a loop before the loops it contains
    for l in loops.loops().rev() {
        let header = mblock(loops.header(l));
        let outside: Vec<MBlock> = preds[header.index()]
            .iter()
            .copied()
            .filter(|&p| !loops.contains(l, block(p)))
            .collect();
        let [pre] = outside[..] else { continue };
        let Some(last) = mf.last_inst(pre) else {
            continue;
        };
        let jumps_only_here = last.op == MOp::Op(Opcode::Br)
            && last.guard.is_always()
            && last.imm == Imm::Block(header)
            && mf
                .block_insts(pre)
                .filter(|i| i.is(Opcode::Br) || i.is(Opcode::Jr))
                .count()
                == 1;
        if !jumps_only_here {
            continue;
        }
        let body: Vec<MBlock> = loops.body(l).iter().map(|&b| mblock(b)).collect();
        if body.iter().any(|&b| {
            mf.block_insts(b)
                .any(|i| i.is(Opcode::Call) || i.is(Opcode::Callr))
        }) {
            continue;
        }
        let mut trial = mf.clone();
        // after a call with an unwind edge only its result copies may follow
        let pre = trial.end_of_normal_path(pre);
        let (hoisted, merged) = hoist(&mut trial, pre, &body);
        if hoisted == 0 {
            continue;
        }
        let after = over(&trial);
        if after > pressure {
            stats.refused += 1;
            continue;
        }
        pressure = after;
        *mf = trial;
        stats.hoisted += hoisted;
        stats.merged += merged;
    }
    stats
}

/// Moves the unguarded `movi`s of virtual registers of `body` to the end of `pre`
/// (before its branch), one per constant; how many moved and how many of those were
/// merged.
fn hoist(mf: &mut MachFunction, pre: MBlock, body: &[MBlock]) -> (usize, usize) {
    // the constants `pre` already makes, by value
    let mut made: HashMap<i64, Reg> = HashMap::new();
    for inst in mf.block_insts(pre) {
        if let Some(c) = constant(inst)
            && let Some(&d) = inst.defs.first()
        {
            made.entry(c).or_insert(d);
        }
    }
    let mut renamed: HashMap<Reg, Reg> = HashMap::new();
    let (mut hoisted, mut merged) = (0, 0);
    for &b in body {
        let ids: Vec<InstId> = mf.block_inst_ids(b).to_vec();
        let mut kept: Vec<InstId> = Vec::with_capacity(ids.len());
        for id in ids {
            let inst = mf.inst(id);
            let Some(c) = constant(inst) else {
                kept.push(id);
                continue;
            };
            let d = inst.defs[0];
            hoisted += 1;
            match made.get(&c) {
                Some(&r) => {
                    renamed.insert(d, r);
                    merged += 1;
                }
                None => {
                    made.insert(c, d);
                    let at = mf.block_len(pre) - 1;
                    let copy = mf.inst(id).clone();
                    mf.insert_inst(pre, at, copy);
                }
            }
        }
        mf.set_block_insts(b, kept);
    }
    if !renamed.is_empty() {
        for b in mf.layout.clone() {
            for id in mf.block_inst_ids(b).to_vec() {
                let inst = mf.inst_mut(id);
                for (&from, &to) in &renamed {
                    inst.replace_use(from, to);
                }
            }
        }
    }
    (hoisted, merged)
}

/// The value of an unguarded `movi` of a virtual register.
fn constant(inst: &crate::mir::MInst) -> Option<i64> {
    match (&inst.op, &inst.imm, inst.defs.first()) {
        (MOp::Op(Opcode::Movi), Imm::Const(c), Some(Reg::Virtual(_)))
            if inst.guard.is_always() && inst.keep.is_none() =>
        {
            Some(*c)
        }
        _ => None,
    }
}
