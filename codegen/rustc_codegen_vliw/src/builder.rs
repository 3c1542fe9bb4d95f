//! The builder (rustc_codegen_ssa's `Builder`): turns `BuilderMethods` calls into IR
//! instructions at an insertion point of a function.

use std::ops::Deref;

use rustc_abi::{Align, BackendRepr, HasDataLayout, Scalar, Size, TargetDataLayout, WrappingRange};
use rustc_ast::expand::typetree::FncTree;
use rustc_codegen_ssa::MemFlags;
use rustc_codegen_ssa::common::{
    AtomicRmwBinOp, IntPredicate, RealPredicate, SynchronizationScope, TypeKind,
};
use rustc_codegen_ssa::mir::operand::{OperandRef, OperandValue};
use rustc_codegen_ssa::mir::place::PlaceRef;
use rustc_codegen_ssa::traits::{
    AsmBuilderMethods, BackendTypes, BuilderMethods, ConstCodegenMethods,
    CoverageInfoBuilderMethods, DebugInfoBuilderMethods, InlineAsmOperandRef,
    LayoutTypeCodegenMethods, OverflowOp, ReturnSlot, StaticBuilderMethods,
};
use rustc_data_structures::fx::FxHashMap;
use rustc_hir::def_id::DefId;
use rustc_middle::middle::codegen_fn_attrs::CodegenFnAttrs;
use rustc_middle::mir::coverage::CoverageKind;
use rustc_middle::ty::layout::{
    FnAbiError, FnAbiOfHelpers, FnAbiRequest, HasTyCtxt, HasTypingEnv, LayoutError,
    LayoutOfHelpers, TyAndLayout,
};
use rustc_middle::ty::{self, AtomicOrdering, Instance, Ty, TyCtxt};
use rustc_span::bug;
use rustc_span::{BytePos, SourceFile, Span, Symbol};
use rustc_target::callconv::FnAbi;
use rustc_target::spec::{HasTargetSpec, Target};
use vliw_ir as ir;
use vliw_ir::{FunctionBuilder, InstBuilder};

use crate::context::{BlockRef, CodegenCx, DebugLoc, FuncId};
use crate::types::{FnSig, TyData, Type};
use crate::values::{Value, ValueData};

/// Trap codes of the `trap` instructions the shim emits.
pub mod trap_code {
    /// `abort_immediate` (`core::intrinsics::abort`, failed checks that abort).
    pub const ABORT: u16 = 0;
    /// Code rustc declared unreachable was reached.
    pub const UNREACHABLE: u16 = 1;
}

/// Volatile copies and fills of at most this many bytes (a constant) are inline loads
/// and stores of up to 8 bytes; longer ones call the C functions.
const VOLATILE_INLINE_MAX: u64 = 128;

/// Copies of a constant length that take at most this many aligned loads of up to 8
/// bytes are inline loads and stores (`Builder::copy_small`).
const SMALL_COPY_PIECES: usize = 8;

/// Per-function references the IR keeps in lists (`globals`, `ext_funcs`,
/// `signatures`), indexed so that each use is a hash lookup instead of a scan.
#[derive(Default)]
pub struct FuncRefs {
    pub globals: FxHashMap<String, ir::GlobalRef>,
    pub funcs: FxHashMap<(String, FnSig), ir::FuncRef>,
    pub sigs: FxHashMap<FnSig, ir::SigRef>,
}

pub struct Builder<'a, 'tcx> {
    pub cx: &'a CodegenCx<'tcx>,
    pub func: FuncId,
    pub block: ir::Block,
    /// The source position given to new instructions.
    pub srcloc: ir::SourceLoc,
}

impl<'a, 'tcx> Deref for Builder<'a, 'tcx> {
    type Target = CodegenCx<'tcx>;
    fn deref(&self) -> &CodegenCx<'tcx> {
        self.cx
    }
}

impl<'a, 'tcx> Builder<'a, 'tcx> {
    /// Run `f` on the function being built.
    pub fn with_body<R>(&self, f: impl FnOnce(&mut ir::Function) -> R) -> R {
        let mut entry = self.cx.func_mut(self.func);
        let entry = &mut *entry;
        match entry.body.as_mut() {
            Some(body) => f(body),
            None => bug!("{} has no body", entry.name),
        }
    }

    /// Insert an instruction made by `f` at the end of the current block. An
    /// instruction after a terminator (code after `trap`) starts a new block, which
    /// nothing branches to.
    pub fn with_ins<R>(&mut self, f: impl FnOnce(InstBuilder<'_, '_>) -> R) -> R {
        let srcloc = self.srcloc;
        let mut block = self.block;
        let r = self.with_body(|body| {
            if body.is_block_terminated(block) {
                block = body.dfg.make_block();
                body.layout.append_block(block);
            }
            let mut b = FunctionBuilder::new(body);
            b.goto_bottom(block);
            b.set_srcloc(srcloc);
            f(b.ins())
        });
        self.block = block;
        r
    }

    pub fn func_value_type(&self, x: ir::Value) -> ir::Type {
        self.with_body(|body| body.dfg.value_type(x))
    }

    /// A shim value for IR value `x` of this function.
    pub fn wrap_ir(&self, x: ir::Value, ty: Type) -> Value {
        self.cx.new_value(ValueData::Ir {
            func: self.func,
            value: x,
            ty,
        })
    }

    fn ir_type_of(&self, ty: Type) -> ir::Type {
        self.cx.types.borrow().ir_type(ty).unwrap_or_else(|| {
            let d = self.cx.ty_data(ty);
            match d {
                TyData::Vector { .. } => self.cx.unsupported(Some(self.func), "SIMD vector types"),
                _ => bug!("{:?} has no IR type", d),
            }
        })
    }

    /// The IR value for `v`: constants are materialized here.
    pub fn ir_value(&mut self, v: Value) -> ir::Value {
        match self.cx.value(v) {
            ValueData::Ir { func, value, .. } => {
                if func != self.func {
                    bug!(
                        "value of {} used in {}",
                        self.cx.describe_fn(func),
                        self.cx.describe_fn(self.func)
                    );
                }
                value
            }
            ValueData::Int { ty, bits } => {
                let t = self.ir_type_of(ty);
                self.with_ins(|i| i.iconst_u128(t, bits))
            }
            ValueData::Float { ty, bits } => match self.cx.ty_data(ty) {
                TyData::F32 => self.with_ins(|i| i.f32const_bits(bits as u32)),
                TyData::F64 => self.with_ins(|i| i.f64const_bits(bits)),
                d => bug!("float constant of {d:?}"),
            },
            ValueData::Undef { ty } => {
                let t = self.ir_type_of(ty);
                self.with_ins(|i| i.undef(t))
            }
            ValueData::SymAddr { ty, sym, offset } => {
                let name = self.cx.symbol_name(sym);
                let gv = self.global_ref(&name);
                let addr = self.with_ins(|i| i.symbol_addr(gv, offset));
                match self.ir_type_of(ty) {
                    ir::Type::Ptr => addr,
                    ir::Type::I64 => self.with_ins(|i| i.bitcast(ir::Type::I64, addr)),
                    t => {
                        let a = self.with_ins(|i| i.bitcast(ir::Type::I64, addr));
                        self.with_ins(|i| i.ireduce(t, a))
                    }
                }
            }
            ValueData::Aggregate { ty, .. } => {
                bug!(
                    "aggregate of type {:?} used as a scalar",
                    self.cx.ty_data(ty)
                )
            }
        }
    }

    fn global_ref(&mut self, name: &str) -> ir::GlobalRef {
        if let Some(&g) = self.cx.func(self.func).refs.globals.get(name) {
            return g;
        }
        let g = self.with_body(|body| body.globals.push(name.to_string()));
        self.cx
            .func_mut(self.func)
            .refs
            .globals
            .insert(name.to_string(), g);
        g
    }

    /// The function's reference to callee `name`; `nounwind` when rustc says the
    /// callee cannot unwind (a reference once marked so stays so: it is the callee's
    /// property, and a call site may not know it).
    fn func_ref(&mut self, name: &str, sig: FnSig, nounwind: bool) -> ir::FuncRef {
        let key = (name.to_string(), sig);
        let known = self.cx.func(self.func).refs.funcs.get(&key).copied();
        if let Some(r) = known {
            if nounwind {
                self.with_body(|body| body.ext_funcs[r].nounwind = true);
            }
            return r;
        }
        let signature = self.cx.types.borrow().sig(sig).ir.clone();
        let r = self.with_body(|body| {
            body.ext_funcs.push(ir::ExtFuncData {
                name: name.to_string(),
                signature,
                nounwind,
            })
        });
        self.cx.func_mut(self.func).refs.funcs.insert(key, r);
        r
    }

    fn sig_ref(&mut self, sig: FnSig) -> ir::SigRef {
        if let Some(&r) = self.cx.func(self.func).refs.sigs.get(&sig) {
            return r;
        }
        let signature = self.cx.types.borrow().sig(sig).ir.clone();
        let r = self.with_body(|body| body.signatures.push(signature));
        self.cx.func_mut(self.func).refs.sigs.insert(sig, r);
        r
    }

    fn val_type(&self, v: Value) -> Type {
        self.cx.value(v).ty()
    }

    /// The lane type and count of `ty` if it is a SIMD vector type.
    pub fn vector_of(&self, ty: Type) -> Option<(Type, u64)> {
        match self.cx.ty_data(ty) {
            TyData::Vector { elem, len } => Some((elem, len)),
            _ => None,
        }
    }

    /// The vector type of `len` lanes of `elem`.
    pub fn vector_type(&self, elem: Type, len: u64) -> Type {
        self.cx.intern_type(TyData::Vector { elem, len })
    }

    /// The lanes of vector value `v` (SIMD vectors are lists of scalar lane values).
    pub fn lanes(&mut self, v: Value) -> Vec<Value> {
        match self.cx.value(v) {
            ValueData::Aggregate { elems, .. } => elems.to_vec(),
            ValueData::Undef { ty } => {
                let (elem, len) = self
                    .vector_of(ty)
                    .unwrap_or_else(|| bug!("lanes of a non-vector"));
                (0..len)
                    .map(|_| self.cx.new_value(ValueData::Undef { ty: elem }))
                    .collect()
            }
            d => bug!("lanes of {d:?}"),
        }
    }

    /// A vector value of the given lanes (all of one type).
    pub fn make_vector(&mut self, lanes: Vec<Value>) -> Value {
        let elem = self.val_type(lanes[0]);
        let ty = self.vector_type(elem, lanes.len() as u64);
        self.cx.aggregate(ty, lanes)
    }

    /// Apply `f` to each lane of `a` (and `b`) if `a` is a vector: `None` for scalars.
    fn map_lanes(
        &mut self,
        a: Value,
        b: Option<Value>,
        mut f: impl FnMut(&mut Self, Value, Option<Value>) -> Value,
    ) -> Option<Value> {
        self.vector_of(self.val_type(a))?;
        let xs = self.lanes(a);
        let ys = b.map(|b| self.lanes(b));
        let r: Vec<Value> = xs
            .into_iter()
            .enumerate()
            .map(|(i, x)| {
                let y = ys.as_ref().map(|ys| ys[i]);
                f(self, x, y)
            })
            .collect();
        Some(self.make_vector(r))
    }

    /// A cast of vector `val` to vector type `dest_ty`, lane by lane; `None` for scalars.
    fn map_cast(
        &mut self,
        val: Value,
        dest_ty: Type,
        f: fn(&mut Self, Value, Type) -> Value,
    ) -> Option<Value> {
        let (elem, _) = self.vector_of(dest_ty)?;
        self.map_lanes(val, None, |bx, x, _| f(bx, x, elem))
    }

    /// Reinterpret the bytes of `val` as `dest_ty` through a stack slot.
    fn bitcast_through_memory(&mut self, val: Value, dest_ty: Type) -> Value {
        let from = self.val_type(val);
        let (size, align) = {
            let t = self.cx.types.borrow();
            (
                t.size(from).max(t.size(dest_ty)),
                t.align(from).max(t.align(dest_ty)),
            )
        };
        let align = Align::from_bytes(align).unwrap();
        let slot = self.alloca(Size::from_bytes(size), align);
        let p = self.ir_value(slot);
        self.store_typed(val, p, 0, align, false);
        self.load_typed(dest_ty, p, 0, align, false)
    }

    fn unary(&mut self, op: ir::Opcode, a: Value) -> Value {
        if let Some(r) = self.map_lanes(a, None, |bx, x, _| bx.unary(op, x)) {
            return r;
        }
        let ty = self.val_type(a);
        if let Some(bits) = self.soft_float_bits(ty) {
            // Only `fneg` reaches here with a float: it flips the sign bit.
            debug_assert_eq!(op, ir::Opcode::Fneg);
            let sign = self.cx.const_uint_big(ty, 1u128 << (bits - 1));
            return self.xor(a, sign);
        }
        let x = self.ir_value(a);
        let r = self.with_ins(|i| i.unary(op, x));
        self.wrap_ir(r, ty)
    }

    fn binary(&mut self, op: ir::Opcode, a: Value, b: Value) -> Value {
        if let Some(r) = self.map_lanes(a, Some(b), |bx, x, y| bx.binary(op, x, y.unwrap())) {
            return r;
        }
        let ty = self.val_type(a);
        if self.soft_float_bits(ty).is_some()
            && matches!(
                op,
                ir::Opcode::Fadd
                    | ir::Opcode::Fsub
                    | ir::Opcode::Fmul
                    | ir::Opcode::Fdiv
                    | ir::Opcode::Frem
            )
        {
            self.refuse_soft_float("arithmetic");
        }
        let x = self.ir_value(a);
        let y = self.ir_value(b);
        let r = self.with_ins(|i| i.binary(op, x, y));
        self.wrap_ir(r, ty)
    }

    /// The width of `ty` if it is a float format the machine lacks (f16, f128). Such
    /// values are held as their bits in an integer (`TypeTable::ir_type`): they move,
    /// load, store, travel as arguments and negate, and what needs their arithmetic is
    /// refused by `refuse_soft_float`.
    pub(crate) fn soft_float_bits(&self, ty: Type) -> Option<u32> {
        match self.cx.ty_data(ty) {
            TyData::F16 => Some(16),
            TyData::F128 => Some(128),
            _ => None,
        }
    }

    /// The compile error for an f16/f128 operation that needs their arithmetic.
    pub(crate) fn refuse_soft_float(&self, what: &str) -> ! {
        self.cx
            .unsupported(Some(self.func), &format!("{what} on f16 and f128 values"))
    }

    /// Refuses a conversion from or to f16/f128.
    fn check_conversion(&self, val: Value, dest_ty: Type) {
        let from = self.val_type(val);
        if self.soft_float_bits(from).is_some() || self.soft_float_bits(dest_ty).is_some() {
            self.refuse_soft_float("conversions");
        }
    }

    /// `x` as an `i64` if it is a pointer (for comparisons and atomics).
    fn ptr_as_int(&mut self, x: ir::Value) -> ir::Value {
        if self.func_value_type(x) == ir::Type::Ptr {
            self.with_ins(|i| i.bitcast(ir::Type::I64, x))
        } else {
            x
        }
    }

    /// Convert integer `x` to IR type `to` (truncate, or extend as `signed` says).
    fn int_convert(&mut self, x: ir::Value, to: ir::Type, signed: bool) -> ir::Value {
        let from = self.func_value_type(x);
        if from == to {
            x
        } else if from.bits() > to.bits() {
            self.with_ins(|i| i.ireduce(to, x))
        } else if signed && from != ir::Type::I1 {
            self.with_ins(|i| i.sextend(to, x))
        } else {
            self.with_ins(|i| i.uextend(to, x))
        }
    }

    fn flags(align: Align, volatile: bool) -> ir::MemFlags {
        ir::MemFlags::aligned(align.bytes() as u32).with_volatile(volatile)
    }

    fn offset_ptr(&mut self, ptr: ir::Value, offset: u64) -> ir::Value {
        if offset == 0 {
            return ptr;
        }
        let off = self.with_ins(|i| i.iconst(ir::Type::I64, offset as i64));
        self.with_ins(|i| i.ptradd(ptr, off))
    }

    /// A volatile load of a `ScalarPair` value at `ptr`: each scalar loaded as
    /// `load_operand` does, volatile (padding between them is not read).
    pub(crate) fn volatile_load_pair(
        &mut self,
        layout: TyAndLayout<'tcx>,
        ptr: Value,
        align: Align,
    ) -> OperandValue<Value> {
        let BackendRepr::ScalarPair { a, b, b_offset } = layout.backend_repr else {
            bug!("volatile_load_pair of {:?}", layout.backend_repr)
        };
        let p = self.ir_value(ptr);
        let ta = self.scalar_pair_element_backend_type(layout, 0, false);
        let tb = self.scalar_pair_element_backend_type(layout, 1, false);
        let va = self.load_typed(ta, p, 0, align, true);
        let b_align = align.restrict_for_offset(b_offset);
        let vb = self.load_typed(tb, p, b_offset.bytes(), b_align, true);
        OperandValue::Pair(
            self.to_immediate_scalar(va, a),
            self.to_immediate_scalar(vb, b),
        )
    }

    /// Load a value of shim type `ty` from `ptr + offset`.
    fn load_typed(
        &mut self,
        ty: Type,
        ptr: ir::Value,
        offset: u64,
        align: Align,
        volatile: bool,
    ) -> Value {
        let data = self.cx.ty_data(ty);
        match data {
            TyData::Struct { .. } | TyData::Array { .. } | TyData::Vector { .. } => {
                let fields = self.cx.types.borrow().fields(ty).unwrap();
                let elems: Vec<Value> = fields
                    .into_iter()
                    .map(|(ft, off)| {
                        let a = align.restrict_for_offset(Size::from_bytes(off));
                        self.load_typed(ft, ptr, offset + off, a, volatile)
                    })
                    .collect();
                self.cx.aggregate(ty, elems)
            }
            TyData::Int(bits) if !matches!(bits, 1 | 8 | 16 | 32 | 64 | 128) => {
                // An odd-sized register of a cast: assemble it from power-of-two pieces.
                let t = self.ir_type_of(ty);
                let mut acc: Option<ir::Value> = None;
                let mut done = 0u64;
                let total = bits as u64 / 8;
                while done < total {
                    let piece = 1u64 << (63 - (total - done).leading_zeros()).min(2);
                    let pt = ir::Type::int(piece as u32 * 8).unwrap();
                    let p = self.offset_ptr(ptr, offset + done);
                    let a = align.restrict_for_offset(Size::from_bytes(done));
                    let x = self.with_ins(|i| i.load(pt, Self::flags(a, volatile), p, 0));
                    let x = self.with_ins(|i| i.uextend(t, x));
                    let x = if done == 0 {
                        x
                    } else {
                        let sh = self.with_ins(|i| i.iconst(t, (done * 8) as i64));
                        self.with_ins(|i| i.ishl(x, sh))
                    };
                    acc = Some(match acc {
                        None => x,
                        Some(a) => self.with_ins(|i| i.bor(a, x)),
                    });
                    done += piece;
                }
                self.wrap_ir(acc.unwrap(), ty)
            }
            TyData::Int(1) => {
                let p = self.offset_ptr(ptr, offset);
                let x = self.with_ins(|i| i.load(ir::Type::I8, Self::flags(align, volatile), p, 0));
                let r = self.with_ins(|i| i.ireduce(ir::Type::I1, x));
                self.wrap_ir(r, ty)
            }
            _ => {
                let t = self.ir_type_of(ty);
                let p = self.offset_ptr(ptr, offset);
                let r = self.with_ins(|i| i.load(t, Self::flags(align, volatile), p, 0));
                self.wrap_ir(r, ty)
            }
        }
    }

    /// Store shim value `v` at `ptr + offset`.
    fn store_typed(&mut self, v: Value, ptr: ir::Value, offset: u64, align: Align, volatile: bool) {
        let ty = self.val_type(v);
        match self.cx.value(v) {
            ValueData::Aggregate { elems, .. } => {
                let fields = self.cx.types.borrow().fields(ty).unwrap();
                for ((_, off), &e) in fields.into_iter().zip(elems.iter()) {
                    let a = align.restrict_for_offset(Size::from_bytes(off));
                    self.store_typed(e, ptr, offset + off, a, volatile);
                }
                return;
            }
            ValueData::Undef { .. } if self.cx.types.borrow().is_aggregate(ty) => return,
            _ => {}
        }
        match self.cx.ty_data(ty) {
            TyData::Int(bits) if !matches!(bits, 1 | 8 | 16 | 32 | 64 | 128) => {
                let x = self.ir_value(v);
                let t = self.func_value_type(x);
                let total = bits as u64 / 8;
                let mut done = 0u64;
                while done < total {
                    let piece = 1u64 << (63 - (total - done).leading_zeros()).min(2);
                    let pt = ir::Type::int(piece as u32 * 8).unwrap();
                    let y = if done == 0 {
                        x
                    } else {
                        let sh = self.with_ins(|i| i.iconst(t, (done * 8) as i64));
                        self.with_ins(|i| i.ushr(x, sh))
                    };
                    let y = self.with_ins(|i| i.ireduce(pt, y));
                    let p = self.offset_ptr(ptr, offset + done);
                    let a = align.restrict_for_offset(Size::from_bytes(done));
                    self.with_ins(|i| i.store(Self::flags(a, volatile), y, p, 0));
                    done += piece;
                }
            }
            TyData::Int(1) => {
                let x = self.ir_value(v);
                let y = self.with_ins(|i| i.uextend(ir::Type::I8, x));
                let p = self.offset_ptr(ptr, offset);
                self.with_ins(|i| i.store(Self::flags(align, volatile), y, p, 0));
            }
            _ => {
                let x = self.ir_value(v);
                let p = self.offset_ptr(ptr, offset);
                self.with_ins(|i| i.store(Self::flags(align, volatile), x, p, 0));
            }
        }
    }

    /// The pieces of an inline copy of `size` bytes: (offset, bytes), each 8 bytes or
    /// the largest power of two that fits what is left. A piece wider than the
    /// alignment its flags promise is split by the machine (`lower/mem.rs`).
    fn byte_pieces(size: u64) -> Vec<(u64, u64)> {
        let mut pieces = Vec::new();
        let mut off = 0;
        while off < size {
            let piece = 1u64 << (63 - (size - off).leading_zeros()).min(3);
            pieces.push((off, piece));
            off += piece;
        }
        pieces
    }

    /// Copy `size` (constant) bytes from `src` to `dst` through integer loads and
    /// stores of up to 8 bytes, volatile on the side(s) that say so: a volatile read
    /// or write of a type of any layout (rustc_codegen_ssa hands the bytes of a
    /// `Memory` value to `memcpy`; LLVM loads them as one `iN`). Every load comes
    /// before every store, so overlapping ranges (`memmove`) are right too. Larger
    /// copies, and copies of a length known only at run time, call the C function
    /// (`memmove`, `memcpy`): a call is never removed, merged or moved across
    /// another volatile access, as a volatile access must not be.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn copy_bytes_volatile(
        &mut self,
        dst: ir::Value,
        dst_align: Align,
        src: ir::Value,
        src_align: Align,
        size: u64,
        load_volatile: bool,
        store_volatile: bool,
    ) {
        if size == 0 {
            return;
        }
        if size > VOLATILE_INLINE_MAX {
            let d = self.wrap_ir(dst, self.cx.ty_ptr);
            let s = self.wrap_ir(src, self.cx.ty_ptr);
            let n = self.cx.const_usize(size);
            self.call_c("memmove", &[d, s, n], self.cx.ty_ptr);
            return;
        }
        let pieces = Self::byte_pieces(size);
        self.copy_pieces(
            dst,
            dst_align,
            src,
            src_align,
            &pieces,
            load_volatile,
            store_volatile,
        );
    }

    /// The pieces `(offset, bytes)` of a copy of `size` bytes whose ends are both
    /// aligned to `align`: the largest power of two up to 8 that the alignment
    /// allows, smaller ones for the tail.
    fn aligned_pieces(size: u64, align: Align) -> Vec<(u64, u64)> {
        let widest = align.bytes().clamp(1, 8);
        let mut pieces = Vec::new();
        let mut off = 0;
        while off < size {
            let piece = (1u64 << (63 - (size - off).leading_zeros())).min(widest);
            pieces.push((off, piece));
            off += piece;
        }
        pieces
    }

    /// Copies `pieces` (`(offset, bytes)`, up to 8 bytes each) from `src` to `dst`
    /// through integer loads and stores, every load before every store (right for
    /// overlapping ranges too), volatile on the side(s) that say so.
    #[allow(clippy::too_many_arguments)]
    fn copy_pieces(
        &mut self,
        dst: ir::Value,
        dst_align: Align,
        src: ir::Value,
        src_align: Align,
        pieces: &[(u64, u64)],
        load_volatile: bool,
        store_volatile: bool,
    ) {
        let loaded: Vec<ir::Value> = pieces
            .iter()
            .map(|&(off, n)| {
                let t = ir::Type::int(n as u32 * 8).unwrap();
                let a = src_align.restrict_for_offset(Size::from_bytes(off));
                let p = self.offset_ptr(src, off);
                self.with_ins(|i| i.load(t, Self::flags(a, load_volatile), p, 0))
            })
            .collect();
        for (&(off, _), x) in pieces.iter().zip(loaded) {
            let a = dst_align.restrict_for_offset(Size::from_bytes(off));
            let p = self.offset_ptr(dst, off);
            self.with_ins(|i| i.store(Self::flags(a, store_volatile), x, p, 0));
        }
    }

    /// A `memcpy` or `memmove` of a constant length that takes at most
    /// `SMALL_COPY_PIECES` aligned loads (rustc's moves of small aggregates: a
    /// returned pair of slices, `mem::swap`'s temporary) as those loads and stores,
    /// every load first; returns whether it did. The IR's `memcpy` carries no
    /// alignment, so the instruction selector would copy it byte by byte; as word
    /// accesses the RVSDG's store-to-load forwarding and dead-store removal see
    /// through the copy, and a stack temporary can disappear. A copy from a symbol
    /// (`src_value`: a constant array copied to the stack to be indexed) stays a
    /// `memcpy`, which `rvsdg-memory` reads in place.
    fn copy_small(
        &mut self,
        dst: ir::Value,
        dst_align: Align,
        src: ir::Value,
        src_value: Value,
        src_align: Align,
        size: Value,
    ) -> bool {
        if matches!(self.cx.value(src_value), ValueData::SymAddr { .. }) {
            return false;
        }
        let Some(n) = self.const_int(size).and_then(|n| u64::try_from(n).ok()) else {
            return false;
        };
        let pieces = Self::aligned_pieces(n, dst_align.min(src_align));
        if pieces.len() > SMALL_COPY_PIECES {
            return false;
        }
        self.copy_pieces(dst, dst_align, src, src_align, &pieces, false, false);
        true
    }

    /// `memcpy`/`memmove`/`memset` with `MemFlags::VOLATILE` (`volatile_copy_memory`,
    /// `volatile_copy_nonoverlapping_memory`, `volatile_set_memory`, and the copy of a
    /// `Memory` value by `write_volatile`): the IR's `memcpy`, `memmove` and `memset`
    /// have no flags, so a constant length up to `VOLATILE_INLINE_MAX` becomes
    /// volatile loads and stores, anything else a call to the C function.
    fn volatile_mem(
        &mut self,
        op: ir::Opcode,
        dst: Value,
        dst_align: Align,
        src_or_byte: Value,
        src_align: Align,
        size: Value,
    ) {
        let len = self
            .const_int(size)
            .filter(|&n| n <= u128::from(VOLATILE_INLINE_MAX));
        let d = self.ir_value(dst);
        match (op, len) {
            (ir::Opcode::Memset, Some(n)) => {
                let b = self.ir_value(src_or_byte);
                let b = self.with_ins(|i| i.uextend(ir::Type::I64, b));
                let ones = self.with_ins(|i| i.iconst(ir::Type::I64, 0x0101_0101_0101_0101));
                let splat = self.with_ins(|i| i.imul(b, ones));
                for (off, n) in Self::byte_pieces(n as u64) {
                    let x = if n == 8 {
                        splat
                    } else {
                        let t = ir::Type::int(n as u32 * 8).unwrap();
                        self.with_ins(|i| i.ireduce(t, splat))
                    };
                    let a = dst_align.restrict_for_offset(Size::from_bytes(off));
                    let p = self.offset_ptr(d, off);
                    self.with_ins(|i| i.store(Self::flags(a, true), x, p, 0));
                }
            }
            (_, Some(n)) => {
                let s = self.ir_value(src_or_byte);
                self.copy_bytes_volatile(d, dst_align, s, src_align, n as u64, true, true);
            }
            _ => {
                let (name, second) = match op {
                    ir::Opcode::Memcpy => ("memcpy", src_or_byte),
                    ir::Opcode::Memmove => ("memmove", src_or_byte),
                    // C's memset takes the byte as an int
                    _ => ("memset", self.intcast(src_or_byte, self.cx.ty_i32, false)),
                };
                let n = self.intcast(size, self.cx.ty_i64, false);
                self.call_c(name, &[dst, second, n], self.cx.ty_ptr);
            }
        }
    }

    fn void_value(&self) -> Value {
        self.cx.new_value(ValueData::Undef {
            ty: self.cx.ty_void,
        })
    }

    /// A constant integer of `v`, if it is one.
    fn const_int(&self, v: Value) -> Option<u128> {
        match self.cx.value(v) {
            ValueData::Int { bits, .. } => Some(bits),
            _ => None,
        }
    }

    /// Make the entry block's parameters and rustc_codegen_ssa's view of them.
    fn make_params(&mut self) {
        let sig = self.cx.types.borrow().sig(self.cx.func(self.func).sig);
        let ir_params: Vec<ir::Value> = self.with_body(|body| {
            let mut b = FunctionBuilder::new(body);
            b.append_block_params_for_function_params(self.block)
        });
        let mut params = Vec::new();
        let mut next = 0;
        if sig.sret {
            params.push(self.wrap_ir(ir_params[0], self.cx.ty_ptr));
            next = 1;
        }
        for shape in &sig.args {
            let n = shape.parts.len();
            let v = self.raise_arg(shape, &ir_params[next..next + n]);
            params.push(v);
            next += n;
        }
        self.cx.func_mut(self.func).params = params;
    }

    /// Emit a call of `sig` to `callee` with rustc_codegen_ssa's `args`.
    fn emit_call(
        &mut self,
        sig: FnSig,
        callee: Value,
        return_slot: ReturnSlot<Value>,
        args: &[Value],
        nounwind: bool,
    ) -> Value {
        self.emit_call_unwinding(sig, callee, return_slot, args, None, nounwind)
    }

    /// Moves `block` (a new one) right after the current block in the layout: the
    /// continuation of an invoke, which the path that does not unwind falls through
    /// to (a block appended at the end would cost it a taken branch).
    pub(crate) fn place_after_current(&mut self, block: BlockRef) {
        let after = self.block;
        self.with_body(|body| {
            body.layout.remove_block(block.block);
            body.layout.insert_block_after(block.block, after);
        });
    }

    /// A call, or with `unwind = Some((normal, pad))` an invoke that ends the current
    /// block: the builder then continues in `normal` (a block of its own, which the
    /// invoke is the only predecessor of), where the results are defined.
    pub(crate) fn emit_call_unwinding(
        &mut self,
        sig: FnSig,
        callee: Value,
        return_slot: ReturnSlot<Value>,
        args: &[Value],
        unwind: Option<(ir::Block, ir::Block)>,
        nounwind: bool,
    ) -> Value {
        let data = self.cx.types.borrow().sig(sig);
        let mut ir_args = Vec::new();
        if let ReturnSlot::Indirect(p) = return_slot {
            ir_args.push(self.ir_value(p));
        }
        if args.len() < data.args.len() || (!data.variadic && args.len() != data.args.len()) {
            bug!(
                "call with {} arguments of a signature with {}",
                args.len(),
                data.args.len()
            );
        }
        for (i, &a) in args.iter().enumerate() {
            let xs = match data.args.get(i) {
                Some(shape) => self.lower_arg(shape, a),
                None => {
                    // A C vararg: passed like a fixed argument of its type.
                    let ty = self.val_type(a);
                    let e = crate::types::default_ext(&self.cx.types.borrow(), ty);
                    let shape = crate::types::ArgShape {
                        ty,
                        parts: self
                            .cx
                            .types
                            .borrow()
                            .parts(ty, |_, _| e)
                            .unwrap_or_else(|e| {
                                self.cx
                                    .unsupported(Some(self.func), &format!("this C vararg: {e}"))
                            }),
                    };
                    self.lower_arg(&shape, a)
                }
            };
            ir_args.extend(xs);
        }
        let direct = match self.cx.value(callee) {
            ValueData::SymAddr { sym, offset: 0, ty } if ty == self.cx.ty_ptr => {
                Some(self.cx.symbol_name(sym))
            }
            _ => None,
        };
        let inst = match (direct, unwind) {
            (Some(name), None) => {
                let f = self.func_ref(&name, sig, nounwind);
                self.with_ins(|i| i.call(f, &ir_args))
            }
            (None, None) => {
                let s = self.sig_ref(sig);
                let c = self.ir_value(callee);
                self.with_ins(|i| i.call_indirect(s, c, &ir_args))
            }
            (Some(name), Some((normal, pad))) => {
                let f = self.func_ref(&name, sig, false);
                self.with_ins(|i| i.invoke(f, &ir_args, normal, pad))
            }
            (None, Some((normal, pad))) => {
                let s = self.sig_ref(sig);
                let c = self.ir_value(callee);
                self.with_ins(|i| i.invoke_indirect(s, c, &ir_args, normal, pad))
            }
        };
        if let Some((normal, _)) = unwind {
            self.block = normal;
        }
        let results: Vec<ir::Value> = self.with_body(|body| body.dfg.inst_results(inst).to_vec());
        match &data.ret {
            Some(shape) => self.raise_arg(shape, &results),
            None => self.void_value(),
        }
    }

    fn icmp_values(&mut self, cc: ir::IntCC, a: Value, b: Value) -> Value {
        if let Some(r) = self.map_lanes(a, Some(b), |bx, x, y| bx.icmp_values(cc, x, y.unwrap())) {
            return r;
        }
        let x = self.ir_value(a);
        let y = self.ir_value(b);
        let x = self.ptr_as_int(x);
        let y = self.ptr_as_int(y);
        let r = self.with_ins(|i| i.icmp(cc, x, y));
        self.wrap_ir(r, self.cx.ty_i1)
    }

    fn unsupported(&self, feature: &str) -> ! {
        self.cx.unsupported(Some(self.func), feature)
    }
}

impl<'tcx> CodegenCx<'tcx> {
    /// An aggregate of type `ty` with the given fields.
    pub fn aggregate(&self, ty: Type, elems: Vec<Value>) -> Value {
        self.new_value(ValueData::Aggregate {
            ty,
            elems: elems.into(),
        })
    }

    pub fn const_usize_value(&self, n: u64) -> Value {
        self.new_value(ValueData::Int {
            ty: self.ty_i64,
            bits: n as u128,
        })
    }
}

impl<'a, 'tcx> BackendTypes for Builder<'a, 'tcx> {
    type Function = FuncId;
    type BasicBlock = BlockRef;
    type Funclet = ();
    type Value = Value;
    type Type = Type;
    type FunctionSignature = FnSig;
    type DIScope = ();
    type DILocation = DebugLoc;
    type DIVariable = ();
}

impl<'tcx> HasTyCtxt<'tcx> for Builder<'_, 'tcx> {
    fn tcx(&self) -> TyCtxt<'tcx> {
        self.cx.tcx
    }
}

impl<'tcx> HasTypingEnv<'tcx> for Builder<'_, 'tcx> {
    fn typing_env(&self) -> ty::TypingEnv<'tcx> {
        self.cx.typing_env()
    }
}

impl HasDataLayout for Builder<'_, '_> {
    fn data_layout(&self) -> &TargetDataLayout {
        self.cx.data_layout()
    }
}

impl HasTargetSpec for Builder<'_, '_> {
    fn target_spec(&self) -> &Target {
        self.cx.target_spec()
    }
}

impl<'tcx> LayoutOfHelpers<'tcx> for Builder<'_, 'tcx> {
    fn handle_layout_err(&self, err: LayoutError<'tcx>, span: Span, ty: Ty<'tcx>) -> ! {
        self.cx.handle_layout_err(err, span, ty)
    }
}

impl<'tcx> FnAbiOfHelpers<'tcx> for Builder<'_, 'tcx> {
    fn handle_fn_abi_err(&self, err: FnAbiError<'tcx>, span: Span, req: FnAbiRequest<'tcx>) -> ! {
        self.cx.handle_fn_abi_err(err, span, req)
    }
}

fn int_cc(op: IntPredicate) -> ir::IntCC {
    use IntPredicate::*;
    match op {
        IntEQ => ir::IntCC::Eq,
        IntNE => ir::IntCC::Ne,
        IntUGT => ir::IntCC::Ugt,
        IntUGE => ir::IntCC::Uge,
        IntULT => ir::IntCC::Ult,
        IntULE => ir::IntCC::Ule,
        IntSGT => ir::IntCC::Sgt,
        IntSGE => ir::IntCC::Sge,
        IntSLT => ir::IntCC::Slt,
        IntSLE => ir::IntCC::Sle,
    }
}

impl<'a, 'tcx> BuilderMethods<'a, 'tcx> for Builder<'a, 'tcx> {
    type CodegenCx = CodegenCx<'tcx>;

    fn build(cx: &'a CodegenCx<'tcx>, llbb: BlockRef) -> Self {
        cx.current_instance.set(cx.func(llbb.func).instance);
        Builder {
            cx,
            func: llbb.func,
            block: llbb.block,
            srcloc: ir::SourceLoc::default(),
        }
    }

    fn cx(&self) -> &CodegenCx<'tcx> {
        self.cx
    }

    fn llbb(&self) -> BlockRef {
        BlockRef {
            func: self.func,
            block: self.block,
        }
    }

    fn set_span(&mut self, _span: Span) {}

    fn append_block(cx: &'a CodegenCx<'tcx>, llfn: FuncId, _name: &str) -> BlockRef {
        let (block, is_entry) = {
            let mut f = cx.func_mut(llfn);
            let name = f.name.clone();
            let body = f
                .body
                .as_mut()
                .unwrap_or_else(|| bug!("block of {name}, which has no body"));
            let is_entry = body.layout.entry_block().is_none();
            let block = body.dfg.make_block();
            body.layout.append_block(block);
            (block, is_entry)
        };
        if is_entry {
            let mut bx = Builder {
                cx,
                func: llfn,
                block,
                srcloc: ir::SourceLoc::default(),
            };
            bx.make_params();
            // Parameter conversions may not have split the block, but be sure.
            return BlockRef {
                func: llfn,
                block: bx.block,
            };
        }
        BlockRef { func: llfn, block }
    }

    fn append_sibling_block(&mut self, name: &str) -> BlockRef {
        Self::append_block(self.cx, self.func, name)
    }

    fn switch_to_block(&mut self, llbb: BlockRef) {
        self.func = llbb.func;
        self.block = llbb.block;
    }

    fn ret_void(&mut self) {
        self.with_ins(|i| i.return_(&[]));
    }

    fn ret(&mut self, v: Value) {
        let sig = self.cx.types.borrow().sig(self.cx.func(self.func).sig);
        let xs = match &sig.ret {
            Some(shape) => self.lower_arg(shape, v),
            None => Vec::new(),
        };
        self.with_ins(|i| i.return_(&xs));
    }

    fn br(&mut self, dest: BlockRef) {
        self.with_ins(|i| i.jump(dest.block, &[]));
    }

    fn cond_br(&mut self, cond: Value, then_llbb: BlockRef, else_llbb: BlockRef) {
        let c = self.ir_value(cond);
        self.with_ins(|i| i.brif(c, then_llbb.block, &[], else_llbb.block, &[]));
    }

    fn switch(
        &mut self,
        v: Value,
        else_llbb: BlockRef,
        cases: impl ExactSizeIterator<Item = (u128, BlockRef)>,
    ) {
        let x = self.ir_value(v);
        let mut table = ir::SwitchData::new(else_llbb.block.into());
        for (value, bb) in cases {
            table.push_case(value, bb.block.into());
        }
        self.with_ins(|i| i.switch(x, table));
    }

    fn invoke(
        &mut self,
        llty: FnSig,
        _fn_attrs: Option<&CodegenFnAttrs>,
        _fn_abi: Option<&FnAbi<'tcx, Ty<'tcx>>>,
        llfn: Value,
        return_slot: ReturnSlot<Value>,
        args: &[Value],
        then: BlockRef,
        catch: BlockRef,
        _funclet: Option<&()>,
        _instance: Option<Instance<'tcx>>,
    ) -> Value {
        // The results are defined on the normal edge, in a block the invoke alone
        // enters (`then` may have other predecessors: the unreachable block that
        // calls which never return share), which jumps on to `then`.
        let normal = self.append_sibling_block("invoke_normal");
        self.place_after_current(normal);
        let r = self.emit_call_unwinding(
            llty,
            llfn,
            return_slot,
            args,
            Some((normal.block, catch.block)),
            false,
        );
        self.br(then);
        r
    }

    fn unreachable(&mut self) {
        self.with_ins(|i| i.unreachable());
    }

    fn unreachable_nonterminator(&mut self) {
        self.with_ins(|i| i.trap(trap_code::UNREACHABLE));
    }

    fn add(&mut self, a: Value, b: Value) -> Value {
        self.binary(ir::Opcode::Iadd, a, b)
    }
    fn fadd(&mut self, a: Value, b: Value) -> Value {
        self.binary(ir::Opcode::Fadd, a, b)
    }
    fn fadd_fast(&mut self, a: Value, b: Value) -> Value {
        self.fadd(a, b)
    }
    fn fadd_algebraic(&mut self, a: Value, b: Value) -> Value {
        self.fadd(a, b)
    }
    fn sub(&mut self, a: Value, b: Value) -> Value {
        self.binary(ir::Opcode::Isub, a, b)
    }
    fn fsub(&mut self, a: Value, b: Value) -> Value {
        self.binary(ir::Opcode::Fsub, a, b)
    }
    fn fsub_fast(&mut self, a: Value, b: Value) -> Value {
        self.fsub(a, b)
    }
    fn fsub_algebraic(&mut self, a: Value, b: Value) -> Value {
        self.fsub(a, b)
    }
    fn mul(&mut self, a: Value, b: Value) -> Value {
        self.binary(ir::Opcode::Imul, a, b)
    }
    fn fmul(&mut self, a: Value, b: Value) -> Value {
        self.binary(ir::Opcode::Fmul, a, b)
    }
    fn fmul_fast(&mut self, a: Value, b: Value) -> Value {
        self.fmul(a, b)
    }
    fn fmul_algebraic(&mut self, a: Value, b: Value) -> Value {
        self.fmul(a, b)
    }
    fn udiv(&mut self, a: Value, b: Value) -> Value {
        self.binary(ir::Opcode::Udiv, a, b)
    }
    fn exactudiv(&mut self, a: Value, b: Value) -> Value {
        self.udiv(a, b)
    }
    fn sdiv(&mut self, a: Value, b: Value) -> Value {
        self.binary(ir::Opcode::Sdiv, a, b)
    }
    fn exactsdiv(&mut self, a: Value, b: Value) -> Value {
        self.sdiv(a, b)
    }
    fn fdiv(&mut self, a: Value, b: Value) -> Value {
        self.binary(ir::Opcode::Fdiv, a, b)
    }
    fn fdiv_fast(&mut self, a: Value, b: Value) -> Value {
        self.fdiv(a, b)
    }
    fn fdiv_algebraic(&mut self, a: Value, b: Value) -> Value {
        self.fdiv(a, b)
    }
    fn urem(&mut self, a: Value, b: Value) -> Value {
        self.binary(ir::Opcode::Urem, a, b)
    }
    fn srem(&mut self, a: Value, b: Value) -> Value {
        self.binary(ir::Opcode::Srem, a, b)
    }
    fn frem(&mut self, a: Value, b: Value) -> Value {
        self.binary(ir::Opcode::Frem, a, b)
    }
    fn frem_fast(&mut self, a: Value, b: Value) -> Value {
        self.frem(a, b)
    }
    fn frem_algebraic(&mut self, a: Value, b: Value) -> Value {
        self.frem(a, b)
    }
    fn shl(&mut self, a: Value, b: Value) -> Value {
        self.binary(ir::Opcode::Ishl, a, b)
    }
    fn lshr(&mut self, a: Value, b: Value) -> Value {
        self.binary(ir::Opcode::Ushr, a, b)
    }
    fn ashr(&mut self, a: Value, b: Value) -> Value {
        self.binary(ir::Opcode::Sshr, a, b)
    }
    fn and(&mut self, a: Value, b: Value) -> Value {
        self.binary(ir::Opcode::Band, a, b)
    }
    fn or(&mut self, a: Value, b: Value) -> Value {
        self.binary(ir::Opcode::Bor, a, b)
    }
    fn xor(&mut self, a: Value, b: Value) -> Value {
        self.binary(ir::Opcode::Bxor, a, b)
    }
    fn neg(&mut self, v: Value) -> Value {
        self.unary(ir::Opcode::Ineg, v)
    }
    fn fneg(&mut self, v: Value) -> Value {
        self.unary(ir::Opcode::Fneg, v)
    }
    fn not(&mut self, v: Value) -> Value {
        self.unary(ir::Opcode::Bnot, v)
    }

    fn checked_binop(
        &mut self,
        oop: OverflowOp,
        ty: Ty<'tcx>,
        lhs: Value,
        rhs: Value,
    ) -> (Value, Value) {
        let signed = match ty.kind() {
            ty::Int(_) => true,
            ty::Uint(_) => false,
            _ => bug!("checked_binop on {ty}"),
        };
        let vty = self.val_type(lhs);
        let x = self.ir_value(lhs);
        let y = self.ir_value(rhs);
        let (r, o) = self.with_ins(|i| match (oop, signed) {
            (OverflowOp::Add, true) => i.sadd_overflow(x, y),
            (OverflowOp::Add, false) => i.uadd_overflow(x, y),
            (OverflowOp::Sub, true) => i.ssub_overflow(x, y),
            (OverflowOp::Sub, false) => i.usub_overflow(x, y),
            (OverflowOp::Mul, true) => i.smul_overflow(x, y),
            (OverflowOp::Mul, false) => i.umul_overflow(x, y),
        });
        (self.wrap_ir(r, vty), self.wrap_ir(o, self.cx.ty_i1))
    }

    fn from_immediate(&mut self, val: Value) -> Value {
        if self.val_type(val) == self.cx.ty_i1 {
            self.zext(val, self.cx.ty_i8)
        } else {
            val
        }
    }

    fn to_immediate_scalar(&mut self, val: Value, scalar: Scalar) -> Value {
        if scalar.is_bool() {
            self.trunc(val, self.cx.ty_i1)
        } else {
            val
        }
    }

    fn alloca(&mut self, size: Size, align: Align) -> Value {
        let size = u32::try_from(size.bytes())
            .unwrap_or_else(|_| self.unsupported("stack objects of 4 GiB or more"));
        let align = align.bytes() as u32;
        // Stack slot addresses are made at the top of the entry block so that they
        // dominate every use, wherever rustc_codegen_ssa asks for the slot.
        let srcloc = self.srcloc;
        let x = self.with_body(|body| {
            let slot = body.create_stack_slot(size, align);
            let entry = body
                .layout
                .entry_block()
                .expect("alloca before the entry block");
            let mut b = FunctionBuilder::new(body);
            b.goto_first_inst(entry);
            b.set_srcloc(srcloc);
            b.ins().stack_addr(slot, 0)
        });
        self.wrap_ir(x, self.cx.ty_ptr)
    }

    fn alloca_with_ty(&mut self, layout: TyAndLayout<'tcx>) -> Value {
        self.alloca(layout.size, layout.align.abi)
    }

    fn load(&mut self, ty: Type, ptr: Value, align: Align) -> Value {
        let p = self.ir_value(ptr);
        self.load_typed(ty, p, 0, align, false)
    }

    fn volatile_load(&mut self, ty: Type, ptr: Value, align: Align) -> Value {
        let p = self.ir_value(ptr);
        self.load_typed(ty, p, 0, align, true)
    }

    fn atomic_load(
        &mut self,
        ty: Type,
        ptr: Value,
        _order: AtomicOrdering,
        volatile: bool,
        size: Size,
    ) -> Value {
        let t = self.ir_type_of(ty);
        let p = self.ir_value(ptr);
        let flags = Self::flags(
            Align::from_bytes(size.bytes()).unwrap_or(Align::ONE),
            volatile,
        );
        let r = self.with_ins(|i| i.atomic_load(t, flags, p));
        self.wrap_ir(r, ty)
    }

    fn load_operand(&mut self, place: PlaceRef<'tcx, Value>) -> OperandRef<'tcx, Value> {
        if place.layout.is_zst() {
            return OperandRef::zero_sized(place.layout);
        }
        let val = if place.val.llextra.is_some() {
            OperandValue::Ref(place.val)
        } else if let BackendRepr::Scalar(scalar) = place.layout.backend_repr {
            let ty = self.backend_type(place.layout);
            let v = self.load(ty, place.val.llval, place.val.align);
            OperandValue::Immediate(self.to_immediate_scalar(v, scalar))
        } else if let BackendRepr::ScalarPair { a, b, b_offset } = place.layout.backend_repr {
            let p = self.ir_value(place.val.llval);
            let ta = self.scalar_pair_element_backend_type(place.layout, 0, false);
            let tb = self.scalar_pair_element_backend_type(place.layout, 1, false);
            let va = self.load_typed(ta, p, 0, place.val.align, false);
            let vb = self.load_typed(
                tb,
                p,
                b_offset.bytes(),
                place.val.align.restrict_for_offset(b_offset),
                false,
            );
            OperandValue::Pair(
                self.to_immediate_scalar(va, a),
                self.to_immediate_scalar(vb, b),
            )
        } else if let BackendRepr::SimdVector { .. } = place.layout.backend_repr {
            let ty = self.backend_type(place.layout);
            OperandValue::Immediate(self.load(ty, place.val.llval, place.val.align))
        } else if let BackendRepr::SimdScalableVector { .. } = place.layout.backend_repr {
            self.unsupported("scalable vectors")
        } else {
            OperandValue::Ref(place.val)
        };
        OperandRef {
            val,
            layout: place.layout,
            move_annotation: None,
        }
    }

    fn write_operand_repeatedly(
        &mut self,
        elem: OperandRef<'tcx, Value>,
        count: u64,
        dest: PlaceRef<'tcx, Value>,
    ) {
        let size = elem.layout.size.bytes();
        let align = dest.val.align.restrict_for_offset(elem.layout.size);
        if count == 0 || size == 0 {
            return;
        }
        let start = self.ir_value(dest.val.llval);
        // header(p): p != end ? body(p) : exit;  body: store; header(p + size)
        let total = self.with_ins(|i| i.iconst(ir::Type::I64, (size * count) as i64));
        let end = self.with_ins(|i| i.ptradd(start, total));
        let end_i = self.ptr_as_int(end);
        let (header, body, exit, p) = self.with_body(|f| {
            let header = f.dfg.make_block();
            let body = f.dfg.make_block();
            let exit = f.dfg.make_block();
            f.layout.append_block(header);
            f.layout.append_block(body);
            f.layout.append_block(exit);
            let p = f.dfg.append_block_param(header, ir::Type::Ptr);
            (header, body, exit, p)
        });
        self.with_ins(|i| i.jump(header, &[start]));
        self.block = header;
        let pi = self.ptr_as_int(p);
        let more = self.with_ins(|i| i.icmp(ir::IntCC::Ne, pi, end_i));
        self.with_ins(|i| i.brif(more, body, &[], exit, &[]));
        self.block = body;
        let place =
            PlaceRef::new_sized_aligned(self.wrap_ir(p, self.cx.ty_ptr), elem.layout, align);
        elem.val.store(self, place);
        let step = self.with_ins(|i| i.iconst(ir::Type::I64, size as i64));
        let next = self.with_ins(|i| i.ptradd(p, step));
        self.with_ins(|i| i.jump(header, &[next]));
        self.block = exit;
    }

    fn range_metadata(&mut self, _load: Value, _range: WrappingRange) {}

    fn nonnull_metadata(&mut self, _load: Value) {}

    fn store(&mut self, val: Value, ptr: Value, align: Align) -> Value {
        self.store_with_flags(val, ptr, align, MemFlags::empty())
    }

    fn store_with_flags(&mut self, val: Value, ptr: Value, align: Align, flags: MemFlags) -> Value {
        let p = self.ir_value(ptr);
        self.store_typed(val, p, 0, align, flags.contains(MemFlags::VOLATILE));
        self.void_value()
    }

    fn atomic_store(
        &mut self,
        val: Value,
        ptr: Value,
        _order: AtomicOrdering,
        volatile: bool,
        size: Size,
    ) {
        let x = self.ir_value(val);
        let p = self.ir_value(ptr);
        let flags = Self::flags(
            Align::from_bytes(size.bytes()).unwrap_or(Align::ONE),
            volatile,
        );
        self.with_ins(|i| i.atomic_store(flags, x, p));
    }

    fn gep(&mut self, ty: Type, ptr: Value, indices: &[Value]) -> Value {
        // Constant parts fold into one offset; variable ones are scaled and added.
        let mut const_off: i64 = 0;
        let mut var_off: Option<ir::Value> = None;
        let mut cur = ty;
        for (n, &idx) in indices.iter().enumerate() {
            let (stride, next) = if n == 0 {
                (self.cx.types.borrow().size(cur) as i64, cur)
            } else {
                match self.cx.ty_data(cur) {
                    TyData::Struct { fields, .. } => {
                        let i = self
                            .const_int(idx)
                            .unwrap_or_else(|| bug!("gep: variable struct index"));
                        let (ft, off) = fields[i as usize];
                        const_off = const_off.wrapping_add(off as i64);
                        cur = ft;
                        continue;
                    }
                    TyData::Array { elem, .. } | TyData::Vector { elem, .. } => {
                        (self.cx.types.borrow().size(elem) as i64, elem)
                    }
                    d => bug!("gep into {d:?}"),
                }
            };
            cur = next;
            match self.const_int(idx) {
                Some(i) => {
                    let bits = self.cx.types.borrow().size(self.val_type(idx)) * 8;
                    let i = if bits >= 128 {
                        i as i128
                    } else {
                        ((i << (128 - bits)) as i128) >> (128 - bits)
                    };
                    const_off = const_off.wrapping_add((i as i64).wrapping_mul(stride));
                }
                None => {
                    let x = self.ir_value(idx);
                    let x = self.int_convert(x, ir::Type::I64, true);
                    let scaled = if stride == 1 {
                        x
                    } else {
                        let s = self.with_ins(|i| i.iconst(ir::Type::I64, stride));
                        self.with_ins(|i| i.imul(x, s))
                    };
                    var_off = Some(match var_off {
                        None => scaled,
                        Some(v) => self.with_ins(|i| i.iadd(v, scaled)),
                    });
                }
            }
        }
        if var_off.is_none() {
            // Keep constant addresses symbolic.
            match self.cx.value(ptr) {
                ValueData::SymAddr { ty, sym, offset } => {
                    return self.cx.new_value(ValueData::SymAddr {
                        ty,
                        sym,
                        offset: offset.wrapping_add(const_off),
                    });
                }
                _ if const_off == 0 => return ptr,
                _ => {}
            }
        }
        let p = self.ir_value(ptr);
        let mut off = var_off;
        if const_off != 0 {
            let c = self.with_ins(|i| i.iconst(ir::Type::I64, const_off));
            off = Some(match off {
                None => c,
                Some(v) => self.with_ins(|i| i.iadd(v, c)),
            });
        }
        let r = match off {
            Some(o) => self.with_ins(|i| i.ptradd(p, o)),
            None => p,
        };
        self.wrap_ir(r, self.cx.ty_ptr)
    }

    fn inbounds_gep(&mut self, ty: Type, ptr: Value, indices: &[Value]) -> Value {
        self.gep(ty, ptr, indices)
    }

    fn trunc(&mut self, val: Value, dest_ty: Type) -> Value {
        if let Some(r) = self.map_cast(val, dest_ty, <Self as BuilderMethods>::trunc) {
            return r;
        }
        if self.val_type(val) == dest_ty {
            return val;
        }
        if let Some(bits) = self.const_int(val) {
            let mask = self.ir_type_of(dest_ty).mask();
            return self.cx.new_value(ValueData::Int {
                ty: dest_ty,
                bits: bits & mask,
            });
        }
        let t = self.ir_type_of(dest_ty);
        let x = self.ir_value(val);
        let r = self.with_ins(|i| i.ireduce(t, x));
        self.wrap_ir(r, dest_ty)
    }

    fn sext(&mut self, val: Value, dest_ty: Type) -> Value {
        self.intcast(val, dest_ty, true)
    }

    fn zext(&mut self, val: Value, dest_ty: Type) -> Value {
        self.intcast(val, dest_ty, false)
    }

    fn fptoui_sat(&mut self, val: Value, dest_ty: Type) -> Value {
        if let Some(r) = self.map_cast(val, dest_ty, <Self as BuilderMethods>::fptoui_sat) {
            return r;
        }
        self.check_conversion(val, dest_ty);
        let t = self.ir_type_of(dest_ty);
        let x = self.ir_value(val);
        let r = self.with_ins(|i| i.fcvt_to_uint_sat(t, x));
        self.wrap_ir(r, dest_ty)
    }

    fn fptosi_sat(&mut self, val: Value, dest_ty: Type) -> Value {
        if let Some(r) = self.map_cast(val, dest_ty, <Self as BuilderMethods>::fptosi_sat) {
            return r;
        }
        self.check_conversion(val, dest_ty);
        let t = self.ir_type_of(dest_ty);
        let x = self.ir_value(val);
        let r = self.with_ins(|i| i.fcvt_to_sint_sat(t, x));
        self.wrap_ir(r, dest_ty)
    }

    fn fptoui(&mut self, val: Value, dest_ty: Type) -> Value {
        if let Some(r) = self.map_cast(val, dest_ty, <Self as BuilderMethods>::fptoui) {
            return r;
        }
        // Out-of-range conversions are undefined behaviour; saturating is one choice.
        self.fptoui_sat(val, dest_ty)
    }

    fn fptosi(&mut self, val: Value, dest_ty: Type) -> Value {
        if let Some(r) = self.map_cast(val, dest_ty, <Self as BuilderMethods>::fptosi) {
            return r;
        }
        self.fptosi_sat(val, dest_ty)
    }

    fn uitofp(&mut self, val: Value, dest_ty: Type) -> Value {
        if let Some(r) = self.map_cast(val, dest_ty, <Self as BuilderMethods>::uitofp) {
            return r;
        }
        self.check_conversion(val, dest_ty);
        let t = self.ir_type_of(dest_ty);
        let x = self.ir_value(val);
        let r = self.with_ins(|i| i.fcvt_from_uint(t, x));
        self.wrap_ir(r, dest_ty)
    }

    fn sitofp(&mut self, val: Value, dest_ty: Type) -> Value {
        if let Some(r) = self.map_cast(val, dest_ty, <Self as BuilderMethods>::sitofp) {
            return r;
        }
        self.check_conversion(val, dest_ty);
        let t = self.ir_type_of(dest_ty);
        let x = self.ir_value(val);
        let r = self.with_ins(|i| i.fcvt_from_sint(t, x));
        self.wrap_ir(r, dest_ty)
    }

    fn fptrunc(&mut self, val: Value, dest_ty: Type) -> Value {
        if let Some(r) = self.map_cast(val, dest_ty, <Self as BuilderMethods>::fptrunc) {
            return r;
        }
        self.check_conversion(val, dest_ty);
        if self.val_type(val) == dest_ty {
            return val;
        }
        let x = self.ir_value(val);
        let r = self.with_ins(|i| i.fdemote(x));
        self.wrap_ir(r, dest_ty)
    }

    fn fpext(&mut self, val: Value, dest_ty: Type) -> Value {
        if let Some(r) = self.map_cast(val, dest_ty, <Self as BuilderMethods>::fpext) {
            return r;
        }
        self.check_conversion(val, dest_ty);
        if self.val_type(val) == dest_ty {
            return val;
        }
        let x = self.ir_value(val);
        let r = self.with_ins(|i| i.fpromote(x));
        self.wrap_ir(r, dest_ty)
    }

    fn ptrtoint(&mut self, val: Value, dest_ty: Type) -> Value {
        if let Some(r) = self.map_cast(val, dest_ty, <Self as BuilderMethods>::ptrtoint) {
            return r;
        }
        match self.cx.value(val) {
            ValueData::SymAddr { sym, offset, .. } if dest_ty == self.cx.ty_i64 => {
                return self.cx.new_value(ValueData::SymAddr {
                    ty: dest_ty,
                    sym,
                    offset,
                });
            }
            ValueData::Int { bits, .. } => {
                let mask = self.ir_type_of(dest_ty).mask();
                return self.cx.new_value(ValueData::Int {
                    ty: dest_ty,
                    bits: bits & mask,
                });
            }
            _ => {}
        }
        let t = self.ir_type_of(dest_ty);
        let x = self.ir_value(val);
        let x = self.ptr_as_int(x);
        let r = self.int_convert(x, t, false);
        self.wrap_ir(r, dest_ty)
    }

    fn inttoptr(&mut self, val: Value, dest_ty: Type) -> Value {
        if let Some(r) = self.map_cast(val, dest_ty, <Self as BuilderMethods>::inttoptr) {
            return r;
        }
        match self.cx.value(val) {
            ValueData::Int { bits, .. } => {
                return self.cx.new_value(ValueData::Int {
                    ty: dest_ty,
                    bits: bits as u64 as u128,
                });
            }
            ValueData::SymAddr { sym, offset, .. } => {
                return self.cx.new_value(ValueData::SymAddr {
                    ty: dest_ty,
                    sym,
                    offset,
                });
            }
            _ => {}
        }
        let x = self.ir_value(val);
        let x = self.int_convert(x, ir::Type::I64, false);
        let r = self.with_ins(|i| i.bitcast(ir::Type::Ptr, x));
        self.wrap_ir(r, dest_ty)
    }

    fn bitcast(&mut self, val: Value, dest_ty: Type) -> Value {
        let from = self.val_type(val);
        if from == dest_ty {
            return val;
        }
        if self.vector_of(from).is_some() || self.vector_of(dest_ty).is_some() {
            let same_lanes = match (self.vector_of(from), self.vector_of(dest_ty)) {
                (Some((a, n)), Some((b, m))) => {
                    n == m && self.cx.types.borrow().size(a) == self.cx.types.borrow().size(b)
                }
                _ => false,
            };
            if same_lanes {
                let (elem, _) = self.vector_of(dest_ty).unwrap();
                return self
                    .map_lanes(val, None, |bx, x, _| bx.bitcast(x, elem))
                    .unwrap();
            }
            return self.bitcast_through_memory(val, dest_ty);
        }
        let t = self.ir_type_of(dest_ty);
        if let ValueData::Int { bits, .. } = self.cx.value(val) {
            if t.is_int() || t.is_ptr() {
                return self.cx.new_value(ValueData::Int {
                    ty: dest_ty,
                    bits: bits & t.mask(),
                });
            }
            if t == ir::Type::F32 || t == ir::Type::F64 {
                return self.cx.new_value(ValueData::Float {
                    ty: dest_ty,
                    bits: bits as u64,
                });
            }
        }
        let x = self.ir_value(val);
        if self.func_value_type(x) == t {
            return self.wrap_ir(x, dest_ty);
        }
        let r = self.with_ins(|i| i.bitcast(t, x));
        self.wrap_ir(r, dest_ty)
    }

    fn intcast(&mut self, val: Value, dest_ty: Type, is_signed: bool) -> Value {
        if let Some((elem, _)) = self.vector_of(dest_ty) {
            return self
                .map_lanes(val, None, |bx, x, _| bx.intcast(x, elem, is_signed))
                .unwrap();
        }
        if self.val_type(val) == dest_ty {
            return val;
        }
        let t = self.ir_type_of(dest_ty);
        if let Some(bits) = self.const_int(val) {
            let from = self.ir_type_of(self.val_type(val));
            let v = if is_signed && from.bits() < 128 && from != ir::Type::I1 {
                let sh = 128 - from.bits();
                (((bits << sh) as i128) >> sh) as u128
            } else {
                bits
            };
            return self.cx.new_value(ValueData::Int {
                ty: dest_ty,
                bits: v & t.mask(),
            });
        }
        let x = self.ir_value(val);
        let r = self.int_convert(x, t, is_signed);
        self.wrap_ir(r, dest_ty)
    }

    fn pointercast(&mut self, val: Value, _dest_ty: Type) -> Value {
        val
    }

    fn icmp(&mut self, op: IntPredicate, lhs: Value, rhs: Value) -> Value {
        self.icmp_values(int_cc(op), lhs, rhs)
    }

    fn fcmp(&mut self, op: RealPredicate, lhs: Value, rhs: Value) -> Value {
        if let Some(r) = self.map_lanes(lhs, Some(rhs), |bx, x, y| bx.fcmp(op, x, y.unwrap())) {
            return r;
        }
        if self.soft_float_bits(self.val_type(lhs)).is_some() {
            self.refuse_soft_float("comparisons");
        }
        use RealPredicate::*;
        let cc = match op {
            RealPredicateFalse => return self.cx.const_bool(false),
            RealPredicateTrue => return self.cx.const_bool(true),
            RealOEQ => ir::FloatCC::Oeq,
            RealOGT => ir::FloatCC::Ogt,
            RealOGE => ir::FloatCC::Oge,
            RealOLT => ir::FloatCC::Olt,
            RealOLE => ir::FloatCC::Ole,
            RealONE => ir::FloatCC::One,
            RealORD => ir::FloatCC::Ord,
            RealUNO => ir::FloatCC::Uno,
            RealUEQ => ir::FloatCC::Ueq,
            RealUGT => ir::FloatCC::Ugt,
            RealUGE => ir::FloatCC::Uge,
            RealULT => ir::FloatCC::Ult,
            RealULE => ir::FloatCC::Ule,
            RealUNE => ir::FloatCC::Une,
        };
        let x = self.ir_value(lhs);
        let y = self.ir_value(rhs);
        let r = self.with_ins(|i| i.fcmp(cc, x, y));
        self.wrap_ir(r, self.cx.ty_i1)
    }

    fn memcpy(
        &mut self,
        dst: Value,
        dst_align: Align,
        src: Value,
        src_align: Align,
        size: Value,
        flags: MemFlags,
        _tt: Option<FncTree>,
    ) {
        if self.const_int(size) == Some(0) {
            return;
        }
        if flags.contains(MemFlags::VOLATILE) {
            let op = ir::Opcode::Memcpy;
            return self.volatile_mem(op, dst, dst_align, src, src_align, size);
        }
        let d = self.ir_value(dst);
        let s = self.ir_value(src);
        if self.copy_small(d, dst_align, s, src, src_align, size) {
            return;
        }
        let n = self.ir_value(size);
        let n = self.int_convert(n, ir::Type::I64, false);
        self.with_ins(|i| i.memcpy(d, s, n));
    }

    fn memmove(
        &mut self,
        dst: Value,
        dst_align: Align,
        src: Value,
        src_align: Align,
        size: Value,
        flags: MemFlags,
    ) {
        if self.const_int(size) == Some(0) {
            return;
        }
        if flags.contains(MemFlags::VOLATILE) {
            let op = ir::Opcode::Memmove;
            return self.volatile_mem(op, dst, dst_align, src, src_align, size);
        }
        let d = self.ir_value(dst);
        let s = self.ir_value(src);
        if self.copy_small(d, dst_align, s, src, src_align, size) {
            return;
        }
        let n = self.ir_value(size);
        let n = self.int_convert(n, ir::Type::I64, false);
        self.with_ins(|i| i.memmove(d, s, n));
    }

    fn memset(&mut self, ptr: Value, fill_byte: Value, size: Value, align: Align, flags: MemFlags) {
        if self.const_int(size) == Some(0) {
            return;
        }
        if flags.contains(MemFlags::VOLATILE) {
            let op = ir::Opcode::Memset;
            return self.volatile_mem(op, ptr, align, fill_byte, align, size);
        }
        let d = self.ir_value(ptr);
        let b = self.ir_value(fill_byte);
        let n = self.ir_value(size);
        let n = self.int_convert(n, ir::Type::I64, false);
        self.with_ins(|i| i.memset(d, b, n));
    }

    fn vscale(&mut self, _ty: Type) -> Value {
        self.unsupported("scalable vectors")
    }

    fn select(&mut self, cond: Value, then_val: Value, else_val: Value) -> Value {
        let ty = self.val_type(then_val);
        if self.vector_of(self.val_type(cond)).is_some() {
            let cs = self.lanes(cond);
            let xs = self.lanes(then_val);
            let ys = self.lanes(else_val);
            let r = (0..cs.len())
                .map(|i| self.select(cs[i], xs[i], ys[i]))
                .collect();
            return self.make_vector(r);
        }
        if self.cx.types.borrow().is_aggregate(ty) {
            let n = self.cx.types.borrow().fields(ty).unwrap().len();
            let elems = (0..n as u64)
                .map(|k| {
                    let a = self.extract_value(then_val, k);
                    let b = self.extract_value(else_val, k);
                    self.select(cond, a, b)
                })
                .collect();
            return self.cx.aggregate(ty, elems);
        }
        let c = self.ir_value(cond);
        let a = self.ir_value(then_val);
        let b = self.ir_value(else_val);
        let r = self.with_ins(|i| i.select(c, a, b));
        self.wrap_ir(r, ty)
    }

    fn va_arg(&mut self, _list: Value, _ty: Type) -> Value {
        self.unsupported("C-variadic function definitions (`va_arg`)")
    }

    fn extract_element(&mut self, vec: Value, idx: Value) -> Value {
        if let Some(i) = self.const_int(idx) {
            let lanes = self.lanes(vec);
            return match lanes.get(i as usize) {
                Some(&l) => l,
                None => {
                    let (elem, _) = self.vector_of(self.val_type(vec)).unwrap();
                    self.cx.new_value(ValueData::Undef { ty: elem })
                }
            };
        }
        self.extract_element_dyn(vec, idx)
    }

    fn vector_splat(&mut self, num_elts: usize, elt: Value) -> Value {
        self.make_vector(vec![elt; num_elts])
    }

    fn extract_value(&mut self, agg: Value, idx: u64) -> Value {
        match self.cx.value(agg) {
            ValueData::Aggregate { elems, .. } => elems[idx as usize],
            ValueData::Undef { ty } => {
                let fields = self
                    .cx
                    .types
                    .borrow()
                    .fields(ty)
                    .unwrap_or_else(|| bug!("extract_value of a scalar"));
                self.cx.new_value(ValueData::Undef {
                    ty: fields[idx as usize].0,
                })
            }
            d => bug!("extract_value of {d:?}"),
        }
    }

    fn insert_value(&mut self, agg: Value, elt: Value, idx: u64) -> Value {
        let ty = self.val_type(agg);
        let fields = self
            .cx
            .types
            .borrow()
            .fields(ty)
            .unwrap_or_else(|| bug!("insert_value into a scalar"));
        let mut elems: Vec<Value> = match self.cx.value(agg) {
            ValueData::Aggregate { elems, .. } => elems.to_vec(),
            ValueData::Undef { .. } => fields
                .iter()
                .map(|&(ft, _)| self.cx.new_value(ValueData::Undef { ty: ft }))
                .collect(),
            d => bug!("insert_value into {d:?}"),
        };
        elems[idx as usize] = elt;
        self.cx.aggregate(ty, elems)
    }

    fn set_personality_fn(&mut self, personality: FuncId) {
        let name = self.cx.func(personality).name.clone();
        self.with_body(|body| body.personality = Some(name));
    }

    fn cleanup_landing_pad(&mut self, pers_fn: FuncId) -> (Value, Value) {
        self.set_personality_fn(pers_fn);
        let (exception, selector) = self.with_ins(|i| i.landing_pad(false));
        (
            self.wrap_ir(exception, self.cx.ty_ptr),
            self.wrap_ir(selector, self.cx.ty_i32),
        )
    }

    /// The landing pad of a block that must stop unwinding (rustc's terminate block,
    /// which calls a function that aborts): LLVM's empty filter, which Rust's
    /// personality routine treats like a catch (the search phase stops here).
    fn filter_landing_pad(&mut self, pers_fn: FuncId) {
        self.set_personality_fn(pers_fn);
        self.with_ins(|i| i.landing_pad(true));
    }

    fn resume(&mut self, exn0: Value, _exn1: Value) {
        let exception = self.ir_value(exn0);
        self.with_ins(|i| i.resume(exception));
    }

    fn cleanup_pad(&mut self, _parent: Option<Value>, _args: &[Value]) {
        self.unsupported("unwinding (funclets)")
    }

    fn cleanup_ret(&mut self, _funclet: &(), _unwind: Option<BlockRef>) {
        self.unsupported("unwinding (funclets)")
    }

    fn catch_pad(&mut self, _parent: Value, _args: &[Value]) {
        self.unsupported("unwinding (funclets)")
    }

    fn catch_switch(
        &mut self,
        _parent: Option<Value>,
        _unwind: Option<BlockRef>,
        _handlers: &[BlockRef],
    ) -> Value {
        self.unsupported("unwinding (funclets)")
    }

    fn get_funclet_cleanuppad(&self, _funclet: &()) -> Value {
        self.unsupported("unwinding (funclets)")
    }

    fn atomic_cmpxchg(
        &mut self,
        dst: Value,
        cmp: Value,
        src: Value,
        _order: AtomicOrdering,
        _failure_order: AtomicOrdering,
        _weak: bool,
    ) -> (Value, Value) {
        let ty = self.val_type(cmp);
        let p = self.ir_value(dst);
        let e = self.ir_value(cmp);
        let n = self.ir_value(src);
        let (e, n) = (self.ptr_as_int(e), self.ptr_as_int(n));
        let size = self.func_value_type(e).bytes();
        let flags = ir::MemFlags::aligned(size);
        let (old, ok) = self.with_ins(|i| i.atomic_cas(flags, p, e, n));
        let old = if self.ir_type_of(ty) == ir::Type::Ptr {
            self.with_ins(|i| i.bitcast(ir::Type::Ptr, old))
        } else {
            old
        };
        (self.wrap_ir(old, ty), self.wrap_ir(ok, self.cx.ty_i1))
    }

    fn atomic_rmw(
        &mut self,
        op: AtomicRmwBinOp,
        dst: Value,
        src: Value,
        _order: AtomicOrdering,
        ret_ptr: bool,
    ) -> Value {
        use AtomicRmwBinOp::*;
        let op = match op {
            AtomicXchg => ir::AtomicRmwOp::Xchg,
            AtomicAdd => ir::AtomicRmwOp::Add,
            AtomicSub => ir::AtomicRmwOp::Sub,
            AtomicAnd => ir::AtomicRmwOp::And,
            AtomicNand => ir::AtomicRmwOp::Nand,
            AtomicOr => ir::AtomicRmwOp::Or,
            AtomicXor => ir::AtomicRmwOp::Xor,
            AtomicMax => ir::AtomicRmwOp::Smax,
            AtomicMin => ir::AtomicRmwOp::Smin,
            AtomicUMax => ir::AtomicRmwOp::Umax,
            AtomicUMin => ir::AtomicRmwOp::Umin,
        };
        let p = self.ir_value(dst);
        let x = self.ir_value(src);
        let x = self.ptr_as_int(x);
        let size = self.func_value_type(x).bytes();
        let r = self.with_ins(|i| i.atomic_rmw(ir::MemFlags::aligned(size), op, p, x));
        if ret_ptr {
            let r = if self.func_value_type(r) == ir::Type::Ptr {
                r
            } else {
                self.with_ins(|i| i.bitcast(ir::Type::Ptr, r))
            };
            self.wrap_ir(r, self.cx.ty_ptr)
        } else {
            let ty = self.val_type(src);
            let r = if self.ir_type_of(ty) == ir::Type::Ptr {
                self.with_ins(|i| i.bitcast(ir::Type::Ptr, r))
            } else {
                r
            };
            self.wrap_ir(r, ty)
        }
    }

    fn atomic_fence(&mut self, _order: AtomicOrdering, _scope: SynchronizationScope) {
        self.with_ins(|i| i.fence());
    }

    fn set_invariant_load(&mut self, _load: Value) {}

    fn lifetime_start(&mut self, _ptr: Value, _size: Size) {}

    fn lifetime_end(&mut self, _ptr: Value, _size: Size) {}

    fn call(
        &mut self,
        llty: FnSig,
        _caller_attrs: Option<&CodegenFnAttrs>,
        fn_abi: Option<&FnAbi<'tcx, Ty<'tcx>>>,
        fn_val: Value,
        return_slot: ReturnSlot<Value>,
        args: &[Value],
        _funclet: Option<&()>,
        _callee_instance: Option<Instance<'tcx>>,
    ) -> Value {
        // rustc's `nounwind`: the callee cannot unwind (the IR reference remembers it)
        let nounwind = fn_abi.is_some_and(|abi| !abi.can_unwind);
        self.emit_call(llty, fn_val, return_slot, args, nounwind)
    }

    fn tail_call(
        &mut self,
        _llty: FnSig,
        _caller_attrs: Option<&CodegenFnAttrs>,
        _fn_abi: &FnAbi<'tcx, Ty<'tcx>>,
        _llfn: Value,
        _return_slot: ReturnSlot<Value>,
        _args: &[Value],
        _funclet: Option<&()>,
        _callee_instance: Option<Instance<'tcx>>,
    ) {
        self.unsupported("explicit tail calls (`become`)")
    }

    fn apply_attrs_to_cleanup_callsite(&mut self, _llret: Value) {}
}

impl<'a, 'tcx> StaticBuilderMethods for Builder<'a, 'tcx> {
    fn get_static(&mut self, def_id: DefId) -> Value {
        if self.cx.is_thread_local_static(def_id) {
            // This thread's copy: `tls_addr` (local exec, `tp` + the offset).
            let name = self.cx.static_name(def_id);
            self.cx.symbol(&name);
            let gv = self.global_ref(&name);
            let addr = self.with_ins(|i| i.tls_addr(gv, 0));
            return self.wrap_ir(addr, self.cx.ty_ptr);
        }
        self.cx.get_static_addr(def_id)
    }
}

impl<'a, 'tcx> CoverageInfoBuilderMethods<'tcx> for Builder<'a, 'tcx> {
    fn add_coverage(&mut self, _instance: Instance<'tcx>, _kind: &CoverageKind) {}
}

impl<'a, 'tcx> AsmBuilderMethods<'tcx> for Builder<'a, 'tcx> {
    fn codegen_inline_asm(
        &mut self,
        _template: &[rustc_ast::InlineAsmTemplatePiece],
        _operands: &[InlineAsmOperandRef<'tcx, Self>],
        _options: rustc_ast::InlineAsmOptions,
        line_spans: &[Span],
        instance: Instance<'_>,
        _dest: Option<BlockRef>,
        _catch_funclet: Option<(BlockRef, Option<&()>)>,
    ) {
        let span = line_spans
            .first()
            .copied()
            .unwrap_or_else(|| self.cx.fn_span(self.func));
        self.cx.tcx.dcx().span_fatal(
            span,
            format!("the VLIW backend does not support inline assembly yet (in `{instance}`)"),
        )
    }
}

impl<'a, 'tcx> DebugInfoBuilderMethods<'tcx> for Builder<'a, 'tcx> {
    fn dbg_scope_fn(
        &mut self,
        _instance: Instance<'tcx>,
        _fn_abi: &FnAbi<'tcx, Ty<'tcx>>,
        _llfn: Option<FuncId>,
    ) {
    }

    fn dbg_create_lexical_block(&mut self, _pos: BytePos, _parent_scope: ()) {}

    fn dbg_location_clone_with_discriminator(
        &mut self,
        loc: DebugLoc,
        _discriminator: u32,
    ) -> Option<DebugLoc> {
        Some(loc)
    }

    fn dbg_loc(&mut self, _scope: (), _inlined_at: Option<DebugLoc>, span: Span) -> DebugLoc {
        self.cx.debug_loc(span)
    }

    fn extend_scope_to_file(&mut self, _scope_metadata: (), _file: &SourceFile) {}

    fn create_dbg_var(
        &mut self,
        _variable_name: Symbol,
        _variable_type: Ty<'tcx>,
        _scope_metadata: (),
        _variable_kind: rustc_codegen_ssa::mir::debuginfo::VariableKind,
        _span: Span,
    ) {
    }

    fn dbg_var_addr(
        &mut self,
        _dbg_var: (),
        _dbg_loc: DebugLoc,
        _variable_alloca: Value,
        _direct_offset: Size,
        _indirect_offsets: &[Size],
        _fragment: &Option<std::ops::Range<Size>>,
    ) {
    }

    fn dbg_var_value(
        &mut self,
        _dbg_var: (),
        _dbg_loc: DebugLoc,
        _value: Value,
        _direct_offset: Size,
        _indirect_offsets: &[Size],
        _fragment: &Option<std::ops::Range<Size>>,
    ) {
    }

    fn set_dbg_loc(&mut self, loc: DebugLoc) {
        let name = self.cx.files.borrow()[loc.file as usize].clone();
        let file = self.with_body(|body| body.add_file(&name));
        self.srcloc = ir::SourceLoc::new(file, loc.line, loc.col);
    }

    fn clear_dbg_loc(&mut self) {
        self.srcloc = ir::SourceLoc::default();
    }

    fn insert_reference_to_gdb_debug_scripts_section_global(&mut self) {}

    fn set_var_name(&mut self, _value: Value, _name: &str) {}
}

impl<'tcx> CodegenCx<'tcx> {
    /// The source position of `span` as a `DebugLoc`.
    pub fn debug_loc(&self, span: Span) -> DebugLoc {
        let loc = self.tcx.sess.source_map().lookup_char_pos(span.lo());
        let name = loc.file.name.prefer_remapped_unconditionally().to_string();
        let mut files = self.files.borrow_mut();
        let file = match files.iter().rposition(|f| *f == name) {
            Some(i) => i,
            None => {
                files.push(name);
                files.len() - 1
            }
        } as u32;
        DebugLoc {
            file,
            line: loc.line as u32,
            col: loc.col.0 as u32 + 1,
        }
    }
}

/// rustc_codegen_ssa's type kinds of our types.
pub fn type_kind(data: &TyData) -> TypeKind {
    match data {
        TyData::Void => TypeKind::Void,
        TyData::Int(_) => TypeKind::Integer,
        TyData::F16 => TypeKind::Half,
        TyData::F32 => TypeKind::Float,
        TyData::F64 => TypeKind::Double,
        TyData::F128 => TypeKind::FP128,
        TyData::Ptr => TypeKind::Pointer,
        TyData::Bytes { .. } | TyData::Array { .. } => TypeKind::Array,
        TyData::Vector { .. } => TypeKind::Vector,
        TyData::Struct { .. } => TypeKind::Struct,
    }
}
