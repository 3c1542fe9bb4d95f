//! The SSA-based register allocator (`regalloc=ssa`): spilling, then colouring in
//! dominance order, then leaving SSA on the colours. `docs/machine.md` §8 is the
//! reference.
//!
//! 1. **Spilling** ([`spill`]): Belady's furthest-next-use rule, loop-aware, until the
//!    register pressure fits the registers at every point ([`analysis`]).
//! 2. **Colouring** ([`colour`]) in a preorder of the dominator tree, each definition
//!    taking a free colour that no physical constraint forbids, biased to the colours
//!    of its copy and φ partners. A definition that finds no colour is spilled and the
//!    allocation starts again.
//! 3. **Rewriting** ([`rewrite`]): colours for virtual registers; block arguments as
//!    parallel copies between colours, sequentialized with the minimum number of moves.
//!
//! Anything the allocator does not take (parallel copies or ψ-operations in its input,
//! accumulating compares into virtual registers, a physical register live across
//! blocks) sends the function to the naive allocator instead, which takes every
//! function; the counter `regalloc.ssa.fallbacks` counts those.
//!
//! Guarded definitions (if-conversion's, `ifconv`) are ordinary definitions here: in
//! machine SSA the value of `(p) v = ...` is undefined where `p` was false (the
//! machine-IR interpreter's undefined value), so no use reads what the register held
//! when the guard nullified the operation, and the register may hold anything then. A
//! `.unc` compare writes both predicates whatever its guard. A definition that keeps a
//! value where its guard is false (`keeps k`, out of Psi-SSA by predicated copies)
//! takes `k`'s colour: `k` dies there (the analysis refuses it otherwise), so the
//! colour is free (`colour`).
//!
//! Counters (`stats`): `regalloc.ssa.functions`, `.spilled` (values), `.stores`,
//! `.reloads`, `.rounds` (analyses repeated after spilling), `.copies-before` (copies
//! and block arguments of instruction selection), `.copies-after` (moves emitted),
//! `.fallbacks`, `.disjoint-shared` (guarded definitions given a register that values
//! under disjoint guards hold, `colour`).

pub mod analysis;
pub mod colour;
pub mod regs;
pub mod rewrite;
pub mod spill;

#[cfg(test)]
mod tests;

use cranelift_entity::SecondaryMap;
use vliw_isa::{CmpType, Opcode};

use crate::error::CompileError;
use crate::mir::{Imm, MInst, MOp, MachFunction, VReg};
use crate::options::{Counters, Options};
use crate::ssa_view::{block, cfg_of};
use analysis::Analysis;

/// Analyses repeated at most before giving the function to the naive allocator.
const MAX_ROUNDS: usize = 24;

/// What one allocation did.
#[derive(Copy, Clone, Default, Debug)]
pub struct Stats {
    pub spill: spill::SpillStats,
    pub copies: rewrite::CopyStats,
    pub rounds: usize,
    pub fallbacks: usize,
    /// Guarded definitions that took a register held by values under disjoint
    /// guards (`colour`).
    pub disjoint_shared: usize,
}

impl Stats {
    fn report(&self, c: &Counters) {
        c.add("regalloc.ssa.functions", 1);
        c.add("regalloc.ssa.spilled", self.spill.values as u64);
        c.add("regalloc.ssa.stores", self.spill.stores as u64);
        c.add("regalloc.ssa.reloads", self.spill.reloads as u64);
        c.add("regalloc.ssa.rounds", self.rounds as u64);
        c.add("regalloc.ssa.copies-before", self.copies.before as u64);
        c.add("regalloc.ssa.copies-after", self.copies.after as u64);
        c.add("regalloc.ssa.fallbacks", self.fallbacks as u64);
        c.add("regalloc.ssa.disjoint-shared", self.disjoint_shared as u64);
    }
}

/// Allocates the registers of `mf` (machine SSA from instruction selection).
pub fn allocate(mf: &mut MachFunction, options: &Options) -> Result<(), CompileError> {
    let mut stats = Stats::default();
    if let Err(why) = allocate_ssa(mf, &mut stats) {
        if std::env::var_os("VLIW_REGALLOC_TRACE").is_some() {
            eprintln!("regalloc=ssa: {}: {why}; naive allocation instead", mf.name);
        }
        stats.fallbacks += 1;
        crate::destruct::destruct(mf, options.ssa_destruction, options.counters.as_deref());
        crate::regalloc::allocate_naive(mf)?;
    }
    if let Some(c) = options.counters.as_deref() {
        stats.report(c);
    }
    Ok(())
}

/// The allocation proper; an error says why the function is left to the naive
/// allocator (the function is then still valid machine SSA).
pub fn allocate_ssa(mf: &mut MachFunction, stats: &mut Stats) -> Result<(), String> {
    check_supported(mf)?;
    trap_unreachable_blocks(mf);
    let mut unspillable: SecondaryMap<VReg, bool> = SecondaryMap::new();
    for _ in 0..MAX_ROUNDS {
        let a = Analysis::compute(mf)?;
        let spills = spill::choose(mf, &a, &unspillable)?;
        if !spills.is_empty() {
            spill::spill_everywhere(mf, &spills, &mut unspillable, &mut stats.spill);
            stats.rounds += 1;
            continue;
        }
        let hints = colour::hints(mf, &a);
        match colour::colour(mf, &a, &hints) {
            Ok(colouring) => {
                stats.disjoint_shared += colouring.disjoint_shared;
                return rewrite::rewrite(mf, &colouring.colours, &mut stats.copies);
            }
            Err(v) if unspillable[v] => {
                return Err(format!("no register for {v}, a reload"));
            }
            Err(v) => {
                spill::spill_everywhere(mf, &[v], &mut unspillable, &mut stats.spill);
                stats.rounds += 1;
            }
        }
    }
    Err(format!(
        "still no colouring after {MAX_ROUNDS} rounds of spilling"
    ))
}

/// The forms the allocator does not take (see the module documentation).
fn check_supported(mf: &MachFunction) -> Result<(), String> {
    for &b in &mf.layout {
        for inst in mf.block_insts(b) {
            let has_virtual_def = inst.defs.iter().any(|d| d.as_virtual().is_some());
            if matches!(inst.op, MOp::ParallelCopy | MOp::Psi) {
                return Err(format!("{b}: `{:?}` in the input", inst.op));
            }
            if has_virtual_def && !matches!(inst.ctype, CmpType::Normal | CmpType::Unc) {
                return Err(format!("{b}: an accumulating compare"));
            }
        }
    }
    Ok(())
}

/// Blocks of the layout that the entry does not reach have no dominator and no live
/// sets; they become a lone `trap` (jump tables may still name them).
fn trap_unreachable_blocks(mf: &mut MachFunction) {
    let cfg = cfg_of(mf);
    for b in mf.layout.clone() {
        if !cfg.is_reachable(block(b)) {
            mf.blocks[b].params.clear();
            mf.set_block(
                b,
                [MInst::op(
                    Opcode::Trap,
                    &[],
                    &[],
                    Imm::Const(crate::lower::trap_code::UNREACHABLE),
                )],
            );
        }
    }
}
