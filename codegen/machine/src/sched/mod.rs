//! Bundling by list scheduling (`sched=list`), after register allocation, frame
//! lowering and branch cleanup, so that it works on physical registers and respects
//! the allocation (anti and output dependences included).
//!
//! Per block: the dependence graph (`deps`), list scheduling by critical path
//! (`list`); then, over the function, the padding that keeps every read at or after
//! its value's ready cycle across blocks too (`pad`). Cycles in which nothing can
//! issue become empty bundles (a `nop`): the code never waits in the interlock, so it
//! runs under `vliw-run --strict` (`docs/machine.md` §8 weighs this against leaving
//! the waits to the interlock, `Policy::Interlock`).
//!
//! The operations of a bundle are kept in program order, which is what makes
//! distance-0 dependences (a write in the same bundle after a read of the old value,
//! a branch after the operations before it) correct.

pub mod deps;
pub mod hoist;
pub mod list;
pub mod modulo;
pub mod pad;
pub mod pre_ra;

#[cfg(test)]
mod pre_ra_tests;
#[cfg(test)]
mod tests;

use vliw_isa::{MachineConfig, Opcode};

use crate::emit::encoding_of;
use crate::mir::{Bundles, Imm, InstId, MInst, MOp, MachFunction};
use deps::{DepGraph, OpInfo};
use pad::{BlockSchedule, Target};

/// What to do with the cycles in which nothing can issue.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Policy {
    /// Empty bundles, and exits delayed, so that no read waits (`sched=list`).
    Pad,
    /// Leave the waits to the hardware interlock: no empty bundles (shorter code,
    /// the same cycles within a block, stalls under `--strict`).
    Interlock,
}

/// Schedules every block of an allocated, frame-lowered function (`Policy::Pad`):
/// reorders the operations of each block into bundle order, inserts a `nop` for each
/// empty bundle, and sets the function's bundles (`MachFunction::bundles`).
pub fn schedule_function(func: &mut MachFunction, config: &MachineConfig) {
    schedule_function_with(func, config, Policy::Pad)
}

pub fn schedule_function_with(func: &mut MachFunction, config: &MachineConfig, policy: Policy) {
    let layout = func.layout.clone();
    let position: rustc_hash::FxHashMap<crate::mir::MBlock, usize> =
        layout.iter().enumerate().map(|(k, &b)| (b, k)).collect();
    // the operations of each block and their facts; a block with an operation that
    // cannot be encoded is left one operation per bundle (the encoder reports it)
    let mut infos: Vec<Option<Vec<OpInfo>>> = Vec::with_capacity(layout.len());
    for &b in &layout {
        let insts = func.block_insts(b);
        let ops: Option<Vec<OpInfo>> = insts
            .clone()
            .map(|mi| {
                encoding_of(func, mi)
                    .ok()
                    .map(|inst| OpInfo::new(mi, inst, config))
            })
            .collect();
        infos.push(ops);
    }
    let mut graphs: Vec<DepGraph> = Vec::with_capacity(layout.len());
    let mut scheds: Vec<BlockSchedule<'_>> = Vec::with_capacity(layout.len());
    for ops in infos.iter_mut() {
        graphs.push(match ops {
            Some(ops) => DepGraph::build(ops),
            None => DepGraph::default(),
        });
    }
    let single_pred = single_predecessors(func, &layout, &position);
    for (k, &b) in layout.iter().enumerate() {
        let insts: Vec<&MInst> = func.block_insts(b).collect();
        let Some(ops) = infos[k].as_deref() else {
            scheds.push(BlockSchedule {
                ops: &[],
                bundles: Vec::new(),
                exits: Vec::new(),
                fallthrough: None,
            });
            continue;
        };
        // what the block's one predecessor, scheduled before it, may leave in flight
        let start = match single_pred[k] {
            Some((p, edge)) if p < k => entry_start(&scheds[p], edge, ops, config),
            _ => vec![0; ops.len()],
        };
        let cycles = list::schedule_from(ops, &graphs[k], config, &start);
        let len = cycles.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
        let mut bundles = vec![Vec::new(); len];
        for (i, &c) in cycles.iter().enumerate() {
            bundles[c as usize].push(i);
        }
        let mut exits = Vec::new();
        for (i, mi) in insts.iter().enumerate() {
            let target = match mi.op {
                MOp::Op(Opcode::Br) => match mi.imm {
                    // a block outside the layout is the encoder's error to report
                    Imm::Block(t) => Some(
                        position
                            .get(&t)
                            .map_or(Target::Unknown, |&k| Target::Blocks(vec![k])),
                    ),
                    _ => Some(Target::Unknown),
                },
                MOp::Op(Opcode::Jr) => Some(jump_table_targets(func, &insts, &position)),
                MOp::Op(Opcode::Call | Opcode::Callr | Opcode::Ret) => Some(Target::Abi),
                _ => None,
            };
            if let Some(t) = target {
                exits.push((i, t));
            }
        }
        let falls = insts.last().is_none_or(|l| !l.is_unconditional_exit());
        scheds.push(BlockSchedule {
            ops,
            bundles,
            exits,
            fallthrough: if falls && k + 1 < layout.len() {
                Some(k + 1)
            } else {
                None
            },
        });
    }
    let padded: Vec<Vec<Vec<usize>>> = match policy {
        Policy::Pad => {
            let need = pad::needs(&scheds, config);
            scheds
                .iter()
                .map(|s| pad::pad_block(s, &need, config))
                .collect()
        }
        Policy::Interlock => scheds
            .iter()
            .map(|s| {
                s.bundles
                    .iter()
                    .filter(|b| !b.is_empty())
                    .cloned()
                    .collect()
            })
            .collect(),
    };
    drop(scheds);
    // reorder the operations into bundle order; the empty bundles become nops
    let mut result = Bundles::new();
    for (k, &b) in layout.iter().enumerate() {
        let Some(ops) = &infos[k] else {
            let one_each = func.block_inst_ids(b).iter().map(|&i| vec![i]).collect();
            result.set_block(b, one_each);
            continue;
        };
        let old = func.take_block_insts(b);
        let mut slots: Vec<Option<InstId>> = old.into_iter().map(Some).collect();
        let mut insts = Vec::with_capacity(slots.len());
        let mut bundles = Vec::with_capacity(padded[k].len());
        for (members, idle) in fold_empty_bundles(&padded[k], ops, config) {
            let mut ids: Vec<InstId> = members
                .into_iter()
                .map(|i| slots[i].take().expect("each operation in one bundle"))
                .collect();
            if idle > 0 {
                ids.push(func.make_inst(nop_for(idle + u32::from(!ids.is_empty()))));
            }
            insts.extend(ids.iter().copied());
            bundles.push(ids);
        }
        debug_assert!(slots.iter().all(Option::is_none));
        func.set_block_insts(b, insts);
        result.set_block(b, bundles);
    }
    func.bundles = Some(result);
}

/// How a block is entered from its predecessor: by the branch at an operation of
/// the predecessor, or by falling through its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edge {
    Branch(usize),
    Fallthrough,
}

/// For each position of the layout, the block's predecessor and the edge, when it
/// has exactly one (a jump table's or a landing pad's edges count as several).
fn single_predecessors(
    func: &MachFunction,
    layout: &[crate::mir::MBlock],
    position: &rustc_hash::FxHashMap<crate::mir::MBlock, usize>,
) -> Vec<Option<(usize, Edge)>> {
    let mut incoming: Vec<Vec<(usize, Edge)>> = vec![Vec::new(); layout.len()];
    for (k, &b) in layout.iter().enumerate() {
        let insts: Vec<&MInst> = func.block_insts(b).collect();
        for (i, mi) in insts.iter().enumerate() {
            let direct = mi.is(Opcode::Br) && matches!(mi.imm, Imm::Block(_));
            for t in mi.branch_targets(func) {
                if let Some(&at) = position.get(&t) {
                    let edge = if direct {
                        Edge::Branch(i)
                    } else {
                        Edge::Fallthrough
                    };
                    incoming[at].push((k, edge));
                    if !direct {
                        // (not a plain edge: never the block's only one)
                        incoming[at].push((k, edge));
                    }
                }
            }
        }
        let falls = insts.last().is_none_or(|l| !l.is_unconditional_exit());
        if falls && k + 1 < layout.len() {
            incoming[k + 1].push((k, Edge::Fallthrough));
        }
    }
    incoming
        .into_iter()
        .map(|v| if v.len() == 1 { Some(v[0]) } else { None })
        .collect()
}

/// The first cycle of each operation of a block entered by `edge` from `pred`: a
/// value `pred` writes is ready its latency after its bundle, the block starts the
/// cycle after the branch (and its penalty) or after `pred`'s last bundle, and an
/// operation reading a register the block has not written yet waits for it. (The
/// padding of `pad` may only make the entry later: the cycles stay safe, and the
/// padding then has less to add.)
fn entry_start(
    pred: &BlockSchedule<'_>,
    edge: Edge,
    ops: &[OpInfo],
    config: &MachineConfig,
) -> Vec<u32> {
    let mut ready = [0u32; deps::NUM_REGS];
    let mut cycle_of = vec![0u32; pred.ops.len()];
    for (c, bundle) in pred.bundles.iter().enumerate() {
        for &i in bundle {
            cycle_of[i] = c as u32;
            for &(r, _) in &pred.ops[i].writes {
                ready[r] = ready[r].max(c as u32 + pred.ops[i].latency);
            }
        }
    }
    let entry = match edge {
        // (a predecessor left one operation per bundle has no schedule here: the
        // padding alone sees to it)
        Edge::Branch(i) if i >= cycle_of.len() => return vec![0; ops.len()],
        Edge::Branch(i) => cycle_of[i] + 1 + config.taken_branch_penalty,
        Edge::Fallthrough => pred.bundles.len() as u32,
    };
    let mut written = [false; deps::NUM_REGS];
    ops.iter()
        .map(|op| {
            let first = op
                .reads
                .iter()
                .filter(|&&r| !written[r])
                .map(|&r| ready[r].saturating_sub(entry))
                .max()
                .unwrap_or(0);
            for &(r, conditional) in &op.writes {
                // (a guarded write may leave the value in flight as it was)
                written[r] |= !conditional;
            }
            first
        })
        .collect()
}

/// The operation that makes its bundle take `cycles` cycles: `nop` for one, else
/// `nop N` (`docs/isa.md` §4).
fn nop_for(cycles: u32) -> MInst {
    if cycles == 1 {
        MInst::op(Opcode::Nop, &[], &[], Imm::None)
    } else {
        MInst::op(Opcode::NopN, &[], &[], Imm::Const(i64::from(cycles)))
    }
}

/// A block's bundles as (operations in program order, idle cycles after them): each
/// run of empty bundles is folded into the bundle before it, as a `nop N` that makes
/// that bundle last longer, when the machine has `nop N` (`max-nop` above 1), the
/// bundle has a free slot and transfers no control (a branch's other path must not
/// wait); otherwise the run becomes bundles of their own (no operations), each
/// covering up to `max-nop` cycles. The timing is the same as with one empty bundle
/// per idle cycle.
fn fold_empty_bundles(
    bundles: &[Vec<usize>],
    ops: &[OpInfo],
    config: &MachineConfig,
) -> Vec<(Vec<usize>, u32)> {
    let max = config.max_nop;
    let mut out: Vec<(Vec<usize>, u32)> = Vec::with_capacity(bundles.len());
    let mut i = 0;
    while i < bundles.len() {
        let run = bundles[i..].iter().take_while(|b| b.is_empty()).count() as u32;
        if run > 0 {
            let foldable = out
                .last()
                .is_some_and(|(members, idle): &(Vec<usize>, u32)| {
                    *idle == 0
                        && !members.is_empty()
                        && !members.iter().any(|&m| ops[m].inst.opcode.is_control())
                        && members
                            .iter()
                            .map(|&m| ops[m].inst.syllables())
                            .sum::<usize>()
                            < config.width
                });
            let mut left = run;
            if max > 1 && foldable {
                let take = left.min(max - 1);
                out.last_mut().expect("foldable").1 = take;
                left -= take;
            }
            while left > 0 {
                let take = left.min(max);
                out.push((Vec::new(), take));
                left -= take;
            }
            i += run as usize;
            continue;
        }
        let mut members = bundles[i].clone();
        members.sort_unstable();
        out.push((members, 0));
        i += 1;
    }
    out
}

/// The targets of a block's `jr`: those of the jump table whose address the block
/// takes, or unknown code.
fn jump_table_targets(
    func: &MachFunction,
    insts: &[&MInst],
    position: &rustc_hash::FxHashMap<crate::mir::MBlock, usize>,
) -> Target {
    for mi in insts {
        if let (MOp::Op(Opcode::Addpc), Imm::JumpTable(jt)) = (mi.op, &mi.imm) {
            let targets: Option<Vec<usize>> = func.jump_tables[*jt]
                .iter()
                .map(|t| position.get(t).copied())
                .collect();
            return targets.map_or(Target::Unknown, Target::Blocks);
        }
    }
    Target::Unknown
}
