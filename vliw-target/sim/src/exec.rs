//! Execution of the operations of a bundle from the predecoded form; what each
//! operation computes is `vliw_isa::semantics`, shared with the back end.
//!
//! `Cpu::exec` runs the operations of one bundle. With `BUF = false` (most bundles)
//! each operation writes its results at once: predecoding ordered the operations so
//! that this equals reading everything first. With `BUF = true` register writes and
//! memory writes are collected and applied in slot order at the end of the bundle.
//! Control operations only record what should happen after the bundle (`Ctl`).

use crate::fault::{Access, AccessKind};
use crate::memory::{MemError, Memory};
use crate::predecode::{LR, Op, REG_FILE};
use vliw_isa::Opcode;
use vliw_isa::semantics as sem;

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
            // Operands are read where an arm needs them (as the machine reads them all
            // before any write: each arm reads before it writes, and predecoding
            // ordered the operations so that this is the same).
            macro_rules! a {
                () => {
                    self.regs[op.rs1 as usize]
                };
            }
            macro_rules! rs2 {
                () => {
                    self.regs[op.rs2 as usize]
                };
            }
            let imm = op.imm as u64;
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
            macro_rules! addr {
                () => {
                    sem::address(a!(), imm)
                };
            }
            macro_rules! load {
                ($n:literal) => {
                    set!(sem::load_value(op.opcode, self.load::<$n>(mem, addr!())?))
                };
            }
            macro_rules! load_speculative {
                ($n:literal) => {
                    set!(sem::speculative_load(
                        op.opcode,
                        mem.load::<$n>(addr!()).ok()
                    ))
                };
            }
            macro_rules! store {
                ($n:literal) => {
                    self.store::<BUF, $n>(mem, addr!(), sem::store_value(op.opcode, rs2!()))?
                };
            }
            macro_rules! cas {
                ($n:literal) => {{
                    let (a, rs2, new) = (a!(), rs2!(), self.regs[op.rs3 as usize]);
                    let old =
                        self.atomic::<BUF, $n>(mem, a, |old| sem::cas(op.opcode, old, rs2, new))?;
                    set!(old)
                }};
            }
            macro_rules! amo {
                ($n:literal) => {{
                    let (a, rs2) = (a!(), rs2!());
                    let old =
                        self.atomic::<BUF, $n>(mem, a, |old| Some(sem::amo(op.opcode, old, rs2)))?;
                    set!(old)
                }};
            }
            macro_rules! p {
                ($i:expr) => {
                    (self.regs[$i as usize] != 0)
                };
            }
            // Every operation's result comes from `vliw_isa::semantics`; this match
            // only routes operands and results (registers, memory, control). The
            // operations computed from operands alone get one arm each, their opcode a
            // constant there, so that the semantic function folds into the arm.
            macro_rules! dispatch {
                (
                    value: [$($v:ident),*],
                    value_imm: [$($vi:ident),*],
                    compare: [$($c:ident),*],
                    compare_imm: [$($ci:ident),*],
                    predicate_logic: [$($l:ident),*]
                ) => {
                    match op.opcode {
                        $(Opcode::$v => {
                            let c = self.regs[op.rs3 as usize];
                            set!(sem::value(Opcode::$v, a!(), rs2!(), c))
                        })*
                        $(Opcode::$vi => set!(sem::value(Opcode::$vi, a!(), imm, 0)),)*
                        $(Opcode::$c => cmp!(sem::condition(Opcode::$c, a!(), rs2!())),)*
                        $(Opcode::$ci => cmp!(sem::condition(Opcode::$ci, a!(), imm)),)*
                        $(Opcode::$l => {
                            set!(sem::predicate_logic(Opcode::$l, p!(op.ps1), p!(op.ps2)) as u64)
                        })*
                        Nop | NopN | Limm | Fence => {}
                        Sel => set!(sem::sel(p!(op.ps1), a!(), rs2!())),
                        P2r => set!(sem::p2r(p!(op.ps1))),
                        R2p => set!(sem::r2p(a!()) as u64),

                        LdB | LdBu => load!(1),
                        LdH | LdHu => load!(2),
                        LdW | LdWu => load!(4),
                        LdD => load!(8),
                        LdsB | LdsBu => load_speculative!(1),
                        LdsH | LdsHu => load_speculative!(2),
                        LdsW | LdsWu => load_speculative!(4),
                        LdsD => load_speculative!(8),
                        StB => store!(1),
                        StH => store!(2),
                        StW => store!(4),
                        StD => store!(8),

                        CasB => cas!(1),
                        CasH => cas!(2),
                        CasW => cas!(4),
                        CasD => cas!(8),
                        AmoswapB | AmoaddB | AmoandB | AmoorB | AmoxorB | AmominB | AmomaxB | AmominuB
                        | AmomaxuB => amo!(1),
                        AmoswapH | AmoaddH | AmoandH | AmoorH | AmoxorH | AmominH | AmomaxH | AmominuH
                        | AmomaxuH => amo!(2),
                        AmoswapW | AmoaddW | AmoandW | AmoorW | AmoxorW | AmominW | AmomaxW | AmominuW
                        | AmomaxuW => amo!(4),
                        AmoswapD | AmoaddD | AmoandD | AmoorD | AmoxorD | AmominD | AmomaxD | AmominuD
                        | AmomaxuD => amo!(8),

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
                                    let target = a!();
                                    self.set::<BUF>(LR, imm);
                                    self.ready[LR as usize] = done;
                                    Ctl::JumpTo(target)
                                }
                                Jr | Ret => Ctl::JumpTo(a!()),
                                Syscall => {
                                    self.sys_args.copy_from_slice(&self.regs[3..9]);
                                    self.sys_wpos = self.wlen;
                                    Ctl::Syscall(op.imm)
                                }
                                _ => Ctl::Trap(op.imm),
                            };
                        }
                    }
                };
            }
            vliw_isa::with_opcode_lists!(dispatch);
        }
        if BUF {
            self.commit_buffered(mem);
        }
        Ok(ctl)
    }
}
