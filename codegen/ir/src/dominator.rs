//! Dominator tree (Cooper, Harvey and Kennedy, "A Simple, Fast Dominance Algorithm").

use crate::entities::{Block, Inst};
use crate::flowgraph::ControlFlowGraph;
use crate::function::Function;
use crate::layout::Layout;
use cranelift_entity::SecondaryMap;
use cranelift_entity::packed_option::PackedOption;

/// Immediate dominators of the blocks reachable from the entry block, with a reverse
/// postorder. A block dominates itself; an unreachable block dominates and is dominated
/// by nothing (not even itself).
#[derive(Clone, Debug, Default)]
pub struct DominatorTree {
    rpo: Vec<Block>,
    /// 1-based position in `rpo`; 0 = unreachable.
    rpo_number: SecondaryMap<Block, u32>,
    idom: SecondaryMap<Block, PackedOption<Block>>,
    children: SecondaryMap<Block, Vec<Block>>,
    /// The reachable blocks in a preorder of the dominator tree (children in reverse
    /// postorder).
    preorder: Vec<Block>,
    /// 1-based position in `preorder`; 0 = unreachable.
    pre_number: SecondaryMap<Block, u32>,
    /// The largest `pre_number` in the block's subtree: `a` dominates `b` exactly when
    /// `pre_number[a] <= pre_number[b] <= pre_last[a]`, a constant-time test.
    pre_last: SecondaryMap<Block, u32>,
}

impl DominatorTree {
    /// Compute from a function (builds its CFG).
    pub fn compute(func: &Function) -> Self {
        Self::with_cfg(func, &ControlFlowGraph::compute(func))
    }

    /// Compute from a function and its CFG.
    pub fn with_cfg(func: &Function, cfg: &ControlFlowGraph) -> Self {
        let mut dt = DominatorTree::default();
        let Some(entry) = func.layout.entry_block() else {
            return dt;
        };
        // iterative DFS postorder
        let mut post = Vec::new();
        let mut visited: SecondaryMap<Block, bool> = SecondaryMap::new();
        let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
        visited[entry] = true;
        while let Some(&mut (b, ref mut i)) = stack.last_mut() {
            let succs = cfg.succs(b);
            if *i < succs.len() {
                let s = succs[*i];
                *i += 1;
                if !visited[s] {
                    visited[s] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        post.reverse();
        dt.rpo = post;
        for (i, &b) in dt.rpo.iter().enumerate() {
            dt.rpo_number[b] = i as u32 + 1;
        }
        // CHK iteration
        dt.idom[entry] = entry.into();
        let mut changed = true;
        while changed {
            changed = false;
            for &b in &dt.rpo[1..] {
                let mut new_idom: Option<Block> = None;
                for &p in cfg.preds(b) {
                    if dt.idom[p].is_none() {
                        continue;
                    }
                    new_idom = Some(match new_idom {
                        None => p,
                        Some(cur) => dt.intersect(cur, p),
                    });
                }
                let new_idom = new_idom.expect("a reachable block has a processed predecessor");
                if dt.idom[b].expand() != Some(new_idom) {
                    dt.idom[b] = new_idom.into();
                    changed = true;
                }
            }
        }
        dt.idom[entry] = None.into();
        for &b in &dt.rpo[1..] {
            let d = dt.idom[b].unwrap();
            dt.children[d].push(b);
        }
        dt.number_preorder(entry);
        dt
    }

    /// Numbers the dominator tree in preorder, and each block's subtree by the range of
    /// its numbers (iteratively: the tree of a long function is deep).
    fn number_preorder(&mut self, entry: Block) {
        self.preorder = Vec::with_capacity(self.rpo.len());
        let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
        self.preorder.push(entry);
        self.pre_number[entry] = 1;
        while let Some(&mut (b, ref mut i)) = stack.last_mut() {
            if let Some(&c) = self.children[b].get(*i) {
                *i += 1;
                self.preorder.push(c);
                self.pre_number[c] = self.preorder.len() as u32;
                stack.push((c, 0));
            } else {
                self.pre_last[b] = self.preorder.len() as u32;
                stack.pop();
            }
        }
    }

    fn intersect(&self, mut a: Block, mut b: Block) -> Block {
        while a != b {
            while self.rpo_number[a] > self.rpo_number[b] {
                a = self.idom[a].unwrap();
            }
            while self.rpo_number[b] > self.rpo_number[a] {
                b = self.idom[b].unwrap();
            }
        }
        a
    }

    /// The reachable blocks in reverse postorder (entry first).
    pub fn rpo(&self) -> &[Block] {
        &self.rpo
    }

    /// Position of a reachable block in `rpo` plus one; 0 when unreachable.
    pub fn rpo_number(&self, block: Block) -> u32 {
        self.rpo_number[block]
    }

    pub fn is_reachable(&self, block: Block) -> bool {
        self.rpo_number[block] != 0
    }

    /// The immediate dominator (`None` for the entry block and unreachable blocks).
    pub fn idom(&self, block: Block) -> Option<Block> {
        self.idom[block].expand()
    }

    /// The blocks `block` immediately dominates, in reverse postorder.
    pub fn children(&self, block: Block) -> &[Block] {
        &self.children[block]
    }

    /// Whether `a` dominates `b` (every path from the entry to `b` passes through `a`).
    /// Constant time: `b` is in `a`'s subtree of the dominator tree.
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        let (pa, pb) = (self.pre_number[a], self.pre_number[b]);
        pa != 0 && pb != 0 && pa <= pb && pb <= self.pre_last[a]
    }

    /// Whether `a` strictly dominates `b`.
    pub fn strictly_dominates(&self, a: Block, b: Block) -> bool {
        a != b && self.dominates(a, b)
    }

    /// Whether instruction `a` dominates instruction `b` (both in the layout): same
    /// block and `a` not after `b`, or `a`'s block strictly dominates `b`'s. Linear in
    /// the block's length when they share a block.
    pub fn inst_dominates(&self, layout: &Layout, a: Inst, b: Inst) -> bool {
        let (Some(ba), Some(bb)) = (layout.inst_block(a), layout.inst_block(b)) else {
            return false;
        };
        if ba != bb {
            return self.strictly_dominates(ba, bb);
        }
        if !self.is_reachable(ba) {
            return false;
        }
        let mut cur = Some(a);
        while let Some(i) = cur {
            if i == b {
                return true;
            }
            cur = layout.next_inst(i);
        }
        false
    }

    /// The blocks in a preorder of the dominator tree (each block's children in
    /// reverse postorder).
    pub fn preorder(&self) -> Vec<Block> {
        self.preorder.clone()
    }
}
