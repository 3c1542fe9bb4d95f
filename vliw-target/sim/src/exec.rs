//! The semantics of every operation, executed from the predecoded form.
//!
//! `Cpu::exec` runs the operations of one bundle. With `BUF = false` (most bundles)
//! each operation writes its results at once: predecoding ordered the operations so
//! that this equals reading everything first. With `BUF = true` register writes and
//! memory writes are collected and applied in slot order at the end of the bundle.
//! Control operations only record what should happen after the bundle (`Ctl`).

use crate::alu::*;
use crate::fault::{Access, AccessKind};
use crate::memory::{MemError, Memory};
use crate::predecode::{LR, Op, REG_FILE};
use vliw_isa::Opcode;

/// What the bundle asks for after its writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ctl {
    /// Fall through to the next bundle.
    Next,
    /// A direct branch or call, to bundle `target` (`NONE` if `addr` is not a bundle).
    Jump {
        target: u32,
        addr: u64,
    },
    /// An indirect jump, call or return to an address.
    JumpTo(u64),
    /// A system call, with its arguments in `Cpu::sys_args`.
    Syscall(i64),
    Trap(i64),
}

/// A memory fault inside the bundle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MemStop {
    pub addr: u64,
    pub error: MemError,
    pub access: Access,
}

/// The registers, their ready cycles, and the write buffers of buffered bundles.
pub(crate) struct Cpu {
    /// `r0..r63`, then `p0..p15` as 0/1 (see `predecode`), then the sink.
    pub regs: [u64; REG_FILE],
    /// The cycle at which each register becomes ready.
    pub ready: [u64; REG_FILE],
    /// The current cycle: the issue cycle of the bundle being executed.
    pub cycle: u64,
    /// Arguments r3..r8 of the system call of the bundle, read with its operands.
    pub sys_args: [u64; 6],
    wbuf: [(u8, u64); 32],
    wlen: usize,
    /// Deferred memory writes: region, offset, size, value.
    sbuf: [(usize, usize, usize, u64); 16],
    slen: usize,
    /// In a buffered bundle, the number of register writes before its system call.
    sys_wpos: usize,
}

#[inline(always)]
fn stop(error: MemError, kind: AccessKind, size: usize, addr: u64) -> MemStop {
    MemStop {
        addr,
        error,
        access: Access {
            kind,
            size: size as u8,
        },
    }
}

impl Cpu {
    pub fn new() -> Cpu {
        let mut regs = [0; REG_FILE];
        regs[crate::predecode::PRED_BASE as usize] = 1; // p0
        Cpu {
            regs,
            ready: [0; REG_FILE],
            cycle: 0,
            sys_args: [0; 6],
            wbuf: [(0, 0); 32],
            wlen: 0,
            sbuf: [(0, 0, 0, 0); 16],
            slen: 0,
            sys_wpos: 0,
        }
    }

    #[inline(always)]
    fn set<const BUF: bool>(&mut self, idx: u8, value: u64) {
        if BUF {
            self.wbuf[self.wlen & 31] = (idx, value);
            self.wlen += 1;
        } else {
            self.regs[idx as usize] = value;
        }
    }

    #[inline(always)]
    fn load<const N: usize>(&self, mem: &Memory, addr: u64) -> Result<u64, MemStop> {
        mem.load::<N>(addr)
            .map_err(|e| stop(e, AccessKind::Load, N, addr))
    }

    #[inline(always)]
    fn store<const BUF: bool, const N: usize>(
        &mut self,
        mem: &mut Memory,
        addr: u64,
        value: u64,
    ) -> Result<(), MemStop> {
        if BUF {
            let (region, off) = mem
                .check_store::<N>(addr)
                .map_err(|e| stop(e, AccessKind::Store, N, addr))?;
            self.sbuf[self.slen & 15] = (region, off, N, value);
            self.slen += 1;
            Ok(())
        } else {
            mem.store::<N>(addr, value)
                .map_err(|e| stop(e, AccessKind::Store, N, addr))
        }
    }

    /// An atomic read-modify-write of `N` bytes at `addr`: `update(old)` gives the
    /// value to store, if any. Returns the old value, zero-extended.
    #[inline(always)]
    fn atomic<const BUF: bool, const N: usize>(
        &mut self,
        mem: &mut Memory,
        addr: u64,
        update: impl FnOnce(u64) -> Option<u64>,
    ) -> Result<u64, MemStop> {
        let (region, off) = mem
            .check_store::<N>(addr)
            .map_err(|e| stop(e, AccessKind::Atomic, N, addr))?;
        let old = mem.read_at(region, off, N);
        if let Some(new) = update(old) {
            if BUF {
                self.sbuf[self.slen & 15] = (region, off, N, new);
                self.slen += 1;
            } else {
                mem.commit(region, off, N, new);
            }
        }
        Ok(old)
    }

    /// Writes a compare's predicates from its outcome `c` and guard `g`.
    #[inline(always)]
    fn compare<const BUF: bool>(&mut self, op: &Op, g: bool, c: bool) {
        let entry = op.cmp_actions >> (4 * (2 * g as u16 + c as u16));
        if entry & 1 != 0 {
            self.set::<BUF>(op.d1, (entry >> 1) as u64 & 1);
        }
        if entry & 4 != 0 {
            self.set::<BUF>(op.d2, (entry >> 3) as u64 & 1);
        }
    }

    /// Applies the deferred writes of a buffered bundle, in slot order.
    #[inline(always)]
    pub fn commit_buffered(&mut self, mem: &mut Memory) {
        for &(idx, value) in &self.wbuf[..self.wlen] {
            self.regs[idx as usize] = value;
        }
        for &(region, off, size, value) in &self.sbuf[..self.slen] {
            mem.commit(region, off, size, value);
        }
    }

    /// After a buffered bundle: whether an operation in a slot after its system call
    /// wrote r3 (then that write, not the system call's result, is r3's new value).
    pub fn r3_written_after_syscall(&self) -> bool {
        self.wbuf[self.sys_wpos.min(self.wlen)..self.wlen]
            .iter()
            .any(|&(idx, _)| idx == 3)
    }

    /// Executes the operations of one bundle. Counts nullified operations into
    /// `nullified`. On a memory fault the bundle's effects are partial; the run ends.
    #[inline(always)]
    pub fn exec<const BUF: bool>(
        &mut self,
        mem: &mut Memory,
        ops: &[Op],
        nullified: &mut u64,
    ) -> Result<Ctl, MemStop> {
        use Opcode::*;
        if BUF {
            self.wlen = 0;
            self.slen = 0;
        }
        let mut ctl = Ctl::Next;
        for op in ops {
            let g = (self.regs[op.guard as usize] ^ op.guard_xor as u64) != 0;
            if !g && !op.unc {
                *nullified += 1;
                continue;
            }
            let done = self.cycle + op.lat as u64;
            self.ready[op.d1 as usize] = done;
            self.ready[op.d2 as usize] = done;
            let a = self.regs[op.rs1 as usize];
            let rs2 = self.regs[op.rs2 as usize];
            let imm = op.imm as u64;
            let b = if op.use_imm { imm } else { rs2 };
            let d = op.d1;
            macro_rules! set {
                ($v:expr) => {{
                    let v = $v;
                    self.set::<BUF>(d, v)
                }};
            }
            macro_rules! cmp {
                ($c:expr) => {{
                    let c = $c;
                    self.compare::<BUF>(op, g, c)
                }};
            }
            let addr = a.wrapping_add(imm);
            match op.opcode {
                Nop | Limm | Fence => {}
                Mov => set!(a),
                Movi | Addpc => set!(imm),
                Sel => set!(if self.regs[op.ps1 as usize] != 0 {
                    a
                } else {
                    rs2
                }),

                Add | AddI => set!(a.wrapping_add(b)),
                Sub => set!(a.wrapping_sub(b)),
                SubI => set!(b.wrapping_sub(a)),
                And | AndI => set!(a & b),
                Andn => set!(a & !b),
                Or | OrI => set!(a | b),
                Xor | XorI => set!(a ^ b),
                Shl | ShlI => set!(a << (b & 63)),
                Shr | ShrI => set!(a >> (b & 63)),
                Sra | SraI => set!(((a as i64) >> (b & 63)) as u64),
                Rotl | RotlI => set!(a.rotate_left((b & 63) as u32)),
                Rotr => set!(a.rotate_right((b & 63) as u32)),
                Min => set!((a as i64).min(b as i64) as u64),
                Max => set!((a as i64).max(b as i64) as u64),
                Minu => set!(a.min(b)),
                Maxu => set!(a.max(b)),

                Addw | AddwI => set!(sext32(a.wrapping_add(b))),
                Subw => set!(sext32(a.wrapping_sub(b))),
                Shlw | ShlwI => set!(sext32(((a as u32) << (b & 31)) as u64)),
                Shrw | ShrwI => set!(sext32(((a as u32) >> (b & 31)) as u64)),
                Sraw | SrawI => set!(((a as i32) >> (b & 31)) as i64 as u64),
                Rotlw | RotlwI => set!(sext32((a as u32).rotate_left((b & 31) as u32) as u64)),
                Rotrw => set!(sext32((a as u32).rotate_right((b & 31) as u32) as u64)),

                Clz => set!(a.leading_zeros() as u64),
                Ctz => set!(a.trailing_zeros() as u64),
                Popc => set!(a.count_ones() as u64),
                Clzw => set!((a as u32).leading_zeros() as u64),
                Ctzw => set!((a as u32).trailing_zeros() as u64),
                Bswap => set!(a.swap_bytes()),
                Brev => set!(a.reverse_bits()),
                Sxtb => set!(a as i8 as i64 as u64),
                Sxth => set!(a as i16 as i64 as u64),
                Sxtw => set!(a as i32 as i64 as u64),
                Zxtb => set!(a & 0xff),
                Zxth => set!(a & 0xffff),
                Zxtw => set!(a & 0xffff_ffff),

                Mul | MulI => set!(a.wrapping_mul(b)),
                Mulw => set!(sext32(a.wrapping_mul(b))),
                Mulh => set!(mulh(a, b)),
                Mulhu => set!(mulhu(a, b)),
                Div => set!(div(a, b)),
                Divu => set!(divu(a, b)),
                Rem => set!(rem(a, b)),
                Remu => set!(remu(a, b)),
                Divw => set!(divw(a, b)),
                Divuw => set!(divuw(a, b)),
                Remw => set!(remw(a, b)),
                Remuw => set!(remuw(a, b)),

                CmpEq | CmpEqI => cmp!(a == b),
                CmpNe | CmpNeI => cmp!(a != b),
                CmpLt | CmpLtI => cmp!((a as i64) < (b as i64)),
                CmpLe | CmpLeI => cmp!((a as i64) <= (b as i64)),
                CmpGt | CmpGtI => cmp!((a as i64) > (b as i64)),
                CmpGe | CmpGeI => cmp!((a as i64) >= (b as i64)),
                CmpLtu | CmpLtuI => cmp!(a < b),
                CmpLeu | CmpLeuI => cmp!(a <= b),
                CmpGtu | CmpGtuI => cmp!(a > b),
                CmpGeu | CmpGeuI => cmp!(a >= b),
                CmpwEq | CmpwEqI => cmp!(a as u32 == b as u32),
                CmpwNe | CmpwNeI => cmp!(a as u32 != b as u32),
                CmpwLt | CmpwLtI => cmp!((a as i32) < (b as i32)),
                CmpwLe | CmpwLeI => cmp!((a as i32) <= (b as i32)),
                CmpwGt | CmpwGtI => cmp!((a as i32) > (b as i32)),
                CmpwGe | CmpwGeI => cmp!((a as i32) >= (b as i32)),
                CmpwLtu | CmpwLtuI => cmp!((a as u32) < (b as u32)),
                CmpwLeu | CmpwLeuI => cmp!((a as u32) <= (b as u32)),
                CmpwGtu | CmpwGtuI => cmp!((a as u32) > (b as u32)),
                CmpwGeu | CmpwGeuI => cmp!((a as u32) >= (b as u32)),

                Pand => set!(self.regs[op.ps1 as usize] & self.regs[op.ps2 as usize]),
                Por => set!(self.regs[op.ps1 as usize] | self.regs[op.ps2 as usize]),
                Pxor => set!(self.regs[op.ps1 as usize] ^ self.regs[op.ps2 as usize]),
                Pandn => set!(self.regs[op.ps1 as usize] & (self.regs[op.ps2 as usize] ^ 1)),
                Porn => set!(self.regs[op.ps1 as usize] | (self.regs[op.ps2 as usize] ^ 1)),
                Pnot => set!(self.regs[op.ps1 as usize] ^ 1),
                P2r => set!(self.regs[op.ps1 as usize]),
                R2p => set!((a != 0) as u64),

                LdB => set!(self.load::<1>(mem, addr)? as i8 as i64 as u64),
                LdBu => set!(self.load::<1>(mem, addr)?),
                LdH => set!(self.load::<2>(mem, addr)? as i16 as i64 as u64),
                LdHu => set!(self.load::<2>(mem, addr)?),
                LdW => set!(self.load::<4>(mem, addr)? as i32 as i64 as u64),
                LdWu => set!(self.load::<4>(mem, addr)?),
                LdD => set!(self.load::<8>(mem, addr)?),
                LdsB => set!(mem.load::<1>(addr).unwrap_or(0) as i8 as i64 as u64),
                LdsBu => set!(mem.load::<1>(addr).unwrap_or(0)),
                LdsH => set!(mem.load::<2>(addr).unwrap_or(0) as i16 as i64 as u64),
                LdsHu => set!(mem.load::<2>(addr).unwrap_or(0)),
                LdsW => set!(mem.load::<4>(addr).unwrap_or(0) as i32 as i64 as u64),
                LdsWu => set!(mem.load::<4>(addr).unwrap_or(0)),
                LdsD => set!(mem.load::<8>(addr).unwrap_or(0)),
                StB => self.store::<BUF, 1>(mem, addr, rs2)?,
                StH => self.store::<BUF, 2>(mem, addr, rs2)?,
                StW => self.store::<BUF, 4>(mem, addr, rs2)?,
                StD => self.store::<BUF, 8>(mem, addr, rs2)?,

                CasB | CasH | CasW | CasD => {
                    let new = self.regs[op.rs3 as usize];
                    let old = match op.opcode {
                        CasB => {
                            self.atomic::<BUF, 1>(mem, a, |old| (old == rs2 & 0xff).then_some(new))?
                        }
                        CasH => self
                            .atomic::<BUF, 2>(mem, a, |old| (old == rs2 & 0xffff).then_some(new))?,
                        CasW => self.atomic::<BUF, 4>(mem, a, |old| {
                            (old == rs2 & 0xffff_ffff).then_some(new)
                        })?,
                        _ => self.atomic::<BUF, 8>(mem, a, |old| (old == rs2).then_some(new))?,
                    };
                    set!(old)
                }
                AmoswapB | AmoaddB | AmoandB | AmoorB | AmoxorB | AmominB | AmomaxB | AmominuB
                | AmomaxuB => {
                    let old =
                        self.atomic::<BUF, 1>(mem, a, |old| Some(amo(op.opcode, old, rs2, 1)))?;
                    set!(old)
                }
                AmoswapH | AmoaddH | AmoandH | AmoorH | AmoxorH | AmominH | AmomaxH | AmominuH
                | AmomaxuH => {
                    let old =
                        self.atomic::<BUF, 2>(mem, a, |old| Some(amo(op.opcode, old, rs2, 2)))?;
                    set!(old)
                }
                AmoswapW | AmoaddW | AmoandW | AmoorW | AmoxorW | AmominW | AmomaxW | AmominuW
                | AmomaxuW => {
                    let old =
                        self.atomic::<BUF, 4>(mem, a, |old| Some(amo(op.opcode, old, rs2, 4)))?;
                    set!(old)
                }
                AmoswapD | AmoaddD | AmoandD | AmoorD | AmoxorD | AmominD | AmomaxD | AmominuD
                | AmomaxuD => {
                    let old =
                        self.atomic::<BUF, 8>(mem, a, |old| Some(amo(op.opcode, old, rs2, 8)))?;
                    set!(old)
                }

                FaddS => set!(of_f32(f32_of(a) + f32_of(rs2))),
                FaddD => set!(of_f64(f64_of(a) + f64_of(rs2))),
                FsubS => set!(of_f32(f32_of(a) - f32_of(rs2))),
                FsubD => set!(of_f64(f64_of(a) - f64_of(rs2))),
                FmulS => set!(of_f32(f32_of(a) * f32_of(rs2))),
                FmulD => set!(of_f64(f64_of(a) * f64_of(rs2))),
                FdivS => set!(of_f32(f32_of(a) / f32_of(rs2))),
                FdivD => set!(of_f64(f64_of(a) / f64_of(rs2))),
                FsqrtS => set!(of_f32(f32_of(a).sqrt())),
                FsqrtD => set!(of_f64(f64_of(a).sqrt())),
                FmaS => set!(of_f32(
                    f32_of(a).mul_add(f32_of(rs2), f32_of(self.regs[op.rs3 as usize]))
                )),
                FmaD => set!(of_f64(
                    f64_of(a).mul_add(f64_of(rs2), f64_of(self.regs[op.rs3 as usize]))
                )),
                FminS => set!(of_f32(f32_of(a).min(f32_of(rs2)))),
                FminD => set!(of_f64(f64_of(a).min(f64_of(rs2)))),
                FmaxS => set!(of_f32(f32_of(a).max(f32_of(rs2)))),
                FmaxD => set!(of_f64(f64_of(a).max(f64_of(rs2)))),
                FnegS => set!((a as u32 ^ 0x8000_0000) as u64),
                FnegD => set!(a ^ (1 << 63)),
                FabsS => set!((a as u32 & 0x7fff_ffff) as u64),
                FabsD => set!(a & !(1 << 63)),
                FcopysignS => set!(((a as u32 & 0x7fff_ffff) | (rs2 as u32 & 0x8000_0000)) as u64),
                FcopysignD => set!((a & !(1 << 63)) | (rs2 & (1 << 63))),
                FfloorS => set!(of_f32(f32_of(a).floor())),
                FfloorD => set!(of_f64(f64_of(a).floor())),
                FceilS => set!(of_f32(f32_of(a).ceil())),
                FceilD => set!(of_f64(f64_of(a).ceil())),
                FtruncS => set!(of_f32(f32_of(a).trunc())),
                FtruncD => set!(of_f64(f64_of(a).trunc())),
                FroundS => set!(of_f32(f32_of(a).round())),
                FroundD => set!(of_f64(f64_of(a).round())),
                FroundevenS => set!(of_f32(f32_of(a).round_ties_even())),
                FroundevenD => set!(of_f64(f64_of(a).round_ties_even())),
                FcvtDS => set!(of_f64(f32_of(a) as f64)),
                FcvtSD => set!(of_f32(f64_of(a) as f32)),
                FcvtSL => set!(of_f32(a as i64 as f32)),
                FcvtSLu => set!(of_f32(a as f32)),
                FcvtSW => set!(of_f32(a as i32 as f32)),
                FcvtSWu => set!(of_f32(a as u32 as f32)),
                FcvtDL => set!(of_f64(a as i64 as f64)),
                FcvtDLu => set!(of_f64(a as f64)),
                FcvtDW => set!(of_f64(a as i32 as f64)),
                FcvtDWu => set!(of_f64(a as u32 as f64)),
                FcvtLS => set!(f32_of(a) as i64 as u64),
                FcvtLuS => set!(f32_of(a) as u64),
                FcvtWS => set!(f32_of(a) as i32 as i64 as u64),
                FcvtWuS => set!(f32_of(a) as u32 as u64),
                FcvtLD => set!(f64_of(a) as i64 as u64),
                FcvtLuD => set!(f64_of(a) as u64),
                FcvtWD => set!(f64_of(a) as i32 as i64 as u64),
                FcvtWuD => set!(f64_of(a) as u32 as u64),
                FcmpEqS => cmp!(f32_of(a) == f32_of(rs2)),
                FcmpNeS => cmp!(f32_of(a) != f32_of(rs2)),
                FcmpLtS => cmp!(f32_of(a) < f32_of(rs2)),
                FcmpLeS => cmp!(f32_of(a) <= f32_of(rs2)),
                FcmpGtS => cmp!(f32_of(a) > f32_of(rs2)),
                FcmpGeS => cmp!(f32_of(a) >= f32_of(rs2)),
                FcmpUnoS => cmp!(f32_of(a).is_nan() || f32_of(rs2).is_nan()),
                FcmpOrdS => cmp!(!f32_of(a).is_nan() && !f32_of(rs2).is_nan()),
                FcmpEqD => cmp!(f64_of(a) == f64_of(rs2)),
                FcmpNeD => cmp!(f64_of(a) != f64_of(rs2)),
                FcmpLtD => cmp!(f64_of(a) < f64_of(rs2)),
                FcmpLeD => cmp!(f64_of(a) <= f64_of(rs2)),
                FcmpGtD => cmp!(f64_of(a) > f64_of(rs2)),
                FcmpGeD => cmp!(f64_of(a) >= f64_of(rs2)),
                FcmpUnoD => cmp!(f64_of(a).is_nan() || f64_of(rs2).is_nan()),
                FcmpOrdD => cmp!(!f64_of(a).is_nan() && !f64_of(rs2).is_nan()),

                // Control: only the first enabled one in slot order takes effect.
                Br | Call | Jr | Callr | Ret | Syscall | Trap => {
                    if ctl != Ctl::Next {
                        continue;
                    }
                    ctl = match op.opcode {
                        Br => Ctl::Jump {
                            target: op.target,
                            addr: op.aux,
                        },
                        Call => {
                            self.set::<BUF>(LR, imm);
                            self.ready[LR as usize] = done;
                            Ctl::Jump {
                                target: op.target,
                                addr: op.aux,
                            }
                        }
                        Callr => {
                            self.set::<BUF>(LR, imm);
                            self.ready[LR as usize] = done;
                            Ctl::JumpTo(a)
                        }
                        Jr | Ret => Ctl::JumpTo(a),
                        Syscall => {
                            self.sys_args.copy_from_slice(&self.regs[3..9]);
                            self.sys_wpos = self.wlen;
                            Ctl::Syscall(op.imm)
                        }
                        _ => Ctl::Trap(op.imm),
                    };
                }
            }
        }
        if BUF {
            self.commit_buffered(mem);
        }
        Ok(ctl)
    }
}

/// The value an `amo*` operation of `bytes` bytes stores, given the old value
/// (zero-extended) and the operand.
#[inline(always)]
fn amo(opcode: Opcode, old: u64, operand: u64, bytes: usize) -> u64 {
    use Opcode::*;
    let mask = if bytes == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * bytes)) - 1
    };
    let operand = operand & mask;
    let value = match opcode {
        AmoswapB | AmoswapH | AmoswapW | AmoswapD => operand,
        AmoaddB | AmoaddH | AmoaddW | AmoaddD => old.wrapping_add(operand),
        AmoandB | AmoandH | AmoandW | AmoandD => old & operand,
        AmoorB | AmoorH | AmoorW | AmoorD => old | operand,
        AmoxorB | AmoxorH | AmoxorW | AmoxorD => old ^ operand,
        AmominB | AmominH | AmominW | AmominD => {
            if sext(old, bytes) <= sext(operand, bytes) {
                old
            } else {
                operand
            }
        }
        AmomaxB | AmomaxH | AmomaxW | AmomaxD => {
            if sext(old, bytes) >= sext(operand, bytes) {
                old
            } else {
                operand
            }
        }
        AmominuB | AmominuH | AmominuW | AmominuD => old.min(operand),
        _ => old.max(operand),
    };
    value & mask
}
