//! Lawrence's sequentialization (thesis ch. 3-4, "Optimizing compilation with the
//! VSDG", 2007): from the RVSDG back to control flow by the program's demand. Each
//! part in its own file:
//! - `gating`: the gating conditions under which a node is demanded (§3.3.2), with the
//!   destination registers of γ-coalescing (§3.4.2);
//! - `flatten`: a λ's or θ's body with its γs taken apart into selectors, the flat
//!   dependence graph (the thesis's VSDG) that demand is computed on;
//! - `pdom`: the post-dominator tree of a dependence DAG with a virtual return
//!   (§3.3.1), which `buildPDG` walks;
//! - `dests`: where a demanded node's results go, the labels of its conditions
//!   (tail registers, §3.4.2);
//! - `pdg`: the program dependence graph (groups, statements, predicates) and its
//!   verifier;
//! - `build_pdg`: `buildPDG` and `link` (Figs. 3.7, 3.8), proceduralization by demand;
//! - `cover`: minimal duplication (§4.2), which shared tails stay shared;
//! - `emit`: the PDG sequentialized into the SSA IR (`sequentialize=lawrence`).

pub mod build_pdg;
pub mod cover;
pub mod dests;
pub mod emit;
pub mod flatten;
pub mod gating;
pub mod pdg;
pub mod pdom;
