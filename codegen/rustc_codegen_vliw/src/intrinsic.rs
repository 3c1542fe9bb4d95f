//! Intrinsics that rustc_codegen_ssa leaves to the backend.
//!
//! Most intrinsics never get here: MIR lowers the arithmetic ones (overflow checks,
//! `unchecked_*`, `wrapping_*`, `copy_nonoverlapping`, `unreachable`, `transmute`...)
//! and rustc_codegen_ssa handles the memory and atomic ones. The bit operations and
//! float operations map onto IR instructions; float functions the machine lacks
//! (`sin`, `pow`, ...) become calls to their C library names; every other intrinsic
//! with a Rust fallback body uses it, and one without a fallback is a compile error
//! that names it.

use rustc_abi::BackendRepr;
use rustc_codegen_ssa::RetagInfo;
use rustc_codegen_ssa::mir::IntrinsicResult;
use rustc_codegen_ssa::mir::operand::{OperandRef, OperandValue};
use rustc_codegen_ssa::mir::place::PlaceValue;
use rustc_codegen_ssa::traits::{
    BuilderMethods, ConstCodegenMethods, IntrinsicCallBuilderMethods, LayoutTypeCodegenMethods,
    MiscCodegenMethods, ReturnSlot,
};
use rustc_middle::ty::layout::TyAndLayout;
use rustc_middle::ty::{self, Instance, Ty};
use rustc_span::{Span, Symbol, sym};
use vliw_ir as ir;

use crate::builder::{Builder, trap_code};
use crate::types::Type;
use crate::values::Value;

fn int_width_signed(ty: Ty<'_>) -> Option<(u32, bool)> {
    match ty.kind() {
        ty::Int(t) => Some((t.bit_width().unwrap_or(64) as u32, true)),
        ty::Uint(t) => Some((t.bit_width().unwrap_or(64) as u32, false)),
        _ => None,
    }
}

impl<'a, 'tcx> Builder<'a, 'tcx> {
    /// `catch_unwind(try_fn, data, catch_fn)`: `try_fn(data)` invoked; where it
    /// unwinds, a landing pad that catches every exception calls `catch_fn(data,
    /// exception)`. The value (a `bool`) is false when `try_fn` returned and true
    /// when it unwound (as LLVM's `__rust_try`, built here in the caller's body).
    fn catch_unwind(&mut self, try_fn: Value, data: Value, catch_fn: Value) -> Value {
        let ptr = self.cx.ty_ptr;
        let normal = self.append_sibling_block("try_normal");
        let pad = self.append_sibling_block("try_catch");
        let join = self.append_sibling_block("try_join");
        // the path that does not unwind falls through: normal, then join
        self.place_after_current(join);
        self.place_after_current(normal);
        let caught = self.with_body(|body| body.dfg.append_block_param(join.block, ir::Type::I1));
        let try_sig = self.cx.sig_of_types(&[ptr], self.cx.ty_void);
        self.emit_call_unwinding(
            try_sig,
            try_fn,
            ReturnSlot::Direct,
            &[data],
            Some((normal.block, pad.block)),
            false,
        );
        let zero = self.with_ins(|i| i.iconst(ir::Type::I1, 0));
        self.with_ins(|i| i.jump(join.block, &[zero]));
        self.switch_to_block(pad);
        let personality = self.cx.eh_personality();
        self.set_personality_fn(personality);
        let (exception, _) = self.with_ins(|i| i.landing_pad(true));
        let exception = self.wrap_ir(exception, ptr);
        let catch_sig = self.cx.sig_of_types(&[ptr, ptr], self.cx.ty_void);
        self.call(
            catch_sig,
            None,
            None,
            catch_fn,
            ReturnSlot::Direct,
            &[data, exception],
            None,
            None,
        );
        let one = self.with_ins(|i| i.iconst(ir::Type::I1, 1));
        self.with_ins(|i| i.jump(join.block, &[one]));
        self.switch_to_block(join);
        self.wrap_ir(caught, self.cx.ty_i1)
    }

    fn imm(&mut self, op: &OperandRef<'tcx, Value>) -> ir::Value {
        let v = op.immediate();
        self.ir_value(v)
    }

    /// `x` (an IR integer) as a `u32` shim value.
    fn u32_value(&mut self, x: ir::Value) -> Value {
        let t = self.func_value_type(x);
        let r = match t.bits().cmp(&32) {
            std::cmp::Ordering::Equal => x,
            std::cmp::Ordering::Greater => self.with_ins(|i| i.ireduce(ir::Type::I32, x)),
            std::cmp::Ordering::Less => self.with_ins(|i| i.uextend(ir::Type::I32, x)),
        };
        self.wrap_ir(r, self.cx.ty_i32)
    }

    pub(crate) fn saturating(
        &mut self,
        add: bool,
        signed: bool,
        a: ir::Value,
        b: ir::Value,
        ty: Type,
    ) -> Value {
        let t = self.func_value_type(a);
        let (r, o) = self.with_ins(|i| match (add, signed) {
            (true, true) => i.sadd_overflow(a, b),
            (true, false) => i.uadd_overflow(a, b),
            (false, true) => i.ssub_overflow(a, b),
            (false, false) => i.usub_overflow(a, b),
        });
        let bits = t.bits();
        let sat = if signed {
            let max = (1u128 << (bits - 1)) - 1;
            let min = 1u128 << (bits - 1);
            let vmax = self.with_ins(|i| i.iconst_u128(t, max));
            let vmin = self.with_ins(|i| i.iconst_u128(t, min));
            let zero = self.with_ins(|i| i.iconst(t, 0));
            let b_neg = self.with_ins(|i| i.icmp(ir::IntCC::Slt, b, zero));
            // Adding a negative number can only overflow downwards; subtracting one,
            // upwards.
            if add {
                self.with_ins(|i| i.select(b_neg, vmin, vmax))
            } else {
                self.with_ins(|i| i.select(b_neg, vmax, vmin))
            }
        } else if add {
            self.with_ins(|i| i.iconst_u128(t, t.mask()))
        } else {
            self.with_ins(|i| i.iconst(t, 0))
        };
        let res = self.with_ins(|i| i.select(o, sat, r));
        self.wrap_ir(res, ty)
    }

    /// Call the C function `name` with scalar arguments of the given types.
    pub fn call_c(&mut self, name: &str, args: &[Value], ret: Type) -> Value {
        let arg_tys: Vec<Type> = args.iter().map(|&a| self.cx.value(a).ty()).collect();
        let sig = self.cx.sig_of_types(&arg_tys, ret);
        let id = self.cx.declare_fn(name, sig, None);
        let callee = self.cx.sym_addr(&self.cx.func(id).name.clone());
        self.call(
            sig,
            None,
            None,
            callee,
            ReturnSlot::Direct,
            args,
            None,
            None,
        )
    }

    /// `memcmp(a, b, n) == 0` for `n` known bytes.
    fn bytes_equal(&mut self, a: Value, b: Value, n: u64) -> Value {
        if n == 0 {
            return self.cx.const_bool(true);
        }
        if n > 16 {
            let len = self.cx.const_usize(n);
            let r = self.call_c("memcmp", &[a, b, len], self.cx.ty_i32);
            let zero = self.cx.const_i32(0);
            return self.icmp(rustc_codegen_ssa::common::IntPredicate::IntEQ, r, zero);
        }
        // Compare piece by piece: or of the xors is zero.
        let pa = self.ir_value(a);
        let pb = self.ir_value(b);
        let mut acc: Option<ir::Value> = None;
        let mut done = 0;
        while done < n {
            let piece = 1u64 << (63 - (n - done).leading_zeros()).min(3);
            let t = ir::Type::int(piece as u32 * 8).unwrap();
            let off = self.with_ins(|i| i.iconst(ir::Type::I64, done as i64));
            let qa = self.with_ins(|i| i.ptradd(pa, off));
            let qb = self.with_ins(|i| i.ptradd(pb, off));
            let x = self.with_ins(|i| i.load(t, ir::MemFlags::new(), qa, 0));
            let y = self.with_ins(|i| i.load(t, ir::MemFlags::new(), qb, 0));
            let d = self.with_ins(|i| i.bxor(x, y));
            let d = if t == ir::Type::I64 {
                d
            } else {
                self.with_ins(|i| i.uextend(ir::Type::I64, d))
            };
            acc = Some(match acc {
                None => d,
                Some(a) => self.with_ins(|i| i.bor(a, d)),
            });
            done += piece;
        }
        let zero = self.with_ins(|i| i.iconst(ir::Type::I64, 0));
        let acc = acc.unwrap();
        let r = self.with_ins(|i| i.icmp(ir::IntCC::Eq, acc, zero));
        self.wrap_ir(r, self.cx.ty_i1)
    }

    pub(crate) fn float_libcall(&mut self, name: Symbol, ty: Ty<'tcx>) -> Option<&'static str> {
        let f32 = match ty.kind() {
            ty::Float(ty::FloatTy::F32) => true,
            ty::Float(ty::FloatTy::F64) => false,
            _ => return None,
        };
        Some(match name {
            sym::powf => {
                if f32 {
                    "powf"
                } else {
                    "pow"
                }
            }
            sym::powi => {
                if f32 {
                    "__powisf2"
                } else {
                    "__powidf2"
                }
            }
            sym::exp => {
                if f32 {
                    "expf"
                } else {
                    "exp"
                }
            }
            sym::exp2 => {
                if f32 {
                    "exp2f"
                } else {
                    "exp2"
                }
            }
            sym::log => {
                if f32 {
                    "logf"
                } else {
                    "log"
                }
            }
            sym::log10 => {
                if f32 {
                    "log10f"
                } else {
                    "log10"
                }
            }
            sym::log2 => {
                if f32 {
                    "log2f"
                } else {
                    "log2"
                }
            }
            sym::sin => {
                if f32 {
                    "sinf"
                } else {
                    "sin"
                }
            }
            sym::cos => {
                if f32 {
                    "cosf"
                } else {
                    "cos"
                }
            }
            _ => return None,
        })
    }
}

impl<'a, 'tcx> IntrinsicCallBuilderMethods<'tcx> for Builder<'a, 'tcx> {
    fn codegen_intrinsic_call(
        &mut self,
        instance: Instance<'tcx>,
        args: &[OperandRef<'tcx, Value>],
        result_layout: TyAndLayout<'tcx>,
        result_place: Option<PlaceValue<Value>>,
        span: Span,
    ) -> IntrinsicResult<'tcx, Value> {
        let tcx = self.cx.tcx;
        let name = tcx.item_name(instance.def_id());
        let result_ty = self.cx.immediate_backend_type(result_layout);
        let arg_ty = args.first().map(|a| a.layout.ty);
        let value = match name {
            sym::ctpop | sym::ctlz | sym::ctlz_nonzero | sym::cttz | sym::cttz_nonzero => {
                let x = self.imm(&args[0]);
                let r = self.with_ins(|i| match name {
                    sym::ctpop => i.popcnt(x),
                    sym::ctlz | sym::ctlz_nonzero => i.clz(x),
                    _ => i.ctz(x),
                });
                self.u32_value(r)
            }
            sym::bswap | sym::bitreverse => {
                let x = self.imm(&args[0]);
                let t = self.func_value_type(x);
                let r = if name == sym::bswap && t.bits() == 8 {
                    x
                } else if name == sym::bswap {
                    self.with_ins(|i| i.bswap(x))
                } else {
                    self.with_ins(|i| i.bitrev(x))
                };
                self.wrap_ir(r, result_ty)
            }
            sym::rotate_left | sym::rotate_right if int_width_signed(arg_ty.unwrap()).is_some() => {
                let x = self.imm(&args[0]);
                let s = self.imm(&args[1]);
                let t = self.func_value_type(x);
                let st = self.func_value_type(s);
                let s = if st == t {
                    s
                } else if st.bits() > t.bits() {
                    self.with_ins(|i| i.ireduce(t, s))
                } else {
                    self.with_ins(|i| i.uextend(t, s))
                };
                let r = self.with_ins(|i| {
                    if name == sym::rotate_left {
                        i.rotl(x, s)
                    } else {
                        i.rotr(x, s)
                    }
                });
                self.wrap_ir(r, result_ty)
            }
            sym::saturating_add | sym::saturating_sub => {
                let Some((_, signed)) = int_width_signed(arg_ty.unwrap()) else {
                    return IntrinsicResult::Fallback(Instance::new_raw(
                        instance.def_id(),
                        instance.args,
                    ));
                };
                let a = self.imm(&args[0]);
                let b = self.imm(&args[1]);
                self.saturating(name == sym::saturating_add, signed, a, b, result_ty)
            }
            // f16 and f128 are held as their bits: the sign-bit operations are integer
            // ones; the rest of their intrinsics fall back or are refused below.
            sym::fabs | sym::copysignf16 | sym::copysignf128
                if self.soft_float_bits(result_ty).is_some() =>
            {
                let bits = self.soft_float_bits(result_ty).unwrap();
                let sign = 1u128 << (bits - 1);
                let x = args[0].immediate();
                let magnitude = self.cx.const_uint_big(result_ty, !sign);
                let abs = self.and(x, magnitude);
                if name == sym::fabs {
                    abs
                } else {
                    let y = args[1].immediate();
                    let sign = self.cx.const_uint_big(result_ty, sign);
                    let sign = self.and(y, sign);
                    self.or(abs, sign)
                }
            }
            sym::fabs
            | sym::sqrt
            | sym::floor
            | sym::ceil
            | sym::trunc
            | sym::round
            | sym::round_ties_even
                if matches!(
                    arg_ty.unwrap().kind(),
                    ty::Float(ty::FloatTy::F32 | ty::FloatTy::F64)
                ) =>
            {
                let x = self.imm(&args[0]);
                let r = self.with_ins(|i| match name {
                    sym::fabs => i.fabs(x),
                    sym::sqrt => i.sqrt(x),
                    sym::floor => i.floor(x),
                    sym::ceil => i.ceil(x),
                    sym::trunc => i.trunc(x),
                    sym::round => i.round(x),
                    _ => i.nearest(x),
                });
                self.wrap_ir(r, result_ty)
            }
            sym::fma | sym::fmuladd
                if matches!(
                    arg_ty.unwrap().kind(),
                    ty::Float(ty::FloatTy::F32 | ty::FloatTy::F64)
                ) =>
            {
                let a = self.imm(&args[0]);
                let b = self.imm(&args[1]);
                let c = self.imm(&args[2]);
                let r = self.with_ins(|i| i.fma(a, b, c));
                self.wrap_ir(r, result_ty)
            }
            sym::copysignf32 | sym::copysignf64 => {
                let a = self.imm(&args[0]);
                let b = self.imm(&args[1]);
                let r = self.with_ins(|i| i.fcopysign(a, b));
                self.wrap_ir(r, result_ty)
            }
            // IEEE minimumNumber/maximumNumber without a signed-zero guarantee: the IR's
            // `fmin`/`fmax` (Rust's `f64::min`/`max`).
            _ if matches!(
                name.as_str(),
                "minimum_number_nsz_f32"
                    | "minimum_number_nsz_f64"
                    | "maximum_number_nsz_f32"
                    | "maximum_number_nsz_f64"
                    | "minnumf32"
                    | "minnumf64"
                    | "maxnumf32"
                    | "maxnumf64"
            ) =>
            {
                let a = self.imm(&args[0]);
                let b = self.imm(&args[1]);
                let min = name.as_str().starts_with("min");
                let r = self.with_ins(|i| if min { i.fmin(a, b) } else { i.fmax(a, b) });
                self.wrap_ir(r, result_ty)
            }
            sym::powf
            | sym::powi
            | sym::exp
            | sym::exp2
            | sym::log
            | sym::log10
            | sym::log2
            | sym::sin
            | sym::cos
                if self.float_libcall(name, arg_ty.unwrap()).is_some() =>
            {
                let f = self.float_libcall(name, arg_ty.unwrap()).unwrap();
                let vals: Vec<Value> = args.iter().map(|a| a.immediate()).collect();
                self.call_c(f, &vals, result_ty)
            }
            sym::raw_eq => {
                let size = self.cx.layout_of_ty(instance.args.type_at(0)).size.bytes();
                let (a, b) = (args[0].immediate(), args[1].immediate());
                self.bytes_equal(a, b, size)
            }
            sym::compare_bytes => {
                let vals: Vec<Value> = args.iter().map(|a| a.immediate()).collect();
                self.call_c("memcmp", &vals, self.cx.ty_i32)
            }
            sym::black_box => {
                // No pass looks through values yet, so the identity is opaque enough.
                // (A later optimizer must treat this as an unknown use and definition.)
                return IntrinsicResult::Operand(args[0].val);
            }
            sym::volatile_load | sym::unaligned_volatile_load => {
                let ptr = args[0].immediate();
                let align = if name == sym::volatile_load {
                    result_layout.align.abi
                } else {
                    rustc_abi::Align::ONE
                };
                if result_layout.is_zst() {
                    return IntrinsicResult::Operand(OperandValue::ZeroSized);
                }
                match result_layout.backend_repr {
                    BackendRepr::Scalar(s) => {
                        let ty = self.cx.backend_type(result_layout);
                        let v = self.volatile_load(ty, ptr, align);
                        self.to_immediate_scalar(v, s)
                    }
                    BackendRepr::ScalarPair { .. } => {
                        let v = self.volatile_load_pair(result_layout, ptr, align);
                        return IntrinsicResult::Operand(v);
                    }
                    // scalarized: each lane a volatile load
                    BackendRepr::SimdVector { .. } => {
                        let ty = self.cx.backend_type(result_layout);
                        self.volatile_load(ty, ptr, align)
                    }
                    BackendRepr::Memory { .. } => {
                        // The bytes, volatile, into the result's place (or a temporary),
                        // as LLVM's one `iN` load and store.
                        let dest = result_place.unwrap_or_else(|| {
                            PlaceValue::alloca(self, result_layout.size, result_layout.align.abi)
                        });
                        let d = self.ir_value(dest.llval);
                        let s = self.ir_value(ptr);
                        let size = result_layout.size.bytes();
                        self.copy_bytes_volatile(d, dest.align, s, align, size, true, false);
                        return match result_place {
                            Some(_) => IntrinsicResult::WroteIntoPlace,
                            None => IntrinsicResult::Operand(OperandValue::Ref(dest)),
                        };
                    }
                    BackendRepr::SimdScalableVector { .. } => self
                        .cx
                        .unsupported(Some(self.func), "volatile loads of scalable vectors"),
                }
            }
            sym::ptr_mask => {
                let p = args[0].immediate();
                let m = args[1].immediate();
                let a = self.ptrtoint(p, self.cx.ty_i64);
                let a = self.and(a, m);
                self.inttoptr(a, self.cx.ty_ptr)
            }
            sym::is_val_statically_known => self.cx.const_bool(false),
            sym::prefetch_read_data
            | sym::prefetch_write_data
            | sym::prefetch_read_instruction
            | sym::prefetch_write_instruction => {
                return IntrinsicResult::Operand(OperandValue::ZeroSized);
            }
            sym::catch_unwind => self.catch_unwind(
                args[0].immediate(),
                args[1].immediate(),
                args[2].immediate(),
            ),
            _ if name.as_str().starts_with("simd_") => {
                match self.simd_intrinsic(name, instance, args, result_layout) {
                    Some(v) => return IntrinsicResult::Operand(v),
                    None => self
                        .cx
                        .unsupported(Some(self.func), &format!("the SIMD intrinsic `{name}`")),
                }
            }
            _ => {
                let must_override = tcx
                    .intrinsic(instance.def_id())
                    .is_some_and(|i| i.must_be_overridden);
                if must_override {
                    tcx.dcx().span_fatal(
                        span,
                        format!(
                            "the VLIW backend does not support the intrinsic `{name}` (in {})",
                            self.cx.describe_fn(self.func)
                        ),
                    );
                }
                return IntrinsicResult::Fallback(Instance::new_raw(
                    instance.def_id(),
                    instance.args,
                ));
            }
        };
        IntrinsicResult::Operand(OperandValue::Immediate(value))
    }

    fn codegen_llvm_intrinsic_call(
        &mut self,
        instance: Instance<'tcx>,
        _args: &[OperandRef<'tcx, Value>],
        _is_cleanup: bool,
    ) -> Value {
        let name = self.cx.tcx.symbol_name(instance).name;
        self.cx
            .unsupported(Some(self.func), &format!("LLVM intrinsics (`{name}`)"))
    }

    fn abort_immediate(&mut self) {
        self.with_ins(|i| i.trap(trap_code::ABORT));
    }

    fn assume(&mut self, _val: Value) {}

    fn expect(&mut self, cond: Value, _expected: bool) -> Value {
        cond
    }

    fn ctpop(&mut self, val: Value) -> Value {
        let x = self.ir_value(val);
        let r = self.with_ins(|i| i.popcnt(x));
        self.u32_value(r)
    }

    fn type_checked_load(
        &mut self,
        _llvtable: Value,
        _vtable_byte_offset: u64,
        _typeid: &[u8],
    ) -> Value {
        self.cx.unsupported(
            Some(self.func),
            "control-flow integrity (type-checked vtable loads)",
        )
    }

    fn va_start(&mut self, _val: Value) {
        self.cx.unsupported(
            Some(self.func),
            "C-variadic function definitions (`va_start`)",
        )
    }

    fn retag_mem(&mut self, _place: Value, _info: &RetagInfo<Value>) {}

    fn retag_reg(&mut self, ptr: Value, _info: &RetagInfo<Value>) -> Value {
        ptr
    }
}

impl<'tcx> crate::context::CodegenCx<'tcx> {
    pub fn layout_of_ty(&self, ty: Ty<'tcx>) -> TyAndLayout<'tcx> {
        use rustc_middle::ty::layout::LayoutOf;
        self.layout_of(ty)
    }
}
