//! Spilling on SSA: lowers the register pressure until it never exceeds the registers
//! at any point, before colouring (so that colouring in dominance order succeeds).
//!
//! **Which values** (Belady's rule, made global and loop-aware after Braun & Hack,
//! "Register Spilling and Live-Range Splitting for SSA-Form Programs", CC 2009): at a
//! point lacking `k` registers of a class, the `k` live values of that class whose next
//! use is furthest are spilled. The next-use distance of a value live out of a block
//! is the smallest, over the successors, of the successor's distance, and an edge that
//! leaves a loop adds [`LOOP_EXIT`] — so a value only used after a loop is spilled
//! before one used in every iteration. Distances are computed (a backward data flow
//! over sparse maps) only in functions with a violation.
//!
//! **How** (spill everywhere): a spilled value gets a spill slot, is stored right
//! after its definition (at the entry of its block for a parameter), and every
//! operation that reads it first reloads it into a new virtual register, which lives
//! only up to that operation and is never spilled. The program stays in SSA. A
//! predicate travels through a general register (`p2r` + store, load + `r2p`).
//!
//! The allocator repeats analysis and spilling until no point lacks registers; the
//! last-use points of reloads need at most the registers of one operation.

use cranelift_entity::{EntityRef, SecondaryMap};
use vliw_isa::Opcode;

use super::analysis::{Analysis, Excess, Walker, virtual_defs, virtual_uses};
use super::regs::class_index;
use crate::mir::{FrameSlotKind, Imm, InstId, MBlock, MInst, MachFunction, Reg, RegClass, VReg};
use crate::regalloc::slot_imm;
use crate::ssa_view::{block, mblock};

/// The distance added by an edge that leaves a loop.
pub const LOOP_EXIT: u32 = 100_000;

/// Next-use distances of the values live at each block's end, sorted by value.
struct NextUse {
    at_end: SecondaryMap<MBlock, Vec<(VReg, u32)>>,
}

/// What a block does to the distances that flow backward through it: the first use of
/// each value it reads (index in the block) and the values it defines (its parameters
/// included), each sorted by value.
#[derive(Clone, Default)]
struct BlockUses {
    first_use: Vec<(VReg, u32)>,
    defined: Vec<VReg>,
}

impl BlockUses {
    fn of(mf: &MachFunction, b: MBlock) -> BlockUses {
        let mut first_use: Vec<(VReg, u32)> = Vec::new();
        let mut defined: Vec<VReg> = mf.blocks[b].params.clone();
        for (i, inst) in mf.block_insts(b).enumerate() {
            first_use.extend(virtual_uses(inst).map(|u| (u, i as u32)));
            defined.extend(virtual_defs(inst));
        }
        // the lowest index of each value first, then one entry per value
        first_use.sort_unstable();
        first_use.dedup_by_key(|&mut (v, _)| v);
        defined.sort_unstable();
        defined.dedup();
        // SSA: a value the block defines is not read in it before its definition, so
        // it is not live at its start
        first_use.retain(|(v, _)| defined.binary_search(v).is_err());
        BlockUses { first_use, defined }
    }
}

/// Merges two lists sorted by value, keeping the smaller distance of a value in both.
fn merge_min(a: &[(VReg, u32)], b: &[(VReg, u32)]) -> Vec<(VReg, u32)> {
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push((a[i].0, a[i].1.min(b[j].1)));
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

impl NextUse {
    /// The backward data flow: `in(b)[v]` = index of the first use of `v` in `b`, or
    /// `len(b) + out(b)[v]`; `out(b)[v]` = min over successors `s` of `in(s)[v]`
    /// (plus [`LOOP_EXIT`] when the edge leaves a loop), 0 for `b`'s block arguments.
    /// The sets are lists sorted by value, so that the meet and the transfer are merges
    /// (no hashing: in a large function that needs spills, hundreds of values are live
    /// across thousands of blocks).
    fn compute(mf: &MachFunction, a: &Analysis) -> NextUse {
        let mut at_start: SecondaryMap<MBlock, Vec<(VReg, u32)>> = SecondaryMap::new();
        let mut at_end: SecondaryMap<MBlock, Vec<(VReg, u32)>> = SecondaryMap::new();
        let post: Vec<MBlock> = vliw_ssa::dfs::DfsOrder::compute(&a.cfg)
            .postorder()
            .iter()
            .map(|&b| mblock(b))
            .collect();
        let mut uses: SecondaryMap<MBlock, BlockUses> = SecondaryMap::new();
        for &b in &post {
            uses[b] = BlockUses::of(mf, b);
        }
        // a block is looked at again only when the start of one of its successors
        // changed (the first round looks at all)
        let mut dirty: SecondaryMap<MBlock, bool> = SecondaryMap::with_default(true);
        let mut changed = true;
        while changed {
            changed = false;
            for &b in &post {
                if !dirty[b] {
                    continue;
                }
                dirty[b] = false;
                let live_out = a.live.live_out(block(b));
                let mut out: Vec<(VReg, u32)> = Vec::new();
                for s in a.cfg.succs(block(b)) {
                    let exit = a.loops.loop_depth(*s) < a.loops.loop_depth(block(b));
                    let from_s: Vec<(VReg, u32)> = at_start[mblock(*s)]
                        .iter()
                        .filter(|(v, _)| live_out.contains(v.index()))
                        .map(|&(v, d)| (v, d.saturating_add(if exit { LOOP_EXIT } else { 0 })))
                        .collect();
                    out = if out.is_empty() {
                        from_s
                    } else {
                        merge_min(&out, &from_s)
                    };
                }
                let here = &uses[b];
                let len = mf.block_insts(b).len() as u32;
                // a value used in the block: its first use (always below `len`); one
                // defined in it: absent; the others: their distance at the end + `len`
                let passed: Vec<(VReg, u32)> = out
                    .iter()
                    .filter(|(v, _)| here.defined.binary_search(v).is_err())
                    .map(|&(v, d)| (v, d.saturating_add(len)))
                    .collect();
                let start = merge_min(&here.first_use, &passed);
                if at_start[b] != start {
                    at_start[b] = start;
                    changed = true;
                    for p in a.cfg.preds(block(b)) {
                        dirty[mblock(*p)] = true;
                    }
                }
                at_end[b] = out;
            }
        }
        NextUse { at_end }
    }
}

/// Chooses the values to spill so that every violation of `a` is removed (values in
/// `unspillable` are never chosen). Empty when there is no violation. An error when a
/// point cannot be helped by spilling.
pub fn choose(
    mf: &MachFunction,
    a: &Analysis,
    unspillable: &SecondaryMap<VReg, bool>,
) -> Result<Vec<VReg>, String> {
    if a.violations.is_empty() {
        return Ok(Vec::new());
    }
    let next = NextUse::compute(mf, a);
    let mut chooser = Chooser {
        mf,
        unspillable,
        chosen: SecondaryMap::new(),
        out: Vec::new(),
    };
    // next use (index in the block, or beyond its end) of every live value, for the
    // block being walked; reset after it
    let mut dist: SecondaryMap<VReg, u32> = SecondaryMap::with_default(u32::MAX);
    for &b in &a.violations {
        let insts = mf.block_insts(b);
        let len = insts.len() as u32;
        for &(v, d) in &next.at_end[b] {
            dist[v] = d.saturating_add(len);
        }
        let mut walker = Walker::at_end(mf, a.live.live_out(block(b)));
        let mut chosen_live = chooser.chosen_in(&walker);
        for (i, inst) in insts.enumerate().rev() {
            let touched: Vec<VReg> = virtual_uses(inst).chain(virtual_defs(inst)).collect();
            for d in virtual_defs(inst) {
                if chooser.chosen[d] && walker.live.contains(d.index()) {
                    chosen_live[class_index(mf.vregs[d])] -= 1;
                }
            }
            let after = walker.step_defs(mf, inst, None, |_| {});
            // the excess counts `inst`'s defs, which `touched` keeps out of the choice
            chooser.relieve(&walker, after, i as u32, &touched, &dist, &mut chosen_live)?;
            // `step_defs` removed the defs: nothing to do for them in `dist`
            let chosen = &chooser.chosen;
            let before = walker.step_uses(mf, inst, |u| {
                if chosen[u] {
                    chosen_live[class_index(mf.vregs[u])] += 1;
                }
            });
            for u in virtual_uses(inst) {
                dist[u] = i as u32;
            }
            chooser.relieve(&walker, before, i as u32, &touched, &dist, &mut chosen_live)?;
        }
        // the entry of the block: the live-in values and the parameters
        let mut live = a.live.live_in(block(b)).clone();
        for &p in &mf.blocks[b].params {
            live.insert(p.index());
        }
        let entry = Walker::at_end(mf, &live);
        let excess = super::analysis::excess(entry.count, [0, 0]);
        let mut chosen_live = chooser.chosen_in(&entry);
        chooser.relieve(&entry, excess, 0, &[], &dist, &mut chosen_live)?;
        for &(v, _) in &next.at_end[b] {
            dist[v] = u32::MAX;
        }
        for inst in mf.block_insts(b) {
            for u in virtual_uses(inst) {
                dist[u] = u32::MAX;
            }
        }
    }
    Ok(chooser.out)
}

/// The values chosen so far, and what the choice needs of the function.
struct Chooser<'a> {
    mf: &'a MachFunction,
    unspillable: &'a SecondaryMap<VReg, bool>,
    chosen: SecondaryMap<VReg, bool>,
    out: Vec<VReg>,
}

impl Chooser<'_> {
    /// How many of the values live at `walker`'s point are chosen, per class.
    fn chosen_in(&self, walker: &Walker) -> [i64; 2] {
        let mut n = [0; 2];
        for v in walker.live.iter().map(VReg::new) {
            if self.chosen[v] {
                n[class_index(self.mf.vregs[v])] += 1;
            }
        }
        n
    }

    /// Spills, at one point of excess `excess` (operation `at`), the live values (not
    /// read or written by the operation, `touched`) with the furthest next use (`dist`:
    /// index of the next use), counting those already chosen. `chosen_live` is how
    /// many live values are chosen, per class (kept up to date here): where they cover
    /// the excess, the live values are not looked at — at most points of a function
    /// that needs spills, the values chosen at a later point already do.
    fn relieve(
        &mut self,
        walker: &Walker,
        excess: Excess,
        at: u32,
        touched: &[VReg],
        dist: &SecondaryMap<VReg, u32>,
        chosen_live: &mut [i64; 2],
    ) -> Result<(), String> {
        let mf = self.mf;
        debug_assert_eq!(*chosen_live, self.chosen_in(walker));
        for class in super::regs::CLASSES {
            let c = class_index(class);
            if excess[c] <= 0 {
                continue;
            }
            // the chosen live values that the operation does not touch (each once)
            let touched_chosen = touched
                .iter()
                .enumerate()
                .filter(|&(k, &t)| {
                    !touched[..k].contains(&t)
                        && mf.vregs[t] == class
                        && self.chosen[t]
                        && walker.live.contains(t.index())
                })
                .count() as i64;
            if excess[c] <= chosen_live[c] - touched_chosen {
                continue;
            }
            let mut need = excess[c];
            let mut candidates = Vec::new();
            for v in walker.live.iter().map(VReg::new) {
                if mf.vregs[v] != class || touched.contains(&v) {
                    continue;
                }
                if self.chosen[v] {
                    need -= 1;
                } else if !self.unspillable[v] {
                    let d = dist[v];
                    candidates.push((d.saturating_sub(at), v));
                }
            }
            if need <= 0 {
                continue;
            }
            // furthest next use first; the lower number among equals (deterministic)
            candidates.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
            if (candidates.len() as i64) < need {
                return Err(format!(
                    "{:?} registers cannot hold the values live at one point even after spilling",
                    class
                ));
            }
            for &(_, v) in &candidates[..need as usize] {
                self.chosen[v] = true;
                self.out.push(v);
                chosen_live[c] += 1;
            }
        }
        Ok(())
    }
}

/// What spilling inserted.
#[derive(Copy, Clone, Default, Debug)]
pub struct SpillStats {
    pub values: usize,
    pub stores: usize,
    pub reloads: usize,
}

/// Spills every value of `values` everywhere (see the module documentation); the
/// reloads it creates are marked `unspillable`.
pub fn spill_everywhere(
    mf: &mut MachFunction,
    values: &[VReg],
    unspillable: &mut SecondaryMap<VReg, bool>,
    stats: &mut SpillStats,
) {
    let mut slot_of: SecondaryMap<VReg, Option<crate::mir::FrameSlot>> = SecondaryMap::new();
    for &v in values {
        slot_of[v] = Some(mf.new_slot(8, 8, FrameSlotKind::Spill(v)));
    }
    stats.values += values.len();
    for b in mf.layout.clone() {
        let insts = mf.take_block_insts(b);
        let mut out = Vec::with_capacity(insts.len() + 4);
        for p in mf.blocks[b].params.clone() {
            if let Some(slot) = slot_of[p] {
                store(
                    mf,
                    &mut out,
                    p,
                    slot,
                    unspillable,
                    vliw_ir::SourceLoc::default(),
                );
                stats.stores += 1;
            }
        }
        for id in insts {
            let mut inst = mf.inst(id).clone();
            let mut reloaded: Vec<(VReg, VReg)> = Vec::new();
            for u in virtual_uses(&inst).collect::<Vec<_>>() {
                if let Some(slot) = slot_of[u]
                    && !reloaded.iter().any(|(w, _)| *w == u)
                {
                    let t = reload(mf, &mut out, u, slot, unspillable, inst.loc);
                    reloaded.push((u, t));
                    stats.reloads += 1;
                }
            }
            if !reloaded.is_empty() {
                let map = |r: &mut Reg| {
                    if let Reg::Virtual(v) = *r
                        && let Some(&(_, t)) = reloaded.iter().find(|(w, _)| *w == v)
                    {
                        *r = Reg::Virtual(t);
                    }
                };
                map(&mut inst.guard.pred);
                inst.psi_guards.iter_mut().for_each(|g| map(&mut g.pred));
                inst.uses.iter_mut().for_each(map);
                inst.args.iter_mut().for_each(map);
                inst.keep.iter_mut().for_each(map);
            }
            let spilled_defs: Vec<VReg> = virtual_defs(&inst)
                .filter(|d| slot_of[*d].is_some())
                .collect();
            let loc = inst.loc;
            *mf.inst_mut(id) = inst;
            out.push(id);
            for d in spilled_defs {
                store(
                    mf,
                    &mut out,
                    d,
                    slot_of[d].expect("spilled"),
                    unspillable,
                    loc,
                );
                stats.stores += 1;
            }
        }
        mf.set_block_insts(b, out);
    }
}

fn store(
    mf: &mut MachFunction,
    out: &mut Vec<InstId>,
    v: VReg,
    slot: crate::mir::FrameSlot,
    unspillable: &mut SecondaryMap<VReg, bool>,
    loc: vliw_ir::SourceLoc,
) {
    let word = match mf.vregs[v] {
        RegClass::Gpr => Reg::Virtual(v),
        RegClass::Pred => {
            let x = mf.new_vreg(RegClass::Gpr);
            unspillable[x] = true;
            let mut i = MInst::op(Opcode::P2r, &[x.into()], &[v.into()], Imm::None);
            i.loc = loc;
            out.push(mf.make_inst(i));
            Reg::Virtual(x)
        }
    };
    let mut i = MInst::op(Opcode::StD, &[], &[Reg::SP, word], slot_imm(slot));
    i.loc = loc;
    // a spill slot's address is never taken
    i.scope = Some(vliw_ir::AliasScope::FRAME_PRIVATE);
    out.push(mf.make_inst(i));
}

fn reload(
    mf: &mut MachFunction,
    out: &mut Vec<InstId>,
    v: VReg,
    slot: crate::mir::FrameSlot,
    unspillable: &mut SecondaryMap<VReg, bool>,
    loc: vliw_ir::SourceLoc,
) -> VReg {
    let class = mf.vregs[v];
    let word = mf.new_vreg(RegClass::Gpr);
    unspillable[word] = true;
    let mut i = MInst::op(Opcode::LdD, &[word.into()], &[Reg::SP], slot_imm(slot));
    i.loc = loc;
    i.scope = Some(vliw_ir::AliasScope::FRAME_PRIVATE);
    out.push(mf.make_inst(i));
    match class {
        RegClass::Gpr => word,
        RegClass::Pred => {
            let p = mf.new_vreg(RegClass::Pred);
            unspillable[p] = true;
            let mut i = MInst::op(Opcode::R2p, &[p.into()], &[word.into()], Imm::None);
            i.loc = loc;
            out.push(mf.make_inst(i));
            p
        }
    }
}
