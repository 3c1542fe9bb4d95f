//! The optimizations on the RVSDG, one file each.

pub mod dne;
pub mod fold;
pub mod ivr;
mod rewrite;
pub mod strength;

pub use dne::dead_node_elimination;
pub use fold::fold;
pub use ivr::invariant_value_redirection;
pub use strength::strength_reduction;
