//! The simulator: a loaded program and the issue loop with its timing model.
//!
//! Per bundle: check the interlock (stall until every register and predicate the
//! bundle reads is ready, or fault in strict mode), check the cycle limit, trace,
//! execute (`exec.rs`), then count the bundle and perform its control transfer or
//! system call.

use crate::exec::{Cpu, Ctl, MemStop};
use crate::fault::{Fault, FaultKind};
use crate::fs::FileSystem;
use crate::io::Io;
use crate::loader::{LoadError, setup_stack};
use crate::memory::{MemError, Memory};
use crate::options::Options;
use crate::predecode::{
    BUFFERED, Bundle, Code, EXTRA_CYCLES_SHIFT, ILLEGAL, NONE, PRED_BASE, SINK,
};
use crate::profile::{CallCounts, Profile};
use crate::program::{Program, SymbolTable};
use crate::stats::Stats;
use crate::syscall::{SysResult, System};
use crate::trace;
use std::io::Write;
use vliw_elf::LineTable;
use vliw_isa::Opcode;

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The `exit` system call, with its status (`code & 0xff`).
    Exit(i32),
    Fault(Fault),
}

impl Outcome {
    /// The exit status `vliw-run` returns.
    pub fn exit_status(&self) -> i32 {
        match self {
            Outcome::Exit(code) => *code,
            Outcome::Fault(f) => f.exit_status(),
        }
    }
}

/// A loaded program, ready to run.
pub struct Simulator {
    code: Code,
    cpu: Cpu,
    mem: Memory,
    symbols: SymbolTable,
    lines: LineTable,
    sys: System,
    trace: Option<Box<dyn Write + Send>>,
    profile: Option<Profile>,
    unwind_check: Option<crate::unwind_check::UnwindCheck>,
    frames: Option<crate::FrameSections>,
    stats: Stats,
    strict: bool,
    max_cycles: u64,
    branch_penalty: u64,
    syscall_latency: u64,
    /// The bundle to execute next.
    pc: u32,
    outcome: Option<Outcome>,
}

impl Simulator {
    /// Loads `program` (maps its segments, predecodes its text, builds the stack
    /// with `argv` and `envp`, each a string without its NUL, envp as `KEY=VALUE`).
    pub fn new(
        program: &Program,
        options: &Options,
        argv: &[Vec<u8>],
        envp: &[Vec<u8>],
        io: Box<dyn Io + Send>,
    ) -> Result<Simulator, LoadError> {
        let mut mem = Memory::new(&program.segments, options.stack_size, options.heap_size)
            .map_err(LoadError)?;
        let texts: Vec<(u64, &[u8])> = program
            .segments
            .iter()
            .filter(|s| s.execute && !s.data.is_empty())
            .map(|s| (s.vaddr, s.data.as_slice()))
            .collect();
        if texts.is_empty() {
            return Err(LoadError(
                "no text: the program has no executable segment with contents".to_string(),
            ));
        }
        let code = Code::new(&texts, &options.machine);
        let pc = code.lookup(program.entry);
        if pc == NONE {
            return Err(LoadError(format!(
                "the entry point {:#x} is not the start of a bundle in text",
                program.entry
            )));
        }
        let setup = setup_stack(&mut mem, argv, envp)?;
        let fs = FileSystem::new(&options.dirs).map_err(LoadError)?;
        let mut cpu = Cpu::new();
        cpu.regs[1] = setup.sp;
        cpu.regs[3] = argv.len() as u64;
        cpu.regs[4] = setup.argv;
        cpu.regs[5] = setup.envp;
        Ok(Simulator {
            code,
            cpu,
            mem,
            symbols: SymbolTable::new(&program.symbols),
            lines: program.lines.clone(),
            sys: System::new(io, options.seed, fs),
            trace: None,
            profile: None,
            unwind_check: None,
            frames: program.frames,
            stats: Stats::default(),
            strict: options.strict,
            max_cycles: options.max_cycles.unwrap_or(u64::MAX),
            branch_penalty: options.machine.taken_branch_penalty as u64,
            syscall_latency: options.machine.latency(Opcode::Syscall.latency_class()) as u64,
            pc,
            outcome: None,
        })
    }

    /// Writes one line per executed bundle to `out`.
    pub fn set_trace(&mut self, out: Box<dyn Write + Send>) {
        self.trace = Some(out);
    }

    /// Counts what the calls of the functions `names` execute, callees included
    /// (`profile.rs`); an error names a function the program does not define.
    pub fn set_profile(&mut self, names: &[String]) -> Result<(), String> {
        self.profile = Some(Profile::new(names, &self.symbols)?);
        Ok(())
    }

    /// Checks the caller's call-frame information at every call
    /// (`unwind_check.rs`); an error says why it cannot (no `.eh_frame_hdr`).
    pub fn set_unwind_check(&mut self) -> Result<(), String> {
        let sections = self
            .frames
            .ok_or("--check-unwind: the program has no .eh_frame and .eh_frame_hdr")?;
        self.unwind_check = Some(crate::unwind_check::UnwindCheck::new(
            sections,
            &self.mem,
            &self.cpu.regs,
        )?);
        Ok(())
    }

    /// `(checked, without_fde)`: the calls whose caller's frame `--check-unwind`
    /// checked, and those from functions without an FDE.
    pub fn unwind_check_counts(&self) -> Option<(u64, u64)> {
        self.unwind_check
            .as_ref()
            .map(|c| (c.checked, c.without_fde))
    }

    /// The call profile's totals per function, in the order named, when
    /// `set_profile` was called.
    pub fn profile(&self) -> Option<&[CallCounts]> {
        self.profile.as_ref().map(Profile::totals)
    }

    /// Runs until the program exits or faults. Flushes the guest's output and the
    /// trace. Calling it again returns the same outcome.
    pub fn run(&mut self) -> Outcome {
        if let Some(outcome) = &self.outcome {
            return outcome.clone();
        }
        let outcome =
            if self.trace.is_some() || self.profile.is_some() || self.unwind_check.is_some() {
                self.run_loop::<true>()
            } else {
                self.run_loop::<false>()
            };
        if let Some(t) = &mut self.trace {
            let _ = t.flush();
        }
        let _ = self.sys.io.flush();
        self.outcome = Some(outcome.clone());
        outcome
    }

    pub fn stats(&self) -> Stats {
        Stats {
            cycles: self.cpu.cycle,
            ..self.stats
        }
    }

    /// General register `rN`.
    pub fn reg(&self, n: u8) -> u64 {
        if n < 64 { self.cpu.regs[n as usize] } else { 0 }
    }

    /// Predicate `pN`.
    pub fn pred(&self, n: u8) -> bool {
        n < 16 && self.cpu.regs[(PRED_BASE + n) as usize] != 0
    }

    pub fn memory(&self) -> &Memory {
        &self.mem
    }

    pub fn memory_mut(&mut self) -> &mut Memory {
        &mut self.mem
    }

    /// The address of the bundle that executes next (or that faulted).
    pub fn pc(&self) -> u64 {
        self.code
            .bundles
            .get(self.pc as usize)
            .map_or(0, |b| b.addr)
    }

    fn fault(&self, kind: FaultKind, address: u64, bundle_address: u64) -> Outcome {
        let function = self
            .symbols
            .lookup(bundle_address)
            .map(|(name, offset)| (name.to_string(), offset));
        let source = self.lines.lookup(bundle_address).map(|l| l.to_location());
        Outcome::Fault(Fault {
            kind,
            address,
            bundle_address,
            function,
            source,
        })
    }

    fn mem_fault(&self, stop: MemStop, bundle_address: u64) -> Outcome {
        let kind = match stop.error {
            MemError::Unmapped => FaultKind::Unmapped(stop.access),
            MemError::ReadOnly => FaultKind::ReadOnly(stop.access),
            MemError::StackOverflow => FaultKind::StackOverflow(stop.access),
            MemError::Misaligned => FaultKind::Misaligned(stop.access),
        };
        self.fault(kind, stop.addr, bundle_address)
    }

    /// The strict-mode fault of bundle `b`, which would stall until `issue`.
    #[cold]
    fn stall_fault(&self, b: &Bundle, issue: u64) -> Outcome {
        let late = self
            .code
            .srcs(b)
            .iter()
            .copied()
            .max_by_key(|&r| self.cpu.ready[r as usize])
            .unwrap_or(SINK);
        let register = if late < PRED_BASE {
            format!("r{late}")
        } else {
            format!("p{}", late - PRED_BASE)
        };
        let cycles = issue - self.cpu.cycle;
        self.fault(FaultKind::LatencyStall { register, cycles }, 0, b.addr)
    }

    /// The issue loop. `TRACE` (a trace or a profile is kept) is a constant so that
    /// the ordinary loop has no such code at all.
    fn run_loop<const TRACE: bool>(&mut self) -> Outcome {
        let mut idx = self.pc;
        loop {
            self.pc = idx;
            let b = self.code.bundles[idx as usize];
            if b.flags & ILLEGAL != 0 {
                let reason = self.code.errors[b.ops_start as usize].clone();
                return self.fault(FaultKind::IllegalBundle { reason }, b.addr, b.addr);
            }
            if TRACE && let Some(profile) = self.profile.as_mut() {
                let now = Stats {
                    cycles: self.cpu.cycle,
                    ..self.stats
                };
                profile.observe(b.addr, now);
            }
            // Interlock.
            let mut issue = self.cpu.cycle;
            for &r in self.code.srcs(&b) {
                issue = issue.max(self.cpu.ready[r as usize]);
            }
            if issue > self.cpu.cycle {
                if self.strict {
                    return self.stall_fault(&b, issue);
                }
                self.stats.stalls += issue - self.cpu.cycle;
                self.cpu.cycle = issue;
            }
            if self.cpu.cycle >= self.max_cycles {
                return self.fault(FaultKind::CycleLimit(self.max_cycles), 0, b.addr);
            }
            if TRACE && let Some(out) = self.trace.as_mut() {
                let _ = trace::write_bundle(
                    out,
                    &self.code,
                    &b,
                    &self.cpu.regs,
                    self.cpu.cycle,
                    &self.symbols,
                    &self.lines,
                );
            }
            // the guards as the bundle reads them, to tell which control operation
            // took effect
            let guards = if TRACE && self.unwind_check.is_some() {
                Some(self.cpu.regs)
            } else {
                None
            };
            // Execute.
            let mut nullified = 0;
            let ops = self.code.ops(&b);
            let result = if b.flags & BUFFERED != 0 {
                self.cpu.exec::<true>(&mut self.mem, ops, &mut nullified)
            } else {
                self.cpu.exec::<false>(&mut self.mem, ops, &mut nullified)
            };
            let ctl = match result {
                Ok(ctl) => ctl,
                Err(stop) => return self.mem_fault(stop, b.addr),
            };
            if TRACE
                && let Some(before) = guards
                && let Err(what) = self.observe_control(&b, &before, ctl)
            {
                return self.fault(FaultKind::BadUnwindInfo(what), 0, b.addr);
            }
            // After the bundle.
            let target = match ctl {
                Ctl::Next => b.next,
                Ctl::Jump { target, addr } => {
                    if target == NONE {
                        return self.fault(FaultKind::BadJump, addr, b.addr);
                    }
                    self.stats.branches += 1;
                    self.cpu.cycle += self.branch_penalty;
                    target
                }
                Ctl::JumpTo(addr) => {
                    let target = self.code.lookup(addr);
                    if target == NONE {
                        return self.fault(FaultKind::BadJump, addr, b.addr);
                    }
                    self.stats.branches += 1;
                    self.cpu.cycle += self.branch_penalty;
                    target
                }
                Ctl::Syscall(number) => {
                    if TRACE && let Some(out) = self.trace.as_mut() {
                        let _ = out.flush();
                    }
                    let issue = self.cpu.cycle;
                    match self.sys.call(
                        number,
                        &self.cpu.sys_args,
                        &mut self.mem,
                        issue,
                        &self.symbols,
                    ) {
                        SysResult::Value(v) => {
                            // The result is written in the system call's slot: a
                            // later slot's write to r3 wins (such bundles are buffered).
                            if b.flags & BUFFERED == 0 || !self.cpu.r3_written_after_syscall() {
                                self.cpu.regs[3] = v;
                                self.cpu.ready[3] = issue + self.syscall_latency;
                            }
                        }
                        SysResult::Exit(code) => {
                            self.count_bundle(&b, nullified);
                            return Outcome::Exit(code);
                        }
                    }
                    b.next
                }
                Ctl::Trap(code) => return self.fault(FaultKind::Trap(code), 0, b.addr),
            };
            // Jumps to no bundle have faulted above: NONE here is the sequential
            // successor of the last bundle of text.
            if target == NONE {
                return self.fault(
                    FaultKind::FellOffText,
                    b.addr + 8 * b.syllables as u64,
                    b.addr,
                );
            }
            self.count_bundle(&b, nullified);
            idx = target;
        }
    }

    /// `--check-unwind`: a taken call checks its caller's frame, a taken indirect
    /// jump (`ret`) pops the shadow stack. `before` is the register file the
    /// bundle's guards read.
    #[cold]
    fn observe_control(&mut self, b: &Bundle, before: &[u64], ctl: Ctl) -> Result<(), String> {
        if matches!(ctl, Ctl::Next | Ctl::Syscall(_) | Ctl::Trap(_)) {
            return Ok(());
        }
        let taken = self.code.ops(b).iter().find(|op| {
            matches!(
                op.opcode,
                Opcode::Br
                    | Opcode::Call
                    | Opcode::Jr
                    | Opcode::Callr
                    | Opcode::Ret
                    | Opcode::Syscall
                    | Opcode::Trap
            ) && (before[op.guard as usize] ^ op.guard_xor as u64) != 0
        });
        let Some(check) = self.unwind_check.as_mut() else {
            return Ok(());
        };
        match (taken.map(|op| op.opcode), ctl) {
            (Some(Opcode::Call | Opcode::Callr), _) => check.call(&self.cpu.regs, &self.mem),
            (Some(Opcode::Ret | Opcode::Jr), Ctl::JumpTo(addr)) => {
                check.jump(addr, self.cpu.regs[vliw_isa::Gpr::SP.num() as usize]);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    #[inline(always)]
    fn count_bundle(&mut self, b: &Bundle, nullified: u64) {
        // one cycle, and what a `nop N` adds
        self.cpu.cycle += 1 + u64::from(b.flags >> EXTRA_CYCLES_SHIFT);
        self.stats.bundles += 1;
        self.stats.ops += b.work as u64;
        self.stats.nullified += nullified;
    }
}
