//! The control-flow graph: predecessors and successors of the blocks in the layout.

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
}

impl ControlFlowGraph {
    pub fn compute(func: &Function) -> Self {
        let mut cfg = ControlFlowGraph::default();
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
