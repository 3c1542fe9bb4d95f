//! Jump threading: a branch to a block that does nothing but branch again goes straight
//! to where that block would send it, when it can tell where: the block only jumps, or
//! it tests one of its parameters and the branch passes a constant for it.
//!
//! The structural destruction of the RVSDG makes such blocks everywhere: a `while` loop
//! becomes a tail-controlled θ whose body starts with a γ on the loop test, and the θ's
//! predicate is the γ's output (a constant in each arm), so every iteration would test
//! the condition twice, once in the header and once at the join where the predicate
//! arrives. Threading the arms' constant predicates through the join gives back the
//! loop the source had. (Lawrence's sequentialization, the next step, builds such
//! control flow directly.)
//!
//! A block is threaded through when, besides its terminator (`jump`, `brif` or
//! `switch`), it holds only constants (`iconst`, `f32const`, `f64const`, `undef`) and
//! its parameters and constants are used only by that terminator: then the values its
//! terminator passes on are parameters (replaced by what the incoming branch gives),
//! its constants (copied into the predecessor), or values defined in blocks that
//! dominate it, which dominate its predecessors too. A block of only constants and a
//! branch whose values are read elsewhere is passed too, by an edge whose chosen
//! successor leads neither to a read of them nor back to the block: the normal edge
//! of an invoke whose landing pad joins it (`vliw_rvsdg::unwind` forms such joins: the
//! "unwound" flag, the exception and the selector as parameters) goes straight to the
//! normal successor, often an `unreachable` after a call that never returns. A
//! block never threads into itself, and each edge is threaded a bounded number of
//! times, so that a cycle of forwarding blocks ends. Blocks left without predecessors
//! are removed, and the constants nobody reads any more with them ([`crate::dce`]).
//! Rounds repeat while they thread something (at most [`MAX_ROUNDS`]): threading a
//! join's arms that only jump on can make the join itself forwarding.

use cranelift_entity::SecondaryMap;
use vliw_ir::{
    Block, BlockCall, ControlFlowGraph, DominatorTree, Function, InstructionData, Opcode, Value,
    ValueDef,
};

use crate::block_args;
use crate::dce;

/// What [`jump_threading`] did to one function.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ThreadStats {
    /// Branch edges sent past a forwarding block.
    pub threaded: usize,
    /// Blocks removed because nothing branches to them any more.
    pub removed_blocks: usize,
    /// Blocks made forwarding by passing their values on as block arguments.
    pub localized: usize,
    /// Block parameters replaced by the one constant every branch passes them
    /// ([`crate::constant_params`]).
    pub constant_params: usize,
}

impl std::ops::AddAssign for ThreadStats {
    fn add_assign(&mut self, o: Self) {
        self.threaded += o.threaded;
        self.removed_blocks += o.removed_blocks;
        self.localized += o.localized;
        self.constant_params += o.constant_params;
    }
}

/// How many forwarding blocks one edge may be threaded through.
const MAX_HOPS: usize = 8;

/// How many rounds [`jump_threading`] makes at most: a round threads edges through the
/// blocks that forward at its start; a block whose own branches it rewrote (an arm
/// that only jumps on, threaded, leaves its join's test of a parameter the arms set
/// to constants) may forward in the next.
const MAX_ROUNDS: usize = 4;

/// How many blocks the live range of one value may cover for it to be passed on as
/// block arguments (each such block gets a parameter).
const LOCALIZE_LIMIT: usize = 64;

pub fn jump_threading(func: &mut Function) -> ThreadStats {
    let mut stats = ThreadStats::default();
    for _ in 0..MAX_ROUNDS {
        let round = thread_round(func);
        stats += round;
        if round.threaded == 0 && round.constant_params == 0 {
            break;
        }
    }
    stats
}

/// One round of jump threading.
fn thread_round(func: &mut Function) -> ThreadStats {
    let mut stats = ThreadStats::default();
    let Some(entry) = func.entry_block() else {
        return stats;
    };
    stats.removed_blocks += remove_unreachable(func, entry);
    // a parameter every branch passes the same constant is tested like a constant
    stats.constant_params = crate::constant_params::fold_constant_params(func);
    stats.localized = localize(func);
    let (forwarding, branch_only) = forwarding_blocks(func);
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for &pred in &blocks {
        let Some(term) = func.layout.last_inst(pred) else {
            continue;
        };
        // an invoke keeps its destinations: its normal successor must be a block of
        // its own (the call's results are defined there), its unwind successor is a
        // landing pad, which forwards nothing
        if func.dfg.opcode(term).is_invoke() {
            continue;
        }
        let ndest = func.dfg.branch_destinations(term).len();
        for d in 0..ndest {
            for _ in 0..MAX_HOPS {
                let call = func.dfg.branch_destinations(term)[d].clone();
                if !branch_only[call.block] {
                    break;
                }
                let Some(mut next) = resolve(func, &call) else {
                    break;
                };
                if next.block == call.block || next.block == entry {
                    break;
                }
                // a block whose values are read elsewhere is passed by this edge only
                // if nothing after the chosen successor reads them
                if !forwarding[call.block] && reads_values_of(func, call.block, next.block) {
                    break;
                }
                copy_constants(func, call.block, term, &mut next.args);
                func.dfg.inst_data_mut(term).branch_destinations_mut()[d] = next;
                stats.threaded += 1;
            }
        }
    }
    if stats.threaded > 0 {
        stats.removed_blocks += remove_unreachable(func, entry);
        dce(func);
    }
    stats
}

/// Makes forwarding the blocks that hold only constants and a test of one of their
/// parameters that some branch into them passes a constant for, but whose parameters
/// or constants are read in other blocks; how many.
fn localize(func: &mut Function) -> usize {
    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::with_cfg(func, &cfg);
    let (forwarding, _) = forwarding_blocks(func);
    let entry = func.layout.entry_block();
    let candidates: Vec<Block> = func
        .layout
        .blocks()
        .filter(|&b| {
            !forwarding[b]
                && Some(b) != entry
                && !cfg.preds(b).iter().any(|&p| domtree.dominates(b, p))
                && tests_a_constant_passed_in(func, &cfg, b)
        })
        .collect();
    let mut localized = 0;
    for block in candidates {
        let params: Vec<Value> = func.dfg.block_params(block).to_vec();
        let mut ranges = Vec::new();
        let mut fits = true;
        for p in params {
            if read_outside(func, p, block) {
                match block_args::live_in_blocks(func, &cfg, p, block, LOCALIZE_LIMIT) {
                    Some(live) => ranges.push((p, live)),
                    None => fits = false,
                }
            }
        }
        // an invoke's edges take no new arguments (its normal successor takes none, and
        // its landing pad's are values of before the call)
        let entered_by_invoke = |b: Block| {
            cfg.preds(b).iter().any(|&p| {
                func.layout
                    .last_inst(p)
                    .is_some_and(|t| func.dfg.opcode(t).is_invoke())
            })
        };
        if !fits
            || entered_by_invoke(block)
            || ranges
                .iter()
                .any(|(_, live)| live.iter().any(|&b| entered_by_invoke(b)))
        {
            continue;
        }
        for (p, live) in ranges {
            block_args::pass_as_arguments(func, p, block, &live);
        }
        rematerialize_constants(func, block);
        localized += 1;
    }
    localized
}

/// Whether `block` holds only constants and a `brif` or `switch` on one of its
/// parameters, and some branch into it passes a constant for that parameter.
fn tests_a_constant_passed_in(func: &Function, cfg: &ControlFlowGraph, block: Block) -> bool {
    let Some(last) = func.layout.last_inst(block) else {
        return false;
    };
    let tested = match func.dfg.inst_data(last) {
        InstructionData::Brif { arg, .. } | InstructionData::Switch { arg, .. } => *arg,
        _ => return false,
    };
    let only_constants = func
        .layout
        .block_insts(block)
        .all(|inst| inst == last || is_constant(func.dfg.opcode(inst)));
    let Some(index) = func
        .dfg
        .block_params(block)
        .iter()
        .position(|&p| p == tested)
    else {
        return false;
    };
    only_constants
        && cfg.preds(block).iter().any(|&pred| {
            func.layout.block_insts(pred).any(|inst| {
                func.dfg
                    .branch_destinations(inst)
                    .iter()
                    .any(|call| call.block == block && constant(func, call.args[index]).is_some())
            })
        })
}

/// Whether an instruction outside `block`, or one of its own other than its
/// terminator, reads `v`.
fn read_outside(func: &Function, v: Value, block: Block) -> bool {
    let last = func.layout.last_inst(block);
    func.layout.blocks().any(|b| {
        func.layout.block_insts(b).any(|inst| {
            (b != block || Some(inst) != last) && func.dfg.inst_values(inst).any(|x| x == v)
        })
    })
}

/// Gives every reader of a constant of `block` outside it a copy of its own, made just
/// before it.
fn rematerialize_constants(func: &mut Function, block: Block) {
    let constants: Vec<vliw_ir::Inst> = func
        .layout
        .block_insts(block)
        .filter(|&inst| is_constant(func.dfg.opcode(inst)))
        .collect();
    let readers: Vec<(Block, vliw_ir::Inst)> = func
        .layout
        .blocks()
        .filter(|&b| b != block)
        .flat_map(|b| func.layout.block_insts(b).map(move |inst| (b, inst)))
        .collect();
    for c in constants {
        let v = func.dfg.first_result(c);
        let ty = func.dfg.value_type(v);
        for &(_, inst) in &readers {
            if !func.dfg.inst_values(inst).any(|x| x == v) {
                continue;
            }
            let copy = func.dfg.make_inst(func.dfg.inst_data(c).clone());
            let fresh = func.dfg.append_result(copy, ty);
            func.layout.insert_inst_before(copy, inst);
            func.dfg
                .map_inst_values(inst, |x| if x == v { fresh } else { x });
        }
    }
}

/// Whether a block reached from `from` without passing `block` reads a parameter or a
/// result of `block` (a branch that skips `block` and goes straight to `from` would
/// leave that read without its definition), or `from` leads back to `block`, or the
/// search gives up after [`LOCALIZE_LIMIT`] blocks. The only definitions that a direct edge `block` →
/// `from` crosses are `block`'s own: a block dominated by `block` that dominated
/// `from` would lie on the edge.
fn reads_values_of(func: &Function, block: Block, from: Block) -> bool {
    let defined_in_block = |v: Value| match func.dfg.value_def(v) {
        ValueDef::Param(b, _) => b == block,
        ValueDef::Result(i, _) => func.layout.inst_block(i) == Some(block),
        ValueDef::Detached => false,
    };
    let mut seen: SecondaryMap<Block, bool> = SecondaryMap::new();
    let mut work = vec![from];
    seen[from] = true;
    seen[block] = true;
    let mut visited = 0;
    while let Some(b) = work.pop() {
        visited += 1;
        if visited > LOCALIZE_LIMIT {
            return true;
        }
        for inst in func.layout.block_insts(b) {
            if func.dfg.inst_values(inst).any(defined_in_block) {
                return true;
            }
            for dest in func.dfg.branch_destinations(inst) {
                // back to `block`: the edge would enter a cycle through it past it
                // (a second way into a loop it heads)
                if dest.block == block {
                    return true;
                }
                if !seen[dest.block] {
                    seen[dest.block] = true;
                    work.push(dest.block);
                }
            }
        }
    }
    false
}

/// The blocks that hold only constants and a branch that reads their parameters and
/// constants, which nothing else reads (forwarding); and the blocks that hold only
/// constants and a branch, whatever reads their values (an edge may be threaded
/// through one when nothing after its chosen successor reads them).
fn forwarding_blocks(func: &Function) -> (SecondaryMap<Block, bool>, SecondaryMap<Block, bool>) {
    // values read outside the terminator of the block that defines them
    let mut used_elsewhere: SecondaryMap<Value, bool> = SecondaryMap::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            for v in func.dfg.inst_data(inst).all_values() {
                let def_block = match func.dfg.value_def(v) {
                    ValueDef::Param(b, _) => Some(b),
                    ValueDef::Result(i, _) => func.layout.inst_block(i),
                    ValueDef::Detached => None,
                };
                if def_block != Some(block) || Some(inst) != func.layout.last_inst(block) {
                    used_elsewhere[v] = true;
                }
            }
        }
    }
    let mut forwarding = SecondaryMap::new();
    let mut branch_only = SecondaryMap::new();
    for block in func.layout.blocks() {
        let Some(last) = func.layout.last_inst(block) else {
            continue;
        };
        let is_branch = matches!(
            func.dfg.opcode(last),
            Opcode::Jump | Opcode::Brif | Opcode::Switch
        );
        let only_constants = func.layout.block_insts(block).all(|inst| {
            inst == last
                || (is_constant(func.dfg.opcode(inst))
                    && func
                        .dfg
                        .inst_results(inst)
                        .iter()
                        .all(|&r| !used_elsewhere[r]))
        });
        let params_local = func
            .dfg
            .block_params(block)
            .iter()
            .all(|&p| !used_elsewhere[p]);
        forwarding[block] = is_branch && only_constants && params_local;
        branch_only[block] = is_branch
            && func
                .layout
                .block_insts(block)
                .all(|inst| inst == last || is_constant(func.dfg.opcode(inst)));
    }
    (forwarding, branch_only)
}

pub(crate) fn is_constant(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Iconst | Opcode::F32const | Opcode::F64const | Opcode::Undef
    )
}

/// Replaces the constants of `from` among `args` by copies made in the block of `term`
/// (just before it), so that the arguments are values of that block.
pub(crate) fn copy_constants(
    func: &mut Function,
    from: Block,
    term: vliw_ir::Inst,
    args: &mut [Value],
) {
    for arg in args {
        let ValueDef::Result(inst, _) = func.dfg.value_def(*arg) else {
            continue;
        };
        if func.layout.inst_block(inst) != Some(from) {
            continue;
        }
        let data = func.dfg.inst_data(inst).clone();
        let ty = func.dfg.value_type(*arg);
        let copy = func.dfg.make_inst(data);
        let v = func.dfg.append_result(copy, ty);
        func.layout.insert_inst_before(copy, term);
        *arg = v;
    }
}

/// Where the forwarding block `call.block`, entered with `call.args`, branches: `None`
/// when its branch tests something that is not a constant here.
fn resolve(func: &Function, call: &BlockCall) -> Option<BlockCall> {
    let term = func.layout.last_inst(call.block)?;
    let params = func.dfg.block_params(call.block);
    let subst = |v: Value| match params.iter().position(|&p| p == v) {
        Some(i) => call.args[i],
        None => v,
    };
    let chosen = match func.dfg.inst_data(term) {
        InstructionData::Jump { dest, .. } => dest,
        InstructionData::Brif { arg, blocks, .. } => {
            let c = constant(func, subst(*arg))?;
            &blocks[usize::from(c == 0)]
        }
        InstructionData::Switch { arg, table, .. } => {
            let v = subst(*arg);
            let c = constant(func, v)? & mask(func.dfg.value_type(v).bits());
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

/// The value of `v` if an `iconst` defines it, as stored (`Imm` bits).
pub(crate) fn constant(func: &Function, v: Value) -> Option<u128> {
    let ValueDef::Result(inst, _) = func.dfg.value_def(v) else {
        return None;
    };
    match func.dfg.inst_data(inst) {
        InstructionData::UnaryImm {
            opcode: Opcode::Iconst,
            imm,
        } => Some(*imm & mask(func.dfg.value_type(v).bits())),
        _ => None,
    }
}

pub(crate) fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// Removes the blocks no path from the entry reaches; how many.
pub(crate) fn remove_unreachable(func: &mut Function, entry: Block) -> usize {
    let mut reached: SecondaryMap<Block, bool> = SecondaryMap::new();
    let mut work = vec![entry];
    reached[entry] = true;
    while let Some(b) = work.pop() {
        let Some(term) = func.layout.last_inst(b) else {
            continue;
        };
        for dest in func.dfg.branch_destinations(term) {
            if !reached[dest.block] {
                reached[dest.block] = true;
                work.push(dest.block);
            }
        }
    }
    let dead: Vec<Block> = func.layout.blocks().filter(|&b| !reached[b]).collect();
    for &b in &dead {
        let insts: Vec<_> = func.layout.block_insts(b).collect();
        for inst in insts {
            func.layout.remove_inst(inst);
        }
        func.layout.remove_block(b);
    }
    dead.len()
}
