//! The optimizations on the RVSDG, one file each.

pub mod dne;
pub mod inline;
pub mod ivr;

pub use dne::dead_node_elimination;
pub use inline::{InlineOptions, inline_calls};
pub use ivr::invariant_value_redirection;
