//! The dominator tree of a function: `vliw_ssa::DomTree` (Cooper, Harvey and Kennedy,
//! "A Simple, Fast Dominance Algorithm"; the compiler's one implementation, shared
//! with the machine back end) on the function's [`ControlFlowGraph`], with children
//! in reverse postorder, plus the queries that need the layout.
//!
//! Post-dominators and control dependence are `vliw_ssa::PostDomTree` and
//! `vliw_ssa::ControlDependence` on the same graph ([`PostDominatorTree`]).

use crate::entities::{Block, Inst};
use crate::flowgraph::ControlFlowGraph;
use crate::function::Function;
use crate::layout::Layout;
use vliw_ssa::{ChildOrder, DomTree, Graph};

/// The post-dominator tree of a function's CFG, with a virtual exit (`docs/ssa.md`):
/// `PostDominatorTree::compute(&ControlFlowGraph::compute(func))`.
pub type PostDominatorTree = vliw_ssa::PostDomTree<Block>;

/// Immediate dominators of the blocks reachable from the entry block, with a reverse
/// postorder. A block dominates itself; an unreachable block dominates and is dominated
/// by nothing (not even itself).
#[derive(Clone, Debug, Default)]
pub struct DominatorTree {
    tree: DomTree<Block>,
}

/// The CFG with the function's entry block and block count.
struct FuncGraph<'a> {
    cfg: &'a ControlFlowGraph,
    entry: Block,
    num_blocks: usize,
}

impl Graph for FuncGraph<'_> {
    type Node = Block;

    fn num_nodes(&self) -> usize {
        self.num_blocks
    }

    fn entry(&self) -> Block {
        self.entry
    }

    fn successors(&self, n: Block) -> &[Block] {
        self.cfg.succs(n)
    }

    fn predecessors(&self, n: Block) -> &[Block] {
        self.cfg.preds(n)
    }
}

impl DominatorTree {
    /// Compute from a function (builds its CFG).
    pub fn compute(func: &Function) -> Self {
        Self::with_cfg(func, &ControlFlowGraph::compute(func))
    }

    /// Compute from a function and its CFG.
    pub fn with_cfg(func: &Function, cfg: &ControlFlowGraph) -> Self {
        let Some(entry) = func.layout.entry_block() else {
            return DominatorTree::default();
        };
        let graph = FuncGraph {
            cfg,
            entry,
            num_blocks: func.dfg.num_blocks(),
        };
        DominatorTree {
            tree: DomTree::compute_with(&graph, ChildOrder::ReversePostorder),
        }
    }

    /// The shared implementation's tree (preorder numbers, depths, subtree intervals).
    pub fn tree(&self) -> &DomTree<Block> {
        &self.tree
    }

    /// The reachable blocks in reverse postorder (entry first).
    pub fn rpo(&self) -> &[Block] {
        self.tree.reverse_postorder()
    }

    /// Position of a reachable block in `rpo` plus one; 0 when unreachable.
    pub fn rpo_number(&self, block: Block) -> u32 {
        self.tree.rpo_number(block).map_or(0, |n| n + 1)
    }

    pub fn is_reachable(&self, block: Block) -> bool {
        self.tree.is_reachable(block)
    }

    /// The immediate dominator (`None` for the entry block and unreachable blocks).
    pub fn idom(&self, block: Block) -> Option<Block> {
        self.tree.idom(block)
    }

    /// The blocks `block` immediately dominates, in reverse postorder.
    pub fn children(&self, block: Block) -> &[Block] {
        self.tree.children(block)
    }

    /// Whether `a` dominates `b` (every path from the entry to `b` passes through `a`).
    /// Constant time: `b` is in `a`'s subtree of the dominator tree.
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        self.tree.dominates(a, b)
    }

    /// Whether `a` strictly dominates `b`.
    pub fn strictly_dominates(&self, a: Block, b: Block) -> bool {
        self.tree.strictly_dominates(a, b)
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
        self.tree.preorder().to_vec()
    }
}
