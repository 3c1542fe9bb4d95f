//! Immediate dominators (Cooper, Harvey and Kennedy, "A simple, fast dominance
//! algorithm", 2001) and the dominator tree with preorder intervals for an O(1)
//! dominance test, generic over [`Graph`]: the one implementation of the compiler,
//! used by the SSA IR (`vliw_ir::DominatorTree` wraps it: verifier, mem2reg, dominance
//! frontiers, instruction selection's block order), the machine back end (liveness,
//! SSA destruction, register allocation) and, on the reversed graph, the
//! post-dominator tree ([`crate::postdominators`]).
//!
//! The dominator-tree preorder is the "≺" order of the SSA destruction (thesis §5.3.2):
//! a block comes before every block it dominates.

use crate::cfg::Block;
use crate::dfs::DfsOrder;
use crate::graph::{Graph, Node};

const NONE: u32 = u32::MAX;

/// The order of each node's children in the dominator tree, hence of
/// [`DomTree::preorder`]. The immediate dominators do not depend on it.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum ChildOrder {
    /// In the preorder of the depth-first search of the graph (the machine back end's:
    /// SSA destruction and colouring walk the tree in this order).
    #[default]
    DfsPreorder,
    /// In reverse postorder (the SSA IR's: mem2reg renames in this order).
    ReversePostorder,
}

/// The dominator tree of the part of a graph its entry reaches.
///
/// A node dominates itself; an unreachable node dominates and is dominated by nothing
/// (not even itself). Queries on a node index beyond the graph (a block created after
/// the tree) answer as for an unreachable node.
#[derive(Clone, Debug)]
pub struct DomTree<N = Block> {
    idom: Vec<Option<N>>,
    child_start: Vec<u32>,
    child_list: Vec<N>,
    /// Position in `preorder`, NONE if unreachable.
    pre: Vec<u32>,
    /// The last preorder position of the node's subtree: `a` dominates `b` iff
    /// `pre[a] <= pre[b] <= last[a]`.
    last: Vec<u32>,
    depth: Vec<u32>,
    preorder: Vec<N>,
    rpo: Vec<N>,
    /// Position in `rpo`, NONE if unreachable.
    rpo_number: Vec<u32>,
}

impl<N> Default for DomTree<N> {
    /// The tree of a graph without nodes.
    fn default() -> Self {
        DomTree {
            idom: Vec::new(),
            child_start: vec![0],
            child_list: Vec::new(),
            pre: Vec::new(),
            last: Vec::new(),
            depth: Vec::new(),
            preorder: Vec::new(),
            rpo: Vec::new(),
            rpo_number: Vec::new(),
        }
    }
}

impl<N: Node> DomTree<N> {
    /// The tree of `graph`, children in depth-first preorder.
    pub fn compute<G: Graph<Node = N>>(graph: &G) -> DomTree<N> {
        DomTree::compute_with(graph, ChildOrder::DfsPreorder)
    }

    /// The tree of `graph`, children in the given order.
    pub fn compute_with<G: Graph<Node = N>>(graph: &G, order: ChildOrder) -> DomTree<N> {
        DomTree::from_dfs_with(graph, &DfsOrder::compute(graph), order)
    }

    /// The tree from a depth-first order of `graph` (its postorder numbers drive the
    /// intersection of dominator paths), children in depth-first preorder.
    pub fn from_dfs<G: Graph<Node = N>>(graph: &G, dfs: &DfsOrder<N>) -> DomTree<N> {
        DomTree::from_dfs_with(graph, dfs, ChildOrder::DfsPreorder)
    }

    /// The tree from a depth-first order of `graph`, children in the given order.
    ///
    /// Complexity: each pass is O(V + E); the number of passes is bounded by the loop
    /// connectedness of the graph (two or three on real code), O(V) in the worst case.
    pub fn from_dfs_with<G: Graph<Node = N>>(
        graph: &G,
        dfs: &DfsOrder<N>,
        order: ChildOrder,
    ) -> DomTree<N> {
        let n = graph.num_nodes();
        if n == 0 {
            return DomTree::default();
        }
        let entry = graph.entry();
        // idom as postorder numbers, NONE while unknown (and for unreachable nodes).
        let post = |b: N| dfs.post_number(b).expect("reachable");
        let mut idom_po = vec![NONE; n];
        idom_po[entry.to_index()] = post(entry);
        let po_block = dfs.postorder();
        let intersect = |idom_po: &[u32], mut a: u32, mut b: u32| {
            while a != b {
                while a < b {
                    a = idom_po[po_block[a as usize].to_index()];
                }
                while b < a {
                    b = idom_po[po_block[b as usize].to_index()];
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for b in dfs.reverse_postorder().skip(1) {
                let mut new = NONE;
                for &p in graph.predecessors(b) {
                    if idom_po[p.to_index()] == NONE {
                        continue;
                    }
                    let pp = post(p);
                    new = if new == NONE {
                        pp
                    } else {
                        intersect(&idom_po, pp, new)
                    };
                }
                if new != idom_po[b.to_index()] {
                    idom_po[b.to_index()] = new;
                    changed = true;
                }
            }
        }

        let mut idom = vec![None; n];
        for b in dfs.preorder().iter().copied().skip(1) {
            idom[b.to_index()] = Some(po_block[idom_po[b.to_index()] as usize]);
        }

        // Children lists (CSR), in the chosen order, so the tree order is deterministic.
        let rpo: Vec<N> = dfs.reverse_postorder().collect();
        let child_source: &[N] = match order {
            ChildOrder::DfsPreorder => dfs.preorder(),
            ChildOrder::ReversePostorder => &rpo,
        };
        let mut child_start = vec![0u32; n + 1];
        for b in child_source {
            if let Some(d) = idom[b.to_index()] {
                child_start[d.to_index() + 1] += 1;
            }
        }
        for i in 0..n {
            child_start[i + 1] += child_start[i];
        }
        let mut fill = child_start.clone();
        let mut child_list = vec![entry; child_start[n] as usize];
        for &b in child_source {
            if let Some(d) = idom[b.to_index()] {
                child_list[fill[d.to_index()] as usize] = b;
                fill[d.to_index()] += 1;
            }
        }
        let mut rpo_number = vec![NONE; n];
        for (i, &b) in rpo.iter().enumerate() {
            rpo_number[b.to_index()] = i as u32;
        }

        // Preorder positions and, per block, the last position of its subtree: `a`
        // dominates `b` iff pre[a] <= pre[b] <= last[a]. Iterative walk.
        let mut tree = DomTree {
            idom,
            child_start,
            child_list,
            pre: vec![NONE; n],
            last: vec![NONE; n],
            depth: vec![0; n],
            preorder: Vec::with_capacity(rpo.len()),
            rpo,
            rpo_number,
        };
        let mut stack: Vec<(N, u32)> = vec![(entry, 0)];
        tree.pre[entry.to_index()] = 0;
        tree.preorder.push(entry);
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            let kids = tree.children(b);
            if let Some(&c) = kids.get(*next as usize) {
                *next += 1;
                tree.pre[c.to_index()] = tree.preorder.len() as u32;
                tree.depth[c.to_index()] = tree.depth[b.to_index()] + 1;
                tree.preorder.push(c);
                stack.push((c, 0));
            } else {
                tree.last[b.to_index()] = tree.preorder.len() as u32 - 1;
                stack.pop();
            }
        }
        tree
    }

    /// The number of nodes of the graph the tree was computed on.
    pub fn num_nodes(&self) -> usize {
        self.idom.len()
    }

    /// The immediate dominator; `None` for the entry and unreachable blocks.
    pub fn idom(&self, b: N) -> Option<N> {
        self.idom.get(b.to_index()).copied().flatten()
    }

    /// The blocks `b` immediately dominates.
    pub fn children(&self, b: N) -> &[N] {
        let i = b.to_index();
        if i + 1 >= self.child_start.len() {
            return &[];
        }
        &self.child_list[self.child_start[i] as usize..self.child_start[i + 1] as usize]
    }

    fn pre(&self, b: N) -> u32 {
        self.pre.get(b.to_index()).copied().unwrap_or(NONE)
    }

    /// Whether the entry reaches `b`.
    pub fn is_reachable(&self, b: N) -> bool {
        self.pre(b) != NONE
    }

    /// The nodes the entry does not reach, in index order.
    pub fn unreachable(&self) -> impl Iterator<Item = N> + '_ {
        (0..self.num_nodes())
            .filter(|&i| self.pre[i] == NONE)
            .map(N::from_index)
    }

    /// Whether `a` dominates `b` (reflexive); `false` if either is unreachable. O(1).
    pub fn dominates(&self, a: N, b: N) -> bool {
        let (pa, pb) = (self.pre(a), self.pre(b));
        pa != NONE && pb != NONE && pa <= pb && pb <= self.last[a.to_index()]
    }

    /// Whether `a` dominates `b` and differs from it. O(1).
    pub fn strictly_dominates(&self, a: N, b: N) -> bool {
        a != b && self.dominates(a, b)
    }

    /// Reachable blocks in a preorder of the dominator tree: every block after its
    /// dominators (the "≺" order of thesis §5.3.2), children in the tree's
    /// [`ChildOrder`].
    pub fn preorder(&self) -> &[N] {
        &self.preorder
    }

    /// The position of `b` in [`DomTree::preorder`]; `None` if unreachable.
    pub fn preorder_number(&self, b: N) -> Option<u32> {
        Some(self.pre(b)).filter(|&n| n != NONE)
    }

    /// The last position in [`DomTree::preorder`] of the blocks `b` dominates (its
    /// subtree is `preorder_number(b)..=subtree_last(b)`); `None` if unreachable.
    pub fn subtree_last(&self, b: N) -> Option<u32> {
        self.preorder_number(b).map(|_| self.last[b.to_index()])
    }

    /// The depth of `b` in the dominator tree (the entry has depth 0).
    pub fn depth(&self, b: N) -> u32 {
        self.depth.get(b.to_index()).copied().unwrap_or(0)
    }

    /// The reachable blocks in reverse postorder of the depth-first search (entry
    /// first): every block after its immediate dominator.
    pub fn reverse_postorder(&self) -> &[N] {
        &self.rpo
    }

    /// The position of `b` in [`DomTree::reverse_postorder`]; `None` if unreachable.
    pub fn rpo_number(&self, b: N) -> Option<u32> {
        self.rpo_number
            .get(b.to_index())
            .copied()
            .filter(|&n| n != NONE)
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
    fn diamond_and_loop() {
        // 0 -> 1, 2; 1 -> 3; 2 -> 3; 3 -> 4; 4 -> 3, 5
        let g = cfg(&[&[1, 2], &[3], &[3], &[4], &[3, 5], &[]]);
        let d = DomTree::compute(&g);
        let b = Block;
        assert_eq!(d.idom(b(0)), None);
        assert_eq!(d.idom(b(1)), Some(b(0)));
        assert_eq!(d.idom(b(3)), Some(b(0)));
        assert_eq!(d.idom(b(4)), Some(b(3)));
        assert_eq!(d.idom(b(5)), Some(b(4)));
        assert!(d.dominates(b(3), b(5)));
        assert!(d.dominates(b(3), b(3)));
        assert!(!d.strictly_dominates(b(3), b(3)));
        assert!(!d.dominates(b(1), b(3)));
        assert_eq!(d.depth(b(5)), 3);
        let pre = d.preorder();
        assert_eq!(pre[0], b(0));
        for (i, &x) in pre.iter().enumerate() {
            assert_eq!(d.preorder_number(x), Some(i as u32));
            if let Some(p) = d.idom(x) {
                assert!(d.preorder_number(p).unwrap() < i as u32);
            }
        }
    }

    #[test]
    fn irreducible_cycle_entries_are_dominated_by_the_fork_only() {
        // 0 -> 1, 2; 1 <-> 2
        let g = cfg(&[&[1, 2], &[2], &[1]]);
        let d = DomTree::compute(&g);
        assert_eq!(d.idom(Block(1)), Some(Block(0)));
        assert_eq!(d.idom(Block(2)), Some(Block(0)));
    }

    #[test]
    fn unreachable_blocks_are_dominated_by_nothing() {
        let g = cfg(&[&[], &[0]]);
        let d = DomTree::compute(&g);
        assert!(!d.dominates(Block(0), Block(1)));
        assert!(!d.dominates(Block(1), Block(1)));
        assert_eq!(d.preorder_number(Block(1)), None);
    }
}
