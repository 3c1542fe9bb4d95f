//! Copy blocks folded into their branch by predication. Leaving SSA puts the copies of
//! a conditional branch's block arguments in a block of their own on the edge (the
//! machine IR passes arguments only on an unconditional `br`): a loop's back edge
//! becomes `(p) br copies ;; br exit` and `copies: moves ;; br header`, a second taken
//! branch and a bundle per iteration. On a fully predicated machine the moves can run
//! in the branching block under the branch's own guard instead, and the branch go
//! straight to where the copy block went:
//!
//! ```text
//! (p) r13 = mov r14 ; (p) br header ;;      (the moves are no-ops when p is false)
//! ```
//!
//! A copy block qualifies when it is not the entry, holds only unguarded register
//! moves (`mov`, `por`; at most [`MAX_MOVES`], or [`MAX_BACK_EDGE_MOVES`] on the back
//! edge of a single-block loop) and then one unguarded `br` without
//! arguments to another block, and exactly one branch of the whole function reaches it
//! (no jump table, no fall-through). The moves go just before that branch, with its
//! guard; they read what the copy block would have read, since nothing between the
//! branch and the copy block runs. A move that writes the guard's predicate stops the
//! fold directly (the branch would read the new value): the guard is then copied to
//! the predicate temporary `p1` first (`p1 = por p, p`), which guards the moves and
//! the branch, when the moves do not use `p1` themselves (a cycle of predicate copies
//! does). When the branch is the block's final
//! unguarded `br`, this is plain block merging.
//!
//! Runs after allocation (the moves are final), before fall-through removal, which then
//! drops the `br` to the block that now follows.

use crate::mir::{Imm, MBlock, MInst, MOp, MachFunction, Reg};
use crate::ssa_regalloc::regs::PRED_TEMP;
use cranelift_entity::SecondaryMap;
use vliw_isa::Opcode;

/// The most moves a copy block may hold to be folded: each takes an issue slot in the
/// branching block whether the branch is taken or not.
pub const MAX_MOVES: usize = 4;

/// The most moves of a copy block on the back edge of a single-block loop (the copy
/// block goes back to the block that branches to it): the branch is taken on every
/// trip but the last, so the moves would run anyway, and the list scheduler places
/// them in the loop's free slots (a pipelined loop rotates its values by copy,
/// `sched::modulo::kernel`).
pub const MAX_BACK_EDGE_MOVES: usize = 24;

/// Folds every qualifying copy block (see the module documentation); returns how many.
///
/// Each round finds the copy blocks of the whole function in one walk and folds those
/// whose branching blocks differ (a fold inserts into its branching block and would
/// move another's branch index); a fold can make a new copy block only of a block
/// that ended in a `br` to the one folded, so rounds are few and each is linear.
pub fn fold_copy_blocks(func: &mut MachFunction) -> usize {
    let mut folded = 0;
    loop {
        let mut found = find_foldable(func);
        if found.is_empty() {
            return folded;
        }
        let mut taken: rustc_hash::FxHashSet<MBlock> = Default::default();
        found.retain(|&Fold { from, copies, .. }| {
            // a block that receives moves this round is not folded away in it, nor
            // receives twice
            !taken.contains(&from) && !taken.contains(&copies) && {
                taken.insert(from);
                taken.insert(copies);
                true
            }
        });
        for &f in &found {
            fold(func, f);
            folded += 1;
        }
        // the folded blocks leave the layout together (one pass, not one per block)
        let gone: rustc_hash::FxHashSet<MBlock> = found.iter().map(|f| f.copies).collect();
        func.layout.retain(|b| !gone.contains(b));
    }
}

/// A copy block and the one branch that reaches it.
#[derive(Copy, Clone)]
struct Fold {
    /// The branching block and the index of the branch in it.
    from: MBlock,
    at: usize,
    copies: MBlock,
    /// The moves write the branch's guard: it is first copied to the predicate
    /// temporary, which guards the moves and the branch.
    guard_in_temp: bool,
}

/// The copy blocks and the one branch that reaches each.
fn find_foldable(func: &MachFunction) -> Vec<Fold> {
    // how many ways each block is reached, and the last branch found to it
    let mut reached: SecondaryMap<MBlock, u32> = SecondaryMap::new();
    let mut by: SecondaryMap<MBlock, Option<(MBlock, usize)>> = SecondaryMap::new();
    for (i, &b) in func.layout.iter().enumerate() {
        for (k, inst) in func.block_insts(b).enumerate() {
            for t in inst.branch_targets(func) {
                reached[t] += 1;
                by[t] = Some((b, k));
            }
        }
        let falls_through = func
            .last_inst(b)
            .is_none_or(|last| !last.is_unconditional_exit());
        if falls_through && let Some(&next) = func.layout.get(i + 1) {
            reached[next] += 1;
            by[next] = None;
        }
    }
    let Some(&entry) = func.layout.first() else {
        return Vec::new();
    };
    func.layout
        .iter()
        .filter_map(|&c| {
            if c == entry || reached[c] != 1 {
                return None;
            }
            let (from, at) = by[c]?;
            let (target, moves) = copy_block_target(func, c)?;
            if from == c || target == c {
                return None;
            }
            let limit = if target == from {
                MAX_BACK_EDGE_MOVES
            } else {
                MAX_MOVES
            };
            if moves > limit {
                return None;
            }
            let branch = func.inst_at(from, at);
            let is_plain_br = branch.is(Opcode::Br) && branch.args.is_empty();
            let guard = branch.guard.pred;
            let moves_write_guard = func
                .block_insts(c)
                .any(|m| m.all_defs().any(|d| d == guard) && !branch.guard.is_always());
            // the guard is then read from the predicate temporary, which the moves
            // must leave alone
            let temp = Reg::pred(PRED_TEMP);
            let temp_free = guard != temp
                && func
                    .block_insts(c)
                    .all(|m| m.all_defs().chain(m.all_uses()).all(|r| r != temp));
            (is_plain_br && (!moves_write_guard || temp_free)).then_some(Fold {
                from,
                at,
                copies: c,
                guard_in_temp: moves_write_guard,
            })
        })
        .collect()
}

/// If `c` is a copy block: the block its final `br` goes to, and how many moves it
/// holds.
fn copy_block_target(func: &MachFunction, c: MBlock) -> Option<(MBlock, usize)> {
    let insts: Vec<_> = func.block_insts(c).collect();
    let (last, moves) = insts.split_last()?;
    let is_move = |m: &&crate::mir::MInst| {
        m.guard.is_always()
            && matches!(m.op, MOp::Op(Opcode::Mov | Opcode::Por))
            && m.implicit_defs.is_empty()
    };
    if moves.len() > MAX_BACK_EDGE_MOVES.max(MAX_MOVES) || !moves.iter().all(is_move) {
        return None;
    }
    match (last.op, &last.imm) {
        (MOp::Op(Opcode::Br), &Imm::Block(t)) if last.guard.is_always() && last.args.is_empty() => {
            Some((t, moves.len()))
        }
        _ => None,
    }
}

/// Moves copy block `copies`' moves before branch `at` of `from`, under its guard, and
/// sends the branch where the copy block went (the caller takes the copy block out of
/// the layout).
fn fold(func: &mut MachFunction, f: Fold) {
    let Fold {
        from,
        mut at,
        copies,
        guard_in_temp,
    } = f;
    let mut guard = func.inst_at(from, at).guard;
    if guard_in_temp {
        let temp = Reg::pred(PRED_TEMP);
        let copy = MInst::op(Opcode::Por, &[temp], &[guard.pred, guard.pred], Imm::None);
        func.insert_inst(from, at, copy);
        at += 1;
        guard.pred = temp;
        func.inst_at_mut(from, at).guard = guard;
    }
    let mut insts: Vec<_> = func.block_insts(copies).cloned().collect();
    let last = insts.pop().expect("a copy block ends in a branch");
    let Imm::Block(target) = last.imm else {
        unreachable!("a copy block's branch has a target")
    };
    for (k, mut m) in insts.into_iter().enumerate() {
        m.guard = guard;
        func.insert_inst(from, at + k, m);
    }
    let moved = func.block_len(copies) - 1;
    func.inst_at_mut(from, at + moved).imm = Imm::Block(target);
    func.take_block_insts(copies);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folded(text: &str) -> (usize, String) {
        let mut f = MachFunction::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let n = fold_copy_blocks(&mut f);
        (n, f.to_string())
    }

    #[test]
    fn a_back_edge_copy_block_runs_under_the_branch_guard() {
        let (n, text) = folded(
            "\
machine function @f export {
block0:
    r13 = mov r0
    br block1
block1:
    r14 = add r13, 1
    p2, p0 = cmp.ltu r14, r5
    (p2) br block2
    br block3
block2:
    r13 = mov r14
    br block1
block3:
    r3 = mov r13
    ret uses[r3]
}
",
        );
        assert_eq!(n, 1, "{text}");
        assert!(
            text.contains("(p2) r13 = mov r14\n    (p2) br block1\n"),
            "{text}"
        );
        assert!(!text.contains("block2:"), "{text}");
    }

    /// A move that writes the branch's guard: the guard goes to `p1` first, which
    /// guards the moves and the branch; moves that use `p1` themselves stay, and so
    /// does a block reached twice.
    #[test]
    fn a_move_that_writes_the_guard_goes_through_the_temporary() {
        let (n, text) = folded(
            "\
machine function @f export {
block0:
    p2, p0 = cmp.ltu r3, r4
    (p2) br block1
    br block2
block1:
    p2 = por p3, p3
    br block2
block2:
    p3, p0 = cmp.ltu r4, r3
    (p3) br block5
    br block3
block5:
    p1 = por p3, p3
    p3 = por p2, p2
    p2 = por p1, p1
    br block3
block3:
    (p2) br block4
    br block4
block4:
    ret
}
",
        );
        assert_eq!(n, 1, "{text}");
        assert!(
            text.contains("    p1 = por p2, p2\n    (p1) p2 = por p3, p3\n    (p1) br block2\n"),
            "{text}"
        );
        assert!(text.contains("block5:"), "{text}");
        assert!(text.contains("block3:"), "{text}");
    }
}
