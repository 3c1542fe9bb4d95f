//! The interpreter: runs a `Module` with exact semantics for every opcode
//! (`docs/ir.md`; the operations' meaning is `semantics`), a byte-addressed memory
//! (`memory`, which gives the memory map), stack frames, a step limit and host
//! functions for external symbols.
//!
//! The values, traps, host functions and run-time signature checks here are shared
//! with the RVSDG's evaluator, which must behave exactly like the interpreter.

use crate::entities::{Block, Inst};
use crate::function::{Function, Signature};
use crate::instructions::{BlockCall, InstructionData, Opcode};
use crate::memory::{Stack, Symbols};
use crate::module::Module;
use crate::semantics;
use crate::types::Type;
use crate::typing::types_list;
use crate::write::{format_f32, format_f64, format_int};
use core::fmt;
use cranelift_entity::EntityRef;
use rustc_hash::FxHashMap as HashMap;

pub use crate::memory::{DATA_BASE, EXTERN_DATA_BASE, FUNC_BASE, HEAP_BASE, Memory, STACK_TOP};

/// A value passed to or returned from the interpreter.
#[derive(Copy, Clone, Debug)]
pub enum DataValue {
    I1(bool),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    I128(i128),
    F32(f32),
    F64(f64),
    Ptr(u64),
}

impl DataValue {
    pub fn ty(&self) -> Type {
        match self {
            DataValue::I1(_) => Type::I1,
            DataValue::I8(_) => Type::I8,
            DataValue::I16(_) => Type::I16,
            DataValue::I32(_) => Type::I32,
            DataValue::I64(_) => Type::I64,
            DataValue::I128(_) => Type::I128,
            DataValue::F32(_) => Type::F32,
            DataValue::F64(_) => Type::F64,
            DataValue::Ptr(_) => Type::Ptr,
        }
    }

    /// The raw bits, zero-extended to 128.
    pub fn bits(&self) -> u128 {
        match *self {
            DataValue::I1(b) => b as u128,
            DataValue::I8(x) => x as u8 as u128,
            DataValue::I16(x) => x as u16 as u128,
            DataValue::I32(x) => x as u32 as u128,
            DataValue::I64(x) => x as u64 as u128,
            DataValue::I128(x) => x as u128,
            DataValue::F32(x) => x.to_bits() as u128,
            DataValue::F64(x) => x.to_bits() as u128,
            DataValue::Ptr(x) => x as u128,
        }
    }

    /// The value of type `ty` whose bits are the low bits of `bits`.
    pub fn from_bits(ty: Type, bits: u128) -> DataValue {
        match ty {
            Type::I1 => DataValue::I1(bits & 1 != 0),
            Type::I8 => DataValue::I8(bits as u8 as i8),
            Type::I16 => DataValue::I16(bits as u16 as i16),
            Type::I32 => DataValue::I32(bits as u32 as i32),
            Type::I64 => DataValue::I64(bits as u64 as i64),
            Type::I128 => DataValue::I128(bits as i128),
            Type::F32 => DataValue::F32(f32::from_bits(bits as u32)),
            Type::F64 => DataValue::F64(f64::from_bits(bits as u64)),
            Type::Ptr => DataValue::Ptr(bits as u64),
        }
    }

    /// Parse a literal of type `ty`: integers in decimal (signed or unsigned) or `0x`
    /// hex, `true`/`false` for `i1`; floats in decimal, `inf`, `-inf`, `nan`, or `0x`
    /// raw bits; pointers as integers.
    pub fn parse(ty: Type, s: &str) -> Option<DataValue> {
        let s = s.trim();
        if ty == Type::I1 {
            match s {
                "true" => return Some(DataValue::I1(true)),
                "false" => return Some(DataValue::I1(false)),
                _ => {}
            }
        }
        let hex = |t: &str| {
            t.strip_prefix("0x")
                .and_then(|h| u128::from_str_radix(&h.replace('_', ""), 16).ok())
        };
        if ty.is_float() {
            if let Some(b) = hex(s) {
                return (b <= ty.mask()).then(|| DataValue::from_bits(ty, b));
            }
            return match ty {
                Type::F32 => s.parse::<f32>().ok().map(DataValue::F32),
                _ => s.parse::<f64>().ok().map(DataValue::F64),
            };
        }
        let (neg, body) = match s.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, s),
        };
        let mag = hex(body).or_else(|| body.parse::<u128>().ok())?;
        let w = ty.bits();
        if neg {
            let lim = if w == 1 { 1 } else { 1u128 << (w - 1) };
            (mag <= lim).then(|| DataValue::from_bits(ty, 0u128.wrapping_sub(mag)))
        } else {
            (mag <= ty.mask()).then(|| DataValue::from_bits(ty, mag))
        }
    }

    pub fn is_nan(&self) -> bool {
        match *self {
            DataValue::F32(x) => x.is_nan(),
            DataValue::F64(x) => x.is_nan(),
            _ => false,
        }
    }
}

/// Equal when of the same type with the same bits (so a NaN equals itself, and `0.0`
/// differs from `-0.0`).
impl PartialEq for DataValue {
    fn eq(&self, other: &Self) -> bool {
        self.ty() == other.ty() && self.bits() == other.bits()
    }
}

impl Eq for DataValue {}

impl fmt::Display for DataValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DataValue::I1(b) => write!(f, "{b}"),
            DataValue::F32(x) => f.write_str(&format_f32(x.to_bits())),
            DataValue::F64(x) => f.write_str(&format_f64(x.to_bits())),
            DataValue::Ptr(p) => write!(f, "{p:#x}"),
            _ => f.write_str(&format_int(self.ty(), self.bits())),
        }
    }
}

/// Why execution stopped.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum TrapKind {
    /// `unreachable`.
    Unreachable,
    /// `trap code`.
    User(u16),
    /// Integer division or remainder by zero.
    DivisionByZero,
    /// `sdiv`/`srem` of the minimum by -1.
    IntegerOverflow,
    /// Access outside mapped memory.
    OutOfBounds,
    /// Write to read-only memory.
    ReadOnly,
    /// Access not aligned as its flags (or an atomic's natural alignment) require.
    Misaligned,
    /// `memcpy` of overlapping ranges.
    Overlap,
    /// More steps than the limit.
    StepLimit,
    /// Call depth or stack memory exhausted.
    StackOverflow,
    /// Call of a symbol that is neither a module function nor a host function, or of a
    /// non-function address.
    UnknownFunction,
    /// Arguments or results that do not match a signature.
    BadSignature,
    /// The IR is malformed (run the verifier).
    Malformed,
    /// Raised by a host function.
    Host,
    /// An exception unwound out of the outermost call (`resume`, or
    /// `_Unwind_RaiseException`, with no `invoke` to land in): its pointer.
    Unwound(u64),
}

/// The external function that starts unwinding: a call of it unwinds with its
/// argument as the exception (unless a host function of that name is given).
pub const RAISE: &str = "_Unwind_RaiseException";
/// The runtime's entry that continues unwinding after a cleanup (what `resume` does):
/// built in as well.
pub const RESUME: &str = "_Unwind_Resume";

/// A trap: its kind and a message (which names the function and instruction when it
/// comes from the IR).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Trap {
    pub kind: TrapKind,
    pub message: String,
}

impl Trap {
    pub fn new(kind: TrapKind, message: impl Into<String>) -> Self {
        Trap {
            kind,
            message: message.into(),
        }
    }
}

impl fmt::Display for Trap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Trap {}

/// A host implementation of an external function.
pub type HostFn<'a> =
    Box<dyn FnMut(&mut Memory, &[DataValue]) -> Result<Vec<DataValue>, Trap> + 'a>;

/// The host functions: what a call of a symbol that is not a function of the module
/// runs.
#[derive(Default)]
pub struct Hosts<'h>(HashMap<String, HostFn<'h>>);

impl<'h> Hosts<'h> {
    /// Provide the implementation of external function `name`.
    pub fn add(
        &mut self,
        name: &str,
        f: impl FnMut(&mut Memory, &[DataValue]) -> Result<Vec<DataValue>, Trap> + 'h,
    ) {
        self.0.insert(name.to_string(), Box::new(f));
    }

    /// Call host function `name`; `UnknownFunction` if there is none, `Unwound` for
    /// [`RAISE`] and [`RESUME`] unless a host function of that name is given.
    pub fn call(
        &mut self,
        memory: &mut Memory,
        name: &str,
        args: &[DataValue],
    ) -> Result<Vec<DataValue>, Trap> {
        match self.0.get_mut(name) {
            Some(h) => h(memory, args),
            // built in: raising and resuming unwind with the exception (the caller
            // decides where to)
            None if name == RAISE || name == RESUME => {
                let exception = args.first().map_or(0, |a| a.bits() as u64);
                Err(Trap::new(
                    TrapKind::Unwound(exception),
                    format!("exception {exception:#x} unwound out of the program"),
                ))
            }
            None => Err(Trap::new(
                TrapKind::UnknownFunction,
                format!(
                    "call of @{name}, which is neither a function of the module nor a host function"
                ),
            )),
        }
    }
}

struct Frame<'m> {
    func: &'m Function,
    vals: Vec<u128>,
    block: Block,
    inst: Option<Inst>,
    slots: Vec<u64>,
    saved_sp: u64,
    /// The exception and selector of the landing pad being run.
    exception: [u128; 2],
}

impl Frame<'_> {
    /// Stopped at an `invoke` whose landing pad catches (`catch_landing_pad`): where
    /// the search phase of unwinding stops.
    fn would_catch(&self) -> bool {
        let Some(at) = self.inst else {
            return false;
        };
        let dfg = &self.func.dfg;
        if dfg.opcode(at).is_try_call() {
            return dfg.opcode(at).try_call_catches();
        }
        match dfg.inst_data(at) {
            InstructionData::Invoke { blocks, .. }
            | InstructionData::InvokeIndirect { blocks, .. } => self
                .func
                .layout
                .first_inst(blocks[1].block)
                .is_some_and(|i| dfg.opcode(i) == Opcode::CatchLandingPad),
            _ => false,
        }
    }
}

/// Runs the functions of a module.
pub struct Interpreter<'m, 'h> {
    module: &'m Module,
    pub memory: Memory,
    symbols: Symbols<'m>,
    funcs: HashMap<&'m str, usize>,
    hosts: Hosts<'h>,
    step_limit: u64,
    steps: u64,
    max_depth: usize,
    stack: Stack,
    /// How many times each instruction ran, by function name, when profiling.
    profile: Option<HashMap<(&'m str, Inst), u64>>,
}

impl<'m, 'h> Interpreter<'m, 'h> {
    /// Lay out the module's data (with relocations applied) and functions.
    pub fn new(module: &'m Module) -> Self {
        let (mut memory, symbols) = Memory::load(module);
        let stack = Stack::new(&mut memory, 1 << 20);
        let mut funcs = HashMap::default();
        for (i, f) in module.functions.iter().enumerate() {
            funcs.entry(f.name.as_str()).or_insert(i);
        }
        Interpreter {
            module,
            memory,
            symbols,
            funcs,
            hosts: Hosts::default(),
            step_limit: 10_000_000,
            steps: 0,
            max_depth: 1000,
            stack,
            profile: None,
        }
    }

    /// Count how many times each instruction runs from now on (see `profile`).
    pub fn enable_profile(&mut self) {
        self.profile.get_or_insert_with(HashMap::default);
    }

    /// How many times each instruction ran since `enable_profile`, by the name of its
    /// function; empty when not profiling.
    pub fn profile(&self) -> impl Iterator<Item = (&'m str, Inst, u64)> + '_ {
        (self.profile.iter())
            .flat_map(|p| p.iter())
            .map(|(&(f, i), &n)| (f, i, n))
    }

    /// Provide the implementation of external function `name`.
    pub fn add_host(
        &mut self,
        name: &str,
        f: impl FnMut(&mut Memory, &[DataValue]) -> Result<Vec<DataValue>, Trap> + 'h,
    ) {
        self.hosts.add(name, f);
    }

    /// Trap with `StepLimit` after this many instructions in total (default 10 million).
    pub fn set_step_limit(&mut self, n: u64) {
        self.step_limit = n;
    }

    /// Instructions executed so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Trap with `StackOverflow` beyond this call depth (default 1000).
    pub fn set_max_depth(&mut self, n: usize) {
        self.max_depth = n;
    }

    /// Size of the stack region for stack slots (default 1 MiB, at most 1 GiB).
    pub fn set_stack_size(&mut self, size: u64) {
        self.stack.resize(&mut self.memory, size);
    }

    /// The address of a function or data symbol.
    pub fn symbol_address(&self, name: &str) -> Option<u64> {
        self.symbols.address(name)
    }

    /// Call function `name` (of the module, or a host function) with `args`.
    pub fn call(&mut self, name: &str, args: &[DataValue]) -> Result<Vec<DataValue>, Trap> {
        match self.funcs.get(name) {
            Some(&i) => {
                let func = &self.module.functions[i];
                check_args(&func.signature, args, name)?;
                let bits: Vec<u128> = args.iter().map(|a| a.bits()).collect();
                let out = self.run(func, &bits)?;
                Ok(out
                    .iter()
                    .zip(&func.signature.returns)
                    .map(|(&b, &t)| DataValue::from_bits(t, b))
                    .collect())
            }
            None => self.call_host(name, args),
        }
    }

    fn call_host(&mut self, name: &str, args: &[DataValue]) -> Result<Vec<DataValue>, Trap> {
        self.hosts.call(&mut self.memory, name, args)
    }

    /// The call `inst` of the frame on top, of host function `name`: its results and
    /// the next instruction, or the unwinding it starts.
    fn host_call(
        &mut self,
        frames: &mut Vec<Frame<'m>>,
        inst: Inst,
        name: &str,
        argv: &[u128],
        arg_types: &[Type],
    ) -> Result<(), Trap> {
        let dv: Vec<DataValue> = argv
            .iter()
            .zip(arg_types)
            .map(|(&b, &t)| DataValue::from_bits(t, b))
            .collect();
        let out = match self.call_host(name, &dv) {
            Err(Trap {
                kind: TrapKind::Unwound(exception),
                ..
            }) => {
                // the search phase: with no frame to catch it, the exception ends the
                // run before any cleanup runs (the Itanium ABI's two phases); a
                // resume goes on with the cleanup phase
                if name != RESUME && !frames.iter().any(Frame::would_catch) {
                    return Err(Trap::new(
                        TrapKind::Unwound(exception),
                        format!("exception {exception:#x} unwound out of the program"),
                    ));
                }
                return self.unwind(frames, exception);
            }
            r => r?,
        };
        let frame = frames.last_mut().expect("a frame");
        set_host_results(frame, inst, &out, name)?;
        continue_after_call(frame, inst);
        Ok(())
    }

    /// Unwinds with `exception` from the frame on top (at a call that unwound): the
    /// first frame stopped at an `invoke` continues at its landing pad, the frames
    /// above it are popped; an error when no frame has one. (The cleanup phase: the
    /// raise checked first that a frame catches it.)
    fn unwind(&mut self, frames: &mut Vec<Frame<'m>>, exception: u64) -> Result<(), Trap> {
        while let Some(frame) = frames.last_mut() {
            let at = frame.inst.expect("a caller is at its call");
            if frame.func.dfg.opcode(at).is_try_call() {
                // the unwinding becomes the call's last three results
                let all = frame.func.dfg.inst_results(at);
                let n = all.len();
                for &r in &all[..n - 3] {
                    frame.vals[r.index()] = 0;
                }
                frame.vals[all[n - 3].index()] = 1;
                frame.vals[all[n - 2].index()] = u128::from(exception);
                frame.vals[all[n - 1].index()] = 0;
                frame.inst = frame.func.layout.next_inst(at);
                return Ok(());
            }
            if let InstructionData::Invoke { blocks, .. }
            | InstructionData::InvokeIndirect { blocks, .. } = frame.func.dfg.inst_data(at)
            {
                frame.exception = [u128::from(exception), 0];
                let unwind = blocks[1].clone();
                take_branch(frame, &unwind);
                return Ok(());
            }
            let done = frames.pop().expect("a frame");
            self.stack.release(done.saved_sp);
        }
        Err(Trap::new(
            TrapKind::Unwound(exception),
            format!("exception {exception:#x} unwound out of the program"),
        ))
    }

    fn push_frame(
        &mut self,
        frames: &mut Vec<Frame<'m>>,
        func: &'m Function,
        args: &[u128],
    ) -> Result<(), Trap> {
        if frames.len() >= self.max_depth {
            return Err(Trap::new(
                TrapKind::StackOverflow,
                format!("call depth over {}", self.max_depth),
            ));
        }
        let entry = func.layout.entry_block().ok_or_else(|| {
            Trap::new(TrapKind::Malformed, format!("@{} has no blocks", func.name))
        })?;
        let saved_sp = self.stack.mark();
        let slots = self.stack.push_frame(&func.stack_slots)?;
        let mut frame = Frame {
            func,
            vals: vec![0; func.dfg.num_values()],
            block: entry,
            inst: func.layout.first_inst(entry),
            slots,
            saved_sp,
            exception: [0; 2],
        };
        let params = func.dfg.block_params(entry);
        if params.len() != args.len() {
            return Err(Trap::new(
                TrapKind::BadSignature,
                format!("@{}: wrong number of arguments", func.name),
            ));
        }
        for (&p, &a) in params.iter().zip(args) {
            frame.vals[p.index()] = a;
        }
        frames.push(frame);
        Ok(())
    }

    /// Run `func` to completion (explicit frame stack: deep recursion in the IR does not
    /// recurse in Rust).
    fn run(&mut self, func: &'m Function, args: &[u128]) -> Result<Vec<u128>, Trap> {
        let mut frames: Vec<Frame<'m>> = Vec::new();
        let base_sp = self.stack.mark();
        let r = self.run_frames(&mut frames, func, args);
        self.stack.release(base_sp);
        r
    }

    fn run_frames(
        &mut self,
        frames: &mut Vec<Frame<'m>>,
        func: &'m Function,
        args: &[u128],
    ) -> Result<Vec<u128>, Trap> {
        self.push_frame(frames, func, args)?;
        loop {
            let frame = frames.last_mut().expect("a frame");
            let f = frame.func;
            let Some(inst) = frame.inst else {
                return Err(Trap::new(
                    TrapKind::Malformed,
                    format!("@{}: {} ends without a terminator", f.name, frame.block),
                ));
            };
            self.steps += 1;
            if self.steps > self.step_limit {
                return Err(Trap::new(
                    TrapKind::StepLimit,
                    format!("step limit of {} reached in @{}", self.step_limit, f.name),
                ));
            }
            if let Some(p) = &mut self.profile {
                *p.entry((f.name.as_str(), inst)).or_default() += 1;
            }
            let block = frame.block;
            let ctx = |t: Trap| Trap {
                kind: t.kind,
                message: format!(
                    "{} (in @{}, {}: {})",
                    t.message,
                    f.name,
                    block,
                    f.display_inst(inst)
                ),
            };
            let data = f.dfg.inst_data(inst);
            match data {
                InstructionData::Jump { dest, .. } => {
                    take_branch(frame, dest);
                }
                InstructionData::Brif { arg, blocks, .. } => {
                    let c = frame.vals[arg.index()] & 1 != 0;
                    take_branch(frame, &blocks[if c { 0 } else { 1 }]);
                }
                InstructionData::Switch { arg, table, .. } => {
                    let v = frame.vals[arg.index()];
                    let i = table
                        .values
                        .iter()
                        .position(|&c| c == v)
                        .map_or(0, |i| i + 1);
                    take_branch(frame, &table.dests[i]);
                }
                InstructionData::Return { args, .. } => {
                    let rets: Vec<u128> = args.iter().map(|a| frame.vals[a.index()]).collect();
                    let done = frames.pop().expect("a frame");
                    self.stack.release(done.saved_sp);
                    match frames.last_mut() {
                        None => return Ok(rets),
                        Some(caller) => {
                            let call = caller.inst.expect("caller is at its call");
                            let all = caller.func.dfg.inst_results(call);
                            // a try_call's unwinding results: not unwound
                            let unwinding = if caller.func.dfg.opcode(call).is_try_call() {
                                3
                            } else {
                                0
                            };
                            let results = &all[..all.len().saturating_sub(unwinding)];
                            for &r in &all[results.len()..] {
                                caller.vals[r.index()] = 0;
                            }
                            if results.len() != rets.len() {
                                return Err(Trap::new(
                                    TrapKind::BadSignature,
                                    format!(
                                        "@{} returned {} value(s), the call expects {}",
                                        done.func.name,
                                        rets.len(),
                                        results.len()
                                    ),
                                ));
                            }
                            for (&r, v) in results.iter().zip(rets) {
                                caller.vals[r.index()] = v;
                            }
                            continue_after_call(caller, call);
                        }
                    }
                }
                InstructionData::Unary {
                    opcode: Opcode::Resume,
                    arg,
                } => {
                    let exception = frame.vals[arg.index()] as u64;
                    let done = frames.pop().expect("a frame");
                    self.stack.release(done.saved_sp);
                    self.unwind(frames, exception)?;
                }
                InstructionData::Nullary {
                    opcode: Opcode::Unreachable,
                } => {
                    return Err(ctx(Trap::new(
                        TrapKind::Unreachable,
                        "unreachable executed",
                    )));
                }
                InstructionData::Trap { code, .. } => {
                    return Err(ctx(Trap::new(
                        TrapKind::User(*code),
                        format!("trap {code}"),
                    )));
                }
                InstructionData::Call {
                    func: fref, args, ..
                }
                | InstructionData::Invoke {
                    func: fref, args, ..
                } => {
                    let ext = &f.ext_funcs[*fref];
                    let argv: Vec<u128> = args.iter().map(|a| frame.vals[a.index()]).collect();
                    let arg_types: Vec<Type> = args.iter().map(|&a| f.dfg.value_type(a)).collect();
                    match self.funcs.get(ext.name.as_str()) {
                        Some(&i) => {
                            let callee = &self.module.functions[i];
                            check_sig(&callee.signature, &ext.signature, &callee.name)
                                .map_err(ctx)?;
                            let n = callee.signature.params.len();
                            self.push_frame(frames, callee, &argv[..n.min(argv.len())])
                                .map_err(ctx)?;
                        }
                        None => {
                            let name = ext.name.clone();
                            self.host_call(frames, inst, &name, &argv, &arg_types)
                                .map_err(ctx)?;
                        }
                    }
                }
                InstructionData::CallIndirect { sig, args, .. }
                | InstructionData::InvokeIndirect { sig, args, .. } => {
                    let addr = frame.vals[args[0].index()] as u64;
                    let sig = &f.signatures[*sig];
                    let argv: Vec<u128> = args[1..].iter().map(|a| frame.vals[a.index()]).collect();
                    let arg_types: Vec<Type> =
                        args[1..].iter().map(|&a| f.dfg.value_type(a)).collect();
                    let Some((name, callee)) = self.symbols.function_at(addr) else {
                        return Err(ctx(Trap::new(
                            TrapKind::UnknownFunction,
                            format!("indirect call of {addr:#x}, which is not a function"),
                        )));
                    };
                    match callee {
                        Some(i) => {
                            let callee = &self.module.functions[i];
                            check_sig(&callee.signature, sig, &callee.name).map_err(ctx)?;
                            let n = callee.signature.params.len();
                            self.push_frame(frames, callee, &argv[..n.min(argv.len())])
                                .map_err(ctx)?;
                        }
                        None => {
                            let name = name.to_string();
                            self.host_call(frames, inst, &name, &argv, &arg_types)
                                .map_err(ctx)?;
                        }
                    }
                }
                InstructionData::Nullary {
                    opcode: Opcode::LandingPad | Opcode::CatchLandingPad,
                } => {
                    let results = f.dfg.inst_results(inst);
                    for (&r, &v) in results.iter().zip(&frame.exception) {
                        frame.vals[r.index()] = v;
                    }
                    frame.inst = f.layout.next_inst(inst);
                }
                _ => {
                    self.exec(frame, inst).map_err(ctx)?;
                    frame.inst = f.layout.next_inst(inst);
                }
            }
        }
    }

    /// Execute a non-control instruction, writing its results.
    fn exec(&mut self, frame: &mut Frame<'m>, inst: Inst) -> Result<(), Trap> {
        let f = frame.func;
        let dfg = &f.dfg;
        let data = dfg.inst_data(inst);
        let results = dfg.inst_results(inst);
        let out = match data {
            InstructionData::SymbolAddr { global, offset, .. } => {
                let name = &f.globals[*global];
                let a = self.symbols.address(name).ok_or_else(|| {
                    Trap::new(
                        TrapKind::Malformed,
                        format!("symbol @{name} is not in the module"),
                    )
                })?;
                [Some(a.wrapping_add(*offset as u64) as u128), None]
            }
            InstructionData::StackAddr { slot, offset, .. } => [
                Some(frame.slots[slot.index()].wrapping_add(*offset as u64) as u128),
                None,
            ],
            _ => {
                // Operations other than calls read at most 3 operands and write at most
                // 2 results: fixed arrays spare an allocation per instruction.
                let mut args = [0u128; 3];
                let mut arg_types = [Type::I64; 3];
                let operands = data.arguments();
                for (i, &v) in operands.iter().take(3).enumerate() {
                    args[i] = frame.vals[v.index()];
                    arg_types[i] = dfg.value_type(v);
                }
                let mut result_types = [Type::I64; 2];
                for (i, &r) in results.iter().take(2).enumerate() {
                    result_types[i] = dfg.value_type(r);
                }
                let n = operands.len().min(3);
                semantics::eval(
                    &mut self.memory,
                    data,
                    &arg_types[..n],
                    &args[..n],
                    &result_types[..results.len().min(2)],
                )?
            }
        };
        for (&r, v) in results.iter().zip(out) {
            match v {
                Some(v) => frame.vals[r.index()] = v,
                None => {
                    return Err(Trap::new(
                        TrapKind::Malformed,
                        "more results than the opcode produces",
                    ));
                }
            }
        }
        Ok(())
    }
}

/// After a call returned: the next instruction, or an `invoke`'s normal successor.
fn continue_after_call(frame: &mut Frame<'_>, call: Inst) {
    match frame.func.dfg.inst_data(call) {
        InstructionData::Invoke { blocks, .. } | InstructionData::InvokeIndirect { blocks, .. } => {
            let normal = blocks[0].clone();
            take_branch(frame, &normal);
        }
        _ => frame.inst = frame.func.layout.next_inst(call),
    }
}

fn take_branch(frame: &mut Frame<'_>, dest: &BlockCall) {
    let f = frame.func;
    // parallel assignment: read every argument before writing any parameter
    let vals: Vec<u128> = dest.args.iter().map(|a| frame.vals[a.index()]).collect();
    for (&p, v) in f.dfg.block_params(dest.block).iter().zip(vals) {
        frame.vals[p.index()] = v;
    }
    frame.block = dest.block;
    frame.inst = f.layout.first_inst(dest.block);
}

fn set_host_results(
    frame: &mut Frame<'_>,
    inst: Inst,
    out: &[DataValue],
    name: &str,
) -> Result<(), Trap> {
    let all = frame.func.dfg.inst_results(inst);
    // a try_call's unwinding results: not unwound
    let unwinding = if frame.func.dfg.opcode(inst).is_try_call() {
        3
    } else {
        0
    };
    let results = &all[..all.len().saturating_sub(unwinding)];
    for &r in &all[results.len()..] {
        frame.vals[r.index()] = 0;
    }
    let types: Vec<Type> = results
        .iter()
        .map(|&r| frame.func.dfg.value_type(r))
        .collect();
    check_host_results(name, out, &types)?;
    for (&r, d) in results.iter().zip(out) {
        frame.vals[r.index()] = d.bits();
    }
    Ok(())
}

/// What host function `name` returned (`out`) against what its call expects.
pub fn check_host_results(name: &str, out: &[DataValue], expected: &[Type]) -> Result<(), Trap> {
    let got: Vec<Type> = out.iter().map(|d| d.ty()).collect();
    if expected != got {
        return Err(Trap::new(
            TrapKind::BadSignature,
            format!(
                "host function @{name} returned ({}), the call expects ({})",
                types_list(&got),
                types_list(expected)
            ),
        ));
    }
    Ok(())
}

/// The arguments of a call from outside (`Interpreter::call`) against the callee's
/// signature: exactly its parameters.
pub fn check_args(sig: &Signature, args: &[DataValue], name: &str) -> Result<(), Trap> {
    let got: Vec<Type> = args.iter().map(|a| a.ty()).collect();
    if got != sig.params {
        return Err(Trap::new(
            TrapKind::BadSignature,
            format!(
                "@{name} takes ({}), called with ({})",
                types_list(&sig.params),
                types_list(&got)
            ),
        ));
    }
    Ok(())
}

/// The signature a call uses (`used`) against the callee's own.
pub fn check_sig(callee: &Signature, used: &Signature, name: &str) -> Result<(), Trap> {
    if callee != used {
        return Err(Trap::new(
            TrapKind::BadSignature,
            format!("@{name} has signature {callee}, called as {used}"),
        ));
    }
    Ok(())
}
