//! Leaving SSA (`ssa-destruction=copies|sreedhar3|boissinot|virtual`), after
//! Boissinot's thesis, chapter 5 (`../shared/seeds/001_515dc08d5e528063.txt`), and the
//! baseline it is compared with. `docs/machine.md` §7 is the reference.
//!
//! - `copies` ([`crate::regalloc::destruct_ssa`]): every block argument copied to its
//!   parameter before the final `br`, nothing coalesced.
//! - `sreedhar3` ([`sreedhar`]): Sreedhar et al.'s Method III.
//! - `boissinot`: Method I parallel copies ([`method1`], the program is then in
//!   conventional SSA), SSA values ([`values`]) and value-based interference
//!   ([`interference`]) from the liveness check, aggressive coalescing by decreasing
//!   loop depth ([`coalesce`]) with the linear interference test between congruence
//!   classes and its equal-ancestor extension ([`classes`]), then renaming and
//!   sequentialization with the minimum number of copies ([`rename`]). The φ copies are
//!   inserted first and coalesced after (the thesis's "Us I"), not virtualized.
//! - `virtual` ([`virtualized`]): the same with the φ copies *virtualized* (§5.3.3):
//!   one φ at a time, its copies by decreasing loop depth, each coalesced or else
//!   materialized, so that only the copies that stay are created; then the ordinary
//!   copies are coalesced, and renaming and sequentialization are `boissinot`'s.
//!
//! The methods place their copies at the copy sites of [`program`]: after every
//! operation of a predecessor but its final `br` (so after a definition of the
//! argument and after the guarded branches, thesis Figs 5.1–5.2), and at the entry of
//! the φ's block.
//!
//! Counters (`Options::counters`, `stats`), per method `M`:
//! `destruct.M.phis` (block parameters), `destruct.M.inserted` (copies after
//! insertion: all arguments for `copies`, Method I's for `boissinot`, Method III's
//! for `sreedhar3`, the materialized ones for `virtual`), `destruct.M.coalesced`
//! (copies left after coalescing and renaming), `destruct.M.sequential` (copies
//! emitted, temporaries included), `destruct.M.temporaries`; for `virtual` also
//! `destruct.virtual.avoided` (virtual copies never materialized: Method I's copies in
//! reachable blocks minus `inserted`) and `destruct.virtual.ordinary` (ordinary copies
//! deleted by coalescing).

pub mod classes;
pub mod coalesce;
pub mod interference;
pub mod method1;
pub mod program;
pub mod rename;
pub mod sreedhar;
pub mod values;
pub mod virtualized;

#[cfg(test)]
mod tests;

use vliw_ssa::LivenessChecker;

use crate::mir::{MOp, MachFunction};
use crate::options::{Counters, SsaDestruction};
use crate::ssa_view::cfg_of;
use classes::Classes;
use interference::Ctx;
use program::Sites;

/// Copies per phase of one destruction.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub inserted: usize,
    pub remaining: usize,
    pub sequential: usize,
    pub temporaries: usize,
    /// `virtual`: virtual copies never materialized.
    pub avoided: usize,
    /// `virtual`: ordinary copies deleted by coalescing.
    pub ordinary: usize,
}

/// Leaves SSA with `method`; adds the copy counts to `counters`.
pub fn destruct(mf: &mut MachFunction, method: SsaDestruction, counters: Option<&Counters>) {
    // definitions that keep a value become a `sel` (the methods do not take them)
    let keeps = crate::psi::select::lower_keeps(mf);
    if let Some(c) = counters {
        c.add("destruct.keeps-lowered", keeps as u64);
    }
    let phis: usize = mf.layout.iter().map(|&b| mf.blocks[b].params.len()).sum();
    let stats = match method {
        SsaDestruction::Copies => copies(mf),
        SsaDestruction::Sreedhar3 => sreedhar::destruct(mf),
        SsaDestruction::Boissinot => boissinot(mf),
        SsaDestruction::Virtual => virtual_copies(mf),
    };
    if let Some(c) = counters {
        let m = method.name();
        c.add(&format!("destruct.{m}.phis"), phis as u64);
        c.add(&format!("destruct.{m}.inserted"), stats.inserted as u64);
        c.add(&format!("destruct.{m}.coalesced"), stats.remaining as u64);
        c.add(&format!("destruct.{m}.sequential"), stats.sequential as u64);
        c.add(
            &format!("destruct.{m}.temporaries"),
            stats.temporaries as u64,
        );
        if method == SsaDestruction::Virtual {
            c.add("destruct.virtual.avoided", stats.avoided as u64);
            c.add("destruct.virtual.ordinary", stats.ordinary as u64);
        }
    }
}

fn count_copies(mf: &MachFunction) -> usize {
    mf.layout
        .iter()
        .flat_map(|&b| mf.block_insts(b))
        .filter(|i| i.op == MOp::Copy)
        .count()
}

/// `copies`: today's destruction, counted.
fn copies(mf: &mut MachFunction) -> Stats {
    let mut inserted = 0;
    let mut remaining = 0;
    for &b in &mf.layout {
        if let Some(t) = program::arg_target(mf, b) {
            let br = mf.last_inst(b).expect("br");
            inserted += br.args.len();
            remaining += br
                .args
                .iter()
                .zip(&mf.blocks[t].params)
                .filter(|(a, p)| a.as_virtual() != Some(**p))
                .count();
        }
    }
    let before = count_copies(mf);
    crate::regalloc::destruct_ssa(mf);
    let sequential = count_copies(mf) - before;
    Stats {
        inserted,
        remaining,
        sequential,
        temporaries: sequential - remaining,
        ..Stats::default()
    }
}

/// The analyses of a program after Method I: liveness check, sites, values.
pub fn analyze(mf: &MachFunction) -> Ctx {
    let cfg = cfg_of(mf);
    let checker = LivenessChecker::new(&cfg);
    let sites = Sites::compute(mf, checker.dominators());
    let values = values::value_numbers(mf, checker.dominators());
    Ctx {
        checker,
        sites,
        values,
    }
}

/// Method I, then the φ-webs as the initial classes (CSSA, Lemma 8).
pub fn method1_classes(mf: &mut MachFunction) -> (program::CopySites, Ctx, Classes) {
    let copy_sites = program::insert_copy_sites(mf);
    let webs = method1::insert(mf, &copy_sites);
    let ctx = analyze(mf);
    let mut classes = Classes::new(mf.vregs.len());
    for web in &webs {
        for &v in &web[1..] {
            let ok = classes.try_coalesce(&ctx, web[0], v);
            debug_assert!(ok, "Method I output must be CSSA");
        }
    }
    (copy_sites, ctx, classes)
}

/// `boissinot` (see the module documentation).
fn boissinot(mf: &mut MachFunction) -> Stats {
    let (copy_sites, ctx, mut classes) = method1_classes(mf);
    let inserted = mf
        .layout
        .iter()
        .flat_map(|&b| mf.block_insts(b))
        .filter(|i| i.op == MOp::ParallelCopy)
        .map(|i| i.defs.len())
        .sum();
    let affinities = coalesce::affinities(mf, &copy_sites, &ctx);
    coalesce::coalesce(&ctx, &mut classes, &affinities);
    let seq = rename::rename(mf, &classes, &ctx);
    Stats {
        inserted,
        remaining: seq.remaining,
        sequential: seq.copies,
        temporaries: seq.temporaries,
        ..Stats::default()
    }
}

/// `virtual` (see the module documentation).
fn virtual_copies(mf: &mut MachFunction) -> Stats {
    let mut v = virtualized::coalesce_phis(mf);
    let ordinary = coalesce::ordinary_affinities(mf, &v.ctx);
    coalesce::coalesce(&v.ctx, &mut v.classes, &ordinary);
    let seq = rename::rename(mf, &v.classes, &v.ctx);
    Stats {
        inserted: v.materialized,
        remaining: seq.remaining,
        sequential: seq.copies,
        temporaries: seq.temporaries,
        avoided: v.considered - v.materialized,
        ordinary: seq.deleted,
    }
}
