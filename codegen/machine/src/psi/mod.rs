//! Leaving Psi-SSA: what becomes of the ψ operations if-conversion makes, before
//! register allocation (`docs/predication.md` §10).
//!
//! - `select`: each ψ lowered to a chain of `sel` (de Ferrière 003 §3, Fig. 7: a
//!   normalized ψ is a select chain), which stays in SSA for the allocator
//!   (`psi-lowering=sel`).
//! - `copies`: out of Psi-SSA by predicated copies (003 §4): each ψ-congruence class
//!   a chain of guarded definitions that keep the previous link, one register for
//!   the allocator (`psi-lowering=predicated-copies`).
//! - `inline`, `reduce`, `project`: ψ inlining, reduction and projection (003 §2),
//!   before either lowering, on the hyperblock's predicate relations.
//! - `two_values`: a ψ whose arguments carry two values is one guarded choice
//!   under one predicate.
//! - `compares`: a compare of a ψ is a ψ of compares, each candidate tested as soon
//!   as it is made.
//! - `minmax`: a ψ choosing between the two operands of its compare is a `min` or
//!   `max`.
//! - `guards`: which guards of a hyperblock imply, cover or exclude each other (for
//!   the three above and §4.6's reordering).

pub mod compares;
pub mod copies;
pub mod guards;
pub mod inline;
pub mod minmax;
pub mod project;
pub mod reduce;
pub mod select;
pub mod two_values;
pub mod values;

pub use compares::compares_through_psis;
pub use copies::{CopyOptions, CopyStats, out_of_psi_ssa};
pub use inline::inline;
pub use minmax::select_min_max;
pub use project::project;
pub use reduce::reduce;
pub use select::{lower_keeps, lower_to_selects};
pub use two_values::two_values;
