//! `vliw-rvsdg`: the compiler's optimizer, on the regionalized value state dependence
//! graph (RVSDG) of Reissmann et al. (ACM TECS 2020), built from the SSA IR as Bahmann
//! et al. (ACM TACO 2015) describe and brought back to the SSA IR afterwards.
//!
//! `docs/rvsdg.md` gives the design; the modules:
//! - `graph`: the generic core (regions, nodes, edges, λ/γ/θ), independent of the
//!   operations; `copy`: copying a region's contents elsewhere in the graph;
//!   `changes`: which λs changed since last looked at (for the verifier);
//! - `ops`: the operations of the SSA IR as RVSDG nodes, their types and state edges;
//! - `restructure`: the SSA IR's control flow restructured in place (tail-controlled
//!   loops, structured branches, block-local values) so that it maps onto γ and θ;
//! - `build`: a λ from a restructured function; `module`: the codegen unit's graph;
//! - `opt`: the optimizations, one file each; `call_graph`: who calls whom, its
//!   strongly connected components bottom-up (for the inliner);
//! - `destroy`: the structural way back to the SSA IR; `lawrence`: Lawrence's
//!   sequentialization by demand (in progress); `cursor`: the instructions both
//!   write;
//! - `text`: the text form (printer and parser); `dot`: a Graphviz drawing;
//! - `verify`: the well-formedness rules (structure, acyclicity, shapes, typing,
//!   linear states), run after every pass;
//! - `eval`: an evaluator that runs the graph directly, with the SSA IR interpreter's
//!   semantics, memory and traps (to check the graph against the IR it came from);
//! - `options`, `report`: what the pipeline sets and what the passes count.

pub mod build;
pub mod call_graph;
mod changes;
pub mod copy;
mod cursor;
pub mod destroy;
pub mod dot;
pub mod eval;
pub mod graph;
pub mod lawrence;
pub mod module;
pub mod ops;
pub mod opt;
pub mod options;
pub mod report;
pub mod restructure;
pub mod text;
pub mod unwind;
pub mod verify;

#[cfg(test)]
mod testing;

pub use changes::Changes;
pub use dot::write_dot;
pub use eval::Evaluator;
pub use graph::{Graph, Kind, Node, NodeKind, Operation, Origin, Port, Region, User};
pub use module::{
    ReadOnlyData, ReadOnlyObject, RvsdgModule, Sequentializer, build_module, sequentialize_module,
};
pub use ops::{Op, Rvsdg, States, Ty};
pub use options::Options;
pub use report::Report;
pub use text::{parse_graph, write_graph};
pub use verify::{Place, Rule, VerifyError, verify, verify_changed, verify_structure};
