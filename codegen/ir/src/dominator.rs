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
        dt
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
    pub fn dominates(&self, a: Block, mut b: Block) -> bool {
        let ra = self.rpo_number[a];
        if ra == 0 || self.rpo_number[b] == 0 {
            return false;
        }
        while self.rpo_number[b] > ra {
            match self.idom[b].expand() {
                Some(d) => b = d,
                None => return false,
            }
        }
        a == b
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

    /// The blocks in a preorder of the dominator tree.
    pub fn preorder(&self) -> Vec<Block> {
        let mut out = Vec::with_capacity(self.rpo.len());
        let mut stack: Vec<Block> = self.rpo.first().copied().into_iter().collect();
        while let Some(b) = stack.pop() {
            out.push(b);
            stack.extend(self.children[b].iter().rev().copied());
        }
        out
    }
}
