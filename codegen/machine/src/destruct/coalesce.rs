//! Aggressive coalescing (thesis §5.2.3): every copy of the parallel copies is an
//! affinity between its destination and its source, weighted by the loop depth of its
//! block (`vliw_ssa::LoopForest`); affinities are taken by decreasing weight — copies
//! of inner loops first — then the copies that link two φs before those that take an
//! ordinary definition into a φ ([`PhiLink`]), then in program order, and the classes
//! of the two variables are merged when the linear class test ([`super::classes`])
//! finds no interference. Unsolvable in general (NP-complete); greedy in this order
//! like the thesis, which leaves the order among equal weights open.

use cranelift_entity::EntityRef;

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

/// Among copies of equal weight, whether a copy links two φs ([`PhiLink::Phi`]: the
/// target copy `a0 ← a'0` of a φ, or an argument copy `a'i ← ai` whose `ai` is itself a
/// φ's target) or takes an ordinary definition into a φ ([`PhiLink::Ordinary`]). The
/// φ links come first: a chain of φs around a loop (`lo = φ(.., lo')`,
/// `lo' = φ(lo, mid + 1)`) that stays in one class costs no copy, while a φ that
/// loses its link to another φ costs a copy there *and* may cost one where the
/// ordinary definition then is refused. Taken in program order, `a'i ← mid` could be
/// coalesced first and leave two copies in the loop where one suffices.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PhiLink {
    Phi,
    Ordinary,
}

/// The order of the copies: heaviest first, then φ links before ordinary definitions
/// ([`PhiLink`]), then program order.
pub type CopyOrder = (core::cmp::Reverse<u32>, PhiLink);

pub fn copy_order(weight: u32, link: PhiLink) -> CopyOrder {
    (core::cmp::Reverse(weight), link)
}

/// The copies of the copy sites (reachable blocks) in [`copy_order`].
pub fn affinities(mf: &MachFunction, sites: &CopySites, ctx: &Ctx) -> Vec<Affinity> {
    let loops = ctx.checker.loops();
    // After Method I, a φ's target is the destination of its block's entry copy.
    let mut phi_targets = vec![false; mf.vregs.len()];
    for &b in &mf.layout {
        if let Some(i) = sites.entry_index(b) {
            for (dst, _) in pairs(mf.inst_at(b, i)) {
                phi_targets[dst.index()] = true;
            }
        }
    }
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
            let inst = mf.inst_at(b, i);
            debug_assert_eq!(inst.op, MOp::ParallelCopy);
            let entry = Some(i) == sites.entry_index(b);
            out.extend(pairs(inst).map(|(dst, src)| {
                let link = if entry || phi_targets[src.index()] {
                    PhiLink::Phi
                } else {
                    PhiLink::Ordinary
                };
                (copy_order(weight, link), Affinity { dst, src, weight })
            }));
        }
    }
    out.sort_by_key(|(order, _)| *order);
    out.into_iter().map(|(_, a)| a).collect()
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
        for inst in mf.block_insts(b) {
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
