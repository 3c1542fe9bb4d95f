//! ψ inlining (de Ferrière 003 §2, after Stoutchinin and de Ferrière): an argument
//! `p?y` whose value is itself a ψ `y = ψ(q1?b1, ..., qm?bm)` of the same block is
//! replaced by that ψ's arguments when every `qk` implies `p` (or `p` is true): where
//! `p` holds, the rightmost true `qk` gives `y`'s value, and where it does not, no
//! `qk` holds either. This is the shape the decision trees of `psi-shape=tree` leave
//! (a ψ per branch, the inner ones under `.unc` compares of the outer predicate);
//! inlined, they are the flat ψ of `psi-shape=flat`, which reduction then cleans.
//! Only an inner ψ that the outer one alone reads (once) is inlined, and it is then
//! removed: one read elsewhere keeps it, and inlining would make its arguments'
//! selection twice (measured on `benches/kernels`: 49 arguments inlined without the
//! rule gave 2.4 times the `sel`s and 3% more bundles).

use rustc_hash::FxHashMap as HashMap;

use super::guards::Guards;
use crate::mir::{InstId, MOp, MachFunction, Reg};

/// Inlines the ψ arguments of every ψ of `mf`; returns how many arguments it
/// replaced.
pub fn inline(mf: &mut MachFunction) -> usize {
    let mut inlined = 0;
    let mut reads = mf.read_counts();
    for b in mf.layout.clone() {
        let psis: Vec<InstId> = mf
            .block_insts_with_ids(b)
            .filter(|(_, inst)| inst.op == MOp::Psi)
            .map(|(id, _)| id)
            .collect();
        if psis.is_empty() {
            continue;
        }
        let guards = Guards::of_block(mf, b);
        // the ψs of the block by value, in order: an inner ψ is defined before the
        // ψ reading it, and is already inlined itself when that one is visited
        let mut defined: HashMap<Reg, InstId> = HashMap::default();
        for id in psis {
            let outer = mf.inst(id).clone();
            let mut uses = Vec::with_capacity(outer.uses.len());
            let mut psi_guards = Vec::with_capacity(outer.uses.len());
            for (&y, &p) in outer.uses.iter().zip(&outer.psi_guards) {
                let inner = defined.get(&y).map(|&i| mf.inst(i));
                match inner {
                    Some(inner)
                        if reads.get(&y) == Some(&1)
                            && inner.psi_guards.iter().all(|&q| guards.implies(q, p)) =>
                    {
                        uses.extend_from_slice(&inner.uses);
                        psi_guards.extend_from_slice(&inner.psi_guards);
                        inlined += 1;
                    }
                    _ => {
                        uses.push(y);
                        psi_guards.push(p);
                    }
                }
            }
            MachFunction::update_read_counts(&mut reads, &outer, false);
            let inst = mf.inst_mut(id);
            inst.uses = uses;
            inst.psi_guards = psi_guards;
            MachFunction::update_read_counts(&mut reads, inst, true);
            defined.insert(inst.defs[0], id);
        }
    }
    if inlined > 0 {
        crate::pcp::sweep::remove_dead_operations(mf);
    }
    inlined
}
