//! Tail duplication of branch-only blocks on machine SSA (`tail-dup`), after
//! if-conversion and before scheduling.
//!
//! A block `J` that only branches, `(g) br T; br U(args)` (`T` a private trampoline
//! `br X(args)`), costs each predecessor that jumps to it a taken branch and `J`'s
//! own bundle: the latch of a loop whose body if-conversion left with several paths
//! (`count_numbers`' state machine), where every path ends in `br latch(values)` and
//! the latch tests the loop's condition. Each predecessor `P` that ends in `br
//! J(a...)` gets a copy of `J`'s branches instead, with `J`'s parameters replaced by
//! `P`'s arguments, and a copy of each trampoline of its own; `J` goes when no
//! predecessor is left (LLVM's `TailDuplicator` does the same for small blocks).
//!
//! SSA stays intact with nothing to repair: `J` defines no value but its parameters,
//! which the copies no longer read, and what its branches read otherwise dominates
//! `J`, so it dominates every predecessor of `J` too. A loop header is never
//! duplicated (a copy in an entry edge's predecessor would enter the loop a second
//! way), nor a block reached through a jump table or by a guarded branch, nor into a
//! predecessor with a call that has an unwind edge (only its result copies and one
//! `br` may follow it, docs/machine.md §2).

use std::collections::{HashMap, HashSet};

use cranelift_entity::EntityRef;
use vliw_isa::Opcode;
use vliw_ssa::{DomTree, LoopForest};

use crate::mir::{Imm, MBlock, MInst, MOp, MachFunction, Reg};
use crate::ssa_view::{block, block_preds, cfg_of};

/// The most guarded branches a duplicated block may have.
const MAX_GUARDED_BRANCHES: usize = 2;

/// The most predecessors one block is duplicated into (the code it adds).
const MAX_COPIES: usize = 12;

#[derive(Clone, Copy, Debug, Default)]
pub struct TailDupStats {
    /// Blocks duplicated into at least one predecessor.
    pub blocks: usize,
    /// Copies made (one per predecessor).
    pub copies: usize,
    /// Blocks that went, no predecessor left.
    pub removed: usize,
}

/// Duplicates every branch-only block into the predecessors that jump to it.
pub fn duplicate_branch_tails(mf: &mut MachFunction) -> TailDupStats {
    let mut stats = TailDupStats::default();
    let cfg = cfg_of(mf);
    let dom = DomTree::compute(&cfg);
    let loops = LoopForest::compute(&cfg);
    // kept up to date as branches move (a later block's predecessors change when
    // an earlier one's copies branch to it)
    let mut preds = block_preds(mf, &cfg);
    // the blocks reading each block parameter (kept up to date as copies are made)
    let mut readers: HashMap<Reg, Vec<MBlock>> = HashMap::new();
    for &b in &mf.layout {
        for &v in &mf.blocks[b].params {
            readers.insert(Reg::Virtual(v), Vec::new());
        }
    }
    for &b in &mf.layout {
        for inst in mf.block_insts(b) {
            for r in inst.all_uses() {
                if let Some(list) = readers.get_mut(&r)
                    && !list.contains(&b)
                {
                    list.push(b);
                }
            }
        }
    }
    let Some(&entry) = mf.layout.first() else {
        return stats;
    };
    let in_tables: HashSet<MBlock> = mf.jump_tables.values().flatten().copied().collect();
    // the layout changes at the end, in one pass: the trampolines' copies placed
    // after the block that branches to them, what went left out
    let mut placed_after: HashMap<MBlock, Vec<MBlock>> = HashMap::new();
    let mut gone: HashSet<MBlock> = HashSet::new();
    for j in mf.layout.clone() {
        if j == entry
            || in_tables.contains(&j)
            || loops.loop_headed_by(block(j)).is_some()
            || !dom.is_reachable(block(j))
        {
            continue;
        }
        let Some(shape) = branch_only(mf, j, &preds, &readers) else {
            continue;
        };
        // (a loop's entry stays one edge from one preheader: the schedulers' loop
        // model expects it)
        let enters_a_loop =
            shape
                .targets(mf, j)
                .into_iter()
                .any(|x| match loops.loop_headed_by(block(x)) {
                    Some(l) => !loops.contains(l, block(j)),
                    None => false,
                });
        if enters_a_loop {
            continue;
        }
        // the predecessors whose only way to `j` is their final unguarded `br`
        let mut into: Vec<MBlock> = Vec::new();
        for &p in &preds[j.index()] {
            // (after a call with an unwind edge only its result copies and one `br`)
            if p != j && !into.contains(&p) && jumps_only_at_end(mf, p, j) && !mf.unwinds_from(p) {
                into.push(p);
            }
        }
        into.truncate(MAX_COPIES);
        if into.is_empty() {
            continue;
        }
        for &p in &into {
            let copies = duplicate_into(mf, j, &shape, p, &mut preds, &mut readers);
            placed_after.entry(p).or_default().extend(copies);
            stats.copies += 1;
        }
        stats.blocks += 1;
        if preds[j.index()].is_empty() {
            // no predecessor left: `j` and its trampolines go
            let went: Vec<MBlock> = core::iter::once(j)
                .chain(shape.trampolines.iter().flatten().copied())
                .collect();
            for &b in &went {
                for inst in mf.block_insts(b) {
                    for t in inst.branch_targets(mf) {
                        preds[t.index()].retain(|&x| x != b);
                    }
                }
            }
            for &b in &went {
                mf.take_block_insts(b);
            }
            gone.extend(went);
            stats.removed += 1;
        }
    }
    if stats.copies > 0 {
        let old = core::mem::take(&mut mf.layout);
        for b in old {
            place(&mut mf.layout, b, &placed_after, &gone);
        }
    }
    stats
}

/// Puts `b` (unless it went) into the layout, then the trampoline copies made for it,
/// each followed by its own copies (a copy jumps to a later branch-only block too,
/// and gets copies of that block's trampolines).
fn place(
    layout: &mut Vec<MBlock>,
    b: MBlock,
    placed_after: &HashMap<MBlock, Vec<MBlock>>,
    gone: &HashSet<MBlock>,
) {
    let mut stack = vec![b];
    while let Some(b) = stack.pop() {
        if !gone.contains(&b) {
            layout.push(b);
        }
        if let Some(copies) = placed_after.get(&b) {
            // in the order they were made: the stack pops the last pushed first
            stack.extend(copies.iter().rev());
        }
    }
}

/// What a branch-only block is made of.
struct Shape {
    /// Per branch of the block, in order: the target when it is a trampoline (one
    /// unguarded `br X(args)`, no parameters) that only this block reaches, which
    /// each predecessor gets a copy of.
    trampolines: Vec<Option<MBlock>>,
}

impl Shape {
    /// Where `j`'s branches lead, through its trampolines.
    fn targets(&self, mf: &MachFunction, j: MBlock) -> Vec<MBlock> {
        mf.block_insts(j)
            .zip(&self.trampolines)
            .filter_map(|(inst, t)| {
                let through = t.and_then(|t| mf.last_inst(t)).unwrap_or(inst);
                match through.imm {
                    Imm::Block(x) => Some(x),
                    _ => None,
                }
            })
            .collect()
    }
}

/// `Some` when `j` is `(g) br T; ...; br U(args)` with one to
/// [`MAX_GUARDED_BRANCHES`] guarded branches (an unconditional trampoline is
/// `copy-blocks`' to fold), each to a trampoline only `j` reaches,
/// and `j`'s parameters are read nowhere but in `j` and those trampolines (the
/// copies read the predecessors' arguments instead; a reader elsewhere would lose
/// its definition).
fn branch_only(
    mf: &MachFunction,
    j: MBlock,
    preds: &[Vec<MBlock>],
    readers: &HashMap<Reg, Vec<MBlock>>,
) -> Option<Shape> {
    let insts: Vec<&MInst> = mf.block_insts(j).collect();
    let (last, guarded) = insts.split_last()?;
    if guarded.is_empty()
        || guarded.len() > MAX_GUARDED_BRANCHES
        || !is_br(last)
        || !last.guard.is_always()
        || !matches!(last.imm, Imm::Block(_))
    {
        return None;
    }
    let private = |t: MBlock| -> bool {
        let [only] = mf.block_inst_ids(t) else {
            return false;
        };
        let tail = mf.inst(*only);
        t != j
            && mf.blocks[t].params.is_empty()
            && preds[t.index()].iter().all(|&p| p == j)
            && is_br(tail)
            && tail.guard.is_always()
            && matches!(tail.imm, Imm::Block(_))
    };
    let mut trampolines = Vec::new();
    for inst in guarded {
        let Imm::Block(t) = inst.imm else { return None };
        if !is_br(inst) || inst.guard.is_always() || !inst.args.is_empty() || !private(t) {
            return None;
        }
        trampolines.push(Some(t));
    }
    let Imm::Block(u) = last.imm else { return None };
    trampolines.push((last.args.is_empty() && private(u)).then_some(u));
    // the parameters' readers: `j` and its trampolines only
    let own: Vec<MBlock> = core::iter::once(j)
        .chain(trampolines.iter().flatten().copied())
        .collect();
    let read_elsewhere = mf.blocks[j].params.iter().any(|&v| {
        readers
            .get(&Reg::Virtual(v))
            .is_some_and(|list| list.iter().any(|b| !own.contains(b)))
    });
    if read_elsewhere {
        return None;
    }
    Some(Shape { trampolines })
}

fn is_br(inst: &MInst) -> bool {
    inst.op == MOp::Op(Opcode::Br)
}

/// Whether `p` reaches `j` only by its final unguarded `br j(...)`.
fn jumps_only_at_end(mf: &MachFunction, p: MBlock, j: MBlock) -> bool {
    let insts: Vec<&MInst> = mf.block_insts(p).collect();
    let Some((last, rest)) = insts.split_last() else {
        return false;
    };
    is_br(last)
        && last.guard.is_always()
        && last.imm == Imm::Block(j)
        && rest
            .iter()
            .all(|i| !i.branch_targets(mf).into_iter().any(|t| t == j))
}

/// Replaces `p`'s final `br j(args)` by a copy of `j`'s branches reading `args`
/// where `j` read its parameters, with copies of `j`'s trampolines of its own, which it
/// returns (the caller places them in the layout).
fn duplicate_into(
    mf: &mut MachFunction,
    j: MBlock,
    shape: &Shape,
    p: MBlock,
    preds: &mut Vec<Vec<MBlock>>,
    readers: &mut HashMap<Reg, Vec<MBlock>>,
) -> Vec<MBlock> {
    let mut copies = Vec::new();
    let jump = mf.pop_inst(p).expect("p ends in its branch to j");
    let subst: HashMap<Reg, Reg> = mf.blocks[j]
        .params
        .iter()
        .map(|&v| Reg::Virtual(v))
        .zip(mf.inst(jump).args.iter().copied())
        .collect();
    let read = |r: Reg| subst.get(&r).copied().unwrap_or(r);
    let branches: Vec<MInst> = mf.block_insts(j).cloned().collect();
    for (mut inst, &trampoline) in branches.into_iter().zip(&shape.trampolines) {
        inst.guard.pred = read(inst.guard.pred);
        inst.args = inst.args.iter().map(|&a| read(a)).collect();
        if let Some(t) = trampoline {
            let mut tail = mf.last_inst(t).expect("a trampoline's branch").clone();
            tail.args = tail.args.iter().map(|&a| read(a)).collect();
            let copy = mf.new_block();
            preds.resize(mf.blocks.len(), Vec::new());
            if let Imm::Block(x) = tail.imm {
                preds[x.index()].push(copy);
            }
            preds[copy.index()].push(p);
            for r in tail.all_uses() {
                if let Some(list) = readers.get_mut(&r) {
                    list.push(copy);
                }
            }
            mf.push_inst(copy, tail);
            copies.push(copy);
            inst.imm = Imm::Block(copy);
        } else if let Imm::Block(u) = inst.imm {
            preds[u.index()].push(p);
        }
        for r in inst.all_uses() {
            if let Some(list) = readers.get_mut(&r)
                && !list.contains(&p)
            {
                list.push(p);
            }
        }
        mf.push_inst(p, inst);
    }
    preds[j.index()].retain(|&x| x != p);
    copies
}
