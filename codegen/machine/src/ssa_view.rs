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
                .chain(inst.uses.iter().copied());
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
    use crate::mir::{Imm, RegClass};
    use vliw_isa::Opcode;
    use vliw_ssa::{LiveSets, LivenessChecker, LoopForest, UseSite};

    /// block0: v0 = movi 1; br block1(v0)
    /// block1(v1): v2 = addw v1, 1; p = cmp.lt v2, r3; (p) br block2; br block3
    /// block2: br block1(v2)
    /// block3: r3 = copy v1; ret
    fn lost_copy() -> MachFunction {
        let mut mf = MachFunction::new("f", vliw_ir::Linkage::Export);
        let b: Vec<MBlock> = (0..4).map(|_| mf.new_block()).collect();
        mf.layout = b.clone();
        let v0 = mf.new_vreg(RegClass::Gpr);
        let v1 = mf.new_vreg(RegClass::Gpr);
        let v2 = mf.new_vreg(RegClass::Gpr);
        let p = mf.new_vreg(RegClass::Pred);
        let br = |t: MBlock, args: &[VReg]| {
            let mut i = MInst::op(Opcode::Br, &[], &[], Imm::Block(t));
            i.args = args.iter().map(|&a| Reg::Virtual(a)).collect();
            i
        };
        mf.set_block(
            b[0],
            vec![
                MInst::op(Opcode::Movi, &[v0.into()], &[], Imm::Const(1)),
                br(b[1], &[v0]),
            ],
        );
        mf.blocks[b[1]].params = vec![v1];
        mf.set_block(
            b[1],
            vec![
                MInst::op(Opcode::Addw, &[v2.into()], &[v1.into()], Imm::Const(1)),
                MInst::op(
                    Opcode::CmpLt,
                    &[p.into(), Reg::P0],
                    &[v2.into(), Reg::gpr(3)],
                    Imm::None,
                ),
                br(b[2], &[]).with_guard(crate::mir::MGuard::new(p.into(), false)),
                br(b[3], &[]),
            ],
        );
        mf.set_block(b[2], vec![br(b[1], &[v2])]);
        mf.set_block(
            b[3],
            vec![
                MInst::copy(Reg::gpr(3), v1.into()),
                MInst::op(Opcode::Ret, &[], &[], Imm::None),
            ],
        );
        mf
    }

    #[test]
    fn live_sets_and_checks_of_machine_ssa() {
        let mf = lost_copy();
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
