//! ψ reduction (de Ferrière 003 §2, after Stoutchinin and de Ferrière): an argument
//! that the arguments to its right always override is dropped: argument `i` goes when
//! `Dom(p_i) ⊆ ⋃_{k>i} Dom(p_k)`. The hyperblock's compares stand for the Predicate
//! Partition Graph here (if-conversion made the region one block, so the function's
//! PPG no longer sees its predicates; [`Guards`] reads the partition from the
//! compares), and the union is checked for one or two guards to the right:
//!
//! - a guard `p_i` implies (the true guard, `p_i` itself, a guard its `.unc` compare
//!   or `pand` implies): `ψ(p?a, p?b)` and `ψ(q?a, T?b)` lose `a`;
//! - two guards whose union the compares show and `p_i` implies: a predicate and its
//!   complement cover everything (`ψ(p?a, q?b, q̄?c)` loses `a`), the two predicates
//!   of a `.unc` compare cover its guard;
//! - `ψ(..., g?a, h?a, ...)` with `h` implying `g`: the second `a` adds nothing (what
//!   if-conversion's decision trees leave, `psi-shape=tree`);
//! - a ψ whose arguments are all one value is that value;
//! - one value under two adjacent guards whose union the compares show is one
//!   argument under that union (`ψ(..., p?1, q?1)` with `p, q` a `.unc` pair under
//!   `g`: `g?1`). Registers that `movi` the same constant are one value here.
//!
//! Arguments are compared as values: an argument that an unguarded `copy` defines is
//! replaced by the copy's source first (the source dominates the copy, which
//! dominates the ψ), so `ψ(T?a, p?b)` with `b = copy a` is `a`.
//!
//! A ψ left with one argument is that argument: the lowering makes it a copy, which
//! the allocator coalesces. Runs before either lowering, after ψ inlining.

use super::guards::Guards;

use crate::mir::{MGuard, MOp, MachFunction, Reg};

/// Reduces every ψ of `mf`; returns how many arguments it dropped.
pub fn reduce(mf: &mut MachFunction) -> usize {
    let values = super::values::Values::of(mf);
    let root = |r: Reg| values.root(r);
    let same = |a: Reg, b: Reg| values.same(a, b);
    let mut dropped = 0;
    for b in mf.layout.clone() {
        let ids: Vec<_> = mf
            .block_insts_with_ids(b)
            .filter(|(_, inst)| inst.op == MOp::Psi && inst.uses.len() > 1)
            .map(|(id, _)| id)
            .collect();
        if ids.is_empty() {
            continue;
        }
        let guards = Guards::of_block(mf, b);
        for id in ids {
            let inst = mf.inst_mut(id);
            for u in &mut inst.uses {
                *u = root(*u);
            }
            let before = inst.uses.len();
            let mut i = before - 1;
            while i > 0 {
                i -= 1;
                let g = inst.psi_guards[i];
                let later = &inst.psi_guards[i + 1..];
                let overridden = later.iter().any(|&k| guards.implies(g, k))
                    || later.iter().enumerate().any(|(n, &k)| {
                        later[n + 1..]
                            .iter()
                            .any(|&l| guards.union(k, l).is_some_and(|u| guards.implies(g, u)))
                    });
                let repeat = inst.uses[i + 1] == inst.uses[i] && guards.implies(later[0], g);
                if overridden {
                    inst.uses.remove(i);
                    inst.psi_guards.remove(i);
                } else if repeat {
                    inst.uses.remove(i + 1);
                    inst.psi_guards.remove(i + 1);
                }
            }
            // one value under two guards whose union the compares show: one argument
            // under the union (the two predicates of a `.unc` compare: its guard)
            let mut i = 0;
            while i + 1 < inst.uses.len() {
                match guards.union(inst.psi_guards[i], inst.psi_guards[i + 1]) {
                    Some(u) if same(inst.uses[i], inst.uses[i + 1]) => {
                        inst.psi_guards[i] = u;
                        inst.uses.remove(i + 1);
                        inst.psi_guards.remove(i + 1);
                    }
                    _ => i += 1,
                }
            }
            // repeats of a first argument under the true guard add nothing; a ψ whose
            // arguments are all one value is that value (undefined nowhere else)
            while inst.uses.len() > 1
                && (inst.psi_guards[0].is_always() && same(inst.uses[1], inst.uses[0])
                    || inst.uses.iter().all(|&u| same(u, inst.uses[0])))
            {
                inst.uses.remove(1);
                inst.psi_guards.remove(1);
                inst.psi_guards[0] = MGuard::ALWAYS;
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
    fn drops_overridden_arguments_and_repeats() {
        let text = "machine function @f {
block0:
    v0 = copy r3
    v1 = copy r4
    pv2, pv3 = cmp.gt v0, 0
    v4 = psi p0: v0, pv2: v0, pv3: v1
    v5 = psi pv2: v1, p0: v0, pv3: v1
    v6 = psi pv2: v0, pv2: v0
    v7 = psi pv2: v0, p0: v1
    v8 = copy v0
    v9 = psi pv2: v0, pv3: v8, pv2: v0
    r3 = copy v4
    r4 = copy v5
    r5 = copy v6
    r6 = copy v7
    ret uses[r3 r4 r5 r6]
}
";
        let (out, n) = reduced(text);
        // v4: a predicate and its complement to the right cover the true guard
        assert!(out.contains("v4 = psi pv2: v0, pv3: v1"), "{out}");
        // v5: pv2 implies the true guard to its right
        assert!(out.contains("v5 = psi p0: v0, pv3: v1"), "{out}");
        assert!(out.contains("v6 = psi pv2: v0\n"), "{out}");
        assert!(out.contains("v7 = psi p0: v1\n"), "{out}");
        // one value under every guard, a copy of it included
        assert!(out.contains("v9 = psi p0: v0\n"), "{out}");
        assert_eq!(n, 6, "{out}");
    }

    /// The checklist's example, `ψ(p?a, q?b, q̄?c)` loses `a`; the two predicates of a
    /// `.unc` compare cover its guard and what implies it, nothing else.
    #[test]
    fn complementary_guards_to_the_right_cover_what_they_cover() {
        let text = "machine function @f {
block0:
    v0 = copy r3
    v1 = copy r4
    v2 = copy r5
    pv3, pv4 = cmp.gt v0, 0
    pv5, pv6 = cmp.lt v1, 0
    v7 = psi pv3: v0, pv5: v1, !pv5: v2
    (pv3) pv8, pv9 = cmp.eq.unc v1, v2
    (pv8) pv10, pv11 = cmp.eq.unc v0, v2
    v12 = psi pv10: v0, pv8: v1, pv9: v2
    v13 = psi pv5: v0, pv8: v1, pv9: v2
    v14 = movi 1
    v15 = movi 1
    v16 = psi p0: v0, pv8: v14, pv9: v15
    r6 = copy v16
    r3 = copy v7
    r4 = copy v12
    r5 = copy v13
    ret uses[r3 r4 r5 r6]
}
";
        let (out, n) = reduced(text);
        assert!(out.contains("v7 = psi pv5: v1, !pv5: v2"), "{out}");
        // the constant 1 under the two predicates of a `.unc` compare under pv3
        assert!(out.contains("v16 = psi p0: v0, pv3: v14"), "{out}");
        // pv10 implies pv8, which is to its right
        assert!(out.contains("v12 = psi pv8: v1, pv9: v2"), "{out}");
        // pv5 is unrelated to pv3, the guard pv8 and pv9 cover
        assert!(out.contains("v13 = psi pv5: v0, pv8: v1, pv9: v2"), "{out}");
        assert_eq!(n, 3, "{out}");
    }
}
