//! Scheduling across blocks (`pre-sched=region`): operations move up from a block
//! into its only predecessor, past the predecessor's side exit, where the
//! predecessor's schedule has room for them. This is the upward half of superblock
//! scheduling (Hwu et al.; the region former takes a block and the block it falls
//! or branches into when that block has no other way in: a trace of two, extended
//! as blocks are processed from the last to the first, so that an operation may
//! climb several blocks), on machine SSA before allocation, followed by the
//! per-block schedule of `pre_ra`.
//!
//! **What may move** (`ifconv::region::speculable`): unguarded operations without
//! side effects that cannot fault or trap (no stores, calls, divisions, traps or
//! control), with virtual results (or `p0`, a compare's unused second predicate),
//! and loads, which become their non-faulting `lds` form (what the
//! predecessor's other successor does not need it reads for nothing; our machine has
//! no memory-mapped devices, so a load has no effect). A load moves only when no
//! store, call or other memory operation comes before it in its block. Every operand
//! must be available at the end of the predecessor: defined outside the block (then
//! it dominates the block's only predecessor) or by an operation that moved already.
//! Block parameters and allocatable physical registers are not. Nothing that names a
//! block moves (a jump table's `addpc`: its targets are edges of its block).
//!
//! **No compensation code is needed**: an operation moves only upward, so on the
//! side exit its result is computed and not used (by SSA dominance nothing outside
//! the block it came from reads it), and on the path it came from it is computed
//! earlier, on the same operands. Nothing moves down.
//!
//! **Where:** the block and its predecessor are in the same innermost loop (the loop
//! forest; never across loop levels: moving into a loop body from its exit would run
//! the operation every iteration, moving out of a header is impossible since a
//! header has two predecessors), and the predecessor has no call with an unwind edge
//! (only its result copies may follow it, docs/machine.md §2; this also keeps a
//! landing block's operations where they are). **When:** an operation moves if the predecessor's
//! list schedule does not get longer with it (its length is the critical path and
//! resource bound of its operations, as `sched::list` schedules them), so the
//! predecessor's path pays nothing and the block's gets shorter or less crowded (in a
//! loop whose constants `machine-licm` takes out afterwards, `movi`s count as free).
//! **Pressure:** when the moves make the allocator's pressure analysis find blocks
//! over the register file that it did not find before, they are all undone and done
//! again without those blocks (`pre-sched.hoist-declined-pressure` counts them); if
//! blocks are still over, nothing moves. The analysis runs at most three times per
//! function, not once per move: a pass over the function each.
//!
//! The same holds inside a block for its own side exits (`(q) br X` in the middle,
//! as if-conversion leaves a loop's bounds checks): an operation moves above one when
//! the run of operations before it does not get longer (`hoist_within`, which runs
//! first), float operations excepted.
//!
//! Counters: `pre-sched.hoisted` (operations moved), `pre-sched.hoisted-loads` (of
//! them loads made speculative), `pre-sched.hoist-blocks` (blocks some moved out of).

use rustc_hash::FxHashSet as HashSet;

use cranelift_entity::{EntityRef, SecondaryMap};
use vliw_isa::MachineConfig;
use vliw_ssa::LoopForest;

use super::deps::DepGraph;
use super::pre_ra::op_info;
use crate::ifconv::region::speculable;
use crate::mir::{MBlock, MInst, MOp, MachFunction, Reg, VReg};
use crate::ssa_view::{block, cfg_of};

/// What the motion did.
#[derive(Clone, Copy, Default, Debug)]
pub struct HoistStats {
    pub hoisted: usize,
    pub hoisted_loads: usize,
    pub blocks: usize,
    pub declined_pressure: usize,
}

/// Predecessors larger than this are left alone (each candidate costs one list
/// schedule of the predecessor).
const MAX_PRED_OPS: usize = 80;
/// The most operations that move out of one block.
const MAX_MOVES: usize = 16;
/// The most candidates tried (a list schedule each) for one block or side exit.
const MAX_TRIES: usize = 24;

/// Moves operations of every block of `mf` (machine SSA) into its only predecessor
/// where that predecessor's schedule has room for them.
///
/// The pressure check runs once over the whole function (the allocator's analysis
/// costs a pass over it): when the moves leave blocks over the register file that
/// were not before, everything is undone and done again without moving into, out of
/// or within those blocks; if that is still over, nothing moves.
pub fn hoist_into_predecessors(mf: &mut MachFunction, config: &MachineConfig) -> HoistStats {
    let mut stats = HoistStats::default();
    if mf.layout.is_empty() {
        return stats;
    }
    let Ok(before) = crate::ssa_regalloc::analysis::Analysis::compute(mf) else {
        return stats;
    };
    let over_before = before.violations;
    let original = mf.clone();
    let mut excluded: Vec<MBlock> = Vec::new();
    for _round in 0..2 {
        let done = hoist_all(mf, config, &excluded);
        if done.hoisted == 0 {
            stats.hoisted = 0;
            return stats;
        }
        let new_over: Vec<MBlock> = match crate::ssa_regalloc::analysis::Analysis::compute(mf) {
            Ok(a) => a
                .violations
                .into_iter()
                .filter(|v| !over_before.contains(v))
                .collect(),
            Err(_) => {
                *mf = original;
                return stats;
            }
        };
        if new_over.is_empty() {
            stats.hoisted = done.hoisted;
            stats.hoisted_loads = done.hoisted_loads;
            stats.blocks = done.blocks;
            return stats;
        }
        stats.declined_pressure += new_over.len();
        excluded.extend(new_over);
        *mf = original.clone();
    }
    stats
}

/// One round of moves, none into, out of or within the `excluded` blocks.
fn hoist_all(mf: &mut MachFunction, config: &MachineConfig, excluded: &[MBlock]) -> HoistStats {
    let mut stats = HoistStats::default();
    let cfg = cfg_of(mf);
    let loops = LoopForest::compute(&cfg);
    let preds = crate::ssa_view::block_preds(mf, &cfg);
    let bases = super::pre_ra::address_bases(mf);
    let quick = quick_values(mf, config);
    let single_use = single_uses(mf);
    // the loops whose constants `machine-licm` takes out later, and their blocks
    let kept = crate::licm::kept_registers(mf);
    let constants_leave: Vec<bool> = loops
        .loops()
        .map(|l| crate::licm::takes_constants_out_of(mf, &loops, &preds, &kept, l))
        .collect();
    let free_constants: Vec<bool> = (0..mf.blocks.len())
        .map(|b| {
            loops
                .innermost_loop(vliw_ssa::Block::new(b))
                .is_some_and(|l| constants_leave[l.index()])
        })
        .collect();
    // the blocks defining each virtual register
    let mut def_block: SecondaryMap<VReg, Option<MBlock>> = SecondaryMap::new();
    for &b in &mf.layout {
        for &p in &mf.blocks[b].params {
            def_block[p] = Some(b);
        }
        for inst in mf.block_insts(b) {
            for d in inst.defs.iter().filter_map(|r| r.as_virtual()) {
                def_block[d] = Some(b);
            }
        }
    }
    // within blocks first: up across a block's own side exits (a superblock that
    // if-conversion made, its bounds checks branching out of it)
    for b in mf.layout.clone().into_iter().rev() {
        if excluded.contains(&b) {
            continue;
        }
        let (moved, loads) = hoist_within(
            mf,
            b,
            &def_block,
            &|v| quick[v] || defined_outside_loop_of(&loops, &def_block, b, v),
            &single_use,
            &bases,
            config,
            free_constants[b.index()].then_some(&kept),
        );
        if moved > 0 {
            stats.hoisted += moved;
            stats.hoisted_loads += loads;
            stats.blocks += 1;
        }
    }
    // from the last block to the first, so that moved operations may move on
    for s in mf.layout.clone().into_iter().rev() {
        let [p] = preds[s.index()][..] else { continue };
        // nothing may follow a call with an unwind edge but its result copies, and
        // its landing block's operations run only when it unwinds
        if p == s
            || excluded.contains(&p)
            || excluded.contains(&s)
            || mf.unwinds_from(p)
            || loops.innermost_loop(block(p)) != loops.innermost_loop(block(s))
        {
            continue;
        }
        let read_before = read_on_the_way_to(mf, &preds, &loops, p);
        let Some(moves) = choose(
            mf,
            p,
            s,
            &def_block,
            &|v| {
                quick[v]
                    || defined_outside_loop_of(&loops, &def_block, p, v)
                    || read_before.contains(&v)
            },
            &single_use,
            &bases,
            config,
            free_constants[p.index()].then_some(&kept),
        ) else {
            continue;
        };
        let loads = apply(mf, p, s, &moves);
        for &i in &moves {
            for d in mf.inst(i).defs.iter().filter_map(|r| r.as_virtual()) {
                def_block[d] = Some(p);
            }
        }
        stats.hoisted += moves.len();
        stats.hoisted_loads += loads;
        stats.blocks += 1;
    }
    stats
}

/// Whether `v` is made outside the innermost loop around block `b`: then it is
/// ready in `b`, since what its producer leaves in flight is waited for on the way
/// into the loop (`pad`), once.
fn defined_outside_loop_of(
    loops: &LoopForest,
    def_block: &SecondaryMap<VReg, Option<MBlock>>,
    b: MBlock,
    v: VReg,
) -> bool {
    def_block[v].is_some_and(|d| {
        loops
            .innermost_loop(block(b))
            .is_some_and(|l| !loops.contains(l, block(d)))
    })
}

/// Moves operations of block `b` up across its own side exits (`(q) br X` in the
/// middle of the block), from the last to the first, under the rules of moving into
/// a predecessor: the run of operations before the side exit is the predecessor.
/// Returns how many operations moved, and how many of them were loads.
fn hoist_within(
    mf: &mut MachFunction,
    b: MBlock,
    def_block: &SecondaryMap<VReg, Option<MBlock>>,
    quick: &dyn Fn(VReg) -> bool,
    single_use: &SecondaryMap<VReg, bool>,
    bases: &SecondaryMap<VReg, Option<(VReg, i64)>>,
    config: &MachineConfig,
    free_constants: Option<&HashSet<Reg>>,
) -> (usize, usize) {
    let (mut moved_total, mut loads) = (0, 0);
    let is_control = |mi: &MInst| matches!(mi.op, MOp::Op(o) if o.is_control());
    // moving operations from after a side exit to before it changes no position
    // before it: the side exits are found once, and taken from the last (only the
    // exit itself moves down, past what moved above it)
    let mut ids = mf.block_inst_ids(b).to_vec();
    let mut controls: Vec<usize> = (0..ids.len())
        .filter(|&i| is_control(mf.inst(ids[i])))
        .collect();
    let exits: Vec<usize> = controls
        .iter()
        .copied()
        .filter(|&i| {
            let mi = mf.inst(ids[i]);
            !mi.guard.is_always() && !mi.branch_targets(mf).is_empty() && i + 1 < ids.len()
        })
        .collect();
    for &c in exits.iter().rev() {
        // the run after the side exit, up to the next control operation
        let after_end = controls
            .iter()
            .copied()
            .find(|&i| i > c)
            .unwrap_or(ids.len());
        let before_start = controls
            .iter()
            .copied()
            .rev()
            .find(|&i| i < c)
            .map_or(0, |k| k + 1);
        if c - before_start > MAX_PRED_OPS {
            continue;
        }
        // values made in the block at or after the side exit are not available above it
        // (only the run after it can read them, as far as moving goes)
        let mut later: rustc_hash::FxHashSet<VReg> = rustc_hash::FxHashSet::default();
        for &i in &ids[c..after_end] {
            later.extend(mf.inst(i).defs.iter().filter_map(|r| r.as_virtual()));
        }
        let trial: Vec<MInst> = ids[before_start..=c]
            .iter()
            .map(|&i| mf.inst(i).clone())
            .collect();
        // (float operations stay: above a side exit they made `spectral_norm` 4%
        // slower, and gained nothing elsewhere)
        let available = |v: VReg| match def_block[v] {
            Some(d) if d == b => !later.contains(&v),
            Some(_) => quick(v),
            None => false,
        };
        let moved = pick(
            mf,
            &ids[c + 1..after_end],
            &available,
            single_use,
            false,
            trial,
            c - before_start,
            bases,
            config,
            free_constants,
        );
        if moved.is_empty() {
            continue;
        }
        for &i in &moved {
            if let MOp::Op(o) = mf.inst(i).op
                && let Some(spec) = o.speculative_load()
            {
                mf.inst_mut(i).op = MOp::Op(spec);
                loads += 1;
            }
        }
        // [c, after_end) becomes the moved operations, the side exit, the rest
        let rest: Vec<_> = ids[c..after_end]
            .iter()
            .copied()
            .filter(|i| !moved.contains(i))
            .collect();
        ids.splice(c..after_end, moved.iter().copied().chain(rest));
        // the side exit is now after them: what moved may climb on above the one before
        if let Some(k) = controls.iter().position(|&i| i == c) {
            controls[k] = c + moved.len();
        }
        moved_total += moved.len();
    }
    if moved_total > 0 {
        mf.set_block_insts(b, ids);
    }
    (moved_total, loads)
}

/// Where in `p`'s instruction list moved operations go: before the first operation
/// that leads to `s` (a branch, possibly in the middle of the block: a block may have
/// side exits before its end; or the `addpc` of a jump table) and the side exits
/// right before it (`(q) br X; br S`: above `(q) br X`, or nothing would be
/// speculated), with the start of the run of operations before that which no control
/// operation interrupts (what the schedule of `p` overlaps them with).
fn insertion_point(mf: &MachFunction, p: MBlock, s: MBlock) -> Option<(usize, usize)> {
    let ids = mf.block_inst_ids(p);
    let mut at = ids
        .iter()
        .position(|&i| mf.inst(i).branch_targets(mf).contains(&s))?;
    // above the side exits right before it: `(p) br X; br S` moves up past `(p) br X`
    // (branches to blocks only: never above a call, which may write what a load reads)
    while at > 0 && !mf.inst(ids[at - 1]).branch_targets(mf).is_empty() {
        at -= 1;
    }
    let start = ids[..at]
        .iter()
        .rposition(|&i| matches!(mf.inst(i).op, MOp::Op(o) if o.is_control()))
        .map_or(0, |k| k + 1);
    Some((start, at))
}

/// The values ready one cycle after they are made wherever they are made: defined
/// by an operation of latency 1, or block parameters whose incoming values all are
/// (a constant, `r0`, a quick value or parameter). An operation that moves up reads its operands earlier; one
/// made by a longer operation in another block (a loop-carried product, a load) may
/// then not be ready at the start of the predecessor, and the allocated schedule
/// would pad the block before it: such operations stay — unless the value is made
/// outside the loop around the predecessor (a loop-invariant key or bound loaded
/// before the loop): what it leaves in flight is waited for once, on the way into
/// the loop (`pad` delays the exits of the blocks before it), never in the loop.
fn quick_values(mf: &MachFunction, config: &MachineConfig) -> SecondaryMap<VReg, bool> {
    let mut quick: SecondaryMap<VReg, bool> = SecondaryMap::new();
    for &b in &mf.layout {
        for inst in mf.block_insts(b) {
            let fast = match inst.op {
                MOp::Op(o) => config.latency(o.latency_class()) <= 1,
                MOp::Copy => true,
                _ => false,
            };
            for d in inst.defs.iter().filter_map(|r| r.as_virtual()) {
                quick[d] = fast;
            }
        }
    }
    // block parameters: quick when every argument passed to them is, to a fixpoint
    // from the optimistic start (a loop's parameter fed by itself and quick values
    // is quick; one fed by a load is not, nor is what it feeds)
    for &b in &mf.layout {
        for &p in &mf.blocks[b].params {
            quick[p] = true;
        }
    }
    let edges: Vec<(VReg, Reg)> = mf
        .layout
        .iter()
        .flat_map(|&b| mf.block_insts(b))
        .filter_map(|inst| match inst.imm {
            crate::mir::Imm::Block(t) => Some((t, inst)),
            _ => None,
        })
        .flat_map(|(t, inst)| {
            mf.blocks[t]
                .params
                .iter()
                .copied()
                .zip(inst.args.iter().copied())
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for &(p, a) in &edges {
            let ok = match a {
                Reg::Virtual(v) => quick[v],
                r => r == Reg::ZERO,
            };
            if quick[p] && !ok {
                quick[p] = false;
                changed = true;
            }
        }
    }
    quick
}

/// The values that an operation of `p` or of the blocks that lead to `p` alone (up to
/// [`READ_CHAIN`] blocks back in its loop) reads: the schedule has waited for them
/// by the end of `p` (an operation reads its operands, and the allocated schedule
/// pads for them, whatever its guard), so an operation moving into `p` may read them
/// however long they took to make (`mandelbrot`'s `2.0 * zr`, `zr` a loop-carried
/// sum that its header squares first).
fn read_on_the_way_to(
    mf: &MachFunction,
    preds: &[Vec<MBlock>],
    loops: &LoopForest,
    p: MBlock,
) -> rustc_hash::FxHashSet<VReg> {
    // the block itself: an operation moved to its end reads what it already waited
    // for (a loop's carried product that its first operations read)
    let mut read: rustc_hash::FxHashSet<VReg> = mf
        .block_insts(p)
        .flat_map(|inst| inst.all_uses().filter_map(|r| r.as_virtual()))
        .collect();
    let mut b = p;
    for _ in 0..READ_CHAIN {
        match preds[b.index()][..] {
            [q] if q != b && loops.innermost_loop(block(q)) == loops.innermost_loop(block(p)) => {
                b = q
            }
            _ => break,
        }
        for inst in mf.block_insts(b) {
            read.extend(inst.all_uses().filter_map(|r| r.as_virtual()));
        }
    }
    read
}

/// How many blocks back `read_on_the_way_to` looks.
const READ_CHAIN: usize = 3;

/// The list schedule of a run of operations as the moves weigh it: its length and
/// the cycle of each branch in it, in order.
struct TrialSchedule {
    length: i64,
    branches: Vec<u32>,
}

impl TrialSchedule {
    /// No longer than `base`, and no branch later: no path out of the run pays
    /// (moved operations are not branches, so the branches pair up in order).
    fn no_worse_than(&self, base: &TrialSchedule) -> bool {
        self.length <= base.length
            && self.branches.len() == base.branches.len()
            && self
                .branches
                .iter()
                .zip(&base.branches)
                .all(|(a, b)| a <= b)
    }
}

fn trial_schedule(
    insts: &[MInst],
    bases: &SecondaryMap<VReg, Option<(VReg, i64)>>,
    config: &MachineConfig,
    free_constants: Option<&HashSet<Reg>>,
) -> TrialSchedule {
    // (`DepGraph::build` numbers the registers of these few operations densely)
    // Constants are left out, as if ready at the start, where `free_constants` says
    // that `machine-licm` takes them to the loop's preheader after scheduling: they
    // would otherwise crowd the first cycles and keep what reads them from moving
    // (`mandelbrot`'s `2.0 * zr`).
    let mut ops: Vec<_> = insts
        .iter()
        .filter(|mi| !free_constants.is_some_and(|kept| crate::licm::leaves_loop(mi, kept)))
        .map(|mi| op_info(mi, bases, config))
        .collect();
    let g = DepGraph::build(&mut ops);
    // A result that only the run's branches wait for (nothing crosses a branch) is
    // for the block after it: its latency runs on past the run's end and makes it no
    // priority here (a moved chain `2.0 * zr * zi + ci` would otherwise go before the
    // compare that the run's exit waits for, and seem to lengthen the run).
    let only_barriers: Vec<bool> = (0..ops.len())
        .map(|i| g.succs[i].iter().all(|e| ops[e.to].barrier))
        .collect();
    for (op, leaf) in ops.iter_mut().zip(only_barriers) {
        if leaf && !op.barrier {
            op.latency = op.latency.min(1);
        }
    }
    let cycles = super::list::schedule(&ops, &g, config);
    TrialSchedule {
        length: cycles.iter().map(|&c| i64::from(c) + 1).max().unwrap_or(0),
        branches: ops
            .iter()
            .zip(&cycles)
            .filter(|(op, _)| op.barrier)
            .map(|(_, &c)| c)
            .collect(),
    }
}

/// Whether `inst` is a guarded definition that keeps a value read nowhere else
/// (`(g) d = op ... keeps k`, a ψ out of Psi-SSA by predicated copies) and computes
/// what may be speculated: above a side exit it overwrites `k`'s register on the
/// exit's path too when `g` holds there, which nothing reads, and it cannot fault.
fn movable_keeper(inst: &MInst, single_use: &SecondaryMap<VReg, bool>) -> bool {
    let Some(Reg::Virtual(k)) = inst.keep else {
        return false;
    };
    let mut unguarded = inst.clone();
    unguarded.guard = crate::mir::MGuard::ALWAYS;
    unguarded.keep = None;
    single_use[k]
        && !matches!(inst.op, MOp::Op(o) if o.unit() == vliw_isa::Unit::Mem)
        && speculable(&unguarded, false)
}

/// The values read exactly once in `mf`.
fn single_uses(mf: &MachFunction) -> SecondaryMap<VReg, bool> {
    let mut count: SecondaryMap<VReg, u32> = SecondaryMap::new();
    for &b in &mf.layout {
        for inst in mf.block_insts(b) {
            for v in inst.all_uses().filter_map(|r| r.as_virtual()) {
                count[v] += 1;
            }
        }
    }
    let mut single: SecondaryMap<VReg, bool> = SecondaryMap::new();
    for (v, &n) in count.iter() {
        single[v] = n == 1;
    }
    single
}

/// Of `candidates` (operations in order, up to the first control operation), those
/// that may move to index `at` of `trial` (a run of operations ending in a branch)
/// without lengthening its list schedule: speculable (loads as `lds`, and only
/// when no other memory operation comes before them), `floats` or not a float
/// operation, naming no block, keeping nothing, writing virtual registers, reading
/// values `available` there or made by an operation that moves before them.
#[allow(clippy::too_many_arguments)]
fn pick(
    mf: &MachFunction,
    candidates: &[crate::mir::InstId],
    available: &dyn Fn(VReg) -> bool,
    single_use: &SecondaryMap<VReg, bool>,
    floats: bool,
    mut trial: Vec<MInst>,
    at: usize,
    bases: &SecondaryMap<VReg, Option<(VReg, i64)>>,
    config: &MachineConfig,
    free_constants: Option<&HashSet<Reg>>,
) -> Vec<crate::mir::InstId> {
    let base = trial_schedule(&trial, bases, config, free_constants);
    let mut moved: Vec<crate::mir::InstId> = Vec::new();
    let mut moved_defs: Vec<VReg> = Vec::new();
    let mut memory_before = false;
    let mut tries = 0;
    for &i in candidates {
        let inst = mf.inst(i);
        // (a speculative load is a load too: it orders nothing after it)
        let is_load = matches!(inst.op, MOp::Op(o)
            if o.speculative_load().is_some() || o.is_speculative_load());
        let float = matches!(inst.op, MOp::Op(o) if matches!(
            o.latency_class(),
            vliw_isa::LatencyClass::Float | vliw_isa::LatencyClass::FloatCompare
        ));
        let movable = (speculable(inst, !memory_before) || movable_keeper(inst, single_use))
            && (floats || !float)
            && !matches!(inst.op, MOp::Psi | MOp::ParallelCopy)
            // (a jump table's `addpc` names the blocks it leads to: an edge)
            && !matches!(inst.imm, crate::mir::Imm::Block(_) | crate::mir::Imm::JumpTable(_))
            && (inst.keep.is_none() || movable_keeper(inst, single_use))
            && inst.all_uses().all(|r| match r {
                Reg::Virtual(v) => moved_defs.contains(&v) || available(v),
                r => r == Reg::ZERO || r == Reg::P0,
            })
            // (a compare's unused second predicate is `p0`)
            && inst.defs.iter().all(|d| d.as_virtual().is_some() || *d == Reg::P0);
        if let MOp::Op(o) = inst.op
            && o.unit() == vliw_isa::Unit::Mem
            && !is_load
        {
            memory_before = true;
        }
        if matches!(inst.op, MOp::Op(o) if o.is_control()) {
            break;
        }
        if !movable {
            continue;
        }
        if tries == MAX_TRIES {
            break;
        }
        tries += 1;
        let mut candidate = inst.clone();
        if let MOp::Op(o) = inst.op
            && let Some(spec) = o.speculative_load()
        {
            candidate.op = MOp::Op(spec);
        }
        trial.insert(at + moved.len(), candidate);
        if !trial_schedule(&trial, bases, config, free_constants).no_worse_than(&base) {
            trial.remove(at + moved.len());
            continue;
        }
        moved.push(i);
        moved_defs.extend(inst.defs.iter().filter_map(|r| r.as_virtual()));
        if moved.len() == MAX_MOVES {
            break;
        }
    }
    moved
}

/// The operations of `s` (by id, in order) that move into `p`.
fn choose(
    mf: &MachFunction,
    p: MBlock,
    s: MBlock,
    def_block: &SecondaryMap<VReg, Option<MBlock>>,
    quick: &dyn Fn(VReg) -> bool,
    single_use: &SecondaryMap<VReg, bool>,
    bases: &SecondaryMap<VReg, Option<(VReg, i64)>>,
    config: &MachineConfig,
    free_constants: Option<&HashSet<Reg>>,
) -> Option<Vec<crate::mir::InstId>> {
    let p_ids = mf.block_inst_ids(p);
    let (start, at) = insertion_point(mf, p, s)?;
    if at - start > MAX_PRED_OPS {
        return None;
    }
    // the run before the branch to `s`, with the side exits before that branch and
    // the branch itself; moved operations go before the first of them (a move that
    // fills the bundle of the first exit can push the branch to `s` into the next
    // cycle). The exits after the branch to `s` are left out: counting them kept
    // `sort`'s merge from loading its next elements above its bounds checks (2.4%
    // slower), and gained `state_machine` 2% only
    let to_s = at
        + p_ids[at..]
            .iter()
            .position(|&i| mf.inst(i).branch_targets(mf).contains(&s))
            .unwrap_or(0);
    let trial: Vec<MInst> = p_ids[start..=to_s]
        .iter()
        .map(|&i| mf.inst(i).clone())
        .collect();
    let available = |v: VReg| match def_block[v] {
        Some(d) if d == p => true,
        Some(d) => d != s && quick(v),
        None => false,
    };
    let moved = pick(
        mf,
        mf.block_inst_ids(s),
        &available,
        single_use,
        true,
        trial,
        at - start,
        bases,
        config,
        free_constants,
    );
    (!moved.is_empty()).then_some(moved)
}

/// Moves `moves` (operations of `s`, in order) to the end of `p`, before its
/// control operations, loads as `lds`. Returns how many loads moved.
fn apply(mf: &mut MachFunction, p: MBlock, s: MBlock, moves: &[crate::mir::InstId]) -> usize {
    let mut loads = 0;
    for &i in moves {
        if let MOp::Op(o) = mf.inst(i).op
            && let Some(spec) = o.speculative_load()
        {
            mf.inst_mut(i).op = MOp::Op(spec);
            loads += 1;
        }
    }
    let rest: Vec<_> = mf
        .take_block_insts(s)
        .into_iter()
        .filter(|i| !moves.contains(i))
        .collect();
    mf.set_block_insts(s, rest);
    let (_, at) = insertion_point(mf, p, s).expect("chosen with one");
    let mut order = mf.take_block_insts(p);
    order.splice(at..at, moves.iter().copied());
    mf.set_block_insts(p, order);
    loads
}
