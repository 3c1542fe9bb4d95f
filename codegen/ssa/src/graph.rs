//! The graph abstraction the shared graph algorithms run on: nodes are dense indices
//! `0..num_nodes()`, each with its successor and predecessor lists, and one entry.
//!
//! Implemented by this crate's [`Cfg`](crate::cfg::Cfg) (the machine back end's view
//! of its blocks, `vliw_machine::ssa_view`) and by `vliw_ir::ControlFlowGraph` (the
//! SSA IR's blocks, for its verifier, the middle end and instruction selection). The
//! algorithms generic over it: depth-first orders ([`DfsOrder`](crate::dfs::DfsOrder)),
//! dominator trees ([`DomTree`](crate::dominators::DomTree)), post-dominator trees and
//! control dependence ([`PostDomTree`](crate::postdominators::PostDomTree),
//! [`ControlDependence`](crate::postdominators::ControlDependence)).

use core::fmt::Debug;

/// A node type that is a dense index (a typed block number).
pub trait Node: Copy + Eq + Debug {
    /// The node with index `index`.
    fn from_index(index: usize) -> Self;
    /// Its index in `0..Graph::num_nodes()`.
    fn to_index(self) -> usize;
}

/// A directed graph over the nodes `0..num_nodes()` with an entry.
///
/// Successor lists may contain duplicates (parallel edges) and name nodes the entry
/// does not reach; predecessor lists may include unreachable sources. The algorithms
/// look only at the part of the graph the entry reaches, and every traversal is
/// iterative (graphs of 10^5 nodes and deeper).
pub trait Graph {
    type Node: Node;

    /// The number of nodes; every node index is below it.
    fn num_nodes(&self) -> usize;

    /// The entry. Not called when the graph has no nodes (the algorithms then give
    /// empty results).
    fn entry(&self) -> Self::Node;

    /// The successors of `n`, in edge order.
    fn successors(&self, n: Self::Node) -> &[Self::Node];

    /// The predecessors of `n` (at least those the entry reaches, in any order).
    fn predecessors(&self, n: Self::Node) -> &[Self::Node];
}
