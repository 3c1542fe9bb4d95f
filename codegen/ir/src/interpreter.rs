//! The interpreter: runs a `Module` with exact semantics for every opcode
//! (`docs/ir.md`), a byte-addressed memory, stack frames, a step limit and host
//! functions for external symbols.
//!
//! Memory map (all little-endian, each region separate so that running off one traps):
//! - `0x0000_0000..0x0001_0000` unmapped (null pointers trap);
//! - functions get addresses `0x1000_0000 + 16 * i` (not readable; `call_indirect`
//!   resolves them);
//! - data objects from `0x1_0000_0000` upward, in module order, aligned, 16-byte gaps;
//! - declared external data symbols get unmapped addresses from `0x3000_0000`;
//! - host allocations (`Memory::alloc`) from `0x4000_0000`;
//! - the stack ends at `0x7000_0000` (default size 1 MiB), growing down: each call
//!   allocates its stack slots and releases them on return.

use crate::entities::{Block, Inst, Value};
use crate::function::{Function, Signature};
use crate::instructions::{
    AtomicRmwOp, BlockCall, FloatCC, InstructionData, IntCC, MemFlags, Opcode,
};
use crate::module::{DataKind, Module};
use crate::types::Type;
use crate::write::{format_f32, format_f64, format_int};
use core::fmt;
use cranelift_entity::EntityRef;
use std::collections::{BTreeMap, HashMap};

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
}

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

struct Region {
    bytes: Vec<u8>,
    writable: bool,
    name: String,
}

/// Byte-addressed memory made of separate regions.
pub struct Memory {
    regions: BTreeMap<u64, Region>,
    heap_next: u64,
}

pub const FUNC_BASE: u64 = 0x1000_0000;
pub const DATA_BASE: u64 = 0x1_0000_0000;
pub const EXTERN_DATA_BASE: u64 = 0x3000_0000;
pub const HEAP_BASE: u64 = 0x4000_0000;
pub const STACK_TOP: u64 = 0x7000_0000;

impl Memory {
    fn new() -> Self {
        Memory {
            regions: BTreeMap::new(),
            heap_next: HEAP_BASE,
        }
    }

    fn map(&mut self, base: u64, bytes: Vec<u8>, writable: bool, name: &str) {
        self.regions.insert(
            base,
            Region {
                bytes,
                writable,
                name: name.to_string(),
            },
        );
    }

    fn find(&self, addr: u64, len: u64) -> Result<(u64, &Region), Trap> {
        if let Some((&base, r)) = self.regions.range(..=addr).next_back() {
            let off = addr - base;
            if off
                .checked_add(len)
                .is_some_and(|end| end <= r.bytes.len() as u64)
            {
                return Ok((base, r));
            }
        }
        Err(Trap::new(
            TrapKind::OutOfBounds,
            format!("out-of-bounds access of {len} byte(s) at {addr:#x}"),
        ))
    }

    /// `len` bytes at `addr`.
    pub fn read(&self, addr: u64, len: u64) -> Result<&[u8], Trap> {
        let (base, r) = self.find(addr, len)?;
        let off = (addr - base) as usize;
        Ok(&r.bytes[off..off + len as usize])
    }

    /// Write `data` at `addr`.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Trap> {
        let (base, r) = self.find(addr, data.len() as u64)?;
        if !r.writable {
            return Err(Trap::new(
                TrapKind::ReadOnly,
                format!(
                    "write of {} byte(s) at {addr:#x} to read-only {}",
                    data.len(),
                    r.name
                ),
            ));
        }
        let off = (addr - base) as usize;
        let r = self.regions.get_mut(&base).expect("region exists");
        r.bytes[off..off + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// A little-endian unsigned integer of `size` bytes (1..=16).
    pub fn read_uint(&self, addr: u64, size: u32) -> Result<u128, Trap> {
        let b = self.read(addr, size as u64)?;
        let mut buf = [0u8; 16];
        buf[..b.len()].copy_from_slice(b);
        Ok(u128::from_le_bytes(buf))
    }

    /// Write the low `size` bytes of `v`, little-endian.
    pub fn write_uint(&mut self, addr: u64, size: u32, v: u128) -> Result<(), Trap> {
        self.write(addr, &v.to_le_bytes()[..size as usize])
    }

    /// Allocate a fresh zeroed writable region (for host functions, e.g. `malloc`).
    pub fn alloc(&mut self, size: u64, align: u64) -> u64 {
        let align = align.max(16);
        let base = self.heap_next.next_multiple_of(align);
        self.heap_next = base + size.max(1) + 16;
        self.map(base, vec![0; size as usize], true, "heap");
        base
    }

    /// The bytes of a NUL-terminated string at `addr` (without the NUL).
    pub fn read_cstr(&self, addr: u64) -> Result<Vec<u8>, Trap> {
        let (base, r) = self.find(addr, 1)?;
        let tail = &r.bytes[(addr - base) as usize..];
        match tail.iter().position(|&b| b == 0) {
            Some(n) => Ok(tail[..n].to_vec()),
            None => Err(Trap::new(
                TrapKind::OutOfBounds,
                format!("unterminated string at {addr:#x}"),
            )),
        }
    }
}

/// A host implementation of an external function.
pub type HostFn<'a> =
    Box<dyn FnMut(&mut Memory, &[DataValue]) -> Result<Vec<DataValue>, Trap> + 'a>;

#[derive(Copy, Clone)]
enum Callee {
    Module(usize),
    External,
}

struct Frame<'m> {
    func: &'m Function,
    vals: Vec<u128>,
    block: Block,
    inst: Option<Inst>,
    slots: Vec<u64>,
    saved_sp: u64,
}

/// Runs the functions of a module.
pub struct Interpreter<'m, 'h> {
    module: &'m Module,
    pub memory: Memory,
    symbols: HashMap<&'m str, u64>,
    funcs: HashMap<&'m str, usize>,
    by_addr: HashMap<u64, (&'m str, Callee)>,
    hosts: HashMap<String, HostFn<'h>>,
    step_limit: u64,
    steps: u64,
    max_depth: usize,
    sp: u64,
    stack_base: u64,
}

impl<'m, 'h> Interpreter<'m, 'h> {
    /// Lay out the module's data (with relocations applied) and functions.
    pub fn new(module: &'m Module) -> Self {
        let mut it = Interpreter {
            module,
            memory: Memory::new(),
            symbols: HashMap::new(),
            funcs: HashMap::new(),
            by_addr: HashMap::new(),
            hosts: HashMap::new(),
            step_limit: 10_000_000,
            steps: 0,
            max_depth: 1000,
            sp: STACK_TOP,
            stack_base: STACK_TOP,
        };
        let mut next_fn = FUNC_BASE;
        for (i, f) in module.functions.iter().enumerate() {
            it.funcs.entry(&f.name).or_insert(i);
            it.symbols.entry(&f.name).or_insert(next_fn);
            it.by_addr.insert(next_fn, (&f.name, Callee::Module(i)));
            next_fn += 16;
        }
        for d in &module.func_decls {
            if !it.symbols.contains_key(d.name.as_str()) {
                it.symbols.insert(&d.name, next_fn);
                it.by_addr.insert(next_fn, (&d.name, Callee::External));
                next_fn += 16;
            }
        }
        let mut next_data = DATA_BASE;
        for d in &module.data {
            let addr = next_data.next_multiple_of(d.align.clamp(1, 1 << 32));
            it.symbols.entry(&d.name).or_insert(addr);
            next_data = addr + d.bytes.len() as u64 + 16;
        }
        let mut next_ext = EXTERN_DATA_BASE;
        for d in &module.data_decls {
            it.symbols.entry(d).or_insert_with(|| {
                next_ext += 16;
                next_ext - 16
            });
        }
        for d in &module.data {
            let addr = it.symbols[d.name.as_str()];
            let mut bytes = d.bytes.clone();
            for r in &d.relocs {
                let target = it.symbols.get(r.symbol.as_str()).copied().unwrap_or(0);
                let v = target.wrapping_add(r.addend as u64);
                let off = r.offset as usize;
                if let Some(slot) = bytes.get_mut(off..off.saturating_add(8))
                    && slot.len() == 8
                {
                    slot.copy_from_slice(&v.to_le_bytes());
                }
            }
            it.memory.map(
                addr,
                bytes,
                d.kind != DataKind::ReadOnly,
                &format!("@{}", d.name),
            );
        }
        it.set_stack_size(1 << 20);
        it
    }

    /// Provide the implementation of external function `name`.
    pub fn add_host(
        &mut self,
        name: &str,
        f: impl FnMut(&mut Memory, &[DataValue]) -> Result<Vec<DataValue>, Trap> + 'h,
    ) {
        self.hosts.insert(name.to_string(), Box::new(f));
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
        let base = STACK_TOP - size.min(1 << 30);
        self.memory.regions.remove(&self.stack_base);
        self.memory
            .map(base, vec![0; size as usize], true, "the stack");
        self.stack_base = base;
        self.sp = STACK_TOP;
    }

    /// The address of a function or data symbol.
    pub fn symbol_address(&self, name: &str) -> Option<u64> {
        self.symbols.get(name).copied()
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
        match self.hosts.get_mut(name) {
            Some(h) => h(&mut self.memory, args),
            None => Err(Trap::new(
                TrapKind::UnknownFunction,
                format!(
                    "call of @{name}, which is neither a function of the module nor a host function"
                ),
            )),
        }
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
        let saved_sp = self.sp;
        let mut sp = self.sp;
        let mut slots = Vec::with_capacity(func.stack_slots.len());
        for (_, s) in func.stack_slots.iter() {
            sp = sp.saturating_sub(s.size as u64) & !(s.align.max(1) as u64 - 1);
            slots.push(sp);
        }
        if sp < self.stack_base {
            return Err(Trap::new(TrapKind::StackOverflow, "stack memory exhausted"));
        }
        self.sp = sp;
        let mut frame = Frame {
            func,
            vals: vec![0; func.dfg.num_values()],
            block: entry,
            inst: func.layout.first_inst(entry),
            slots,
            saved_sp,
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
        let base_sp = self.sp;
        let r = self.run_frames(&mut frames, func, args);
        self.sp = base_sp;
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
                    self.sp = done.saved_sp;
                    match frames.last_mut() {
                        None => return Ok(rets),
                        Some(caller) => {
                            let call = caller.inst.expect("caller is at its call");
                            let results = caller.func.dfg.inst_results(call);
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
                            caller.inst = caller.func.layout.next_inst(call);
                        }
                    }
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
                            let dv: Vec<DataValue> = argv
                                .iter()
                                .zip(&arg_types)
                                .map(|(&b, &t)| DataValue::from_bits(t, b))
                                .collect();
                            let name = ext.name.clone();
                            let out = self.call_host(&name, &dv).map_err(ctx)?;
                            let frame = frames.last_mut().expect("a frame");
                            set_host_results(frame, inst, &out, &name).map_err(ctx)?;
                            frame.inst = f.layout.next_inst(inst);
                        }
                    }
                }
                InstructionData::CallIndirect { sig, args, .. } => {
                    let addr = frame.vals[args[0].index()] as u64;
                    let sig = &f.signatures[*sig];
                    let argv: Vec<u128> = args[1..].iter().map(|a| frame.vals[a.index()]).collect();
                    let arg_types: Vec<Type> =
                        args[1..].iter().map(|&a| f.dfg.value_type(a)).collect();
                    let Some(&(name, callee)) = self.by_addr.get(&addr) else {
                        return Err(ctx(Trap::new(
                            TrapKind::UnknownFunction,
                            format!("indirect call of {addr:#x}, which is not a function"),
                        )));
                    };
                    match callee {
                        Callee::Module(i) => {
                            let callee = &self.module.functions[i];
                            check_sig(&callee.signature, sig, &callee.name).map_err(ctx)?;
                            let n = callee.signature.params.len();
                            self.push_frame(frames, callee, &argv[..n.min(argv.len())])
                                .map_err(ctx)?;
                        }
                        Callee::External => {
                            let dv: Vec<DataValue> = argv
                                .iter()
                                .zip(&arg_types)
                                .map(|(&b, &t)| DataValue::from_bits(t, b))
                                .collect();
                            let out = self.call_host(name, &dv).map_err(ctx)?;
                            let frame = frames.last_mut().expect("a frame");
                            set_host_results(frame, inst, &out, name).map_err(ctx)?;
                            frame.inst = f.layout.next_inst(inst);
                        }
                    }
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
        let val = |v: Value| frame.vals[v.index()];
        let vty = |v: Value| dfg.value_type(v);
        let rty = || {
            results
                .first()
                .map(|&r| dfg.value_type(r))
                .unwrap_or(Type::I64)
        };
        let out: [Option<u128>; 2] = match data {
            InstructionData::Nullary {
                opcode: Opcode::Undef,
            } => [Some(0), None],
            InstructionData::Nullary {
                opcode: Opcode::Fence,
            } => [None, None],
            InstructionData::Nullary { .. } => {
                return Err(Trap::new(TrapKind::Malformed, "bad nullary"));
            }
            InstructionData::UnaryImm { imm, .. } => [Some(*imm & rty().mask()), None],
            InstructionData::SymbolAddr { global, offset, .. } => {
                let name = &f.globals[*global];
                let a = self.symbols.get(name.as_str()).copied().ok_or_else(|| {
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
            InstructionData::Unary { opcode, arg } => {
                [Some(unary(*opcode, vty(*arg), rty(), val(*arg))), None]
            }
            InstructionData::Binary { opcode, args } => {
                let ty = vty(args[0]);
                let (a, b) = (val(args[0]), val(args[1]));
                match binary(*opcode, ty, a, b, vty(args[1]))? {
                    (r, None) => [Some(r), None],
                    (r, Some(o)) => [Some(r), Some(o as u128)],
                }
            }
            InstructionData::Ternary { opcode, args } => {
                let [a, b, c] = args.map(val);
                match opcode {
                    Opcode::Select => [Some(if a & 1 != 0 { b } else { c }), None],
                    Opcode::Fma => [
                        Some(match vty(args[0]) {
                            Type::F32 => f32_of(a).mul_add(f32_of(b), f32_of(c)).to_bits() as u128,
                            _ => f64_of(a).mul_add(f64_of(b), f64_of(c)).to_bits() as u128,
                        }),
                        None,
                    ],
                    Opcode::Memcpy | Opcode::Memmove => {
                        let (dst, src, len) = (a as u64, b as u64, c as u64);
                        if len > 0 {
                            let bytes = self.memory.read(src, len)?.to_vec();
                            if *opcode == Opcode::Memcpy
                                && dst != src
                                && dst < src.wrapping_add(len)
                                && src < dst.wrapping_add(len)
                            {
                                return Err(Trap::new(
                                    TrapKind::Overlap,
                                    format!(
                                        "memcpy of overlapping ranges {dst:#x} and {src:#x} ({len} bytes)"
                                    ),
                                ));
                            }
                            self.memory.write(dst, &bytes)?;
                        }
                        [None, None]
                    }
                    Opcode::Memset => {
                        let len = c as u64;
                        if len > 0 {
                            self.memory.find(a as u64, len)?;
                            let bytes = vec![b as u8; len as usize];
                            self.memory.write(a as u64, &bytes)?;
                        }
                        [None, None]
                    }
                    _ => return Err(Trap::new(TrapKind::Malformed, "bad ternary")),
                }
            }
            InstructionData::IntCompare { cond, args, .. } => {
                let ty = vty(args[0]);
                [
                    Some(icmp(*cond, ty, val(args[0]), val(args[1])) as u128),
                    None,
                ]
            }
            InstructionData::FloatCompare { cond, args, .. } => {
                let ty = vty(args[0]);
                let (a, b) = if ty == Type::F32 {
                    (f32_of(val(args[0])) as f64, f32_of(val(args[1])) as f64)
                } else {
                    (f64_of(val(args[0])), f64_of(val(args[1])))
                };
                [Some(fcmp(*cond, a, b) as u128), None]
            }
            InstructionData::Load {
                opcode,
                flags,
                arg,
                offset,
            } => {
                let ty = rty();
                let addr = (val(*arg) as u64).wrapping_add(*offset as i64 as u64);
                check_align(addr, *flags, ty, *opcode == Opcode::AtomicLoad)?;
                [Some(self.memory.read_uint(addr, ty.bytes())?), None]
            }
            InstructionData::Store {
                opcode,
                flags,
                args,
                offset,
            } => {
                let ty = vty(args[0]);
                let addr = (val(args[1]) as u64).wrapping_add(*offset as i64 as u64);
                check_align(addr, *flags, ty, *opcode == Opcode::AtomicStore)?;
                self.memory.write_uint(addr, ty.bytes(), val(args[0]))?;
                [None, None]
            }
            InstructionData::AtomicRmw {
                flags, op, args, ..
            } => {
                let ty = vty(args[1]);
                let addr = val(args[0]) as u64;
                check_align(addr, *flags, ty, true)?;
                let old = self.memory.read_uint(addr, ty.bytes())?;
                let v = val(args[1]);
                let m = ty.mask();
                let new = match op {
                    AtomicRmwOp::Add => old.wrapping_add(v) & m,
                    AtomicRmwOp::Sub => old.wrapping_sub(v) & m,
                    AtomicRmwOp::And => old & v,
                    AtomicRmwOp::Or => old | v,
                    AtomicRmwOp::Xor => old ^ v,
                    AtomicRmwOp::Nand => !(old & v) & m,
                    AtomicRmwOp::Xchg => v,
                    AtomicRmwOp::Umin => old.min(v),
                    AtomicRmwOp::Umax => old.max(v),
                    AtomicRmwOp::Smin => {
                        if sext(ty, old) <= sext(ty, v) {
                            old
                        } else {
                            v
                        }
                    }
                    AtomicRmwOp::Smax => {
                        if sext(ty, old) >= sext(ty, v) {
                            old
                        } else {
                            v
                        }
                    }
                };
                self.memory.write_uint(addr, ty.bytes(), new)?;
                [Some(old), None]
            }
            InstructionData::AtomicCas { flags, args, .. } => {
                let ty = vty(args[1]);
                let addr = val(args[0]) as u64;
                check_align(addr, *flags, ty, true)?;
                let old = self.memory.read_uint(addr, ty.bytes())?;
                let ok = old == val(args[1]);
                if ok {
                    self.memory.write_uint(addr, ty.bytes(), val(args[2]))?;
                } else {
                    // a failed compare-and-swap still needs write access
                    self.memory.write_uint(addr, ty.bytes(), old)?;
                }
                [Some(old), Some(ok as u128)]
            }
            _ => {
                return Err(Trap::new(
                    TrapKind::Malformed,
                    "unexpected control instruction",
                ));
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
    let results = frame.func.dfg.inst_results(inst);
    let types: Vec<Type> = results
        .iter()
        .map(|&r| frame.func.dfg.value_type(r))
        .collect();
    let got: Vec<Type> = out.iter().map(|d| d.ty()).collect();
    if types != got {
        return Err(Trap::new(
            TrapKind::BadSignature,
            format!(
                "host function @{name} returned ({}), the call expects ({})",
                list(&got),
                list(&types)
            ),
        ));
    }
    for (&r, d) in results.iter().zip(out) {
        frame.vals[r.index()] = d.bits();
    }
    Ok(())
}

fn list(ts: &[Type]) -> String {
    ts.iter().map(|t| t.name()).collect::<Vec<_>>().join(", ")
}

fn check_args(sig: &Signature, args: &[DataValue], name: &str) -> Result<(), Trap> {
    let got: Vec<Type> = args.iter().map(|a| a.ty()).collect();
    if got != sig.params {
        return Err(Trap::new(
            TrapKind::BadSignature,
            format!(
                "@{name} takes ({}), called with ({})",
                list(&sig.params),
                list(&got)
            ),
        ));
    }
    Ok(())
}

fn check_sig(callee: &Signature, used: &Signature, name: &str) -> Result<(), Trap> {
    if callee != used {
        return Err(Trap::new(
            TrapKind::BadSignature,
            format!("@{name} has signature {callee}, called as {used}"),
        ));
    }
    Ok(())
}

fn check_align(addr: u64, flags: MemFlags, ty: Type, atomic: bool) -> Result<(), Trap> {
    let align = if atomic {
        (ty.bytes() as u64).max(flags.align as u64)
    } else {
        flags.align as u64
    };
    if align > 1 && !addr.is_multiple_of(align) {
        return Err(Trap::new(
            TrapKind::Misaligned,
            format!("access at {addr:#x} is not {align}-byte aligned"),
        ));
    }
    Ok(())
}

// ---- semantics on bit patterns ----

/// Sign-extend the low `ty.bits()` bits.
fn sext(ty: Type, x: u128) -> i128 {
    let s = 128 - ty.bits();
    ((x << s) as i128) >> s
}

fn f32_of(x: u128) -> f32 {
    f32::from_bits(x as u32)
}

fn f64_of(x: u128) -> f64 {
    f64::from_bits(x as u64)
}

fn smin_of(w: u32) -> i128 {
    if w == 128 {
        i128::MIN
    } else {
        -(1i128 << (w - 1))
    }
}

fn smax_of(w: u32) -> i128 {
    if w == 128 {
        i128::MAX
    } else {
        (1i128 << (w - 1)) - 1
    }
}

/// High and low halves of the full 256-bit product of two u128.
fn mul_wide(a: u128, b: u128) -> (u128, u128) {
    let (a1, a0) = (a >> 64, a & u64::MAX as u128);
    let (b1, b0) = (b >> 64, b & u64::MAX as u128);
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = (p00 >> 64) + (p01 & u64::MAX as u128) + (p10 & u64::MAX as u128);
    let lo = (p00 & u64::MAX as u128) | (mid << 64);
    let hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    (hi, lo)
}

fn binary(
    op: Opcode,
    ty: Type,
    a: u128,
    b: u128,
    bty: Type,
) -> Result<(u128, Option<bool>), crate::interpreter::Trap> {
    use Opcode::*;
    let w = ty.bits();
    let m = ty.mask();
    let (sa, sb) = (sext(ty, a), sext(ty, b));
    let div0 =
        || crate::interpreter::Trap::new(TrapKind::DivisionByZero, "integer division by zero");
    let ovf = || {
        crate::interpreter::Trap::new(
            TrapKind::IntegerOverflow,
            "signed division overflow (minimum / -1)",
        )
    };
    let amt = || ((b & bty.mask()) % w as u128) as u32;
    let fl32 = |f: fn(f32, f32) -> f32| f(f32_of(a), f32_of(b)).to_bits() as u128;
    let fl64 = |f: fn(f64, f64) -> f64| f(f64_of(a), f64_of(b)).to_bits() as u128;
    let fl = |g: fn(f32, f32) -> f32, h: fn(f64, f64) -> f64| {
        if ty == Type::F32 { fl32(g) } else { fl64(h) }
    };
    let in_srange = |x: i128| x >= smin_of(w) && x <= smax_of(w);
    Ok(match op {
        Iadd => (a.wrapping_add(b) & m, None),
        Isub => (a.wrapping_sub(b) & m, None),
        Imul => (a.wrapping_mul(b) & m, None),
        Udiv => (a.checked_div(b).ok_or_else(div0)?, None),
        Urem => (a.checked_rem(b).ok_or_else(div0)?, None),
        Sdiv | Srem => {
            if b == 0 {
                return Err(div0());
            }
            if sa == smin_of(w) && sb == -1 {
                return Err(ovf());
            }
            let r = if op == Sdiv {
                sa.wrapping_div(sb)
            } else {
                sa.wrapping_rem(sb)
            };
            (r as u128 & m, None)
        }
        Umulhi => {
            if w == 128 {
                (mul_wide(a, b).0, None)
            } else {
                ((a * b) >> w & m, None)
            }
        }
        Smulhi => {
            if w == 128 {
                let (hi, _) = mul_wide(a, b);
                let mut hi = hi;
                if sa < 0 {
                    hi = hi.wrapping_sub(b);
                }
                if sb < 0 {
                    hi = hi.wrapping_sub(a);
                }
                (hi, None)
            } else {
                (((sa * sb) >> w) as u128 & m, None)
            }
        }
        Band => (a & b, None),
        Bor => (a | b, None),
        Bxor => (a ^ b, None),
        Ishl => ((a << amt()) & m, None),
        Ushr => (a >> amt(), None),
        Sshr => ((sa >> amt()) as u128 & m, None),
        Rotl | Rotr => {
            let k = amt();
            let k = if op == Rotl { k } else { (w - k) % w };
            if k == 0 {
                (a, None)
            } else {
                (((a << k) | (a >> (w - k))) & m, None)
            }
        }
        Smin => (if sa <= sb { a } else { b }, None),
        Smax => (if sa >= sb { a } else { b }, None),
        Umin => (a.min(b), None),
        Umax => (a.max(b), None),
        UaddOverflow => {
            let (r, c) = a.overflowing_add(b);
            (r & m, Some(c || (w < 128 && r > m)))
        }
        SaddOverflow => {
            if w == 128 {
                let (r, o) = sa.overflowing_add(sb);
                (r as u128, Some(o))
            } else {
                let r = sa + sb;
                (r as u128 & m, Some(!in_srange(r)))
            }
        }
        UsubOverflow => (a.wrapping_sub(b) & m, Some(a < b)),
        SsubOverflow => {
            if w == 128 {
                let (r, o) = sa.overflowing_sub(sb);
                (r as u128, Some(o))
            } else {
                let r = sa - sb;
                (r as u128 & m, Some(!in_srange(r)))
            }
        }
        UmulOverflow => {
            if w == 128 {
                let (r, o) = a.overflowing_mul(b);
                (r, Some(o))
            } else {
                let r = a * b; // fits: both < 2^64
                (r & m, Some(r > m))
            }
        }
        SmulOverflow => {
            if w == 128 {
                let (r, o) = sa.overflowing_mul(sb);
                (r as u128, Some(o))
            } else {
                let r = sa * sb; // fits: both in [-2^63, 2^63)
                (r as u128 & m, Some(!in_srange(r)))
            }
        }
        Ptradd => ((a as u64).wrapping_add(b as u64) as u128, None),
        Fadd => (fl(|x, y| x + y, |x, y| x + y), None),
        Fsub => (fl(|x, y| x - y, |x, y| x - y), None),
        Fmul => (fl(|x, y| x * y, |x, y| x * y), None),
        Fdiv => (fl(|x, y| x / y, |x, y| x / y), None),
        Frem => (fl(|x, y| x % y, |x, y| x % y), None),
        Fmin => (fl(f32::min, f64::min), None),
        Fmax => (fl(f32::max, f64::max), None),
        Fcopysign => {
            let sign = 1u128 << (w - 1);
            ((a & !sign) | (b & sign), None)
        }
        _ => {
            return Err(crate::interpreter::Trap::new(
                TrapKind::Malformed,
                format!("{op} is not a binary operation"),
            ));
        }
    })
}

fn unary(op: Opcode, ty: Type, to: Type, a: u128) -> u128 {
    use Opcode::*;
    let w = ty.bits();
    let m = ty.mask();
    let f32u = |f: fn(f32) -> f32| f(f32_of(a)).to_bits() as u128;
    let f64u = |f: fn(f64) -> f64| f(f64_of(a)).to_bits() as u128;
    let fl = |g: fn(f32) -> f32, h: fn(f64) -> f64| if ty == Type::F32 { f32u(g) } else { f64u(h) };
    match op {
        Ineg => 0u128.wrapping_sub(a) & m,
        Bnot => !a & m,
        Clz => {
            if a == 0 {
                w as u128
            } else {
                (a.leading_zeros() - (128 - w)) as u128
            }
        }
        Ctz => {
            if a == 0 {
                w as u128
            } else {
                a.trailing_zeros() as u128
            }
        }
        Popcnt => a.count_ones() as u128,
        Bswap => a.swap_bytes() >> (128 - w),
        Bitrev => a.reverse_bits() >> (128 - w),
        Iabs => sext(ty, a).wrapping_abs() as u128 & m,
        Uextend => a,
        Sextend => sext(ty, a) as u128 & to.mask(),
        Ireduce => a & to.mask(),
        Fpromote => (f32_of(a) as f64).to_bits() as u128,
        Fdemote => (f64_of(a) as f32).to_bits() as u128,
        FcvtToUintSat | FcvtToSintSat => {
            let x = if ty == Type::F32 {
                f32_of(a) as f64
            } else {
                f64_of(a)
            };
            // Rust `as` saturates and maps NaN to 0; converting from f32 through f64 is exact.
            let signed = op == FcvtToSintSat;
            (match (to, signed) {
                (Type::I8, false) => x as u8 as u128,
                (Type::I16, false) => x as u16 as u128,
                (Type::I32, false) => x as u32 as u128,
                (Type::I64, false) => x as u64 as u128,
                (Type::I128, false) => x as u128,
                (Type::I8, true) => x as i8 as u128,
                (Type::I16, true) => x as i16 as u128,
                (Type::I32, true) => x as i32 as u128,
                (Type::I64, true) => x as i64 as u128,
                (Type::I128, true) => x as i128 as u128,
                _ => 0,
            }) & to.mask()
        }
        FcvtFromUint => match to {
            Type::F32 => (a as f32).to_bits() as u128,
            _ => (a as f64).to_bits() as u128,
        },
        FcvtFromSint => match to {
            Type::F32 => (sext(ty, a) as f32).to_bits() as u128,
            _ => (sext(ty, a) as f64).to_bits() as u128,
        },
        Bitcast => a & to.mask(),
        Fneg => a ^ (1u128 << (w - 1)),
        Fabs => a & !(1u128 << (w - 1)),
        Sqrt => fl(f32::sqrt, f64::sqrt),
        Floor => fl(f32::floor, f64::floor),
        Ceil => fl(f32::ceil, f64::ceil),
        Trunc => fl(f32::trunc, f64::trunc),
        Nearest => fl(f32::round_ties_even, f64::round_ties_even),
        Round => fl(f32::round, f64::round),
        _ => 0,
    }
}

fn icmp(cond: IntCC, ty: Type, a: u128, b: u128) -> bool {
    let (sa, sb) = (sext(ty, a), sext(ty, b));
    match cond {
        IntCC::Eq => a == b,
        IntCC::Ne => a != b,
        IntCC::Slt => sa < sb,
        IntCC::Sle => sa <= sb,
        IntCC::Sgt => sa > sb,
        IntCC::Sge => sa >= sb,
        IntCC::Ult => a < b,
        IntCC::Ule => a <= b,
        IntCC::Ugt => a > b,
        IntCC::Uge => a >= b,
    }
}

fn fcmp(cond: FloatCC, a: f64, b: f64) -> bool {
    let uno = a.is_nan() || b.is_nan();
    match cond {
        FloatCC::Oeq => a == b,
        FloatCC::One => !uno && a != b,
        FloatCC::Olt => a < b,
        FloatCC::Ole => a <= b,
        FloatCC::Ogt => a > b,
        FloatCC::Oge => a >= b,
        FloatCC::Ord => !uno,
        FloatCC::Uno => uno,
        FloatCC::Ueq => uno || a == b,
        FloatCC::Une => a != b,
        FloatCC::Ult => uno || a < b,
        FloatCC::Ule => uno || a <= b,
        FloatCC::Ugt => uno || a > b,
        FloatCC::Uge => uno || a >= b,
    }
}
