//! Function signatures: rustc's `FnAbi` mapped onto IR signatures (`docs/backend.md`,
//! "Function ABI"), and the argument traits of rustc_codegen_ssa.
//!
//! rustc_codegen_ssa passes one backend value per `PassMode::Direct`, `Cast` and
//! `Indirect` argument and two per `Pair` and `IndirectUnsized` argument, with the
//! address of the return buffer (sret) separate. The IR signature has one parameter per
//! register-sized part: a `Cast` argument (an aggregate of registers) becomes one IR
//! parameter per register, and integers narrower than 64 bits travel extended to `i64`
//! as `docs/isa.md` §6 requires (the shim extends at calls and returns and truncates
//! on entry, so the IR's signatures only hold `i64`, `i128`, `f32`, `f64` and `ptr`).

use rustc_abi::{BackendRepr, Primitive, Scalar};
use rustc_codegen_ssa::MemFlags;
use rustc_codegen_ssa::mir::operand::OperandValue;
use rustc_codegen_ssa::mir::place::{PlaceRef, PlaceValue};
use rustc_codegen_ssa::traits::{
    AbiBuilderMethods, ArgAbiBuilderMethods, BuilderMethods, LayoutTypeCodegenMethods,
};
use rustc_middle::ty::{self, Ty};
use rustc_span::bug;
use rustc_target::callconv::{ArgAbi, ArgAttribute, ArgAttributes, FnAbi, IndirectMode, PassMode};
use vliw_ir as ir;

use crate::builder::Builder;
use crate::context::CodegenCx;
use crate::types::{ArgShape, Ext, FnSig, Part, SigData, Type, default_ext};
use crate::values::Value;

/// How a scalar of Rust type travels in a 64-bit register: 32-bit integers
/// sign-extended (the canonical form), narrower ones by their signedness, `bool`
/// zero-extended.
fn scalar_ext(scalar: Scalar) -> Ext {
    if scalar.is_bool() {
        return Ext::Zext;
    }
    match scalar.primitive() {
        Primitive::Int(int, signed) => match int.size().bits() {
            32 => Ext::Sext,
            b if b < 32 => {
                if signed {
                    Ext::Sext
                } else {
                    Ext::Zext
                }
            }
            _ => Ext::None,
        },
        _ => Ext::None,
    }
}

impl<'tcx> CodegenCx<'tcx> {
    fn shape(&self, ty: Type, ext: &dyn Fn(usize) -> Ext) -> ArgShape {
        let types = self.types.borrow();
        let parts = types
            .parts(ty, |i, _| ext(i))
            .unwrap_or_else(|e| self.unsupported(None, &e));
        ArgShape { ty, parts }
    }

    fn scalar_shape(&self, ty: Type, scalar: Scalar) -> ArgShape {
        let ext = scalar_ext(scalar);
        self.shape(ty, &|_| ext)
    }

    /// The signature of a function with this ABI.
    pub fn sig_of_fn_abi(&self, fn_abi: &FnAbi<'tcx, Ty<'tcx>>) -> FnSig {
        let key = fn_abi as *const _ as usize;
        if let Some(&sig) = self.fn_abi_sigs.borrow().get(&key) {
            return sig;
        }
        let mut sret = false;
        let ret = match &fn_abi.ret.mode {
            PassMode::Ignore => None,
            PassMode::Direct(_) => match fn_abi.ret.layout.backend_repr {
                BackendRepr::Scalar(s) => {
                    Some(self.scalar_shape(self.immediate_backend_type(fn_abi.ret.layout), s))
                }
                // A vector: its lanes, one result each.
                BackendRepr::SimdVector { element, .. } => {
                    let ext = scalar_ext(element);
                    Some(self.shape(self.immediate_backend_type(fn_abi.ret.layout), &|_| ext))
                }
                _ => self.unsupported(None, "scalable vector return values"),
            },
            PassMode::Pair(..) => {
                let BackendRepr::ScalarPair { a, b, .. } = fn_abi.ret.layout.backend_repr else {
                    bug!("pair return of a non-pair layout")
                };
                let ty = self.immediate_backend_type(fn_abi.ret.layout);
                let (ea, eb) = (scalar_ext(a), scalar_ext(b));
                Some(self.shape(ty, &|i| if i == 0 { ea } else { eb }))
            }
            PassMode::Cast { cast, .. } => {
                let ty = self.cast_backend_type(cast);
                Some(self.shape(ty, &|_| Ext::Zext))
            }
            PassMode::Indirect { .. } => {
                sret = true;
                None
            }
            PassMode::IndirectUnsized { .. } => bug!("unsized return values"),
        };
        let mut args = Vec::new();
        let mut fixed_parts = None;
        for (i, arg) in fn_abi.args.iter().enumerate() {
            if fn_abi.c_variadic && i == fn_abi.fixed_count as usize {
                fixed_parts = Some(args.len());
            }
            self.push_arg_shapes(arg, &mut args);
        }
        let fixed = fixed_parts.unwrap_or(args.len());
        let sig = self.make_sig(sret, args, ret, fn_abi.c_variadic, fixed);
        self.fn_abi_sigs.borrow_mut().insert(key, sig);
        sig
    }

    /// The IR attributes of the parameters of a function of ABI `fn_abi` and
    /// signature `sig` (`sig_of_fn_abi`): rustc's `noalias` and `readonly` on the
    /// pointers it passes `Direct` or as a part of a `Pair`, as rustc_codegen_llvm
    /// applies them (`ArgAttributesExt::apply_attrs_to_llfn`). An `Indirect` argument's
    /// pointer (rustc's copy of a value passed by reference) gets none: the RVSDG uses
    /// them for memory state splitting, and references are what matter there.
    pub fn param_attrs_of_fn_abi(
        &self,
        fn_abi: &FnAbi<'tcx, Ty<'tcx>>,
        sig: FnSig,
    ) -> Vec<ir::ParamAttrs> {
        let data = self.types.borrow().sig(sig);
        let mut attrs = Vec::new();
        let mut param = data.sret as usize;
        let mut shapes = data.args.iter();
        for (i, arg) in fn_abi.args.iter().enumerate() {
            if fn_abi.c_variadic && i >= fn_abi.fixed_count as usize {
                break;
            }
            // the attributes of each shape `push_arg_shapes` made for the argument
            let per_shape: &[Option<&ArgAttributes>] = match &arg.mode {
                PassMode::Ignore => &[],
                PassMode::Direct(a) => &[Some(a)],
                PassMode::Pair(a, b) => &[Some(a), Some(b)],
                PassMode::Cast { .. } | PassMode::Indirect { .. } => &[None],
                PassMode::IndirectUnsized { .. } => &[None, None],
            };
            for a in per_shape {
                let Some(shape) = shapes.next() else {
                    return attrs;
                };
                if let (Some(a), [part]) = (a, &shape.parts[..])
                    && part.abi == ir::Type::Ptr
                {
                    let p = ir::ParamAttrs {
                        noalias: a.regular.contains(ArgAttribute::NoAlias),
                        readonly: a.regular.contains(ArgAttribute::ReadOnly),
                    };
                    if !p.is_empty() {
                        attrs.resize(param, ir::ParamAttrs::default());
                        attrs.push(p);
                    }
                }
                param += shape.parts.len();
            }
        }
        attrs
    }

    fn push_arg_shapes(&self, arg: &ArgAbi<'tcx, Ty<'tcx>>, args: &mut Vec<ArgShape>) {
        match &arg.mode {
            PassMode::Ignore => {}
            PassMode::Direct(_) => match arg.layout.backend_repr {
                BackendRepr::Scalar(s) => {
                    args.push(self.scalar_shape(self.immediate_backend_type(arg.layout), s))
                }
                BackendRepr::SimdVector { element, .. } => {
                    let ext = scalar_ext(element);
                    args.push(self.shape(self.immediate_backend_type(arg.layout), &|_| ext))
                }
                _ => self.unsupported(None, "scalable vector arguments"),
            },
            PassMode::Pair(..) => {
                let BackendRepr::ScalarPair { a, b, .. } = arg.layout.backend_repr else {
                    bug!("pair argument of a non-pair layout")
                };
                for (i, s) in [a, b].into_iter().enumerate() {
                    let ty = self.scalar_pair_element_backend_type(arg.layout, i, true);
                    args.push(self.scalar_shape(ty, s));
                }
            }
            PassMode::Cast {
                cast,
                pad_i32_count,
            } => {
                if *pad_i32_count != 0 {
                    bug!("padding arguments are not used on VLIW-64");
                }
                let ty = self.cast_backend_type(cast);
                args.push(self.shape(ty, &|_| Ext::Zext));
            }
            PassMode::Indirect { mode, .. } => {
                if *mode != IndirectMode::Pointer {
                    self.unsupported(None, "arguments passed by value on the stack (byval)");
                }
                args.push(self.shape(self.ty_ptr, &|_| Ext::None));
            }
            PassMode::IndirectUnsized { .. } => {
                args.push(self.shape(self.ty_ptr, &|_| Ext::None));
                let tail = self
                    .tcx
                    .struct_tail_for_codegen(arg.layout.ty, ty::TypingEnv::fully_monomorphized());
                let meta = match tail.kind() {
                    ty::Dynamic(..) => self.ty_ptr,
                    _ => self.ty_i64,
                };
                args.push(self.shape(meta, &|_| Ext::None));
            }
        }
    }

    /// The signature of `fn(args) -> ret` given as types (rustc_codegen_ssa's
    /// `type_func`, used for the C `main` wrapper): narrow integers follow the
    /// machine's convention (`default_ext`).
    pub fn sig_of_types(&self, arg_tys: &[Type], ret: Type) -> FnSig {
        let ext = |t: Type| default_ext(&self.types.borrow(), t);
        let args: Vec<ArgShape> = arg_tys
            .iter()
            .map(|&t| {
                let e = self.types.borrow().fields(t).map_or(ext(t), |_| Ext::Zext);
                self.shape(t, &|_| e)
            })
            .collect();
        let ret = (ret != self.ty_void).then(|| {
            let e = ext(ret);
            self.shape(ret, &|_| e)
        });
        let n = args.len();
        self.make_sig(false, args, ret, false, n)
    }

    fn make_sig(
        &self,
        sret: bool,
        args: Vec<ArgShape>,
        ret: Option<ArgShape>,
        variadic: bool,
        fixed: usize,
    ) -> FnSig {
        let mut params = Vec::new();
        if sret {
            params.push(ir::Type::Ptr);
        }
        for a in &args[..fixed] {
            params.extend(a.parts.iter().map(|p| p.abi));
        }
        let returns = ret
            .iter()
            .flat_map(|r| r.parts.iter().map(|p| p.abi))
            .collect();
        let ir = ir::Signature {
            params,
            returns,
            variadic,
        };
        self.types.borrow_mut().intern_sig(SigData {
            sret,
            args,
            ret,
            variadic,
            ir,
        })
    }
}

impl<'a, 'tcx> Builder<'a, 'tcx> {
    /// The IR values an argument of shape `shape` travels in: its parts, extended.
    pub fn lower_arg(&mut self, shape: &ArgShape, v: Value) -> Vec<ir::Value> {
        shape.parts.iter().map(|p| self.lower_part(p, v)).collect()
    }

    fn lower_part(&mut self, p: &Part, v: Value) -> ir::Value {
        let v = match p.field {
            Some(i) => self.extract_value(v, i as u64),
            None => v,
        };
        let x = self.ir_value(v);
        let ty = self.func_value_type(x);
        if ty == p.abi {
            return x;
        }
        self.with_ins(|ins| match p.ext {
            Ext::Sext => ins.sextend(p.abi, x),
            Ext::Zext | Ext::None => ins.uextend(p.abi, x),
        })
    }

    /// The shim value of type `shape.ty` that the IR values `xs` (its parts, as they
    /// travel) stand for.
    pub fn raise_arg(&mut self, shape: &ArgShape, xs: &[ir::Value]) -> Value {
        let parts: Vec<Value> = shape
            .parts
            .iter()
            .zip(xs)
            .map(|(p, &x)| {
                let ir_ty = self.cx.types.borrow().ir_type(p.ty).unwrap();
                let x = if ir_ty == p.abi {
                    x
                } else if ir_ty == ir::Type::I1 {
                    let zero = self.with_ins(|ins| ins.iconst(p.abi, 0));
                    self.with_ins(|ins| ins.icmp(ir::IntCC::Ne, x, zero))
                } else {
                    self.with_ins(|ins| ins.ireduce(ir_ty, x))
                };
                self.wrap_ir(x, p.ty)
            })
            .collect();
        if self.cx.types.borrow().is_aggregate(shape.ty) {
            self.cx.aggregate(shape.ty, parts)
        } else {
            parts[0]
        }
    }

    /// Store an argument or returned value `val` that travels as `arg_abi` says into
    /// `dst` (rustc_codegen_ssa's `ArgAbi::store`).
    fn store_arg_value(
        &mut self,
        arg_abi: &ArgAbi<'tcx, Ty<'tcx>>,
        val: Value,
        dst: PlaceRef<'tcx, Value>,
    ) {
        if arg_abi.is_ignore() {
            return;
        }
        if arg_abi.is_sized_indirect() {
            OperandValue::Ref(PlaceValue::new_sized(val, arg_abi.layout.align.abi)).store(self, dst)
        } else if arg_abi.is_unsized_indirect() {
            bug!("unsized `ArgAbi` cannot be stored");
        } else if let PassMode::Cast { cast, .. } = &arg_abi.mode {
            // Through a scratch slot of the cast's size: the cast may be larger than the
            // value (a 12-byte struct in two 8-byte registers).
            let size = cast.size(self);
            let align = cast.align(self);
            let scratch = self.alloca(size, align);
            rustc_codegen_ssa::mir::store_cast(self, cast, val, scratch, align);
            let len = self.cx.const_usize_value(arg_abi.layout.size.bytes());
            self.memcpy(
                dst.val.llval,
                arg_abi.layout.align.abi,
                scratch,
                align,
                len,
                MemFlags::empty(),
                None,
            );
        } else {
            OperandValue::Immediate(val).store(self, dst);
        }
    }
}

impl<'a, 'tcx> ArgAbiBuilderMethods<'tcx> for Builder<'a, 'tcx> {
    fn store_fn_arg(
        &mut self,
        arg_abi: &ArgAbi<'tcx, Ty<'tcx>>,
        idx: &mut usize,
        dst: PlaceRef<'tcx, Value>,
    ) {
        let mut next = |bx: &mut Self| {
            let v = bx.get_param(*idx);
            *idx += 1;
            v
        };
        match arg_abi.mode {
            PassMode::Ignore => {}
            PassMode::Pair(..) => {
                let a = next(self);
                let b = next(self);
                OperandValue::Pair(a, b).store(self, dst);
            }
            PassMode::IndirectUnsized { .. } => bug!("unsized `ArgAbi` cannot be stored"),
            PassMode::Direct(_) | PassMode::Indirect { .. } | PassMode::Cast { .. } => {
                let v = next(self);
                self.store_arg_value(arg_abi, v, dst);
            }
        }
    }

    fn store_arg(
        &mut self,
        arg_abi: &ArgAbi<'tcx, Ty<'tcx>>,
        val: Value,
        dst: PlaceRef<'tcx, Value>,
    ) {
        self.store_arg_value(arg_abi, val, dst)
    }
}

impl<'a, 'tcx> AbiBuilderMethods for Builder<'a, 'tcx> {
    fn get_param(&mut self, index: usize) -> Value {
        let f = self.cx.func(self.func);
        match f.params.get(index) {
            Some(&v) => v,
            None => bug!("{}: no parameter {index} (of {})", f.name, f.params.len()),
        }
    }
}
