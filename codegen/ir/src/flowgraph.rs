//! The control-flow graph: predecessors and successors of the blocks in the layout.
//!
//! It is a [`vliw_ssa::Graph`] (blocks by their dense index, the layout's entry block),
//! so the shared graph algorithms of `vliw-ssa` run on it: the dominator tree
//! ([`crate::DominatorTree`] wraps `vliw_ssa::DomTree`), the post-dominator tree and
//! control dependence (`vliw_ssa::PostDomTree`, `vliw_ssa::ControlDependence`).

use crate::entities::Block;
use crate::function::Function;
use cranelift_entity::SecondaryMap;
use cranelift_entity::packed_option::PackedOption;

/// Predecessors and successors of each block, deduplicated (a `brif` to the same block
/// twice is one edge). Edges come from the branch instructions of blocks in the layout;
/// targets outside the layout are ignored. Recompute after changing the CFG.
#[derive(Clone, Debug, Default)]
pub struct ControlFlowGraph {
    preds: SecondaryMap<Block, Vec<Block>>,
    succs: SecondaryMap<Block, Vec<Block>>,
    /// The layout's first block (`None`: no blocks).
    entry: Option<Block>,
    /// The number of blocks of the data-flow graph (in the layout or not).
    num_blocks: usize,
}

impl ControlFlowGraph {
    pub fn compute(func: &Function) -> Self {
        let mut cfg = ControlFlowGraph {
            entry: func.layout.entry_block(),
            num_blocks: func.dfg.num_blocks(),
            ..ControlFlowGraph::default()
        };
        // The last block found branching to each block: deduplicates the edges of a
        // block in constant time each (a switch may have thousands of targets).
        let mut last_pred: SecondaryMap<Block, PackedOption<Block>> = SecondaryMap::new();
        for block in func.layout.blocks() {
            for inst in func.layout.block_insts(block) {
                for dest in func.dfg.branch_destinations(inst) {
                    let t = dest.block;
                    if !func.dfg.block_is_valid(t) || !func.layout.is_block_inserted(t) {
                        continue;
                    }
                    if last_pred[t].expand() != Some(block) {
                        last_pred[t] = block.into();
                        cfg.succs[block].push(t);
                        cfg.preds[t].push(block);
                    }
                }
            }
        }
        cfg
    }

    /// Predecessors, in layout order of the branching blocks.
    pub fn preds(&self, block: Block) -> &[Block] {
        &self.preds[block]
    }

    /// Successors, in the order the terminator names them (`brif`: then, else;
    /// `switch`: default, then the cases).
    pub fn succs(&self, block: Block) -> &[Block] {
        &self.succs[block]
    }
}

/// Blocks are nodes by their index; the entry is the layout's first block. A function
/// without blocks is a graph without nodes.
impl vliw_ssa::Graph for ControlFlowGraph {
    type Node = Block;

    fn num_nodes(&self) -> usize {
        if self.entry.is_some() {
            self.num_blocks
        } else {
            0
        }
    }

    fn entry(&self) -> Block {
        self.entry.expect("a graph with nodes has an entry")
    }

    fn successors(&self, n: Block) -> &[Block] {
        self.succs(n)
    }

    fn predecessors(&self, n: Block) -> &[Block] {
        self.preds(n)
    }
}
