//! `vliw-ssa`: SSA analyses for the machine back end.
pub mod bitset;
pub mod cfg;
pub mod dfs;
pub mod dominators;
pub mod loops;
pub mod reduced;
pub mod program;
pub mod liveness;
pub mod dataflow;
pub mod livecheck;
