//! Reading a value across blocks turned into passing it as a block argument.
//!
//! SSA lets any block that a definition dominates read it. Some rewrites need a
//! block whose values are read only by its own terminator: jump threading sends a
//! branch past such a block, and a value it defines that a later block reads would
//! no longer dominate that reader. [`pass_as_arguments`] gives every block where the
//! value is live on entry a parameter of its own, passed along every edge that
//! reaches it, so that the value's definition is read only where it is made (and by
//! its block's terminator). It is the block-argument form of one value: the
//! parameters are the φs of a non-pruned construction restricted to the value's
//! live range, which is why it needs no dominance frontiers.

use cranelift_entity::SecondaryMap;
use vliw_ir::{Block, ControlFlowGraph, Function, Value};

/// The blocks other than `def` where `v` is live on entry, found backwards from its
/// readers outside `def`: `None` when they are more than `limit`, or when the walk
/// reaches a block without predecessors (`v` would not dominate its reader: the
/// function is not in SSA form or has unreachable blocks).
pub fn live_in_blocks(
    func: &Function,
    cfg: &ControlFlowGraph,
    v: Value,
    def: Block,
    limit: usize,
) -> Option<Vec<Block>> {
    let mut live: SecondaryMap<Block, bool> = SecondaryMap::new();
    let mut blocks = Vec::new();
    for block in func.layout.blocks() {
        if block == def || live[block] {
            continue;
        }
        let reads = func
            .layout
            .block_insts(block)
            .any(|inst| func.dfg.inst_values(inst).any(|x| x == v));
        if reads {
            live[block] = true;
            blocks.push(block);
        }
    }
    let mut work = blocks.clone();
    while let Some(block) = work.pop() {
        if cfg.preds(block).is_empty() {
            return None;
        }
        for &pred in cfg.preds(block) {
            if pred == def || live[pred] {
                continue;
            }
            live[pred] = true;
            blocks.push(pred);
            work.push(pred);
        }
        if blocks.len() > limit {
            return None;
        }
    }
    Some(blocks)
}

/// Gives each block of `live_in` (from [`live_in_blocks`] for `v` defined in `def`) a
/// parameter that replaces `v` in it, and makes every branch into such a block pass
/// its own block's version: `v` itself from `def`, the new parameter from a block of
/// `live_in`. Every predecessor of a block of `live_in` is `def` or in `live_in`
/// (the value is live out of it), so every edge gets its argument.
pub fn pass_as_arguments(func: &mut Function, v: Value, def: Block, live_in: &[Block]) {
    let ty = func.dfg.value_type(v);
    let mut version: SecondaryMap<Block, Option<Value>> = SecondaryMap::new();
    for &block in live_in {
        let param = func.dfg.append_block_param(block, ty);
        version[block] = Some(param);
        let insts: Vec<_> = func.layout.block_insts(block).collect();
        for inst in insts {
            func.dfg
                .map_inst_values(inst, |x| if x == v { param } else { x });
        }
    }
    version[def] = Some(v);
    for block in std::iter::once(def).chain(live_in.iter().copied()) {
        let passed = version[block].expect("a version in every block that passes one");
        let insts: Vec<_> = func.layout.block_insts(block).collect();
        for inst in insts {
            for call in func.dfg.inst_data_mut(inst).branch_destinations_mut() {
                if version[call.block].is_some() && call.block != def {
                    call.args.push(passed);
                }
            }
        }
    }
}
