//! 128-bit integers as register pairs (low word, high word): additions with carries
//! through unsigned compares, shifts combining both halves, compares on the high
//! halves then the low halves, multiplication through `mul`/`mulhu` partial products,
//! division and remainder through compiler_builtins' `__udivti3`, `__divti3`,
//! `__umodti3`, `__modti3`.

use vliw_ir::{InstructionData, IntCC, Opcode as IrOp, Type, Value};
use vliw_isa::Opcode;

use super::{Lower, Regs, icmp_opcodes, trap_code};
use crate::error::CompileError;
use crate::mir::Reg;

type Pair = (Reg, Reg);

impl Lower<'_> {
    pub(super) fn lower_wide(
        &mut self,
        data: &InstructionData,
        results: &[Value],
    ) -> Result<(), CompileError> {
        match data {
            InstructionData::IntCompare { cond, args, .. } => {
                let a = self.get2(args[0]);
                let b = self.get2(args[1]);
                let p = self.icmp128(*cond, a, b);
                self.def_pred(results[0], p);
                Ok(())
            }
            InstructionData::Binary { opcode, args } => {
                self.wide_binary(*opcode, args[0], args[1], results)
            }
            InstructionData::Unary { opcode, arg } => self.wide_unary(*opcode, *arg, results[0]),
            _ => Err(self.err(format!("unexpected 128-bit operation `{}`", data.opcode()))),
        }
    }

    /// `x + y` returning the sum and the carry (0/1).
    fn add_carry(&mut self, x: Reg, y: Reg) -> (Reg, Reg) {
        let s = self.rr(Opcode::Add, x, y);
        let p = self.cmp(Opcode::CmpLtu, s, x);
        (s, self.p2r(p))
    }

    pub(crate) fn add128(&mut self, a: Pair, b: Pair) -> Pair {
        let (lo, c) = self.add_carry(a.0, b.0);
        let t = self.rr(Opcode::Add, a.1, b.1);
        (lo, self.rr(Opcode::Add, t, c))
    }

    pub(crate) fn sub128(&mut self, a: Pair, b: Pair) -> Pair {
        let lo = self.rr(Opcode::Sub, a.0, b.0);
        let p = self.cmp(Opcode::CmpLtu, a.0, b.0);
        let borrow = self.p2r(p);
        let t = self.rr(Opcode::Sub, a.1, b.1);
        (lo, self.rr(Opcode::Sub, t, borrow))
    }

    fn neg128(&mut self, a: Pair) -> Pair {
        self.sub128((Reg::ZERO, Reg::ZERO), a)
    }

    /// The four words of the unsigned 256-bit product.
    fn mul_full(&mut self, a: Pair, b: Pair) -> [Reg; 4] {
        let p00l = self.rr(Opcode::Mul, a.0, b.0);
        let p00h = self.rr(Opcode::Mulhu, a.0, b.0);
        let p01l = self.rr(Opcode::Mul, a.0, b.1);
        let p01h = self.rr(Opcode::Mulhu, a.0, b.1);
        let p10l = self.rr(Opcode::Mul, a.1, b.0);
        let p10h = self.rr(Opcode::Mulhu, a.1, b.0);
        let p11l = self.rr(Opcode::Mul, a.1, b.1);
        let p11h = self.rr(Opcode::Mulhu, a.1, b.1);
        let (s1, c1) = self.add_carry(p00h, p01l);
        let (w1, c2) = self.add_carry(s1, p10l);
        let carry1 = self.rr(Opcode::Add, c1, c2);
        let (s2, c3) = self.add_carry(p01h, p10h);
        let (s3, c4) = self.add_carry(s2, p11l);
        let (w2, c5) = self.add_carry(s3, carry1);
        let t = self.rr(Opcode::Add, p11h, c3);
        let t = self.rr(Opcode::Add, t, c4);
        let w3 = self.rr(Opcode::Add, t, c5);
        [p00l, w1, w2, w3]
    }

    fn mul128(&mut self, a: Pair, b: Pair) -> Pair {
        let lo = self.rr(Opcode::Mul, a.0, b.0);
        let h = self.rr(Opcode::Mulhu, a.0, b.0);
        let t1 = self.rr(Opcode::Mul, a.0, b.1);
        let t2 = self.rr(Opcode::Mul, a.1, b.0);
        let t = self.rr(Opcode::Add, h, t1);
        (lo, self.rr(Opcode::Add, t, t2))
    }

    /// The high 128 bits of the signed 256-bit product, from the unsigned one:
    /// subtract `b` if `a` is negative and `a` if `b` is negative.
    fn smulhi128(&mut self, a: Pair, b: Pair, w: [Reg; 4]) -> Pair {
        let ma = self.ri(Opcode::SraI, a.1, 63);
        let mb = self.ri(Opcode::SraI, b.1, 63);
        let c1 = (self.rr(Opcode::And, b.0, ma), self.rr(Opcode::And, b.1, ma));
        let c2 = (self.rr(Opcode::And, a.0, mb), self.rr(Opcode::And, a.1, mb));
        let h = self.sub128((w[2], w[3]), c1);
        self.sub128(h, c2)
    }

    /// A predicate for `a cond b` on 128-bit integers.
    pub(crate) fn icmp128(&mut self, cond: IntCC, a: Pair, b: Pair) -> Reg {
        match cond {
            IntCC::Eq | IntCC::Ne => {
                let x0 = self.rr(Opcode::Xor, a.0, b.0);
                let x1 = self.rr(Opcode::Xor, a.1, b.1);
                let o = self.rr(Opcode::Or, x0, x1);
                self.cmpi(
                    if cond == IntCC::Eq {
                        Opcode::CmpEqI
                    } else {
                        Opcode::CmpNeI
                    },
                    o,
                    0,
                )
            }
            _ => {
                // reduce to a < b or a <= b
                let (cond, a, b) = match cond {
                    IntCC::Sgt | IntCC::Sge | IntCC::Ugt | IntCC::Uge => (cond.swap_args(), b, a),
                    _ => (cond, a, b),
                };
                let (strict_hi, lo_cc) = match cond {
                    IntCC::Slt => (IntCC::Slt, IntCC::Ult),
                    IntCC::Sle => (IntCC::Slt, IntCC::Ule),
                    IntCC::Ult => (IntCC::Ult, IntCC::Ult),
                    _ => (IntCC::Ult, IntCC::Ule),
                };
                let p_hi = self.cmp(icmp_opcodes(strict_hi).0, a.1, b.1);
                let p_eq = self.cmp(Opcode::CmpEq, a.1, b.1);
                let p_lo = self.cmp(icmp_opcodes(lo_cc).0, a.0, b.0);
                let t = self.plogic(Opcode::Pand, p_eq, p_lo);
                self.plogic(Opcode::Por, p_hi, t)
            }
        }
    }

    fn div_checks128(&mut self, a: Pair, b: Pair, signed: bool) {
        let o = self.rr(Opcode::Or, b.0, b.1);
        let zero = self.cmpi(Opcode::CmpEqI, o, 0);
        self.trap_if(zero, trap_code::DIVISION_BY_ZERO);
        if signed {
            let p1 = self.cmpi(Opcode::CmpEqI, a.0, 0);
            let p2 = self.cmpi(Opcode::CmpEqI, a.1, i64::MIN);
            let p3 = self.cmpi(Opcode::CmpEqI, b.0, -1);
            let p4 = self.cmpi(Opcode::CmpEqI, b.1, -1);
            let q1 = self.plogic(Opcode::Pand, p1, p2);
            let q2 = self.plogic(Opcode::Pand, p3, p4);
            let q = self.plogic(Opcode::Pand, q1, q2);
            self.trap_if(q, trap_code::INTEGER_OVERFLOW);
        }
    }

    fn shift128_const(&mut self, op: IrOp, a: Pair, k: u32) -> Pair {
        let k = k & 127;
        match op {
            IrOp::Rotr => self.shift128_const(IrOp::Rotl, a, (128 - k) & 127),
            IrOp::Rotl => {
                let (x0, x1) = if k >= 64 { (a.1, a.0) } else { a };
                let k = i64::from(k & 63);
                if k == 0 {
                    return (x0, x1);
                }
                let l0 = self.ri(Opcode::ShlI, x0, k);
                let r1 = self.ri(Opcode::ShrI, x1, 64 - k);
                let l1 = self.ri(Opcode::ShlI, x1, k);
                let r0 = self.ri(Opcode::ShrI, x0, 64 - k);
                (self.rr(Opcode::Or, l0, r1), self.rr(Opcode::Or, l1, r0))
            }
            _ if k == 0 => a,
            IrOp::Ishl if k >= 64 => (Reg::ZERO, self.ri(Opcode::ShlI, a.0, i64::from(k - 64))),
            IrOp::Ishl => {
                let k = i64::from(k);
                let lo = self.ri(Opcode::ShlI, a.0, k);
                let h = self.ri(Opcode::ShlI, a.1, k);
                let c = self.ri(Opcode::ShrI, a.0, 64 - k);
                (lo, self.rr(Opcode::Or, h, c))
            }
            IrOp::Ushr if k >= 64 => (self.ri(Opcode::ShrI, a.1, i64::from(k - 64)), Reg::ZERO),
            IrOp::Sshr if k >= 64 => (
                self.ri(Opcode::SraI, a.1, i64::from(k - 64)),
                self.ri(Opcode::SraI, a.1, 63),
            ),
            _ => {
                let k = i64::from(k);
                let l = self.ri(Opcode::ShrI, a.0, k);
                let c = self.ri(Opcode::ShlI, a.1, 64 - k);
                let lo = self.rr(Opcode::Or, l, c);
                let hi = self.ri(
                    if op == IrOp::Ushr {
                        Opcode::ShrI
                    } else {
                        Opcode::SraI
                    },
                    a.1,
                    k,
                );
                (lo, hi)
            }
        }
    }

    /// Shifts by a register amount `s` (modulo 128): the machine's shifts take their
    /// amount modulo 64, bit 6 of `s` chooses between the two cases.
    fn shift128(&mut self, op: IrOp, a: Pair, s: Reg) -> Pair {
        let s = if op == IrOp::Rotr {
            self.ri(Opcode::SubI, s, 0)
        } else {
            s
        };
        let inv = self.ri(Opcode::XorI, s, 63); // 63 - (s mod 64), modulo 64
        let big_bit = self.ri(Opcode::AndI, s, 64);
        let big = self.cmpi(Opcode::CmpNeI, big_bit, 0);
        match op {
            IrOp::Ishl => {
                let lo_s = self.rr(Opcode::Shl, a.0, s);
                let t = self.ri(Opcode::ShrI, a.0, 1);
                let c = self.rr(Opcode::Shr, t, inv);
                let h = self.rr(Opcode::Shl, a.1, s);
                let hi_s = self.rr(Opcode::Or, h, c);
                (self.sel(big, Reg::ZERO, lo_s), self.sel(big, lo_s, hi_s))
            }
            IrOp::Ushr | IrOp::Sshr => {
                let arith = op == IrOp::Sshr;
                let hi_s = self.rr(if arith { Opcode::Sra } else { Opcode::Shr }, a.1, s);
                let t = self.ri(Opcode::ShlI, a.1, 1);
                let c = self.rr(Opcode::Shl, t, inv);
                let l = self.rr(Opcode::Shr, a.0, s);
                let lo_s = self.rr(Opcode::Or, l, c);
                let fill = if arith {
                    self.ri(Opcode::SraI, a.1, 63)
                } else {
                    Reg::ZERO
                };
                (self.sel(big, hi_s, lo_s), self.sel(big, fill, hi_s))
            }
            _ => {
                let x0 = self.sel(big, a.1, a.0);
                let x1 = self.sel(big, a.0, a.1);
                let l0 = self.rr(Opcode::Shl, x0, s);
                let t1 = self.ri(Opcode::ShrI, x1, 1);
                let r1 = self.rr(Opcode::Shr, t1, inv);
                let l1 = self.rr(Opcode::Shl, x1, s);
                let t0 = self.ri(Opcode::ShrI, x0, 1);
                let r0 = self.rr(Opcode::Shr, t0, inv);
                (self.rr(Opcode::Or, l0, r1), self.rr(Opcode::Or, l1, r0))
            }
        }
    }

    fn wide_binary(
        &mut self,
        op: IrOp,
        av: Value,
        bv: Value,
        results: &[Value],
    ) -> Result<(), CompileError> {
        if matches!(
            op,
            IrOp::Ishl | IrOp::Ushr | IrOp::Sshr | IrOp::Rotl | IrOp::Rotr
        ) {
            let a = self.get2(av);
            let r = match self.const_of(bv) {
                Some(c) => self.shift128_const(op, a, (c & 127) as u32),
                None => {
                    let s = self.get(bv).one();
                    self.shift128(op, a, s)
                }
            };
            self.def2(results[0], r.0, r.1);
            return Ok(());
        }
        let a = self.get2(av);
        let b = self.get2(bv);
        let r: Pair = match op {
            IrOp::Iadd => self.add128(a, b),
            IrOp::Isub => self.sub128(a, b),
            IrOp::Imul => self.mul128(a, b),
            IrOp::Band | IrOp::Bor | IrOp::Bxor => {
                let mop = match op {
                    IrOp::Band => Opcode::And,
                    IrOp::Bor => Opcode::Or,
                    _ => Opcode::Xor,
                };
                (self.rr(mop, a.0, b.0), self.rr(mop, a.1, b.1))
            }
            IrOp::Udiv | IrOp::Sdiv | IrOp::Urem | IrOp::Srem => {
                let signed = matches!(op, IrOp::Sdiv | IrOp::Srem);
                self.div_checks128(a, b, signed);
                let name = match op {
                    IrOp::Udiv => "__udivti3",
                    IrOp::Sdiv => "__divti3",
                    IrOp::Urem => "__umodti3",
                    _ => "__modti3",
                };
                let out = self.call(
                    Ok(name),
                    &[Type::I128, Type::I128],
                    &[Regs::Two(a.0, a.1), Regs::Two(b.0, b.1)],
                    &[Type::I128],
                );
                out[0].two()
            }
            IrOp::Umulhi => {
                let w = self.mul_full(a, b);
                (w[2], w[3])
            }
            IrOp::Smulhi => {
                let w = self.mul_full(a, b);
                self.smulhi128(a, b, w)
            }
            IrOp::Smin | IrOp::Smax | IrOp::Umin | IrOp::Umax => {
                let cc = if matches!(op, IrOp::Smin | IrOp::Smax) {
                    IntCC::Slt
                } else {
                    IntCC::Ult
                };
                let p = self.icmp128(cc, a, b);
                if matches!(op, IrOp::Smin | IrOp::Umin) {
                    (self.sel(p, a.0, b.0), self.sel(p, a.1, b.1))
                } else {
                    (self.sel(p, b.0, a.0), self.sel(p, b.1, a.1))
                }
            }
            IrOp::UaddOverflow => {
                let (lo, c0) = self.add_carry(a.0, b.0);
                let (t, c1) = self.add_carry(a.1, b.1);
                let (hi, c2) = self.add_carry(t, c0);
                let flag = self.rr(Opcode::Or, c1, c2);
                self.def2(results[0], lo, hi);
                self.def1(results[1], flag);
                return Ok(());
            }
            IrOp::SaddOverflow | IrOp::SsubOverflow => {
                let add = op == IrOp::SaddOverflow;
                let (lo, hi) = if add {
                    self.add128(a, b)
                } else {
                    self.sub128(a, b)
                };
                // add: the result's sign differs from both operands' signs;
                // sub: the operands' signs differ and the result's sign differs from a's
                let t1 = self.rr(Opcode::Xor, a.1, if add { hi } else { b.1 });
                let t2 = self.rr(Opcode::Xor, if add { b.1 } else { a.1 }, hi);
                let t3 = self.rr(Opcode::And, t1, t2);
                let flag = self.ri(Opcode::ShrI, t3, 63);
                self.def2(results[0], lo, hi);
                self.def1(results[1], flag);
                return Ok(());
            }
            IrOp::UsubOverflow => {
                let r = self.sub128(a, b);
                let p = self.icmp128(IntCC::Ult, a, b);
                let flag = self.p2r(p);
                self.def2(results[0], r.0, r.1);
                self.def1(results[1], flag);
                return Ok(());
            }
            IrOp::UmulOverflow | IrOp::SmulOverflow => {
                let w = self.mul_full(a, b);
                let o = if op == IrOp::UmulOverflow {
                    self.rr(Opcode::Or, w[2], w[3])
                } else {
                    let h = self.smulhi128(a, b, w);
                    let sign = self.ri(Opcode::SraI, w[1], 63);
                    let x0 = self.rr(Opcode::Xor, h.0, sign);
                    let x1 = self.rr(Opcode::Xor, h.1, sign);
                    self.rr(Opcode::Or, x0, x1)
                };
                let p = self.cmpi(Opcode::CmpNeI, o, 0);
                let flag = self.p2r(p);
                self.def2(results[0], w[0], w[1]);
                self.def1(results[1], flag);
                return Ok(());
            }
            _ => return Err(self.err(format!("unexpected 128-bit operation `{op}`"))),
        };
        self.def2(results[0], r.0, r.1);
        Ok(())
    }

    fn wide_unary(&mut self, op: IrOp, av: Value, res: Value) -> Result<(), CompileError> {
        let from = self.ty(av);
        let to = self.ty(res);
        match op {
            IrOp::Uextend => {
                let a = self.get1(av);
                let lo = self.unsigned(from, a);
                self.def2(res, lo, Reg::ZERO);
                return Ok(());
            }
            IrOp::Sextend => {
                let a = self.get1(av);
                let lo = self.signed(from, a);
                let hi = self.ri(Opcode::SraI, lo, 63);
                self.def2(res, lo, hi);
                return Ok(());
            }
            IrOp::Ireduce => {
                let (lo, _) = self.get2(av);
                let r = self.canon(to, lo);
                self.def1(res, r);
                return Ok(());
            }
            _ => {}
        }
        let a = self.get2(av);
        let r: Pair = match op {
            IrOp::Ineg => self.neg128(a),
            IrOp::Bnot => (
                self.ri(Opcode::XorI, a.0, -1),
                self.ri(Opcode::XorI, a.1, -1),
            ),
            IrOp::Clz | IrOp::Ctz => {
                // the count of the half that decides, or 64 plus the other's
                let (first, second) = if op == IrOp::Clz {
                    (a.1, a.0)
                } else {
                    (a.0, a.1)
                };
                let mop = if op == IrOp::Clz {
                    Opcode::Clz
                } else {
                    Opcode::Ctz
                };
                let c1 = self.r1(mop, first);
                let c2 = self.r1(mop, second);
                let t = self.ri(Opcode::AddI, c2, 64);
                let z = self.cmpi(Opcode::CmpEqI, first, 0);
                (self.sel(z, t, c1), Reg::ZERO)
            }
            IrOp::Popcnt => {
                let p0 = self.r1(Opcode::Popc, a.0);
                let p1 = self.r1(Opcode::Popc, a.1);
                (self.rr(Opcode::Add, p0, p1), Reg::ZERO)
            }
            IrOp::Bswap => (self.r1(Opcode::Bswap, a.1), self.r1(Opcode::Bswap, a.0)),
            IrOp::Bitrev => (self.r1(Opcode::Brev, a.1), self.r1(Opcode::Brev, a.0)),
            IrOp::Iabs => {
                let n = self.neg128(a);
                let p = self.cmpi(Opcode::CmpLtI, a.1, 0);
                (self.sel(p, n.0, a.0), self.sel(p, n.1, a.1))
            }
            IrOp::Bitcast => a,
            _ => return Err(self.err(format!("unexpected 128-bit operation `{op}`"))),
        };
        self.def2(res, r.0, r.1);
        Ok(())
    }
}
