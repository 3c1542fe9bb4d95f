//! What the rewrite leaves dead: pure operations nothing reads any more (the
//! operands of computations that became constants, the compares of branches that
//! were decided), and blocks no branch reaches any more.

use cranelift_entity::EntityRef;

use super::rewrite::is_pure;
use crate::mir::{Imm, MBlock, MachFunction};

/// Removes pure operations whose virtual definitions nothing reads, until none is
/// left; returns how many.
pub fn remove_dead_operations(mf: &mut MachFunction) -> usize {
    let mut uses = mf.read_counts();
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

/// Removes the blocks the entry does not reach from the layout, and empties the jump
/// tables only unreachable operations named (their blocks need no address; a later
/// pass could merge them away); returns how many blocks. A table still named by a
/// reachable `addpc` keeps its blocks, and what they reach, even if its `jr` went
/// (emission needs their addresses).
pub fn remove_unreachable_blocks(mf: &mut MachFunction) -> usize {
    let Some(&entry) = mf.layout.first() else {
        return 0;
    };
    let mut keep = vec![false; mf.blocks.len()];
    let mut named = vec![false; mf.jump_tables.len()];
    let mut work: Vec<MBlock> = vec![entry];
    while let Some(b) = work.pop() {
        if b.index() >= keep.len() || std::mem::replace(&mut keep[b.index()], true) {
            continue;
        }
        for inst in mf.block_insts(b) {
            if let Imm::JumpTable(jt) = inst.imm
                && !std::mem::replace(&mut named[jt.index()], true)
            {
                work.extend(mf.jump_tables[jt].iter().copied());
            }
            work.extend(inst.branch_targets(mf));
        }
    }
    for (jt, targets) in mf.jump_tables.iter_mut() {
        if !named[jt.index()] {
            targets.clear();
        }
    }
    let before = mf.layout.len();
    mf.layout.retain(|b| keep[b.index()]);
    before - mf.layout.len()
}

#[cfg(test)]
mod tests {
    use crate::mir::{MachFunction, Phase};

    /// A table emptied because its `jr` became unreachable prints and parses back.
    #[test]
    fn an_emptied_jump_table_round_trips() {
        let text = "machine function @f export {
    jt0 = [block1]
block0:
    br block2
block1:
    ret
block3:
    v0 = addpc jt0
    jr v0, jt0
block2:
    ret
}
";
        let mut mf = MachFunction::parse(text).unwrap();
        assert_eq!(super::remove_unreachable_blocks(&mut mf), 2);
        let out = mf.to_string();
        assert!(out.contains("jt0 = []"), "{out}");
        let back = MachFunction::parse(&out).unwrap();
        back.verify(Phase::Ssa).unwrap();
        assert_eq!(back.to_string(), out);
    }
}
