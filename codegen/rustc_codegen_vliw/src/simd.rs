//! SIMD by scalarization: the `simd_*` intrinsics.
//!
//! The machine has no vector registers. A SIMD vector (`BackendRepr::SimdVector`,
//! `#[repr(simd)]`) of N lanes of a scalar type is, as a value, an aggregate of its N
//! lane values (`values.rs`); in memory its lanes are contiguous, as rustc's layout
//! says. Loads and stores of vectors are one load or store per lane, extracting,
//! inserting, splatting and shuffling lanes only rearrange lane values, and every
//! `simd_*` intrinsic becomes scalar code per lane (as rustc_codegen_cranelift does).
//! rustc_codegen_ssa handles no `simd_*` intrinsic itself: they all come here.

use rustc_abi::{Align, BackendRepr, Size};
use rustc_codegen_ssa::common::{IntPredicate, RealPredicate};
use rustc_codegen_ssa::mir::operand::{OperandRef, OperandValue};
use rustc_codegen_ssa::mir::place::PlaceValue;
use rustc_codegen_ssa::traits::{BuilderMethods, ConstCodegenMethods, LayoutTypeCodegenMethods};
use rustc_middle::ty::layout::TyAndLayout;
use rustc_middle::ty::{self, Instance, Ty};
use rustc_span::{Symbol, bug, sym};
use vliw_ir as ir;

use crate::builder::Builder;
use crate::types::Type;
use crate::values::{Value, ValueData};

/// What a lane is.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Lane {
    Int { signed: bool },
    Float,
    Ptr,
}

fn lane_kind(ty: Ty<'_>) -> Option<Lane> {
    Some(match ty.kind() {
        ty::Int(_) => Lane::Int { signed: true },
        ty::Uint(_) => Lane::Int { signed: false },
        ty::Float(ty::FloatTy::F32 | ty::FloatTy::F64) => Lane::Float,
        ty::RawPtr(..) => Lane::Ptr,
        _ => return None,
    })
}

impl<'a, 'tcx> Builder<'a, 'tcx> {
    /// Store vector `v` in a fresh stack slot; its address.
    fn vector_in_slot(&mut self, v: Value) -> Value {
        let ty = self.cx.value(v).ty();
        let (size, align) = {
            let t = self.cx.types.borrow();
            (t.size(ty), t.align(ty))
        };
        let align = Align::from_bytes(align).unwrap();
        let slot = self.alloca(Size::from_bytes(size.max(1)), align);
        self.store(v, slot, align);
        slot
    }

    /// The address of lane `idx` (a dynamic index) of the vector at `base`.
    fn lane_addr(&mut self, base: Value, elem: Type, idx: Value) -> Value {
        let size = self.cx.types.borrow().size(elem);
        let idx = self.intcast(idx, self.cx.ty_i64, false);
        let size = self.cx.const_usize(size);
        let off = self.mul(idx, size);
        let p = self.ir_value(base);
        let o = self.ir_value(off);
        let r = self.with_ins(|i| i.ptradd(p, o));
        self.wrap_ir(r, self.cx.ty_ptr)
    }

    /// `vec[idx]` for a dynamic index (through memory).
    pub fn extract_element_dyn(&mut self, vec: Value, idx: Value) -> Value {
        let (elem, _) = self.vector_of(self.cx.value(vec).ty()).unwrap();
        let slot = self.vector_in_slot(vec);
        let p = self.lane_addr(slot, elem, idx);
        let align = Align::from_bytes(self.cx.types.borrow().align(elem)).unwrap();
        self.load(elem, p, align)
    }

    /// `vec` with lane `idx` (a dynamic index) replaced by `elt` (through memory).
    fn insert_element_dyn(&mut self, vec: Value, elt: Value, idx: Value) -> Value {
        let ty = self.cx.value(vec).ty();
        let (elem, _) = self.vector_of(ty).unwrap();
        let slot = self.vector_in_slot(vec);
        let p = self.lane_addr(slot, elem, idx);
        let eal = Align::from_bytes(self.cx.types.borrow().align(elem)).unwrap();
        self.store(elt, p, eal);
        let align = Align::from_bytes(self.cx.types.borrow().align(ty)).unwrap();
        self.load(ty, slot, align)
    }

    /// Whether a mask lane is set (its most significant bit, as LLVM reads masks).
    fn mask_lane_set(&mut self, x: Value) -> Value {
        let zero = self.cx.const_int(self.cx.value(x).ty(), 0);
        self.icmp(IntPredicate::IntSLT, x, zero)
    }

    /// The lanes of a vector operand: an immediate, or in memory (rustc lays out
    /// vectors of a lane count that is not a power of two as `Memory`).
    fn vec_lanes(&mut self, op: &OperandRef<'tcx, Value>) -> Vec<Value> {
        match op.val {
            OperandValue::Immediate(v) => self.lanes(v),
            OperandValue::Ref(place) if op.layout.ty.is_simd() => {
                let (n, ety) = op.layout.ty.simd_size_and_type(self.cx.tcx);
                let el = self.cx.layout_of_ty(ety);
                let elem = self.cx.immediate_backend_type(el);
                let base = self.ir_value(place.llval);
                (0..n)
                    .map(|i| {
                        let off = Size::from_bytes(i * el.size.bytes());
                        let p = self.with_ins(|ins| ins.iconst(ir::Type::I64, off.bytes() as i64));
                        let p = self.with_ins(|ins| ins.ptradd(base, p));
                        let p = self.wrap_ir(p, self.cx.ty_ptr);
                        self.load(elem, p, place.align.restrict_for_offset(off))
                    })
                    .collect()
            }
            _ => bug!("vector operand {:?}", op),
        }
    }

    /// A vector operand as a vector value.
    fn vec_value(&mut self, op: &OperandRef<'tcx, Value>) -> Value {
        let lanes = self.vec_lanes(op);
        self.make_vector(lanes)
    }

    /// The constant integer of `v` (an index argument).
    fn const_index(&self, v: Value) -> Option<u64> {
        match self.cx.value(v) {
            ValueData::Int { bits, .. } => Some(bits as u64),
            _ => None,
        }
    }

    /// A bitmask argument (an unsigned integer or a `[u8; N]`): whether bit `i` is set,
    /// for each of `n` lanes.
    fn bitmask_bits(&mut self, op: &OperandRef<'tcx, Value>, n: u64) -> Vec<Value> {
        match op.val {
            OperandValue::Immediate(m) => {
                let mty = self.cx.value(m).ty();
                (0..n)
                    .map(|i| {
                        let sh = self.cx.const_int(mty, i as i64);
                        let x = self.lshr(m, sh);
                        let one = self.cx.const_int(mty, 1);
                        let x = self.and(x, one);
                        let zero = self.cx.const_int(mty, 0);
                        self.icmp(IntPredicate::IntNE, x, zero)
                    })
                    .collect()
            }
            OperandValue::Ref(place) => (0..n)
                .map(|i| {
                    let off = self.cx.const_usize(i / 8);
                    let p = self.inbounds_gep(self.cx.ty_i8, place.llval, &[off]);
                    let byte = self.load(self.cx.ty_i8, p, Align::ONE);
                    let sh = self.cx.const_int(self.cx.ty_i8, (i % 8) as i64);
                    let x = self.lshr(byte, sh);
                    let one = self.cx.const_int(self.cx.ty_i8, 1);
                    let x = self.and(x, one);
                    let zero = self.cx.const_int(self.cx.ty_i8, 0);
                    self.icmp(IntPredicate::IntNE, x, zero)
                })
                .collect(),
            _ => self
                .cx
                .unsupported(Some(self.func), "this SIMD bitmask argument"),
        }
    }

    fn lane_compare(&mut self, name: Symbol, kind: Lane, a: Value, b: Value) -> Value {
        use IntPredicate::*;
        use RealPredicate::*;
        if kind == Lane::Float {
            let op = match name {
                sym::simd_eq => RealOEQ,
                sym::simd_ne => RealUNE,
                sym::simd_lt => RealOLT,
                sym::simd_le => RealOLE,
                sym::simd_gt => RealOGT,
                _ => RealOGE,
            };
            return self.fcmp(op, a, b);
        }
        let signed = kind == Lane::Int { signed: true };
        let op = match (name, signed) {
            (sym::simd_eq, _) => IntEQ,
            (sym::simd_ne, _) => IntNE,
            (sym::simd_lt, true) => IntSLT,
            (sym::simd_lt, false) => IntULT,
            (sym::simd_le, true) => IntSLE,
            (sym::simd_le, false) => IntULE,
            (sym::simd_gt, true) => IntSGT,
            (sym::simd_gt, false) => IntUGT,
            (_, true) => IntSGE,
            (_, false) => IntUGE,
        };
        self.icmp(op, a, b)
    }

    /// Lane conversion for `simd_cast` and `simd_as` (`sat`: float to int saturates;
    /// the machine's conversions saturate anyway).
    fn lane_cast(&mut self, x: Value, from: Lane, to: Lane, to_ty: Type) -> Value {
        match (from, to) {
            (Lane::Int { signed }, Lane::Int { .. }) => self.intcast(x, to_ty, signed),
            (Lane::Int { signed: true }, Lane::Float) => self.sitofp(x, to_ty),
            (Lane::Int { signed: false }, Lane::Float) => self.uitofp(x, to_ty),
            (Lane::Float, Lane::Int { signed: true }) => self.fptosi_sat(x, to_ty),
            (Lane::Float, Lane::Int { signed: false }) => self.fptoui_sat(x, to_ty),
            (Lane::Float, Lane::Float) => {
                let from_bits = self.cx.types.borrow().size(self.cx.value(x).ty());
                let to_bits = self.cx.types.borrow().size(to_ty);
                match from_bits.cmp(&to_bits) {
                    std::cmp::Ordering::Less => self.fpext(x, to_ty),
                    std::cmp::Ordering::Greater => self.fptrunc(x, to_ty),
                    std::cmp::Ordering::Equal => x,
                }
            }
            (Lane::Ptr, Lane::Ptr) => x,
            (Lane::Ptr, Lane::Int { .. }) => self.ptrtoint(x, to_ty),
            (Lane::Int { .. }, Lane::Ptr) => self.inttoptr(x, to_ty),
            _ => self
                .cx
                .unsupported(Some(self.func), "this SIMD lane conversion"),
        }
    }

    fn ir_unary(
        &mut self,
        x: Value,
        f: impl FnOnce(ir::InstBuilder<'_, '_>, ir::Value) -> ir::Value,
    ) -> Value {
        let ty = self.cx.value(x).ty();
        let v = self.ir_value(x);
        let r = self.with_ins(|i| f(i, v));
        self.wrap_ir(r, ty)
    }

    /// A `simd_*` intrinsic, lane by lane. `None`: not one the backend implements.
    pub fn simd_intrinsic(
        &mut self,
        name: Symbol,
        instance: Instance<'tcx>,
        args: &[OperandRef<'tcx, Value>],
        result_layout: TyAndLayout<'tcx>,
    ) -> Option<OperandValue<Value>> {
        let tcx = self.cx.tcx;
        let rty = self.cx.immediate_backend_type(result_layout);
        let rvec = self.vector_of(rty);
        let in_elem = |i: usize| -> Option<(u64, Ty<'tcx>)> {
            let t = args.get(i)?.layout.ty;
            t.is_simd().then(|| t.simd_size_and_type(tcx))
        };
        let kind0 = in_elem(0).and_then(|(_, t)| lane_kind(t));
        let unsupported = |bx: &Self| -> ! {
            bx.cx.unsupported(
                Some(bx.func),
                &format!("the SIMD intrinsic `{name}` for these types"),
            )
        };
        let vector = |bx: &mut Self, lanes: Vec<Value>| -> OperandValue<Value> {
            match bx.vector_of(rty) {
                Some((_, n)) if n == lanes.len() as u64 => {
                    OperandValue::Immediate(bx.cx.aggregate(rty, lanes))
                }
                // A vector laid out as memory: its lanes in a stack slot.
                _ if result_layout.ty.is_simd()
                    && matches!(result_layout.backend_repr, BackendRepr::Memory { .. }) =>
                {
                    let v = bx.make_vector(lanes);
                    let align = result_layout.align.abi;
                    let slot = bx.alloca(result_layout.size, align);
                    bx.store(v, slot, align);
                    OperandValue::Ref(PlaceValue::new_sized(slot, align))
                }
                _ => bx.cx.unsupported(
                    Some(bx.func),
                    &format!(
                        "the SIMD intrinsic `{name}` returning `{}`",
                        result_layout.ty
                    ),
                ),
            }
        };

        let value = match name {
            sym::simd_add
            | sym::simd_sub
            | sym::simd_mul
            | sym::simd_div
            | sym::simd_rem
            | sym::simd_shl
            | sym::simd_shr
            | sym::simd_and
            | sym::simd_or
            | sym::simd_xor
            | sym::simd_minimum_number_nsz
            | sym::simd_maximum_number_nsz
            | sym::simd_saturating_add
            | sym::simd_saturating_sub => {
                let kind = kind0.unwrap_or_else(|| unsupported(self));
                let xs = self.vec_lanes(&args[0]);
                let ys = self.vec_lanes(&args[1]);
                let mut out = Vec::with_capacity(xs.len());
                for (x, y) in xs.into_iter().zip(ys) {
                    let r = match (name, kind) {
                        (sym::simd_add, Lane::Float) => self.fadd(x, y),
                        (sym::simd_add, Lane::Int { .. }) => self.add(x, y),
                        (sym::simd_sub, Lane::Float) => self.fsub(x, y),
                        (sym::simd_sub, Lane::Int { .. }) => self.sub(x, y),
                        (sym::simd_mul, Lane::Float) => self.fmul(x, y),
                        (sym::simd_mul, Lane::Int { .. }) => self.mul(x, y),
                        (sym::simd_div, Lane::Float) => self.fdiv(x, y),
                        (sym::simd_div, Lane::Int { signed: true }) => self.sdiv(x, y),
                        (sym::simd_div, Lane::Int { signed: false }) => self.udiv(x, y),
                        (sym::simd_rem, Lane::Float) => self.frem(x, y),
                        (sym::simd_rem, Lane::Int { signed: true }) => self.srem(x, y),
                        (sym::simd_rem, Lane::Int { signed: false }) => self.urem(x, y),
                        (sym::simd_shl, Lane::Int { .. }) => self.shl(x, y),
                        (sym::simd_shr, Lane::Int { signed: true }) => self.ashr(x, y),
                        (sym::simd_shr, Lane::Int { signed: false }) => self.lshr(x, y),
                        (sym::simd_and, Lane::Int { .. }) => self.and(x, y),
                        (sym::simd_or, Lane::Int { .. }) => self.or(x, y),
                        (sym::simd_xor, Lane::Int { .. }) => self.xor(x, y),
                        (
                            sym::simd_minimum_number_nsz | sym::simd_maximum_number_nsz,
                            Lane::Float,
                        ) => {
                            let ty = self.cx.value(x).ty();
                            let a = self.ir_value(x);
                            let b = self.ir_value(y);
                            let min = name == sym::simd_minimum_number_nsz;
                            let r =
                                self.with_ins(|i| if min { i.fmin(a, b) } else { i.fmax(a, b) });
                            self.wrap_ir(r, ty)
                        }
                        (
                            sym::simd_saturating_add | sym::simd_saturating_sub,
                            Lane::Int { signed },
                        ) => {
                            let ty = self.cx.value(x).ty();
                            let a = self.ir_value(x);
                            let b = self.ir_value(y);
                            self.saturating(name == sym::simd_saturating_add, signed, a, b, ty)
                        }
                        _ => unsupported(self),
                    };
                    out.push(r);
                }
                vector(self, out)
            }
            sym::simd_funnel_shl | sym::simd_funnel_shr => {
                let Some(Lane::Int { .. }) = kind0 else {
                    unsupported(self)
                };
                let xs = self.vec_lanes(&args[0]);
                let ys = self.vec_lanes(&args[1]);
                let ss = self.vec_lanes(&args[2]);
                let mut out = Vec::new();
                for ((x, y), s) in xs.into_iter().zip(ys).zip(ss) {
                    let ty = self.cx.value(x).ty();
                    let bits = self.cx.types.borrow().size(ty) as i64 * 8;
                    let m = self.cx.const_int(ty, bits - 1);
                    let s = self.and(s, m);
                    let inv = self.sub(m, s);
                    let one = self.cx.const_int(ty, 1);
                    // shl: (x << s) | ((y >> 1) >> (bits-1-s)); shr: ((x << 1) << (bits-1-s)) | (y >> s)
                    let r = if name == sym::simd_funnel_shl {
                        let a = self.shl(x, s);
                        let b = self.lshr(y, one);
                        let b = self.lshr(b, inv);
                        self.or(a, b)
                    } else {
                        let a = self.shl(x, one);
                        let a = self.shl(a, inv);
                        let b = self.lshr(y, s);
                        self.or(a, b)
                    };
                    out.push(r);
                }
                vector(self, out)
            }
            sym::simd_neg => {
                let xs = self.vec_lanes(&args[0]);
                let out = match kind0 {
                    Some(Lane::Float) => xs.into_iter().map(|x| self.fneg(x)).collect(),
                    Some(Lane::Int { .. }) => xs.into_iter().map(|x| self.neg(x)).collect(),
                    _ => unsupported(self),
                };
                vector(self, out)
            }
            sym::simd_fabs
            | sym::simd_fsqrt
            | sym::simd_ceil
            | sym::simd_floor
            | sym::simd_round
            | sym::simd_round_ties_even
            | sym::simd_trunc => {
                if kind0 != Some(Lane::Float) {
                    unsupported(self)
                }
                let xs = self.vec_lanes(&args[0]);
                let out = xs
                    .into_iter()
                    .map(|x| {
                        self.ir_unary(x, |i, v| match name {
                            sym::simd_fabs => i.fabs(v),
                            sym::simd_fsqrt => i.sqrt(v),
                            sym::simd_ceil => i.ceil(v),
                            sym::simd_floor => i.floor(v),
                            sym::simd_round => i.round(v),
                            sym::simd_round_ties_even => i.nearest(v),
                            _ => i.trunc(v),
                        })
                    })
                    .collect();
                vector(self, out)
            }
            sym::simd_fsin
            | sym::simd_fcos
            | sym::simd_fexp
            | sym::simd_fexp2
            | sym::simd_flog
            | sym::simd_flog10
            | sym::simd_flog2 => {
                let (_, ety) = in_elem(0).unwrap_or_else(|| unsupported(self));
                let scalar = match name {
                    sym::simd_fsin => sym::sin,
                    sym::simd_fcos => sym::cos,
                    sym::simd_fexp => sym::exp,
                    sym::simd_fexp2 => sym::exp2,
                    sym::simd_flog => sym::log,
                    sym::simd_flog10 => sym::log10,
                    _ => sym::log2,
                };
                let f = self
                    .float_libcall(scalar, ety)
                    .unwrap_or_else(|| unsupported(self));
                let xs = self.vec_lanes(&args[0]);
                let out = xs
                    .into_iter()
                    .map(|x| {
                        let ty = self.cx.value(x).ty();
                        self.call_c(f, &[x], ty)
                    })
                    .collect();
                vector(self, out)
            }
            sym::simd_fma | sym::simd_relaxed_fma => {
                if kind0 != Some(Lane::Float) {
                    unsupported(self)
                }
                let xs = self.vec_lanes(&args[0]);
                let ys = self.vec_lanes(&args[1]);
                let zs = self.vec_lanes(&args[2]);
                let mut out = Vec::new();
                for i in 0..xs.len() {
                    let ty = self.cx.value(xs[i]).ty();
                    let a = self.ir_value(xs[i]);
                    let b = self.ir_value(ys[i]);
                    let c = self.ir_value(zs[i]);
                    let r = self.with_ins(|ins| ins.fma(a, b, c));
                    out.push(self.wrap_ir(r, ty));
                }
                vector(self, out)
            }
            sym::simd_bswap
            | sym::simd_bitreverse
            | sym::simd_ctlz
            | sym::simd_cttz
            | sym::simd_ctpop => {
                let Some(Lane::Int { .. }) = kind0 else {
                    unsupported(self)
                };
                let xs = self.vec_lanes(&args[0]);
                let out = xs
                    .into_iter()
                    .map(|x| {
                        let bits = self.cx.types.borrow().size(self.cx.value(x).ty()) * 8;
                        if name == sym::simd_bswap && bits == 8 {
                            return x;
                        }
                        self.ir_unary(x, |i, v| match name {
                            sym::simd_bswap => i.bswap(v),
                            sym::simd_bitreverse => i.bitrev(v),
                            sym::simd_ctlz => i.clz(v),
                            sym::simd_cttz => i.ctz(v),
                            _ => i.popcnt(v),
                        })
                    })
                    .collect();
                vector(self, out)
            }
            sym::simd_eq
            | sym::simd_ne
            | sym::simd_lt
            | sym::simd_le
            | sym::simd_gt
            | sym::simd_ge => {
                let kind = kind0.unwrap_or_else(|| unsupported(self));
                let (relem, _) = rvec.unwrap_or_else(|| unsupported(self));
                let xs = self.vec_lanes(&args[0]);
                let ys = self.vec_lanes(&args[1]);
                let mut out = Vec::new();
                for (x, y) in xs.into_iter().zip(ys) {
                    let c = self.lane_compare(name, kind, x, y);
                    // true: all ones.
                    let ones = self.cx.const_int(relem, -1);
                    let zero = self.cx.const_int(relem, 0);
                    out.push(self.select(c, ones, zero));
                }
                vector(self, out)
            }
            sym::simd_cast
            | sym::simd_as
            | sym::simd_cast_ptr
            | sym::simd_expose_provenance
            | sym::simd_with_exposed_provenance => {
                let from = kind0.unwrap_or_else(|| unsupported(self));
                let rt = result_layout.ty.simd_size_and_type(tcx).1;
                let to = lane_kind(rt).unwrap_or_else(|| unsupported(self));
                let (relem, _) = rvec.unwrap_or_else(|| unsupported(self));
                let xs = self.vec_lanes(&args[0]);
                let out = xs
                    .into_iter()
                    .map(|x| self.lane_cast(x, from, to, relem))
                    .collect();
                vector(self, out)
            }
            sym::simd_shuffle => {
                let xs = self.vec_lanes(&args[0]);
                let ys = self.vec_lanes(&args[1]);
                let all: Vec<Value> = xs.into_iter().chain(ys).collect();
                let idx = self.vec_lanes(&args[2]);
                let mut out = Vec::new();
                for i in idx {
                    let Some(k) = self.const_index(i) else {
                        self.cx.unsupported(
                            Some(self.func),
                            "`simd_shuffle` with indices that are not constants",
                        )
                    };
                    out.push(all[k as usize]);
                }
                vector(self, out)
            }
            sym::simd_insert | sym::simd_insert_dyn => {
                let v = self.vec_value(&args[0]);
                let idx = args[1].immediate();
                let elt = args[2].immediate();
                match self.const_index(idx) {
                    Some(k) => {
                        let mut lanes = self.lanes(v);
                        if let Some(l) = lanes.get_mut(k as usize) {
                            *l = elt;
                        }
                        vector(self, lanes)
                    }
                    None => {
                        let v = self.insert_element_dyn(v, elt, idx);
                        let lanes = self.lanes(v);
                        vector(self, lanes)
                    }
                }
            }
            sym::simd_extract | sym::simd_extract_dyn => {
                let v = self.vec_value(&args[0]);
                let idx = args[1].immediate();
                OperandValue::Immediate(self.extract_element(v, idx))
            }
            sym::simd_splat => {
                let (_, n) = rvec.unwrap_or_else(|| unsupported(self));
                let x = args[0].immediate();
                vector(self, vec![x; n as usize])
            }
            sym::simd_select => {
                let ms = self.vec_lanes(&args[0]);
                let xs = self.vec_lanes(&args[1]);
                let ys = self.vec_lanes(&args[2]);
                let mut out = Vec::new();
                for i in 0..ms.len() {
                    let c = self.mask_lane_set(ms[i]);
                    out.push(self.select(c, xs[i], ys[i]));
                }
                vector(self, out)
            }
            sym::simd_select_bitmask => {
                let xs = self.vec_lanes(&args[1]);
                let ys = self.vec_lanes(&args[2]);
                let bits = self.bitmask_bits(&args[0], xs.len() as u64);
                let mut out = Vec::new();
                for i in 0..xs.len() {
                    out.push(self.select(bits[i], xs[i], ys[i]));
                }
                vector(self, out)
            }
            sym::simd_bitmask => {
                let xs = self.vec_lanes(&args[0]);
                let set: Vec<Value> = xs.into_iter().map(|x| self.mask_lane_set(x)).collect();
                match result_layout.backend_repr {
                    BackendRepr::Scalar(_) => {
                        let mut acc = self.cx.const_int(rty, 0);
                        for (i, s) in set.into_iter().enumerate() {
                            let b = self.intcast(s, rty, false);
                            let sh = self.cx.const_int(rty, i as i64);
                            let b = self.shl(b, sh);
                            acc = self.or(acc, b);
                        }
                        OperandValue::Immediate(acc)
                    }
                    _ => {
                        // `[u8; N]`: build the bytes in a stack slot.
                        let nbytes = result_layout.size.bytes();
                        let slot = self.alloca(result_layout.size, result_layout.align.abi);
                        for byte in 0..nbytes {
                            let mut acc = self.cx.const_int(self.cx.ty_i8, 0);
                            for bit in 0..8 {
                                let Some(&s) = set.get((byte * 8 + bit) as usize) else {
                                    break;
                                };
                                let b = self.intcast(s, self.cx.ty_i8, false);
                                let sh = self.cx.const_int(self.cx.ty_i8, bit as i64);
                                let b = self.shl(b, sh);
                                acc = self.or(acc, b);
                            }
                            let off = self.cx.const_usize(byte);
                            let p = self.inbounds_gep(self.cx.ty_i8, slot, &[off]);
                            self.store(acc, p, Align::ONE);
                        }
                        OperandValue::Ref(PlaceValue::new_sized(slot, result_layout.align.abi))
                    }
                }
            }
            sym::simd_reduce_add_ordered
            | sym::simd_reduce_add_unordered
            | sym::simd_reduce_mul_ordered
            | sym::simd_reduce_mul_unordered
            | sym::simd_reduce_min
            | sym::simd_reduce_max
            | sym::simd_reduce_and
            | sym::simd_reduce_or
            | sym::simd_reduce_xor => {
                let kind = kind0.unwrap_or_else(|| unsupported(self));
                let xs = self.vec_lanes(&args[0]);
                let (mut acc, rest) = match name {
                    sym::simd_reduce_add_ordered | sym::simd_reduce_mul_ordered => {
                        (args[1].immediate(), &xs[..])
                    }
                    _ => (xs[0], &xs[1..]),
                };
                for &x in rest {
                    acc = match (name, kind) {
                        (
                            sym::simd_reduce_add_ordered | sym::simd_reduce_add_unordered,
                            Lane::Float,
                        ) => self.fadd(acc, x),
                        (sym::simd_reduce_add_ordered | sym::simd_reduce_add_unordered, _) => {
                            self.add(acc, x)
                        }
                        (
                            sym::simd_reduce_mul_ordered | sym::simd_reduce_mul_unordered,
                            Lane::Float,
                        ) => self.fmul(acc, x),
                        (sym::simd_reduce_mul_ordered | sym::simd_reduce_mul_unordered, _) => {
                            self.mul(acc, x)
                        }
                        (sym::simd_reduce_min | sym::simd_reduce_max, Lane::Float) => {
                            let ty = self.cx.value(x).ty();
                            let a = self.ir_value(acc);
                            let b = self.ir_value(x);
                            let min = name == sym::simd_reduce_min;
                            let r =
                                self.with_ins(|i| if min { i.fmin(a, b) } else { i.fmax(a, b) });
                            self.wrap_ir(r, ty)
                        }
                        (sym::simd_reduce_min | sym::simd_reduce_max, Lane::Int { signed }) => {
                            let op = match (name == sym::simd_reduce_min, signed) {
                                (true, true) => IntPredicate::IntSLT,
                                (true, false) => IntPredicate::IntULT,
                                (false, true) => IntPredicate::IntSGT,
                                (false, false) => IntPredicate::IntUGT,
                            };
                            let c = self.icmp(op, acc, x);
                            self.select(c, acc, x)
                        }
                        (sym::simd_reduce_and, Lane::Int { .. }) => self.and(acc, x),
                        (sym::simd_reduce_or, Lane::Int { .. }) => self.or(acc, x),
                        (sym::simd_reduce_xor, Lane::Int { .. }) => self.xor(acc, x),
                        _ => unsupported(self),
                    };
                }
                OperandValue::Immediate(acc)
            }
            sym::simd_reduce_all | sym::simd_reduce_any => {
                let xs = self.vec_lanes(&args[0]);
                let mut acc = self.mask_lane_set(xs[0]);
                for &x in &xs[1..] {
                    let s = self.mask_lane_set(x);
                    acc = if name == sym::simd_reduce_all {
                        self.and(acc, s)
                    } else {
                        self.or(acc, s)
                    };
                }
                OperandValue::Immediate(acc)
            }
            sym::simd_gather => {
                // Lanes whose mask is clear read the fallback value from a stack copy of
                // `values`: no branches.
                let (_, ety) = in_elem(0).unwrap_or_else(|| unsupported(self));
                let values = self.vec_value(&args[0]);
                let ps = self.vec_lanes(&args[1]);
                let ms = self.vec_lanes(&args[2]);
                let (elem, _) = self.vector_of(self.cx.value(values).ty()).unwrap();
                let align = self.cx.layout_of_ty(ety).align.abi;
                let slot = self.vector_in_slot(values);
                let mut out = Vec::new();
                for i in 0..ps.len() {
                    let c = self.mask_lane_set(ms[i]);
                    let idx = self.cx.const_usize(i as u64);
                    let fallback = self.lane_addr(slot, elem, idx);
                    let p = self.select(c, ps[i], fallback);
                    out.push(self.load(elem, p, align));
                }
                vector(self, out)
            }
            sym::simd_scatter => {
                // Lanes whose mask is clear write to a scratch stack slot.
                let (_, ety) = in_elem(0).unwrap_or_else(|| unsupported(self));
                let xs = self.vec_lanes(&args[0]);
                let ps = self.vec_lanes(&args[1]);
                let ms = self.vec_lanes(&args[2]);
                let layout = self.cx.layout_of_ty(ety);
                let scratch = self.alloca(layout.size, layout.align.abi);
                for i in 0..xs.len() {
                    let c = self.mask_lane_set(ms[i]);
                    let p = self.select(c, ps[i], scratch);
                    self.store(xs[i], p, layout.align.abi);
                }
                OperandValue::ZeroSized
            }
            sym::simd_masked_load | sym::simd_masked_store => {
                // (mask, ptr, values): lane i at ptr + i * size, if its mask is set.
                let ms = self.vec_lanes(&args[0]);
                let base = args[1].immediate();
                let values = self.vec_value(&args[2]);
                let (elem, _) = self.vector_of(self.cx.value(values).ty()).unwrap();
                let store = name == sym::simd_masked_store;
                let xs = self.lanes(values);
                let slot = self.vector_in_slot(values);
                let mut out = Vec::new();
                for i in 0..ms.len() {
                    let c = self.mask_lane_set(ms[i]);
                    let idx = self.cx.const_usize(i as u64);
                    let real = self.lane_addr(base, elem, idx);
                    let fallback = self.lane_addr(slot, elem, idx);
                    let p = self.select(c, real, fallback);
                    if store {
                        self.store(xs[i], p, Align::ONE);
                    } else {
                        out.push(self.load(elem, p, Align::ONE));
                    }
                }
                if store {
                    OperandValue::ZeroSized
                } else {
                    vector(self, out)
                }
            }
            sym::simd_arith_offset => {
                let (_, pty) = in_elem(0).unwrap_or_else(|| unsupported(self));
                let pointee = pty.builtin_deref(true).unwrap_or_else(|| unsupported(self));
                let size = self.cx.layout_of_ty(pointee).size.bytes();
                let ps = self.vec_lanes(&args[0]);
                let os = self.vec_lanes(&args[1]);
                let mut out = Vec::new();
                for (p, o) in ps.into_iter().zip(os) {
                    let o = self.intcast(o, self.cx.ty_i64, true);
                    let s = self.cx.const_usize(size);
                    let o = self.mul(o, s);
                    let pi = self.ir_value(p);
                    let oi = self.ir_value(o);
                    let r = self.with_ins(|i| i.ptradd(pi, oi));
                    out.push(self.wrap_ir(r, self.cx.ty_ptr));
                }
                vector(self, out)
            }
            _ => return None,
        };
        let _ = instance;
        Some(value)
    }
}
