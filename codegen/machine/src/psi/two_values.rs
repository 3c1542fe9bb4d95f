//! Two-valued ψs: a ψ whose arguments carry only two values, `a` (its first
//! argument's, under the true guard) and `b`, is `b` exactly where the rightmost true
//! guard is one of `b`'s, so it is `ψ(T?a, R?b)` with `R` that one predicate:
//! folding the arguments from the left, `R := R ∨ g` for an argument `g?b` and
//! `R := R ∧ ¬g` for an argument `g?a` (one `por`/`pandn`, or their forms for
//! negated guards, each). Lowered, the ψ is one guarded definition, `(R) d = op ...
//! keeps a` when `b`'s operation folds into it: the value's chain goes through one
//! operation, and the predicates, which do not depend on it, are computed beside it.
//!
//! This is what a counter incremented on one arm of a multi-way `if`/`else if`
//! chain is (`classify`: `neg`, `small`, `mid`, `big`, each `+ 1` on one arm and
//! passed on the others): the decision tree of `psi-shape=tree` makes it a ψ per
//! branch, lowered to a chain of `sel`s or predicated copies as deep as the branch
//! is nested, which the next element's update then waits for.
//!
//! Inner ψs read only by the outer one (once) are flattened into it first where
//! inlining is sound (every inner guard implies the outer argument's, as
//! `super::inline` requires; an argument under the true guard always is), and then
//! go. Fewer operations than the chains it replaces: `n − 2` predicate operations for
//! `n` arguments, fewer where an argument adds nothing (an argument `g?a` whose guard
//! implies one already excluded since the last `b`, or disjoint from every `b`
//! argument's). Arguments are values as in `super::reduce` (through unguarded
//! copies, equal `movi` constants).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use vliw_isa::Opcode;

use super::guards::Guards;
use crate::mir::{Imm, InstId, MGuard, MInst, MOp, MachFunction, Reg, RegClass};

/// How deep inner ψs are flattened.
const MAX_DEPTH: usize = 8;

/// Rewrites every two-valued ψ of `mf` with three or more arguments (after
/// flattening) as `ψ(T?a, R?b)`; returns how many.
pub fn two_values(mf: &mut MachFunction) -> usize {
    let values = super::values::Values::of(mf);
    let root = |r: Reg| values.root(r);
    let same = |a: Reg, b: Reg| values.same(a, b);
    let mut rewritten = 0;
    let mut reads = mf.read_counts();
    for b in mf.layout.clone() {
        // (a ψ of one argument, which reduction leaves, is flattened too)
        let psis: Vec<InstId> = mf
            .block_insts_with_ids(b)
            .filter(|(_, inst)| inst.op == MOp::Psi)
            .map(|(id, _)| id)
            .collect();
        if psis.is_empty() {
            continue;
        }
        let guards = Guards::of_block(mf, b);
        // the predicates `pandn d = x, y` of the block (and those made here) define
        let mut pandn: HashMap<Reg, (Reg, Reg)> = mf
            .block_insts(b)
            .filter(|i| i.op == MOp::Op(Opcode::Pandn) && i.guard.is_always())
            .map(|i| (i.defs[0], (i.uses[0], i.uses[1])))
            .collect();
        let defined: HashMap<Reg, InstId> =
            psis.iter().map(|&id| (mf.inst(id).defs[0], id)).collect();
        // outer ψs first: the inner ones they flatten are not rewritten on their own
        let mut flattened: HashSet<InstId> = HashSet::default();
        for &id in psis.iter().rev() {
            if flattened.contains(&id) || mf.inst(id).uses.len() < 2 {
                continue;
            }
            let mut args: Vec<(Reg, MGuard)> = Vec::new();
            let mut inner: Vec<InstId> = Vec::new();
            flatten(mf, &guards, &reads, &defined, id, 0, &mut args, &mut inner);
            let Some(&(a, first)) = args.first() else {
                continue;
            };
            if !first.is_always() || (args.len() < 3 && inner.is_empty()) {
                continue;
            }
            let args: Vec<(Reg, MGuard)> = args.into_iter().map(|(v, g)| (root(v), g)).collect();
            let Some(&(bv, _)) = args.iter().find(|(v, _)| !same(*v, a)) else {
                continue;
            };
            if args.iter().any(|&(v, _)| !same(v, a) && !same(v, bv)) {
                continue;
            }
            // the predicate operations, inserted before the ψ
            let mut ops: Vec<MInst> = Vec::new();
            let mut r: Option<MGuard> = None;
            // every `b` argument so far; those since the last exclusion; the `a`
            // arguments excluded since the last `b`
            let mut b_guards: Vec<MGuard> = Vec::new();
            let mut included: Vec<MGuard> = Vec::new();
            let mut excluded: Vec<MGuard> = Vec::new();
            for &(v, g) in &args[1..] {
                if same(v, bv) {
                    if included.iter().any(|&h| guards.implies(g, h)) {
                        continue;
                    }
                    r = Some(match r {
                        None => g,
                        // (x ∧ ¬g) ∨ g = x ∨ g, which is x where g implies it
                        Some(r)
                            if !r.negated
                                && !g.negated
                                && pandn.get(&r.pred).is_some_and(|&(_, y)| y == g.pred) =>
                        {
                            let x = MGuard::new(pandn[&r.pred].0, false);
                            if guards.implies(g, x) {
                                x
                            } else {
                                logic(mf, &mut ops, &mut pandn, x, g, true)
                            }
                        }
                        Some(r) => logic(mf, &mut ops, &mut pandn, r, g, true),
                    });
                    b_guards.push(g);
                    included.push(g);
                    excluded.clear();
                } else if let Some(cur) = r {
                    let adds_nothing = excluded.iter().any(|&e| guards.implies(g, e))
                        || b_guards.iter().all(|&h| guards.disjoint(g, h));
                    if !adds_nothing {
                        r = Some(logic(mf, &mut ops, &mut pandn, cur, g, false));
                        excluded.push(g);
                        included.clear();
                    }
                }
            }
            let Some(r) = r else { continue };
            // each right after the later of its operands' definitions: a guard
            // defined before the argument it guards lets the lowering fold the
            // argument's operation under it (`super::copies`)
            for op in ops {
                MachFunction::update_read_counts(&mut reads, &op, true);
                let ids = mf.block_inst_ids(b);
                let after = ids
                    .iter()
                    .rposition(|&i| mf.inst(i).defs.iter().any(|d| op.uses.contains(d)))
                    .map_or(0, |k| k + 1);
                mf.insert_inst(b, after, op);
            }
            MachFunction::update_read_counts(&mut reads, mf.inst(id), false);
            let psi = mf.inst_mut(id);
            psi.uses = vec![a, bv];
            psi.psi_guards = vec![MGuard::ALWAYS, r];
            MachFunction::update_read_counts(&mut reads, psi, true);
            flattened.extend(inner);
            rewritten += 1;
        }
    }
    if rewritten > 0 {
        crate::pcp::sweep::remove_dead_operations(mf);
    }
    rewritten
}

/// The arguments of ψ `id` with the inner ψs it alone reads replaced by theirs
/// (where every inner guard implies the argument's), into `args`; the inner ψs so
/// replaced into `inner`.
#[allow(clippy::too_many_arguments)]
fn flatten(
    mf: &MachFunction,
    guards: &Guards,
    reads: &HashMap<Reg, usize>,
    defined: &HashMap<Reg, InstId>,
    id: InstId,
    depth: usize,
    args: &mut Vec<(Reg, MGuard)>,
    inner: &mut Vec<InstId>,
) {
    let psi = mf.inst(id);
    for (&y, &p) in psi.uses.iter().zip(&psi.psi_guards) {
        if depth < MAX_DEPTH
            && let Some(&i) = defined.get(&y)
            && i != id
            && reads.get(&y) == Some(&1)
            && mf.inst(i).psi_guards.iter().all(|&q| guards.implies(q, p))
        {
            inner.push(i);
            flatten(mf, guards, reads, defined, i, depth + 1, args, inner);
        } else {
            args.push((y, p));
        }
    }
}

/// A new predicate holding `r ∨ g` (`or`) or `r ∧ ¬g`, as a guard (one operation
/// into `ops`).
fn logic(
    mf: &mut MachFunction,
    ops: &mut Vec<MInst>,
    pandn: &mut HashMap<Reg, (Reg, Reg)>,
    r: MGuard,
    g: MGuard,
    or: bool,
) -> MGuard {
    let d: Reg = mf.new_vreg(RegClass::Pred).into();
    let (op, x, y, negated) = match (or, r.negated, g.negated) {
        (true, false, false) => (Opcode::Por, r.pred, g.pred, false),
        (true, false, true) => (Opcode::Porn, r.pred, g.pred, false),
        (true, true, false) => (Opcode::Porn, g.pred, r.pred, false),
        // ¬r ∨ ¬g = ¬(r ∧ g)
        (true, true, true) => (Opcode::Pand, r.pred, g.pred, true),
        (false, false, false) => (Opcode::Pandn, r.pred, g.pred, false),
        (false, false, true) => (Opcode::Pand, r.pred, g.pred, false),
        // ¬r ∧ ¬g = ¬(r ∨ g)
        (false, true, false) => (Opcode::Por, r.pred, g.pred, true),
        (false, true, true) => (Opcode::Pandn, g.pred, r.pred, false),
    };
    if op == Opcode::Pandn {
        pandn.insert(d, (x, y));
    }
    ops.push(MInst::op(op, &[d], &[x, y], Imm::None));
    MGuard::new(d, negated)
}
