//! Which parts of a graph changed since they were last looked at: the graph marks
//! every region whose nodes, edges or ports one of its methods changes, and every λ
//! whose data (the function's shell) is handed out to be changed, so that the verifier
//! can check, after a pass, only what the pass touched (`verify=each` runs it after
//! every pass of the module; most passes change a few regions of many).
//!
//! Marking is O(1) per change (a flag and a list).

use cranelift_entity::EntityRef;

use crate::graph::{Node, Region};

/// The regions and λs marked since the log was last taken.
#[derive(Clone, Debug, Default)]
pub(crate) struct ChangeLog {
    marked: Vec<bool>,
    regions: Vec<Region>,
    lambdas: Vec<Node>,
}

impl ChangeLog {
    /// Region `r` changed: its arguments, results or list of nodes, or the inputs,
    /// outputs, users or kind of a node in it.
    pub(crate) fn region(&mut self, r: Region) {
        let i = r.index();
        if i >= self.marked.len() {
            self.marked.resize(i + 1, false);
        }
        if !std::mem::replace(&mut self.marked[i], true) {
            self.regions.push(r);
        }
    }

    /// λ `n`'s data changed (what every node inside may refer to).
    pub(crate) fn lambda(&mut self, n: Node) {
        if self.lambdas.last() != Some(&n) {
            self.lambdas.push(n);
        }
    }

    /// The marked regions, in the order first marked, and λs; the log is left empty.
    pub(crate) fn take(&mut self) -> (Vec<Region>, Vec<Node>) {
        for r in &self.regions {
            self.marked[r.index()] = false;
        }
        (
            std::mem::take(&mut self.regions),
            std::mem::take(&mut self.lambdas),
        )
    }
}

/// What changed in a graph since its changes were last taken
/// ([`crate::Graph::take_changes`]). A region not listed (and not below a listed λ)
/// is as it was: its arguments, results and nodes, their edges and users lists.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// The root region's list of λs changed (a λ added or removed).
    pub root: bool,
    /// The live regions but the root that changed, in index order.
    pub regions: Vec<Region>,
    /// The live λs whose data changed (so that whatever is inside may refer to it
    /// wrongly now), in node order.
    pub lambdas: Vec<Node>,
}
