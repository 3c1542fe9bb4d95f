//! The middle end: passes that rewrite a verified `vliw_ir::Function` into an
//! equivalent verified one.
//!
//! - [`mem2reg`]: stack slots whose address never escapes become SSA values (block
//!   parameters where paths join), split into one value per accessed field (scalar
//!   replacement of aggregates). Minimal pruned SSA: a parameter only where the value
//!   is live and two definitions meet.
//! - [`dce`]: instructions without side effects whose results are unused are removed.
//! - [`jump_threading`]: a branch to a block that only branches again goes straight on
//!   when it can tell where (a jump, or a test of a constant it passes); before each
//!   of its rounds, block parameters that every branch passes one constant
//!   ([`constant_params`]) become that constant.
//! - [`implied_conditions`]: compares and branches that the branches dominating them
//!   decide (`j < n` tested again, `i < n` after `i < mid` with `mid = n / 2`) become
//!   constants and jumps.
//! - [`scope_noalias_accesses`]: loads and stores through `noalias` parameters get
//!   alias scopes that tell the machine schedulers they are apart.
//! - [`branch_fold`]: two tests in a row that lead to one place become one test of
//!   the two conditions combined (`a || b` to one join).
//! - [`state_threading`]: a loop that dispatches on a state its own paths set to
//!   constants goes from each path straight to the code of its state (LLVM's
//!   `DFAJumpThreading`), when every loop keeps one header.
//!
//! Each pass keeps the function verifiable (the tests run the verifier and the
//! interpreter before and after) and reports what it did, for `time-passes` and the
//! benchmark.

mod block_args;
mod branch_fold;
mod constant_params;
mod dce;
mod dominance_frontier;
mod implied_conditions;
mod int_ranges;
mod jump_threading;
mod mem2reg;
mod noalias_scopes;
mod state_threading;

pub use branch_fold::{FoldStats, branch_fold, fold_range_tests};
pub use constant_params::fold_constant_params;
pub use dce::{DceStats, dce};
pub use implied_conditions::{ImpliedStats, implied_conditions};
pub use jump_threading::{ThreadStats, jump_threading};
pub use mem2reg::{Mem2RegStats, mem2reg};
pub use noalias_scopes::{NoaliasStats, scope_noalias_accesses};
pub use state_threading::{StateThreadStats, state_threading};
