//! The preparation before the control flow is touched: unreachable blocks removed,
//! branches whose destinations are all equal simplified to jumps, and every value made
//! block-local (rule 1): constants re-materialized where they are used, and the other
//! values live into a block passed to it as new parameters.
//!
//! Liveness is computed per value by path exploration (the SSA book's "liveness sets
//! by variable", as in Boissinot's thesis §3.2 for the uses of one variable): from each
//! use outside the defining block, walk the predecessors backwards until the defining
//! block, marking the blocks the value is live into. Only values used outside their
//! defining block take part, and the walk visits exactly the blocks (and their
//! predecessor edges) the value is live into, so the cost is the size of the result,
//! the parameters that must be added anyway: no bit sets of blocks × values and no
//! fixpoint iteration. (`vliw_ssa::DataflowLiveness` checks it in the tests.)

use super::RestructureStats;
use cranelift_entity::SecondaryMap;
use cranelift_entity::packed_option::PackedOption;
use rustc_hash::{FxHashMap, FxHashSet};
use vliw_ir::{Block, ControlFlowGraph, Function, InstructionData, Opcode, Value, ValueDef};

/// Removes the blocks the entry does not reach from the layout; returns how many.
pub(crate) fn remove_unreachable(func: &mut Function) -> usize {
    let Some(entry) = func.layout.entry_block() else {
        return 0;
    };
    let mut seen: SecondaryMap<Block, bool> = SecondaryMap::new();
    let mut stack = vec![entry];
    seen[entry] = true;
    while let Some(b) = stack.pop() {
        if let Some(term) = func.layout.last_inst(b) {
            for d in func.dfg.branch_destinations(term) {
                if !seen[d.block] {
                    seen[d.block] = true;
                    stack.push(d.block);
                }
            }
        }
    }
    let dead: Vec<Block> = func.layout.blocks().filter(|&b| !seen[b]).collect();
    for &b in &dead {
        func.layout.remove_block(b);
    }
    dead.len()
}

/// Replaces each `brif`/`switch` whose destinations all go to the same block with the
/// same arguments by a `jump` there; returns how many.
pub(crate) fn simplify_branches(func: &mut Function) -> usize {
    let mut n = 0;
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for b in blocks {
        let Some(term) = func.layout.last_inst(b) else {
            continue;
        };
        if !matches!(func.dfg.opcode(term), Opcode::Brif | Opcode::Switch) {
            continue;
        }
        let dests = func.dfg.branch_destinations(term);
        if dests.iter().all(|d| *d == dests[0]) {
            let dest = dests[0].clone();
            func.dfg.replace_inst(
                term,
                InstructionData::Jump {
                    opcode: Opcode::Jump,
                    dest,
                },
            );
            n += 1;
        }
    }
    n
}

/// Whether a value defined by this opcode is copied into the blocks that use it
/// instead of being passed: pure instructions without operands.
pub fn is_rematerializable(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Iconst
            | Opcode::F32const
            | Opcode::F64const
            | Opcode::SymbolAddr
            | Opcode::TlsAddr
            | Opcode::StackAddr
            | Opcode::Undef
    )
}

/// Makes every value block-local (rule 1). All blocks must be reachable.
pub(crate) fn make_values_local(func: &mut Function, stats: &mut RestructureStats) {
    let Some(entry) = func.layout.entry_block() else {
        return;
    };
    let blocks: Vec<Block> = func.layout.blocks().collect();

    // Where each value is defined.
    let mut def_block: SecondaryMap<Value, PackedOption<Block>> = SecondaryMap::new();
    for &b in &blocks {
        for &p in func.dfg.block_params(b) {
            def_block[p] = b.into();
        }
        for inst in func.layout.block_insts(b) {
            for &r in func.dfg.inst_results(inst) {
                def_block[r] = b.into();
            }
        }
    }
    let defined_in =
        |def_block: &SecondaryMap<Value, PackedOption<Block>>, v: Value| def_block[v].expand();

    // 1. Re-materialize constants in the blocks that use them.
    let mut copies: FxHashMap<(Block, Value), Value> = FxHashMap::default();
    for &b in &blocks {
        let mut needed: Vec<(Value, vliw_ir::Inst)> = Vec::new();
        let mut seen: FxHashSet<Value> = FxHashSet::default();
        for inst in func.layout.block_insts(b) {
            for v in func.dfg.inst_values(inst) {
                if defined_in(&def_block, v) == Some(b) {
                    continue;
                }
                if let ValueDef::Result(def, _) = func.dfg.value_def(v)
                    && is_rematerializable(func.dfg.opcode(def))
                    && seen.insert(v)
                {
                    needed.push((v, def));
                }
            }
        }
        let Some(first) = func.layout.first_inst(b) else {
            continue;
        };
        for (v, def) in needed {
            let data = func.dfg.inst_data(def).clone();
            let copy = func.dfg.make_inst(data);
            let r = func.dfg.append_result(copy, func.dfg.value_type(v));
            func.layout.insert_inst_before(copy, first);
            func.srclocs[copy] = func.srclocs[def];
            def_block[r] = b.into();
            copies.insert((b, v), r);
            stats.consts_rematerialized += 1;
        }
    }
    if !copies.is_empty() {
        for &b in &blocks {
            let insts: Vec<_> = func.layout.block_insts(b).collect();
            for inst in insts {
                func.dfg
                    .map_inst_values(inst, |v| copies.get(&(b, v)).copied().unwrap_or(v));
            }
        }
    }

    // 2. Uses outside the defining block, grouped by value.
    let mut uses: Vec<(Value, Block)> = Vec::new();
    for &b in &blocks {
        for inst in func.layout.block_insts(b) {
            for v in func.dfg.inst_values(inst) {
                if defined_in(&def_block, v) != Some(b) {
                    uses.push((v, b));
                }
            }
        }
    }
    if uses.is_empty() {
        return;
    }
    uses.sort_unstable();
    uses.dedup();

    // 3. Live-in sets by path exploration, value by value (in value order, so each
    // block's list is sorted).
    let cfg = ControlFlowGraph::compute(func);
    let mut live_in: SecondaryMap<Block, Vec<Value>> = SecondaryMap::new();
    // `marked[b] == v + 1`: `v` is already known live into `b`.
    let mut marked: SecondaryMap<Block, u32> = SecondaryMap::new();
    let mut stack: Vec<Block> = Vec::new();
    let mut i = 0;
    while i < uses.len() {
        let v = uses[i].0;
        let d = defined_in(&def_block, v).expect("a used value is defined in the layout");
        let tag = v.as_u32() + 1;
        while i < uses.len() && uses[i].0 == v {
            stack.push(uses[i].1);
            i += 1;
        }
        while let Some(b) = stack.pop() {
            if b == d || marked[b] == tag {
                continue;
            }
            assert!(
                b != entry,
                "{v} is used where its definition does not dominate"
            );
            marked[b] = tag;
            live_in[b].push(v);
            stack.extend_from_slice(cfg.preds(b));
        }
    }

    // 4. A parameter per live-in value; the block's uses renamed to it.
    let mut local: FxHashMap<(Block, Value), Value> = FxHashMap::default();
    for &b in &blocks {
        if live_in[b].is_empty() {
            continue;
        }
        for &v in &live_in[b] {
            let ty = func.dfg.value_type(v);
            let p = func.dfg.append_block_param(b, ty);
            local.insert((b, v), p);
        }
        stats.params_added += live_in[b].len();
        stats.live_params_added += live_in[b].len();
        let insts: Vec<_> = func.layout.block_insts(b).collect();
        for inst in insts {
            func.dfg
                .map_inst_values(inst, |v| local.get(&(b, v)).copied().unwrap_or(v));
        }
    }

    // 5. Every edge passes the live-in values of its target, as named in its source.
    for &b in &blocks {
        let term = func.layout.last_inst(b).expect("blocks are not empty");
        for d in func.dfg.inst_data_mut(term).branch_destinations_mut() {
            for &v in &live_in[d.block] {
                d.args.push(local.get(&(b, v)).copied().unwrap_or(v));
            }
        }
    }
}
