//! Floating point: arithmetic, compares, rounding, conversions, bit casts.
//!
//! `f32` values are the low 32 bits of a register with the upper half zero (what the
//! machine's `.s` operations write). `frem` calls `fmodf`/`fmod`; conversions between
//! floats and `i128` call compiler_builtins (`__floattisf`, `__floatuntidf`,
//! `__fixsfti`, `__fixunsdfti`, ...), whose conversions to integers saturate and map
//! NaN to 0 like Rust's `as`.

use vliw_ir::{FloatCC, InstructionData, Opcode as IrOp, Type, Value};
use vliw_isa::Opcode;

use super::{Lower, Regs};
use crate::error::CompileError;
use crate::mir::Reg;

fn pick(ty: Type, s: Opcode, d: Opcode) -> Opcode {
    if ty == Type::F32 { s } else { d }
}

impl Lower<'_> {
    pub(super) fn lower_float(
        &mut self,
        data: &InstructionData,
        results: &[Value],
    ) -> Result<(), CompileError> {
        match data {
            InstructionData::Binary { opcode, args } => {
                let ty = self.ty(args[0]);
                let a = self.get1(args[0]);
                let b = self.get1(args[1]);
                let r = match opcode {
                    IrOp::Fadd => self.rr(pick(ty, Opcode::FaddS, Opcode::FaddD), a, b),
                    IrOp::Fsub => self.rr(pick(ty, Opcode::FsubS, Opcode::FsubD), a, b),
                    IrOp::Fmul => self.rr(pick(ty, Opcode::FmulS, Opcode::FmulD), a, b),
                    IrOp::Fdiv => self.rr(pick(ty, Opcode::FdivS, Opcode::FdivD), a, b),
                    IrOp::Fmin => self.rr(pick(ty, Opcode::FminS, Opcode::FminD), a, b),
                    IrOp::Fmax => self.rr(pick(ty, Opcode::FmaxS, Opcode::FmaxD), a, b),
                    IrOp::Fcopysign => {
                        self.rr(pick(ty, Opcode::FcopysignS, Opcode::FcopysignD), a, b)
                    }
                    IrOp::Frem => {
                        let name = if ty == Type::F32 { "fmodf" } else { "fmod" };
                        self.call(Ok(name), &[ty, ty], &[Regs::One(a), Regs::One(b)], &[ty])[0]
                            .one()
                    }
                    _ => return Err(self.err(format!("unexpected float operation `{opcode}`"))),
                };
                self.def1(results[0], r);
                Ok(())
            }
            InstructionData::Ternary {
                opcode: IrOp::Fma,
                args,
            } => {
                let ty = self.ty(args[0]);
                let a = self.get1(args[0]);
                let b = self.get1(args[1]);
                let c = self.get1(args[2]);
                let r = self.r3(pick(ty, Opcode::FmaS, Opcode::FmaD), a, b, c);
                self.def1(results[0], r);
                Ok(())
            }
            InstructionData::FloatCompare { cond, args, .. } => {
                let ty = self.ty(args[0]);
                let a = self.get1(args[0]);
                let b = self.get1(args[1]);
                let p = self.fcmp(ty, *cond, a, b);
                self.def_pred(results[0], p);
                Ok(())
            }
            InstructionData::Unary { opcode, arg } => self.float_unary(*opcode, *arg, results[0]),
            _ => Err(self.err(format!("unexpected float operation `{}`", data.opcode()))),
        }
    }

    /// A predicate for the float condition. The machine has the ordered compares and
    /// `ne`/`uno`/`ord`; an unordered condition is the complement of an ordered one
    /// (the compare's second destination), `one` and `ueq` take two compares.
    fn fcmp(&mut self, ty: Type, cond: FloatCC, a: Reg, b: Reg) -> Reg {
        let op = |s, d| pick(ty, s, d);
        match cond {
            FloatCC::Oeq => self.cmp(op(Opcode::FcmpEqS, Opcode::FcmpEqD), a, b),
            FloatCC::Une => self.cmp(op(Opcode::FcmpNeS, Opcode::FcmpNeD), a, b),
            FloatCC::Olt => self.cmp(op(Opcode::FcmpLtS, Opcode::FcmpLtD), a, b),
            FloatCC::Ole => self.cmp(op(Opcode::FcmpLeS, Opcode::FcmpLeD), a, b),
            FloatCC::Ogt => self.cmp(op(Opcode::FcmpGtS, Opcode::FcmpGtD), a, b),
            FloatCC::Oge => self.cmp(op(Opcode::FcmpGeS, Opcode::FcmpGeD), a, b),
            FloatCC::Ord => self.cmp(op(Opcode::FcmpOrdS, Opcode::FcmpOrdD), a, b),
            FloatCC::Uno => self.cmp(op(Opcode::FcmpUnoS, Opcode::FcmpUnoD), a, b),
            FloatCC::Ult => self.cmp_not(op(Opcode::FcmpGeS, Opcode::FcmpGeD), a, b),
            FloatCC::Ule => self.cmp_not(op(Opcode::FcmpGtS, Opcode::FcmpGtD), a, b),
            FloatCC::Ugt => self.cmp_not(op(Opcode::FcmpLeS, Opcode::FcmpLeD), a, b),
            FloatCC::Uge => self.cmp_not(op(Opcode::FcmpLtS, Opcode::FcmpLtD), a, b),
            FloatCC::One | FloatCC::Ueq => {
                let lt = self.cmp(op(Opcode::FcmpLtS, Opcode::FcmpLtD), a, b);
                let gt = self.cmp(op(Opcode::FcmpGtS, Opcode::FcmpGtD), a, b);
                let one = self.plogic(Opcode::Por, lt, gt);
                if cond == FloatCC::One {
                    one
                } else {
                    self.pnot(one)
                }
            }
        }
    }

    fn float_unary(&mut self, op: IrOp, av: Value, res: Value) -> Result<(), CompileError> {
        let from = self.ty(av);
        let to = self.ty(res);
        let unary = |s, d| pick(from, s, d);
        let simple = match op {
            IrOp::Fneg => Some(unary(Opcode::FnegS, Opcode::FnegD)),
            IrOp::Fabs => Some(unary(Opcode::FabsS, Opcode::FabsD)),
            IrOp::Sqrt => Some(unary(Opcode::FsqrtS, Opcode::FsqrtD)),
            IrOp::Floor => Some(unary(Opcode::FfloorS, Opcode::FfloorD)),
            IrOp::Ceil => Some(unary(Opcode::FceilS, Opcode::FceilD)),
            IrOp::Trunc => Some(unary(Opcode::FtruncS, Opcode::FtruncD)),
            IrOp::Nearest => Some(unary(Opcode::FroundevenS, Opcode::FroundevenD)),
            IrOp::Round => Some(unary(Opcode::FroundS, Opcode::FroundD)),
            IrOp::Fpromote => Some(Opcode::FcvtDS),
            IrOp::Fdemote => Some(Opcode::FcvtSD),
            _ => None,
        };
        if let Some(mop) = simple {
            let a = self.get1(av);
            let r = self.r1(mop, a);
            self.def1(res, r);
            return Ok(());
        }
        match op {
            IrOp::Bitcast => {
                if to == Type::I128 || from == Type::I128 {
                    return Err(self.err("bitcast between i128 and a float type"));
                }
                let a = self.get1(av);
                let r = match (from, to) {
                    (Type::F32, Type::I32) => self.r1(Opcode::Sxtw, a),
                    (Type::I32, Type::F32) => self.r1(Opcode::Zxtw, a),
                    _ => a,
                };
                self.def1(res, r);
                Ok(())
            }
            IrOp::FcvtFromSint | IrOp::FcvtFromUint => {
                let signed = op == IrOp::FcvtFromSint;
                if from == Type::I128 {
                    let name = match (signed, to) {
                        (true, Type::F32) => "__floattisf",
                        (true, _) => "__floattidf",
                        (false, Type::F32) => "__floatuntisf",
                        (false, _) => "__floatuntidf",
                    };
                    let a = self.get(av);
                    let r = self.call(Ok(name), &[Type::I128], &[a], &[to])[0].one();
                    self.def1(res, r);
                    return Ok(());
                }
                let a = self.get1(av);
                let f32 = to == Type::F32;
                let r = match (signed, from) {
                    (true, _) => self.r1(if f32 { Opcode::FcvtSL } else { Opcode::FcvtDL }, a),
                    (false, Type::I64) => self.r1(
                        if f32 {
                            Opcode::FcvtSLu
                        } else {
                            Opcode::FcvtDLu
                        },
                        a,
                    ),
                    (false, Type::I32) => self.r1(
                        if f32 {
                            Opcode::FcvtSWu
                        } else {
                            Opcode::FcvtDWu
                        },
                        a,
                    ),
                    (false, _) => {
                        let z = self.unsigned(from, a);
                        self.r1(if f32 { Opcode::FcvtSL } else { Opcode::FcvtDL }, z)
                    }
                };
                self.def1(res, r);
                Ok(())
            }
            IrOp::FcvtToSintSat | IrOp::FcvtToUintSat => {
                let signed = op == IrOp::FcvtToSintSat;
                if to == Type::I128 {
                    let name = match (signed, from) {
                        (true, Type::F32) => "__fixsfti",
                        (true, _) => "__fixdfti",
                        (false, Type::F32) => "__fixunssfti",
                        (false, _) => "__fixunsdfti",
                    };
                    let a = self.get(av);
                    let r = self.call(Ok(name), &[from], &[a], &[Type::I128])[0];
                    self.def(res, r);
                    return Ok(());
                }
                let a = self.get1(av);
                let f32 = from == Type::F32;
                let r = match (signed, to) {
                    (true, Type::I64) => {
                        self.r1(if f32 { Opcode::FcvtLS } else { Opcode::FcvtLD }, a)
                    }
                    (false, Type::I64) => self.r1(
                        if f32 {
                            Opcode::FcvtLuS
                        } else {
                            Opcode::FcvtLuD
                        },
                        a,
                    ),
                    (true, _) => {
                        let w = self.r1(if f32 { Opcode::FcvtWS } else { Opcode::FcvtWD }, a);
                        if to == Type::I32 {
                            w
                        } else {
                            // saturate the i32 to the narrower range
                            let bits = to.bits();
                            let lo = self.movi(-(1i64 << (bits - 1)));
                            let hi = self.movi((1i64 << (bits - 1)) - 1);
                            let t = self.rr(Opcode::Max, w, lo);
                            self.rr(Opcode::Min, t, hi)
                        }
                    }
                    (false, _) => {
                        let w = self.r1(
                            if f32 {
                                Opcode::FcvtWuS
                            } else {
                                Opcode::FcvtWuD
                            },
                            a,
                        );
                        let w = if to == Type::I32 {
                            w
                        } else {
                            let hi = self.movi((1i64 << to.bits()) - 1);
                            self.rr(Opcode::Minu, w, hi)
                        };
                        self.canon(to, w)
                    }
                };
                self.def1(res, r);
                Ok(())
            }
            _ => Err(self.err(format!("unexpected float operation `{op}`"))),
        }
    }
}
