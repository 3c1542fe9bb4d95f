//! Scheduling before register allocation (`pre-sched=block`): the operations of each
//! block of machine SSA are put in the order of a list schedule over virtual
//! registers, so that the allocator sees the lifetimes the schedule wants. After
//! allocation the list scheduler (`sched=list`) bundles again on physical registers;
//! when it runs after this pass, the registers the allocator reuses follow the
//! schedule's order instead of the source's, and the anti and output dependences
//! they add no longer serialize independent work (the iterations of an unrolled loop,
//! the arms of an if-converted region, loads that could start early).
//!
//! The dependence graph is `deps::DepGraph` over register indices: the physical
//! registers as after allocation, then every virtual register (`NUM_REGS + index`).
//! In SSA a virtual register has one definition, so its edges are true dependences
//! only (the writer's latency). Two accesses are independent when their bases
//! resolve, through `add v, imm` chains, to one virtual register at offsets whose
//! bytes do not overlap: the iterations of an unrolled loop that advance one pointer
//! by immediates are then seen apart. A definition that keeps a value
//! (`MInst::keep`) must stay its last reader, as the allocator requires: every other
//! reader is ordered before it.
//!
//! Only *segments* are reordered: the runs of operations between control operations
//! (other than `trap`) and operations that read or write an allocatable physical
//! register (the parameter copies of the entry, a call's argument and result copies,
//! a return's result). Those keep their places, so physical live ranges stay as
//! short as instruction selection made them and nothing crosses a call.
//!
//! **Register pressure.** The scheduler tracks the virtual registers live at each
//! point per class (a use is a last use when no operation of the segment still reads
//! the value and the value is not live after the segment), against the registers the
//! allocator may hand out (`ssa_regalloc::regs::allocatable`). Near the limit it
//! prefers, among the operations that may issue, those that free the most registers
//! of the class that is short, and an operation that would take the class past the
//! limit waits; when nothing else could ever issue, the oldest goes. A schedule that
//! never came near the limit is taken. Otherwise several candidates are scheduled and
//! the shortest whose peak fits the registers (or does not exceed the original
//! order's) is kept: against all the registers, against tighter targets (an eighth
//! less each time, down to half), and with a *window*: only operations less than `w`
//! after the oldest one not yet placed may issue, for `w` from 192 down to 8, so that
//! no more independent chains are open at once than the registers hold (`nbody`'s ten
//! pairs of bodies, unrolled into one block of 347 operations: window 120, a schedule
//! of 210 cycles where the best fitting one without a window takes 426;
//! `pre-sched.windowed`). A window of one would be the program order, which fits.
//! Segments of more than [`SEARCHED`] operations try no windows. Those where no
//! candidate fits are reordered in chunks of 64 operations, each on its own (`pre-sched.chunked`); a
//! chunk that still does not fit keeps its original order, as does a segment none of
//! whose chunks fits (`pre-sched.kept-for-pressure`), so that scheduling never makes
//! the spiller work.

use cranelift_entity::{EntityRef, SecondaryMap};
use vliw_isa::{CmpType, FieldKind, Inst, MachineConfig, Opcode};
use vliw_ssa::bitset::BitSet;
use vliw_ssa::{LiveSets, LoopForest};

use super::deps::{Access, DepGraph, DepKind, NUM_REGS, OpInfo, access_size, reg_index};
use super::list::priorities;
use crate::mir::{Imm, InstId, MBlock, MInst, MOp, MachFunction, PReg, Reg, RegClass, VReg};
use crate::ssa_regalloc::regs::{allocatable, class_index};
use crate::ssa_view::{SsaView, block, cfg_of};

/// What the pass did, for the counters.
#[derive(Clone, Copy, Default, Debug)]
pub struct PreSchedStats {
    /// Blocks whose order changed.
    pub blocks: usize,
    /// Segments left in their order because the schedule needed more registers.
    pub kept_for_pressure: usize,
    /// Segments too large to reorder whole within the registers, reordered chunk by
    /// chunk.
    pub chunked: usize,
    /// Segments reordered whole by looking only a window of the program order ahead.
    pub windowed: usize,
}

/// Reorders the operations of every block of `mf` (machine SSA) by a list schedule
/// with `config`'s units, width and latencies.
pub fn schedule_before_allocation(mf: &mut MachFunction, config: &MachineConfig) -> PreSchedStats {
    let mut stats = PreSchedStats::default();
    if mf.layout.is_empty() {
        return stats;
    }
    let bases = address_bases(mf);
    let cfg = cfg_of(mf);
    let loops = LoopForest::compute(&cfg);
    let live = LiveSets::compute(&cfg, &loops, &SsaView { mf });
    let limit = [
        allocatable(RegClass::Gpr).count_ones() as i64,
        allocatable(RegClass::Pred).count_ones() as i64,
    ];
    // one table for every block, its entries cleared after each (a table per block
    // would be sized by the function's registers every time)
    let mut last_read: SecondaryMap<VReg, usize> = SecondaryMap::new();
    for b in mf.layout.clone() {
        let ids = mf.block_inst_ids(b).to_vec();
        let carried = carried_values(mf, b);
        let order = schedule_block(
            mf,
            &ids,
            &carried,
            live.live_out(block(b)),
            &bases,
            &mut last_read,
            limit,
            config,
            &mut stats,
        );
        if order != ids {
            mf.set_block_insts(b, order);
            stats.blocks += 1;
        }
    }
    stats
}

/// The register index of `r` in the dependence graph; `None` for `r0` and `p0`.
pub(crate) fn index(r: Reg) -> Option<usize> {
    match r {
        Reg::Physical(p) if p == PReg::gpr(0) || p == PReg::pred(0) => None,
        Reg::Physical(p) => Some(reg_index(p)),
        Reg::Virtual(v) => Some(NUM_REGS + v.index()),
    }
}

/// For each virtual register defined as `add u, imm` (unguarded), the register at
/// the root of such chains and its offset from it.
pub(crate) fn address_bases(mf: &MachFunction) -> SecondaryMap<VReg, Option<(VReg, i64)>> {
    let mut step: SecondaryMap<VReg, Option<(VReg, i64)>> = SecondaryMap::new();
    for inst in mf.layout_insts() {
        if let (MOp::Op(Opcode::AddI), [Reg::Virtual(d)], [Reg::Virtual(u)], Imm::Const(c)) =
            (inst.op, &inst.defs[..], &inst.uses[..], &inst.imm)
            && inst.guard.is_always()
            && inst.keep.is_none()
        {
            step[*d] = Some((*u, *c));
        }
    }
    let mut resolved: SecondaryMap<VReg, Option<(VReg, i64)>> = SecondaryMap::new();
    for (v, _) in mf.vregs.iter() {
        let (mut root, mut offset) = (v, 0i64);
        // SSA definitions do not form cycles through `add`s of a block, but a loop's
        // parameters are not followed and a cap keeps bad input finite
        for _ in 0..64 {
            let Some((u, c)) = step[root] else { break };
            let Some(o) = offset.checked_add(c) else {
                break;
            };
            root = u;
            offset = o;
        }
        if root != v {
            resolved[v] = Some((root, offset));
        }
    }
    resolved
}

/// The machine operation's encoding facts without registers: opcode, compare type and
/// immediate (`Inst::syllables`, units). A copy is a `mov`.
fn unallocated_inst(mi: &MInst) -> Inst {
    let opcode = match mi.op {
        MOp::Op(o) => o,
        MOp::Copy | MOp::ParallelCopy | MOp::Psi => Opcode::Mov,
    };
    let mut inst = Inst::new(opcode);
    inst.ctype = mi.ctype;
    inst.long = mi.long;
    if let Imm::Const(c) = mi.imm
        && opcode.format().has(FieldKind::Imm)
    {
        inst.imm = c;
    }
    inst
}

/// What the dependence graph needs of an operation of machine SSA.
pub(crate) fn op_info(
    mi: &MInst,
    bases: &SecondaryMap<VReg, Option<(VReg, i64)>>,
    config: &MachineConfig,
) -> OpInfo {
    let inst = unallocated_inst(mi);
    // the kept value, when nothing but `keep` reads it (see `OpInfo::keep`)
    let kept = mi.keep.and_then(index);
    let times_read = |r: usize| mi.all_uses().filter_map(index).filter(|&u| u == r).count();
    let keep = kept.filter(|&k| times_read(k) == 1);
    let mut reads: Vec<usize> = Vec::new();
    for r in mi.all_uses().filter_map(index) {
        if Some(r) != keep && !reads.contains(&r) {
            reads.push(r);
        }
    }
    let conditional = !(mi.guard.is_always() || mi.ctype == CmpType::Unc)
        || !matches!(mi.ctype, CmpType::Normal | CmpType::Unc);
    let mut writes: Vec<(usize, bool)> = Vec::new();
    for r in mi.all_defs().filter_map(index) {
        if !writes.iter().any(|w| w.0 == r) {
            writes.push((r, conditional));
        }
    }
    let op = inst.opcode;
    let offset = match mi.imm {
        Imm::Const(c) => Some(c),
        Imm::None => Some(0),
        _ => None,
    };
    let place = match (mi.uses.first().copied(), offset, access_size(op)) {
        (Some(Reg::Virtual(v)), Some(off), Some(size)) => {
            let (root, delta) = bases[v].unwrap_or((v, 0));
            off.checked_add(delta)
                .map(|o| (NUM_REGS + root.index(), 0, o, size))
        }
        (Some(r @ Reg::Physical(_)), Some(off), Some(size)) => index(r).map(|i| (i, 0, off, size)),
        _ => None,
    };
    let access = Access::of(op, place, mi.scope);
    OpInfo {
        inst,
        reads,
        keep,
        writes,
        latency: config.latency(op.latency_class()),
        access,
        barrier: op.is_control() && op != Opcode::Trap,
        trap: op == Opcode::Trap,
    }
}

/// Whether `mi` keeps its place: a control operation other than `trap`, or one that
/// reads or writes an allocatable physical register.
fn is_fixed(mi: &MInst) -> bool {
    let control = matches!(mi.op, MOp::Op(o) if o.is_control() && o != Opcode::Trap);
    let physical = |r: Reg| match r {
        Reg::Physical(p) => {
            let (class, n) = crate::ssa_regalloc::regs::number(p);
            allocatable(class) & (1 << n) != 0
        }
        Reg::Virtual(_) => false,
    };
    control || mi.all_uses().any(physical) || mi.all_defs().any(physical)
}

/// The new order of one block's operations.
fn schedule_block(
    mf: &MachFunction,
    ids: &[InstId],
    carried: &[(VReg, VReg)],
    live_out: &BitSet,
    bases: &SecondaryMap<VReg, Option<(VReg, i64)>>,
    last_read: &mut SecondaryMap<VReg, usize>,
    limit: [i64; 2],
    config: &MachineConfig,
    stats: &mut PreSchedStats,
) -> Vec<InstId> {
    let insts: Vec<&MInst> = ids.iter().map(|&i| mf.inst(i)).collect();
    // the last index of the block reading each virtual register (all 0 on entry, and
    // again on return)
    for (k, mi) in insts.iter().enumerate() {
        for v in mi.all_uses().filter_map(Reg::as_virtual) {
            last_read[v] = k + 1; // 0: not read in the block
        }
    }
    // the live set before each segment start and each chunk start within a segment
    // (every [`CHUNK`] operations: where a segment too large to reorder whole without
    // more registers is reordered piece by piece), by a backward walk
    let mut live = live_out.clone();
    let mut live_before: Vec<Option<BitSet>> = vec![None; insts.len()];
    let segments = segments(&insts);
    let mut is_start = vec![false; insts.len()];
    for s in &segments {
        for k in s.clone().step_by(CHUNK) {
            is_start[k] = true;
        }
    }
    for k in (0..insts.len()).rev() {
        for d in insts[k].defs.iter().filter_map(|r| r.as_virtual()) {
            live.remove(d.index());
        }
        for u in insts[k].all_uses().filter_map(Reg::as_virtual) {
            live.insert(u.index());
        }
        if is_start[k] {
            live_before[k] = Some(live.clone());
        }
    }
    let mut order: Vec<InstId> = ids.to_vec();
    let ctx = RangeContext {
        mf,
        insts: &insts,
        live_out,
        last_read,
        carried,
        bases,
        limit,
        config,
    };
    for seg in segments {
        match ctx.reorder(seg.clone(), &live_before) {
            Reordered::Whole(new) => apply(&mut order, ids, seg.start, &new),
            Reordered::Windowed(new) => {
                apply(&mut order, ids, seg.start, &new);
                stats.windowed += 1;
            }
            Reordered::Unchanged => {}
            Reordered::TooManyRegisters => {
                // piece by piece: each chunk scheduled on its own (operations move
                // within it only), kept as it was when it too needs more registers
                let chunks: Vec<_> = seg
                    .clone()
                    .step_by(CHUNK)
                    .map(|k| k..(k + CHUNK).min(seg.end))
                    .filter(|r| r.len() >= 2)
                    .collect();
                let mut kept = 0;
                for r in &chunks {
                    match ctx.reorder(r.clone(), &live_before) {
                        Reordered::Whole(new) | Reordered::Windowed(new) => {
                            apply(&mut order, ids, r.start, &new)
                        }
                        Reordered::Unchanged => {}
                        Reordered::TooManyRegisters => kept += 1,
                    }
                }
                if kept == chunks.len() {
                    stats.kept_for_pressure += 1;
                } else {
                    stats.chunked += 1;
                }
            }
        }
    }
    for mi in &insts {
        for v in mi.all_uses().filter_map(Reg::as_virtual) {
            last_read[v] = 0;
        }
    }
    order
}

/// The windows of the program order tried, largest first, when no schedule of a
/// whole segment fits the registers.
const WINDOWS: [usize; 14] = [192, 160, 144, 128, 120, 112, 104, 96, 80, 64, 48, 32, 16, 8];

/// The most operations of a range for which the windowed candidates are tried (each
/// is a list schedule of the whole range).
const SEARCHED: usize = 1024;

/// The operations per chunk of a segment that cannot be reordered whole within the
/// registers.
const CHUNK: usize = 64;

/// Writes the new order `new` (indices relative to `start`) of a range into `order`.
fn apply(order: &mut [InstId], ids: &[InstId], start: usize, new: &[usize]) {
    for (k, &i) in new.iter().enumerate() {
        order[start + k] = ids[start + i];
    }
}

/// What reordering a range of a segment found.
enum Reordered {
    /// The new order (indices relative to the range's start).
    Whole(Vec<usize>),
    /// The new order, found by looking only a window of the program order ahead.
    Windowed(Vec<usize>),
    /// The schedule keeps the order.
    Unchanged,
    /// Every schedule needs more registers than there are where the order did not.
    TooManyRegisters,
}

/// One block's facts, for reordering ranges of its segments.
struct RangeContext<'a> {
    mf: &'a MachFunction,
    insts: &'a [&'a MInst],
    live_out: &'a BitSet,
    last_read: &'a SecondaryMap<VReg, usize>,
    carried: &'a [(VReg, VReg)],
    bases: &'a SecondaryMap<VReg, Option<(VReg, i64)>>,
    limit: [i64; 2],
    config: &'a MachineConfig,
}

impl RangeContext<'_> {
    /// Schedules the operations of `range` (a segment, or a chunk of one starting at
    /// a position whose live set is in `live_before`) against the registers: the
    /// schedule against all of them when it never comes near them, else the shortest
    /// of the candidates (tighter targets, windows of the program order; see the
    /// module's documentation) whose peak fits.
    fn reorder(&self, range: std::ops::Range<usize>, live_before: &[Option<BitSet>]) -> Reordered {
        let Some(start_live) = live_before[range.start].as_ref() else {
            return Reordered::Unchanged;
        };
        let insts = &self.insts[range.clone()];
        let live_out = self.live_out;
        let last_read = self.last_read;
        let end = range.end;
        let outlives = |v: VReg| live_out.contains(v.index()) || last_read[v] > end;
        let facts = SegmentFacts::new(self.mf, insts, start_live, &outlives);
        let mut ops: Vec<OpInfo> = insts
            .iter()
            .map(|mi| op_info(mi, self.bases, self.config))
            .collect();
        let mut g = DepGraph::build(&mut ops);
        add_keep_edges(insts, &mut g);
        add_carried_edges(insts, self.carried, &mut g);
        let old: Vec<usize> = (0..ops.len()).collect();
        let peak_old = facts.peak(&old);
        let limit = self.limit;
        let fits = |order: &[usize]| {
            let peak = facts.peak(order);
            !(0..2).any(|c| peak[c] > limit[c] && peak[c] > peak_old[c])
        };
        // a schedule's order: by cycle, then by program order within a cycle (what
        // the allocator and the bundler saw before the placement order was kept);
        // the placement order, whose pressure the scheduler tracked, when only it
        // fits
        let order_of = |(cycles, placement): (Vec<u32>, Vec<usize>)| {
            let mut by_cycle = placement.clone();
            by_cycle.sort_by_key(|&i| (cycles[i], i));
            let chosen = if fits(&by_cycle) || !fits(&placement) {
                by_cycle
            } else {
                placement
            };
            (cycles, chosen)
        };
        let length = |cycles: &[u32]| {
            (0..ops.len())
                .map(|i| cycles[i] + ops[i].latency)
                .max()
                .unwrap_or(0)
        };
        // the schedule against all the registers; when it never came near them, no
        // other candidate can do better
        let (cycles, new) = order_of(list_schedule(
            &ops,
            &g,
            &facts,
            limit,
            usize::MAX,
            self.config,
        ));
        let peak = facts.peak(&new);
        if (0..2).all(|c| peak[c] + MARGIN[c] < limit[c]) || (fits(&new) && new == old) {
            return if new == old {
                Reordered::Unchanged
            } else {
                Reordered::Whole(new)
            };
        }
        // otherwise the shortest of the candidates that fit
        let mut best: Option<(u32, Vec<usize>, bool)> = None;
        let mut consider = |cycles: Vec<u32>, new: Vec<usize>, windowed: bool| {
            let len = length(&cycles);
            if fits(&new) && best.as_ref().is_none_or(|(l, _, _)| len < *l) {
                best = Some((len, new, windowed));
            }
        };
        consider(cycles, new, false);
        // against a tighter target, an eighth of the registers less each time, down
        // to half (the waiting rule looks at one bundle at a time)
        for eighths in 1..=4i64 {
            let target = [
                limit[0] - limit[0] * eighths / 8,
                limit[1] - limit[1] * eighths / 8,
            ];
            let (cycles, new) = order_of(list_schedule(
                &ops,
                &g,
                &facts,
                target,
                usize::MAX,
                self.config,
            ));
            consider(cycles, new, false);
        }
        // too many independent chains at once: the schedule looks only a window of
        // the program order ahead, from the oldest operation not yet placed (a window
        // of one is the program order, which fits)
        let windows = if ops.len() <= SEARCHED {
            &WINDOWS[..]
        } else {
            &[]
        };
        for &window in windows.iter().filter(|&&w| w < ops.len()) {
            for eighths in 0..=1i64 {
                let target = [
                    limit[0] - limit[0] * eighths / 8,
                    limit[1] - limit[1] * eighths / 8,
                ];
                let (cycles, new) =
                    order_of(list_schedule(&ops, &g, &facts, target, window, self.config));
                consider(cycles, new, true);
            }
        }
        match best {
            Some((_, new, _)) if new == old => Reordered::Unchanged,
            Some((_, new, false)) => Reordered::Whole(new),
            Some((_, new, true)) => Reordered::Windowed(new),
            None => Reordered::TooManyRegisters,
        }
    }
}

/// The runs of movable operations of a block (at least two operations each).
fn segments(insts: &[&MInst]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (k, mi) in insts.iter().enumerate() {
        if is_fixed(mi) {
            if k - start >= 2 {
                out.push(start..k);
            }
            start = k + 1;
        }
    }
    if insts.len() - start >= 2 {
        out.push(start..insts.len());
    }
    out
}

/// The parameters of a single-block loop's header `b` and the values its back edge
/// passes them, when those are virtual registers (the back edge: `b` branches to a
/// block that is only `br b(args)`).
fn carried_values(mf: &MachFunction, b: MBlock) -> Vec<(VReg, VReg)> {
    let params = &mf.blocks[b].params;
    if params.is_empty() {
        return Vec::new();
    }
    for mi in mf.block_insts(b) {
        let Imm::Block(l) = mi.imm else { continue };
        let latch = mf.block_inst_ids(l);
        if latch.len() != 1 {
            continue;
        }
        let br = mf.inst(latch[0]);
        if br.imm == Imm::Block(b) && br.args.len() == params.len() {
            return params
                .iter()
                .zip(&br.args)
                .filter_map(|(&p, a)| a.as_virtual().filter(|&a| a != p).map(|a| (p, a)))
                .collect();
        }
    }
    Vec::new()
}

/// A loop parameter is read before the block defines the value that replaces it on
/// the back edge: the two can then share a register and the back edge needs no copy
/// (a reader after the new value's definition keeps both alive at once).
fn add_carried_edges(insts: &[&MInst], carried: &[(VReg, VReg)], g: &mut DepGraph) {
    for &(param, arg) in carried {
        let Some(def) = insts
            .iter()
            .position(|mi| mi.defs.contains(&Reg::Virtual(arg)))
        else {
            continue;
        };
        for (j, mi) in insts[..def].iter().enumerate() {
            if mi.all_uses().any(|r| r == Reg::Virtual(param)) {
                g.add(j, def, 0, DepKind::Anti);
            }
        }
    }
}

/// A definition that keeps a value must be its last reader (the allocator gives the
/// two one register): the other readers of the kept value come first.
pub(crate) fn add_keep_edges(insts: &[&MInst], g: &mut DepGraph) {
    for (k, mi) in insts.iter().enumerate() {
        let Some(kept @ Reg::Virtual(_)) = mi.keep else {
            continue;
        };
        for (j, other) in insts[..k].iter().enumerate() {
            if other.all_uses().any(|r| r == kept) {
                g.add(j, k, 0, DepKind::Anti);
            }
        }
    }
}

/// Register pressure of one segment: what each operation frees and defines.
struct SegmentFacts {
    /// Virtual registers live at the segment's start, per class.
    start: [i64; 2],
    /// Per operation: its distinct virtual uses and its virtual definitions, each
    /// as its number in the segment (below) with its class index.
    uses: Vec<Vec<(u32, usize)>>,
    defs: Vec<Vec<(u32, usize)>>,
    /// How many operations of the segment read each virtual register, by its number
    /// in the segment.
    readers: Vec<u32>,
    /// Live after the segment, by number.
    outlives: Vec<bool>,
}

impl SegmentFacts {
    fn new(
        mf: &MachFunction,
        insts: &[&MInst],
        start_live: &BitSet,
        outlives: &dyn Fn(VReg) -> bool,
    ) -> SegmentFacts {
        let class = |v: VReg| class_index(mf.vregs[v]);
        let mut start = [0i64; 2];
        for v in start_live.iter() {
            start[class(VReg::new(v))] += 1;
        }
        // the segment's values numbered densely in the order met: the per-value
        // arrays, copied for every candidate schedule, are then the size of the
        // segment, not of the function (whose values may number 100 000)
        let mut local: rustc_hash::FxHashMap<VReg, u32> = rustc_hash::FxHashMap::default();
        let mut readers: Vec<u32> = Vec::new();
        let mut out: Vec<bool> = Vec::new();
        let mut number = |v: VReg| -> u32 {
            *local.entry(v).or_insert_with(|| {
                readers.push(0);
                out.push(outlives(v));
                readers.len() as u32 - 1
            })
        };
        let mut uses = Vec::with_capacity(insts.len());
        let mut defs = Vec::with_capacity(insts.len());
        let mut read: Vec<u32> = Vec::new();
        for mi in insts {
            let mut u: Vec<(u32, usize)> = Vec::new();
            for v in mi.all_uses().filter_map(Reg::as_virtual) {
                let l = number(v);
                if !u.iter().any(|x| x.0 == l) {
                    u.push((l, class(v)));
                    read.push(l);
                }
            }
            let d: Vec<(u32, usize)> = mi
                .defs
                .iter()
                .filter_map(|r| r.as_virtual())
                .map(|v| (number(v), class(v)))
                .collect();
            uses.push(u);
            defs.push(d);
        }
        for l in read {
            readers[l as usize] += 1;
        }
        SegmentFacts {
            start,
            uses,
            defs,
            readers,
            outlives: out,
        }
    }

    /// Places operation `i`: updates the live counts and the readers left, and
    /// returns the pressure at the point after it (its definitions written, its last
    /// uses freed).
    fn place(&self, i: usize, count: &mut [i64; 2], left: &mut [u32]) -> [i64; 2] {
        for &(u, c) in &self.uses[i] {
            let u = u as usize;
            left[u] -= 1;
            if left[u] == 0 && !self.outlives[u] {
                count[c] -= 1;
            }
        }
        let mut at = *count;
        for &(d, c) in &self.defs[i] {
            let d = d as usize;
            at[c] += 1;
            if left[d] > 0 || self.outlives[d] {
                count[c] += 1;
            }
        }
        at
    }

    /// The change of the live count of each class if `i` were placed now.
    fn delta(&self, i: usize, left: &[u32]) -> [i64; 2] {
        let mut d = [0i64; 2];
        for &(u, c) in &self.uses[i] {
            let u = u as usize;
            if left[u] == 1 && !self.outlives[u] {
                d[c] -= 1;
            }
        }
        for &(v, c) in &self.defs[i] {
            let v = v as usize;
            if left[v] > 0 || self.outlives[v] {
                d[c] += 1;
            }
        }
        d
    }

    /// The highest pressure of each class over the segment in `order`.
    fn peak(&self, order: &[usize]) -> [i64; 2] {
        let mut count = self.start;
        let mut left = self.readers.clone();
        let mut peak = count;
        for &i in order {
            let at = self.place(i, &mut count, &mut left);
            for c in 0..2 {
                peak[c] = peak[c].max(at[c]);
            }
        }
        peak
    }
}

/// How close to the limit a class may get before the scheduler prefers operations
/// that free registers of it.
const MARGIN: [i64; 2] = [3, 1];

/// Cycle-by-cycle list scheduling (as `list::schedule`) with the register pressure of
/// the segment: the cycle of each operation, and the operations in the order they
/// were placed (by cycle; within a cycle, the order whose pressure was tracked).
fn list_schedule(
    ops: &[OpInfo],
    g: &DepGraph,
    facts: &SegmentFacts,
    limit: [i64; 2],
    window: usize,
    config: &MachineConfig,
) -> (Vec<u32>, Vec<usize>) {
    let n = ops.len();
    let mut placement = Vec::with_capacity(n);
    // the oldest operation not yet placed: only those less than `window` after it
    // may issue
    let mut oldest = 0;
    let prio = priorities(ops, g);
    let mut waiting: Vec<usize> = g.preds.iter().map(Vec::len).collect();
    let mut earliest = vec![0u32; n];
    let mut cycle = vec![u32::MAX; n];
    let mut ready: Vec<usize> = (0..n).filter(|&i| waiting[i] == 0).collect();
    let mut bundle: Vec<Inst> = Vec::with_capacity(config.width);
    let mut count = facts.start;
    let mut left = facts.readers.clone();
    let mut placed = 0;
    let mut t = 0u32;
    while placed < n {
        bundle.clear();
        // an operation that would take a short class past its registers waits while
        // something else may issue or free registers later; `force` lets the best
        // one go when nothing else ever could
        let mut force = false;
        loop {
            let short: Vec<usize> = (0..2)
                .filter(|&c| count[c] + MARGIN[c] >= limit[c])
                .collect();
            // the key to maximize: registers freed in the short classes, then the
            // critical path, then program order
            let mut best: Option<(usize, (i64, u32, core::cmp::Reverse<usize>))> = None;
            for (k, &i) in ready.iter().enumerate() {
                if earliest[i] > t || i - oldest >= window {
                    continue;
                }
                let d = facts.delta(i, &left);
                if !force
                    && short
                        .iter()
                        .any(|&c| d[c] > 0 && count[c] + d[c] > limit[c])
                {
                    continue;
                }
                let freed: i64 = short.iter().map(|&c| -d[c]).sum();
                let ki = (freed, prio[i], core::cmp::Reverse(i));
                if best.as_ref().is_some_and(|(_, kb)| ki <= *kb) {
                    continue;
                }
                bundle.push(ops[i].inst);
                let fits = vliw_isa::check_bundle(&bundle, config).is_ok() || bundle.len() == 1;
                bundle.pop();
                if fits {
                    best = Some((k, ki));
                }
            }
            let Some((k, _)) = best else {
                let stuck = bundle.is_empty()
                    && !force
                    && ready
                        .iter()
                        .all(|&i| earliest[i] <= t || i - oldest >= window);
                if stuck {
                    force = true;
                    continue;
                }
                break;
            };
            let i = ready.swap_remove(k);
            cycle[i] = t;
            placement.push(i);
            bundle.push(ops[i].inst);
            facts.place(i, &mut count, &mut left);
            placed += 1;
            while oldest < n && cycle[oldest] != u32::MAX {
                oldest += 1;
            }
            for e in &g.succs[i] {
                earliest[e.to] = earliest[e.to].max(t + e.distance);
                waiting[e.to] -= 1;
                if waiting[e.to] == 0 {
                    ready.push(e.to);
                }
            }
        }
        if bundle.is_empty() {
            let next = ready.iter().map(|&i| earliest[i]).filter(|&e| e > t).min();
            t = next.unwrap_or(t + 1);
        } else {
            t += 1;
        }
    }
    (cycle, placement)
}
