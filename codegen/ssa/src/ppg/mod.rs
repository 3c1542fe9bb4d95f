//! The Predicate Partition Graph (PPG) of Gindraud, Brandner and Darte, *Control
//! sensitive global instruction selection* (ENS Lyon report, §3–5; reading guide
//! `notes-000_003_004.md`, part 000), after Gillies et al.
//!
//! Each node `v` of a CFG gets a symbolic predicate `p_v` whose *domain* is the set of
//! traces (simple START→END paths) through `v`. The PPG records partitions
//! `Domain(p) = Domain(c1) | … | Domain(cn)` (disjoint union) as hyper-arcs
//! `p → [c1, …, cn]`; from them, implication (`Domain(p) ⊆ Domain(q)`), disjointness
//! and covering are graph walks. Clients: if-conversion and ψ reduction/projection
//! (Ψ-SSA), speculation and predicate-aware analyses.
//!
//! # Contract
//!
//! - **Input** ([`SplitCfg::new`]): a [`Cfg`](crate::cfg::Cfg) whose entry is START and
//!   a designated END without successors; the part START reaches must be acyclic
//!   (else [`PpgError::Cyclic`]) and every block of it must reach END (Def 9, else
//!   [`PpgError::NoPathToEnd`]): connect trap and `unreachable` blocks to END first.
//!   Blocks START does not reach are ignored. Critical edges are split (§3.2.1); the
//!   START→END edge of Def 3 is virtual by default ([`StartEndEdge`]).
//! - **Predicates** ([`Ppg`]): one per `~`-class of the split graph (Def 8, Prop 4),
//!   the root `p_START` (every trace), and, for Alg 1 only, dummies. Node numbers are
//!   the split graph's: original blocks keep theirs.
//! - **Partitions** are exact on the traces of the split graph, the graph is acyclic
//!   and complete (one root reaching every predicate): [`Ppg::check`] verifies the
//!   structure, `tests/ppg_oracle.rs` the domains.
//! - **Loops** ([`PpgForest`], §4.2): one acyclic graph, and one PPG, per level of
//!   the loop-nesting forest; queries never cross levels. Irreducible CFGs are
//!   rejected ([`PpgError::Irreducible`]).
//!
//! # Modules
//!
//! - [`split`]: preconditions, critical-edge splitting, the START→END edge (§3.2).
//! - [`classes`]: O(1) dominance, post-dominance and `~` (Def 8), the classes.
//! - [`cdg`]: the labelled control dependence graph, `PDF`, `PDF_succ` (§3.3).
//! - [`partition_graph`]: the PPG (Defs 15–16).
//! - [`alg1`]: construction from the CFG with dummies (Alg 1, §4.1.2).
//! - [`alg5`]: construction from the CDG without dummies (Alg 5, §4.1.3).
//! - [`queries`]: implication, disjointness, covering, complement (§5).
//! - [`check`]: the structural verifier.
//! - [`dot`]: Graphviz output.
//! - [`forest`]: reducible CFGs by the loop-nesting forest (§4.2).

pub mod alg1;
pub mod alg5;
pub mod cdg;
pub mod check;
pub mod classes;
pub mod dot;
pub mod error;
pub mod forest;
pub mod partition_graph;
pub mod queries;
pub mod split;

#[cfg(test)]
mod tests;

pub use cdg::Cdg;
pub use check::CheckError;
pub use classes::{ClassId, Classes};
pub use dot::split_node_name;
pub use error::PpgError;
pub use forest::{ForestPred, PpgForest, Region, RegionId, RegionNode};
pub use partition_graph::{Construction, PartitionId, Ppg, PredId};
pub use split::{SplitCfg, SplitNode, StartEndEdge};

impl Ppg {
    /// Alg 1 on a split CFG: branch and merge partitions, dummies for completion.
    pub fn from_cfg(split: &SplitCfg) -> Ppg {
        alg1::build(split, &Classes::compute(split))
    }

    /// Alg 5 on a split CFG and its mirror: partitions from the control dependence
    /// graph, no dummy, exact implication.
    pub fn from_cdg(split: &SplitCfg) -> Ppg {
        Ppg::build(split, Construction::Cdg)
    }

    /// Builds the PPG with the chosen algorithm.
    pub fn build(split: &SplitCfg, construction: Construction) -> Ppg {
        let classes = Classes::compute(split);
        match construction {
            Construction::Cfg => alg1::build(split, &classes),
            Construction::Cdg | Construction::CdgReport => {
                let cdg = Cdg::compute(split.cfg(), classes.post_dom_tree());
                alg5::build(split, &classes, &cdg, construction)
            }
        }
    }
}
