//! The optimizations on the RVSDG, one file each.

pub mod dne;
pub mod ivr;

pub use dne::dead_node_elimination;
pub use ivr::invariant_value_redirection;
