//! The verifier: the well-formedness rules of an RVSDG, checked in time linear in the
//! size of the graph (it runs after every pass).
//!
//! Two parts, as the graph itself is split:
//! - `structure`, generic over the operations ([`Graph<O>`]): where nodes and regions
//!   are, edges, users lists, acyclicity, the shapes of γ, θ and λ, and the linear use
//!   of states;
//! - `typing`, for the compiler's operations ([`Op`]): every simple node typed as the
//!   SSA IR types its instruction (`vliw_ir::typing`), with the states
//!   [`Op::states`] gives; references valid in the enclosing λ's shell; λ bodies that
//!   match their signatures.
//!
//! The typing part runs only on a structurally sound graph (the rules it relies on:
//! valid indices, exact users lists), so a broken structure is reported alone.
//!
//! [`Op`]: crate::ops::Op
//! [`Op::states`]: crate::ops::Op::states

mod structure;
#[cfg(test)]
mod tests;
mod typing;

use std::fmt;

use cranelift_entity::EntityRef;

use crate::changes::Changes;
use crate::graph::{Graph, Node, NodeKind, Operation, Region};
use crate::ops::Rvsdg;

pub use structure::verify_structure;

/// A rule of well-formedness (what a [`VerifyError`] breaks).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Rule {
    /// Nodes are in their region's list, subregions owned by their node, edges within
    /// one region, users lists exact, nothing dead referenced, only λs in the root.
    Structure,
    /// No cycle among the nodes of a region.
    Acyclic,
    /// A γ's, θ's or λ's subregions match its inputs, outputs or signature.
    Arity,
    /// A simple node's inputs and outputs have the types its operation requires.
    Typing,
    /// A name a node uses (`fnN sigN gvN ssN`) exists in its λ; λ names are unique.
    Reference,
    /// States are used linearly.
    Linearity,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rule::Structure => "structure",
            Rule::Acyclic => "acyclicity",
            Rule::Arity => "arity",
            Rule::Typing => "typing",
            Rule::Reference => "reference",
            Rule::Linearity => "linearity",
        })
    }
}

/// Where a rule is broken.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Place {
    /// A node, with its label (`iadd`, `gamma`...).
    Node(Node, String),
    /// A region (its arguments, results or list of nodes).
    Region(Region),
}

/// One rule broken: which, in which λ (its name, `None` outside any), where, and what.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VerifyError {
    pub rule: Rule,
    pub lambda: Option<String>,
    pub place: Place,
    pub message: String,
}

impl fmt::Display for VerifyError {
    /// `λ @f, n12 (iadd): typing: operand 1 has type i32, expected i64`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(l) = &self.lambda {
            write!(f, "λ {l}, ")?;
        }
        match &self.place {
            Place::Node(n, label) => write!(f, "{n} ({label})")?,
            Place::Region(r) => write!(f, "{r}")?,
        }
        write!(f, ": {}: {}", self.rule, self.message)
    }
}

/// Verify an RVSDG of the compiler's operations: every rule, every error (up to a
/// hundred).
pub fn verify(g: &Rvsdg) -> Result<(), Vec<VerifyError>> {
    verify_in(g, Scope::All)
}

/// Verify what changed ([`Graph::take_changes`]): the root region and its list of λs,
/// and every rule in the changed regions and below the changed λs, in time linear in
/// their size rather than the module's. A region that did not change is not looked
/// into: every change goes through a method of the graph, which marks what it writes,
/// so an unchanged region is as it was when last verified. A rule that relates a
/// region to its owner (the shapes of γ, θ and λ) is checked when either changed.
/// (Not checked here: that every live node is in the list of a region reachable from
/// the root, which the graph's methods keep by construction; the full [`verify`]
/// checks it.)
///
/// [`Graph::take_changes`]: crate::Graph::take_changes
pub fn verify_changed(g: &Rvsdg, changes: &Changes) -> Result<(), Vec<VerifyError>> {
    verify_in(g, Scope::Changed(changes))
}

fn verify_in(g: &Rvsdg, scope: Scope<'_>) -> Result<(), Vec<VerifyError>> {
    let mut report = Report::new(g, &|f: &vliw_ir::Function| format!("@{}", f.name));
    if let Some(regions) = structure::check(&mut report, &scope) {
        typing::check(&mut report, &regions);
    }
    report.finish()
}

/// What to verify.
pub(crate) enum Scope<'a> {
    /// The whole graph.
    All,
    /// The root region and what changed.
    Changed(&'a Changes),
}

/// Stop collecting after this many errors.
const MAX_ERRORS: usize = 100;

/// The errors found so far, each located in its λ.
pub(crate) struct Report<'g, O: Operation> {
    g: &'g Graph<O>,
    lambda_name: &'g dyn Fn(&O::Lambda) -> String,
    errors: Vec<VerifyError>,
    /// Errors found, including those past `MAX_ERRORS`.
    count: usize,
}

impl<'g, O: Operation + fmt::Display> Report<'g, O> {
    fn new(g: &'g Graph<O>, lambda_name: &'g dyn Fn(&O::Lambda) -> String) -> Self {
        Report {
            g,
            lambda_name,
            errors: Vec::new(),
            count: 0,
        }
    }

    fn finish(self) -> Result<(), Vec<VerifyError>> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(self.errors)
        }
    }

    fn count(&self) -> usize {
        self.count
    }

    /// Count an error; whether to record it (locating it costs a walk up the regions).
    fn counts(&mut self) -> bool {
        self.count += 1;
        self.errors.len() < MAX_ERRORS
    }

    fn push(&mut self, rule: Rule, lambda: Option<String>, place: Place, message: String) {
        self.errors.push(VerifyError {
            rule,
            lambda,
            place,
            message,
        });
    }

    /// A rule broken at node `n` (a live node of the arena).
    fn node(&mut self, n: Node, rule: Rule, message: String) {
        if !self.counts() {
            return;
        }
        let lambda = match self.g.kind(n) {
            NodeKind::Lambda { info, .. } => Some((self.lambda_name)(info)),
            _ => self.lambda_of(self.g.node(n).region),
        };
        let place = Place::Node(n, self.g.kind(n).label());
        self.push(rule, lambda, place, message);
    }

    /// A rule broken at region `r` (a region of the arena).
    fn region(&mut self, r: Region, rule: Rule, message: String) {
        if !self.counts() {
            return;
        }
        let lambda = self.lambda_of(r);
        self.push(rule, lambda, Place::Region(r), message);
    }

    /// The name of the λ whose body holds `r`, if any. Walks up the owners with a
    /// bound, since an ill-formed graph may have a cycle of owners.
    fn lambda_of(&self, mut r: Region) -> Option<String> {
        for _ in 0..self.g.region_capacity() {
            if r.index() >= self.g.region_capacity() {
                return None;
            }
            let n = self.g.region(r).owner?;
            if n.index() >= self.g.node_capacity() {
                return None;
            }
            if let NodeKind::Lambda { info, .. } = self.g.kind(n) {
                return Some((self.lambda_name)(info));
            }
            r = self.g.node(n).region;
        }
        None
    }
}
