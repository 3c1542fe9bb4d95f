//! Memory: loads and stores (split into narrower accesses when the IR promises less
//! alignment than the access size, since the machine faults on misaligned accesses),
//! atomics (`amo*` and `cas.*`; single core, so an atomic load or store is an ordinary
//! aligned one), `fence`, and `memcpy`/`memmove`/`memset` (inline for small constant
//! lengths, else calls to the C functions of the same names).

use vliw_ir::{AtomicRmwOp, InstructionData, MemFlags, Opcode as IrOp, Type, Value};
use vliw_isa::Opcode;

use super::{Lower, Regs};
use crate::error::CompileError;
use crate::mir::{Imm, MInst, Reg};

/// `memcpy`, `memmove` and `memset` of at most this many bytes (constant) are inline.
pub const INLINE_MEM_MAX: u64 = 16;

fn load_op(size: u32, signed: bool) -> Opcode {
    match (size, signed) {
        (1, true) => Opcode::LdB,
        (1, false) => Opcode::LdBu,
        (2, true) => Opcode::LdH,
        (2, false) => Opcode::LdHu,
        (4, true) => Opcode::LdW,
        (4, false) => Opcode::LdWu,
        _ => Opcode::LdD,
    }
}

fn store_op(size: u32) -> Opcode {
    match size {
        1 => Opcode::StB,
        2 => Opcode::StH,
        4 => Opcode::StW,
        _ => Opcode::StD,
    }
}

impl Lower<'_> {
    fn load_raw(&mut self, op: Opcode, addr: Reg, offset: i64) -> Reg {
        let d = self.vreg();
        // a speculative load (`MemFlags::speculative`) is the machine's `lds`: 0 where
        // the load would fault
        let op = match self.speculative {
            true => op.speculative_load().unwrap_or(op),
            false => op,
        };
        self.push(MInst::op(op, &[d], &[addr], Imm::Const(offset)));
        d
    }

    fn store_raw(&mut self, op: Opcode, addr: Reg, offset: i64, value: Reg) {
        self.push(MInst::op(op, &[], &[addr, value], Imm::Const(offset)));
    }

    /// A word of `size` bytes (1, 2, 4, 8) at `addr + offset`, aligned to `align`:
    /// sign-extended if `signed`, else zero-extended.
    fn load_word(&mut self, addr: Reg, offset: i64, size: u32, align: u32, signed: bool) -> Reg {
        if align >= size {
            return self.load_raw(load_op(size, signed), addr, offset);
        }
        let unit = align;
        let mut acc = Reg::ZERO;
        for i in 0..size / unit {
            let piece = self.load_raw(load_op(unit, false), addr, offset + i64::from(i * unit));
            let shifted = if i == 0 {
                piece
            } else {
                self.ri(Opcode::ShlI, piece, i64::from(8 * unit * i))
            };
            acc = if i == 0 {
                shifted
            } else {
                self.rr(Opcode::Or, acc, shifted)
            };
        }
        if signed {
            self.sext_in(8 * size, acc)
        } else {
            acc
        }
    }

    fn store_word(&mut self, addr: Reg, offset: i64, size: u32, align: u32, value: Reg) {
        if align >= size {
            return self.store_raw(store_op(size), addr, offset, value);
        }
        let unit = align;
        for i in 0..size / unit {
            let piece = if i == 0 {
                value
            } else {
                self.ri(Opcode::ShrI, value, i64::from(8 * unit * i))
            };
            self.store_raw(store_op(unit), addr, offset + i64::from(i * unit), piece);
        }
    }

    /// Loads a value of type `ty` into its canonical form.
    pub(crate) fn load(&mut self, ty: Type, addr: Reg, offset: i64, flags: MemFlags) -> Regs {
        let size = ty.bytes().min(8);
        let align = flags.align.clamp(1, size);
        self.scope = flags.scope;
        self.speculative = flags.speculative;
        let regs = match ty {
            Type::I128 => {
                let lo = self.load_word(addr, offset, 8, align, false);
                let hi = self.load_word(addr, offset + 8, 8, align, false);
                Regs::Two(lo, hi)
            }
            // f32: zero-extended; integers: sign-extended
            Type::F32 => Regs::One(self.load_word(addr, offset, 4, align, false)),
            _ => Regs::One(self.load_word(addr, offset, size, align, true)),
        };
        self.scope = None;
        self.speculative = false;
        regs
    }

    pub(crate) fn store(&mut self, ty: Type, value: Regs, addr: Reg, offset: i64, flags: MemFlags) {
        let size = ty.bytes().min(8);
        let align = flags.align.clamp(1, size);
        self.scope = flags.scope;
        match value {
            Regs::Two(lo, hi) => {
                self.store_word(addr, offset, 8, align, lo);
                self.store_word(addr, offset + 8, 8, align, hi);
            }
            Regs::One(v) => self.store_word(addr, offset, size, align, v),
        }
        self.scope = None;
    }

    pub(super) fn lower_mem(
        &mut self,
        data: &InstructionData,
        results: &[Value],
    ) -> Result<(), CompileError> {
        match data {
            InstructionData::Load {
                opcode,
                flags,
                arg,
                offset,
            } => {
                let ty = self.ty(results[0]);
                let addr = self.get1(*arg);
                // atomic loads are natural-aligned (the IR traps otherwise)
                let flags = if *opcode == IrOp::AtomicLoad {
                    MemFlags::aligned(ty.bytes())
                } else {
                    *flags
                };
                let r = if *opcode == IrOp::Load && self.is_zext_load(results[0]) {
                    let size = ty.bytes();
                    let align = flags.align.clamp(1, size);
                    self.scope = flags.scope;
                    let r = self.load_word(addr, i64::from(*offset), size, align, false);
                    self.scope = None;
                    Regs::One(r)
                } else {
                    self.load(ty, addr, i64::from(*offset), flags)
                };
                self.def(results[0], r);
                Ok(())
            }
            InstructionData::Store {
                opcode,
                flags,
                args,
                offset,
            } => {
                let ty = self.ty(args[0]);
                let value = self.get(self.stored_value(args[0]));
                let addr = self.get1(args[1]);
                let flags = if *opcode == IrOp::AtomicStore {
                    MemFlags::aligned(ty.bytes())
                } else {
                    *flags
                };
                self.store(ty, value, addr, i64::from(*offset), flags);
                Ok(())
            }
            InstructionData::Nullary {
                opcode: IrOp::Fence,
            } => {
                self.push(MInst::op(Opcode::Fence, &[], &[], Imm::None));
                Ok(())
            }
            InstructionData::AtomicRmw { op, args, .. } => {
                let ty = self.ty(args[1]);
                let addr = self.get1(args[0]);
                let v = self.get1(args[1]);
                let old = self.atomic_rmw(*op, ty, addr, v);
                self.def1(results[0], old);
                Ok(())
            }
            InstructionData::AtomicCas { args, .. } => {
                let ty = self.ty(args[1]);
                let addr = self.get1(args[0]);
                let expected = self.get1(args[1]);
                let replacement = self.get1(args[2]);
                let old = self.r3(cas_op(ty), addr, expected, replacement);
                let old = self.canon(ty, old);
                let ok = self.cmp(Opcode::CmpEq, old, expected);
                self.def1(results[0], old);
                self.def_pred(results[1], ok);
                Ok(())
            }
            InstructionData::Ternary { opcode, args } => {
                let dst = self.get1(args[0]);
                let len_const = self
                    .const_i64(args[2])
                    .filter(|&n| (0..=INLINE_MEM_MAX as i64).contains(&n));
                if let Some(n) = len_const {
                    match opcode {
                        IrOp::Memset => {
                            let byte = self.get1(args[1]);
                            for i in 0..n {
                                self.store_raw(Opcode::StB, dst, i, byte);
                            }
                        }
                        _ => {
                            // load everything before storing anything: right for
                            // overlapping ranges (memmove) too
                            let src = self.get1(args[1]);
                            let bytes: Vec<Reg> = (0..n)
                                .map(|i| self.load_raw(Opcode::LdBu, src, i))
                                .collect();
                            for (i, b) in bytes.into_iter().enumerate() {
                                self.store_raw(Opcode::StB, dst, i as i64, b);
                            }
                        }
                    }
                    return Ok(());
                }
                let second = self.get(args[1]);
                let len = self.get(args[2]);
                let (name, second_ty) = match opcode {
                    IrOp::Memcpy => ("memcpy", Type::Ptr),
                    IrOp::Memmove => ("memmove", Type::Ptr),
                    // C's memset takes the byte as an int
                    _ => ("memset", Type::I32),
                };
                self.call(
                    Ok(name),
                    &[Type::Ptr, second_ty, Type::I64],
                    &[Regs::One(dst), second, len],
                    &[Type::Ptr],
                );
                Ok(())
            }
            _ => Err(self.err(format!("unexpected memory operation `{}`", data.opcode()))),
        }
    }

    /// `atomic_rmw`: the old value, canonical.
    fn atomic_rmw(&mut self, op: AtomicRmwOp, ty: Type, addr: Reg, v: Reg) -> Reg {
        let size = ty.bytes();
        let amo = |base: [Opcode; 4]| base[size.trailing_zeros() as usize];
        let mop = match op {
            AtomicRmwOp::Xchg => Some(amo([
                Opcode::AmoswapB,
                Opcode::AmoswapH,
                Opcode::AmoswapW,
                Opcode::AmoswapD,
            ])),
            AtomicRmwOp::Add | AtomicRmwOp::Sub => Some(amo([
                Opcode::AmoaddB,
                Opcode::AmoaddH,
                Opcode::AmoaddW,
                Opcode::AmoaddD,
            ])),
            AtomicRmwOp::And => Some(amo([
                Opcode::AmoandB,
                Opcode::AmoandH,
                Opcode::AmoandW,
                Opcode::AmoandD,
            ])),
            AtomicRmwOp::Or => Some(amo([
                Opcode::AmoorB,
                Opcode::AmoorH,
                Opcode::AmoorW,
                Opcode::AmoorD,
            ])),
            AtomicRmwOp::Xor => Some(amo([
                Opcode::AmoxorB,
                Opcode::AmoxorH,
                Opcode::AmoxorW,
                Opcode::AmoxorD,
            ])),
            AtomicRmwOp::Smin => Some(amo([
                Opcode::AmominB,
                Opcode::AmominH,
                Opcode::AmominW,
                Opcode::AmominD,
            ])),
            AtomicRmwOp::Smax => Some(amo([
                Opcode::AmomaxB,
                Opcode::AmomaxH,
                Opcode::AmomaxW,
                Opcode::AmomaxD,
            ])),
            AtomicRmwOp::Umin => Some(amo([
                Opcode::AmominuB,
                Opcode::AmominuH,
                Opcode::AmominuW,
                Opcode::AmominuD,
            ])),
            AtomicRmwOp::Umax => Some(amo([
                Opcode::AmomaxuB,
                Opcode::AmomaxuH,
                Opcode::AmomaxuW,
                Opcode::AmomaxuD,
            ])),
            AtomicRmwOp::Nand => None,
        };
        let old = match mop {
            Some(mop) => {
                let operand = if op == AtomicRmwOp::Sub {
                    self.ri(Opcode::SubI, v, 0)
                } else {
                    v
                };
                self.rr(mop, addr, operand)
            }
            None => self.nand_loop(ty, addr, v),
        };
        self.canon(ty, old)
    }

    /// `nand` has no `amo` operation: a compare-and-swap loop.
    ///
    /// ```text
    /// loop(expected):                      ; expected: zero-extended old value
    ///     new = ~(expected & v)
    ///     seen = cas [addr], expected, new
    ///     (seen != expected) br loop(seen)
    /// ```
    fn nand_loop(&mut self, ty: Type, addr: Reg, v: Reg) -> Reg {
        let size = ty.bytes();
        let first = self.load_raw(load_op(size, false), addr, 0);
        let head = self.new_block();
        let exit = self.new_block();
        let param = self.mf.new_vreg(crate::mir::RegClass::Gpr);
        self.mf.blocks[head].params.push(param);
        let mut br = MInst::op(Opcode::Br, &[], &[], Imm::Block(head));
        br.args = vec![first];
        self.push(br);
        self.cur = head;
        let expected = Reg::Virtual(param);
        let t = self.rr(Opcode::And, expected, v);
        let new = self.ri(Opcode::XorI, t, -1);
        let seen = self.r3(cas_op(ty), addr, expected, new);
        let retry = self.cmp(Opcode::CmpNe, seen, expected);
        // the retry edge has an argument: it goes through an edge block
        let edge = self.new_block();
        self.push(
            MInst::op(Opcode::Br, &[], &[], Imm::Block(edge))
                .with_guard(crate::mir::MGuard::new(retry, false)),
        );
        self.push(MInst::op(Opcode::Br, &[], &[], Imm::Block(exit)));
        let mut back = MInst::op(Opcode::Br, &[], &[], Imm::Block(head));
        back.args = vec![seen];
        self.mf.push_inst(edge, back);
        self.cur = exit;
        seen
    }
}

fn cas_op(ty: Type) -> Opcode {
    match ty.bytes() {
        1 => Opcode::CasB,
        2 => Opcode::CasH,
        4 => Opcode::CasW,
        _ => Opcode::CasD,
    }
}
