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
//!   removed (and `p1` replaced by `p0` when the `pnot` was its only reader),
//!
//! for an unguarded compare of the normal or `.unc` type, the two being the same
//! without a guard: both results are written, the second the complement of the first.
//! Machine SSA makes it sound: `p2` is defined earlier than before, by an operation
//! that dominates the `pnot`, hence every reader of `p2`. The `pnot` may be guarded
//! only if it keeps nothing: a guarded definition without a kept value is undefined
//! where its guard is false, and the complement is one of its possible values there.
//!
//! Counter: `pnot.folded` (`pnot`s removed).

use std::collections::HashMap;

use vliw_isa::{CmpType, Format, Opcode};

use crate::mir::{InstId, MachFunction, Reg};

/// Folds each `pnot` of a compare's result into that compare (module
/// documentation); returns how many.
pub fn fold_negations(mf: &mut MachFunction) -> usize {
    // the compares whose second result is unused: first result → the compare
    let mut compares: HashMap<Reg, InstId> = HashMap::new();
    for b in mf.layout.clone() {
        for &id in mf.block_inst_ids(b) {
            let inst = mf.inst(id);
            let Some(op) = inst.opcode() else { continue };
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
    if compares.is_empty() {
        return 0;
    }
    let readers = mf.read_counts();
    let mut folded = 0;
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
    folded
}
