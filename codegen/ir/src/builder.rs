//! Building and editing functions: a cursor over a function with an insertion point,
//! and `ins()`-style instruction constructors.
//!
//! ```
//! use vliw_ir::*;
//! let mut func = Function::new("add", Signature::new(&[Type::I32, Type::I32], &[Type::I32]), Linkage::Export);
//! let mut b = FunctionBuilder::new(&mut func);
//! let entry = b.create_block();
//! let x = b.append_block_param(entry, Type::I32);
//! let y = b.append_block_param(entry, Type::I32);
//! b.switch_to_block(entry);
//! let s = b.ins().iadd(x, y);
//! b.ins().return_(&[s]);
//! assert!(verify_function(&func).is_ok());
//! ```
//!
//! Constructors compute result types from the operands and check nothing else: run the
//! verifier.

use crate::entities::{Block, FuncRef, GlobalRef, Inst, SigRef, StackSlot, Value};
use crate::function::{Function, Signature, SourceLoc};
use crate::instructions::{
    AtomicRmwOp, BlockCall, FloatCC, InstructionData, IntCC, MemFlags, Opcode, SwitchData,
};
use crate::types::Type;
use crate::typing::result_types;

/// Where the next instruction goes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum CursorPosition {
    /// Nowhere: inserting panics.
    Nowhere,
    /// Just before this instruction.
    Before(Inst),
    /// At the end of this block.
    Bottom(Block),
}

/// A function with an insertion point and a current source location (given to each
/// new instruction). Used both to build a function from scratch (the rustc shim) and to
/// rewrite one (passes): see `goto_before`, `goto_after`, `remove_inst`.
pub struct FunctionBuilder<'f> {
    pub func: &'f mut Function,
    pos: CursorPosition,
    srcloc: SourceLoc,
}

impl<'f> FunctionBuilder<'f> {
    pub fn new(func: &'f mut Function) -> Self {
        FunctionBuilder {
            func,
            pos: CursorPosition::Nowhere,
            srcloc: SourceLoc::default(),
        }
    }

    // ---- blocks ----

    /// A new block with no parameters, not yet in the layout (`switch_to_block` inserts
    /// it at the end).
    pub fn create_block(&mut self) -> Block {
        self.func.dfg.make_block()
    }

    pub fn append_block_param(&mut self, block: Block, ty: Type) -> Value {
        self.func.dfg.append_block_param(block, ty)
    }

    /// Append one parameter per type of the signature to `block` (for the entry block).
    pub fn append_block_params_for_function_params(&mut self, block: Block) -> Vec<Value> {
        let params = self.func.signature.params.clone();
        params
            .into_iter()
            .map(|t| self.func.dfg.append_block_param(block, t))
            .collect()
    }

    pub fn block_params(&self, block: Block) -> &[Value] {
        self.func.dfg.block_params(block)
    }

    /// Insert into the layout at the end of the function if it is not there yet, and
    /// position at its end.
    pub fn switch_to_block(&mut self, block: Block) {
        if !self.func.layout.is_block_inserted(block) {
            self.func.layout.append_block(block);
        }
        self.pos = CursorPosition::Bottom(block);
    }

    /// Insert `block` into the layout just after `after` (no repositioning).
    pub fn insert_block_after(&mut self, block: Block, after: Block) {
        self.func.layout.insert_block_after(block, after);
    }

    /// Whether `block` ends in a terminator.
    pub fn is_block_terminated(&self, block: Block) -> bool {
        self.func.is_block_terminated(block)
    }

    /// The block the insertion point is in.
    pub fn current_block(&self) -> Option<Block> {
        match self.pos {
            CursorPosition::Nowhere => None,
            CursorPosition::Bottom(b) => Some(b),
            CursorPosition::Before(i) => self.func.layout.inst_block(i),
        }
    }

    // ---- position ----

    pub fn position(&self) -> CursorPosition {
        self.pos
    }

    pub fn set_position(&mut self, pos: CursorPosition) {
        self.pos = pos;
    }

    /// Position at the end of `block` (which must be in the layout).
    pub fn goto_bottom(&mut self, block: Block) {
        self.pos = CursorPosition::Bottom(block);
    }

    /// Position just before `inst`.
    pub fn goto_before(&mut self, inst: Inst) {
        self.pos = CursorPosition::Before(inst);
    }

    /// Position just after `inst`.
    pub fn goto_after(&mut self, inst: Inst) {
        self.pos = match self.func.layout.next_inst(inst) {
            Some(n) => CursorPosition::Before(n),
            None => CursorPosition::Bottom(
                self.func
                    .layout
                    .inst_block(inst)
                    .expect("goto_after an instruction not in the layout"),
            ),
        };
    }

    /// Position before the first instruction of `block` (or at its end if it is empty).
    pub fn goto_first_inst(&mut self, block: Block) {
        self.pos = match self.func.layout.first_inst(block) {
            Some(i) => CursorPosition::Before(i),
            None => CursorPosition::Bottom(block),
        };
    }

    /// Remove `inst` from the layout; if the cursor was before it, it moves to the next
    /// instruction.
    pub fn remove_inst(&mut self, inst: Inst) {
        if self.pos == CursorPosition::Before(inst) {
            self.goto_after(inst);
        }
        self.func.layout.remove_inst(inst);
    }

    // ---- source locations ----

    /// The location given to instructions created from now on.
    pub fn set_srcloc(&mut self, loc: SourceLoc) {
        self.srcloc = loc;
    }

    pub fn srcloc(&self) -> SourceLoc {
        self.srcloc
    }

    // ---- references and frame ----

    pub fn value_type(&self, v: Value) -> Type {
        self.func.dfg.value_type(v)
    }

    pub fn create_stack_slot(&mut self, size: u32, align: u32) -> StackSlot {
        self.func.create_stack_slot(size, align)
    }

    pub fn import_function(&mut self, name: &str, signature: Signature) -> FuncRef {
        self.func.import_function(name, signature)
    }

    pub fn import_signature(&mut self, signature: Signature) -> SigRef {
        self.func.import_signature(signature)
    }

    pub fn import_global(&mut self, name: &str) -> GlobalRef {
        self.func.import_global(name)
    }

    // ---- insertion ----

    /// Insert an instruction at the cursor with the given result types (the cursor
    /// stays after it). The low-level form of `ins()`.
    pub fn insert(&mut self, data: InstructionData, result_types: &[Type]) -> Inst {
        let inst = self.func.dfg.make_inst(data);
        self.func.dfg.make_inst_results(inst, result_types);
        match self.pos {
            CursorPosition::Nowhere => panic!("FunctionBuilder: no insertion point"),
            CursorPosition::Before(at) => self.func.layout.insert_inst_before(inst, at),
            CursorPosition::Bottom(b) => self.func.layout.append_inst(inst, b),
        }
        if !self.srcloc.is_default() {
            self.func.srclocs[inst] = self.srcloc;
        }
        inst
    }

    /// Insert an instruction whose result types follow from its operands and `ctrl`
    /// (the type suffix of `iconst.T`, `load.T`, ...). Panics if they cannot be
    /// computed (an operand or reference that does not exist).
    pub fn build(&mut self, data: InstructionData, ctrl: Option<Type>) -> Inst {
        let dfg = &self.func.dfg;
        let types = result_types(self.func, &data, ctrl, &|v| {
            dfg.value_is_valid(v).then(|| dfg.value_type(v))
        })
        .unwrap_or_else(|| panic!("cannot compute the result types of {data:?}"));
        self.insert(data, &types)
    }

    /// Instruction constructors inserting at the cursor.
    pub fn ins(&mut self) -> InstBuilder<'_, 'f> {
        InstBuilder { b: self }
    }
}

/// Instruction constructors (from `FunctionBuilder::ins`). Each inserts one instruction
/// at the cursor and returns its result(s), or the `Inst` when it has none or a
/// variable number (calls: see `DataFlowGraph::inst_results`).
pub struct InstBuilder<'a, 'f> {
    b: &'a mut FunctionBuilder<'f>,
}

macro_rules! binary_ops {
    ($($(#[$doc:meta])* $name:ident = $op:ident;)*) => {
        $($(#[$doc])* pub fn $name(self, a: Value, b: Value) -> Value {
            self.binary(Opcode::$op, a, b)
        })*
    };
}

macro_rules! unary_ops {
    ($($(#[$doc:meta])* $name:ident = $op:ident;)*) => {
        $($(#[$doc])* pub fn $name(self, a: Value) -> Value {
            self.unary(Opcode::$op, a)
        })*
    };
}

macro_rules! overflow_ops {
    ($($name:ident = $op:ident;)*) => {
        $(/// Returns `(wrapped result, overflowed: i1)`.
        pub fn $name(self, a: Value, b: Value) -> (Value, Value) {
            let inst = self.b.build(InstructionData::Binary { opcode: Opcode::$op, args: [a, b] }, None);
            let r = self.b.func.dfg.inst_results(inst);
            (r[0], r[1])
        })*
    };
}

macro_rules! conversions {
    ($($name:ident = $op:ident;)*) => {
        $(/// Converts to type `ty`.
        pub fn $name(self, ty: Type, a: Value) -> Value {
            self.one(InstructionData::Unary { opcode: Opcode::$op, arg: a }, Some(ty))
        })*
    };
}

impl InstBuilder<'_, '_> {
    fn one(self, data: InstructionData, ctrl: Option<Type>) -> Value {
        let inst = self.b.build(data, ctrl);
        self.b.func.dfg.first_result(inst)
    }

    fn none(self, data: InstructionData) -> Inst {
        self.b.build(data, None)
    }

    /// Any opcode of the `Binary` format with one result.
    pub fn binary(self, opcode: Opcode, a: Value, b: Value) -> Value {
        self.one(
            InstructionData::Binary {
                opcode,
                args: [a, b],
            },
            None,
        )
    }

    /// Any opcode of the `Unary` format whose result type is its operand's.
    pub fn unary(self, opcode: Opcode, a: Value) -> Value {
        self.one(InstructionData::Unary { opcode, arg: a }, None)
    }

    // ---- constants ----

    /// Integer (or `ptr`) constant; `imm` is sign-extended, then truncated to `ty`.
    pub fn iconst(self, ty: Type, imm: i64) -> Value {
        self.iconst_u128(ty, imm as i128 as u128)
    }

    /// Integer constant from 128 bits, truncated to `ty`.
    pub fn iconst_u128(self, ty: Type, imm: u128) -> Value {
        let imm = imm & ty.mask();
        self.one(
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm,
            },
            Some(ty),
        )
    }

    pub fn f32const(self, x: f32) -> Value {
        self.f32const_bits(x.to_bits())
    }

    pub fn f32const_bits(self, bits: u32) -> Value {
        self.one(
            InstructionData::UnaryImm {
                opcode: Opcode::F32const,
                imm: bits as u128,
            },
            None,
        )
    }

    pub fn f64const(self, x: f64) -> Value {
        self.f64const_bits(x.to_bits())
    }

    pub fn f64const_bits(self, bits: u64) -> Value {
        self.one(
            InstructionData::UnaryImm {
                opcode: Opcode::F64const,
                imm: bits as u128,
            },
            None,
        )
    }

    /// Address of symbol `global` plus `offset`.
    pub fn symbol_addr(self, global: GlobalRef, offset: i64) -> Value {
        self.one(
            InstructionData::SymbolAddr {
                opcode: Opcode::SymbolAddr,
                global,
                offset,
            },
            None,
        )
    }

    /// Address of this thread's copy of thread-local data object `global`, plus
    /// `offset`.
    pub fn tls_addr(self, global: GlobalRef, offset: i64) -> Value {
        self.one(
            InstructionData::SymbolAddr {
                opcode: Opcode::TlsAddr,
                global,
                offset,
            },
            None,
        )
    }

    /// Address of stack slot `slot` plus `offset`.
    pub fn stack_addr(self, slot: StackSlot, offset: i64) -> Value {
        self.one(
            InstructionData::StackAddr {
                opcode: Opcode::StackAddr,
                slot,
                offset,
            },
            None,
        )
    }

    pub fn undef(self, ty: Type) -> Value {
        self.one(
            InstructionData::Nullary {
                opcode: Opcode::Undef,
            },
            Some(ty),
        )
    }

    // ---- integer ----

    binary_ops! {
        iadd = Iadd; isub = Isub; imul = Imul;
        udiv = Udiv; sdiv = Sdiv; urem = Urem; srem = Srem;
        umulhi = Umulhi; smulhi = Smulhi;
        band = Band; bor = Bor; bxor = Bxor;
        ishl = Ishl; ushr = Ushr; sshr = Sshr; rotl = Rotl; rotr = Rotr;
        smin = Smin; smax = Smax; umin = Umin; umax = Umax;
        /// `p + off` (`p: ptr`, `off: i64`).
        ptradd = Ptradd;
        fadd = Fadd; fsub = Fsub; fmul = Fmul; fdiv = Fdiv; frem = Frem;
        fcopysign = Fcopysign; fmin = Fmin; fmax = Fmax;
    }

    unary_ops! {
        ineg = Ineg; bnot = Bnot; clz = Clz; ctz = Ctz; popcnt = Popcnt;
        bswap = Bswap; bitrev = Bitrev; iabs = Iabs;
        fneg = Fneg; fabs = Fabs; sqrt = Sqrt; floor = Floor; ceil = Ceil; trunc = Trunc;
        /// Round to nearest, ties to even.
        nearest = Nearest;
        /// Round to nearest, ties away from zero.
        round = Round;
        /// `f32` to `f64`.
        fpromote = Fpromote;
        /// `f64` to `f32`.
        fdemote = Fdemote;
    }

    overflow_ops! {
        uadd_overflow = UaddOverflow; sadd_overflow = SaddOverflow;
        usub_overflow = UsubOverflow; ssub_overflow = SsubOverflow;
        umul_overflow = UmulOverflow; smul_overflow = SmulOverflow;
    }

    conversions! {
        uextend = Uextend; sextend = Sextend; ireduce = Ireduce;
        fcvt_to_uint_sat = FcvtToUintSat; fcvt_to_sint_sat = FcvtToSintSat;
        fcvt_from_uint = FcvtFromUint; fcvt_from_sint = FcvtFromSint;
        bitcast = Bitcast;
    }

    // ---- compare, select ----

    pub fn icmp(self, cond: IntCC, a: Value, b: Value) -> Value {
        self.one(
            InstructionData::IntCompare {
                opcode: Opcode::Icmp,
                cond,
                args: [a, b],
            },
            None,
        )
    }

    pub fn fcmp(self, cond: FloatCC, a: Value, b: Value) -> Value {
        self.one(
            InstructionData::FloatCompare {
                opcode: Opcode::Fcmp,
                cond,
                args: [a, b],
            },
            None,
        )
    }

    /// `a` if `c` (an `i1`) else `b`.
    pub fn select(self, c: Value, a: Value, b: Value) -> Value {
        self.one(
            InstructionData::Ternary {
                opcode: Opcode::Select,
                args: [c, a, b],
            },
            None,
        )
    }

    /// `a * b + c`, rounded once.
    pub fn fma(self, a: Value, b: Value, c: Value) -> Value {
        self.one(
            InstructionData::Ternary {
                opcode: Opcode::Fma,
                args: [a, b, c],
            },
            None,
        )
    }

    // ---- memory ----

    /// Load a `ty` from `ptr + offset`.
    pub fn load(self, ty: Type, flags: MemFlags, ptr: Value, offset: i32) -> Value {
        self.one(
            InstructionData::Load {
                opcode: Opcode::Load,
                flags,
                arg: ptr,
                offset,
            },
            Some(ty),
        )
    }

    /// Store `value` to `ptr + offset`.
    pub fn store(self, flags: MemFlags, value: Value, ptr: Value, offset: i32) -> Inst {
        self.none(InstructionData::Store {
            opcode: Opcode::Store,
            flags,
            args: [value, ptr],
            offset,
        })
    }

    /// Copy `len: i64` bytes from `src` to `dst`; the ranges must not overlap (unless
    /// equal).
    pub fn memcpy(self, dst: Value, src: Value, len: Value) -> Inst {
        self.none(InstructionData::Ternary {
            opcode: Opcode::Memcpy,
            args: [dst, src, len],
        })
    }

    /// Copy `len: i64` bytes from `src` to `dst`; the ranges may overlap.
    pub fn memmove(self, dst: Value, src: Value, len: Value) -> Inst {
        self.none(InstructionData::Ternary {
            opcode: Opcode::Memmove,
            args: [dst, src, len],
        })
    }

    /// Set `len: i64` bytes at `dst` to `byte: i8`.
    pub fn memset(self, dst: Value, byte: Value, len: Value) -> Inst {
        self.none(InstructionData::Ternary {
            opcode: Opcode::Memset,
            args: [dst, byte, len],
        })
    }

    /// Sequentially consistent atomic load.
    pub fn atomic_load(self, ty: Type, flags: MemFlags, ptr: Value) -> Value {
        self.one(
            InstructionData::Load {
                opcode: Opcode::AtomicLoad,
                flags,
                arg: ptr,
                offset: 0,
            },
            Some(ty),
        )
    }

    /// Sequentially consistent atomic store.
    pub fn atomic_store(self, flags: MemFlags, value: Value, ptr: Value) -> Inst {
        self.none(InstructionData::Store {
            opcode: Opcode::AtomicStore,
            flags,
            args: [value, ptr],
            offset: 0,
        })
    }

    /// Atomic read-modify-write; returns the old value.
    pub fn atomic_rmw(self, flags: MemFlags, op: AtomicRmwOp, ptr: Value, value: Value) -> Value {
        self.one(
            InstructionData::AtomicRmw {
                opcode: Opcode::AtomicRmw,
                flags,
                op,
                args: [ptr, value],
            },
            None,
        )
    }

    /// Atomic compare-and-swap; returns `(old value, success: i1)`.
    pub fn atomic_cas(
        self,
        flags: MemFlags,
        ptr: Value,
        expected: Value,
        new: Value,
    ) -> (Value, Value) {
        let inst = self.b.build(
            InstructionData::AtomicCas {
                opcode: Opcode::AtomicCas,
                flags,
                args: [ptr, expected, new],
            },
            None,
        );
        let r = self.b.func.dfg.inst_results(inst);
        (r[0], r[1])
    }

    /// Sequentially consistent fence.
    pub fn fence(self) -> Inst {
        self.none(InstructionData::Nullary {
            opcode: Opcode::Fence,
        })
    }

    // ---- calls ----

    /// Direct call; the results are `dfg.inst_results(inst)`.
    pub fn call(self, func: FuncRef, args: &[Value]) -> Inst {
        self.none(InstructionData::Call {
            opcode: Opcode::Call,
            func,
            args: args.to_vec(),
        })
    }

    /// Indirect call of the function at address `callee: ptr` with signature `sig`.
    pub fn call_indirect(self, sig: SigRef, callee: Value, args: &[Value]) -> Inst {
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(callee);
        all.extend_from_slice(args);
        self.none(InstructionData::CallIndirect {
            opcode: Opcode::CallIndirect,
            sig,
            args: all,
        })
    }

    /// The exception and selector a landing pad receives: the first instruction of a
    /// block that unwind edges enter; `catch` for one that catches every exception
    /// (`catch_landing_pad`), else a cleanup (`landing_pad`).
    pub fn landing_pad(self, catch: bool) -> (Value, Value) {
        let opcode = if catch {
            Opcode::CatchLandingPad
        } else {
            Opcode::LandingPad
        };
        let inst = self.b.build(InstructionData::Nullary { opcode }, None);
        let r = self.b.func.dfg.inst_results(inst);
        (r[0], r[1])
    }

    // ---- terminators ----

    /// A direct call that ends its block: to `normal` when it returns (its results
    /// defined there), to the landing pad `unwind` when the callee unwinds.
    pub fn invoke(self, func: FuncRef, args: &[Value], normal: Block, unwind: Block) -> Inst {
        self.none(InstructionData::Invoke {
            opcode: Opcode::Invoke,
            func,
            args: args.to_vec(),
            blocks: [BlockCall::new(normal, &[]), BlockCall::new(unwind, &[])],
        })
    }

    /// [`Self::invoke`] of the function at address `callee` with signature `sig`.
    pub fn invoke_indirect(
        self,
        sig: SigRef,
        callee: Value,
        args: &[Value],
        normal: Block,
        unwind: Block,
    ) -> Inst {
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(callee);
        all.extend_from_slice(args);
        self.none(InstructionData::InvokeIndirect {
            opcode: Opcode::InvokeIndirect,
            sig,
            args: all,
            blocks: [BlockCall::new(normal, &[]), BlockCall::new(unwind, &[])],
        })
    }

    /// Continues unwinding with `exception` (a landing pad's), after a cleanup.
    pub fn resume(self, exception: Value) -> Inst {
        self.none(InstructionData::Unary {
            opcode: Opcode::Resume,
            arg: exception,
        })
    }

    pub fn jump(self, block: Block, args: &[Value]) -> Inst {
        self.none(InstructionData::Jump {
            opcode: Opcode::Jump,
            dest: BlockCall::new(block, args),
        })
    }

    /// Branch to `then_block` if `c` (an `i1`) else to `else_block`.
    pub fn brif(
        self,
        c: Value,
        then_block: Block,
        then_args: &[Value],
        else_block: Block,
        else_args: &[Value],
    ) -> Inst {
        self.none(InstructionData::Brif {
            opcode: Opcode::Brif,
            arg: c,
            blocks: [
                BlockCall::new(then_block, then_args),
                BlockCall::new(else_block, else_args),
            ],
        })
    }

    /// Multi-way branch on an integer; case values are truncated to the type of `v`.
    pub fn switch(self, v: Value, mut table: SwitchData) -> Inst {
        let mask = self.b.func.dfg.value_type(v).mask();
        for x in &mut table.values {
            *x &= mask;
        }
        self.none(InstructionData::Switch {
            opcode: Opcode::Switch,
            arg: v,
            table: Box::new(table),
        })
    }

    pub fn return_(self, values: &[Value]) -> Inst {
        self.none(InstructionData::Return {
            opcode: Opcode::Return,
            args: values.to_vec(),
        })
    }

    pub fn unreachable(self) -> Inst {
        self.none(InstructionData::Nullary {
            opcode: Opcode::Unreachable,
        })
    }

    /// Abort with a trap code.
    pub fn trap(self, code: u16) -> Inst {
        self.none(InstructionData::Trap {
            opcode: Opcode::Trap,
            code,
        })
    }
}
