//! The optimizations on the RVSDG, one file each.

mod checks;
pub mod cne;
pub mod completion;
mod constants;
pub mod dne;
pub mod fold;
pub mod fuse;
pub mod gamma;
pub mod gamma_thread;
mod guards;
pub mod idiom;
pub mod induction;
pub mod inline;
mod inline_unwind;
pub mod invert;
pub mod ivr;
pub mod jam;
mod known;
pub mod licm;
pub mod loop_prep;
pub mod loop_tests;
pub mod memory;
mod peel;
mod rewrite;
pub mod round_trips;
pub mod select;
pub mod strength;
pub mod tail_calls;
pub mod unroll;
pub mod version;

pub use cne::{
    common_node_elimination, common_node_elimination_into_gammas,
    common_node_elimination_with_loads,
};
pub use dne::dead_node_elimination;
pub use fold::fold;
pub use fuse::fuse_loops;
pub use gamma::gamma_simplification;
pub use gamma_thread::thread_gammas;
pub use idiom::recognize_idioms;
pub use induction::reduce_induction_addresses;
pub use inline::{InlineOptions, inline_calls};
pub use invert::invert_loops;
pub use ivr::{invariant_value_redirection, invariant_value_redirection_through_checks};
pub use jam::jam_loops;
pub use licm::{loop_invariant_code_motion, loop_invariant_code_motion_with_loads};
pub use loop_prep::prepare_loops;
pub use loop_tests::loop_tests_as_compares;
pub use memory::{SplitOptions, memory_optimization, promote_loop_cells, split_memory_states};
pub use round_trips::remove_pointer_round_trips;
pub use select::speculate_gammas;
pub use strength::strength_reduction;
pub use tail_calls::eliminate_tail_calls;
pub use unroll::{UnrollOptions, unroll_loops};
pub use version::version_loops;
