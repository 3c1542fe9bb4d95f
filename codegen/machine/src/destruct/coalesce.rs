//! Aggressive coalescing (thesis §5.2.3): every copy of the parallel copies is an
//! affinity between its destination and its source, weighted by the loop depth of its
//! block (`vliw_ssa::LoopForest`); affinities are taken by decreasing weight — copies
//! of inner loops first — and the classes of the two variables are merged when the
//! linear class test ([`super::classes`]) finds no interference. Unsolvable in
//! general (NP-complete); greedy in this order like the thesis.

use super::classes::Classes;
use super::interference::Ctx;
use super::program::CopySites;
use crate::mir::{MInst, MOp, MachFunction, VReg};
use crate::ssa_view::block;

/// A copy `dst ← src` that coalescing may remove.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Affinity {
    pub dst: VReg,
    pub src: VReg,
    /// Loop depth of the copy's block.
    pub weight: u32,
}

fn pairs(inst: &MInst) -> impl Iterator<Item = (VReg, VReg)> + '_ {
    inst.defs
        .iter()
        .zip(&inst.uses)
        .filter_map(|(d, s)| Some((d.as_virtual()?, s.as_virtual()?)))
}

/// The copies of the copy sites (reachable blocks), heaviest first, program order
/// among equals.
pub fn affinities(mf: &MachFunction, sites: &CopySites, ctx: &Ctx) -> Vec<Affinity> {
    let loops = ctx.checker.loops();
    let mut out = Vec::new();
    for &b in &mf.layout {
        if !ctx.dom().is_reachable(block(b)) {
            continue;
        }
        let weight = loops.loop_depth(block(b));
        for i in [sites.entry_index(b), sites.exit_index(mf, b)]
            .into_iter()
            .flatten()
        {
            let inst = &mf.blocks[b].insts[i];
            debug_assert_eq!(inst.op, MOp::ParallelCopy);
            out.extend(pairs(inst).map(|(dst, src)| Affinity { dst, src, weight }));
        }
    }
    out.sort_by_key(|a| core::cmp::Reverse(a.weight));
    out
}

/// The ordinary copies (`v = copy w` between virtual registers, unguarded, reachable
/// blocks), heaviest first, program order among equals. Renaming deletes those whose
/// two sides end in one class.
pub fn ordinary_affinities(mf: &MachFunction, ctx: &Ctx) -> Vec<Affinity> {
    let loops = ctx.checker.loops();
    let mut out = Vec::new();
    for &b in &mf.layout {
        if !ctx.dom().is_reachable(block(b)) {
            continue;
        }
        let weight = loops.loop_depth(block(b));
        for inst in &mf.blocks[b].insts {
            if inst.op == MOp::Copy && inst.guard.is_always() {
                out.extend(pairs(inst).map(|(dst, src)| Affinity { dst, src, weight }));
            }
        }
    }
    out.sort_by_key(|a| core::cmp::Reverse(a.weight));
    out
}

/// Coalesces the affinities in order; returns how many were coalesced.
pub fn coalesce(ctx: &Ctx, classes: &mut Classes, affinities: &[Affinity]) -> usize {
    affinities
        .iter()
        .filter(|a| classes.try_coalesce(ctx, a.dst, a.src))
        .count()
}
