//! The simulator: a loaded program and the issue loop with its timing model.
//!
//! Per bundle: check the interlock (stall until every register and predicate the
//! bundle reads is ready, or fault in strict mode), check the cycle limit, trace,
//! execute (`exec.rs`), then count the bundle and perform its control transfer or
//! system call.
//!
//! Guest threads (`threads.rs`): the registers in `cpu` are the running thread's;
//! the others' are saved in `threads`. The issue loop compares the cycle with one
//! limit, `stop_at`, the nearest of the cycle limit, the end of the running
//! thread's slice (when another thread is ready) and the earliest deadline of a
//! timed wait; only reaching it leads to the (cold) scheduler, so a program with
//! one thread runs the loop it ran before threads existed.

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
use crate::rng::SplitMix64;
use crate::stats::Stats;
use crate::syscall::{SysResult, System};
use crate::threads::{MAX_LIVE_THREADS, Saved, State, Thread, ThreadStats, Wait, backtrace};
use crate::trace;
use crate::{BlockedThread, Waiting};
use std::collections::VecDeque;
use std::io::Write;
use vliw_elf::LineTable;
use vliw_isa::Opcode;
use vliw_isa::abi::STACK_GUARD_SIZE;
use vliw_isa::abi::syscall as sc;

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
    /// Every thread so far, by id − 1; `current` runs, its registers in `cpu`.
    threads: Vec<Thread>,
    current: usize,
    /// The threads ready to run, in the order they became ready.
    ready_queue: VecDeque<usize>,
    /// Threads not finished.
    live: usize,
    /// The issue loop leaves for `tick` when the cycle reaches this.
    stop_at: u64,
    /// The end of the running thread's slice.
    slice_end: u64,
    /// The global counters when the running thread's slice began.
    slice_start: Stats,
    quantum: u64,
    /// With `--seed`: picks the next thread and each slice's length.
    sched_rng: Option<SplitMix64>,
    /// Counts the blocking of threads (the order of futex waiters).
    block_seq: u64,
    /// Thread switches.
    switches: u64,
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
            threads: vec![Thread::new(1, None)],
            current: 0,
            ready_queue: VecDeque::new(),
            live: 1,
            stop_at: options.max_cycles.unwrap_or(u64::MAX),
            slice_end: u64::MAX,
            slice_start: Stats::default(),
            quantum: options.quantum.max(1),
            sched_rng: options
                .seed
                .map(|s| SplitMix64::new(s ^ 0x7468_7265_6164_7321)),
            block_seq: 0,
            switches: 0,
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

    /// What each thread ran, by id (the running thread's slice so far included).
    pub fn thread_stats(&self) -> Vec<ThreadStats> {
        let now = self.stats();
        self.threads
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let mut s = t.stats;
                if i == self.current && t.state == State::Running {
                    add_slice(&mut s, &self.slice_start, &now);
                }
                s
            })
            .collect()
    }

    /// Thread switches so far.
    pub fn thread_switches(&self) -> u64 {
        self.switches
    }

    /// Nanoseconds the monotonic clock was advanced while every thread slept.
    pub fn idle_ns(&self) -> u64 {
        self.sys.idle_ns
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
            thread: (self.threads.len() > 1).then(|| self.threads[self.current].tid),
        })
    }

    fn mem_fault(&self, stop: MemStop, bundle_address: u64) -> Outcome {
        let kind = match stop.error {
            // in the guard region below a thread's stack
            MemError::Unmapped
                if self.threads.iter().any(|t| {
                    t.stack_base.is_some_and(|base| {
                        (base.saturating_sub(STACK_GUARD_SIZE)..base).contains(&stop.addr)
                    })
                }) =>
            {
                FaultKind::StackOverflow(stop.access)
            }
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
            if self.cpu.cycle >= self.stop_at {
                if self.cpu.cycle >= self.max_cycles {
                    return self.fault(FaultKind::CycleLimit(self.max_cycles), 0, b.addr);
                }
                if self.tick() {
                    // another thread runs now
                    idx = self.pc;
                    continue;
                }
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
                    if (sc::THREAD_FIRST..=sc::THREAD_LAST).contains(&number) {
                        if b.next == NONE && number != sc::EXIT_THREAD {
                            return self.fault(
                                FaultKind::FellOffText,
                                b.addr + 8 * b.syllables as u64,
                                b.addr,
                            );
                        }
                        self.count_bundle(&b, nullified);
                        if let Err(outcome) = self.thread_call(number, &b, issue) {
                            return outcome;
                        }
                        idx = self.pc;
                        continue;
                    }
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

    // ---- Threads (threads.rs) ----

    /// The monotonic clock: cycles, and the time skipped while every thread slept.
    fn now_ns(&self) -> u64 {
        self.cpu.cycle.saturating_add(self.sys.idle_ns)
    }

    /// The issue loop reached `stop_at` (below the cycle limit): wakes the threads
    /// whose timed wait has expired and, at the end of the slice, lets the next
    /// ready thread run. Returns whether another thread runs now.
    #[cold]
    #[inline(never)]
    fn tick(&mut self) -> bool {
        self.wake_expired();
        if self.cpu.cycle >= self.slice_end && !self.ready_queue.is_empty() {
            let cur = self.current;
            self.save_current(State::Ready);
            self.ready_queue.push_back(cur);
            let next = self.pick();
            self.switch_in(next);
            return next != cur;
        }
        self.update_stop();
        false
    }

    /// Sets `stop_at`: the cycle limit, the end of the slice if another thread is
    /// ready, the earliest deadline of a timed wait.
    fn update_stop(&mut self) {
        let mut stop = self.max_cycles;
        if !self.ready_queue.is_empty() {
            stop = stop.min(self.slice_end);
        }
        if let Some(deadline) = self.earliest_deadline() {
            stop = stop.min(deadline.saturating_sub(self.sys.idle_ns));
        }
        self.stop_at = stop;
    }

    fn earliest_deadline(&self) -> Option<u64> {
        self.threads
            .iter()
            .filter_map(|t| match t.state {
                State::Blocked { wait, .. } => wait.deadline(),
                _ => None,
            })
            .min()
    }

    /// Wakes every thread whose deadline has passed: a futex wait times out, a
    /// sleep ends.
    fn wake_expired(&mut self) {
        let now = self.now_ns();
        for i in 0..self.threads.len() {
            if let State::Blocked { wait, .. } = self.threads[i].state
                && let Some(deadline) = wait.deadline()
                && deadline <= now
            {
                let result = match wait {
                    Wait::Futex { .. } => (-sc::ETIMEDOUT) as u64,
                    _ => 0,
                };
                self.wake(i, result);
            }
        }
    }

    /// Makes blocked thread `i` ready, its system call returning `result`.
    fn wake(&mut self, i: usize, result: u64) {
        let ready_at = self.cpu.cycle + self.syscall_latency;
        let t = &mut self.threads[i];
        debug_assert!(matches!(t.state, State::Blocked { .. }));
        if t.writes_r3 {
            let saved = t.saved.as_mut().expect("a blocked thread is saved");
            saved.regs[3] = result;
            saved.ready[3] = ready_at;
        }
        self.make_ready(i);
    }

    /// The running thread's slice starts now: when it is switched in, and when
    /// another thread becomes ready while it ran alone.
    fn new_slice(&mut self) {
        let length = match &mut self.sched_rng {
            Some(rng) => self.quantum / 2 + rng.next() % self.quantum,
            None => self.quantum,
        };
        self.slice_end = self.cpu.cycle.saturating_add(length.max(1));
    }

    /// Puts thread `i` on the ready queue.
    fn make_ready(&mut self, i: usize) {
        if self.ready_queue.is_empty() {
            self.new_slice();
        }
        self.threads[i].state = State::Ready;
        self.ready_queue.push_back(i);
    }

    /// Takes the next thread to run off the ready queue (which is not empty).
    fn pick(&mut self) -> usize {
        let k = match &mut self.sched_rng {
            Some(rng) => (rng.next() % self.ready_queue.len() as u64) as usize,
            None => 0,
        };
        self.ready_queue.remove(k).expect("a ready thread")
    }

    /// Switches the running thread out into `state`: its pending results are
    /// drained (the cycle advances to the last ready cycle of its registers), its
    /// slice is accounted and its registers saved, continuing at `self.pc`.
    fn save_current(&mut self, state: State) {
        let last = self.cpu.ready[..crate::predecode::SINK as usize]
            .iter()
            .copied()
            .max()
            .unwrap_or(0);
        if last > self.cpu.cycle {
            self.stats.stalls += last - self.cpu.cycle;
            self.cpu.cycle = last;
        }
        let now = self.stats();
        let t = &mut self.threads[self.current];
        add_slice(&mut t.stats, &self.slice_start, &now);
        t.state = state;
        if state == State::Finished {
            t.saved = None;
            return;
        }
        let saved = t.saved.get_or_insert_with(|| {
            Box::new(Saved {
                regs: [0; crate::predecode::REG_FILE],
                ready: [0; crate::predecode::REG_FILE],
                pc: 0,
            })
        });
        saved.regs = self.cpu.regs;
        saved.ready = self.cpu.ready;
        saved.pc = self.pc;
    }

    /// Thread `i` (ready) runs from now on, for a slice.
    fn switch_in(&mut self, i: usize) {
        let t = &mut self.threads[i];
        let saved = t.saved.as_ref().expect("a ready thread is saved");
        self.cpu.regs = saved.regs;
        self.cpu.ready = saved.ready;
        self.pc = saved.pc;
        t.state = State::Running;
        t.stats.slices += 1;
        if i != self.current {
            self.switches += 1;
        }
        self.current = i;
        self.slice_start = self.stats();
        self.new_slice();
        if let Some(check) = self.unwind_check.as_mut() {
            check.switch(i);
        }
        if let Some(out) = self.trace.as_mut() {
            let tid = self.threads[i].tid;
            let _ = writeln!(out, "{:>8} -- thread {tid} runs", self.cpu.cycle);
        }
        self.update_stop();
    }

    /// The running thread has blocked or ended: the next ready thread runs; when
    /// none is, the clock skips to the earliest deadline of a timed wait; when
    /// there is none, every thread waits for another: a deadlock.
    #[allow(clippy::result_large_err)] // cold: the outcome ends the run
    fn reschedule(&mut self) -> Result<(), Outcome> {
        if self.ready_queue.is_empty() {
            self.wake_expired();
        }
        if self.ready_queue.is_empty() {
            let Some(deadline) = self.earliest_deadline() else {
                return Err(self.deadlock());
            };
            let now = self.now_ns();
            self.sys.idle_ns += deadline.saturating_sub(now);
            self.wake_expired();
        }
        let next = self.pick();
        self.switch_in(next);
        Ok(())
    }

    /// The running thread blocks in the system call of bundle `b`.
    #[allow(clippy::result_large_err)] // cold: the outcome ends the run
    fn block(&mut self, wait: Wait, b: &Bundle) -> Result<(), Outcome> {
        self.block_seq += 1;
        let state = State::Blocked {
            wait,
            seq: self.block_seq,
            bundle: b.addr,
        };
        self.threads[self.current].writes_r3 =
            b.flags & BUFFERED == 0 || !self.cpu.r3_written_after_syscall();
        self.save_current(state);
        self.reschedule()
    }

    /// Writes a system call's result to r3 (unless a later slot of its bundle
    /// wrote r3).
    fn set_result(&mut self, b: &Bundle, value: u64, issue: u64) {
        if b.flags & BUFFERED == 0 || !self.cpu.r3_written_after_syscall() {
            self.cpu.regs[3] = value;
            self.cpu.ready[3] = issue + self.syscall_latency;
        }
    }

    /// The thread system calls (`vliw_isa::abi::syscall::SPAWN`..). The bundle has
    /// been counted; `self.pc` is where the running thread goes on afterwards
    /// (another thread's bundle if it blocked).
    #[cold]
    #[inline(never)]
    #[allow(clippy::result_large_err)] // cold: the outcome ends the run
    fn thread_call(&mut self, number: i64, b: &Bundle, issue: u64) -> Result<(), Outcome> {
        let [a0, a1, a2, a3, a4, _] = self.cpu.sys_args;
        self.pc = b.next;
        let value = match number {
            sc::SPAWN => self.spawn(a0, a1, a2, a3, a4),
            sc::EXIT_THREAD => {
                let me = self.threads[self.current].tid;
                self.save_current(State::Finished);
                self.live -= 1;
                if let Some(base) = self.threads[self.current].stack_base {
                    self.mem.unmap_thread_stack(base);
                }
                if let Some(check) = self.unwind_check.as_mut() {
                    check.finish(self.current);
                }
                for i in 0..self.threads.len() {
                    if matches!(self.threads[i].state, State::Blocked { wait: Wait::Join(t), .. } if t == me)
                    {
                        self.wake(i, 0);
                    }
                }
                if self.live == 0 {
                    return Err(Outcome::Exit(0));
                }
                return self.reschedule();
            }
            sc::JOIN => {
                let me = self.threads[self.current].tid;
                match self.threads.get(a0.wrapping_sub(1) as usize) {
                    _ if a0 == u64::from(me) => (-sc::EDEADLK) as u64,
                    None => (-sc::ESRCH) as u64,
                    Some(t) if t.state == State::Finished => 0,
                    Some(_) => return self.block(Wait::Join(a0 as u32), b),
                }
            }
            sc::FUTEX_WAIT => {
                if a0 % 4 != 0 {
                    (-crate::syscall::EINVAL) as u64
                } else {
                    match self.mem.read(a0, 4) {
                        None => (-crate::syscall::EFAULT) as u64,
                        Some(v) if v as u32 != a1 as u32 => (-sc::EAGAIN) as u64,
                        Some(_) => {
                            let deadline =
                                (a2 != u64::MAX).then(|| self.now_ns().saturating_add(a2));
                            return self.block(Wait::Futex { addr: a0, deadline }, b);
                        }
                    }
                }
            }
            sc::FUTEX_WAKE => {
                let count = if (a1 as i64) < 0 { u64::MAX } else { a1 };
                let mut waiters: Vec<(u64, usize)> = self
                    .threads
                    .iter()
                    .enumerate()
                    .filter_map(|(i, t)| match t.state {
                        State::Blocked {
                            wait: Wait::Futex { addr, .. },
                            seq,
                            ..
                        } if addr == a0 => Some((seq, i)),
                        _ => None,
                    })
                    .collect();
                waiters.sort_unstable();
                let n = waiters.len().min(count.min(usize::MAX as u64) as usize);
                for &(_, i) in &waiters[..n] {
                    self.wake(i, 0);
                }
                self.update_stop();
                n as u64
            }
            sc::YIELD => {
                self.set_result(b, 0, issue);
                if !self.ready_queue.is_empty() {
                    let cur = self.current;
                    self.save_current(State::Ready);
                    self.ready_queue.push_back(cur);
                    let next = self.pick();
                    self.switch_in(next);
                }
                return Ok(());
            }
            sc::SLEEP => {
                if a0 == 0 || (a0 as i64) < 0 {
                    0
                } else {
                    let deadline = self.now_ns().saturating_add(a0);
                    return self.block(Wait::Sleep { deadline }, b);
                }
            }
            sc::GETTID => u64::from(self.threads[self.current].tid),
            _ => (-crate::syscall::ENOSYS) as u64,
        };
        self.set_result(b, value, issue);
        Ok(())
    }

    /// `spawn(pc, stack_size, tp, a0, a1)`: a new ready thread on a stack of its own;
    /// returns its id or an error.
    fn spawn(&mut self, pc: u64, stack_size: u64, tp: u64, a0: u64, a1: u64) -> u64 {
        let start = self.code.lookup(pc);
        if start == NONE {
            return (-crate::syscall::EINVAL) as u64;
        }
        if self.live >= MAX_LIVE_THREADS {
            return (-sc::EAGAIN) as u64;
        }
        // below the guard region of the stack mapped before (the main stack's, or
        // the last spawned thread's)
        let size = crate::memory::round_up(stack_size.max(1), vliw_isa::abi::PAGE_SIZE);
        let sp = match self.threads.last().and_then(|t| t.stack_base) {
            Some(base) => base.saturating_sub(STACK_GUARD_SIZE),
            None => self.mem.layout().guard_base,
        };
        let stack_base = sp.saturating_sub(size);
        if stack_base.saturating_sub(STACK_GUARD_SIZE) <= self.mem.layout().heap_limit
            || self.mem.map_thread_stack(stack_base, size).is_none()
        {
            return (-sc::ENOMEM) as u64;
        }
        let mut saved = Box::new(Saved {
            regs: [0; crate::predecode::REG_FILE],
            ready: [0; crate::predecode::REG_FILE],
            pc: start,
        });
        saved.regs[PRED_BASE as usize] = 1;
        saved.regs[vliw_isa::Gpr::SP.num() as usize] = sp;
        saved.regs[2] = tp;
        saved.regs[3] = a0;
        saved.regs[4] = a1;
        if let Some(check) = self.unwind_check.as_mut() {
            check.spawn(&saved.regs);
        }
        let tid = self.threads.len() as u32 + 1;
        let mut thread = Thread::new(tid, Some(saved));
        thread.stack_base = Some(stack_base);
        self.threads.push(thread);
        self.live += 1;
        self.make_ready(self.threads.len() - 1);
        self.update_stop();
        u64::from(tid)
    }

    /// The deadlock fault: every live thread and what it waits for.
    fn deadlock(&self) -> Outcome {
        let mut blocked = Vec::new();
        let mut first_bundle = 0;
        for t in &self.threads {
            let State::Blocked { wait, bundle, .. } = t.state else {
                continue;
            };
            let waiting = match wait {
                Wait::Futex { addr, .. } => Waiting::Futex {
                    addr,
                    value: self.mem.read(addr, 4).unwrap_or(0) as u32,
                },
                Wait::Join(tid) => Waiting::Join(tid),
                Wait::Sleep { .. } => continue,
            };
            if blocked.is_empty() {
                first_bundle = bundle;
            }
            let frames = match (self.frames, &t.saved) {
                (Some(sections), Some(saved)) => {
                    backtrace(sections, &self.mem, &saved.regs, bundle, 32)
                }
                _ => Vec::new(),
            };
            let backtrace = frames
                .iter()
                .enumerate()
                .map(|(k, &addr)| {
                    // a return address names the function of its call
                    let at = if k == 0 { addr } else { addr - 1 };
                    match self.symbols.lookup(at) {
                        Some((name, off)) => format!("{name}+{:#x}", off + (addr - at)),
                        None => format!("{addr:#x}"),
                    }
                })
                .collect();
            blocked.push(BlockedThread {
                tid: t.tid,
                waiting,
                bundle_address: bundle,
                function: self
                    .symbols
                    .lookup(bundle)
                    .map(|(name, offset)| (name.to_string(), offset)),
                backtrace,
            });
        }
        let mut outcome = self.fault(FaultKind::Deadlock(blocked), 0, first_bundle);
        if let Outcome::Fault(f) = &mut outcome {
            f.thread = None;
        }
        outcome
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

/// Adds the counters from `start` to `now` to a thread's.
fn add_slice(s: &mut ThreadStats, start: &Stats, now: &Stats) {
    s.cycles += now.cycles - start.cycles;
    s.bundles += now.bundles - start.bundles;
    s.ops += now.ops - start.ops;
    s.stalls += now.stalls - start.stalls;
}
