//! Post-dominators and control dependence: [`DomTree`] (the same implementation) on the
//! reversed graph with a *virtual exit*, generic over [`Graph`].
//!
//! **The reversed graph.** Only the blocks the entry reaches take part (as in every
//! analysis of this crate); their edges are reversed, and one more node, the virtual
//! exit, becomes the entry. The virtual exit has an edge to (post-dominance: is reached
//! from) every *exit block*, a reachable block without successors (`return`, `trap`,
//! `unreachable`, a tail call), and one block of every *infinite loop*:
//!
//! - An infinite loop here is a terminal strongly connected component of the reachable
//!   graph without exit blocks: no edge leaves it, so no path from its blocks reaches
//!   an exit, and post-dominance on them would be undefined. From each such component
//!   one block is connected to the virtual exit: the one the depth-first search from
//!   the entry visits last (its largest preorder number; for a simple loop, the
//!   latch, whose back edge then plays the role of the loop's exit edge). This is
//!   LLVM's choice (its post-dominator tree connects the "furthest" block of a
//!   reverse-unreachable region found by a forward depth-first search).
//! - Connecting one block of each terminal component suffices: every other block
//!   without a path to an exit reaches one of those components. So after the
//!   connection every reachable block reaches the virtual exit, and the tree spans
//!   them all. Loops that can be left, and the blocks before an infinite loop, get no
//!   extra edge.
//!
//! **Queries.** `a` post-dominates `b` when every path from `b` to the virtual exit
//! passes through `a` (reflexive). `ipdom(b)` is the closest strict post-dominator,
//! `None` when it is the virtual exit. Unreachable blocks post-dominate and are
//! post-dominated by nothing.
//!
//! **Control dependence** (Ferrante, Ottenstein and Warren, 1987): `y` is control
//! dependent on the edge `a → b` when `y` post-dominates `b` and does not strictly
//! post-dominate `a`; those are the blocks from `b` up the post-dominator tree to,
//! excluding, `ipdom(a)` ([`PostDomTree::control_dependents`]). The edges into the
//! virtual exit added for infinite loops are not CFG edges and make no dependence.
//! [`ControlDependence`] lists, per block, the edges it depends on.

use crate::cfg::{Block, Cfg};
use crate::dfs::DfsOrder;
use crate::dominators::DomTree;
use crate::graph::{Graph, Node};
use core::marker::PhantomData;

/// The post-dominator tree of the reachable part of a graph.
#[derive(Clone, Debug)]
pub struct PostDomTree<N = Block> {
    /// The dominator tree of the reversed graph: node `i < n` is block `i`, node `n`
    /// the virtual exit.
    tree: DomTree<Block>,
    n: usize,
    /// The blocks with an edge into the virtual exit: the exit blocks and one block per
    /// infinite loop, in increasing index order.
    exit_preds: Vec<N>,
    /// The blocks of `exit_preds` that have successors (chosen for infinite loops).
    loop_exits: Vec<N>,
    _node: PhantomData<N>,
}

impl<N: Node> PostDomTree<N> {
    pub fn compute<G: Graph<Node = N>>(graph: &G) -> PostDomTree<N> {
        PostDomTree::from_dfs(graph, &DfsOrder::compute(graph))
    }

    /// The tree from a depth-first order of `graph` from its entry (which decides the
    /// reachable blocks and the block connected to the exit in each infinite loop).
    pub fn from_dfs<G: Graph<Node = N>>(graph: &G, dfs: &DfsOrder<N>) -> PostDomTree<N> {
        let n = graph.num_nodes();
        let reachable = |b: N| dfs.is_reachable(b);
        let mut is_exit_pred = vec![false; n];
        for &b in dfs.preorder() {
            if graph.successors(b).is_empty() {
                is_exit_pred[b.to_index()] = true;
            }
        }
        let loop_exits = infinite_loop_exits(graph, dfs, &is_exit_pred);
        for &b in &loop_exits {
            is_exit_pred[b.to_index()] = true;
        }
        let exit_preds: Vec<N> = (0..n)
            .filter(|&i| is_exit_pred[i])
            .map(N::from_index)
            .collect();

        // The reversed graph: block i's successors are its reachable predecessors, the
        // virtual exit's the blocks connected to it.
        let exit = Block::new(n);
        let reversed = Cfg::from_successors(
            exit,
            (0..=n).map(|i| -> Vec<Block> {
                if i == n {
                    exit_preds
                        .iter()
                        .map(|b| Block::new(b.to_index()))
                        .collect()
                } else if !reachable(N::from_index(i)) {
                    Vec::new()
                } else {
                    let mut preds: Vec<Block> = graph
                        .predecessors(N::from_index(i))
                        .iter()
                        .filter(|&&p| reachable(p))
                        .map(|p| Block::new(p.to_index()))
                        .collect();
                    // one reversed edge per CFG edge, whatever the order the graph
                    // lists predecessors in: sorted, so the tree is deterministic
                    preds.sort_unstable();
                    preds
                }
            }),
        );
        let tree = DomTree::compute(&reversed);
        debug_assert_eq!(
            tree.preorder().len(),
            dfs.num_reachable() + 1,
            "every reachable block reaches the virtual exit"
        );
        PostDomTree {
            tree,
            n,
            exit_preds,
            loop_exits,
            _node: PhantomData,
        }
    }

    fn node(&self, b: N) -> Option<Block> {
        let i = b.to_index();
        (i < self.n).then(|| Block::new(i))
    }

    fn block(&self, x: Block) -> Option<N> {
        (x.index() < self.n).then(|| N::from_index(x.index()))
    }

    /// Whether `b` is in the tree (the entry reaches it).
    pub fn is_reachable(&self, b: N) -> bool {
        self.node(b).is_some_and(|x| self.tree.is_reachable(x))
    }

    /// The immediate post-dominator of `b`: `None` when it is the virtual exit, or `b`
    /// is unreachable.
    pub fn ipdom(&self, b: N) -> Option<N> {
        self.tree.idom(self.node(b)?).and_then(|x| self.block(x))
    }

    /// Whether `a` post-dominates `b` (reflexive); `false` if either is unreachable.
    /// O(1).
    pub fn post_dominates(&self, a: N, b: N) -> bool {
        match (self.node(a), self.node(b)) {
            (Some(x), Some(y)) => self.tree.dominates(x, y),
            _ => false,
        }
    }

    /// Whether `a` post-dominates `b` and differs from it. O(1).
    pub fn strictly_post_dominates(&self, a: N, b: N) -> bool {
        a != b && self.post_dominates(a, b)
    }

    /// The blocks whose immediate post-dominator is `b`.
    pub fn children(&self, b: N) -> impl Iterator<Item = N> + '_ {
        let kids = match self.node(b) {
            Some(x) => self.tree.children(x),
            None => &[],
        };
        kids.iter().map(|x| N::from_index(x.index()))
    }

    /// The blocks whose immediate post-dominator is the virtual exit (the roots of the
    /// post-dominator forest).
    pub fn roots(&self) -> impl Iterator<Item = N> + '_ {
        self.tree
            .children(Block::new(self.n))
            .iter()
            .map(|x| N::from_index(x.index()))
    }

    /// The blocks with an edge into the virtual exit: the reachable blocks without
    /// successors and the block chosen in each infinite loop, in index order.
    pub fn exit_predecessors(&self) -> &[N] {
        &self.exit_preds
    }

    /// The blocks connected to the virtual exit although they have successors: one
    /// per infinite loop (see the module documentation), in index order.
    pub fn infinite_loop_exits(&self) -> &[N] {
        &self.loop_exits
    }

    /// Reachable blocks in a preorder of the post-dominator tree (every block after
    /// its post-dominators); the virtual exit is left out.
    pub fn preorder(&self) -> impl Iterator<Item = N> + '_ {
        self.tree.preorder()[1..]
            .iter()
            .map(|x| N::from_index(x.index()))
    }

    /// The blocks control dependent on the CFG edge `a → b` (Ferrante et al.): `b` and
    /// its post-dominators up to, excluding, `ipdom(a)` (the virtual exit when `a` has
    /// none). Empty when `b` post-dominates `a`, or either block is unreachable. For a
    /// pair that is no edge, the walk stops at the virtual exit.
    pub fn control_dependents(&self, a: N, b: N) -> ControlDependents<'_, N> {
        let (Some(x), Some(y)) = (self.node(a), self.node(b)) else {
            return ControlDependents::empty(self);
        };
        if !self.tree.is_reachable(x) || !self.tree.is_reachable(y) {
            return ControlDependents::empty(self);
        }
        ControlDependents {
            tree: self,
            next: Some(y),
            stop: self
                .tree
                .idom(x)
                .expect("a block has an immediate post-dominator"),
        }
    }
}

/// Iterator of [`PostDomTree::control_dependents`].
pub struct ControlDependents<'t, N> {
    tree: &'t PostDomTree<N>,
    next: Option<Block>,
    stop: Block,
}

impl<'t, N: Node> ControlDependents<'t, N> {
    fn empty(tree: &'t PostDomTree<N>) -> Self {
        ControlDependents {
            tree,
            next: None,
            stop: Block::new(tree.n),
        }
    }
}

impl<N: Node> Iterator for ControlDependents<'_, N> {
    type Item = N;

    fn next(&mut self) -> Option<N> {
        let x = self.next?;
        if x == self.stop || x.index() >= self.tree.n {
            self.next = None;
            return None;
        }
        self.next = self.tree.tree.idom(x);
        Some(N::from_index(x.index()))
    }
}

/// For every reachable block, the CFG edges it is control dependent on.
#[derive(Clone, Debug)]
pub struct ControlDependence<N = Block> {
    start: Vec<u32>,
    edges: Vec<(N, N)>,
}

impl<N: Node> ControlDependence<N> {
    /// Walks every edge `a → b` of the reachable graph (parallel edges once) up the
    /// post-dominator tree. O(E + size of the result).
    pub fn compute<G: Graph<Node = N>>(graph: &G, pdom: &PostDomTree<N>) -> Self {
        let n = graph.num_nodes();
        let mut per_block: Vec<Vec<(N, N)>> = vec![Vec::new(); n];
        // the source that last reached each target: parallel edges `a → b` are walked
        // once
        let mut seen_from: Vec<Option<N>> = vec![None; n];
        for a in (0..n).map(N::from_index) {
            if !pdom.is_reachable(a) {
                continue;
            }
            for &b in graph.successors(a) {
                if seen_from[b.to_index()] == Some(a) {
                    continue;
                }
                seen_from[b.to_index()] = Some(a);
                for y in pdom.control_dependents(a, b) {
                    per_block[y.to_index()].push((a, b));
                }
            }
        }
        let mut start = Vec::with_capacity(n + 1);
        let mut edges = Vec::new();
        start.push(0);
        for list in per_block {
            edges.extend(list);
            start.push(edges.len() as u32);
        }
        ControlDependence { start, edges }
    }

    /// The edges `(a, b)` the block `y` is control dependent on, by source then target
    /// in the graph's order (sources in index order, targets in successor order).
    pub fn dependences(&self, y: N) -> &[(N, N)] {
        let i = y.to_index();
        if i + 1 >= self.start.len() {
            return &[];
        }
        &self.edges[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

/// One block of every terminal strongly connected component of the reachable graph
/// that has no exit block: the one with the largest preorder number of `dfs`. In index
/// order. Iterative Tarjan over the blocks that do not reach an exit.
fn infinite_loop_exits<G: Graph>(
    graph: &G,
    dfs: &DfsOrder<G::Node>,
    is_exit: &[bool],
) -> Vec<G::Node> {
    let n = graph.num_nodes();
    // Blocks that reach an exit block: backwards from the exits.
    let mut reaches_exit = is_exit.to_vec();
    let mut stack: Vec<G::Node> = (0..n)
        .filter(|&i| is_exit[i])
        .map(G::Node::from_index)
        .collect();
    while let Some(b) = stack.pop() {
        for &p in graph.predecessors(b) {
            if dfs.is_reachable(p) && !reaches_exit[p.to_index()] {
                reaches_exit[p.to_index()] = true;
                stack.push(p);
            }
        }
    }
    if dfs.preorder().iter().all(|b| reaches_exit[b.to_index()]) {
        return Vec::new();
    }

    // Tarjan's strongly connected components of the blocks that reach no exit (all
    // their successors are such blocks too).
    const UNSEEN: u32 = u32::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut comp = vec![UNSEEN; n];
    let mut scc_stack: Vec<G::Node> = Vec::new();
    let mut components: Vec<Vec<G::Node>> = Vec::new();
    let mut counter = 0u32;
    for &root in dfs.preorder() {
        if reaches_exit[root.to_index()] || index[root.to_index()] != UNSEEN {
            continue;
        }
        let mut call: Vec<(G::Node, usize)> = vec![(root, 0)];
        index[root.to_index()] = counter;
        low[root.to_index()] = counter;
        counter += 1;
        scc_stack.push(root);
        on_stack[root.to_index()] = true;
        while let Some(&mut (v, ref mut next)) = call.last_mut() {
            let succs = graph.successors(v);
            if let Some(&w) = succs.get(*next) {
                *next += 1;
                let wi = w.to_index();
                if index[wi] == UNSEEN {
                    index[wi] = counter;
                    low[wi] = counter;
                    counter += 1;
                    scc_stack.push(w);
                    on_stack[wi] = true;
                    call.push((w, 0));
                } else if on_stack[wi] {
                    low[v.to_index()] = low[v.to_index()].min(index[wi]);
                }
            } else {
                call.pop();
                let vi = v.to_index();
                if let Some(&(u, _)) = call.last() {
                    low[u.to_index()] = low[u.to_index()].min(low[vi]);
                }
                if low[vi] == index[vi] {
                    let id = components.len() as u32;
                    let mut members = Vec::new();
                    loop {
                        let w = scc_stack.pop().expect("on the stack");
                        on_stack[w.to_index()] = false;
                        comp[w.to_index()] = id;
                        members.push(w);
                        if w == v {
                            break;
                        }
                    }
                    components.push(members);
                }
            }
        }
    }
    let mut chosen: Vec<G::Node> = components
        .iter()
        .enumerate()
        .filter(|(id, members)| {
            members.iter().all(|&m| {
                graph
                    .successors(m)
                    .iter()
                    .all(|s| comp[s.to_index()] == *id as u32)
            })
        })
        .map(|(_, members)| {
            *members
                .iter()
                .max_by_key(|&&m| dfs.pre_number(m).expect("reachable"))
                .expect("components are non-empty")
        })
        .collect();
    chosen.sort_unstable_by_key(|b| b.to_index());
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(succs: &[&[u32]]) -> Cfg {
        Cfg::from_successors(Block(0), succs.iter().map(|s| s.iter().map(|&i| Block(i))))
    }

    #[test]
    fn diamond_with_a_loop() {
        // 0 -> 1, 2; 1 -> 3; 2 -> 3; 3 -> 3, 4; 4 returns
        let g = cfg(&[&[1, 2], &[3], &[3], &[3, 4], &[]]);
        let p = PostDomTree::compute(&g);
        let b = Block;
        assert_eq!(p.ipdom(b(0)), Some(b(3)));
        assert_eq!(p.ipdom(b(1)), Some(b(3)));
        assert_eq!(p.ipdom(b(3)), Some(b(4)));
        assert_eq!(p.ipdom(b(4)), None);
        assert!(p.post_dominates(b(4), b(0)));
        assert!(!p.post_dominates(b(1), b(0)));
        assert_eq!(p.exit_predecessors(), &[b(4)]);
        assert!(p.infinite_loop_exits().is_empty());
        // 1 and 2 depend on the branch of 0; 3 on its own back edge
        let deps: Vec<Block> = p.control_dependents(b(0), b(1)).collect();
        assert_eq!(deps, vec![b(1)]);
        assert_eq!(p.control_dependents(b(1), b(3)).count(), 0);
        assert_eq!(
            p.control_dependents(b(3), b(3)).collect::<Vec<_>>(),
            vec![b(3)]
        );
        let cd = ControlDependence::compute(&g, &p);
        assert_eq!(cd.dependences(b(3)), &[(b(3), b(3))]);
        assert_eq!(cd.dependences(b(2)), &[(b(0), b(2))]);
        assert!(cd.dependences(b(0)).is_empty());
    }

    #[test]
    fn an_infinite_loop_is_connected_at_its_latch() {
        // 0 -> 1, 4; 1 -> 2; 2 -> 3; 3 -> 1 (no exit); 4 returns; 5 unreachable
        let g = cfg(&[&[1, 4], &[2], &[3], &[1], &[], &[0]]);
        let p = PostDomTree::compute(&g);
        let b = Block;
        assert_eq!(p.infinite_loop_exits(), &[b(3)]);
        assert_eq!(p.exit_predecessors(), &[b(3), b(4)]);
        assert_eq!(p.ipdom(b(3)), None);
        assert_eq!(p.ipdom(b(1)), Some(b(2)));
        assert_eq!(p.ipdom(b(2)), Some(b(3)));
        assert_eq!(p.ipdom(b(0)), None);
        assert!(!p.is_reachable(b(5)));
        assert!(!p.post_dominates(b(5), b(5)));
        assert_eq!(
            p.control_dependents(b(0), b(1)).collect::<Vec<_>>(),
            vec![b(1), b(2), b(3)]
        );
    }
}
