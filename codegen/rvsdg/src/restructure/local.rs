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

/// Where each value of the layout is defined.
pub(crate) type DefBlocks = SecondaryMap<Value, PackedOption<Block>>;

fn def_blocks(func: &Function, blocks: &[Block]) -> DefBlocks {
    let mut def_block: DefBlocks = SecondaryMap::new();
    for &b in blocks {
        for &p in func.dfg.block_params(b) {
            def_block[p] = b.into();
        }
        for inst in func.layout.block_insts(b) {
            for &r in func.dfg.inst_results(inst) {
                def_block[r] = b.into();
            }
        }
    }
    def_block
}

/// Makes every value block-local (rule 1). All blocks must be reachable.
pub(crate) fn make_values_local(func: &mut Function, stats: &mut RestructureStats) {
    let Some(entry) = func.layout.entry_block() else {
        return;
    };
    let blocks: Vec<Block> = func.layout.blocks().collect();
    let mut def_block = def_blocks(func, &blocks);
    stats.consts_rematerialized += rematerialize(func, &blocks, &mut def_block);
    let live_in = live_in_sets(func, &blocks, &def_block, entry);
    let added = pass_live_values(func, &blocks, &live_in);
    stats.params_added += added;
    stats.live_params_added += added;
}

/// Copies each constant used outside its block into the blocks that use it (once per
/// block, at its start); returns the number of copies.
pub(crate) fn rematerialize(
    func: &mut Function,
    blocks: &[Block],
    def_block: &mut DefBlocks,
) -> usize {
    let mut copies: FxHashMap<(Block, Value), Value> = FxHashMap::default();
    for &b in blocks {
        let mut needed: Vec<(Value, vliw_ir::Inst)> = Vec::new();
        let mut seen: FxHashSet<Value> = FxHashSet::default();
        for inst in func.layout.block_insts(b) {
            for v in func.dfg.inst_values(inst) {
                if def_block[v].expand() == Some(b) {
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
        }
    }
    if !copies.is_empty() {
        for &b in blocks {
            let insts: Vec<_> = func.layout.block_insts(b).collect();
            for inst in insts {
                func.dfg
                    .map_inst_values(inst, |v| copies.get(&(b, v)).copied().unwrap_or(v));
            }
        }
    }
    copies.len()
}

/// The values live into each block other than its own parameters (Def 1 of
/// Boissinot's thesis §3.1: used on a path from the block's entry that avoids the
/// definition), by path exploration from the uses; each list in increasing value
/// order. The function must be in strict SSA with every block reachable.
pub(crate) fn live_in_sets(
    func: &Function,
    blocks: &[Block],
    def_block: &DefBlocks,
    entry: Block,
) -> SecondaryMap<Block, Vec<Value>> {
    let mut live_in: SecondaryMap<Block, Vec<Value>> = SecondaryMap::new();
    // Uses outside the defining block (a branch argument is a use in the block that
    // passes it), grouped by value.
    let mut uses: Vec<(Value, Block)> = Vec::new();
    for &b in blocks {
        for inst in func.layout.block_insts(b) {
            for v in func.dfg.inst_values(inst) {
                if def_block[v].expand() != Some(b) {
                    uses.push((v, b));
                }
            }
        }
    }
    if uses.is_empty() {
        return live_in;
    }
    uses.sort_unstable();
    uses.dedup();
    let cfg = ControlFlowGraph::compute(func);
    // `marked[b] == v + 1`: `v` is already known live into `b`.
    let mut marked: SecondaryMap<Block, u32> = SecondaryMap::new();
    let mut stack: Vec<Block> = Vec::new();
    let mut i = 0;
    while i < uses.len() {
        let v = uses[i].0;
        let d = def_block[v]
            .expand()
            .expect("a used value is defined in the layout");
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
    live_in
}

/// Gives each block a parameter per live-in value, renames the block's uses to it, and
/// makes every edge pass the live-in values of its target as named in its source;
/// returns the number of parameters added.
fn pass_live_values(
    func: &mut Function,
    blocks: &[Block],
    live_in: &SecondaryMap<Block, Vec<Value>>,
) -> usize {
    let mut added = 0;
    let mut local: FxHashMap<(Block, Value), Value> = FxHashMap::default();
    for &b in blocks {
        if live_in[b].is_empty() {
            continue;
        }
        for &v in &live_in[b] {
            let ty = func.dfg.value_type(v);
            let p = func.dfg.append_block_param(b, ty);
            local.insert((b, v), p);
        }
        added += live_in[b].len();
        let insts: Vec<_> = func.layout.block_insts(b).collect();
        for inst in insts {
            func.dfg
                .map_inst_values(inst, |v| local.get(&(b, v)).copied().unwrap_or(v));
        }
    }
    for &b in blocks {
        let term = func.layout.last_inst(b).expect("blocks are not empty");
        for d in func.dfg.inst_data_mut(term).branch_destinations_mut() {
            for &v in &live_in[d.block] {
                d.args.push(local.get(&(b, v)).copied().unwrap_or(v));
            }
        }
    }
    added
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_entity::EntityRef;
    use vliw_ssa::program::{BlockCode, ExplicitProgram, Instruction};
    use vliw_ssa::{DataflowLiveness, Var};

    /// The live-in sets of `vliw_ssa`'s iterative data-flow liveness (the reference),
    /// over every value of `func`.
    fn reference(func: &Function) -> SecondaryMap<Block, Vec<Value>> {
        let n = func.dfg.num_blocks();
        let cfg = ControlFlowGraph::compute(func);
        let entry = func.layout.entry_block().expect("an entry");
        let ssa_cfg = vliw_ssa::Cfg::from_successors(
            vliw_ssa::Block::new(entry.index()),
            (0..n).map(|i| {
                cfg.succs(Block::new(i))
                    .iter()
                    .map(|s| vliw_ssa::Block::new(s.index()))
                    .collect::<Vec<_>>()
            }),
        );
        let var = |v: Value| Var::new(v.index());
        let mut p = ExplicitProgram::new(n);
        p.var_count = func.dfg.num_values();
        for b in func.layout.blocks() {
            let mut code = BlockCode {
                params: func.dfg.block_params(b).iter().map(|&v| var(v)).collect(),
                ..BlockCode::default()
            };
            let mut phi_uses = Vec::new();
            for inst in func.layout.block_insts(b) {
                code.insts.push(Instruction {
                    defs: func
                        .dfg
                        .inst_results(inst)
                        .iter()
                        .map(|&v| var(v))
                        .collect(),
                    uses: func.dfg.inst_args(inst).iter().map(|&v| var(v)).collect(),
                });
                for d in func.dfg.branch_destinations(inst) {
                    phi_uses.extend(d.args.iter().map(|&v| var(v)));
                }
            }
            code.edge_args = vec![phi_uses];
            p.blocks[b.index()] = code;
        }
        let sets = DataflowLiveness::compute(&ssa_cfg, &p).sets;
        let mut out: SecondaryMap<Block, Vec<Value>> = SecondaryMap::new();
        for b in func.layout.blocks() {
            out[b] = sets
                .live_in(vliw_ssa::Block::new(b.index()))
                .iter()
                .map(Value::new)
                .collect();
        }
        out
    }

    fn check(func: &Function) {
        let mut f = func.clone();
        remove_unreachable(&mut f);
        simplify_branches(&mut f);
        let blocks: Vec<Block> = f.layout.blocks().collect();
        let mut def_block = def_blocks(&f, &blocks);
        rematerialize(&mut f, &blocks, &mut def_block);
        let entry = f.layout.entry_block().expect("an entry");
        let mine = live_in_sets(&f, &blocks, &def_block, entry);
        let want = reference(&f);
        for &b in &blocks {
            let mut got = mine[b].clone();
            got.sort();
            assert_eq!(got, want[b], "@{}: live into {b}\n{f}", f.name);
            assert!(
                got.iter().all(|&v| match f.dfg.value_def(v) {
                    ValueDef::Result(i, _) => !is_rematerializable(f.dfg.opcode(i)),
                    _ => true,
                }),
                "a constant is live across blocks after re-materialization"
            );
        }
    }

    #[test]
    fn live_in_sets_agree_with_iterative_data_flow_liveness() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ir");
        let mut stack = vec![root];
        let mut functions = 0;
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).expect("tests/ir").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "ir") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).expect("read");
                let Ok(module) = vliw_ir::parse_module(&text) else {
                    continue;
                };
                if vliw_ir::verify_module(&module).is_err() {
                    continue;
                }
                for f in &module.functions {
                    check(f);
                    functions += 1;
                }
            }
        }
        assert!(functions > 200, "{functions} functions");
    }

    #[test]
    fn live_in_sets_of_an_irreducible_loop() {
        // v1 defined in block0, used in block2 of the loop {block1, block2} entered at
        // both; v5 defined in block1, passed on the edge to block3 only.
        let m = vliw_ir::parse_module(
            "function @f(i32, i1) -> i32 {
block0(v0: i32, v9: i1):
    v1 = iadd v0, v0
    brif v9, block1, block2
block1:
    v5 = iadd v1, v0
    v6 = icmp slt v5, v0
    brif v6, block2, block3(v5)
block2:
    v7 = imul v1, v1
    v8 = icmp slt v7, v0
    brif v8, block1, block3(v7)
block3(v10: i32):
    return v10
}",
        )
        .expect("parses");
        check(&m.functions[0]);
    }
}
