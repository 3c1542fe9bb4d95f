//! The local component: constant propagation on one hyperblock, in one pass over its
//! predicated value graph (004 §4.3), basic or full; and without paths, the
//! fallback above the path cap.
//!
//! The pass visits the block's operations in order (a topological order of the
//! graph) and evaluates each operation's node on the paths where its guard holds
//! (⊤ elsewhere: a guarded definition is undefined where its guard is false). The
//! three policies differ only in how a **condition** is treated (a compare's
//! condition, an `r2p`, a predicate from outside the block), that is, in what makes
//! the paths:
//!
//! - [`Policy::Basic`] (§4.3.1, "does not model guarding predicates"): branching is
//!   nondeterministic. Every condition splits every path that reaches it, whatever
//!   its operands: the paths are the hyperblock's structural paths (PSSA's full-path
//!   predicates), all taken as feasible. What is constant then is what does not
//!   depend on the branching (Thm 3.1): `z3 = 17` in the running example, not `w`.
//! - [`Policy::Full`] (§4.3.2, rule 1′): predicates are values like any other. A
//!   condition the operands decide on a path (a compare of constants, a predicate
//!   constant on entry) does not split it, it follows; only a condition that is ⊥
//!   there splits. The paths a decided condition would have made, the paper's
//!   components whose guarding predicate evaluates to false, never exist, which is
//!   the filter `guardingPred ⊆ {true, ⊤}`. Constants depending on the branching are
//!   found (`w1 = 1` in block G, `w2 = 4` in H, Thm 3.2), and so are guards false on
//!   every path (off-predicated operations, §4.3.3).
//! - [`Policy::Flat`]: no paths. A condition that is not constant is ⊥, and so is
//!   every predicate made of it; an operation under a ⊥ guard may run. This is
//!   Wegman and Zadeck's propagation over the SSA form (a guard is their branch
//!   condition, a ψ their φ over the arguments whose guard may hold), the fallback
//!   when the paths exceed the cap.
//!
//! Only **branch conditions** split paths: the predicates the block reads as a guard
//! (of an operation or a ψ argument) or as `sel`'s selector, and what defines them
//! through predicate logic, copies and ψs ([`branch_conditions`]). A compare whose
//! predicates the block only turns into data (`p2r`) steers nothing; it is evaluated
//! as without paths (its value if its operands decide it, else ⊥), so that a block of
//! many such compares (`icmp` of every kind) does not multiply its paths for nothing.
//!
//! What the machine does with undefined values decides three details: an operation
//! that observes its guard (memory, control, traps) ends the paths where the guard
//! is undefined (the machine interpreter stops there with an error, so no run
//! continues on them); a compare under a false guard writes false if `.unc`, else
//! nothing; a ψ is the value of its rightmost argument whose guard holds.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use vliw_isa::semantics::{self as sem, OpClass};
use vliw_isa::{FieldKind, Format, Opcode};

use super::lattice::{self, Lat};
use super::paths::{PathSet, TooManyPaths};
use super::pvg::{Pvg, Valued};
use crate::mir::{Imm, MBlock, MGuard, MInst, MOp, MachFunction, Reg, RegClass, VReg};

/// How the local pass treats the conditions of a hyperblock (module documentation).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Policy {
    Basic,
    Full,
    Flat,
}

/// What the pass learns of one operation of the block.
#[derive(Clone, Debug, Default)]
pub struct InstFacts {
    /// Some path reaches it (no earlier exit took every path).
    pub reached: bool,
    /// Its guard holds (or may: ⊥) on some path that reaches it.
    pub may_hold: bool,
    /// Its guard fails (or may) on some path that reaches it.
    pub may_fail: bool,
    /// A compare's condition where it runs (⊥ under [`Policy::Basic`], which does not
    /// evaluate conditions; ⊤ if it never runs).
    pub condition: Lat,
    /// Predicate logic: each operand on the paths where the operation runs.
    pub operands: Vec<Lat>,
    /// A ψ: whether each argument is the value, defined, on some path.
    pub psi_wins: Vec<bool>,
}

/// An edge leaving the block on some path: its target and, for the final `br`, the
/// arguments it passes on the paths that take it.
#[derive(Clone, Debug, PartialEq)]
pub struct ExitFacts {
    pub target: MBlock,
    pub args: Vec<Lat>,
}

/// What the pass learns of a block.
#[derive(Clone, Debug, Default)]
pub struct BlockFacts {
    /// The paths it split the block into (1 without paths).
    pub paths: usize,
    /// Whether the pass went without paths because they exceeded the cap.
    pub fallback: bool,
    /// The element of every virtual register the block defines (`dfi`).
    pub defs: HashMap<VReg, Lat>,
    /// Per operation, in block order.
    pub insts: Vec<InstFacts>,
    pub exits: Vec<ExitFacts>,
    /// A `jr` without a jump table: the successors are unknown.
    pub unknown_exit: bool,
}

/// The paths of `within` by the value of a guard.
#[derive(Default)]
struct GuardParts {
    holds: PathSet,
    fails: PathSet,
    /// ⊥ (without paths only).
    maybe: PathSet,
    /// Undefined.
    undefined: PathSet,
}

impl GuardParts {
    fn runs(&self) -> PathSet {
        self.holds.union(&self.maybe)
    }
}

/// One run of the local pass over a block.
struct Local<'a> {
    mf: &'a MachFunction,
    policy: Policy,
    entry: &'a dyn Fn(VReg) -> Lat,
    pvg: Pvg,
    /// The predicates that steer the block ([`branch_conditions`]).
    branch: HashSet<Reg>,
    /// The paths that have not left the block yet.
    live: PathSet,
    facts: BlockFacts,
}

/// Evaluates block `b` of `mf` under `policy`, with `entry` the elements of the
/// registers it reads from elsewhere (its parameters included), splitting it into at
/// most `cap` paths.
pub fn evaluate(
    mf: &MachFunction,
    b: MBlock,
    entry: &dyn Fn(VReg) -> Lat,
    policy: Policy,
    cap: usize,
) -> Result<BlockFacts, TooManyPaths> {
    let cap = if policy == Policy::Flat { 1 } else { cap };
    let mut local = Local {
        mf,
        policy,
        entry,
        pvg: Pvg::new(cap),
        branch: branch_conditions(mf, b),
        live: PathSet::single(0),
        facts: BlockFacts {
            insts: vec![InstFacts::default(); mf.block_len(b)],
            ..BlockFacts::default()
        },
    };
    for (i, inst) in mf.block_insts(b).enumerate() {
        for r in inst.all_uses() {
            local.leaf(r)?;
        }
        local.step(i, inst)?;
    }
    for inst in mf.block_insts(b) {
        for d in inst.defs.iter().filter_map(|r| r.as_virtual()) {
            let dfi = local.pvg.value_ref(d.into()).map_or(Lat::Top, Valued::dfi);
            local.facts.defs.insert(d, dfi);
        }
    }
    local.facts.paths = local.pvg.num_paths();
    Ok(local.facts)
}

impl Local<'_> {
    /// Every path so far.
    fn all_paths(&self) -> PathSet {
        (0..self.pvg.num_paths()).collect()
    }

    /// The node of a register the block reads before defining it (a leaf): a value
    /// from elsewhere, the same on every path; a predicate from elsewhere is a
    /// condition ([`Self::condition_leaf`]).
    fn leaf(&mut self, r: Reg) -> Result<(), TooManyPaths> {
        if self.pvg.has(r) {
            return Ok(());
        }
        let all = self.all_paths();
        match r {
            Reg::ZERO => self.pvg.set(r, Valued::uniform(&all, Lat::Const(0))),
            Reg::P0 => self.pvg.set(r, Valued::uniform(&all, Lat::TRUE)),
            Reg::Physical(p) if p.class() == RegClass::Gpr => {
                self.pvg.set(r, Valued::uniform(&all, Lat::Bottom))
            }
            Reg::Physical(_) => self.condition_leaf(r, Lat::Bottom)?,
            Reg::Virtual(v) if self.mf.vregs[v] == RegClass::Gpr => {
                self.pvg.set(r, Valued::uniform(&all, (self.entry)(v)))
            }
            Reg::Virtual(v) => self.condition_leaf(r, (self.entry)(v))?,
        }
        Ok(())
    }

    /// A predicate from outside the block, whose element on entry is `entry`: a
    /// condition that splits the paths if it steers the block (basic: always; full:
    /// when ⊥), else the same element on every path.
    fn condition_leaf(&mut self, r: Reg, entry: Lat) -> Result<(), TooManyPaths> {
        let splits = self.branch.contains(&r)
            && match self.policy {
                Policy::Basic => true,
                Policy::Full => entry == Lat::Bottom,
                Policy::Flat => false,
            };
        if !splits {
            let all = self.all_paths();
            self.pvg.set(r, Valued::uniform(&all, entry));
            return Ok(());
        }
        let live = self.live.clone();
        let mut value = Valued::default();
        for (p, q) in self.split(&live)? {
            value.add(PathSet::single(p), Lat::TRUE);
            value.add(PathSet::single(q), Lat::FALSE);
        }
        self.pvg.set(r, value);
        Ok(())
    }

    /// Splits each path of `paths`; the pairs (the path, the new one). The caller
    /// gives the condition true on the first and false on the second.
    fn split(&mut self, paths: &PathSet) -> Result<Vec<(usize, usize)>, TooManyPaths> {
        let mut pairs = Vec::new();
        for p in paths.iter() {
            let q = self.pvg.fork(p)?;
            self.live.insert(q);
            pairs.push((p, q));
        }
        Ok(pairs)
    }

    /// The paths of `within` by the value of guard `g`.
    fn guard_parts(&self, g: MGuard, within: &PathSet) -> GuardParts {
        if g.is_always() {
            return GuardParts {
                holds: within.clone(),
                ..GuardParts::default()
            };
        }
        let mut parts = GuardParts {
            undefined: within.clone(),
            ..GuardParts::default()
        };
        let Some(v) = self.pvg.value_ref(g.pred) else {
            return parts;
        };
        for c in v.components() {
            let on = c.paths.intersection(within);
            parts.undefined.subtract(&on);
            let target = match lattice::guard_value(c.value, g.negated) {
                Lat::Const(0) => &mut parts.fails,
                Lat::Const(_) => &mut parts.holds,
                _ => &mut parts.maybe,
            };
            target.union_with(&on);
        }
        parts
    }

    /// An operand: a register's node or a fixed element.
    fn operand(&self, r: Reg, within: &PathSet) -> Valued {
        self.pvg.value(r).restrict(within)
    }

    /// The three operands of a value operation or compare as the machine reads them
    /// (`a` = rs1, `b` = rs2 or the immediate, `c` = rs3; 0 for a missing field; a
    /// symbolic immediate is ⊥).
    fn abc(&self, inst: &MInst, opcode: Opcode, within: &PathSet) -> [Valued; 3] {
        let (_, fields) = crate::mir::operand_fields(opcode.format());
        let field = |k: FieldKind| -> Valued {
            match fields.iter().position(|&f| f == k) {
                Some(i) => match inst.uses.get(i) {
                    Some(&r) => self.operand(r, within),
                    None => Valued::uniform(within, Lat::Bottom),
                },
                None => Valued::uniform(within, Lat::Const(0)),
            }
        };
        let has_imm = opcode.format().has(FieldKind::Imm) || opcode.format() == Format::PcRel;
        let b = if has_imm {
            let imm = match (&inst.imm, opcode.format()) {
                (_, Format::PcRel) => Lat::Bottom,
                (Imm::Const(c), _) => Lat::Const(*c as u64),
                (Imm::None, _) => Lat::Const(0),
                _ => Lat::Bottom,
            };
            Valued::uniform(within, imm)
        } else {
            field(FieldKind::Rs2)
        };
        [field(FieldKind::Rs1), b, field(FieldKind::Rs3)]
    }

    fn define(&mut self, d: Reg, v: Valued) {
        if d.as_virtual().is_some() {
            self.pvg.set(d, v);
        }
    }

    /// Defines `d` (if it is a virtual register) by the first definition of `inst`.
    fn define_first(&mut self, inst: &MInst, v: Valued) {
        if let Some(&d) = inst.defs.first() {
            self.define(d, v);
        }
    }

    fn step(&mut self, i: usize, inst: &MInst) -> Result<(), TooManyPaths> {
        let live = self.live.clone();
        let g = self.guard_parts(inst.guard, &live);
        {
            let f = &mut self.facts.insts[i];
            f.reached = !live.is_empty();
            f.may_hold = !g.runs().is_empty();
            f.may_fail = !g.fails.union(&g.maybe).is_empty();
        }
        let runs = g.runs();
        let opcode = match inst.op {
            MOp::Psi => {
                self.psi(i, inst, &runs);
                return Ok(());
            }
            MOp::Copy | MOp::ParallelCopy => {
                let values: Vec<Valued> =
                    inst.uses.iter().map(|&u| self.operand(u, &runs)).collect();
                for (&d, v) in inst.defs.iter().zip(values) {
                    self.define(d, v);
                }
                return Ok(());
            }
            MOp::Op(o) => o,
        };
        let class = sem::class(opcode);
        match class {
            OpClass::Value => {
                let [a, b, c] = self.abc(inst, opcode, &runs);
                let v = Valued::combine(&[&a, &b, &c], &runs, |l| {
                    lattice::value(opcode, l[0], l[1], l[2])
                });
                self.define_first(inst, v);
            }
            OpClass::Sel => {
                let ops: Vec<Valued> = inst.uses.iter().map(|&u| self.operand(u, &runs)).collect();
                let refs: Vec<&Valued> = ops.iter().collect();
                let v = match refs.len() {
                    3 => Valued::combine(&refs, &runs, |l| lattice::sel(l[0], l[1], l[2])),
                    _ => Valued::uniform(&runs, Lat::Bottom),
                };
                self.define_first(inst, v);
            }
            OpClass::P2r => {
                let p = self.operand(inst.uses.first().copied().unwrap_or(Reg::P0), &runs);
                let v = Valued::combine(&[&p], &runs, |l| lattice::p2r(l[0]));
                self.define_first(inst, v);
            }
            OpClass::PredLogic => {
                let mut ops: Vec<Valued> =
                    inst.uses.iter().map(|&u| self.operand(u, &runs)).collect();
                while ops.len() < 2 {
                    ops.push(Valued::uniform(&runs, Lat::FALSE));
                }
                self.facts.insts[i].operands = ops.iter().map(Valued::dfi).collect();
                let v = Valued::combine(&[&ops[0], &ops[1]], &runs, |l| {
                    lattice::predicate_logic(opcode, l[0], l[1])
                });
                self.define_first(inst, v);
            }
            OpClass::Compare => self.compare(i, inst, opcode, &g)?,
            OpClass::R2p => self.r2p(inst, &g)?,
            OpClass::Load | OpClass::Amo | OpClass::Cas => {
                for &d in &inst.defs {
                    self.define(d, Valued::uniform(&runs, Lat::Bottom));
                }
            }
            OpClass::Store | OpClass::Nothing => {}
            OpClass::Control => self.control(inst, opcode, &g),
        }
        // a definition no rule above gives a value (a malformed operation) is ⊥
        for &d in &inst.defs {
            if d.as_virtual().is_some() && !self.pvg.has(d) {
                self.pvg.set(d, Valued::uniform(&runs, Lat::Bottom));
            }
        }
        // an operation that observes its guard stops the runs where it is undefined
        if !class.is_pure() {
            self.live.subtract(&g.undefined);
        }
        Ok(())
    }

    /// The paths of `holds` where the condition of `inst` is split rather than
    /// followed: all of them without looking (basic), those where it is ⊥ (full),
    /// none (flat, or a condition that steers nothing).
    fn to_split(&self, inst: &MInst, cond: &Valued, holds: &PathSet) -> PathSet {
        if !inst.defs.iter().any(|d| self.branch.contains(d)) {
            return PathSet::new();
        }
        match self.policy {
            Policy::Basic => holds.clone(),
            Policy::Full => cond.paths_where(holds, Lat::Bottom),
            Policy::Flat => PathSet::new(),
        }
    }

    /// A compare: where its guard holds, its condition is followed or splits the
    /// path; elsewhere it writes what its type says for that guard.
    fn compare(
        &mut self,
        i: usize,
        inst: &MInst,
        opcode: Opcode,
        g: &GuardParts,
    ) -> Result<(), TooManyPaths> {
        let runs = g.runs();
        let [a, b, _] = self.abc(inst, opcode, &runs);
        let cond = Valued::combine(&[&a, &b], &runs, |l| lattice::condition(opcode, l[0], l[1]));
        let steers = inst.defs.iter().any(|d| self.branch.contains(d));
        self.facts.insts[i].condition = match self.policy {
            Policy::Basic if steers && !runs.is_empty() => Lat::Bottom,
            _ => cond.dfi(),
        };
        let split = self.to_split(inst, &cond, &g.holds);
        let ctype = inst.ctype;
        let (mut first, mut second) = (Valued::default(), Valued::default());
        let mut write = |paths: PathSet, guard: Lat, c: Lat| {
            let (x, y) = lattice::compare_writes(ctype, guard, c);
            first.add(paths.clone(), x);
            second.add(paths, y);
        };
        for (paths, guard) in [
            (g.holds.minus(&split), Lat::TRUE),
            (g.maybe.clone(), Lat::Bottom),
            (g.fails.clone(), Lat::FALSE),
            (g.undefined.clone(), Lat::Top),
        ] {
            for (cell, c) in cond.cells(&paths) {
                write(cell, guard, c);
            }
        }
        // the split paths last: the values above do not hold them, the new paths
        // do not exist yet
        for (p, q) in self.split(&split)? {
            write(PathSet::single(p), Lat::TRUE, Lat::TRUE);
            write(PathSet::single(q), Lat::TRUE, Lat::FALSE);
        }
        if let Some(&d) = inst.defs.first() {
            self.define(d, first);
        }
        if let Some(&d) = inst.defs.get(1) {
            self.define(d, second);
        }
        Ok(())
    }

    /// `r2p`: a condition like a compare's, written where the guard holds.
    fn r2p(&mut self, inst: &MInst, g: &GuardParts) -> Result<(), TooManyPaths> {
        let runs = g.runs();
        let a = self.operand(inst.uses.first().copied().unwrap_or(Reg::ZERO), &runs);
        let v = Valued::combine(&[&a], &runs, |l| lattice::r2p(l[0]));
        let split = self.to_split(inst, &v, &g.holds);
        let mut out = v.restrict(&runs.minus(&split));
        for (p, q) in self.split(&split)? {
            out.add(PathSet::single(p), Lat::TRUE);
            out.add(PathSet::single(q), Lat::FALSE);
        }
        if let Some(&d) = inst.defs.first() {
            self.define(d, out);
        }
        Ok(())
    }

    /// A ψ (a super node): on each path the argument whose guard is the rightmost
    /// that holds (all that may, without paths); undefined where a guard before it
    /// from the right is undefined, as the machine interpreter has it.
    fn psi(&mut self, i: usize, inst: &MInst, runs: &PathSet) {
        let n = inst.uses.len().min(inst.psi_guards.len());
        let mut undecided = runs.clone();
        let mut value = Valued::default();
        let mut wins = vec![false; inst.uses.len()];
        for k in (0..n).rev() {
            let g = self.guard_parts(inst.psi_guards[k], &undecided);
            let arg = self.operand(inst.uses[k], &g.runs());
            wins[k] = !arg.components().is_empty();
            for c in arg.components() {
                value.add(c.paths.clone(), c.value);
            }
            undecided.subtract(&g.holds);
            undecided.subtract(&g.undefined);
        }
        self.facts.insts[i].psi_wins = wins;
        if let Some(&d) = inst.defs.first() {
            self.define(d, value);
        }
    }

    /// Branches, returns and traps end the paths where their guard holds; a branch
    /// records its edge with the arguments it passes there, a call its unwind edge.
    fn control(&mut self, inst: &MInst, opcode: Opcode, g: &GuardParts) {
        let taken = g.runs();
        match opcode {
            Opcode::Br | Opcode::Jr if !taken.is_empty() => {
                let targets = inst.branch_targets(self.mf);
                if targets.is_empty() {
                    self.facts.unknown_exit = true;
                }
                let args: Vec<Lat> = inst
                    .args
                    .iter()
                    .map(|&a| self.operand(a, &taken).dfi())
                    .collect();
                for target in targets {
                    self.facts.exits.push(ExitFacts {
                        target,
                        args: args.clone(),
                    });
                }
            }
            // a call's unwind edge leaves to its landing block (no arguments), and
            // the paths go on after the call too
            Opcode::Call | Opcode::Callr if !taken.is_empty() => {
                if let Some(u) = inst.unwind {
                    self.facts.exits.push(ExitFacts {
                        target: u.pad,
                        args: Vec::new(),
                    });
                }
            }
            _ => {}
        }
        if matches!(opcode, Opcode::Br | Opcode::Jr | Opcode::Ret | Opcode::Trap) {
            self.live.subtract(&g.holds);
        }
    }
}

/// The predicates that steer block `b`: read as a guard, a ψ argument's guard or
/// `sel`'s selector, and, transitively, the predicates the predicate logic, copies
/// and ψs defining those read.
pub fn branch_conditions(mf: &MachFunction, b: MBlock) -> HashSet<Reg> {
    let mut steer: HashSet<Reg> = HashSet::default();
    for inst in mf.block_insts(b) {
        if !inst.guard.is_always() {
            steer.insert(inst.guard.pred);
        }
        steer.extend(inst.psi_guards.iter().map(|g| g.pred));
        if inst.is(Opcode::Sel)
            && let Some(&p) = inst.uses.first()
        {
            steer.insert(p);
        }
    }
    for inst in mf.block_insts(b).rev() {
        let passes_on = match inst.op {
            MOp::Psi | MOp::Copy | MOp::ParallelCopy => true,
            MOp::Op(o) => sem::class(o) == OpClass::PredLogic,
        };
        if passes_on && inst.defs.iter().any(|d| steer.contains(d)) {
            for u in &inst.uses {
                if mf.class_of(*u) == RegClass::Pred {
                    steer.insert(*u);
                }
            }
        }
    }
    steer
}
