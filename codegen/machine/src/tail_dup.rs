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
//! `J` may also compute, before its branches, up to [`MAX_PREFIX`] pure operations
//! whose results only `J` and its trampolines read (a latch that turns the loop's
//! carried flag into the predicate it branches on: `tree`'s `insert`, a tail
//! recursion that became a loop, `and v, 1; p = r2p flag`): each copy computes them
//! again into new registers. In the copy, the branch on `r2p x` then folds where the
//! predecessor made `x` as a choice of constants: `x = sel g, c, 0` (`c` not zero) is
//! `g` itself, and a constant `x` decides the branch, which goes or becomes the copy's
//! only one. The path that chose to go on branches straight back to the loop's header.
//!
//! SSA stays intact with nothing to repair: `J` defines no value but its parameters
//! and its pure operations' results, which the copies no longer read, and what it
//! reads otherwise dominates `J`, so it dominates every predecessor of `J` too. A loop header is never
//! duplicated (a copy in an entry edge's predecessor would enter the loop a second
//! way), nor a block reached through a jump table or by a guarded branch, nor into a
//! predecessor with a call that has an unwind edge (only its result copies and one
//! `br` may follow it, docs/machine.md §2).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use cranelift_entity::EntityRef;
use vliw_isa::Opcode;
use vliw_ssa::{DomTree, LoopForest};

use crate::mir::{Imm, MBlock, MInst, MOp, MachFunction, Reg};
use crate::ssa_view::{block, block_preds, cfg_of};

/// The most guarded branches a duplicated block may have.
const MAX_GUARDED_BRANCHES: usize = 2;

/// The most predecessors one block is duplicated into (the code it adds).
const MAX_COPIES: usize = 12;

/// The most pure operations before the branches of a duplicated block.
pub const MAX_PREFIX: usize = 3;

#[derive(Clone, Copy, Debug, Default)]
pub struct TailDupStats {
    /// Blocks duplicated into at least one predecessor.
    pub blocks: usize,
    /// Copies made (one per predecessor).
    pub copies: usize,
    /// Blocks that went, no predecessor left.
    pub removed: usize,
    /// Branches of copies that a choice of constants in the predecessor decided.
    pub folded: usize,
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
    // the blocks reading each virtual register (kept up to date as copies are made)
    let mut readers: HashMap<Reg, Vec<MBlock>> = HashMap::default();
    for &b in &mf.layout {
        for inst in mf.block_insts(b) {
            for r in inst.all_uses().filter(|r| r.as_virtual().is_some()) {
                let list = readers.entry(r).or_default();
                if !list.contains(&b) {
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
    let mut placed_after: HashMap<MBlock, Vec<MBlock>> = HashMap::default();
    let mut gone: HashSet<MBlock> = HashSet::default();
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
        // a block that computes before it branches is copied only where a copy's
        // branch folds (copying `state_machine`'s latch, which compares its position
        // with the end, into every state's path made it 2% slower)
        if into.is_empty()
            || (shape.prefix > 0 && !into.iter().any(|&p| folds_in(mf, j, &shape, p)))
        {
            continue;
        }
        for &p in &into {
            let copies = duplicate_into(mf, j, &shape, p, &mut preds, &mut readers, &mut stats);
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
    if stats.folded > 0 {
        // the choices the folded branches read instead of their `r2p` (with the
        // copies in the layout, whose reads count)
        crate::pcp::sweep::remove_dead_operations(mf);
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
    /// How many pure operations come before the branches.
    prefix: usize,
    /// Per branch of the block, in order: the target when it is a trampoline (one
    /// unguarded `br X(args)`, no parameters) that only this block reaches, which
    /// each predecessor gets a copy of.
    trampolines: Vec<Option<MBlock>>,
}

impl Shape {
    /// Where `j`'s branches lead, through its trampolines.
    fn targets(&self, mf: &MachFunction, j: MBlock) -> Vec<MBlock> {
        mf.block_insts(j)
            .skip(self.prefix)
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
    let all: Vec<&MInst> = mf.block_insts(j).collect();
    let prefix = all.iter().take_while(|i| !is_br(i)).count();
    let own_value = |inst: &MInst| {
        crate::pcp::rewrite::is_pure(inst)
            && matches!(inst.op, MOp::Op(_))
            && inst.guard.is_always()
            && inst.keep.is_none()
    };
    if prefix > MAX_PREFIX || !all[..prefix].iter().all(|i| own_value(i)) {
        return None;
    }
    let insts = &all[prefix..];
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
    // the parameters' and the pure operations' readers: `j` and its trampolines only
    let own: Vec<MBlock> = core::iter::once(j)
        .chain(trampolines.iter().flatten().copied())
        .collect();
    let defined = mf.blocks[j]
        .params
        .iter()
        .map(|&v| Reg::Virtual(v))
        .chain(all[..prefix].iter().flat_map(|i| i.defs.iter().copied()));
    let read_elsewhere = defined.into_iter().any(|r| {
        readers
            .get(&r)
            .is_some_and(|list| list.iter().any(|b| !own.contains(b)))
    });
    if read_elsewhere {
        return None;
    }
    Some(Shape {
        prefix,
        trampolines,
    })
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
    stats: &mut TailDupStats,
) -> Vec<MBlock> {
    let mut copies = Vec::new();
    let jump = mf.pop_inst(p).expect("p ends in its branch to j");
    let mut subst: HashMap<Reg, Reg> = mf.blocks[j]
        .params
        .iter()
        .map(|&v| Reg::Virtual(v))
        .zip(mf.inst(jump).args.iter().copied())
        .collect();
    let all: Vec<MInst> = mf.block_insts(j).cloned().collect();
    let (prefix, branches) = all.split_at(shape.prefix);
    // the predicates the copy's operations are known to be
    let mut known: HashMap<Reg, bool> = HashMap::default();
    for inst in prefix {
        let mut c = inst.clone();
        c.rename_uses(|r| subst.get(&r).copied().unwrap_or(r));
        // (a constant predicate only where nothing but the branches' guards read it)
        let only_guards = || {
            branches
                .iter()
                .all(|b| !b.uses.contains(&c.defs[0]) && !b.args.contains(&c.defs[0]))
                && prefix.iter().all(|i| !i.all_uses().any(|r| r == c.defs[0]))
        };
        if let Some(fold) =
            fold_r2p(mf, p, &c).filter(|f| matches!(f, Fold::Is(_)) || only_guards())
        {
            match fold {
                Fold::Is(g) => {
                    subst.insert(c.defs[0], g);
                }
                Fold::Known(v) => {
                    known.insert(c.defs[0], v);
                }
            }
            continue;
        }
        for d in c.defs.iter_mut() {
            if let Reg::Virtual(v) = *d {
                let fresh = Reg::Virtual(mf.new_vreg(mf.vregs[v]));
                subst.insert(*d, fresh);
                *d = fresh;
            }
        }
        for r in c.all_uses() {
            if let Some(list) = readers.get_mut(&r)
                && !list.contains(&p)
            {
                list.push(p);
            }
        }
        mf.push_inst(p, c);
    }
    let read = |r: Reg| subst.get(&r).copied().unwrap_or(r);
    for (mut inst, &trampoline) in branches.iter().cloned().zip(&shape.trampolines) {
        if let Some(&v) = known.get(&inst.guard.pred) {
            stats.folded += 1;
            if v == inst.guard.negated {
                // never taken
                continue;
            }
            // always taken: the copy's last branch
            inst.guard = crate::mir::MGuard::ALWAYS;
        }
        let last = inst.guard.is_always();
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
        if last {
            break;
        }
    }
    preds[j.index()].retain(|&x| x != p);
    copies
}

/// Whether a pure operation of `j` is an `r2p` that folds when copied into `p`.
fn folds_in(mf: &MachFunction, j: MBlock, shape: &Shape, p: MBlock) -> bool {
    let Some(jump) = mf.last_inst(p) else {
        return false;
    };
    let subst: HashMap<Reg, Reg> = mf.blocks[j]
        .params
        .iter()
        .map(|&v| Reg::Virtual(v))
        .zip(jump.args.iter().copied())
        .collect();
    mf.block_insts(j).take(shape.prefix).any(|inst| {
        let mut c = inst.clone();
        c.rename_uses(|r| subst.get(&r).copied().unwrap_or(r));
        fold_r2p(mf, p, &c).is_some()
    })
}

/// What `r2p` of a value the predecessor chose among constants is.
enum Fold {
    /// The predicate `g` itself (`sel g, c, 0`, `c` not zero).
    Is(Reg),
    /// A constant.
    Known(bool),
}

/// The fold of `inst` when it is `pd = r2p x` with `x` zero, a constant, or `sel g,
/// c, 0` made in `p` (`c` a nonzero constant), and `g` not written in `p` after it.
fn fold_r2p(mf: &MachFunction, p: MBlock, inst: &MInst) -> Option<Fold> {
    if !inst.is(Opcode::R2p) || !inst.guard.is_always() || inst.keep.is_some() {
        return None;
    }
    let x = inst.uses[0];
    if x == Reg::ZERO {
        return Some(Fold::Known(false));
    }
    let insts: Vec<&MInst> = mf.block_insts(p).collect();
    let constant = |r: Reg| -> Option<i64> {
        if r == Reg::ZERO {
            return Some(0);
        }
        insts
            .iter()
            .find(|i| i.defs.first() == Some(&r))
            .and_then(|i| match (&i.op, &i.imm) {
                (MOp::Op(Opcode::Movi), Imm::Const(c)) if i.guard.is_always() => Some(*c),
                _ => None,
            })
    };
    if let Some(c) = constant(x) {
        return Some(Fold::Known(c != 0));
    }
    let at = insts.iter().position(|i| i.defs.first() == Some(&x))?;
    let sel = insts[at];
    if !sel.is(Opcode::Sel) || !sel.guard.is_always() || sel.keep.is_some() {
        return None;
    }
    // `sel d = g, a, b`: `a` where `g` holds
    let (g, a, b) = (sel.uses[0], sel.uses[1], sel.uses[2]);
    let rewritten_after = insts[at + 1..].iter().any(|i| i.all_defs().any(|d| d == g));
    match (constant(a), constant(b)) {
        (Some(ca), Some(0)) if ca != 0 && !rewritten_after && g.as_virtual().is_some() => {
            Some(Fold::Is(g))
        }
        _ => None,
    }
}
