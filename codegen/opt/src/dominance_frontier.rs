//! Dominance frontiers (Cytron et al.) and their iteration: where definitions in a set
//! of blocks meet, i.e. where SSA construction may need a block parameter.

use cranelift_entity::SecondaryMap;
use vliw_ir::{Block, ControlFlowGraph, DominatorTree};

/// `DF(b)` for every reachable block, computed the way Cooper, Harvey and Kennedy do: for
/// each join block, walk up from each predecessor to the join's immediate dominator.
/// Linear in the size of the frontiers.
pub struct DominanceFrontiers {
    frontier: SecondaryMap<Block, Vec<Block>>,
}

impl DominanceFrontiers {
    pub fn compute(cfg: &ControlFlowGraph, domtree: &DominatorTree) -> Self {
        let mut frontier: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
        for &block in domtree.rpo() {
            let preds = cfg.preds(block);
            if preds.len() < 2 {
                continue;
            }
            let idom = domtree.idom(block);
            for &pred in preds {
                if !domtree.is_reachable(pred) {
                    continue;
                }
                let mut runner = Some(pred);
                while let Some(r) = runner {
                    if Some(r) == idom {
                        break;
                    }
                    if frontier[r].last() != Some(&block) {
                        frontier[r].push(block);
                    }
                    runner = domtree.idom(r);
                }
            }
        }
        DominanceFrontiers { frontier }
    }

    pub fn frontier(&self, block: Block) -> &[Block] {
        &self.frontier[block]
    }

    /// The iterated dominance frontier of `defs`, restricted to the blocks for which
    /// `wanted` holds (pruned SSA: where the variable is live-in). Linear in the
    /// frontiers visited; `scratch` is reused between calls.
    pub fn iterated(
        &self,
        defs: &[Block],
        wanted: impl Fn(Block) -> bool,
        scratch: &mut IdfScratch,
    ) -> Vec<Block> {
        let mut result = Vec::new();
        let mut work: Vec<Block> = Vec::new();
        for &d in defs {
            if !scratch.queued[d] {
                scratch.queued[d] = true;
                scratch.touched.push(d);
                work.push(d);
            }
        }
        while let Some(b) = work.pop() {
            for &f in self.frontier(b) {
                if scratch.placed[f] || !wanted(f) {
                    continue;
                }
                scratch.placed[f] = true;
                scratch.touched.push(f);
                result.push(f);
                if !scratch.queued[f] {
                    scratch.queued[f] = true;
                    work.push(f);
                }
            }
        }
        for b in scratch.touched.drain(..) {
            scratch.queued[b] = false;
            scratch.placed[b] = false;
        }
        result
    }
}

/// Marks reused by [`DominanceFrontiers::iterated`] (all clear between calls).
#[derive(Default)]
pub struct IdfScratch {
    queued: SecondaryMap<Block, bool>,
    placed: SecondaryMap<Block, bool>,
    touched: Vec<Block>,
}
