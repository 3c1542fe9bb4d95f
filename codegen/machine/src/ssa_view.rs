//! Machine SSA as `vliw-ssa` sees it: the control-flow graph of the block layout and the
//! virtual registers as variables, for liveness, dominance and loops.
//!
//! Blocks keep their indices (`MBlock` n is `vliw_ssa::Block` n; blocks out of the
//! layout have no edges and are unreachable). Virtual register n is variable n; physical
//! registers are not variables (their live ranges are short and handled where they
//! occur). A block's parameters are its φ-definitions; the arguments of its final `br`
//! are its φ-uses (instruction selection gives every edge that passes arguments its
//! own `br`). Every other read — guards, ordinary operands, `Psi` guards — is an
//! ordinary use.

use cranelift_entity::EntityRef;
use vliw_ssa::program::Access;
use vliw_ssa::{Block, Cfg, SsaProgram, Var};

use crate::mir::{MBlock, MInst, MachFunction, Reg, VReg};

/// The CFG of the function's layout; the entry is the first block.
pub fn cfg_of(mf: &MachFunction) -> Cfg {
    let mut succs: Vec<Vec<Block>> = vec![Vec::new(); mf.blocks.len()];
    for &b in &mf.layout {
        for inst in mf.block_insts(b) {
            for t in inst.branch_targets(mf) {
                succs[b.index()].push(Block::new(t.index()));
            }
        }
    }
    let entry = mf
        .layout
        .first()
        .map_or(Block::new(0), |b| Block::new(b.index()));
    Cfg::from_successors(entry, succs)
}

/// Each block's predecessors in `cfg` (the function's, `cfg_of`), by block index.
pub fn block_preds(mf: &MachFunction, cfg: &Cfg) -> Vec<Vec<MBlock>> {
    (0..mf.blocks.len())
        .map(|b| {
            cfg.preds(Block::new(b))
                .iter()
                .map(|&p| mblock(p))
                .collect()
        })
        .collect()
}

pub fn block(b: MBlock) -> Block {
    Block::new(b.index())
}

pub fn mblock(b: Block) -> MBlock {
    MBlock::new(b.index())
}

pub fn var(v: VReg) -> Var {
    Var::new(v.index())
}

pub fn vreg(v: Var) -> VReg {
    VReg::new(v.index())
}

/// The function as an [`SsaProgram`] (machine SSA: before leaving SSA).
pub struct SsaView<'a> {
    pub mf: &'a MachFunction,
}

fn is_phi_use_site(inst: &MInst) -> bool {
    !inst.args.is_empty()
}

impl SsaProgram for SsaView<'_> {
    fn var_count(&self) -> usize {
        self.mf.vregs.len()
    }

    fn for_each_phi_def(&self, b: Block, mut f: impl FnMut(Var)) {
        for &p in &self.mf.blocks[mblock(b)].params {
            f(var(p));
        }
    }

    fn for_each_access_backward(&self, b: Block, mut f: impl FnMut(Access)) {
        for inst in self.mf.block_insts(mblock(b)).rev() {
            for d in inst.defs.iter().filter_map(|r| r.as_virtual()) {
                f(Access::Def(var(d)));
            }
            let ordinary = core::iter::once(inst.guard.pred)
                .chain(inst.psi_guards.iter().map(|g| g.pred))
                .chain(inst.uses.iter().copied())
                .chain(inst.keep);
            for u in ordinary.filter_map(Reg::as_virtual) {
                f(Access::Use(var(u)));
            }
        }
    }

    fn for_each_phi_use(&self, b: Block, mut f: impl FnMut(Var)) {
        for inst in self.mf.block_insts(mblock(b)) {
            if is_phi_use_site(inst) {
                for a in inst.args.iter().filter_map(|r| r.as_virtual()) {
                    f(var(a));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vliw_ssa::{LiveSets, LivenessChecker, LoopForest, UseSite};

    #[test]
    fn live_sets_and_checks_of_machine_ssa() {
        let mf = crate::test_support::lost_copy();
        let cfg = cfg_of(&mf);
        assert_eq!(cfg.succs(Block::new(1)), &[Block::new(2), Block::new(3)]);
        let loops = LoopForest::compute(&cfg);
        assert_eq!(loops.loop_depth(Block::new(2)), 1);
        let sets = LiveSets::compute(&cfg, &loops, &SsaView { mf: &mf });
        let (v1, v2) = (Var::new(1), Var::new(2));
        // v1 is used after the loop; v2 only on the back edge.
        assert!(sets.is_live_out(Block::new(1), v1));
        assert!(sets.is_live_in(Block::new(3), v1));
        assert!(sets.is_live_in(Block::new(2), v2));
        assert!(!sets.is_live_in(Block::new(3), v2));
        assert!(!sets.is_live_in(Block::new(1), v2));
        let check = LivenessChecker::new(&cfg);
        let v2_uses = [UseSite::BlockEnd(Block::new(2))];
        assert!(check.is_live_in(Block::new(1), v2_uses, Block::new(2)));
        assert!(!check.is_live_in(Block::new(1), v2_uses, Block::new(3)));
    }
}
