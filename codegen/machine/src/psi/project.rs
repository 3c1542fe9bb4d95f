//! ψ projection (de Ferrière 003 §2, after Stoutchinin and de Ferrière): a read of
//! `x = ψ(p1?a1, ..., pn?an)` under a guard `q` (a guarded operation's operand, or a
//! ψ argument `q?x`) sees `ψ|q`, the arguments whose guards may hold with `q`; those
//! disjoint from `q` never give `x` its value there. When one argument is left, the
//! read takes that argument's value directly: where `q` holds, `x` is that argument
//! or undefined (no guard true), so reading the argument refines it. The ψ then loses
//! a reader, and an operation under `q` no longer waits for the ψ's other arguments.
//! A projection to several arguments would need a new ψ; it is not made.
//!
//! Disjointness is the hyperblock's ([`Guards`]); only reads in the ψ's own block
//! are projected. A ψ nothing reads any more is removed (with what only it read).

use rustc_hash::FxHashMap as HashMap;

use super::guards::Guards;
use crate::mir::{InstId, MGuard, MOp, MachFunction, Reg};

/// Projects the guarded reads of every ψ of `mf`; returns how many reads now take an
/// argument instead.
pub fn project(mf: &mut MachFunction) -> usize {
    let mut projected = 0;
    for b in mf.layout.clone() {
        if !mf.block_insts(b).any(|inst| inst.op == MOp::Psi) {
            continue;
        }
        let guards = Guards::of_block(mf, b);
        // the ψs defined so far in the block: value -> (arguments, guards)
        let mut psis: HashMap<Reg, (Vec<Reg>, Vec<MGuard>)> = HashMap::default();
        let ids: Vec<InstId> = mf.block_inst_ids(b).to_vec();
        for id in ids {
            let project_one = |x: Reg, q: MGuard, psis: &HashMap<Reg, (Vec<Reg>, Vec<MGuard>)>| {
                let (args, gs) = psis.get(&x)?;
                if q.is_always() {
                    return None;
                }
                let mut left = args
                    .iter()
                    .zip(gs)
                    .filter(|&(_, &g)| !guards.disjoint(g, q))
                    .map(|(&a, _)| a);
                let first = left.next()?;
                left.all(|a| a == first).then_some(first)
            };
            let inst = mf.inst(id).clone();
            let mut changed = inst.clone();
            if inst.op == MOp::Psi {
                for (i, (&x, &q)) in inst.uses.iter().zip(&inst.psi_guards).enumerate() {
                    if let Some(a) = project_one(x, q, &psis) {
                        changed.uses[i] = a;
                        projected += 1;
                    }
                }
            } else {
                for (i, &x) in inst.uses.iter().enumerate() {
                    if let Some(a) = project_one(x, inst.guard, &psis) {
                        changed.uses[i] = a;
                        projected += 1;
                    }
                }
                for (i, &x) in inst.args.iter().enumerate() {
                    if let Some(a) = project_one(x, inst.guard, &psis) {
                        changed.args[i] = a;
                        projected += 1;
                    }
                }
            }
            if changed.op == MOp::Psi {
                psis.insert(
                    changed.defs[0],
                    (changed.uses.clone(), changed.psi_guards.clone()),
                );
            }
            *mf.inst_mut(id) = changed;
        }
    }
    if projected > 0 {
        crate::pcp::sweep::remove_dead_operations(mf);
    }
    projected
}
