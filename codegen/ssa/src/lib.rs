//! `vliw-ssa`: graph and SSA algorithms independent of rustc and of the IRs, shared by
//! the SSA IR (`vliw-ir`, whose dominator tree wraps [`DomTree`]), the middle end and
//! the machine back end: a graph abstraction ([`Graph`]), CFG orders, dominators,
//! post-dominators and control dependence, the parallel-copy sequentializer, the
//! loop-nesting forest, liveness after Boissinot's thesis (chapter 3): live sets in
//! two passes without fixpoint iteration, and a liveness check that stays valid while
//! the code is edited; and the Predicate Partition Graph of Gindraud, Brandner and
//! Darte (predicates of blocks, their partitions, implication and disjointness). The
//! reference is `docs/ssa.md`.
//!
//! # Contracts
//!
//! - **CFG** ([`cfg::Cfg`]): blocks are dense indices; successor lists are ordered
//!   edges (duplicates allowed); the entry may have predecessors. Blocks the entry does
//!   not reach are ignored by every analysis: no dominator, no loop, empty live sets.
//! - **Program** ([`program::SsaProgram`]): variables are dense indices, in strict SSA
//!   (one definition, dominating every use) on the reachable blocks. A φ-definition
//!   (block parameter) sits at the entry of its block, a φ-use (branch argument) at the
//!   end of the predecessor, after every instruction. Results on non-strict input are
//!   unspecified.
//! - **Liveness** (§3.1): `v` is live-in at `B` if a path from `B`'s entry to a use of
//!   `v` avoids `v`'s definition, so `B`'s own φ-definitions are never live-in at `B`;
//!   live-out at `B` means live at the end of `B`: live-in at a successor, or used by
//!   a φ on an edge leaving `B`.
//! - **Liveness check** ([`livecheck::LivenessChecker`]): its data depends only on the
//!   CFG. Queries read the variable's definition block and use sites at call time, so
//!   adding or removing instructions and variables never invalidates it; changing the
//!   CFG does.
//! - **PPG** ([`ppg`]): the input is a CFG with START (its entry) and a designated END
//!   without successors, whose reachable part is acyclic (or reducible, for
//!   [`ppg::PpgForest`]) and reaches END from every block; anything else is a
//!   [`ppg::PpgError`], never a panic. Critical edges are split into new nodes after
//!   the original blocks, which keep their numbers; the START→END edge of the report
//!   is virtual unless asked for. Every partition is exact on the traces (START→END
//!   paths) of the split graph; the graph is acyclic with the single root `p_START`.
//!
//! Every traversal is iterative (no recursion), for functions of 10^5 blocks and more.
//!
//! # Modules
//!
//! - [`graph`]: the [`Graph`] trait the graph algorithms are generic over (implemented
//!   by [`Cfg`] and `vliw_ir::ControlFlowGraph`).
//! - [`cfg`](mod@cfg), [`dfs`]: the graph, depth-first orders and edge classes (Alg 1–2).
//! - [`dominators`]: immediate dominators, O(1) dominance, the dominator-tree preorder.
//! - [`postdominators`]: the post-dominator tree with a virtual exit, control
//!   dependence.
//! - [`parallel_copy`]: sequentializing a parallel copy with the fewest copies.
//! - [`loops`]: the minimal connected loop-nesting forest, one header per loop (§2.2).
//! - [`reduced`]: the reduced graph without loop edges, with Alg 12's redirection.
//! - [`program`]: how variables, definitions and uses are described.
//! - [`liveness`]: the two-pass live sets (Alg 4–6, §3.4).
//! - [`livecheck`]: the liveness check (Alg 10–11, §3.4) with the dominance test.
//! - [`dataflow`]: iterative data-flow liveness (Alg 3), the reference.
//! - [`ppg`]: the Predicate Partition Graph (report §3–5): critical-edge splitting,
//!   O(1) dominance, post-dominance and equivalence classes, construction from the CFG
//!   (Alg 1) and from the control dependence graph (Alg 5, with its mirror for exact
//!   implication), queries, verifier, Graphviz, and one PPG per loop level for
//!   reducible CFGs.
//! - [`bitset`]: the dense sets they use.

pub mod bitset;
pub mod cfg;
pub mod dataflow;
pub mod dfs;
pub mod dominators;
pub mod graph;
pub mod livecheck;
pub mod liveness;
pub mod loops;
pub mod parallel_copy;
pub mod postdominators;
pub mod ppg;
pub mod program;
pub mod reduced;

pub use cfg::{Block, Cfg};
pub use dataflow::DataflowLiveness;
pub use dfs::DfsOrder;
pub use dominators::{ChildOrder, DomTree};
pub use graph::{Graph, Node};
pub use livecheck::LivenessChecker;
pub use liveness::LiveSets;
pub use loops::{LoopForest, LoopId};
pub use parallel_copy::{ParallelCopyError, sequentialize};
pub use postdominators::{ControlDependence, PostDomTree};
pub use ppg::{Ppg, PpgError, PpgForest, PredId, SplitCfg, StartEndEdge};
pub use program::{ExplicitProgram, SsaProgram, UseSite, Var};
