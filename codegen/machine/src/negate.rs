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
//! Counter: `pnot.folded` (`pnot`s removed or made compares).

use std::collections::HashMap;

use vliw_isa::{CmpType, Format, Opcode};

use crate::mir::{Imm, InstId, MInst, MachFunction, Reg};

/// Folds each `pnot` of a compare's result into that compare (module
/// documentation); returns how many.
pub fn fold_negations(mf: &mut MachFunction) -> usize {
    // the compares whose second result is unused: first result → the compare
    let mut compares: HashMap<Reg, InstId> = HashMap::new();
    // unguarded `r2p`s of virtual registers: result → the register
    let mut tests: HashMap<Reg, Reg> = HashMap::new();
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
    if compares.is_empty() && tests.is_empty() {
        return 0;
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
    folded + tests_folded
}
