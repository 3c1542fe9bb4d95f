//! What the rewrite leaves dead: pure operations nothing reads any more (the
//! operands of computations that became constants, the compares of branches that
//! were decided), and blocks no branch reaches any more.

use std::collections::HashMap;

use cranelift_entity::EntityRef;

use super::rewrite::is_pure;
use crate::mir::{MBlock, MachFunction, Reg};

/// Removes pure operations whose virtual definitions nothing reads, until none is
/// left; returns how many.
pub fn remove_dead_operations(mf: &mut MachFunction) -> usize {
    let mut uses: HashMap<Reg, usize> = HashMap::new();
    for inst in mf.layout_insts() {
        for r in inst.all_uses() {
            *uses.entry(r).or_default() += 1;
        }
    }
    let mut removed = 0;
    loop {
        let mut changed = false;
        for b in mf.layout.clone() {
            let ids = mf.block_inst_ids(b).to_vec();
            let mut keep = Vec::with_capacity(ids.len());
            for id in ids {
                let inst = mf.inst(id);
                let dead = is_pure(inst)
                    && inst
                        .defs
                        .iter()
                        .all(|d| d.as_virtual().is_none() || uses.get(d).is_none_or(|&n| n == 0));
                if dead {
                    for r in inst.all_uses() {
                        if let Some(n) = uses.get_mut(&r) {
                            *n = n.saturating_sub(1);
                        }
                    }
                    removed += 1;
                    changed = true;
                } else {
                    keep.push(id);
                }
            }
            mf.set_block_insts(b, keep);
        }
        if !changed {
            return removed;
        }
    }
}

/// Removes the blocks the entry does not reach from the layout (but those a jump
/// table names, and what they reach: emission needs their addresses); returns how
/// many.
pub fn remove_unreachable_blocks(mf: &mut MachFunction) -> usize {
    let Some(&entry) = mf.layout.first() else {
        return 0;
    };
    let mut keep = vec![false; mf.blocks.len()];
    let mut work: Vec<MBlock> = vec![entry];
    work.extend(mf.jump_tables.values().flatten().copied());
    while let Some(b) = work.pop() {
        if b.index() >= keep.len() || std::mem::replace(&mut keep[b.index()], true) {
            continue;
        }
        for inst in mf.block_insts(b) {
            work.extend(inst.branch_targets(mf));
        }
    }
    let before = mf.layout.len();
    mf.layout.retain(|b| keep[b.index()]);
    before - mf.layout.len()
}
