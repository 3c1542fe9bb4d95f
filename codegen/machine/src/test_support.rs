//! Builders of machine IR shared by the unit tests of the passes that work on machine
//! SSA (`destruct`, `ssa_regalloc`).

use vliw_isa::Opcode;

use crate::mir::{Imm, MBlock, MInst, MachFunction, Reg, VReg};

/// A function `f` with `blocks` empty blocks in layout order.
pub fn func(blocks: usize) -> (MachFunction, Vec<MBlock>) {
    let mut mf = MachFunction::new("f", vliw_ir::Linkage::Export);
    let b: Vec<MBlock> = (0..blocks).map(|_| mf.new_block()).collect();
    mf.layout = b.clone();
    (mf, b)
}

/// `br t(args...)`.
pub fn br(t: MBlock, args: &[Reg]) -> MInst {
    let mut i = MInst::op(Opcode::Br, &[], &[], Imm::Block(t));
    i.args = args.to_vec();
    i
}

/// `d = movi c`.
pub fn movi(d: VReg, c: i64) -> MInst {
    MInst::op(Opcode::Movi, &[d.into()], &[], Imm::Const(c))
}

/// `d = add a, c` (immediate form).
pub fn addi(d: VReg, a: VReg, c: i64) -> MInst {
    MInst::op(Opcode::AddI, &[d.into()], &[a.into()], Imm::Const(c))
}
