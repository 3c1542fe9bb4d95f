//! An interpreter of machine IR: runs [`MachFunction`]s at every phase of the back
//! end — machine SSA (virtual registers, block parameters and branch arguments,
//! `Psi`), after register allocation (physical registers, parallel copies), before
//! or after frame lowering — so that a pass can be checked by running a function
//! before and after it (`docs/machine.md` §9).
//!
//! - **Semantics**: every machine operation computes what `vliw_isa::semantics`
//!   says, the definitions the simulator executes too. Operations run one at a time
//!   in block order (the order before bundling). A false guard nullifies an
//!   operation, except `.unc` compares; compares write their predicate pairs as their
//!   compare type says; `Copy`, `ParallelCopy` (all reads before any write) and
//!   `Psi` (the value of the last argument whose guard is true) are the pseudo
//!   operations.
//! - **Registers**: physical registers are one machine state shared by all calls;
//!   virtual registers belong to their function's activation. A register read before
//!   it is written is an error (`Stop::Error`), which catches uses that a pass left
//!   without a definition.
//! - **Memory**: byte-addressed regions ([`Memory`]): a stack, the jump tables of
//!   the functions, and whatever the user maps. Before frame lowering
//!   (`MachFunction::frame` is `None`) the interpreter plays the frame's part: at
//!   entry it moves `sp` down by the frame `frame::compute_layout` gives (slots and
//!   outgoing area), resolves `Imm::Slot` and `Imm::IncomingArg` against it, and at
//!   `ret` restores `sp`, `lr` and the callee-saved registers as the prologue and
//!   epilogues will. After frame lowering the function does this itself, and `ret`
//!   checks that it did (`sp`, `lr` and every callee-saved register as at entry).
//! - **Calls** (`call @name`, `callr`): to another function given to the
//!   interpreter, or to a host function ([`Interpreter::add_host`]); unknown names
//!   are errors. A call writes the registers of its `implicit_defs` (the caller-saved
//!   registers) with garbage after the callee returns, except the callee's result
//!   registers, so that a value wrongly kept in a caller-saved register across a call
//!   changes the result ([`Interpreter::set_clobber`] turns this off).
//! - **Symbols**: functions and host functions get code addresses (`addpc` of a
//!   function, `callr`); other symbols must be given ([`Interpreter::set_symbol`]).
//! - **Stops**: `trap N` ends the run with [`Stop::Trap`], a memory fault with
//!   [`Stop::Fault`], the step limit with [`Stop::StepLimit`], anything malformed or
//!   unsupported with [`Stop::Error`]. Nothing panics.
//!
//! [`Interpreter::call`] takes and returns 64-bit words as the calling convention
//! passes them (`abi.rs`: `r3`..`r10`, then the stack and the return area), which is
//! what a filetest's `run: %f(1, 2) == 3` needs.

use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;
use std::fmt;

use cranelift_entity::EntityRef;
use vliw_isa::semantics::{self as sem, OpClass};
use vliw_isa::{FieldKind, Format, Gpr, Opcode, Pred};

use crate::abi;
use crate::mir::{FrameSlot, Imm, JumpTable, MBlock, MGuard, MInst, MOp, MachFunction, PReg, Reg};

/// The top of the interpreter's stack (the machine's, `vliw_isa::abi::STACK_TOP`).
pub const STACK_TOP: u64 = vliw_isa::abi::STACK_TOP;
/// Code addresses: function `i` of the interpreter starts at `CODE_BASE + i *
/// FUNC_SPAN`; block `b` of it is at `8 * (b + 1)` from there.
pub const CODE_BASE: u64 = 0x1000_0000;
pub const FUNC_SPAN: u64 = 1 << 24;
/// Host functions get addresses from here, 16 bytes apart.
pub const HOST_BASE: u64 = 0x0800_0000;
/// The jump tables of the functions are mapped from here (read-only).
pub const JUMP_TABLE_BASE: u64 = 0x0c00_0000;
/// The return address `lr` holds when a function is called from the host.
pub const RETURN_TO_HOST: u64 = 0x0fff_fff0;

/// Why a run stopped without returning.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Stop {
    /// `trap N`.
    Trap(i64),
    /// A load, store or atomic the machine would fault on.
    Fault(Fault),
    /// More operations than the step limit.
    StepLimit,
    /// Anything else: a register read before it is written, an unknown symbol or
    /// function, malformed IR, an operation the interpreter cannot run, a broken
    /// calling convention, an error of a host function.
    Error(String),
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Trap(n) => write!(f, "trap {n:#x}"),
            Stop::Fault(fault) => write!(f, "{fault}"),
            Stop::StepLimit => f.write_str("step limit reached"),
            Stop::Error(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for Stop {}

/// What kind of memory fault (the simulator's kinds, `docs/isa.md` §4).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FaultKind {
    Unmapped,
    Misaligned,
    ReadOnly,
}

/// A memory fault: its kind, the address, the access size and whether it wrote.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Fault {
    pub kind: FaultKind,
    pub addr: u64,
    pub bytes: usize,
    pub write: bool,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            FaultKind::Unmapped => "unmapped",
            FaultKind::Misaligned => "misaligned",
            FaultKind::ReadOnly => "read-only",
        };
        let access = if self.write { "store" } else { "load" };
        write!(f, "{what} {}-byte {access} at {:#x}", self.bytes, self.addr)
    }
}

struct Region {
    bytes: Vec<u8>,
    writable: bool,
}

/// Byte-addressed little-endian memory made of separate regions.
#[derive(Default)]
pub struct Memory {
    regions: BTreeMap<u64, Region>,
}

impl Memory {
    /// Maps `bytes` at `base` (replacing a region that starts there).
    pub fn map(&mut self, base: u64, bytes: Vec<u8>, writable: bool) {
        self.regions.insert(base, Region { bytes, writable });
    }

    fn find(&self, addr: u64, len: usize) -> Option<(u64, &Region)> {
        let (&base, r) = self.regions.range(..=addr).next_back()?;
        let end = (addr - base).checked_add(len as u64)?;
        (end <= r.bytes.len() as u64).then_some((base, r))
    }

    /// Checks an access of `bytes` bytes (1, 2, 4 or 8) in the machine's order:
    /// mapped, aligned, writable.
    fn check(&self, addr: u64, bytes: usize, write: bool) -> Result<u64, Fault> {
        let fault = |kind| Fault {
            kind,
            addr,
            bytes,
            write,
        };
        let (base, r) = self.find(addr, bytes).ok_or(fault(FaultKind::Unmapped))?;
        if !sem::aligned(addr, bytes) {
            return Err(fault(FaultKind::Misaligned));
        }
        if write && !r.writable {
            return Err(fault(FaultKind::ReadOnly));
        }
        Ok(base)
    }

    /// Loads a little-endian value of `bytes` bytes (1, 2, 4 or 8), zero-extended.
    pub fn load(&self, addr: u64, bytes: usize) -> Result<u64, Fault> {
        let base = self.check(addr, bytes, false)?;
        let off = (addr - base) as usize;
        let mut buf = [0u8; 8];
        buf[..bytes].copy_from_slice(&self.regions[&base].bytes[off..off + bytes]);
        Ok(u64::from_le_bytes(buf))
    }

    /// Stores the low `bytes` bytes (1, 2, 4 or 8) of `value`.
    pub fn store(&mut self, addr: u64, bytes: usize, value: u64) -> Result<(), Fault> {
        let base = self.check(addr, bytes, true)?;
        let off = (addr - base) as usize;
        let r = self.regions.get_mut(&base).expect("checked region");
        r.bytes[off..off + bytes].copy_from_slice(&value.to_le_bytes()[..bytes]);
        Ok(())
    }

    /// Reads `len` bytes at `addr` (any alignment).
    pub fn read(&self, addr: u64, len: usize) -> Option<&[u8]> {
        let (base, r) = self.find(addr, len)?;
        let off = (addr - base) as usize;
        Some(&r.bytes[off..off + len])
    }

    /// Writes `data` at `addr` (any alignment; read-only regions too: for setting
    /// memory up).
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Option<()> {
        let (base, _) = self.find(addr, data.len())?;
        let off = (addr - base) as usize;
        let r = self.regions.get_mut(&base)?;
        r.bytes[off..off + data.len()].copy_from_slice(data);
        Some(())
    }
}

/// What a host function sees of a call: the argument registers, `sp` at the call
/// (stack arguments and the return area are above it) and the memory.
pub struct HostCall<'a> {
    /// `r3`..`r10` at the call (`None`: never written).
    pub regs: [Option<u64>; 8],
    pub sp: u64,
    pub memory: &'a mut Memory,
}

impl HostCall<'_> {
    /// Argument word `i` of a call with `ret_area_words` words of return area: a
    /// register for the first eight, else the stack.
    pub fn arg(&self, i: usize, ret_area_words: u64) -> Result<u64, Stop> {
        if i < abi::ARG_WORDS_IN_REGS {
            self.regs[i].ok_or_else(|| {
                Stop::Error(format!("argument register r{} was never written", 3 + i))
            })
        } else {
            let addr = self.sp + 8 * (ret_area_words + (i - abi::ARG_WORDS_IN_REGS) as u64);
            self.memory.load(addr, 8).map_err(Stop::Fault)
        }
    }
}

/// A host function: gets the call, returns the result words (written to `r3`..
/// `r10` and then to the return area at `sp`).
pub type HostFn<'h> = Box<dyn FnMut(&mut HostCall) -> Result<Vec<u64>, Stop> + 'h>;

#[derive(Clone, Copy)]
enum Callee {
    Function(usize),
    Host(usize),
}

/// The state of the physical registers.
#[derive(Clone)]
struct Physical {
    gprs: [Option<u64>; 64],
    preds: [Option<bool>; 16],
}

/// One activation of a function.
struct Frame<'f> {
    func: &'f MachFunction,
    index: usize,
    vregs: Vec<Option<u64>>,
    /// The frame the interpreter laid out (before frame lowering): slot offsets from
    /// `sp`, and `entry_sp - sp`.
    emulated: Option<(Vec<u64>, u64)>,
    /// Registers as they were at entry: restored at `ret` before frame lowering,
    /// checked after.
    saved: Vec<(PReg, Option<u64>)>,
}

/// The interpreter: functions, host functions, symbols, memory and the machine
/// state of the physical registers.
pub struct Interpreter<'f, 'h> {
    funcs: Vec<&'f MachFunction>,
    by_name: HashMap<String, Callee>,
    hosts: Vec<(String, HostFn<'h>)>,
    symbols: HashMap<String, u64>,
    tp_offsets: HashMap<String, u64>,
    jump_tables: HashMap<(usize, JumpTable), u64>,
    pub memory: Memory,
    stack_base: u64,
    regs: Physical,
    step_limit: u64,
    steps: u64,
    max_depth: usize,
    depth: usize,
    clobber: bool,
    garbage: u64,
    trace: Option<Vec<(PReg, u64)>>,
}

/// The one place the interpreter reaches a block's operations.
fn inst_at(func: &MachFunction, b: MBlock, i: usize) -> Option<&MInst> {
    func.blocks[b].insts.get(i).map(|&id| func.inst(id))
}

fn err<T>(msg: impl Into<String>) -> Result<T, Stop> {
    Err(Stop::Error(msg.into()))
}

impl<'f, 'h> Interpreter<'f, 'h> {
    /// An interpreter of these functions (callable by name and from each other), with
    /// a stack of 1 MiB below [`STACK_TOP`].
    pub fn new(funcs: impl IntoIterator<Item = &'f MachFunction>) -> Self {
        let mut it = Interpreter {
            funcs: Vec::new(),
            by_name: HashMap::default(),
            hosts: Vec::new(),
            symbols: HashMap::default(),
            tp_offsets: HashMap::default(),
            jump_tables: HashMap::default(),
            memory: Memory::default(),
            stack_base: STACK_TOP,
            regs: Physical {
                gprs: [None; 64],
                preds: [None; 16],
            },
            step_limit: 10_000_000,
            steps: 0,
            max_depth: 200,
            depth: 0,
            clobber: true,
            garbage: 0,
            trace: None,
        };
        let mut next_table = JUMP_TABLE_BASE;
        for (i, f) in funcs.into_iter().enumerate() {
            it.funcs.push(f);
            it.by_name
                .entry(f.name.clone())
                .or_insert(Callee::Function(i));
            for (jt, targets) in f.jump_tables.iter() {
                let bytes: Vec<u8> = targets
                    .iter()
                    .flat_map(|&b| block_address(i, b).to_le_bytes())
                    .collect();
                let len = bytes.len() as u64;
                it.memory.map(next_table, bytes, false);
                it.jump_tables.insert((i, jt), next_table);
                next_table = (next_table + len + 16).next_multiple_of(16);
            }
        }
        it.set_stack_size(1 << 20);
        it
    }

    /// Provides function `name` to calls (after the given functions, which win).
    pub fn add_host(
        &mut self,
        name: &str,
        f: impl FnMut(&mut HostCall) -> Result<Vec<u64>, Stop> + 'h,
    ) {
        let k = self.hosts.len();
        self.hosts.push((name.to_string(), Box::new(f)));
        self.by_name
            .entry(name.to_string())
            .or_insert(Callee::Host(k));
    }

    /// The address of a data symbol (`addpc rd = @name`, `@name` immediates).
    pub fn set_symbol(&mut self, name: &str, addr: u64) {
        self.symbols.insert(name.to_string(), addr);
    }

    /// The offset of thread-local `name` from `tp` (`@name@tprel`).
    pub fn set_tp_offset(&mut self, name: &str, offset: u64) {
        self.tp_offsets.insert(name.to_string(), offset);
    }

    /// Stops with [`Stop::StepLimit`] after this many operations in all (default 10
    /// million).
    pub fn set_step_limit(&mut self, n: u64) {
        self.step_limit = n;
    }

    /// Operations executed so far (nullified ones included).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Stops with an error beyond this call depth (default 200).
    pub fn set_max_depth(&mut self, n: usize) {
        self.max_depth = n;
    }

    /// Whether calls write garbage to their implicit definitions (default on).
    pub fn set_clobber(&mut self, on: bool) {
        self.clobber = on;
    }

    /// Maps a zeroed stack of `size` bytes below [`STACK_TOP`].
    pub fn set_stack_size(&mut self, size: u64) {
        self.memory.regions.remove(&self.stack_base);
        self.stack_base = STACK_TOP - size;
        self.memory
            .map(self.stack_base, vec![0; size as usize], true);
    }

    /// Records every write to a physical register from now on ([`Self::writes`]).
    pub fn trace_writes(&mut self) {
        self.trace = Some(Vec::new());
    }

    /// The writes to physical registers recorded since [`Self::trace_writes`], in
    /// order (writes to `r0`/`p0` and the garbage of calls excluded).
    pub fn writes(&self) -> &[(PReg, u64)] {
        self.trace.as_deref().unwrap_or(&[])
    }

    /// The value of a physical register (predicates as 0/1; `None`: never written).
    pub fn reg(&self, r: PReg) -> Option<u64> {
        match r {
            PReg::Gpr(g) if g == Gpr::ZERO => Some(0),
            PReg::Gpr(g) => self.regs.gprs[g.index()],
            PReg::Pred(p) if p == Pred::TRUE => Some(1),
            PReg::Pred(p) => self.regs.preds[p.num() as usize].map(u64::from),
        }
    }

    /// Sets a physical register (a predicate is true when `value` is not 0).
    pub fn set_reg(&mut self, r: PReg, value: u64) {
        match r {
            PReg::Gpr(g) => self.regs.gprs[g.index()] = Some(value),
            PReg::Pred(p) => self.regs.preds[p.num() as usize] = Some(value != 0),
        }
    }

    /// Forgets every physical register (all unwritten again).
    pub fn clear_regs(&mut self) {
        self.regs.gprs = [None; 64];
        self.regs.preds = [None; 16];
    }

    /// The address of a function, host function or symbol.
    pub fn symbol_address(&self, name: &str) -> Option<u64> {
        match self.by_name.get(name) {
            Some(&Callee::Function(i)) => Some(CODE_BASE + i as u64 * FUNC_SPAN),
            Some(&Callee::Host(k)) => Some(HOST_BASE + 16 * k as u64),
            None => self.symbols.get(name).copied(),
        }
    }

    /// Calls `name` with argument words `args` (`r3`..`r10`, then the stack) as the
    /// host would, and returns the values of the registers its `ret` returns
    /// (`implicit_uses`, in order). The other physical registers keep their state
    /// (see [`Self::set_reg`]); `sp` and `lr` are set for the call.
    pub fn call(&mut self, name: &str, args: &[u64]) -> Result<Vec<u64>, Stop> {
        self.call_inner(name, args, None)
    }

    /// Like [`Self::call`] for a function returning `ret_words` words: the first eight
    /// from `r3`..`r10`, the others from the return area the caller reserves at `sp`.
    pub fn call_with_results(
        &mut self,
        name: &str,
        args: &[u64],
        ret_words: usize,
    ) -> Result<Vec<u64>, Stop> {
        self.call_inner(name, args, Some(ret_words))
    }

    fn call_inner(
        &mut self,
        name: &str,
        args: &[u64],
        ret_words: Option<usize>,
    ) -> Result<Vec<u64>, Stop> {
        let ret_area = ret_words.map_or(0, |n| n.saturating_sub(abi::RET_WORDS_IN_REGS)) as u64;
        let stack_args = args.len().saturating_sub(abi::ARG_WORDS_IN_REGS) as u64;
        let sp = (STACK_TOP - 256 - 8 * (ret_area + stack_args)) & !15;
        for (i, &w) in args.iter().enumerate() {
            if i < abi::ARG_WORDS_IN_REGS {
                self.regs.gprs[3 + i] = Some(w);
            } else {
                let addr = sp + 8 * (ret_area + (i - abi::ARG_WORDS_IN_REGS) as u64);
                self.memory.store(addr, 8, w).map_err(Stop::Fault)?;
            }
        }
        self.regs.gprs[Gpr::SP.index()] = Some(sp);
        self.regs.gprs[Gpr::LR.index()] = Some(RETURN_TO_HOST);
        self.regs.gprs[Gpr::TP.index()].get_or_insert(0);
        self.depth = 0;
        let result_regs = match self.by_name.get(name) {
            Some(&Callee::Function(i)) => self.run(i, RETURN_TO_HOST)?,
            Some(&Callee::Host(k)) => self.call_host(k, sp)?,
            None => return err(format!("no function `{name}`")),
        };
        let read = |it: &Self, r: PReg| {
            it.reg(r)
                .ok_or_else(|| Stop::Error(format!("`{name}` returns {r}, never written")))
        };
        match ret_words {
            None => result_regs.iter().map(|&r| read(self, r)).collect(),
            Some(n) => (0..n)
                .map(|k| {
                    if k < abi::RET_WORDS_IN_REGS {
                        read(self, PReg::gpr(3 + k as u8))
                    } else {
                        let addr = sp + 8 * (k - abi::RET_WORDS_IN_REGS) as u64;
                        self.memory.load(addr, 8).map_err(Stop::Fault)
                    }
                })
                .collect(),
        }
    }

    fn call_host(&mut self, k: usize, sp: u64) -> Result<Vec<PReg>, Stop> {
        let mut regs = [None; 8];
        for (i, r) in regs.iter_mut().enumerate() {
            *r = self.regs.gprs[3 + i];
        }
        let mut call = HostCall {
            regs,
            sp,
            memory: &mut self.memory,
        };
        let words = (self.hosts[k].1)(&mut call)?;
        let mut result_regs = Vec::new();
        for (i, &w) in words.iter().enumerate() {
            if i < abi::RET_WORDS_IN_REGS {
                let r = PReg::gpr(3 + i as u8);
                self.regs.gprs[3 + i] = Some(w);
                result_regs.push(r);
            } else {
                let addr = sp + 8 * (i - abi::RET_WORDS_IN_REGS) as u64;
                self.memory.store(addr, 8, w).map_err(Stop::Fault)?;
            }
        }
        Ok(result_regs)
    }

    /// Runs function `index` to its `ret`; returns the registers the `ret` returns.
    fn run(&mut self, index: usize, lr: u64) -> Result<Vec<PReg>, Stop> {
        let func = self.funcs[index];
        if self.depth >= self.max_depth {
            return err(format!(
                "{}: call depth {} exceeded",
                func.name, self.max_depth
            ));
        }
        self.depth += 1;
        let result = self.run_body(index, func, lr);
        self.depth -= 1;
        result
    }

    fn run_body(
        &mut self,
        index: usize,
        func: &'f MachFunction,
        lr: u64,
    ) -> Result<Vec<PReg>, Stop> {
        let Some(&entry) = func.layout.first() else {
            return err(format!("{}: no blocks", func.name));
        };
        let entry_sp = self.gpr(Gpr::SP, func)?;
        let mut saved: Vec<(PReg, Option<u64>)> = vec![
            (PReg::Gpr(Gpr::SP), Some(entry_sp)),
            (PReg::Gpr(Gpr::LR), Some(lr)),
        ];
        for p in (32..=62)
            .map(PReg::gpr)
            .chain(abi::callee_saved_preds().map(PReg::Pred))
        {
            saved.push((p, self.reg_state(p)));
        }
        let emulated = if func.frame.is_none() {
            let layout = crate::frame::compute_layout(&func.slots, func.outgoing_words, &[]);
            let sp = entry_sp.wrapping_sub(layout.size) & !(layout.align.max(1) - 1);
            self.regs.gprs[Gpr::SP.index()] = Some(sp);
            Some((layout.slot_offsets, entry_sp.wrapping_sub(sp)))
        } else {
            None
        };
        let mut frame = Frame {
            func,
            index,
            vregs: vec![None; func.vregs.len()],
            emulated,
            saved,
        };
        let mut block = entry;
        let mut pos = 0usize;
        loop {
            let Some(inst) = inst_at(func, block, pos) else {
                // after branch cleanup a block may fall through to the next of the
                // layout (what the encoded code does too)
                let next = func
                    .layout
                    .iter()
                    .position(|&b| b == block)
                    .and_then(|k| func.layout.get(k + 1));
                match next {
                    Some(&next)
                        if func
                            .last_inst(block)
                            .is_none_or(|i| !i.is_unconditional_exit()) =>
                    {
                        block = next;
                        pos = 0;
                        continue;
                    }
                    _ => return err(format!("{}: {block} ends without a branch", func.name)),
                }
            };
            pos += 1;
            self.steps += 1;
            if self.steps > self.step_limit {
                return Err(Stop::StepLimit);
            }
            let at = || format!("{}: {block}: `{}`", func.name, func.display_inst(inst));
            match self.step(&mut frame, inst) {
                Ok(Flow::Next) => {}
                Ok(Flow::Jump(t)) => {
                    block = t;
                    pos = 0;
                }
                Ok(Flow::Return) => return self.leave(&frame, inst).map_err(|e| annotate(e, &at)),
                Err(e) => return Err(annotate(e, &at)),
            }
        }
    }

    /// At `ret`: restores (before frame lowering) or checks (after) what the callee
    /// must preserve; returns the result registers.
    fn leave(&mut self, frame: &Frame, ret: &MInst) -> Result<Vec<PReg>, Stop> {
        let results: Vec<PReg> = ret.implicit_uses.clone();
        if frame.emulated.is_some() {
            for &(p, v) in &frame.saved {
                self.set_state(p, v);
            }
            return Ok(results);
        }
        for &(p, v) in &frame.saved {
            let now = self.reg_state(p);
            if now != v {
                return err(format!(
                    "{p} is {} at ret, {} at entry (the callee must preserve it)",
                    show(now),
                    show(v)
                ));
            }
        }
        Ok(results)
    }

    fn reg_state(&self, p: PReg) -> Option<u64> {
        self.reg(p)
    }

    fn set_state(&mut self, p: PReg, v: Option<u64>) {
        match p {
            PReg::Gpr(g) if g != Gpr::ZERO => self.regs.gprs[g.index()] = v,
            PReg::Pred(q) if q != Pred::TRUE => {
                self.regs.preds[q.num() as usize] = v.map(|x| x != 0)
            }
            _ => {}
        }
    }

    fn gpr(&self, g: Gpr, func: &MachFunction) -> Result<u64, Stop> {
        self.reg(PReg::Gpr(g))
            .ok_or_else(|| Stop::Error(format!("{}: {g} read before it is written", func.name)))
    }

    /// Reads a register (a predicate as 0/1).
    fn read(&self, frame: &Frame, r: Reg) -> Result<u64, Stop> {
        match r {
            Reg::Physical(p) => self
                .reg(p)
                .ok_or_else(|| Stop::Error(format!("{p} read before it is written"))),
            Reg::Virtual(v) => frame
                .vregs
                .get(v.index())
                .copied()
                .flatten()
                .ok_or_else(|| {
                    Stop::Error(format!("{} read before it is written", show_reg(frame, r)))
                }),
        }
    }

    fn read_pred(&self, frame: &Frame, r: Reg) -> Result<bool, Stop> {
        Ok(self.read(frame, r)? != 0)
    }

    /// Writes a register (`None`: undefined); writes to `r0` and `p0` are discarded.
    fn write(&mut self, frame: &mut Frame, r: Reg, v: Option<u64>) -> Result<(), Stop> {
        match r {
            Reg::Physical(p) => {
                if p != PReg::Gpr(Gpr::ZERO)
                    && p != PReg::Pred(Pred::TRUE)
                    && let (Some(t), Some(v)) = (&mut self.trace, v)
                {
                    t.push((p, v));
                }
                self.set_state(p, v);
            }
            Reg::Virtual(vr) => {
                let Some(slot) = frame.vregs.get_mut(vr.index()) else {
                    return err(format!("{vr} is not a register of the function"));
                };
                let pred = frame.func.vregs[vr] == crate::mir::RegClass::Pred;
                *slot = if pred { v.map(|x| (x != 0) as u64) } else { v };
            }
        }
        Ok(())
    }

    /// Reads a register that may be undefined (`None`): what pure operations do, so
    /// that an operation speculated by if-conversion may read the result of one whose
    /// guard was false, as the machine does, without that being an error until an
    /// undefined value reaches memory, control flow or a guard of an effect.
    fn read_opt(&self, frame: &Frame, r: Reg) -> Result<Option<u64>, Stop> {
        match r {
            Reg::Physical(p) => Ok(self.reg(p)),
            Reg::Virtual(v) => match frame.vregs.get(v.index()) {
                Some(x) => Ok(*x),
                None => err(format!(
                    "{} is not a register of the function",
                    show_reg(frame, r)
                )),
            },
        }
    }

    /// A guard that may be undefined.
    fn guard_opt(&self, frame: &Frame, g: MGuard) -> Result<Option<bool>, Stop> {
        if g.is_always() {
            return Ok(Some(true));
        }
        Ok(self
            .read_opt(frame, g.pred)?
            .map(|p| sem::guard(p != 0, g.negated)))
    }

    /// A pure operation under an undefined guard: its definitions become undefined.
    fn write_undefined(&mut self, frame: &mut Frame, inst: &MInst) -> Result<Flow, Stop> {
        for &d in &inst.defs {
            self.write(frame, d, None)?;
        }
        Ok(Flow::Next)
    }

    /// A pure operation (a value, `sel`, a compare, predicate logic, `p2r`, `r2p`): an
    /// undefined operand makes the result undefined unless the result does not depend
    /// on it (`sel` reads only the operand it selects, `pand` of a false predicate is
    /// false).
    fn step_pure(
        &mut self,
        frame: &mut Frame<'f>,
        inst: &MInst,
        opcode: vliw_isa::Opcode,
        class: OpClass,
    ) -> Result<Flow, Stop> {
        let Some(g) = self.guard_opt(frame, inst.guard)? else {
            return self.write_undefined(frame, inst);
        };
        if !sem::executes(g, inst.ctype, class == OpClass::Compare) {
            return Ok(Flow::Next);
        }
        let (dk, uk) = crate::mir::operand_fields(opcode.format());
        if dk.len() != inst.defs.len() || uk.len() != inst.uses.len() {
            return err("operands do not match the format");
        }
        let src = |it: &Self, k: FieldKind| -> Result<Option<u64>, Stop> {
            match uk.iter().position(|&f| f == k) {
                Some(i) => it.read_opt(frame, inst.uses[i]),
                None => Ok(Some(0)),
            }
        };
        let uses_imm = opcode.format().has(FieldKind::Imm) || opcode.format() == Format::PcRel;
        let imm = if uses_imm {
            self.imm(frame, &inst.imm)?
        } else {
            0
        };
        let b = |it: &Self| -> Result<Option<u64>, Stop> {
            if uses_imm {
                Ok(Some(imm))
            } else {
                src(it, FieldKind::Rs2)
            }
        };
        let bool_of = |v: Option<u64>| v.map(|x| x != 0);
        match class {
            OpClass::Value => {
                let v = match (
                    src(self, FieldKind::Rs1)?,
                    b(self)?,
                    src(self, FieldKind::Rs3)?,
                ) {
                    (Some(a), Some(b), Some(c)) => Some(sem::value(opcode, a, b, c)),
                    _ => None,
                };
                self.write(frame, inst.defs[0], v)?;
            }
            OpClass::Sel => {
                let v = match bool_of(src(self, FieldKind::Ps1)?) {
                    Some(true) => src(self, FieldKind::Rs1)?,
                    Some(false) => src(self, FieldKind::Rs2)?,
                    None => None,
                };
                self.write(frame, inst.defs[0], v)?;
            }
            OpClass::Compare => {
                let c = if g {
                    match (src(self, FieldKind::Rs1)?, b(self)?) {
                        (Some(a), Some(b)) => Some(sem::condition(opcode, a, b)),
                        _ => None,
                    }
                } else {
                    Some(false) // a nullified .unc compare reads nothing
                };
                let writes = |c| sem::compare_writes(inst.ctype, g, c);
                let (w1, w2) = match c {
                    Some(c) => {
                        let (a, b) = writes(c);
                        (a.map(Some), b.map(Some))
                    }
                    None => {
                        let ((t1, t2), (f1, f2)) = (writes(true), writes(false));
                        let either = |t: Option<bool>, f: Option<bool>| match (t, f) {
                            (None, None) => None,
                            (t, f) if t == f => Some(t),
                            _ => Some(None),
                        };
                        (either(t1, f1), either(t2, f2))
                    }
                };
                if let Some(v) = w1 {
                    self.write(frame, inst.defs[0], v.map(u64::from))?;
                }
                if let Some(v) = w2 {
                    self.write(frame, inst.defs[1], v.map(u64::from))?;
                }
            }
            OpClass::PredLogic => {
                let p1 = bool_of(src(self, FieldKind::Ps1)?);
                let p2 = bool_of(src(self, FieldKind::Ps2)?);
                // an undefined operand is either value: defined if both agree
                let values = |p: Option<bool>| match p {
                    Some(x) => vec![x],
                    None => vec![false, true],
                };
                let mut results = values(p1)
                    .into_iter()
                    .flat_map(|a| values(p2).into_iter().map(move |b| (a, b)))
                    .map(|(a, b)| sem::predicate_logic(opcode, a, b));
                let first = results.next().unwrap_or(false);
                let v = results.all(|r| r == first).then_some(first as u64);
                self.write(frame, inst.defs[0], v)?;
            }
            OpClass::P2r => {
                let v = bool_of(src(self, FieldKind::Ps1)?).map(sem::p2r);
                self.write(frame, inst.defs[0], v)?;
            }
            OpClass::R2p => {
                let v = src(self, FieldKind::Rs1)?.map(|x| sem::r2p(x) as u64);
                self.write(frame, inst.defs[0], v)?;
            }
            _ => return err("not a pure operation"),
        }
        Ok(Flow::Next)
    }

    fn guard(&self, frame: &Frame, g: MGuard) -> Result<bool, Stop> {
        if g.is_always() {
            return Ok(true);
        }
        Ok(sem::guard(self.read_pred(frame, g.pred)?, g.negated))
    }

    /// The value of an immediate operand.
    fn imm(&self, frame: &Frame, imm: &Imm) -> Result<u64, Stop> {
        Ok(match imm {
            Imm::None => 0,
            Imm::Const(c) => *c as u64,
            Imm::Symbol { name, addend } => self
                .symbol_address(name)
                .ok_or_else(|| Stop::Error(format!("unknown symbol @{name}")))?
                .wrapping_add(*addend as u64),
            Imm::TpRel { name, addend } => self
                .tp_offsets
                .get(name)
                .ok_or_else(|| Stop::Error(format!("unknown thread-local @{name}")))?
                .wrapping_add(*addend as u64),
            Imm::Block(b) => block_address(frame.index, *b),
            Imm::JumpTable(jt) => *self
                .jump_tables
                .get(&(frame.index, *jt))
                .ok_or_else(|| Stop::Error(format!("unknown jump table {jt}")))?,
            Imm::Slot { slot, offset } => {
                self.slot_offset(frame, *slot)?.wrapping_add(*offset as u64)
            }
            Imm::IncomingArg(o) => {
                let above = match (&frame.emulated, &frame.func.frame) {
                    (Some((_, above)), _) => *above,
                    (None, Some(layout)) if !layout.realigned => layout.size,
                    _ => return err("an incoming argument in a realigned frame"),
                };
                above.wrapping_add(*o as u64)
            }
        })
    }

    fn slot_offset(&self, frame: &Frame, slot: FrameSlot) -> Result<u64, Stop> {
        let offsets = match (&frame.emulated, &frame.func.frame) {
            (Some((offsets, _)), _) => offsets,
            (None, Some(layout)) => &layout.slot_offsets,
            (None, None) => return err("no frame"),
        };
        offsets
            .get(slot.index())
            .copied()
            .ok_or_else(|| Stop::Error(format!("unknown frame slot {slot}")))
    }

    fn step(&mut self, frame: &mut Frame<'f>, inst: &MInst) -> Result<Flow, Stop> {
        if let Some(k) = inst.keep {
            // `(g) d = op ... keeps k`: `k` where the guard is false
            match self.guard_opt(frame, inst.guard)? {
                None => return self.write_undefined(frame, inst),
                Some(false) => {
                    let [d] = inst.defs[..] else {
                        return err("keeps: one definition expected");
                    };
                    let v = self.read_opt(frame, k)?;
                    self.write(frame, d, v)?;
                    return Ok(Flow::Next);
                }
                Some(true) => {}
            }
        }
        let opcode = match inst.op {
            MOp::Op(o) => o,
            MOp::Copy | MOp::ParallelCopy => {
                let Some(g) = self.guard_opt(frame, inst.guard)? else {
                    return self.write_undefined(frame, inst);
                };
                if !g {
                    return Ok(Flow::Next);
                }
                if inst.defs.len() != inst.uses.len() {
                    return err("copy with as many definitions as uses expected");
                }
                // a copy into a physical register passes a value across the calling
                // convention: an observation point, where undefined is an error
                let vals = inst
                    .uses
                    .iter()
                    .zip(&inst.defs)
                    .map(|(&u, d)| match d {
                        Reg::Physical(_) => self.read(frame, u).map(Some),
                        Reg::Virtual(_) => self.read_opt(frame, u),
                    })
                    .collect::<Result<Vec<Option<u64>>, Stop>>()?;
                for (&d, v) in inst.defs.iter().zip(vals) {
                    self.write(frame, d, v)?;
                }
                return Ok(Flow::Next);
            }
            MOp::Psi => {
                let Some(g) = self.guard_opt(frame, inst.guard)? else {
                    return self.write_undefined(frame, inst);
                };
                if !g {
                    return Ok(Flow::Next);
                }
                if inst.psi_guards.len() != inst.uses.len() || inst.defs.len() != 1 {
                    return err("psi: one definition and a guard per argument expected");
                }
                // the rightmost true guard wins; an undefined guard before it leaves the
                // choice, and so the value, undefined
                let mut v = None;
                for (&g, &u) in inst.psi_guards.iter().zip(&inst.uses).rev() {
                    match self.guard_opt(frame, g)? {
                        Some(true) => {
                            v = self.read_opt(frame, u)?;
                            break;
                        }
                        Some(false) => {}
                        None => break,
                    }
                }
                self.write(frame, inst.defs[0], v)?;
                return Ok(Flow::Next);
            }
        };
        let class = sem::class(opcode);
        if class.is_pure() {
            return self.step_pure(frame, inst, opcode, class);
        }
        let g = self.guard(frame, inst.guard)?;
        if !sem::executes(g, inst.ctype, class == OpClass::Compare) {
            return Ok(Flow::Next);
        }
        let (dk, uk) = crate::mir::operand_fields(opcode.format());
        if dk.len() != inst.defs.len() || uk.len() != inst.uses.len() {
            return err("operands do not match the format");
        }
        let field = |k: FieldKind| uk.iter().position(|&f| f == k).map(|i| inst.uses[i]);
        let src = |it: &Self, k: FieldKind| -> Result<u64, Stop> {
            match field(k) {
                Some(r) => it.read(frame, r),
                None => Ok(0),
            }
        };
        let has_imm = opcode.format().has(FieldKind::Imm);
        let imm = if has_imm || opcode.format() == Format::PcRel {
            self.imm(frame, &inst.imm)?
        } else {
            0
        };
        let b = |it: &Self| -> Result<u64, Stop> {
            if has_imm || opcode.format() == Format::PcRel {
                Ok(imm)
            } else {
                src(it, FieldKind::Rs2)
            }
        };
        match class {
            OpClass::Nothing => {}
            OpClass::Value => {
                let v = sem::value(
                    opcode,
                    src(self, FieldKind::Rs1)?,
                    b(self)?,
                    src(self, FieldKind::Rs3)?,
                );
                self.write(frame, inst.defs[0], Some(v))?;
            }
            OpClass::Sel => {
                let p = src(self, FieldKind::Ps1)? != 0;
                let v = sem::sel(p, src(self, FieldKind::Rs1)?, src(self, FieldKind::Rs2)?);
                self.write(frame, inst.defs[0], Some(v))?;
            }
            OpClass::Compare => {
                let c = if g {
                    sem::condition(opcode, src(self, FieldKind::Rs1)?, b(self)?)
                } else {
                    false // a nullified .unc compare reads nothing
                };
                let (w1, w2) = sem::compare_writes(inst.ctype, g, c);
                if let Some(v) = w1 {
                    self.write(frame, inst.defs[0], Some(v as u64))?;
                }
                if let Some(v) = w2 {
                    self.write(frame, inst.defs[1], Some(v as u64))?;
                }
            }
            OpClass::PredLogic => {
                let p1 = src(self, FieldKind::Ps1)? != 0;
                let p2 = src(self, FieldKind::Ps2)? != 0;
                let v = sem::predicate_logic(opcode, p1, p2);
                self.write(frame, inst.defs[0], Some(v as u64))?;
            }
            OpClass::P2r => {
                let v = sem::p2r(src(self, FieldKind::Ps1)? != 0);
                self.write(frame, inst.defs[0], Some(v))?;
            }
            OpClass::R2p => {
                let v = sem::r2p(src(self, FieldKind::Rs1)?);
                self.write(frame, inst.defs[0], Some(v as u64))?;
            }
            OpClass::Load if opcode.is_speculative_load() => {
                // speculated: where its address is undefined (computed from values of
                // a path not taken), so is the value, and nothing faults
                let Some(base) = field(FieldKind::Rs1)
                    .map(|r| self.read_opt(frame, r))
                    .transpose()?
                    .unwrap_or(Some(0))
                else {
                    self.write(frame, inst.defs[0], None)?;
                    return Ok(Flow::Next);
                };
                let addr = sem::address(base, imm);
                let raw = self.memory.load(addr, sem::access_bytes(opcode));
                let v = sem::speculative_load(opcode, raw.ok());
                self.write(frame, inst.defs[0], Some(v))?;
            }
            OpClass::Load => {
                let addr = sem::address(src(self, FieldKind::Rs1)?, imm);
                let bytes = sem::access_bytes(opcode);
                let raw = self.memory.load(addr, bytes);
                let v = if opcode.is_speculative_load() {
                    sem::speculative_load(opcode, raw.ok())
                } else {
                    sem::load_value(opcode, raw.map_err(Stop::Fault)?)
                };
                self.write(frame, inst.defs[0], Some(v))?;
            }
            OpClass::Store => {
                let addr = sem::address(src(self, FieldKind::Rs1)?, imm);
                let v = sem::store_value(opcode, src(self, FieldKind::Rs2)?);
                self.memory
                    .store(addr, sem::access_bytes(opcode), v)
                    .map_err(Stop::Fault)?;
            }
            OpClass::Amo | OpClass::Cas => {
                let addr = src(self, FieldKind::Rs1)?;
                let operand = src(self, FieldKind::Rs2)?;
                let bytes = sem::access_bytes(opcode);
                // atomics need write permission even when a cas does not store
                self.memory.check(addr, bytes, true).map_err(Stop::Fault)?;
                let old = self.memory.load(addr, bytes).map_err(Stop::Fault)?;
                let new = if class == OpClass::Amo {
                    Some(sem::amo(opcode, old, operand))
                } else {
                    sem::cas(opcode, old, operand, src(self, FieldKind::Rs3)?)
                };
                if let Some(new) = new {
                    self.memory.store(addr, bytes, new).map_err(Stop::Fault)?;
                }
                self.write(frame, inst.defs[0], Some(old))?;
            }
            OpClass::Control => return self.control(frame, inst, opcode),
        }
        Ok(Flow::Next)
    }

    fn control(
        &mut self,
        frame: &mut Frame<'f>,
        inst: &MInst,
        opcode: Opcode,
    ) -> Result<Flow, Stop> {
        match opcode {
            Opcode::Br => {
                let Imm::Block(t) = inst.imm else {
                    return err("br without a block target");
                };
                let params = &frame.func.blocks[t].params;
                if params.len() != inst.args.len() {
                    return err(format!(
                        "br passes {} argument(s) to {t}, it takes {}",
                        inst.args.len(),
                        params.len()
                    ));
                }
                let vals = inst
                    .args
                    .iter()
                    .map(|&a| self.read(frame, a))
                    .collect::<Result<Vec<u64>, Stop>>()?;
                for (&p, v) in params.iter().zip(vals) {
                    self.write(frame, Reg::Virtual(p), Some(v))?;
                }
                Ok(Flow::Jump(t))
            }
            Opcode::Jr => {
                let addr = self.read(frame, inst.uses[0])?;
                match decode_code_address(addr) {
                    Some((i, Some(b)))
                        if i == frame.index && frame.func.blocks.get(b).is_some() =>
                    {
                        Ok(Flow::Jump(b))
                    }
                    _ => err(format!("jr to {addr:#x}, not a block of the function")),
                }
            }
            Opcode::Call | Opcode::Callr => {
                let callee = if opcode == Opcode::Call {
                    match &inst.imm {
                        Imm::Symbol { name, addend: 0 } => {
                            self.by_name.get(name).copied().ok_or_else(|| {
                                Stop::Error(format!("call of unknown function @{name}"))
                            })?
                        }
                        _ => return err("call without a symbol"),
                    }
                } else {
                    let addr = self.read(frame, inst.uses[0])?;
                    self.callee_at(addr)?
                };
                self.do_call(frame, inst, callee)
            }
            Opcode::Ret => Ok(Flow::Return),
            Opcode::Trap => Err(Stop::Trap(self.imm(frame, &inst.imm)? as i64)),
            _ => err(format!("`{}` is not supported", opcode.mnemonic())),
        }
    }

    fn callee_at(&self, addr: u64) -> Result<Callee, Stop> {
        if let Some((i, None)) = decode_code_address(addr)
            && i < self.funcs.len()
        {
            return Ok(Callee::Function(i));
        }
        if addr >= HOST_BASE && addr < JUMP_TABLE_BASE && (addr - HOST_BASE) % 16 == 0 {
            let k = ((addr - HOST_BASE) / 16) as usize;
            if k < self.hosts.len() {
                return Ok(Callee::Host(k));
            }
        }
        err(format!("callr to {addr:#x}, not a function"))
    }

    fn do_call(
        &mut self,
        frame: &mut Frame<'f>,
        inst: &MInst,
        callee: Callee,
    ) -> Result<Flow, Stop> {
        let sp = self.gpr(Gpr::SP, frame.func)?;
        // call writes lr: the address of what follows (a token here)
        let ret_addr = block_address(frame.index, MBlock::new(0)) | 4;
        self.set_state(PReg::Gpr(Gpr::LR), Some(ret_addr));
        let results = match callee {
            Callee::Function(i) => self.run(i, ret_addr)?,
            Callee::Host(k) => self.call_host(k, sp)?,
        };
        if self.clobber {
            for &p in &inst.implicit_defs {
                if !results.contains(&p) {
                    self.garbage += 1;
                    let junk = 0x5eed_0000_0000_0000 | self.garbage;
                    self.set_state(p, Some(junk));
                }
            }
        }
        Ok(Flow::Next)
    }
}

enum Flow {
    Next,
    Jump(MBlock),
    Return,
}

fn block_address(func: usize, b: MBlock) -> u64 {
    CODE_BASE + func as u64 * FUNC_SPAN + 8 * (b.index() as u64 + 1)
}

/// `(function, Some(block))` for a block address, `(function, None)` for a
/// function's entry address.
fn decode_code_address(addr: u64) -> Option<(usize, Option<MBlock>)> {
    let off = addr.checked_sub(CODE_BASE)?;
    let (i, within) = ((off / FUNC_SPAN) as usize, off % FUNC_SPAN);
    if within == 0 {
        Some((i, None))
    } else if within % 8 == 0 {
        Some((i, Some(MBlock::new((within / 8 - 1) as usize))))
    } else {
        None
    }
}

fn show(v: Option<u64>) -> String {
    v.map_or("unwritten".to_string(), |v| format!("{v:#x}"))
}

fn show_reg(frame: &Frame, r: Reg) -> String {
    let mut s = String::new();
    let mut probe = MInst::new(MOp::Copy);
    probe.defs = vec![r];
    probe.uses = vec![r];
    s.push_str(&frame.func.display_inst(&probe));
    s.split(" = ").next().unwrap_or("?").to_string()
}

/// Adds where an error happened (traps, faults and the step limit stay as they are).
fn annotate(e: Stop, at: &dyn Fn() -> String) -> Stop {
    match e {
        Stop::Error(m) if !m.contains(": block") => Stop::Error(format!("{}: {m}", at())),
        e => e,
    }
}

#[cfg(test)]
mod tests;
