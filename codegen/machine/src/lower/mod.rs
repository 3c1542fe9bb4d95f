//! Instruction selection and legalization: `vliw_ir::Function` to machine SSA.
//!
//! Each IR value maps to registers in its *canonical form* (`docs/machine.md`):
//! - integers of 8, 16 and 32 bits: sign-extended from their width to 64 bits (this
//!   also keeps unsigned order, so unsigned compares need no extension);
//! - `i1`: 0 or 1 in a general register, and/or a predicate (compares produce
//!   predicates; a `p2r` gives the 0/1 form where a register is needed);
//! - `i64`, `ptr`, `f64`: the 64 bits;
//! - `f32`: the low 32 bits, upper 32 bits zero;
//! - `i128`: two registers, low word and high word.
//!
//! Constants are not materialized at their definition but at each use (a `movi`, or
//! an immediate operand when the operation has an immediate form), so they never
//! occupy a register across blocks.
//!
//! The submodules lower groups of opcodes: `int` (integers up to 64 bits), `wide`
//! (`i128`), `float`, `mem` (loads, stores, atomics, memcpy), `control` (branches,
//! switches, calls, returns, traps).

mod control;
mod float;
mod int;
mod mem;
mod wide;

use cranelift_entity::EntityRef;
use vliw_ir::{
    Block, Function, Inst, InstructionData, Module, Opcode as IrOp, SourceLoc, Type, Value,
};
use vliw_isa::{CmpType, Opcode};

use crate::abi::{self, Loc};
use crate::error::CompileError;
use crate::mir::{
    FrameSlot, FrameSlotKind, Imm, MBlock, MGuard, MInst, MachFunction, PReg, Reg, RegClass,
};
use crate::options::Options;

/// Trap codes of the traps the compiler inserts (`trap N` of the IR keeps its own
/// code N < 0x10000).
pub mod trap_code {
    /// `unreachable`.
    pub const UNREACHABLE: i64 = 0x1_0000;
    /// Integer division or remainder by zero.
    pub const DIVISION_BY_ZERO: i64 = 0x1_0001;
    /// Signed division or remainder of the minimum by -1.
    pub const INTEGER_OVERFLOW: i64 = 0x1_0002;
}

/// The registers holding an IR value: one register, or two (low, high) for `i128`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Regs {
    One(Reg),
    Two(Reg, Reg),
}

impl Regs {
    pub(crate) fn words(self) -> Vec<Reg> {
        match self {
            Regs::One(r) => vec![r],
            Regs::Two(lo, hi) => vec![lo, hi],
        }
    }

    pub(crate) fn one(self) -> Reg {
        match self {
            Regs::One(r) => r,
            Regs::Two(lo, _) => lo,
        }
    }

    pub(crate) fn two(self) -> (Reg, Reg) {
        match self {
            Regs::Two(lo, hi) => (lo, hi),
            Regs::One(r) => (r, Reg::ZERO),
        }
    }
}

/// The lowering of one function.
pub(crate) struct Lower<'a> {
    #[allow(dead_code)]
    pub(crate) module: &'a Module,
    pub(crate) func: &'a Function,
    pub(crate) opts: &'a Options,
    pub(crate) mf: MachFunction,
    /// General-register form of each value.
    regs: Vec<Option<Regs>>,
    /// Predicate form of `i1` values made by compares.
    preds: Vec<Option<Reg>>,
    /// Constants (`iconst`, `f32const`, `f64const`): the bits, masked to the type.
    consts: Vec<Option<u128>>,
    /// Whether an `i1` value is used where a general register is needed.
    needs_gpr: Vec<bool>,
    /// Whether an `i1` value is used as a branch or select condition.
    needs_pred: Vec<bool>,
    /// How many times each value is read, as lowered: a store of a narrowed value
    /// reads what was narrowed instead ([`Lower::stored_value`]). A conversion read
    /// by nothing is not lowered.
    reads: Vec<u32>,
    /// Loads of `i8`, `i16` or `i32` that only `uextend`s read: loaded zero-extended
    /// (`ld.bu`, `ld.hu`, `ld.wu`), which is each `uextend`'s value already.
    zext_loads: Vec<bool>,
    /// Machine block of each IR block.
    block_map: Vec<Option<MBlock>>,
    /// The block being filled.
    pub(crate) cur: MBlock,
    /// Blocks made while lowering the current IR block, laid out after it.
    pending_blocks: Vec<MBlock>,
    /// Source location of the IR instruction being lowered.
    loc: SourceLoc,
    /// The alias scope of the IR access being lowered: its loads and stores get it.
    scope: Option<vliw_ir::AliasScope>,
    /// The loads pushed are speculative (`lds`): the IR load being lowered is.
    speculative: bool,
    /// Frame slot of each IR stack slot.
    ir_slots: Vec<FrameSlot>,
    /// The landing pad of the next call lowered (an `invoke`'s).
    pub(crate) unwind_to: Option<crate::mir::Unwind>,
    /// Per IR landing block with parameters: the machine parameters that receive the
    /// exception and selector (its unwind edges enter edge blocks, which jump to it).
    pub(crate) pad_params: Vec<Option<[Reg; 2]>>,
    /// Blocks laid out at the end of the function: the edge blocks of unwind edges,
    /// off the path that does not unwind.
    pub(crate) cold_blocks: Vec<MBlock>,
}

/// Lowers one function to machine SSA.
pub fn lower_function(
    module: &Module,
    func: &Function,
    opts: &Options,
) -> Result<MachFunction, CompileError> {
    let mut mf = MachFunction::new(&func.name, func.linkage);
    mf.files = func.files.clone();
    mf.personality = func.personality.clone();
    let nvals = func.dfg.num_values();
    let entry = func
        .layout
        .entry_block()
        .ok_or_else(|| CompileError::new(&func.name, "the function has no blocks"))?;
    let mut ir_slots = Vec::with_capacity(func.stack_slots.len());
    for (ss, d) in func.stack_slots.iter() {
        ir_slots.push(mf.new_slot(d.size, d.align.max(1), FrameSlotKind::Ir(ss)));
    }
    let mut lower = Lower {
        module,
        func,
        opts,
        mf,
        regs: vec![None; nvals],
        preds: vec![None; nvals],
        consts: vec![None; nvals],
        needs_gpr: vec![false; nvals],
        needs_pred: vec![false; nvals],
        reads: vec![0; nvals],
        zext_loads: vec![false; nvals],
        block_map: vec![None; func.dfg.num_blocks()],
        cur: MBlock::new(0),
        pending_blocks: Vec::new(),
        loc: SourceLoc::default(),
        scope: None,
        speculative: false,
        ir_slots,
        unwind_to: None,
        pad_params: vec![None; func.dfg.num_blocks()],
        cold_blocks: Vec::new(),
    };
    lower.scan_uses();
    // machine blocks and their parameters first, so that branches can name them
    for b in func.layout.blocks() {
        let mb = lower.mf.new_block();
        lower.block_map[b.index()] = Some(mb);
        if b != entry {
            for &p in func.dfg.block_params(b) {
                let ty = func.dfg.value_type(p);
                let words: Vec<Reg> = (0..abi::words_of(ty)).map(|_| lower.vreg()).collect();
                for w in &words {
                    lower.mf.blocks[mb]
                        .params
                        .push(w.as_virtual().expect("virtual"));
                }
                lower.regs[p.index()] = Some(if words.len() == 2 {
                    Regs::Two(words[0], words[1])
                } else {
                    Regs::One(words[0])
                });
            }
            // a landing block with parameters receives the exception and selector
            // as two more, from the edge blocks of its unwind edges
            let is_pad = func
                .layout
                .first_inst(b)
                .is_some_and(|i| func.dfg.opcode(i).is_landing_pad());
            if is_pad && !func.dfg.block_params(b).is_empty() {
                let pair = [lower.vreg(), lower.vreg()];
                for w in pair {
                    lower.mf.blocks[mb]
                        .params
                        .push(w.as_virtual().expect("virtual"));
                }
                lower.pad_params[b.index()] = Some(pair);
            }
        }
    }
    // Lower in reverse postorder, so that every value is lowered before its uses
    // (the layout need not follow dominance); unreachable blocks are dropped. The
    // machine layout follows the IR layout, each block followed by the blocks its
    // lowering made.
    let domtree = vliw_ir::DominatorTree::compute(func);
    let mut extra: Vec<Vec<MBlock>> = vec![Vec::new(); func.dfg.num_blocks()];
    for &b in domtree.rpo() {
        let mb = lower.block_map[b.index()].expect("mapped");
        lower.cur = mb;
        if b == entry {
            lower.entry_params(b);
        }
        for inst in func.layout.block_insts(b) {
            lower.loc = func.srclocs[inst];
            lower.inst(inst)?;
        }
        extra[b.index()] = core::mem::take(&mut lower.pending_blocks);
    }
    for b in func.layout.blocks() {
        if domtree.is_reachable(b) {
            lower
                .mf
                .layout
                .push(lower.block_map[b.index()].expect("mapped"));
            lower.mf.layout.extend(extra[b.index()].iter().copied());
        }
    }
    let cold = core::mem::take(&mut lower.cold_blocks);
    lower.mf.layout.extend(cold);
    Ok(lower.mf)
}

impl<'a> Lower<'a> {
    pub(crate) fn err(&self, msg: impl Into<String>) -> CompileError {
        CompileError::new(&self.func.name, msg)
    }

    /// Records for every `i1` value whether it is needed as a predicate (branch and
    /// select conditions) and/or in a general register (everything else).
    fn scan_uses(&mut self) {
        let dfg = &self.func.dfg;
        for (_, inst) in self.func.insts_in_layout() {
            let data = dfg.inst_data(inst);
            let pred_arg = match data {
                InstructionData::Brif { arg, .. } => Some(*arg),
                InstructionData::Ternary {
                    opcode: IrOp::Select,
                    args,
                    ..
                } => Some(args[0]),
                _ => None,
            };
            // predicate logic reads its `i1` operands as predicates
            let logic = match data {
                InstructionData::Binary {
                    opcode: IrOp::Band | IrOp::Bor | IrOp::Bxor,
                    args,
                } => dfg.value_type(args[0]) == Type::I1,
                InstructionData::Unary {
                    opcode: IrOp::Bnot,
                    arg,
                } => dfg.value_type(*arg) == Type::I1,
                _ => false,
            };
            for (i, v) in data.all_values().enumerate() {
                if logic || (i == 0 && pred_arg == Some(v)) {
                    self.needs_pred[v.index()] = true;
                } else {
                    self.needs_gpr[v.index()] = true;
                }
            }
        }
        // what each value is read by, as lowered
        let mut uextend_reads = vec![0u32; self.reads.len()];
        for (_, inst) in self.func.insts_in_layout() {
            let data = dfg.inst_data(inst);
            let stored = matches!(data.opcode(), IrOp::Store).then(|| data.all_values().next());
            for (i, v) in data.all_values().enumerate() {
                let v = match stored {
                    Some(Some(s)) if i == 0 && s == v => self.stored_value(v),
                    _ => v,
                };
                self.reads[v.index()] += 1;
                if data.opcode() == IrOp::Uextend {
                    uextend_reads[v.index()] += 1;
                }
            }
        }
        for (_, inst) in self.func.insts_in_layout() {
            if dfg.inst_data(inst).opcode() != IrOp::Load {
                continue;
            }
            let v = dfg.first_result(inst);
            let n = self.reads[v.index()];
            self.zext_loads[v.index()] =
                matches!(dfg.value_type(v), Type::I8 | Type::I16 | Type::I32)
                    && n > 0
                    && uextend_reads[v.index()] == n;
        }
    }

    /// What a store of `v` writes: a store writes the low bits of its register, which
    /// a narrowed value shares with what it was narrowed from, so the store reads that
    /// instead (and the narrowing, read by nothing else, is not lowered).
    pub(crate) fn stored_value(&self, v: Value) -> Value {
        let dfg = &self.func.dfg;
        let vliw_ir::ValueDef::Result(inst, _) = dfg.value_def(v) else {
            return v;
        };
        match dfg.inst_data(inst) {
            InstructionData::Unary {
                opcode: IrOp::Ireduce,
                arg,
            } if dfg.value_type(*arg).bits() <= 64 => *arg,
            _ => v,
        }
    }

    /// Whether `v` was loaded zero-extended (see `zext_loads`).
    pub(crate) fn is_zext_load(&self, v: Value) -> bool {
        self.zext_loads[v.index()]
    }

    // ---- registers and emission ----

    /// Copies of the exception registers, where the personality routine put the
    /// exception and the selector (`_Unwind_SetGR`): the first operations of a block
    /// that unwind edges enter.
    pub(crate) fn exception_copies(&mut self) -> [Reg; 2] {
        vliw_isa::abi::EXCEPTION_REGS.map(|from| {
            let d = self.vreg();
            self.push(MInst::copy(d, Reg::gpr(from)));
            d
        })
    }

    pub(crate) fn vreg(&mut self) -> Reg {
        Reg::Virtual(self.mf.new_vreg(RegClass::Gpr))
    }

    pub(crate) fn preg(&mut self) -> Reg {
        Reg::Virtual(self.mf.new_vreg(RegClass::Pred))
    }

    pub(crate) fn push(&mut self, mut inst: MInst) {
        inst.loc = self.loc;
        if inst.is_memory_access() {
            inst.scope = self.scope;
        }
        self.mf.push_inst(self.cur, inst);
    }

    /// A new block, laid out after the current IR block's blocks.
    pub(crate) fn new_block(&mut self) -> MBlock {
        let b = self.mf.new_block();
        self.pending_blocks.push(b);
        b
    }

    pub(crate) fn machine_block(&self, b: Block) -> MBlock {
        self.block_map[b.index()].expect("every IR block has a machine block")
    }

    /// `rd = op rs1, rs2`.
    pub(crate) fn rr(&mut self, op: Opcode, a: Reg, b: Reg) -> Reg {
        let d = self.vreg();
        self.push(MInst::op(op, &[d], &[a, b], Imm::None));
        d
    }

    /// `rd = op rs1, imm`.
    pub(crate) fn ri(&mut self, op: Opcode, a: Reg, imm: i64) -> Reg {
        let d = self.vreg();
        self.push(MInst::op(op, &[d], &[a], Imm::Const(imm)));
        d
    }

    /// `rd = op rs1`.
    pub(crate) fn r1(&mut self, op: Opcode, a: Reg) -> Reg {
        let d = self.vreg();
        self.push(MInst::op(op, &[d], &[a], Imm::None));
        d
    }

    /// `rd = op rs1, rs2, rs3`.
    pub(crate) fn r3(&mut self, op: Opcode, a: Reg, b: Reg, c: Reg) -> Reg {
        let d = self.vreg();
        self.push(MInst::op(op, &[d], &[a, b, c], Imm::None));
        d
    }

    /// A register holding `c` (`r0` for 0).
    pub(crate) fn movi(&mut self, c: i64) -> Reg {
        if c == 0 {
            return Reg::ZERO;
        }
        let d = self.vreg();
        self.push(MInst::op(Opcode::Movi, &[d], &[], Imm::Const(c)));
        d
    }

    /// A predicate that is true when the register compare `op` of `a` and `b` holds.
    pub(crate) fn cmp(&mut self, op: Opcode, a: Reg, b: Reg) -> Reg {
        let p = self.preg();
        self.push(MInst::op(op, &[p, Reg::P0], &[a, b], Imm::None));
        p
    }

    /// A predicate that is true when the register compare `op` of `a` and `b` does
    /// *not* hold (the compare's second destination).
    pub(crate) fn cmp_not(&mut self, op: Opcode, a: Reg, b: Reg) -> Reg {
        let p = self.preg();
        self.push(MInst::op(op, &[Reg::P0, p], &[a, b], Imm::None));
        p
    }

    /// A predicate that is true when the immediate compare `op` of `a` and `imm` holds.
    pub(crate) fn cmpi(&mut self, op: Opcode, a: Reg, imm: i64) -> Reg {
        let p = self.preg();
        self.push(MInst::op(op, &[p, Reg::P0], &[a], Imm::Const(imm)));
        p
    }

    /// Predicate logic `pd = op ps1, ps2`.
    pub(crate) fn plogic(&mut self, op: Opcode, a: Reg, b: Reg) -> Reg {
        let p = self.preg();
        self.push(MInst::op(op, &[p], &[a, b], Imm::None));
        p
    }

    pub(crate) fn pnot(&mut self, a: Reg) -> Reg {
        let p = self.preg();
        self.push(MInst::op(Opcode::Pnot, &[p], &[a], Imm::None));
        p
    }

    /// 0 or 1 from a predicate.
    pub(crate) fn p2r(&mut self, p: Reg) -> Reg {
        let d = self.vreg();
        self.push(MInst::op(Opcode::P2r, &[d], &[p], Imm::None));
        d
    }

    /// A predicate that is true when `r` is not zero.
    pub(crate) fn r2p(&mut self, r: Reg) -> Reg {
        let p = self.preg();
        self.push(MInst::op(Opcode::R2p, &[p], &[r], Imm::None));
        p
    }

    /// `p ? a : b`.
    pub(crate) fn sel(&mut self, p: Reg, a: Reg, b: Reg) -> Reg {
        let d = self.vreg();
        self.push(MInst::op(Opcode::Sel, &[d], &[p, a, b], Imm::None));
        d
    }

    /// `(p) trap code`.
    pub(crate) fn trap_if(&mut self, p: Reg, code: i64) {
        self.push(
            MInst::op(Opcode::Trap, &[], &[], Imm::Const(code)).with_guard(MGuard::new(p, false)),
        );
    }

    // ---- canonical forms ----

    /// Sign-extends from bit `bits - 1` (for `bits` = 1: 0/1 to 0/-1).
    pub(crate) fn sext_in(&mut self, bits: u32, r: Reg) -> Reg {
        match bits {
            1 => {
                let t = self.ri(Opcode::AndI, r, 1);
                self.ri(Opcode::SubI, t, 0)
            }
            8 => self.r1(Opcode::Sxtb, r),
            16 => self.r1(Opcode::Sxth, r),
            32 => self.r1(Opcode::Sxtw, r),
            _ => r,
        }
    }

    /// Zero-extends from bit `bits - 1`.
    pub(crate) fn zext_in(&mut self, bits: u32, r: Reg) -> Reg {
        match bits {
            1 => self.ri(Opcode::AndI, r, 1),
            8 => self.r1(Opcode::Zxtb, r),
            16 => self.r1(Opcode::Zxth, r),
            32 => self.r1(Opcode::Zxtw, r),
            _ => r,
        }
    }

    /// Brings the low bits of `r` into the canonical form of `ty` (≤ 64 bits).
    pub(crate) fn canon(&mut self, ty: Type, r: Reg) -> Reg {
        match ty {
            Type::I1 => self.ri(Opcode::AndI, r, 1),
            Type::I8 | Type::I16 | Type::I32 => self.sext_in(ty.bits(), r),
            Type::F32 => self.r1(Opcode::Zxtw, r),
            _ => r,
        }
    }

    /// The signed (sign-extended) reading of a canonical value.
    pub(crate) fn signed(&mut self, ty: Type, r: Reg) -> Reg {
        if ty == Type::I1 {
            self.ri(Opcode::SubI, r, 0)
        } else {
            r
        }
    }

    /// The unsigned (zero-extended) reading of a canonical value.
    pub(crate) fn unsigned(&mut self, ty: Type, r: Reg) -> Reg {
        match ty {
            Type::I1 | Type::I64 | Type::Ptr => r,
            _ => self.zext_in(ty.bits(), r),
        }
    }

    // ---- IR values ----

    pub(crate) fn ty(&self, v: Value) -> Type {
        self.func.dfg.value_type(v)
    }

    /// The constant bits of `v`, if it is a constant.
    pub(crate) fn const_of(&self, v: Value) -> Option<u128> {
        self.consts[v.index()]
    }

    /// The canonical 64-bit value of an integer (or pointer) constant of up to 64 bits.
    pub(crate) fn const_i64(&self, v: Value) -> Option<i64> {
        let c = self.const_of(v)?;
        let ty = self.ty(v);
        if ty == Type::I128 || ty.is_float() {
            return None;
        }
        Some(canonical_const(ty, c) as i64)
    }

    /// The constant of `v` if it fits a 32-bit immediate field.
    pub(crate) fn imm32(&self, v: Value) -> Option<i64> {
        self.const_i64(v).filter(|c| i32::try_from(*c).is_ok())
    }

    /// The registers of `v` (materializing a constant at this point).
    pub(crate) fn get(&mut self, v: Value) -> Regs {
        if let Some(r) = self.regs[v.index()] {
            return r;
        }
        if let Some(c) = self.consts[v.index()] {
            let ty = self.ty(v);
            if ty == Type::I128 {
                let lo = self.movi(c as u64 as i64);
                let hi = self.movi((c >> 64) as u64 as i64);
                return Regs::Two(lo, hi);
            }
            return Regs::One(self.movi(canonical_const(ty, c) as i64));
        }
        if let Some(p) = self.preds[v.index()] {
            return Regs::One(self.p2r(p));
        }
        // A value never defined (unreachable code, or a bug): zero.
        Regs::One(Reg::ZERO)
    }

    pub(crate) fn get1(&mut self, v: Value) -> Reg {
        self.get(v).one()
    }

    pub(crate) fn get2(&mut self, v: Value) -> (Reg, Reg) {
        self.get(v).two()
    }

    /// The predicate register the `i1` value `v` was defined from, if it was.
    pub(crate) fn pred_of(&self, v: Value) -> Option<Reg> {
        self.preds[v.index()]
    }

    /// The value `v` is a `uextend` or `sextend` of, if it is one.
    pub(crate) fn widened_from(&self, v: Value) -> Option<Value> {
        let vliw_ir::ValueDef::Result(inst, _) = self.func.dfg.value_def(v) else {
            return None;
        };
        match self.func.dfg.opcode(inst) {
            IrOp::Uextend | IrOp::Sextend => Some(self.func.dfg.inst_args(inst)[0]),
            _ => None,
        }
    }

    /// A predicate register that is true when the `i1` value `v` is 1.
    pub(crate) fn get_pred(&mut self, v: Value) -> Reg {
        if let Some(p) = self.preds[v.index()] {
            return p;
        }
        if let Some(c) = self.consts[v.index()] {
            return if c & 1 != 0 {
                Reg::P0
            } else {
                self.pnot(Reg::P0)
            };
        }
        let r = self.get1(v);
        self.r2p(r)
    }

    pub(crate) fn def(&mut self, v: Value, r: Regs) {
        self.regs[v.index()] = Some(r);
    }

    pub(crate) fn def1(&mut self, v: Value, r: Reg) {
        self.regs[v.index()] = Some(Regs::One(r));
    }

    pub(crate) fn def2(&mut self, v: Value, lo: Reg, hi: Reg) {
        self.regs[v.index()] = Some(Regs::Two(lo, hi));
    }

    /// Defines the `i1` value `v` from a predicate: the predicate where a condition is
    /// needed, a `p2r` where a register is.
    pub(crate) fn def_pred(&mut self, v: Value, p: Reg) {
        self.preds[v.index()] = Some(p);
        if self.needs_gpr[v.index()] {
            let r = self.p2r(p);
            self.def1(v, r);
        }
    }

    /// The entry block's parameters from the argument registers and stack words.
    fn entry_params(&mut self, entry: Block) {
        let params: Vec<Value> = self.func.dfg.block_params(entry).to_vec();
        let types: Vec<Type> = params.iter().map(|&p| self.ty(p)).collect();
        let layout = abi::call_layout(&types, &self.func.signature.returns);
        for (p, locs) in params.iter().zip(&layout.args) {
            let mut words = Vec::new();
            for loc in locs {
                let d = self.vreg();
                match *loc {
                    Loc::Reg(r) => self.push(MInst::copy(d, Reg::Physical(PReg::Gpr(r)))),
                    Loc::Stack(off) => self.push(MInst::op(
                        Opcode::LdD,
                        &[d],
                        &[Reg::SP],
                        Imm::IncomingArg(off as i64),
                    )),
                }
                words.push(d);
            }
            if words.len() == 2 {
                self.def2(*p, words[0], words[1]);
            } else {
                self.def1(*p, words[0]);
            }
        }
    }

    /// A frame slot for an IR stack slot.
    pub(crate) fn ir_slot(&self, ss: vliw_ir::StackSlot) -> FrameSlot {
        self.ir_slots[ss.index()]
    }

    // ---- dispatch ----

    fn inst(&mut self, inst: Inst) -> Result<(), CompileError> {
        let dfg = &self.func.dfg;
        let data = dfg.inst_data(inst).clone();
        let results: Vec<Value> = dfg.inst_results(inst).to_vec();
        let op = data.opcode();
        // a conversion nothing reads (a store reads what was narrowed instead)
        if matches!(op, IrOp::Ireduce | IrOp::Uextend | IrOp::Sextend)
            && results.iter().all(|r| self.reads[r.index()] == 0)
        {
            return Ok(());
        }
        match &data {
            InstructionData::UnaryImm { imm, .. } => {
                let ty = self.ty(results[0]);
                self.consts[results[0].index()] = Some(*imm & ty.mask());
                Ok(())
            }
            InstructionData::Nullary {
                opcode: IrOp::Undef,
            } => {
                let ty = self.ty(results[0]);
                if ty == Type::I128 {
                    self.def2(results[0], Reg::ZERO, Reg::ZERO);
                } else {
                    self.def1(results[0], Reg::ZERO);
                }
                Ok(())
            }
            InstructionData::SymbolAddr {
                opcode: IrOp::TlsAddr,
                global,
                offset,
            } => {
                // Local exec: tp + the variable's offset in the TLS image.
                let name = self.func.globals[*global].clone();
                let d = self.vreg();
                self.push(MInst::op(
                    Opcode::AddI,
                    &[d],
                    &[Reg::TP],
                    Imm::TpRel {
                        name,
                        addend: *offset,
                    },
                ));
                self.def1(results[0], d);
                Ok(())
            }
            InstructionData::SymbolAddr { global, offset, .. } => {
                let name = self.func.globals[*global].clone();
                let d = self.vreg();
                self.push(MInst::op(
                    Opcode::Addpc,
                    &[d],
                    &[],
                    Imm::Symbol {
                        name,
                        addend: *offset,
                    },
                ));
                self.def1(results[0], d);
                Ok(())
            }
            InstructionData::StackAddr { slot, offset, .. } => {
                let fs = self.ir_slot(*slot);
                let d = self.vreg();
                self.push(MInst::op(
                    Opcode::AddI,
                    &[d],
                    &[Reg::SP],
                    Imm::Slot {
                        slot: fs,
                        offset: *offset,
                    },
                ));
                self.def1(results[0], d);
                Ok(())
            }
            _ if op.is_terminator() || op.is_call() => self.lower_control(inst, &data, &results),
            _ if op.is_landing_pad() => {
                let block = self.func.layout.inst_block(inst).expect("in the layout");
                if let Some(pair) = self.pad_params[block.index()] {
                    // received from the edge blocks (`Lower::unwind_edge`)
                    for (&r, w) in results.iter().zip(pair) {
                        self.def1(r, w);
                    }
                    return Ok(());
                }
                for (&r, d) in results.iter().zip(self.exception_copies()) {
                    self.def1(r, d);
                }
                Ok(())
            }
            _ if matches!(
                op,
                IrOp::Load
                    | IrOp::Store
                    | IrOp::Memcpy
                    | IrOp::Memmove
                    | IrOp::Memset
                    | IrOp::AtomicLoad
                    | IrOp::AtomicStore
                    | IrOp::AtomicRmw
                    | IrOp::AtomicCas
                    | IrOp::Fence
            ) =>
            {
                self.lower_mem(&data, &results)
            }
            InstructionData::Ternary {
                opcode: IrOp::Select,
                args,
                ..
            } => {
                let p = self.get_pred(args[0]);
                let ty = self.ty(results[0]);
                if ty == Type::I128 {
                    let (a0, a1) = self.get2(args[1]);
                    let (b0, b1) = self.get2(args[2]);
                    let lo = self.sel(p, a0, b0);
                    let hi = self.sel(p, a1, b1);
                    self.def2(results[0], lo, hi);
                } else if ty == Type::I1 && !self.needs_gpr[results[0].index()] {
                    // a select of conditions: stay in predicates
                    let a = self.get_pred(args[1]);
                    let b = self.get_pred(args[2]);
                    let t = self.plogic(Opcode::Pand, p, a);
                    let e = self.plogic(Opcode::Pandn, b, p);
                    let r = self.plogic(Opcode::Por, t, e);
                    self.def_pred(results[0], r);
                } else {
                    let a = self.get1(args[1]);
                    let b = self.get1(args[2]);
                    let r = self.sel(p, a, b);
                    self.def1(results[0], r);
                }
                Ok(())
            }
            _ => {
                let ty = match data.arguments().first() {
                    Some(&a) => self.ty(a),
                    None => self.ty(results[0]),
                };
                let float = ty.is_float()
                    || matches!(op, IrOp::FcvtFromSint | IrOp::FcvtFromUint)
                    || matches!(op, IrOp::Bitcast if self.ty(results[0]).is_float());
                if float || op == IrOp::Fcmp {
                    self.lower_float(&data, &results)
                } else if ty == Type::I128 || results.iter().any(|&r| self.ty(r) == Type::I128) {
                    self.lower_wide(&data, &results)
                } else {
                    self.lower_int(&data, &results)
                }
            }
        }
    }

    // ---- calls ----

    /// Calls `callee` (a symbol, or an address in a register) with the words of
    /// `args` (values of `arg_types`), returning the registers of results of
    /// `ret_types`.
    pub(crate) fn call(
        &mut self,
        callee: Result<&str, Reg>,
        arg_types: &[Type],
        args: &[Regs],
        ret_types: &[Type],
    ) -> Vec<Regs> {
        let layout = abi::call_layout(arg_types, ret_types);
        self.mf.outgoing_words = self.mf.outgoing_words.max(layout.outgoing_words());
        let mut reg_copies = Vec::new();
        for (regs, locs) in args.iter().zip(&layout.args) {
            for (w, loc) in regs.words().into_iter().zip(locs) {
                match *loc {
                    Loc::Reg(r) => reg_copies.push((PReg::Gpr(r), w)),
                    Loc::Stack(off) => self.push(MInst::op(
                        Opcode::StD,
                        &[],
                        &[Reg::SP, w],
                        Imm::Const(off as i64),
                    )),
                }
            }
        }
        let mut implicit_uses = Vec::with_capacity(reg_copies.len());
        for (p, w) in reg_copies {
            self.push(MInst::copy(Reg::Physical(p), w));
            implicit_uses.push(p);
        }
        let mut call = match callee {
            Ok(name) => MInst::op(
                Opcode::Call,
                &[],
                &[],
                Imm::Symbol {
                    name: name.to_string(),
                    addend: 0,
                },
            ),
            Err(r) => MInst::op(Opcode::Callr, &[], &[r], Imm::None),
        };
        call.implicit_uses = implicit_uses;
        call.implicit_defs = abi::caller_saved();
        call.unwind = self.unwind_to.take();
        self.push(call);
        let mut out = Vec::with_capacity(ret_types.len());
        for locs in &layout.rets {
            let mut words = Vec::new();
            for loc in locs {
                let d = self.vreg();
                match *loc {
                    Loc::Reg(r) => self.push(MInst::copy(d, Reg::Physical(PReg::Gpr(r)))),
                    Loc::Stack(off) => self.push(MInst::op(
                        Opcode::LdD,
                        &[d],
                        &[Reg::SP],
                        Imm::Const(off as i64),
                    )),
                }
                words.push(d);
            }
            out.push(if words.len() == 2 {
                Regs::Two(words[0], words[1])
            } else {
                Regs::One(words[0])
            });
        }
        out
    }

    /// A compare with a register or immediate second operand.
    pub(crate) fn cmp_ri(&mut self, ops: (Opcode, Opcode), a: Reg, b: Result<i64, Reg>) -> Reg {
        match b {
            Ok(c) => self.cmpi(ops.1, a, c),
            Err(r) => self.cmp(ops.0, a, r),
        }
    }

    /// A compare with an explicit compare type (used by the switch lowering).
    #[allow(dead_code)]
    pub(crate) fn cmp_typed(&mut self, op: Opcode, ctype: CmpType, defs: [Reg; 2], a: Reg, b: Reg) {
        let mut i = MInst::op(op, &defs, &[a, b], Imm::None);
        i.ctype = ctype;
        self.push(i);
    }
}

/// The canonical 64-bit pattern of a constant of up to 64 bits (see the module
/// documentation): sign-extended from the width for `i8`..`i32`, 0/1 for `i1`.
pub(crate) fn canonical_const(ty: Type, c: u128) -> u64 {
    match ty {
        Type::I1 => (c & 1) as u64,
        Type::I8 => c as u8 as i8 as i64 as u64,
        Type::I16 => c as u16 as i16 as i64 as u64,
        Type::I32 => c as u32 as i32 as i64 as u64,
        Type::F32 => c as u32 as u64,
        _ => c as u64,
    }
}

/// Register and immediate compare opcodes of an integer condition (64-bit compares).
pub(crate) fn icmp_opcodes(cc: vliw_ir::IntCC) -> (Opcode, Opcode) {
    use vliw_ir::IntCC::*;
    match cc {
        Eq => (Opcode::CmpEq, Opcode::CmpEqI),
        Ne => (Opcode::CmpNe, Opcode::CmpNeI),
        Slt => (Opcode::CmpLt, Opcode::CmpLtI),
        Sle => (Opcode::CmpLe, Opcode::CmpLeI),
        Sgt => (Opcode::CmpGt, Opcode::CmpGtI),
        Sge => (Opcode::CmpGe, Opcode::CmpGeI),
        Ult => (Opcode::CmpLtu, Opcode::CmpLtuI),
        Ule => (Opcode::CmpLeu, Opcode::CmpLeuI),
        Ugt => (Opcode::CmpGtu, Opcode::CmpGtuI),
        Uge => (Opcode::CmpGeu, Opcode::CmpGeuI),
    }
}
