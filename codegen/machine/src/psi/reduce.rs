//! ψ reduction (de Ferrière 003 §2, after Stoutchinin and de Ferrière): an argument
//! that the arguments to its right always override is dropped. Two cases need no
//! predicate analysis, and are what if-conversion's decision trees leave (`psi-shape=
//! tree` makes a ψ per branch even where both sides carry the same value):
//!
//! - an argument whose guard is true overrides every argument to its left;
//! - `ψ(..., T?a, g?a, ...)`: the second `a` adds nothing where the first's guard is
//!   true (so the first argument after a true guard drops a repeat of it).
//!
//! A ψ left with one argument is that argument: the lowering makes it a copy, which
//! the allocator coalesces. Runs before either lowering.

use crate::mir::{MOp, MachFunction};

/// Reduces every ψ of `mf`; returns how many arguments it dropped.
pub fn reduce(mf: &mut MachFunction) -> usize {
    let mut dropped = 0;
    for b in mf.layout.clone() {
        let ids: Vec<_> = mf.block_insts_with_ids(b).map(|(id, _)| id).collect();
        for id in ids {
            let inst = mf.inst_mut(id);
            if inst.op != MOp::Psi || inst.uses.len() < 2 {
                continue;
            }
            let before = inst.uses.len();
            // the last argument whose guard is true overrides all before it
            if let Some(k) = inst.psi_guards.iter().rposition(|g| g.is_always())
                && k > 0
            {
                inst.uses.drain(..k);
                inst.psi_guards.drain(..k);
            }
            // a repeat right after an argument with a true guard
            let mut i = 1;
            while i < inst.uses.len() {
                if inst.psi_guards[i - 1].is_always() && inst.uses[i] == inst.uses[i - 1] {
                    inst.uses.remove(i);
                    inst.psi_guards.remove(i);
                } else {
                    i += 1;
                }
            }
            dropped += before - inst.uses.len();
        }
    }
    dropped
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::MachFunction;

    fn reduced(text: &str) -> (String, usize) {
        let mut f = MachFunction::parse(text).unwrap();
        let n = reduce(&mut f);
        f.verify(crate::mir::Phase::Ssa).unwrap();
        (f.to_string(), n)
    }

    #[test]
    fn drops_overridden_arguments_and_repeats_after_a_true_guard() {
        let text = "machine function @f {
block0:
    v0 = copy r3
    v1 = copy r4
    pv2, pv3 = cmp.gt v0, 0
    v4 = psi p0: v0, pv2: v0, pv3: v1
    v5 = psi pv2: v1, p0: v0, pv3: v1
    v6 = psi pv2: v0, pv2: v0
    r3 = copy v4
    r4 = copy v5
    r5 = copy v6
    ret uses[r3 r4 r5]
}
";
        let (out, n) = reduced(text);
        assert_eq!(n, 2, "{out}");
        assert!(out.contains("v4 = psi p0: v0, pv3: v1"), "{out}");
        assert!(out.contains("v5 = psi p0: v0, pv3: v1"), "{out}");
        // repeats under a guard that may be false are kept (their guards differ)
        assert!(out.contains("v6 = psi pv2: v0, pv2: v0"), "{out}");
    }
}
