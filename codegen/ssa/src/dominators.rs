//! Immediate dominators (Cooper, Harvey and Kennedy, "A simple, fast dominance
//! algorithm", 2001) and the dominator tree with preorder intervals for an O(1)
//! dominance test.
//!
//! The dominator-tree preorder is the "≺" order of the SSA destruction (thesis §5.3.2):
//! a block comes before every block it dominates.

use crate::cfg::{Block, Cfg};
use crate::dfs::DfsOrder;

const NONE: u32 = u32::MAX;

/// The dominator tree of the reachable part of a CFG.
#[derive(Clone, Debug)]
pub struct DomTree {
    idom: Vec<Option<Block>>,
    child_start: Vec<u32>,
    child_list: Vec<Block>,
    pre: Vec<u32>,
    last: Vec<u32>,
    depth: Vec<u32>,
    preorder: Vec<Block>,
}

impl DomTree {
    pub fn compute(cfg: &Cfg) -> DomTree {
        DomTree::from_dfs(cfg, &DfsOrder::compute(cfg))
    }

    /// Computes the tree from a depth-first order of `cfg` (its postorder numbers drive
    /// the intersection of dominator paths).
    ///
    /// Complexity: each pass is O(V + E); the number of passes is bounded by the loop
    /// connectedness of the graph (two or three on real code), O(V) in the worst case.
    pub fn from_dfs(cfg: &Cfg, dfs: &DfsOrder) -> DomTree {
        let n = cfg.num_blocks();
        let entry = cfg.entry();
        // idom as postorder numbers, NONE while unknown.
        let post = |b: Block| dfs.post_number(b).expect("reachable");
        let mut idom_po = vec![NONE; n];
        idom_po[entry.index()] = post(entry);
        let po_block = dfs.postorder();
        let intersect = |idom_po: &[u32], mut a: u32, mut b: u32| {
            while a != b {
                while a < b {
                    a = idom_po[po_block[a as usize].index()];
                }
                while b < a {
                    b = idom_po[po_block[b as usize].index()];
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for b in dfs.reverse_postorder().skip(1) {
                let mut new = NONE;
                for &p in cfg.preds(b) {
                    if idom_po[p.index()] == NONE {
                        continue;
                    }
                    let pp = post(p);
                    new = if new == NONE {
                        pp
                    } else {
                        intersect(&idom_po, pp, new)
                    };
                }
                if new != idom_po[b.index()] {
                    idom_po[b.index()] = new;
                    changed = true;
                }
            }
        }

        let mut idom = vec![None; n];
        for b in dfs.preorder().iter().copied().skip(1) {
            idom[b.index()] = Some(po_block[idom_po[b.index()] as usize]);
        }

        // Children lists (CSR), in preorder of the CFG search so the tree order is
        // deterministic.
        let mut child_start = vec![0u32; n + 1];
        for b in dfs.preorder() {
            if let Some(d) = idom[b.index()] {
                child_start[d.index() + 1] += 1;
            }
        }
        for i in 0..n {
            child_start[i + 1] += child_start[i];
        }
        let mut fill = child_start.clone();
        let mut child_list = vec![Block(0); child_start[n] as usize];
        for &b in dfs.preorder() {
            if let Some(d) = idom[b.index()] {
                child_list[fill[d.index()] as usize] = b;
                fill[d.index()] += 1;
            }
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
            preorder: Vec::with_capacity(cfg.num_reachable()),
        };
        let mut stack: Vec<(Block, u32)> = vec![(entry, 0)];
        tree.pre[entry.index()] = 0;
        tree.preorder.push(entry);
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            let kids = tree.children(b);
            if let Some(&c) = kids.get(*next as usize) {
                *next += 1;
                tree.pre[c.index()] = tree.preorder.len() as u32;
                tree.depth[c.index()] = tree.depth[b.index()] + 1;
                tree.preorder.push(c);
                stack.push((c, 0));
            } else {
                tree.last[b.index()] = tree.preorder.len() as u32 - 1;
                stack.pop();
            }
        }
        tree
    }

    /// The immediate dominator; `None` for the entry and unreachable blocks.
    pub fn idom(&self, b: Block) -> Option<Block> {
        self.idom[b.index()]
    }

    /// The blocks `b` immediately dominates.
    pub fn children(&self, b: Block) -> &[Block] {
        &self.child_list
            [self.child_start[b.index()] as usize..self.child_start[b.index() + 1] as usize]
    }

    pub fn is_reachable(&self, b: Block) -> bool {
        self.pre[b.index()] != NONE
    }

    /// Whether `a` dominates `b` (reflexive); `false` if either is unreachable. O(1).
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        let (pa, pb) = (self.pre[a.index()], self.pre[b.index()]);
        pa != NONE && pb != NONE && pa <= pb && pb <= self.last[a.index()]
    }

    /// Whether `a` dominates `b` and differs from it. O(1).
    pub fn strictly_dominates(&self, a: Block, b: Block) -> bool {
        a != b && self.dominates(a, b)
    }

    /// Reachable blocks in a preorder of the dominator tree: every block after its
    /// dominators (the "≺" order of thesis §5.3.2).
    pub fn preorder(&self) -> &[Block] {
        &self.preorder
    }

    /// The position of `b` in [`DomTree::preorder`]; `None` if unreachable.
    pub fn preorder_number(&self, b: Block) -> Option<u32> {
        Some(self.pre[b.index()]).filter(|&n| n != NONE)
    }

    /// The depth of `b` in the dominator tree (the entry has depth 0).
    pub fn depth(&self, b: Block) -> u32 {
        self.depth[b.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
