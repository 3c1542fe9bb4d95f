//! Integers of up to 64 bits (and pointers): arithmetic, bit operations, shifts,
//! overflow operations, compares and conversions between integer types.
//!
//! `i64` uses the 64-bit operations, `i32` the `w` forms (which compute on the low
//! half and sign-extend, keeping the canonical form); `i8`, `i16` and `i1` compute in
//! 64 bits and re-canonicalize where the result may leave the canonical range.

use vliw_ir::{InstructionData, IntCC, Opcode as IrOp, Type, Value};
use vliw_isa::Opcode;

use super::{Lower, icmp_opcodes, trap_code};
use crate::error::CompileError;
use crate::mir::Reg;

impl Lower<'_> {
    pub(super) fn lower_int(
        &mut self,
        data: &InstructionData,
        results: &[Value],
    ) -> Result<(), CompileError> {
        match data {
            InstructionData::Binary { opcode, args } => {
                self.int_binary(*opcode, args[0], args[1], results)
            }
            InstructionData::Unary { opcode, arg } => self.int_unary(*opcode, *arg, results[0]),
            InstructionData::IntCompare { cond, args, .. } => {
                let p = self.icmp(*cond, args[0], args[1]);
                self.def_pred(results[0], p);
                Ok(())
            }
            _ => Err(self.err(format!("unexpected integer operation `{}`", data.opcode()))),
        }
    }

    /// A predicate for `a cond b` on integers or pointers of up to 64 bits.
    pub(crate) fn icmp(&mut self, cond: IntCC, a: Value, b: Value) -> Reg {
        let ty = self.ty(a);
        let mut cond = cond;
        let (mut a, mut b) = (a, b);
        if ty == Type::I1 && matches!(cond, IntCC::Slt | IntCC::Sle | IntCC::Sgt | IntCC::Sge) {
            // 1 is -1 as a signed i1: signed order is the reverse of unsigned order
            cond = match cond {
                IntCC::Slt => IntCC::Ugt,
                IntCC::Sle => IntCC::Uge,
                IntCC::Sgt => IntCC::Ult,
                _ => IntCC::Ule,
            };
        }
        if self.imm32(a).is_some() && self.imm32(b).is_none() {
            core::mem::swap(&mut a, &mut b);
            cond = cond.swap_args();
        }
        let ra = self.get1(a);
        let rb = match self.imm32(b) {
            Some(c) => Ok(c),
            None => Err(self.get1(b)),
        };
        self.cmp_ri(icmp_opcodes(cond), ra, rb)
    }

    /// A register or 32-bit immediate for `v`.
    fn reg_or_imm(&mut self, v: Value) -> Result<i64, Reg> {
        match self.imm32(v) {
            Some(c) => Ok(c),
            None => Err(self.get1(v)),
        }
    }

    /// `op a, b` choosing the immediate form when `b` is a small constant.
    fn alu(&mut self, ops: (Opcode, Option<Opcode>), a: Reg, b: Result<i64, Reg>) -> Reg {
        match (b, ops.1) {
            (Ok(c), Some(imm_op)) => self.ri(imm_op, a, c),
            (Ok(c), None) => {
                let r = self.movi(c);
                self.rr(ops.0, a, r)
            }
            (Err(r), _) => self.rr(ops.0, a, r),
        }
    }

    /// Whether `v` cannot be zero, from the instruction that makes it: a constant
    /// other than 0, a nonzero constant added without wrap to a value below the
    /// type's top ([`Self::unsigned_max`]) or to `x << k` with a bit set below `k`
    /// (`2 * x + 1`), `bor` with a nonzero constant. Unsigned
    /// divisions by such a value need no check for zero.
    pub(crate) fn known_nonzero(&self, v: Value) -> bool {
        if let Some(c) = self.const_i64(v) {
            return c != 0;
        }
        let dfg = &self.func.dfg;
        let Some(inst) = dfg.value_def(v).inst() else {
            return false;
        };
        let Some(mask) = mask_of(dfg.value_type(v)) else {
            return false;
        };
        match dfg.inst_data(inst) {
            InstructionData::Binary {
                opcode: IrOp::Iadd,
                args,
            } => {
                let Some(c) = self.const_i64(args[1]).map(|c| c as u64 & mask) else {
                    return false;
                };
                c != 0
                    && (self
                        .unsigned_max(args[0])
                        .is_some_and(|max| max.checked_add(c).is_some_and(|s| s <= mask))
                        || self.low_zero_bits(args[0]) > c.trailing_zeros())
            }
            InstructionData::Binary {
                opcode: IrOp::Bor,
                args,
            } => self
                .const_i64(args[1])
                .is_some_and(|c| c as u64 & mask != 0),
            _ => false,
        }
    }

    /// How many low bits of `v` are known to be zero: `x << k` has `k`.
    fn low_zero_bits(&self, v: Value) -> u32 {
        let dfg = &self.func.dfg;
        let Some(inst) = dfg.value_def(v).inst() else {
            return 0;
        };
        match dfg.inst_data(inst) {
            InstructionData::Binary {
                opcode: IrOp::Ishl,
                args,
            } => self.const_i64(args[1]).map_or(0, |k| {
                (k as u64 % u64::from(dfg.value_type(v).bits())) as u32
            }),
            _ => 0,
        }
    }

    /// A bound on the unsigned value of `v` below its type's maximum, from the
    /// instruction that makes it: `uextend` of a narrower value, `band` with a
    /// constant, `ushr` by a nonzero constant.
    fn unsigned_max(&self, v: Value) -> Option<u64> {
        let dfg = &self.func.dfg;
        let inst = dfg.value_def(v).inst()?;
        let ty = dfg.value_type(v);
        let mask = mask_of(ty)?;
        let max = match dfg.inst_data(inst) {
            InstructionData::Unary {
                opcode: IrOp::Uextend,
                arg,
            } => mask_of(dfg.value_type(*arg))?,
            InstructionData::Binary {
                opcode: IrOp::Band,
                args,
            } => self.const_i64(args[1])? as u64 & mask,
            InstructionData::Binary {
                opcode: IrOp::Ushr,
                args,
            } => mask >> (self.const_i64(args[1])? as u64 % u64::from(ty.bits())),
            _ => return None,
        };
        (max < mask).then_some(max)
    }

    /// The checks the IR requires of divisions: division by zero traps, and so does
    /// a signed division of the minimum by -1.
    pub(crate) fn div_checks(&mut self, ty: Type, a: Reg, b: Reg, signed: bool) {
        let zero = self.cmpi(Opcode::CmpEqI, b, 0);
        self.trap_if(zero, trap_code::DIVISION_BY_ZERO);
        if signed {
            // the canonical (sign-extended) minimum and -1 of the type
            let min = if ty == Type::I1 {
                1
            } else {
                i64::MIN >> (64 - ty.bits())
            };
            let minus1 = if ty == Type::I1 { 1 } else { -1 };
            let is_min = self.cmpi(Opcode::CmpEqI, a, min);
            let is_m1 = self.cmpi(Opcode::CmpEqI, b, minus1);
            let both = self.plogic(Opcode::Pand, is_min, is_m1);
            self.trap_if(both, trap_code::INTEGER_OVERFLOW);
        }
    }

    fn int_binary(
        &mut self,
        op: IrOp,
        av: Value,
        bv: Value,
        results: &[Value],
    ) -> Result<(), CompileError> {
        let ty = self.ty(av);
        let w = ty.bits();
        let r = match op {
            IrOp::Iadd | IrOp::Ptradd => {
                let a = self.get1(av);
                let b = self.reg_or_imm(bv);
                match ty {
                    Type::I64 | Type::Ptr => self.alu((Opcode::Add, Some(Opcode::AddI)), a, b),
                    Type::I32 => self.alu((Opcode::Addw, Some(Opcode::AddwI)), a, b),
                    _ => {
                        let s = self.alu((Opcode::Add, Some(Opcode::AddI)), a, b);
                        self.canon(ty, s)
                    }
                }
            }
            IrOp::Isub => {
                let a = self.get1(av);
                let neg_imm = self
                    .imm32(bv)
                    .and_then(|c| c.checked_neg())
                    .filter(|c| i32::try_from(*c).is_ok());
                match (ty, neg_imm) {
                    (Type::I64 | Type::Ptr, Some(n)) => self.ri(Opcode::AddI, a, n),
                    (Type::I32, Some(n)) => self.ri(Opcode::AddwI, a, n),
                    (Type::I64 | Type::Ptr, None) => {
                        let b = self.get1(bv);
                        self.rr(Opcode::Sub, a, b)
                    }
                    (Type::I32, None) => {
                        let b = self.get1(bv);
                        self.rr(Opcode::Subw, a, b)
                    }
                    _ => {
                        let b = self.get1(bv);
                        let s = self.rr(Opcode::Sub, a, b);
                        self.canon(ty, s)
                    }
                }
            }
            IrOp::Imul => {
                let a = self.get1(av);
                let b = self.reg_or_imm(bv);
                match ty {
                    Type::I64 => self.alu((Opcode::Mul, Some(Opcode::MulI)), a, b),
                    Type::I32 => self.alu((Opcode::Mulw, None), a, b),
                    _ => {
                        let p = self.alu((Opcode::Mul, Some(Opcode::MulI)), a, b);
                        self.canon(ty, p)
                    }
                }
            }
            IrOp::Band | IrOp::Bor | IrOp::Bxor if ty == Type::I1 => {
                // conditions combined stay predicates (`a || b` folded into one
                // branch: `por`, not two `p2r`s, an `or` and an `r2p`)
                let a = self.get_pred(av);
                let b = self.get_pred(bv);
                let op = match op {
                    IrOp::Band => Opcode::Pand,
                    IrOp::Bor => Opcode::Por,
                    _ => Opcode::Pxor,
                };
                let p = self.plogic(op, a, b);
                self.def_pred(results[0], p);
                return Ok(());
            }
            IrOp::Band | IrOp::Bor | IrOp::Bxor => {
                let a = self.get1(av);
                let b = self.reg_or_imm(bv);
                let ops = match op {
                    IrOp::Band => (Opcode::And, Some(Opcode::AndI)),
                    IrOp::Bor => (Opcode::Or, Some(Opcode::OrI)),
                    _ => (Opcode::Xor, Some(Opcode::XorI)),
                };
                self.alu(ops, a, b)
            }
            IrOp::Udiv | IrOp::Urem => {
                let a = self.get1(av);
                let b = self.get1(bv);
                // (a divisor that cannot be zero needs no check: the loop that
                // computes `x % (n as u64 + 10)` keeps no trap, which would keep it
                // from being modulo scheduled)
                if !self.known_nonzero(bv) {
                    self.div_checks(ty, a, b, false);
                }
                let div = op == IrOp::Udiv;
                match ty {
                    Type::I64 => self.rr(if div { Opcode::Divu } else { Opcode::Remu }, a, b),
                    Type::I32 => self.rr(if div { Opcode::Divuw } else { Opcode::Remuw }, a, b),
                    _ => {
                        let za = self.unsigned(ty, a);
                        let zb = self.unsigned(ty, b);
                        let q = self.rr(if div { Opcode::Divu } else { Opcode::Remu }, za, zb);
                        self.canon(ty, q)
                    }
                }
            }
            IrOp::Sdiv | IrOp::Srem => {
                let a = self.get1(av);
                let b = self.get1(bv);
                self.div_checks(ty, a, b, true);
                let div = op == IrOp::Sdiv;
                match ty {
                    Type::I64 => self.rr(if div { Opcode::Div } else { Opcode::Rem }, a, b),
                    Type::I32 => self.rr(if div { Opcode::Divw } else { Opcode::Remw }, a, b),
                    _ => {
                        let sa = self.signed(ty, a);
                        let sb = self.signed(ty, b);
                        let q = self.rr(if div { Opcode::Div } else { Opcode::Rem }, sa, sb);
                        self.canon(ty, q)
                    }
                }
            }
            IrOp::Umulhi => {
                let a = self.get1(av);
                let b = self.get1(bv);
                if ty == Type::I64 {
                    self.rr(Opcode::Mulhu, a, b)
                } else {
                    let za = self.unsigned(ty, a);
                    let zb = self.unsigned(ty, b);
                    let p = self.rr(Opcode::Mul, za, zb);
                    let h = self.ri(Opcode::ShrI, p, i64::from(w));
                    self.canon(ty, h)
                }
            }
            IrOp::Smulhi => {
                let a = self.get1(av);
                let b = self.get1(bv);
                if ty == Type::I64 {
                    self.rr(Opcode::Mulh, a, b)
                } else {
                    let sa = self.signed(ty, a);
                    let sb = self.signed(ty, b);
                    let p = self.rr(Opcode::Mul, sa, sb);
                    let h = self.ri(Opcode::SraI, p, i64::from(w));
                    self.canon(ty, h)
                }
            }
            IrOp::Ishl | IrOp::Ushr | IrOp::Sshr | IrOp::Rotl | IrOp::Rotr => {
                self.shift(op, ty, av, bv)
            }
            IrOp::Smin | IrOp::Smax | IrOp::Umin | IrOp::Umax => {
                let a = self.get1(av);
                let b = self.get1(bv);
                let mop = match op {
                    IrOp::Smin => Opcode::Min,
                    IrOp::Smax => Opcode::Max,
                    IrOp::Umin => Opcode::Minu,
                    _ => Opcode::Maxu,
                };
                if ty == Type::I1 && matches!(op, IrOp::Smin | IrOp::Smax) {
                    // signed i1: 1 is -1, so the signed minimum is the unsigned maximum
                    let mop = if op == IrOp::Smin {
                        Opcode::Maxu
                    } else {
                        Opcode::Minu
                    };
                    self.rr(mop, a, b)
                } else {
                    self.rr(mop, a, b)
                }
            }
            IrOp::UaddOverflow
            | IrOp::SaddOverflow
            | IrOp::UsubOverflow
            | IrOp::SsubOverflow
            | IrOp::UmulOverflow
            | IrOp::SmulOverflow => {
                let (r, flag) = self.overflow(op, ty, av, bv);
                self.def1(results[0], r);
                self.def1(results[1], flag);
                return Ok(());
            }
            _ => return Err(self.err(format!("unexpected integer operation `{op}`"))),
        };
        self.def1(results[0], r);
        Ok(())
    }

    /// Shifts and rotates; the amount is taken modulo the width (of any integer type:
    /// its low bits are the same in every canonical form).
    fn shift(&mut self, op: IrOp, ty: Type, av: Value, bv: Value) -> Reg {
        let w = ty.bits() as i64;
        let a = self.get1(av);
        if ty == Type::I1 {
            return a; // the amount modulo 1 is 0
        }
        let amt_const = self.const_of(bv).map(|c| (c as u64 as i64) & (w - 1));
        match ty {
            Type::I64 | Type::I32 => {
                let wide = ty == Type::I64;
                if let Some(k) = amt_const {
                    let (iop, k) = match (op, wide) {
                        (IrOp::Ishl, true) => (Opcode::ShlI, k),
                        (IrOp::Ushr, true) => (Opcode::ShrI, k),
                        (IrOp::Sshr, true) => (Opcode::SraI, k),
                        (IrOp::Rotl, true) => (Opcode::RotlI, k),
                        (IrOp::Rotr, true) => (Opcode::RotlI, (64 - k) & 63),
                        (IrOp::Ishl, false) => (Opcode::ShlwI, k),
                        (IrOp::Ushr, false) => (Opcode::ShrwI, k),
                        (IrOp::Sshr, false) => (Opcode::SrawI, k),
                        (IrOp::Rotl, false) => (Opcode::RotlwI, k),
                        (_, false) => (Opcode::RotlwI, (32 - k) & 31),
                        _ => unreachable!("shift opcodes"),
                    };
                    return self.ri(iop, a, k);
                }
                let b = self.get(bv).one();
                let rop = match (op, wide) {
                    (IrOp::Ishl, true) => Opcode::Shl,
                    (IrOp::Ushr, true) => Opcode::Shr,
                    (IrOp::Sshr, true) => Opcode::Sra,
                    (IrOp::Rotl, true) => Opcode::Rotl,
                    (IrOp::Rotr, true) => Opcode::Rotr,
                    (IrOp::Ishl, false) => Opcode::Shlw,
                    (IrOp::Ushr, false) => Opcode::Shrw,
                    (IrOp::Sshr, false) => Opcode::Sraw,
                    (IrOp::Rotl, false) => Opcode::Rotlw,
                    _ => Opcode::Rotrw,
                };
                self.rr(rop, a, b)
            }
            _ => {
                // i8, i16: mask the amount, compute in 64 bits, re-canonicalize
                let m = match amt_const {
                    Some(k) => Ok(k),
                    None => {
                        let b = self.get(bv).one();
                        Err(self.ri(Opcode::AndI, b, w - 1))
                    }
                };
                let shl = |l: &mut Self, x: Reg, m: Result<i64, Reg>| match m {
                    Ok(k) => l.ri(Opcode::ShlI, x, k),
                    Err(r) => l.rr(Opcode::Shl, x, r),
                };
                let shr = |l: &mut Self, x: Reg, m: Result<i64, Reg>| match m {
                    Ok(k) => l.ri(Opcode::ShrI, x, k),
                    Err(r) => l.rr(Opcode::Shr, x, r),
                };
                match op {
                    IrOp::Ishl => {
                        let s = shl(self, a, m);
                        self.canon(ty, s)
                    }
                    IrOp::Ushr => {
                        let za = self.unsigned(ty, a);
                        let s = shr(self, za, m);
                        self.canon(ty, s)
                    }
                    IrOp::Sshr => match m {
                        Ok(k) => self.ri(Opcode::SraI, a, k),
                        Err(r) => self.rr(Opcode::Sra, a, r),
                    },
                    _ => {
                        let za = self.unsigned(ty, a);
                        // the complementary amount w - m (w when m = 0: the shifted
                        // bits then fall outside the width and canon drops them)
                        let inv = match m {
                            Ok(k) => Ok(w - k),
                            Err(r) => Err(self.ri(Opcode::SubI, r, w)),
                        };
                        let (x, y) = if op == IrOp::Rotl {
                            (shl(self, za, m), shr(self, za, inv))
                        } else {
                            (shr(self, za, m), shl(self, za, inv))
                        };
                        let o = self.rr(Opcode::Or, x, y);
                        self.canon(ty, o)
                    }
                }
            }
        }
    }

    /// The overflow operations: the wrapped result and the flag (0/1).
    fn overflow(&mut self, op: IrOp, ty: Type, av: Value, bv: Value) -> (Reg, Reg) {
        let w = ty.bits();
        let a = self.get1(av);
        let b = self.get1(bv);
        if ty == Type::I64 {
            return match op {
                IrOp::UaddOverflow => {
                    let r = self.rr(Opcode::Add, a, b);
                    let p = self.cmp(Opcode::CmpLtu, r, a);
                    (r, self.p2r(p))
                }
                IrOp::SaddOverflow => {
                    let r = self.rr(Opcode::Add, a, b);
                    let t1 = self.rr(Opcode::Xor, a, r);
                    let t2 = self.rr(Opcode::Xor, b, r);
                    let t3 = self.rr(Opcode::And, t1, t2);
                    (r, self.ri(Opcode::ShrI, t3, 63))
                }
                IrOp::UsubOverflow => {
                    let r = self.rr(Opcode::Sub, a, b);
                    let p = self.cmp(Opcode::CmpLtu, a, b);
                    (r, self.p2r(p))
                }
                IrOp::SsubOverflow => {
                    let r = self.rr(Opcode::Sub, a, b);
                    let t1 = self.rr(Opcode::Xor, a, b);
                    let t2 = self.rr(Opcode::Xor, a, r);
                    let t3 = self.rr(Opcode::And, t1, t2);
                    (r, self.ri(Opcode::ShrI, t3, 63))
                }
                IrOp::UmulOverflow => {
                    let r = self.rr(Opcode::Mul, a, b);
                    let h = self.rr(Opcode::Mulhu, a, b);
                    let p = self.cmpi(Opcode::CmpNeI, h, 0);
                    (r, self.p2r(p))
                }
                _ => {
                    let r = self.rr(Opcode::Mul, a, b);
                    let h = self.rr(Opcode::Mulh, a, b);
                    let s = self.ri(Opcode::SraI, r, 63);
                    let p = self.cmp(Opcode::CmpNe, h, s);
                    (r, self.p2r(p))
                }
            };
        }
        // up to 32 bits: the exact result fits 64 bits; compare it with its wrapped form
        match op {
            IrOp::UaddOverflow | IrOp::UmulOverflow => {
                let za = self.unsigned(ty, a);
                let zb = self.unsigned(ty, b);
                let e = self.rr(
                    if op == IrOp::UaddOverflow {
                        Opcode::Add
                    } else {
                        Opcode::Mul
                    },
                    za,
                    zb,
                );
                let h = self.ri(Opcode::ShrI, e, i64::from(w));
                let flag = if op == IrOp::UaddOverflow {
                    h // the carry is bit w, alone
                } else {
                    let p = self.cmpi(Opcode::CmpNeI, h, 0);
                    self.p2r(p)
                };
                (self.canon(ty, e), flag)
            }
            IrOp::UsubOverflow => {
                let e = self.rr(Opcode::Sub, a, b);
                let p = self.cmp(Opcode::CmpLtu, a, b);
                (self.canon(ty, e), self.p2r(p))
            }
            _ => {
                let sa = self.signed(ty, a);
                let sb = self.signed(ty, b);
                let mop = match op {
                    IrOp::SaddOverflow => Opcode::Add,
                    IrOp::SsubOverflow => Opcode::Sub,
                    _ => Opcode::Mul,
                };
                let e = self.rr(mop, sa, sb);
                let wrapped = self.sext_in(w, e);
                let p = self.cmp(Opcode::CmpNe, e, wrapped);
                (self.canon(ty, e), self.p2r(p))
            }
        }
    }

    fn int_unary(&mut self, op: IrOp, av: Value, res: Value) -> Result<(), CompileError> {
        let ty = self.ty(av);
        let to = self.ty(res);
        // Narrowing what was widened from the same type gives the value back (a
        // `bool` stored as `u8` and tested again: the two conversions may meet only
        // after the RVSDG, whose folding sees them in different regions).
        if op == IrOp::Ireduce
            && let Some(inner) = self.widened_from(av)
            && self.ty(inner) == to
            && !self.is_zext_load(inner)
        {
            match self.pred_of(inner) {
                Some(p) if to == Type::I1 => self.def_pred(res, p),
                _ => {
                    let r = self.get1(inner);
                    self.def1(res, r);
                }
            }
            return Ok(());
        }
        if op == IrOp::Bnot && ty == Type::I1 {
            // a negated condition stays a predicate
            let p = self.get_pred(av);
            let n = self.pnot(p);
            self.def_pred(res, n);
            return Ok(());
        }
        let w = i64::from(ty.bits());
        let a = self.get1(av);
        let r = match op {
            IrOp::Ineg => match ty {
                Type::I1 => a,
                Type::I32 => self.rr(Opcode::Subw, Reg::ZERO, a),
                _ => {
                    let n = self.ri(Opcode::SubI, a, 0);
                    self.canon(ty, n)
                }
            },
            IrOp::Bnot => self.ri(Opcode::XorI, a, if ty == Type::I1 { 1 } else { -1 }),
            IrOp::Clz => match ty {
                Type::I1 => self.ri(Opcode::XorI, a, 1),
                Type::I64 => self.r1(Opcode::Clz, a),
                Type::I32 => self.r1(Opcode::Clzw, a),
                _ => {
                    let z = self.unsigned(ty, a);
                    let c = self.r1(Opcode::Clz, z);
                    self.ri(Opcode::AddI, c, -(64 - w))
                }
            },
            IrOp::Ctz => match ty {
                Type::I1 => self.ri(Opcode::XorI, a, 1),
                Type::I64 => self.r1(Opcode::Ctz, a),
                Type::I32 => self.r1(Opcode::Ctzw, a),
                _ => {
                    let s = self.ri(Opcode::OrI, a, 1 << w);
                    self.r1(Opcode::Ctz, s)
                }
            },
            IrOp::Popcnt => match ty {
                Type::I1 => a,
                _ => {
                    let z = self.unsigned(ty, a);
                    self.r1(Opcode::Popc, z)
                }
            },
            IrOp::Bswap => {
                let s = self.r1(Opcode::Bswap, a);
                if ty == Type::I64 {
                    s
                } else {
                    self.ri(Opcode::SraI, s, 64 - w)
                }
            }
            IrOp::Bitrev => match ty {
                Type::I1 => a,
                Type::I64 => self.r1(Opcode::Brev, a),
                _ => {
                    let s = self.r1(Opcode::Brev, a);
                    self.ri(Opcode::SraI, s, 64 - w)
                }
            },
            IrOp::Iabs => match ty {
                Type::I1 => a,
                Type::I32 => {
                    let n = self.rr(Opcode::Subw, Reg::ZERO, a);
                    self.rr(Opcode::Max, a, n)
                }
                _ => {
                    let n = self.ri(Opcode::SubI, a, 0);
                    let n = self.canon(ty, n);
                    self.rr(Opcode::Max, a, n)
                }
            },
            IrOp::Uextend if self.is_zext_load(av) => a,
            IrOp::Uextend => self.unsigned(ty, a),
            IrOp::Sextend => self.signed(ty, a),
            IrOp::Ireduce => self.canon(to, a),
            IrOp::Bitcast => a,
            _ => return Err(self.err(format!("unexpected integer operation `{op}`"))),
        };
        self.def1(res, r);
        Ok(())
    }
}

/// The values of an integer type of at most 64 bits, as a mask.
fn mask_of(ty: Type) -> Option<u64> {
    match ty.bits() {
        64 => Some(u64::MAX),
        b if b < 64 => Some((1u64 << b) - 1),
        _ => None,
    }
}
