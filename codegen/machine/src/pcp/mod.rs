//! Constant propagation on predicated code (Knoop and Rüthing, "Constant Propagation
//! on Predicated Code", J.UCS 2003: `004`; `docs/predication.md` §9), on machine SSA
//! after if-conversion and before ψs are lowered.
//!
//! A hyperblock is a machine block: if-conversion made each region one block of
//! guarded and speculated operations with ψs at the joins. The pass finds, for every
//! virtual register, whether it is constant, path-sensitively inside each hyperblock
//! and by an ordinary fixed point between them, then rewrites what it proved.
//!
//! - `lattice`: the lattice (⊤, constants, ⊥) and the evaluation of operations on it,
//!   with the machine's semantics of undefined values (004 §2);
//! - `paths`: the paths of a hyperblock (its conditions' consistent assignments,
//!   PSSA's full-path predicates, 004 §3) as bit sets, and the cap on their number;
//! - `pvg`: the predicated value graph: per register, components indexed by sets of
//!   paths (super nodes, matching components; 004 §4.3.1);
//! - `propagate`: the local pass over a hyperblock, basic (§4.3.1) or full (§4.3.2),
//!   and the fallback without paths (Wegman–Zadeck) above the cap;
//! - `global`: the worklist over the hyperblocks and loops (§4.2, Alg. 1);
//! - `rewrite`: constants materialized, off-predicated operations removed, compares
//!   and predicate logic simplified, ψ arguments dropped, branches decided (§4.3.3);
//! - `sweep`: what the rewrite leaves dead (pure operations, unreachable blocks).

pub mod global;
pub mod lattice;
pub mod paths;
pub mod propagate;
pub mod pvg;
pub mod rewrite;
pub mod sweep;

#[cfg(test)]
mod tests;

pub use global::{Analysis, analyze};
pub use lattice::Lat;

use crate::mir::MachFunction;

/// The local pass's version (`pcp-mode=`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Mode {
    /// Branching nondeterministic: constants that do not depend on it (004 §4.3.1).
    Basic,
    /// Predicates evaluated, paths they rule out dropped: trace-precise (§4.3.2).
    Full,
}

impl Mode {
    pub fn parse(value: &str) -> Result<Mode, String> {
        match value {
            "basic" => Ok(Mode::Basic),
            "full" => Ok(Mode::Full),
            _ => Err(format!("pcp-mode={value}: expected basic or full")),
        }
    }
}

/// The default cap on the paths of one hyperblock (`pcp-max-paths=`).
pub const DEFAULT_MAX_PATHS: usize = 64;

/// How the pass runs.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct PcpOptions {
    pub mode: Mode,
    /// Paths of a hyperblock beyond which its local pass goes without paths.
    pub max_paths: usize,
}

impl Default for PcpOptions {
    fn default() -> Self {
        PcpOptions {
            mode: Mode::Full,
            max_paths: DEFAULT_MAX_PATHS,
        }
    }
}

/// What the pass did (the `stats` counters `pcp.*`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PcpStats {
    /// Registers given a constant definition (operations and block parameters that
    /// were not one already).
    pub constants: usize,
    /// Operations removed because their guard is false on every path that reaches
    /// them.
    pub off_predicated_removed: usize,
    /// Compares whose predicates (or condition) were proved constant.
    pub compares_folded: usize,
    /// Predicate logic with a constant operand made a copy or a negation (the ORs of
    /// join predicates, and ANDs).
    pub ors_simplified: usize,
    /// ψ arguments dropped because they are never the value.
    pub psi_args_dropped: usize,
    /// Branches and traps whose guard was proved true or false.
    pub branches_decided: usize,
    /// Pure operations left without uses, and blocks left unreachable, removed.
    pub dead_removed: usize,
    /// Hyperblocks whose paths exceed the cap (analysed without paths).
    pub fallbacks: usize,
}

/// Constant propagation on `mf` (machine SSA): the analysis, then the rewrite.
pub fn propagate_constants(mf: &mut MachFunction, options: &PcpOptions) -> PcpStats {
    let analysis = analyze(mf, options);
    let mut stats = PcpStats {
        fallbacks: analysis.facts.values().filter(|f| f.fallback).count(),
        ..PcpStats::default()
    };
    if analysis.unknown_successors {
        return stats;
    }
    rewrite::rewrite(mf, &analysis, &mut stats);
    stats.dead_removed += sweep::remove_dead_operations(mf);
    stats.dead_removed += sweep::remove_unreachable_blocks(mf);
    stats
}
