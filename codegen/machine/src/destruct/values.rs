//! SSA values (thesis §3.5): `V(b) = V(a)` when `b` is defined by a copy `b ← a`,
//! otherwise `V(b) = b`. One traversal of the dominator tree in preorder: in strict
//! SSA the definition of a copy's source dominates the copy, so its value is known
//! when the copy is reached. "Same value" is an equivalence relation: a chain
//! `b ← a; c ← b` gives `a`, `b` and `c` one value.
//!
//! Copies are `Copy` and the pairs of a `ParallelCopy`, unguarded and between virtual
//! registers; block parameters (φ-definitions) and every other definition are values
//! of their own.

use cranelift_entity::EntityRef;
use vliw_ssa::DomTree;

use crate::mir::{MOp, MachFunction, VReg};
use crate::ssa_view::mblock;

/// `V(v)` for every virtual register, indexed by register.
pub fn value_numbers(mf: &MachFunction, dom: &DomTree) -> Vec<VReg> {
    let mut value: Vec<VReg> = (0..mf.vregs.len()).map(VReg::new).collect();
    for &b in dom.preorder() {
        for inst in mf.block_insts(mblock(b)) {
            if !matches!(inst.op, MOp::Copy | MOp::ParallelCopy) || !inst.guard.is_always() {
                continue;
            }
            for (d, s) in inst.defs.iter().zip(&inst.uses) {
                if let (Some(d), Some(s)) = (d.as_virtual(), s.as_virtual()) {
                    value[d.index()] = value[s.index()];
                }
            }
        }
    }
    value
}
