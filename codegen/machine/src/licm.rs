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

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

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
///
/// All loops are tried together and the pressure analysed once per round, not once
/// per loop (a function of a few hundred loops took seconds that way): a round hoists
/// the constants of every loop not yet refused and looks for blocks that exceed the
/// registers where they did not before. Hoisting changes the pressure only at the
/// end of a preheader and inside the loop, so such a block is blamed on the loops
/// whose preheader it ends and on the innermost loop that contains it; those are
/// refused and the next round tries the rest, from the function as it was.
pub fn hoist_constants(mf: &mut MachFunction) -> LicmStats {
    let mut stats = LicmStats::default();
    let cfg = cfg_of(mf);
    let loops = LoopForest::compute(&cfg);
    let preds = block_preds(mf, &cfg);
    let kept = kept_registers(mf);
    // innermost first: the forest lists a loop before the loops it contains, and a
    // constant leaves a nest level by level
    let candidates: Vec<Candidate> = loops
        .loops()
        .rev()
        .filter_map(|l| candidate(mf, &loops, &preds, &kept, l))
        .collect();
    if candidates.is_empty() {
        return stats;
    }
    let violating = |f: &MachFunction| Analysis::compute(f).ok().map(|a| a.violations);
    // a function the analysis refuses is left to the allocator as it is
    let Some(before) = violating(mf) else {
        return stats;
    };
    let mut refused = vec![false; candidates.len()];
    for _ in 0..MAX_ROUNDS {
        let mut trial = mf.clone();
        let mut renamed: HashMap<Reg, Reg> = HashMap::default();
        // (candidate, the block its constants went to)
        let mut applied: Vec<(usize, MBlock)> = Vec::new();
        let (mut hoisted, mut merged) = (0, 0);
        for (i, c) in candidates.iter().enumerate() {
            if refused[i] {
                continue;
            }
            // after a call with an unwind edge only its result copies may follow
            let pre = trial.end_of_normal_path(c.pre);
            let (h, m) = hoist(&mut trial, pre, &c.body, &kept, &mut renamed);
            if h > 0 {
                applied.push((i, pre));
                hoisted += h;
                merged += m;
            }
        }
        if applied.is_empty() {
            return stats;
        }
        rename_merged(&mut trial, &renamed);
        let Some(after) = violating(&trial) else {
            return stats;
        };
        let new: Vec<MBlock> = after.into_iter().filter(|b| !before.contains(b)).collect();
        if new.is_empty() {
            *mf = trial;
            stats.hoisted = hoisted;
            stats.merged = merged;
            return stats;
        }
        let mut blamed = false;
        for &b in &new {
            for &(i, pre) in &applied {
                if pre == b || candidates[i].pre == b {
                    blamed |= !refused[i];
                    refused[i] = true;
                }
            }
            // `applied` is innermost first
            if let Some(&(i, _)) = applied
                .iter()
                .find(|&&(i, _)| candidates[i].body.contains(&b))
            {
                blamed |= !refused[i];
                refused[i] = true;
            }
        }
        if !blamed {
            // a new excess that no loop explains: hoist nothing
            return stats;
        }
        stats.refused = refused.iter().filter(|&&r| r).count();
    }
    stats
}

/// Rounds of `hoist_constants` before it gives up and hoists nothing.
const MAX_ROUNDS: usize = 8;

/// A loop whose constants may move: its preheader and its blocks.
struct Candidate {
    pre: MBlock,
    body: Vec<MBlock>,
}

/// Whether the constants of loop `l` are candidates to leave it (a preheader that
/// jumps only to its header, no call in the loop, a constant in it): what the
/// schedulers before this pass may count as gone.
pub fn takes_constants_out_of(
    mf: &MachFunction,
    loops: &LoopForest,
    preds: &[Vec<MBlock>],
    kept: &HashSet<Reg>,
    l: vliw_ssa::LoopId,
) -> bool {
    candidate(mf, loops, preds, kept, l).is_some()
}

/// The registers that some operation `keeps` (writes in place under its guard): a
/// constant among them is the first link of a predicated chain and is rewritten
/// inside the loop, so it cannot leave it.
pub fn kept_registers(mf: &MachFunction) -> HashSet<Reg> {
    mf.layout
        .iter()
        .flat_map(|&b| mf.block_insts(b))
        .filter_map(|i| i.keep)
        .collect()
}

/// Whether `inst` is a constant that `machine-licm` moves out of a loop that gives
/// up its constants, `kept` being the function's `kept_registers`.
pub fn leaves_loop(inst: &crate::mir::MInst, kept: &HashSet<Reg>) -> bool {
    constant(inst, kept).is_some()
}

/// Loop `l` as a candidate: it has a preheader (one predecessor from outside that
/// ends in its only branch, an unconditional one to the header) and calls nothing (a
/// constant live across a call needs a callee-saved register or a reload).
fn candidate(
    mf: &MachFunction,
    loops: &LoopForest,
    preds: &[Vec<MBlock>],
    kept: &HashSet<Reg>,
    l: vliw_ssa::LoopId,
) -> Option<Candidate> {
    let header = mblock(loops.header(l));
    let outside: Vec<MBlock> = preds[header.index()]
        .iter()
        .copied()
        .filter(|&p| !loops.contains(l, block(p)))
        .collect();
    let [pre] = outside[..] else { return None };
    let last = mf.last_inst(pre)?;
    let jumps_only_here = last.op == MOp::Op(Opcode::Br)
        && last.guard.is_always()
        && last.imm == Imm::Block(header)
        && mf
            .block_insts(pre)
            .filter(|i| i.is(Opcode::Br) || i.is(Opcode::Jr))
            .count()
            == 1;
    if !jumps_only_here {
        return None;
    }
    let body: Vec<MBlock> = loops.body(l).iter().map(|&b| mblock(b)).collect();
    let calls = body.iter().any(|&b| {
        mf.block_insts(b)
            .any(|i| i.is(Opcode::Call) || i.is(Opcode::Callr))
    });
    let has_constant = body
        .iter()
        .any(|&b| mf.block_insts(b).any(|i| constant(i, kept).is_some()));
    (!calls && has_constant).then_some(Candidate { pre, body })
}

/// Moves the unguarded `movi`s of virtual registers of `body` to the end of `pre`
/// (before its branch), one per constant; how many moved and how many of those were
/// merged. A merged constant's register goes into `renamed` with the register its
/// readers read instead (`rename_merged` rewrites them).
fn hoist(
    mf: &mut MachFunction,
    pre: MBlock,
    body: &[MBlock],
    kept: &HashSet<Reg>,
    renamed: &mut HashMap<Reg, Reg>,
) -> (usize, usize) {
    // the constants `pre` already makes, by value
    let mut made: HashMap<i64, Reg> = HashMap::default();
    for inst in mf.block_insts(pre) {
        if let Some(c) = constant(inst, kept)
            && let Some(&d) = inst.defs.first()
        {
            made.entry(c).or_insert(d);
        }
    }
    let (mut hoisted, mut merged) = (0, 0);
    for &b in body {
        if !mf.block_insts(b).any(|i| constant(i, kept).is_some()) {
            continue;
        }
        let ids: Vec<InstId> = mf.block_inst_ids(b).to_vec();
        let mut staying: Vec<InstId> = Vec::with_capacity(ids.len());
        for id in ids {
            let inst = mf.inst(id);
            let Some(c) = constant(inst, kept) else {
                staying.push(id);
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
        mf.set_block_insts(b, staying);
    }
    (hoisted, merged)
}

/// Makes every reader of a merged constant read the register it was merged into,
/// following chains (a constant merged in an inner preheader whose own register an
/// outer preheader's merged in turn).
fn rename_merged(mf: &mut MachFunction, renamed: &HashMap<Reg, Reg>) {
    if renamed.is_empty() {
        return;
    }
    let last = |mut r: Reg| {
        while let Some(&t) = renamed.get(&r) {
            r = t;
        }
        r
    };
    for b in mf.layout.clone() {
        for id in mf.block_inst_ids(b).to_vec() {
            let inst = mf.inst_mut(id);
            if inst.all_uses().any(|r| renamed.contains_key(&r)) {
                inst.rename_uses(last);
            }
        }
    }
}

/// The value of an unguarded `movi` of a virtual register that no operation keeps
/// (`kept`: a guarded write later in the loop would overwrite the hoisted constant
/// for the next trip; the allocator's analysis refuses the function so moved, and
/// with it every constant of every loop).
fn constant(inst: &crate::mir::MInst, kept: &HashSet<Reg>) -> Option<i64> {
    match (&inst.op, &inst.imm, inst.defs.first()) {
        (MOp::Op(Opcode::Movi), Imm::Const(c), Some(d @ Reg::Virtual(_)))
            if inst.guard.is_always() && inst.keep.is_none() && !kept.contains(d) =>
        {
            Some(*c)
        }
        _ => None,
    }
}
