//! `vliw-rvsdg`: the compiler's optimizer, on the regionalized value state dependence
//! graph (RVSDG) of Reissmann et al. (ACM TECS 2020), built from the SSA IR as Bahmann
//! et al. (ACM TACO 2015) describe and brought back to the SSA IR afterwards.
//!
//! `docs/rvsdg.md` gives the design; the modules:
//! - `restructure`: the SSA IR's control flow restructured in place (tail-controlled
//!   loops, structured branches, block-local values) so that it maps onto γ and θ.

pub mod restructure;
