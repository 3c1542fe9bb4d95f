//! Depth-first search of a graph (thesis Alg 1–2): preorder and postorder numbers,
//! reverse postorder, the spanning tree and the classification of edges.
//!
//! The walk is iterative (an explicit stack of successor iterators), so it handles
//! graphs of any depth; `walk` is the engine, reused for the reduced graph. The orders
//! are generic over [`Graph`]: the machine back end's [`Cfg`](crate::cfg::Cfg) and the
//! SSA IR's control-flow graph share them.

use crate::cfg::Block;
use crate::graph::{Graph, Node};

/// The kind of an edge with respect to a depth-first spanning tree.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum EdgeKind {
    /// An edge of the spanning tree.
    Tree,
    /// To a proper descendant that is not the tree child along this edge.
    Forward,
    /// To an ancestor, or to itself (a self-loop).
    Back,
    /// To a block in another, already finished, branch.
    Cross,
}

/// Depth-first walk from `root` over `0..num_blocks`.
///
/// `succs(b)` gives the successors to follow; `on_pre(b, parent)` runs when `b` is
/// first visited (its tree parent, `None` for the root) and `on_post(b)` when all its
/// successors are finished. Successors are visited in iteration order.
pub(crate) fn walk<N: Node, I>(
    num_blocks: usize,
    root: N,
    mut succs: impl FnMut(N) -> I,
    mut on_pre: impl FnMut(N, Option<N>),
    mut on_post: impl FnMut(N),
) where
    I: Iterator<Item = N>,
{
    let mut visited = vec![false; num_blocks];
    let mut stack: Vec<(N, I)> = Vec::new();
    visited[root.to_index()] = true;
    on_pre(root, None);
    stack.push((root, succs(root)));
    while let Some((b, it)) = stack.last_mut() {
        let b = *b;
        match it.next() {
            Some(s) if !visited[s.to_index()] => {
                visited[s.to_index()] = true;
                on_pre(s, Some(b));
                let next = succs(s);
                stack.push((s, next));
            }
            Some(_) => {}
            None => {
                stack.pop();
                on_post(b);
            }
        }
    }
}

const UNVISITED: u32 = u32::MAX;

/// The numbering of one depth-first search of a graph from its entry, following
/// successors in edge order.
///
/// Unreachable nodes have no numbers. Queries on a node index beyond the graph (a
/// block created after the search) answer as for an unreachable node.
#[derive(Clone, Debug)]
pub struct DfsOrder<N = Block> {
    pre: Vec<u32>,
    post: Vec<u32>,
    parent: Vec<Option<N>>,
    preorder: Vec<N>,
    postorder: Vec<N>,
}

impl<N> Default for DfsOrder<N> {
    /// The search of a graph without nodes.
    fn default() -> Self {
        DfsOrder {
            pre: Vec::new(),
            post: Vec::new(),
            parent: Vec::new(),
            preorder: Vec::new(),
            postorder: Vec::new(),
        }
    }
}

impl<N: Node> DfsOrder<N> {
    /// Searches `graph` from its entry, following successors in edge order.
    pub fn compute<G: Graph<Node = N>>(graph: &G) -> DfsOrder<N> {
        let n = graph.num_nodes();
        if n == 0 {
            return DfsOrder::default();
        }
        let mut order = DfsOrder {
            pre: vec![UNVISITED; n],
            post: vec![UNVISITED; n],
            parent: vec![None; n],
            preorder: Vec::new(),
            postorder: Vec::new(),
        };
        let (pre, post, parent) = (&mut order.pre, &mut order.post, &mut order.parent);
        let (preorder, postorder) = (&mut order.preorder, &mut order.postorder);
        walk(
            n,
            graph.entry(),
            |b| graph.successors(b).iter().copied(),
            |b, p| {
                pre[b.to_index()] = preorder.len() as u32;
                parent[b.to_index()] = p;
                preorder.push(b);
            },
            |b| {
                post[b.to_index()] = postorder.len() as u32;
                postorder.push(b);
            },
        );
        order
    }

    /// Reachable blocks in the order they were first visited.
    pub fn preorder(&self) -> &[N] {
        &self.preorder
    }

    /// Reachable blocks in the order they were finished: every block comes after
    /// all its successors except those reached through back edges.
    pub fn postorder(&self) -> &[N] {
        &self.postorder
    }

    /// Reverse postorder: a topological order of the graph without its back edges.
    pub fn reverse_postorder(&self) -> impl ExactSizeIterator<Item = N> + '_ {
        self.postorder.iter().rev().copied()
    }

    /// The number of reachable nodes.
    pub fn num_reachable(&self) -> usize {
        self.preorder.len()
    }

    /// Whether the entry reaches `b`.
    pub fn is_reachable(&self, b: N) -> bool {
        self.pre_number(b).is_some()
    }

    /// The preorder number of `b`, `None` if unreachable.
    pub fn pre_number(&self, b: N) -> Option<u32> {
        self.pre
            .get(b.to_index())
            .copied()
            .filter(|&n| n != UNVISITED)
    }

    /// The postorder number of `b`, `None` if unreachable.
    pub fn post_number(&self, b: N) -> Option<u32> {
        self.post
            .get(b.to_index())
            .copied()
            .filter(|&n| n != UNVISITED)
    }

    /// The parent of `b` in the spanning tree.
    pub fn parent(&self, b: N) -> Option<N> {
        self.parent.get(b.to_index()).copied().flatten()
    }

    /// Whether `a` is an ancestor of `b` in the spanning tree (reflexive).
    pub fn is_ancestor(&self, a: N, b: N) -> bool {
        match (
            self.pre_number(a),
            self.pre_number(b),
            self.post_number(a),
            self.post_number(b),
        ) {
            (Some(pa), Some(pb), Some(qa), Some(qb)) => pa <= pb && qb <= qa,
            _ => false,
        }
    }

    /// Classifies the edge `from -> to` between reachable blocks. Parallel edges
    /// between the same blocks are all classified like the first one.
    pub fn classify(&self, from: N, to: N) -> EdgeKind {
        assert!(
            self.pre_number(from).is_some() && self.pre_number(to).is_some(),
            "classifying an edge of unreachable blocks {from:?} -> {to:?}"
        );
        if self.is_ancestor(to, from) {
            EdgeKind::Back
        } else if self.parent(to) == Some(from) {
            EdgeKind::Tree
        } else if self.is_ancestor(from, to) {
            EdgeKind::Forward
        } else {
            EdgeKind::Cross
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::Cfg;

    fn cfg(succs: &[&[u32]]) -> Cfg {
        Cfg::from_successors(Block(0), succs.iter().map(|s| s.iter().map(|&i| Block(i))))
    }

    #[test]
    fn numbers_and_classifies_a_small_graph() {
        // 0 -> 1 -> 2 -> 1 (back), 0 -> 2 (forward), 0 -> 3, 3 -> 2 (cross), 2 -> 2 (self)
        let g = cfg(&[&[1, 2, 3], &[2], &[1, 2], &[2]]);
        let d = DfsOrder::compute(&g);
        let b = Block;
        assert_eq!(d.preorder(), &[b(0), b(1), b(2), b(3)]);
        assert_eq!(d.postorder(), &[b(2), b(1), b(3), b(0)]);
        assert_eq!(
            d.reverse_postorder().collect::<Vec<_>>(),
            vec![b(0), b(3), b(1), b(2)]
        );
        assert_eq!(d.classify(b(0), b(1)), EdgeKind::Tree);
        assert_eq!(d.classify(b(1), b(2)), EdgeKind::Tree);
        assert_eq!(d.classify(b(2), b(1)), EdgeKind::Back);
        assert_eq!(d.classify(b(2), b(2)), EdgeKind::Back);
        assert_eq!(d.classify(b(0), b(2)), EdgeKind::Forward);
        assert_eq!(d.classify(b(3), b(2)), EdgeKind::Cross);
        assert_eq!(d.parent(b(3)), Some(b(0)));
    }

    #[test]
    fn unreachable_blocks_have_no_numbers() {
        let g = cfg(&[&[], &[0]]);
        let d = DfsOrder::compute(&g);
        assert_eq!(d.pre_number(Block(1)), None);
        assert_eq!(d.postorder(), &[Block(0)]);
    }

    #[test]
    fn deep_chain_does_not_overflow_the_stack() {
        let n = 200_000u32;
        let g = Cfg::from_successors(
            Block(0),
            (0..n).map(|i| {
                if i + 1 < n {
                    vec![Block(i + 1)]
                } else {
                    vec![Block(0)]
                }
            }),
        );
        let d = DfsOrder::compute(&g);
        assert_eq!(d.postorder()[0], Block(n - 1));
        assert_eq!(d.classify(Block(n - 1), Block(0)), EdgeKind::Back);
    }
}
