//! Negated compares (machine SSA, before scheduling: `fold-pnot`).
//!
//! A compare writes two predicates, the condition and its complement (`docs/isa.md`
//! §5), but instruction selection asks for the first only, and a negated condition
//! (`!(x == 0)`, an `Option`'s `is_some` where the construction tested `is_none`)
//! becomes `pnot` of it: one more operation, and one more cycle wherever the
//! condition is on a recurrence (a tree walk's null test before its next load). The
//! pass rewrites
//!
//! - `p1, p0 = cmp.X a, b` ... `p2 = pnot p1` as `p1, p2 = cmp.X a, b`, the `pnot`
//!   removed (and `p1` replaced by `p0` when the `pnot` was its only reader);
//! - `p = r2p x` ... `q = pnot p` (a `bool` kept as an integer, tested negated) as
//!   `q, p0 = cmp.eq x, 0`, reading `x` itself, and the `r2p` removed if nothing
//!   else reads `p`;
//!
//! the first for an unguarded compare of the normal or `.unc` type, the two being
//! the same without a guard: both results are written, the second the complement of
//! the first.
//! Machine SSA makes it sound: `p2` is defined earlier than before, by an operation
//! that dominates the `pnot`, hence every reader of `p2`. The `pnot` may be guarded
//! only if it keeps nothing: a guarded definition without a kept value is undefined
//! where its guard is false, and the complement is one of its possible values there.
//!
//! Only an unguarded `r2p` of a virtual register is taken (`x` then holds the same
//! value at the `pnot`).
//!
//! It also forwards a predicate through an integer: `x = p2r p` ... `q = r2p x` reads
//! `p` where it read `q`, also when `x` is the parameter of a block whose one
//! incoming edge passes `p2r p` for it (a boolean that a join of the SSA IR carried
//! in a register, once the join had one predecessor left). The predecessor then
//! dominates the block, so `p`'s definition dominates every reader of `q`; both moves
//! unguarded, `q` is `p` everywhere.
//!
//! Counter: `pnot.folded` (`pnot`s removed or made compares, predicates forwarded).

use rustc_hash::FxHashMap as HashMap;

use vliw_isa::{CmpType, Format, Opcode};

use crate::mir::{Imm, InstId, MBlock, MInst, MOp, MachFunction, Reg};

/// Folds each `pnot` of a compare's result into that compare (module
/// documentation); returns how many.
pub fn fold_negations(mf: &mut MachFunction) -> usize {
    // the compares whose second result is unused: first result → the compare
    let mut compares: HashMap<Reg, InstId> = HashMap::default();
    // unguarded `r2p`s of virtual registers: result → the register
    let mut tests: HashMap<Reg, Reg> = HashMap::default();
    for b in mf.layout.clone() {
        for &id in mf.block_inst_ids(b) {
            let inst = mf.inst(id);
            let Some(op) = inst.opcode() else { continue };
            if op == Opcode::R2p
                && inst.guard.is_always()
                && inst.keep.is_none()
                && let (&[p], &[x]) = (inst.defs.as_slice(), inst.uses.as_slice())
                && matches!(p, Reg::Virtual(_))
                && matches!(x, Reg::Virtual(_))
            {
                tests.insert(p, x);
            }
            if matches!(op.format(), Format::Cmp | Format::CmpImm)
                && inst.guard.is_always()
                && matches!(inst.ctype, CmpType::Normal | CmpType::Unc)
                && let &[p, Reg::P0] = inst.defs.as_slice()
                && matches!(p, Reg::Virtual(_))
            {
                compares.insert(p, id);
            }
        }
    }
    let forwarded = forward_predicates(mf, &tests);
    if forwarded > 0 {
        // the `r2p`s whose readers now read the predicate itself go with the rest
        crate::pcp::sweep::remove_dead_operations(mf);
        let read = mf.read_counts();
        tests.retain(|p, _| read.contains_key(p));
    }
    if compares.is_empty() && tests.is_empty() {
        return forwarded;
    }
    let readers = mf.read_counts();
    let mut folded = 0;
    let mut tests_folded = 0;
    for b in mf.layout.clone() {
        let mut order = mf.block_inst_ids(b).to_vec();
        let before = order.len();
        order.retain(|&id| {
            let inst = mf.inst(id);
            if inst.opcode() != Some(Opcode::Pnot) || inst.keep.is_some() {
                return true;
            }
            let (&[d], &[s]) = (inst.defs.as_slice(), inst.uses.as_slice()) else {
                return true;
            };
            let guard = inst.guard;
            if let Some(&x) = tests.get(&s) {
                // `pnot (r2p x)` is `x == 0`, from `x` itself
                *mf.inst_mut(id) =
                    MInst::op(Opcode::CmpEqI, &[d, Reg::P0], &[x], Imm::Const(0)).with_guard(guard);
                tests_folded += 1;
                return true;
            }
            let Some(cmp) = compares.remove(&s) else {
                return true;
            };
            let only_reader = readers.get(&s) == Some(&1);
            let c = mf.inst_mut(cmp);
            c.defs[1] = d;
            if only_reader {
                c.defs[0] = Reg::P0;
            }
            false
        });
        folded += before - order.len();
        mf.set_block_insts(b, order);
    }
    if tests_folded > 0 {
        crate::pcp::sweep::remove_dead_operations(mf);
    }
    folded + tests_folded + forwarded
}

/// Makes the readers of each `q = r2p x` in `tests` (result → register) read `p`
/// where `x` holds `p2r p` (module documentation); returns how many.
fn forward_predicates(mf: &mut MachFunction, tests: &HashMap<Reg, Reg>) -> usize {
    // registers that hold a predicate moved into an integer, unguarded
    let mut holds: HashMap<Reg, Reg> = HashMap::default();
    for inst in mf.layout_insts() {
        if inst.opcode() == Some(Opcode::P2r)
            && inst.guard.is_always()
            && inst.keep.is_none()
            && let (&[x], &[p]) = (inst.defs.as_slice(), inst.uses.as_slice())
            && matches!((x, p), (Reg::Virtual(_), Reg::Virtual(_)))
        {
            holds.insert(x, p);
        }
    }
    if holds.is_empty() {
        return 0;
    }
    // block parameters whose one incoming edge passes such a register
    let mut edges: HashMap<MBlock, (usize, Option<InstId>)> = HashMap::default();
    for &b in &mf.layout {
        for &id in mf.block_inst_ids(b) {
            let inst = mf.inst(id);
            let direct = matches!((&inst.op, &inst.imm), (MOp::Op(Opcode::Br), Imm::Block(_)))
                && inst.unwind.is_none();
            for t in inst.branch_targets(mf) {
                let e = edges.entry(t).or_insert((0, None));
                e.0 += 1;
                e.1 = direct.then_some(id);
            }
        }
    }
    let entry = mf.layout.first().copied();
    // in layout order, again until nothing changes: a parameter passed on to another
    // block's is found whatever the order of the blocks (and the result does not
    // depend on a hash map's)
    loop {
        let mut changed = false;
        for &b in &mf.layout {
            let Some(&(1, Some(br))) = edges.get(&b) else {
                continue;
            };
            if Some(b) == entry {
                continue;
            }
            let args = &mf.inst(br).args;
            for (&param, &arg) in mf.blocks[b].params.iter().zip(args) {
                if let Some(&p) = holds.get(&arg)
                    && holds.insert(Reg::Virtual(param), p) != Some(p)
                {
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let rename: HashMap<Reg, Reg> = tests
        .iter()
        .filter_map(|(&q, x)| holds.get(x).map(|&p| (q, p)))
        .collect();
    if rename.is_empty() {
        return 0;
    }
    for b in mf.layout.clone() {
        for id in mf.block_inst_ids(b).to_vec() {
            mf.inst_mut(id)
                .rename_uses(|r| rename.get(&r).copied().unwrap_or(r));
        }
    }
    // a parameter that carried the predicate and is read by nothing now goes, with
    // its argument (so that the `p2r` goes too): the one incoming `br` passes it
    crate::pcp::sweep::remove_dead_operations(mf);
    let read = mf.read_counts();
    for (&b, &(count, br)) in &edges {
        let (1, Some(br)) = (count, br) else { continue };
        if Some(b) == entry {
            continue;
        }
        let params = mf.blocks[b].params.clone();
        let dead: Vec<bool> = params
            .iter()
            .map(|&v| holds.contains_key(&Reg::Virtual(v)) && !read.contains_key(&Reg::Virtual(v)))
            .collect();
        if !dead.contains(&true) {
            continue;
        }
        let args = std::mem::take(&mut mf.inst_mut(br).args);
        mf.inst_mut(br).args = args
            .into_iter()
            .zip(&dead)
            .filter(|(_, d)| !**d)
            .map(|(a, _)| a)
            .collect();
        mf.blocks[b].params = params
            .into_iter()
            .zip(&dead)
            .filter(|(_, d)| !**d)
            .map(|(v, _)| v)
            .collect();
    }
    rename.len()
}
