//! Leaving Psi-SSA: what becomes of the ψ operations if-conversion makes, before
//! register allocation (`docs/predication.md`).
//!
//! - `select`: each ψ lowered to a chain of `sel` (de Ferrière 003 §3, Fig. 7: a
//!   normalized ψ is a select chain), which stays in SSA for the allocator
//!   (`psi-lowering=sel`).

pub mod select;

pub use select::lower_to_selects;
