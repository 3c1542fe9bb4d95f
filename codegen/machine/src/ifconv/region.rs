//! Which parts of the control-flow graph if-conversion can turn into one block: the
//! exits of a block, and the acyclic single-entry region between a branching block and
//! its immediate post-dominator.
//!
//! A region starts at a block `E` that ends in a two-way branch and ends at `X`, the
//! immediate post-dominator of `E`: every path from `E` reaches `X`, so the region's
//! blocks are those reachable from `E` without passing `X`. It qualifies when
//!
//! - every block of it is strictly dominated by `E` (single entry) and is reached only
//!   from the region (no side entries), and the blocks form no cycle (the region of a
//!   loop's body never holds the back edge: that would be a cycle through `E`);
//! - every block other than `E` ends in `br` or in `(p) br T; br U`, and holds only
//!   operations that can run under a guard: no call, return, indirect jump, system
//!   call or parallel copy, no physical register but `r0`, `p0`, `sp` and `tp` read
//!   (the others belong to the calling convention, which the entry and exit keep);
//! - `X` is a block of the layout other than `E`.
//!
//! `E`'s own operations run unguarded as before, whatever they are.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use vliw_isa::semantics::{self as sem, OpClass};
use vliw_isa::{CmpType, Opcode};
use vliw_ssa::{DomTree, PostDomTree};

use crate::mir::{Imm, MBlock, MGuard, MInst, MOp, MachFunction, Reg};
use crate::ssa_view::{block, mblock};

/// How a block ends.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Exit {
    /// `br target(args)`.
    Jump { target: MBlock },
    /// `(cond) br taken; br other(args)`.
    Branch {
        cond: MGuard,
        taken: MBlock,
        other: MBlock,
    },
}

impl Exit {
    /// The targets, `taken` first.
    pub fn targets(self) -> impl Iterator<Item = MBlock> {
        let (a, b) = match self {
            Exit::Jump { target } => (target, None),
            Exit::Branch { taken, other, .. } => (taken, Some(other)),
        };
        core::iter::once(a).chain(b)
    }

    /// How many operations at the end of the block make up the exit.
    pub fn op_count(self) -> usize {
        match self {
            Exit::Jump { .. } => 1,
            Exit::Branch { .. } => 2,
        }
    }
}

/// How block `b` ends, if it ends in one of the two forms of [`Exit`] and no other
/// operation of it branches but to blocks for which `cold` holds.
pub fn exit_of(mf: &MachFunction, b: MBlock, cold: &dyn Fn(MBlock) -> bool) -> Option<Exit> {
    let insts = mf.block_inst_ids(b);
    let last = mf.inst(*insts.last()?);
    let Imm::Block(target) = last.imm else {
        return None;
    };
    if !last.is(Opcode::Br) || !last.guard.is_always() {
        return None;
    }
    // no other branch before the exit (a multi-way branch as a chain of guarded `br`s),
    // but side exits to cold blocks (`cold`: a converted region's panic paths)
    let jumps = |id: &crate::mir::InstId| {
        let i = mf.inst(*id);
        match (i.op, &i.imm) {
            (MOp::Op(Opcode::Br), Imm::Block(t)) => !cold(*t),
            (MOp::Op(Opcode::Br | Opcode::Jr), _) => true,
            _ => false,
        }
    };
    if insts.len() >= 3 && insts[..insts.len() - 2].iter().any(jumps) {
        return None;
    }
    if insts.len() >= 2 {
        let before = mf.inst(insts[insts.len() - 2]);
        if before.is(Opcode::Br) {
            let Imm::Block(taken) = before.imm else {
                return None;
            };
            if before.guard.is_always() || !before.args.is_empty() || taken == target {
                return None;
            }
            return Some(Exit::Branch {
                cond: before.guard,
                taken,
                other: target,
            });
        }
    }
    Some(Exit::Jump { target })
}

/// Whether `inst` may become part of a predicated region (module documentation).
pub fn can_be_predicated(inst: &MInst) -> bool {
    // the constant registers; the stack and thread pointers do not change in a body
    let fixed = [Reg::P0, Reg::ZERO, Reg::SP, Reg::TP];
    let physical = |r: &Reg| matches!(r, Reg::Physical(_)) && !fixed.contains(r);
    let written_physical =
        |r: &Reg| matches!(r, Reg::Physical(_)) && *r != Reg::P0 && *r != Reg::ZERO;
    if inst.defs.iter().any(written_physical)
        || inst.uses.iter().any(physical)
        || !inst.implicit_defs.is_empty()
        || !inst.implicit_uses.is_empty()
        || !inst.args.is_empty()
    {
        return false;
    }
    match inst.op {
        // a ψ of a region converted earlier (a nested one) is a pure value
        MOp::Copy | MOp::Psi => true,
        MOp::ParallelCopy => false,
        MOp::Op(o) => {
            let control = o.is_control() && o != Opcode::Trap;
            let code_address = matches!(inst.imm, Imm::Block(_) | Imm::JumpTable(_));
            !control && !code_address
        }
    }
}

/// Whether `inst`, in a block that does not always run, may run unguarded: pure
/// operations but divisions, and with `loads` ordinary loads, which then run as their
/// non-faulting `lds` form (the interpreter's and the machine's value where the load
/// would not fault, 0 where it would; our machine has no memory-mapped devices, so a
/// load has no effect to keep under its guard).
pub fn speculable(inst: &MInst, loads: bool) -> bool {
    if loads
        && inst.guard.is_always()
        && inst.defs.iter().all(|d| d.as_virtual().is_some())
        && let MOp::Op(o) = inst.op
        && (o.speculative_load().is_some() || o.is_speculative_load())
    {
        return true;
    }
    if !inst.guard.is_always()
        || inst
            .defs
            .iter()
            .any(|d| d.as_virtual().is_none() && *d != Reg::P0)
    {
        return false;
    }
    match inst.op {
        MOp::Copy | MOp::Psi => true,
        MOp::Op(o) => {
            let cheap = !matches!(
                o.latency_class(),
                vliw_isa::LatencyClass::Divide | vliw_isa::LatencyClass::FloatDivide
            );
            // an and/or-type compare reads its destinations: not a plain value
            let class = sem::class(o);
            let pure =
                class.is_pure() && (class != OpClass::Compare || inst.ctype == CmpType::Normal);
            cheap && pure
        }
        _ => false,
    }
}

/// A region: its blocks in a topological order (`E` first) and its exit block `X`.
#[derive(Clone, Debug)]
pub struct Region {
    pub blocks: Vec<MBlock>,
    pub exit: MBlock,
    /// Each block's exit inside the region (a branch one side of which is a side exit
    /// is a jump to the other side here).
    pub exits: HashMap<MBlock, Exit>,
    /// The blocks whose branch leaves the region for a cold block (one that never
    /// returns: a panic): the guard under which it does, and where to.
    pub side_exits: HashMap<MBlock, (MGuard, MBlock)>,
    /// Loads may be speculated as `lds` (`speculate-loads=on`).
    pub speculate_loads: bool,
    /// The region is the whole body of an innermost loop, which its conversion makes
    /// one block that modulo scheduling can pipeline (`mod.rs`: `whole_loop_body`).
    pub loop_body: bool,
}

impl Region {
    pub fn entry(&self) -> MBlock {
        self.blocks[0]
    }

    /// The operations of block `b` before its exit (and its side exit).
    pub fn body<'a>(&self, mf: &'a MachFunction, b: MBlock) -> &'a [crate::mir::InstId] {
        let ids = mf.block_inst_ids(b);
        let side = usize::from(self.side_exits.contains_key(&b));
        &ids[..ids.len() - self.exits[&b].op_count() - side]
    }
}

/// How block `b` ends once its edges to cold blocks are side exits: the exit inside
/// the region and the side exit, if any. `None` for a block that only goes to cold
/// blocks, or whose final jump passes arguments to a cold block (a guarded branch
/// passes none).
fn effective_exit(
    exit: Exit,
    cold: &HashSet<MBlock>,
    takes_arguments: impl Fn(MBlock) -> bool,
) -> Option<(Exit, Option<(MGuard, MBlock)>)> {
    match exit {
        Exit::Jump { target } if cold.contains(&target) => None,
        Exit::Jump { .. } => Some((exit, None)),
        Exit::Branch { cond, taken, other } => match (cold.contains(&taken), cold.contains(&other))
        {
            (false, false) => Some((exit, None)),
            (true, false) => Some((Exit::Jump { target: other }, Some((cond, taken)))),
            // a guarded branch passes no arguments: a cold block with parameters stays
            // the final jump's (the block is then not part of a region)
            (false, true) if takes_arguments(other) => None,
            (false, true) => {
                let not = MGuard::new(cond.pred, !cond.negated);
                Some((Exit::Jump { target: taken }, Some((not, other))))
            }
            (true, true) => None,
        },
    }
}

/// Why no region starts at a block.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum NoRegion {
    /// The block does not end in a two-way branch.
    NotABranch,
    /// Its post-dominator is the function's exit (a path returns or traps).
    NoJoin,
    /// Side entries, a cycle, a block of another form, an operation that cannot be
    /// guarded, or more blocks than `max_blocks`.
    Shape,
}

/// The region that starts at `e`, with at most `max_blocks` blocks.
pub fn find_region(
    mf: &MachFunction,
    e: MBlock,
    dom: &DomTree,
    pdom: &PostDomTree,
    preds: &HashMap<MBlock, Vec<MBlock>>,
    cold: &HashSet<MBlock>,
    in_layout: &HashSet<MBlock>,
    max_blocks: usize,
) -> Result<Region, NoRegion> {
    let is_cold = |t: MBlock| cold.contains(&t);
    let takes_arguments = |b: MBlock| !mf.blocks[b].params.is_empty();
    let (entry_exit, entry_side) = exit_of(mf, e, &is_cold)
        .and_then(|x| effective_exit(x, cold, takes_arguments))
        .ok_or(NoRegion::NotABranch)?;
    if entry_side.is_none() && !matches!(entry_exit, Exit::Branch { .. }) {
        // a jump to a block that only it enters (what a region converted in an
        // earlier round leaves before the next block of a loop body, its side exits
        // inside it): the region of the one block, whose conversion merges the two
        // (not an invoke's block: its call ends it but for the results' copies)
        return match entry_exit {
            Exit::Jump { target }
                if target != e
                    && preds[&target] == [e]
                    && !cold.contains(&target)
                    && in_layout.contains(&target)
                    && mf.blocks[target].params.is_empty()
                    // an invoke's block ends with its call, the copies of its results
                    // and the jump to its normal successor
                    && !mf
                        .block_inst_ids(e)
                        .iter()
                        .any(|&i| mf.inst(i).unwind.is_some()) =>
            {
                Ok(Region {
                    blocks: vec![e],
                    exit: target,
                    exits: HashMap::from_iter([(e, entry_exit)]),
                    side_exits: HashMap::default(),
                    speculate_loads: false,
                    loop_body: false,
                })
            }
            _ => Err(NoRegion::NotABranch),
        };
    }
    let x = pdom.ipdom(block(e)).map(mblock).ok_or(NoRegion::NoJoin)?;
    if x == e || !in_layout.contains(&x) || cold.contains(&x) {
        return Err(NoRegion::NoJoin);
    }
    let mut exits = HashMap::from_iter([(e, entry_exit)]);
    let mut side_exits: HashMap<MBlock, (MGuard, MBlock)> =
        entry_side.map(|s| (e, s)).into_iter().collect();
    let mut members = vec![e];
    let mut stack: Vec<MBlock> = entry_exit.targets().collect();
    while let Some(b) = stack.pop() {
        if b == x || exits.contains_key(&b) {
            continue;
        }
        if !dom.strictly_dominates(block(e), block(b)) || members.len() >= max_blocks {
            return Err(NoRegion::Shape);
        }
        let (exit, side) = exit_of(mf, b, &is_cold)
            .and_then(|x| effective_exit(x, cold, takes_arguments))
            .ok_or(NoRegion::Shape)?;
        let ids = mf.block_inst_ids(b);
        let body = &ids[..ids.len() - exit.op_count() - usize::from(side.is_some())];
        if !body.iter().all(|&i| can_be_predicated(mf.inst(i))) {
            return Err(NoRegion::Shape);
        }
        exits.insert(b, exit);
        if let Some(side) = side {
            side_exits.insert(b, side);
        }
        members.push(b);
        stack.extend(exit.targets());
    }
    // no side entries; the first block only from outside (else a cycle through it)
    let inside: HashSet<MBlock> = members.iter().copied().collect();
    for &b in &members[1..] {
        if preds[&b].iter().any(|p| !inside.contains(p)) {
            return Err(NoRegion::Shape);
        }
    }
    if preds[&e].iter().any(|p| inside.contains(p)) {
        return Err(NoRegion::Shape);
    }
    let blocks = topological_order(&members, &exits, x).ok_or(NoRegion::Shape)?;
    Ok(Region {
        blocks,
        exit: x,
        exits,
        side_exits,
        speculate_loads: false,
        loop_body: false,
    })
}

/// The members in an order where every edge inside goes forward (`E` first, as the
/// only block without a predecessor inside), or `None` on a cycle.
fn topological_order(
    members: &[MBlock],
    exits: &HashMap<MBlock, Exit>,
    x: MBlock,
) -> Option<Vec<MBlock>> {
    let mut indegree: HashMap<MBlock, usize> = members.iter().map(|&b| (b, 0)).collect();
    for &b in members {
        for t in exits[&b].targets().filter(|&t| t != x) {
            *indegree.get_mut(&t)? += 1;
        }
    }
    let mut ready = vec![members[0]];
    let mut order = Vec::with_capacity(members.len());
    while let Some(b) = ready.pop() {
        order.push(b);
        // reversed so that the taken target comes out first: the order of the code
        let targets: Vec<MBlock> = exits[&b].targets().filter(|&t| t != x).collect();
        for &t in targets.iter().rev() {
            let d = indegree.get_mut(&t)?;
            *d -= 1;
            if *d == 0 {
                ready.push(t);
            }
        }
    }
    (order.len() == members.len()).then_some(order)
}
