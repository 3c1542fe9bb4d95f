//! Conditions implied by dominating branches: a compare or a branch whose outcome the
//! branches on the way to it already decided is replaced by that outcome.
//!
//! A block entered only by one edge of a `brif` knows which way that branch went:
//! its condition is true (the `then` edge) or false (the `else` edge), and so is
//! everything that condition is made of (both sides of a true `band`, the operand of
//! a `bnot`, the relation an `icmp` states, or its inverse). What a block knows holds
//! in every block it dominates: the condition's value was computed before the edge
//! (its definition dominates the branching block, which strictly dominates the
//! block), so no path from the edge to a dominated block computes it again.
//!
//! From the known relations between integer values, a compare is decided when one of
//! them states it (the same operands, the same relation or one it implies: `a <u b`
//! implies `a ≤u b` and `a ≠ b`), or when a chain of at most two known bounds leads
//! from one operand to the other (`i <u mid`, `mid = n >>u 1 ≤u n`: `i <u n`).
//! Unsigned bounds also come from the operations themselves (`x >>u k ≤u x`,
//! `x & m ≤u m`, `x %u m <u m` for a constant `m ≠ 0`) and from constants.
//!
//! This is what the bounds checks of a merge loop need: `while i < mid && j < n`
//! tests `j < n` and `a[j]` tests it again; `a[i]` tests `i < n`, which `i < mid`
//! and `mid = n / 2` imply. The RVSDG's `known_after_checks` finds the first kind
//! only inside one region; after sequentialization the loop's test and its body's
//! checks are blocks of one dominator tree. LLVM's `ConstraintElimination` does this
//! (with a full system of linear inequalities); here the chains are bounded, so the
//! pass is linear in the function times the number of facts in scope.
//!
//! Folded compares become `iconst`s (their users may be anywhere they dominate);
//! folded branches become jumps, and blocks no longer reached are removed.

use vliw_ir::{
    Block, ControlFlowGraph, DominatorTree, Function, InstructionData, IntCC, Opcode, Type, Value,
    ValueDef,
};

use crate::dce;
use crate::jump_threading::remove_unreachable;

/// What [`implied_conditions`] did to one function.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ImpliedStats {
    /// Compares replaced by the constant they always give where they are.
    pub compares: usize,
    /// Conditional branches replaced by a jump to the side they always take.
    pub branches: usize,
    /// Blocks removed because no branch leads to them any more.
    pub removed_blocks: usize,
}

impl std::ops::AddAssign for ImpliedStats {
    fn add_assign(&mut self, o: Self) {
        self.compares += o.compares;
        self.branches += o.branches;
        self.removed_blocks += o.removed_blocks;
    }
}

/// How deep a condition is taken apart into the facts it is made of.
const MAX_SPLIT_DEPTH: usize = 8;

/// How many known facts a block looks at (the innermost ones): a bound on the work per
/// query in a function with thousands of nested checks.
const MAX_FACTS: usize = 64;

/// A relation known to hold: `a cc b`.
#[derive(Copy, Clone, Debug)]
struct Relation {
    cc: IntCC,
    a: Value,
    b: Value,
}

/// What is known in the block being visited: the truth of some `i1` values and the
/// relations between integers they state, innermost last.
#[derive(Default)]
struct Facts {
    truth: Vec<(Value, bool)>,
    relations: Vec<Relation>,
}

/// Which way two integers compare.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Domain {
    Unsigned,
    Signed,
    /// `eq`, `ne`: either way.
    Both,
}

fn domain(cc: IntCC) -> Domain {
    match cc {
        IntCC::Eq | IntCC::Ne => Domain::Both,
        IntCC::Ult | IntCC::Ule | IntCC::Ugt | IntCC::Uge => Domain::Unsigned,
        IntCC::Slt | IntCC::Sle | IntCC::Sgt | IntCC::Sge => Domain::Signed,
    }
}

/// The outcomes (less, equal, greater) for which `cc` holds, as three bits.
fn outcomes(cc: IntCC) -> u8 {
    const LT: u8 = 1;
    const EQ: u8 = 2;
    const GT: u8 = 4;
    match cc {
        IntCC::Eq => EQ,
        IntCC::Ne => LT | GT,
        IntCC::Slt | IntCC::Ult => LT,
        IntCC::Sle | IntCC::Ule => LT | EQ,
        IntCC::Sgt | IntCC::Ugt => GT,
        IntCC::Sge | IntCC::Uge => GT | EQ,
    }
}

/// Whether `a x b` being true makes `a y b` true. Within one way of comparing, the
/// outcomes of `x` must be among those of `y`; across the two ways only equality
/// carries over (`a = b` is `a ≤ b` either way; `a <u b` says nothing about `a <s b`,
/// but it does say `a ≠ b`).
fn implies(x: IntCC, y: IntCC) -> bool {
    let (dx, dy) = (domain(x), domain(y));
    outcomes(x) & !outcomes(y) == 0 && (dx == dy || dx == Domain::Both || dy == Domain::Both)
}

/// Replaces, in `func`, the compares and branches that the branches dominating them
/// decide; removes the blocks that no branch reaches any more.
pub fn implied_conditions(func: &mut Function) -> ImpliedStats {
    let mut stats = ImpliedStats::default();
    let Some(entry) = func.layout.entry_block() else {
        return stats;
    };
    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::with_cfg(func, &cfg);
    let mut facts = Facts::default();
    // (block, entering): entering pushes the facts of the edge into it and visits
    // it; leaving drops them again
    let mut stack: Vec<(Block, bool, usize, usize)> = vec![(entry, true, 0, 0)];
    while let Some((block, entering, truths, relations)) = stack.pop() {
        if !entering {
            facts.truth.truncate(truths);
            facts.relations.truncate(relations);
            continue;
        }
        let mark = (facts.truth.len(), facts.relations.len());
        if let Some((cond, value)) = edge_fact(func, &cfg, block) {
            learn(func, &mut facts, cond, value, 0);
        }
        visit(func, &facts, block, &mut stats);
        stack.push((block, false, mark.0, mark.1));
        for &child in domtree.children(block).iter().rev() {
            stack.push((child, true, 0, 0));
        }
    }
    if stats.branches > 0 {
        stats.removed_blocks = remove_unreachable(func, entry);
    }
    if stats.compares > 0 || stats.branches > 0 {
        dce(func);
    }
    stats
}

/// The condition a block knows from the edge that enters it: its only predecessor
/// ends in a `brif` whose two sides are different blocks, one of them this one.
fn edge_fact(func: &Function, cfg: &ControlFlowGraph, block: Block) -> Option<(Value, bool)> {
    let [pred] = cfg.preds(block) else {
        return None;
    };
    if *pred == block {
        return None;
    }
    let term = func.layout.last_inst(*pred)?;
    let InstructionData::Brif { arg, blocks, .. } = func.dfg.inst_data(term) else {
        return None;
    };
    if blocks[0].block == blocks[1].block {
        return None;
    }
    Some((*arg, blocks[0].block == block))
}

/// Records that `cond` is `value`, and what that says about what `cond` is made of.
fn learn(func: &Function, facts: &mut Facts, cond: Value, value: bool, depth: usize) {
    facts.truth.push((cond, value));
    if depth >= MAX_SPLIT_DEPTH {
        return;
    }
    let ValueDef::Result(inst, 0) = func.dfg.value_def(cond) else {
        return;
    };
    match func.dfg.inst_data(inst) {
        InstructionData::IntCompare { cond: cc, args, .. } => {
            let cc = if value { *cc } else { cc.inverse() };
            facts.relations.push(Relation {
                cc,
                a: args[0],
                b: args[1],
            });
        }
        InstructionData::Binary { opcode, args } => match (opcode, value) {
            (Opcode::Band, true) | (Opcode::Bor, false) => {
                learn(func, facts, args[0], value, depth + 1);
                learn(func, facts, args[1], value, depth + 1);
            }
            (Opcode::Bxor, _) => {
                if let Some(c) = constant(func, args[1]) {
                    learn(func, facts, args[0], value ^ (c & 1 == 1), depth + 1);
                } else if let Some(c) = constant(func, args[0]) {
                    learn(func, facts, args[1], value ^ (c & 1 == 1), depth + 1);
                }
            }
            _ => {}
        },
        InstructionData::Unary {
            opcode: Opcode::Bnot,
            arg,
        } => learn(func, facts, *arg, !value, depth + 1),
        _ => {}
    }
}

/// Folds the compares and the branch of `block` that `facts` decide.
fn visit(func: &mut Function, facts: &Facts, block: Block, stats: &mut ImpliedStats) {
    let insts: Vec<_> = func.layout.block_insts(block).collect();
    for inst in insts {
        match func.dfg.inst_data(inst).clone() {
            InstructionData::IntCompare { cond, args, .. } => {
                if let Some(known) = decide(func, facts, cond, args[0], args[1]) {
                    func.dfg.replace_inst(
                        inst,
                        InstructionData::UnaryImm {
                            opcode: Opcode::Iconst,
                            imm: known as u128,
                        },
                    );
                    stats.compares += 1;
                }
            }
            InstructionData::Brif { arg, blocks, .. } => {
                if blocks[0].block == blocks[1].block {
                    continue;
                }
                if let Some(known) = truth(func, facts, arg, 0) {
                    let dest = blocks[if known { 0 } else { 1 }].clone();
                    func.dfg.replace_inst(
                        inst,
                        InstructionData::Jump {
                            opcode: Opcode::Jump,
                            dest,
                        },
                    );
                    stats.branches += 1;
                }
            }
            _ => {}
        }
    }
}

/// Whether `v` (an `i1`) is known to be true or false here.
fn truth(func: &Function, facts: &Facts, v: Value, depth: usize) -> Option<bool> {
    if let Some(&(_, known)) = facts.truth.iter().rev().find(|(c, _)| *c == v) {
        return Some(known);
    }
    if depth >= MAX_SPLIT_DEPTH {
        return None;
    }
    let ValueDef::Result(inst, 0) = func.dfg.value_def(v) else {
        return None;
    };
    match func.dfg.inst_data(inst) {
        InstructionData::UnaryImm {
            opcode: Opcode::Iconst,
            imm,
        } => Some(imm & 1 == 1),
        InstructionData::IntCompare { cond, args, .. } => {
            decide(func, facts, *cond, args[0], args[1])
        }
        InstructionData::Unary {
            opcode: Opcode::Bnot,
            arg,
        } => truth(func, facts, *arg, depth + 1).map(|b| !b),
        InstructionData::Binary {
            opcode: op @ (Opcode::Band | Opcode::Bor),
            args,
        } => {
            let x = truth(func, facts, args[0], depth + 1);
            let y = truth(func, facts, args[1], depth + 1);
            match (op, x, y) {
                (Opcode::Band, Some(false), _) | (Opcode::Band, _, Some(false)) => Some(false),
                (Opcode::Band, Some(true), Some(true)) => Some(true),
                (Opcode::Bor, Some(true), _) | (Opcode::Bor, _, Some(true)) => Some(true),
                (Opcode::Bor, Some(false), Some(false)) => Some(false),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether `a cc b` is known to hold (`Some(true)`) or to fail (`Some(false)`) here.
fn decide(func: &Function, facts: &Facts, cc: IntCC, a: Value, b: Value) -> Option<bool> {
    let ty = func.dfg.value_type(a);
    if !(ty.is_int() || ty.is_ptr()) || ty == Type::I128 {
        return None;
    }
    if a == b {
        return Some(implies(IntCC::Eq, cc));
    }
    let recent = facts.relations.len().saturating_sub(MAX_FACTS);
    for r in facts.relations[recent..].iter().rev() {
        let stated = if (r.a, r.b) == (a, b) {
            r.cc
        } else if (r.a, r.b) == (b, a) {
            r.cc.swap_args()
        } else {
            continue;
        };
        if implies(stated, cc) {
            return Some(true);
        }
        if implies(stated, cc.inverse()) {
            return Some(false);
        }
    }
    let bounds = Bounds {
        func,
        relations: &facts.relations[recent..],
        ty,
    };
    // `a cc b` as an order `x < y` or `x ≤ y`, true when proved, false when the
    // opposite order is
    let (domain, x, y, strict) = match cc {
        IntCC::Ult => (Domain::Unsigned, a, b, true),
        IntCC::Ule => (Domain::Unsigned, a, b, false),
        IntCC::Ugt => (Domain::Unsigned, b, a, true),
        IntCC::Uge => (Domain::Unsigned, b, a, false),
        IntCC::Slt => (Domain::Signed, a, b, true),
        IntCC::Sle => (Domain::Signed, a, b, false),
        IntCC::Sgt => (Domain::Signed, b, a, true),
        IntCC::Sge => (Domain::Signed, b, a, false),
        IntCC::Eq | IntCC::Ne => {
            for d in [Domain::Unsigned, Domain::Signed] {
                if bounds.below(d, a, b, true) || bounds.below(d, b, a, true) {
                    return Some(cc == IntCC::Ne);
                }
            }
            return None;
        }
    };
    if bounds.below(domain, x, y, strict) {
        return Some(true);
    }
    if bounds.below(domain, y, x, !strict) {
        return Some(false);
    }
    None
}

/// Upper bounds of values: the known relations, what operations guarantee, constants.
struct Bounds<'a> {
    func: &'a Function,
    relations: &'a [Relation],
    /// The type of the compared values.
    ty: Type,
}

impl Bounds<'_> {
    /// Whether `x < y` (`strict`) or `x ≤ y` is proved in `domain` by a chain of at
    /// most two bounds from `x`, or by constants at its end.
    fn below(&self, domain: Domain, x: Value, y: Value, strict: bool) -> bool {
        let target = self.constant_in(domain, y);
        let reaches = |u: Value, s: bool| -> bool {
            if u == y && (s || !strict) {
                return true;
            }
            match (self.constant_in(domain, u), target) {
                (Some(cu), Some(cy)) => cu < cy || (cu == cy && (s || !strict)),
                _ => false,
            }
        };
        for (u, s1) in self.upper_bounds(domain, x) {
            if reaches(u, s1) {
                return true;
            }
            for (w, s2) in self.upper_bounds(domain, u) {
                if reaches(w, s1 || s2) {
                    return true;
                }
            }
        }
        false
    }

    /// The values known to be above `x` (strictly or not), in `domain`.
    fn upper_bounds(&self, domain: Domain, x: Value) -> Vec<(Value, bool)> {
        let mut out = Vec::new();
        for r in self.relations {
            if self::domain(r.cc) != domain && r.cc != IntCC::Eq {
                continue;
            }
            match r.cc {
                IntCC::Eq if r.a == x => out.push((r.b, false)),
                IntCC::Eq if r.b == x => out.push((r.a, false)),
                IntCC::Ult | IntCC::Slt if r.a == x => out.push((r.b, true)),
                IntCC::Ule | IntCC::Sle if r.a == x => out.push((r.b, false)),
                IntCC::Ugt | IntCC::Sgt if r.b == x => out.push((r.a, true)),
                IntCC::Uge | IntCC::Sge if r.b == x => out.push((r.a, false)),
                _ => {}
            }
        }
        if domain != Domain::Unsigned {
            return out;
        }
        let ValueDef::Result(inst, 0) = self.func.dfg.value_def(x) else {
            return out;
        };
        match self.func.dfg.inst_data(inst) {
            InstructionData::Binary { opcode, args } => match opcode {
                // a logical shift right or a mask never grows a value
                Opcode::Ushr => out.push((args[0], false)),
                Opcode::Band => {
                    out.push((args[0], false));
                    out.push((args[1], false));
                }
                // the remainder is below a divisor that is not 0 (a constant one:
                // otherwise the remainder by 0 is the dividend), and never above the
                // dividend
                Opcode::Urem => {
                    if self.constant(args[1]).is_some_and(|d| d != 0) {
                        out.push((args[1], true));
                    }
                    out.push((args[0], false));
                }
                _ => {}
            },
            _ => {}
        }
        out
    }

    /// The value of an integer constant, masked to the compared width.
    fn constant(&self, v: Value) -> Option<u128> {
        constant(self.func, v).map(|c| c & self.ty.mask())
    }

    /// A constant as a number to order in `domain`: unsigned as it is, signed
    /// sign-extended from the compared width (shifted so that the order is the
    /// unsigned order of the result).
    fn constant_in(&self, domain: Domain, v: Value) -> Option<u128> {
        let c = self.constant(v)?;
        Some(match domain {
            Domain::Signed => c ^ (1u128 << (self.ty.bits() - 1)),
            _ => c,
        })
    }
}

/// The value of `v` if an `iconst` defines it.
fn constant(func: &Function, v: Value) -> Option<u128> {
    let ValueDef::Result(inst, 0) = func.dfg.value_def(v) else {
        return None;
    };
    match func.dfg.inst_data(inst) {
        InstructionData::UnaryImm {
            opcode: Opcode::Iconst,
            imm,
        } => Some(*imm),
        _ => None,
    }
}
