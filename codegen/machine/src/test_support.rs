//! Builders of machine IR shared by the unit tests of the passes and analyses that
//! work on machine SSA (`destruct`, `ssa_regalloc`, `ssa_view`, `analysis_timing`),
//! and the random generator of their randomized tests (`destruct`, `sink_common`).

use vliw_isa::Opcode;

use crate::mir::{Imm, MBlock, MInst, MachFunction, Reg, VReg};

/// A small deterministic random generator (xorshift): the same seed gives the same
/// functions on every machine.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (not 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

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

/// The lost-copy problem in machine SSA (`v1` is read after the loop whose back edge
/// passes `v2` to it):
///
/// ```text
/// block0: v0 = movi 1; br block1(v0)
/// block1(v1): v2 = addw v1, 1; pv3 = cmp.lt v2, r3; (pv3) br block2; br block3
/// block2: br block1(v2)
/// block3: r3 = copy v1; ret
/// ```
pub fn lost_copy() -> MachFunction {
    let mut mf = MachFunction::new("f", vliw_ir::Linkage::Export);
    let b: Vec<MBlock> = (0..4).map(|_| mf.new_block()).collect();
    mf.layout = b.clone();
    let v: Vec<VReg> = (0..3)
        .map(|_| mf.new_vreg(crate::mir::RegClass::Gpr))
        .collect();
    let p = mf.new_vreg(crate::mir::RegClass::Pred);
    mf.set_block(b[0], vec![movi(v[0], 1), br(b[1], &[v[0].into()])]);
    mf.blocks[b[1]].params = vec![v[1]];
    mf.set_block(
        b[1],
        vec![
            MInst::op(Opcode::Addw, &[v[2].into()], &[v[1].into()], Imm::Const(1)),
            MInst::op(
                Opcode::CmpLt,
                &[p.into(), Reg::P0],
                &[v[2].into(), Reg::gpr(3)],
                Imm::None,
            ),
            br(b[2], &[]).with_guard(crate::mir::MGuard::new(p.into(), false)),
            br(b[3], &[]),
        ],
    );
    mf.set_block(b[2], vec![br(b[1], &[v[2].into()])]);
    mf.set_block(
        b[3],
        vec![
            MInst::copy(Reg::gpr(3), v[1].into()),
            MInst::op(Opcode::Ret, &[], &[], Imm::None),
        ],
    );
    mf
}
