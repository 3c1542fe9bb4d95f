//! State threading: a loop that dispatches on a state variable its own paths set to
//! constants goes from each such path straight to the code of the state it set.
//!
//! A tokenizer, a protocol decoder or an interpreter's loop is `loop { st = match st
//! { A => ...; B, B => ...; A, ... } }`: every iteration ends by setting the next
//! state to a constant, joins at the latch, tests the end of its input, and starts
//! the next iteration by testing, one case after another, the state it has just set.
//! On our machine that test is a chain of compares and branches, a taken branch and a
//! bundle or more each, for something every path knew. This is LLVM's
//! `DFAJumpThreading` (for its CoreMark state machine) and GCC's threading of
//! "FSM loops", on the SSA IR after the RVSDG's sequentialization:
//!
//! 1. **The dispatch.** A block `H` that heads a loop (it dominates one of its
//!    predecessors) ends in a `switch` or `brif` on one of its parameters `s`, or on
//!    an extension of it (`uextend`, `sextend`, `ireduce`) made in `H`; besides that
//!    chain `H` holds only constants.
//! 2. **Latches copied.** A block `L` that passes one of its parameters on as `H`'s
//!    `s` (or as such a parameter of another such block, at most [`MAX_DEPTH`] steps
//!    from `H`), holds at most [`MAX_COPIED_INSTS`] operations, none a call, and whose
//!    values only it reads, is copied into every edge that passes it a constant for
//!    that parameter: the copy passes the constant on. Tail duplication, restricted
//!    to where it makes a state known.
//! 3. **Threading.** `H`'s parameters and constants that other blocks read become
//!    those blocks' parameters ([`crate::block_args`]: the value passed along its live
//!    range), so that `H` only branches; then every edge into `H` that passes a
//!    constant for `s` goes straight to the case it selects, with `H`'s arguments
//!    for that case in terms of its own. Blocks nobody branches to any more go.
//! 4. **Merging.** A block that jumps to a block only it enters takes that block's
//!    operations (the cases that jump to their copy of the latch), so that the
//!    schedulers see one block where the copies made two.
//!
//! The result must stay reducible: every loop of the backend (the loop forest of
//! if-conversion and modulo scheduling) has one header. When some edge into `H`
//! does not pass a constant (the first state is an argument, or a path computes it),
//! `H` stays and the cases it is threaded past become second ways into the loop; a
//! state graph can also be irreducible itself. So the pass works on a copy of the
//! function and keeps it only if every retreating edge of a depth-first walk goes to
//! a block that dominates its source (`state-threading.irreducible` counts the
//! dispatches left alone for that).

use cranelift_entity::SecondaryMap;
use vliw_ir::{
    Block, BlockCall, ControlFlowGraph, DominatorTree, Function, Inst, InstructionData, Opcode,
    Value, ValueDef,
};

use crate::block_args;
use crate::dce;
use crate::jump_threading::{constant, copy_constants, is_constant, mask, remove_unreachable};

/// The most operations (besides its terminator) of a block copied into an edge.
pub const MAX_COPIED_INSTS: usize = 8;

/// How many blocks a state may pass through on its way to the dispatch.
pub const MAX_DEPTH: usize = 3;

/// The most operations one function may gain by copied blocks.
const COPY_BUDGET: usize = 400;

/// How many blocks a value of the dispatch may be live in to be passed on as block
/// arguments.
const LIVE_LIMIT: usize = 512;

/// What [`state_threading`] did to one function.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct StateThreadStats {
    /// Dispatches every edge into which was threaded past.
    pub dispatches: usize,
    /// Blocks copied into an edge that passed a constant state.
    pub copied: usize,
    /// Edges sent past a dispatch to the case of their state.
    pub threaded: usize,
    /// Dispatches left alone because threading them made a loop of several entries.
    pub irreducible: usize,
    /// Blocks merged into the block that jumps to them, their only predecessor.
    pub merged: usize,
}

impl std::ops::AddAssign for StateThreadStats {
    fn add_assign(&mut self, o: Self) {
        self.dispatches += o.dispatches;
        self.copied += o.copied;
        self.threaded += o.threaded;
        self.irreducible += o.irreducible;
        self.merged += o.merged;
    }
}

/// Threads every state dispatch of `func` it can (module documentation).
pub fn state_threading(func: &mut Function) -> StateThreadStats {
    let mut stats = StateThreadStats::default();
    let mut budget = COPY_BUDGET;
    // block numbers stay the same in the trial copies, so the candidates found once
    // are tried in turn; one that is threaded goes, one that is not stays as it was
    for (header, state) in dispatches(func) {
        if !func.layout.is_block_inserted(header)
            || dispatch_param(func, header, &outside_readers(func)) != Some(state)
        {
            continue;
        }
        let mut trial = func.clone();
        let mut round = StateThreadStats::default();
        let mut trial_budget = budget;
        if !thread_dispatch(&mut trial, header, state, &mut trial_budget, &mut round) {
            continue;
        }
        if reducible(&trial) {
            *func = trial;
            budget = trial_budget;
            round.dispatches = 1;
            stats += round;
        } else {
            stats.irreducible += 1;
        }
    }
    if stats.dispatches > 0 {
        stats.merged = merge_jump_chains(func);
    }
    stats
}

/// Merges every block that jumps to a block only it enters with that block (the
/// copies of latches after the cases that jump to them), so that the schedulers see
/// one block; how many blocks went.
pub(crate) fn merge_jump_chains(func: &mut Function) -> usize {
    let entry = func.entry_block();
    let cfg = ControlFlowGraph::compute(func);
    let mut subst: SecondaryMap<Value, Option<Value>> = SecondaryMap::new();
    let mut merged = 0;
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for b in blocks {
        if !func.layout.is_block_inserted(b) {
            continue;
        }
        // merging gives `b` the merged block's jump, which may merge again; the
        // predecessor counts of the blocks after it do not change (their edge now
        // leaves `b`), so the graph computed once still tells
        loop {
            let Some(term) = func.layout.last_inst(b) else {
                break;
            };
            let InstructionData::Jump { dest, .. } = func.dfg.inst_data(term) else {
                break;
            };
            let c = dest.block;
            let single = cfg.preds(c).len() == 1;
            let pad = func
                .layout
                .first_inst(c)
                .is_some_and(|i| func.dfg.opcode(i).is_landing_pad());
            if c == b || Some(c) == entry || !single || pad {
                break;
            }
            let args = dest.args.clone();
            let params: Vec<Value> = func.dfg.block_params(c).to_vec();
            for (p, a) in params.into_iter().zip(args) {
                subst[p] = Some(a);
            }
            func.layout.remove_inst(term);
            let insts: Vec<Inst> = func.layout.block_insts(c).collect();
            for i in insts {
                func.layout.remove_inst(i);
                func.layout.append_inst(i, b);
            }
            func.layout.remove_block(c);
            merged += 1;
        }
    }
    if merged > 0 {
        let resolve = |mut v: Value| {
            while let Some(n) = subst[v] {
                v = n;
            }
            v
        };
        let blocks: Vec<Block> = func.layout.blocks().collect();
        for b in blocks {
            let insts: Vec<Inst> = func.layout.block_insts(b).collect();
            for i in insts {
                func.dfg.map_inst_values(i, resolve);
            }
        }
    }
    merged
}

/// Values read by an instruction of another block than the one that defines them.
fn outside_readers(func: &Function) -> SecondaryMap<Value, bool> {
    let mut outside: SecondaryMap<Value, bool> = SecondaryMap::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            for v in func.dfg.inst_values(inst) {
                let def_block = match func.dfg.value_def(v) {
                    ValueDef::Param(b, _) => Some(b),
                    ValueDef::Result(i, _) => func.layout.inst_block(i),
                    ValueDef::Detached => None,
                };
                if def_block != Some(block) {
                    outside[v] = true;
                }
            }
        }
    }
    outside
}

/// The dispatches (loop headers testing a parameter, module documentation) of which
/// some edge in passes a constant state, directly or through blocks that could be
/// copied: each header and the index of its state parameter.
fn dispatches(func: &Function) -> Vec<(Block, usize)> {
    let Some(entry) = func.entry_block() else {
        return Vec::new();
    };
    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::with_cfg(func, &cfg);
    let outside = outside_readers(func);
    let mut out = Vec::new();
    for header in func.layout.blocks() {
        if header == entry || !domtree.is_reachable(header) {
            continue;
        }
        let heads_loop = cfg
            .preds(header)
            .iter()
            .any(|&p| domtree.dominates(header, p));
        if !heads_loop {
            continue;
        }
        let Some(state) = dispatch_param(func, header, &outside) else {
            continue;
        };
        let carriers = carriers(func, &cfg, &outside, header, state);
        let fed = carriers.iter().any(|&(block, index)| {
            edges_into(func, &cfg, block)
                .iter()
                .any(|&(pred, d)| constant_arg(func, pred, d, index).is_some())
        });
        if fed {
            out.push((header, state));
        }
    }
    out
}

/// If `block` is a dispatch: ends in a `switch` or `brif` on a parameter or an
/// extension of one made in it, and otherwise holds only constants: the parameter's
/// index.
fn dispatch_param(
    func: &Function,
    block: Block,
    outside: &SecondaryMap<Value, bool>,
) -> Option<usize> {
    let last = func.layout.last_inst(block)?;
    let mut tested = match func.dfg.inst_data(last) {
        InstructionData::Brif { arg, .. } | InstructionData::Switch { arg, .. } => *arg,
        _ => return None,
    };
    let mut chain = Vec::new();
    loop {
        if let Some(i) = func
            .dfg
            .block_params(block)
            .iter()
            .position(|&p| p == tested)
        {
            let only_chain = func.layout.block_insts(block).all(|inst| {
                inst == last || chain.contains(&inst) || is_constant(func.dfg.opcode(inst))
            });
            // the chain's values must be read only in the block (by the chain and the
            // test: the block holds nothing else that reads)
            let chain_local = chain.iter().all(|&c| !outside[func.dfg.first_result(c)]);
            return (only_chain && chain_local).then_some(i);
        }
        let ValueDef::Result(inst, _) = func.dfg.value_def(tested) else {
            return None;
        };
        if func.layout.inst_block(inst) != Some(block) {
            return None;
        }
        match func.dfg.inst_data(inst) {
            InstructionData::Unary {
                opcode: Opcode::Uextend | Opcode::Sextend | Opcode::Ireduce,
                arg,
            } => {
                chain.push(inst);
                tested = *arg;
            }
            _ => return None,
        }
    }
}

/// The blocks that carry the state towards `header`'s parameter `state`: `(block,
/// parameter index)` for `header` itself and for each copiable block that passes one
/// of its parameters on as a carried one, at most [`MAX_DEPTH`] steps away.
fn carriers(
    func: &Function,
    cfg: &ControlFlowGraph,
    outside: &SecondaryMap<Value, bool>,
    header: Block,
    state: usize,
) -> Vec<(Block, usize)> {
    let mut out = vec![(header, state)];
    let mut frontier = vec![(header, state)];
    for _ in 0..MAX_DEPTH {
        let mut next = Vec::new();
        for &(block, index) in &frontier {
            for (pred, d) in edges_into(func, cfg, block) {
                if pred == header || out.iter().any(|&(b, _)| b == pred) {
                    continue;
                }
                let term = func.layout.last_inst(pred).expect("a branch");
                let arg = func.dfg.branch_destinations(term)[d].args[index];
                let Some(i) = func.dfg.block_params(pred).iter().position(|&p| p == arg) else {
                    continue;
                };
                if copiable(func, outside, pred) && !next.contains(&(pred, i)) {
                    next.push((pred, i));
                }
            }
        }
        out.extend(next.iter().copied());
        frontier = next;
    }
    out
}

/// Whether `block` may be copied into an edge: not the entry, not a landing pad, at
/// most [`MAX_COPIED_INSTS`] operations and none a call, ends in a branch, and only it
/// reads its parameters and results.
fn copiable(func: &Function, outside: &SecondaryMap<Value, bool>, block: Block) -> bool {
    if func.entry_block() == Some(block) {
        return false;
    }
    let Some(last) = func.layout.last_inst(block) else {
        return false;
    };
    if !func.dfg.opcode(last).is_branch() {
        return false;
    }
    let insts: Vec<Inst> = func.layout.block_insts(block).collect();
    if insts.len() - 1 > MAX_COPIED_INSTS {
        return false;
    }
    if insts.iter().any(|&i| {
        let op = func.dfg.opcode(i);
        op.is_call() || op.is_landing_pad()
    }) {
        return false;
    }
    func.dfg.block_params(block).iter().all(|&p| !outside[p])
        && insts
            .iter()
            .all(|&i| func.dfg.inst_results(i).iter().all(|&r| !outside[r]))
}

/// The edges into `block`: each predecessor's terminator and the index of the
/// destination that goes there (an invoke's are left out: its destinations stay).
fn edges_into(func: &Function, cfg: &ControlFlowGraph, block: Block) -> Vec<(Block, usize)> {
    let mut out = Vec::new();
    for &pred in cfg.preds(block) {
        let Some(term) = func.layout.last_inst(pred) else {
            continue;
        };
        if func.dfg.opcode(term).is_invoke() {
            continue;
        }
        for (d, call) in func.dfg.branch_destinations(term).iter().enumerate() {
            if call.block == block {
                out.push((pred, d));
            }
        }
    }
    out
}

/// The constant `pred`'s destination `d` passes as argument `index`, if an `iconst`.
fn constant_arg(func: &Function, pred: Block, d: usize, index: usize) -> Option<u128> {
    let term = func.layout.last_inst(pred)?;
    let arg = *func.dfg.branch_destinations(term)[d].args.get(index)?;
    constant(func, arg)
}

/// Copies carriers into the edges that pass them a constant state, makes the
/// dispatch only branch, and threads every edge that passes it a constant; whether
/// it changed anything.
fn thread_dispatch(
    func: &mut Function,
    header: Block,
    state: usize,
    budget: &mut usize,
    stats: &mut StateThreadStats,
) -> bool {
    // copy the carriers farthest from the dispatch first: their copies make the edges
    // into the nearer ones constant
    for _ in 0..MAX_DEPTH + 1 {
        let cfg = ControlFlowGraph::compute(func);
        let outside = outside_readers(func);
        let carriers = carriers(func, &cfg, &outside, header, state);
        let mut copied_any = false;
        for &(block, index) in carriers.iter().skip(1).rev() {
            let size = func.layout.block_insts(block).count();
            for (pred, d) in edges_into(func, &cfg, block) {
                if pred == block || constant_arg(func, pred, d, index).is_none() {
                    continue;
                }
                if *budget < size {
                    break;
                }
                *budget -= size;
                copy_into_edge(func, block, pred, d);
                stats.copied += 1;
                copied_any = true;
            }
        }
        if !copied_any {
            break;
        }
        // a block copied into every edge into it is left without predecessors
        if let Some(entry) = func.entry_block() {
            remove_unreachable(func, entry);
        }
    }
    let cfg = ControlFlowGraph::compute(func);
    if !edges_into(func, &cfg, header)
        .iter()
        .any(|&(pred, d)| constant_arg(func, pred, d, state).is_some())
        || !localize(func, &cfg, header)
    {
        return false;
    }
    for (pred, d) in edges_into(func, &cfg, header) {
        if pred == header {
            continue;
        }
        let term = func.layout.last_inst(pred).expect("a branch");
        let call = func.dfg.branch_destinations(term)[d].clone();
        let Some(next) = resolve(func, header, &call) else {
            continue;
        };
        let mut next = next;
        copy_constants(func, header, term, &mut next.args);
        func.dfg.inst_data_mut(term).branch_destinations_mut()[d] = next;
        stats.threaded += 1;
    }
    if stats.threaded == 0 {
        return false;
    }
    if let Some(entry) = func.entry_block() {
        remove_unreachable(func, entry);
    }
    dce(func);
    true
}

/// Gives edge `d` of `pred` a copy of `block` of its own. A parameter the edge passes
/// a constant for is that constant in the copy (so that the copy passes the state on
/// as a constant), made at its top; the others stay parameters.
fn copy_into_edge(func: &mut Function, block: Block, pred: Block, d: usize) {
    let copy = func.dfg.make_block();
    func.layout.insert_block_after(copy, pred);
    let term = func.layout.last_inst(pred).expect("a branch");
    let args = func.dfg.branch_destinations(term)[d].args.clone();
    let mut map: SecondaryMap<Value, Option<Value>> = SecondaryMap::new();
    let mut passed = Vec::new();
    let params: Vec<Value> = func.dfg.block_params(block).to_vec();
    for (p, arg) in params.into_iter().zip(args) {
        let ty = func.dfg.value_type(p);
        if constant(func, arg).is_some() {
            let ValueDef::Result(def, _) = func.dfg.value_def(arg) else {
                unreachable!("a constant is an instruction's result");
            };
            let data = func.dfg.inst_data(def).clone();
            let c = func.dfg.make_inst(data);
            map[p] = Some(func.dfg.append_result(c, ty));
            func.layout.append_inst(c, copy);
        } else {
            map[p] = Some(func.dfg.append_block_param(copy, ty));
            passed.push(arg);
        }
    }
    let insts: Vec<Inst> = func.layout.block_insts(block).collect();
    for inst in insts {
        let mut data = func.dfg.inst_data(inst).clone();
        data.map_values(|v| map[v].unwrap_or(v));
        let new = func.dfg.make_inst(data);
        let results: Vec<Value> = func.dfg.inst_results(inst).to_vec();
        for r in results {
            let ty = func.dfg.value_type(r);
            map[r] = Some(func.dfg.append_result(new, ty));
        }
        func.layout.append_inst(new, copy);
    }
    let dest = &mut func.dfg.inst_data_mut(term).branch_destinations_mut()[d];
    dest.block = copy;
    dest.args = passed;
}

/// Makes the dispatch read its parameters and constants only in its terminator: the
/// blocks where one is live get a parameter for it; whether it could.
fn localize(func: &mut Function, cfg: &ControlFlowGraph, header: Block) -> bool {
    let mut ranges = Vec::new();
    let values: Vec<Value> = func
        .dfg
        .block_params(header)
        .iter()
        .copied()
        .chain(
            func.layout
                .block_insts(header)
                .filter(|&i| is_constant(func.dfg.opcode(i)))
                .map(|i| func.dfg.first_result(i)),
        )
        .collect();
    // one scan for every value: read by a block other than the dispatch
    let outside = outside_readers(func);
    for v in values {
        if !outside[v] {
            continue;
        }
        let Some(live) = block_args::live_in_blocks(func, cfg, v, header, LIVE_LIMIT) else {
            return false;
        };
        // an invoke's edges take no new arguments
        let entered_by_invoke = live.iter().any(|&b| {
            cfg.preds(b).iter().any(|&p| {
                func.layout
                    .last_inst(p)
                    .is_some_and(|t| func.dfg.opcode(t).is_invoke())
            })
        });
        if entered_by_invoke {
            return false;
        }
        ranges.push((v, live));
    }
    for (v, live) in ranges {
        block_args::pass_as_arguments(func, v, header, &live);
    }
    true
}

/// Where `header`, entered by `call`, branches: `None` when the state `call` passes
/// is not a constant.
fn resolve(func: &Function, header: Block, call: &BlockCall) -> Option<BlockCall> {
    let term = func.layout.last_inst(header)?;
    let params = func.dfg.block_params(header);
    let subst = |v: Value| match params.iter().position(|&p| p == v) {
        Some(i) => call.args[i],
        None => v,
    };
    let chosen = match func.dfg.inst_data(term) {
        InstructionData::Brif { arg, blocks, .. } => {
            let c = evaluate(func, header, *arg, &subst)?;
            &blocks[usize::from(c == 0)]
        }
        InstructionData::Switch { arg, table, .. } => {
            let c = evaluate(func, header, *arg, &subst)?;
            table
                .cases()
                .find(|&(value, _)| value == c)
                .map_or(table.default_dest(), |(_, dest)| dest)
        }
        _ => return None,
    };
    Some(BlockCall {
        block: chosen.block,
        args: chosen.args.iter().map(|&v| subst(v)).collect(),
    })
}

/// The value of `v` (the dispatch's tested value: a parameter or an extension chain
/// of one) when the parameters are `subst`'s, masked to its type.
fn evaluate(
    func: &Function,
    header: Block,
    v: Value,
    subst: &dyn Fn(Value) -> Value,
) -> Option<u128> {
    let bits = func.dfg.value_type(v).bits();
    if let ValueDef::Result(inst, _) = func.dfg.value_def(v)
        && func.layout.inst_block(inst) == Some(header)
        && let InstructionData::Unary { opcode, arg } = func.dfg.inst_data(inst)
    {
        let from = func.dfg.value_type(*arg).bits();
        let x = evaluate(func, header, *arg, subst)?;
        let value = match opcode {
            Opcode::Sextend if from < 128 && x >> (from - 1) & 1 == 1 => x | !mask(from),
            _ => x,
        };
        return Some(value & mask(bits));
    }
    constant(func, subst(v)).map(|c| c & mask(bits))
}

/// Whether every retreating edge of a depth-first walk from the entry goes to a block
/// that dominates its source (each loop has one header).
fn reducible(func: &Function) -> bool {
    let Some(entry) = func.entry_block() else {
        return true;
    };
    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::with_cfg(func, &cfg);
    // 0 unvisited, 1 on the stack, 2 done
    let mut state: SecondaryMap<Block, u8> = SecondaryMap::new();
    let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
    state[entry] = 1;
    while let Some(&mut (block, ref mut next)) = stack.last_mut() {
        let succs = cfg.succs(block);
        if *next < succs.len() {
            let succ = succs[*next];
            *next += 1;
            match state[succ] {
                0 => {
                    state[succ] = 1;
                    stack.push((succ, 0));
                }
                1 if !domtree.dominates(succ, block) => return false,
                _ => {}
            }
        } else {
            state[block] = 2;
            stack.pop();
        }
    }
    true
}
