//! rustc_codegen_ssa's type traits: Rust layouts and ABI registers as shim types.

use std::rc::Rc;

use rustc_abi::{AddressSpace, BackendRepr, Float, Primitive, Reg, RegKind, Scalar};
use rustc_codegen_ssa::common::TypeKind;
use rustc_codegen_ssa::traits::{BaseTypeCodegenMethods, LayoutTypeCodegenMethods};
use rustc_middle::ty::Ty;
use rustc_middle::ty::layout::TyAndLayout;
use rustc_span::bug;
use rustc_target::callconv::{CastTarget, FnAbi};

use crate::context::CodegenCx;
use crate::types::{FnSig, TyData, Type};
use crate::values::Value;

impl<'tcx> CodegenCx<'tcx> {
    fn scalar_type(&self, scalar: Scalar, immediate: bool) -> Type {
        if immediate && scalar.is_bool() {
            return self.ty_i1;
        }
        match scalar.primitive() {
            Primitive::Int(i, _) => self.int_type(i.size().bits() as u32),
            Primitive::Float(f) => match f {
                Float::F16 | Float::F16B => self.intern_type(TyData::F16),
                Float::F32 => self.ty_f32,
                Float::F64 => self.ty_f64,
                Float::F128 | Float::PpcF128 => self.intern_type(TyData::F128),
            },
            Primitive::Pointer(_) => self.ty_ptr,
        }
    }

    /// A struct of `fields` laid out in order at their natural alignment.
    pub fn natural_struct(&self, fields: &[Type], packed: bool) -> Type {
        let types = self.types.borrow();
        let mut off = 0u64;
        let mut align = 1u64;
        let mut placed = Vec::with_capacity(fields.len());
        for &f in fields {
            let a = if packed { 1 } else { types.align(f) };
            off = off.next_multiple_of(a);
            placed.push((f, off));
            off += types.size(f);
            align = align.max(a);
        }
        let size = off.next_multiple_of(align);
        drop(types);
        self.intern_type(TyData::Struct {
            fields: Rc::from(placed),
            size,
            align,
        })
    }

    fn layout_type(&self, layout: TyAndLayout<'tcx>, immediate: bool) -> Type {
        match layout.backend_repr {
            _ if layout.is_zst() => self.intern_type(TyData::Bytes {
                size: 0,
                align: layout.align.abi.bytes(),
            }),
            BackendRepr::Scalar(s) => self.scalar_type(s, immediate),
            BackendRepr::ScalarPair { a, b, b_offset } => {
                let fields = [
                    (self.scalar_type(a, immediate), 0),
                    (self.scalar_type(b, immediate), b_offset.bytes()),
                ];
                self.intern_type(TyData::Struct {
                    fields: Rc::from(fields),
                    size: layout.size.bytes(),
                    align: layout.align.abi.bytes(),
                })
            }
            BackendRepr::SimdVector { element, count } => {
                let elem = self.scalar_type(element, false);
                self.intern_type(TyData::Vector {
                    elem,
                    len: count.as_u64(),
                })
            }
            BackendRepr::SimdScalableVector { .. } | BackendRepr::Memory { .. } => self
                .intern_type(TyData::Bytes {
                    size: layout.size.bytes(),
                    align: layout.align.abi.bytes(),
                }),
        }
    }
}

impl<'tcx> BaseTypeCodegenMethods for CodegenCx<'tcx> {
    fn type_i8(&self) -> Type {
        self.ty_i8
    }
    fn type_i16(&self) -> Type {
        self.ty_i16
    }
    fn type_i32(&self) -> Type {
        self.ty_i32
    }
    fn type_i64(&self) -> Type {
        self.ty_i64
    }
    fn type_i128(&self) -> Type {
        self.ty_i128
    }
    fn type_isize(&self) -> Type {
        self.ty_i64
    }
    fn type_f16(&self) -> Type {
        self.intern_type(TyData::F16)
    }
    fn type_f16b(&self) -> Type {
        self.intern_type(TyData::F16)
    }
    fn type_f32(&self) -> Type {
        self.ty_f32
    }
    fn type_f64(&self) -> Type {
        self.ty_f64
    }
    fn type_f128(&self) -> Type {
        self.intern_type(TyData::F128)
    }
    fn type_ppcf128(&self) -> Type {
        self.intern_type(TyData::F128)
    }

    fn type_array(&self, ty: Type, len: u64) -> Type {
        self.intern_type(TyData::Array { elem: ty, len })
    }

    fn type_func(&self, args: &[Type], ret: Type) -> FnSig {
        self.sig_of_types(args, ret)
    }

    fn type_kind(&self, ty: Type) -> TypeKind {
        crate::builder::type_kind(&self.ty_data(ty))
    }

    fn type_ptr(&self) -> Type {
        self.ty_ptr
    }

    fn type_ptr_ext(&self, _address_space: AddressSpace) -> Type {
        self.ty_ptr
    }

    fn element_type(&self, ty: Type) -> Type {
        match self.ty_data(ty) {
            TyData::Array { elem, .. } | TyData::Vector { elem, .. } => elem,
            d => bug!("element_type of {d:?}"),
        }
    }

    fn vector_length(&self, ty: Type) -> usize {
        match self.ty_data(ty) {
            TyData::Vector { len, .. } => len as usize,
            d => bug!("vector_length of {d:?}"),
        }
    }

    fn float_width(&self, ty: Type) -> usize {
        match self.ty_data(ty) {
            TyData::F16 => 16,
            TyData::F32 => 32,
            TyData::F64 => 64,
            TyData::F128 => 128,
            d => bug!("float_width of {d:?}"),
        }
    }

    fn int_width(&self, ty: Type) -> u64 {
        match self.ty_data(ty) {
            TyData::Int(bits) => bits as u64,
            TyData::Ptr => 64,
            d => bug!("int_width of {d:?}"),
        }
    }

    fn val_ty(&self, v: Value) -> Type {
        self.value(v).ty()
    }
}

impl<'tcx> LayoutTypeCodegenMethods<'tcx> for CodegenCx<'tcx> {
    fn backend_type(&self, layout: TyAndLayout<'tcx>) -> Type {
        self.layout_type(layout, false)
    }

    fn immediate_backend_type(&self, layout: TyAndLayout<'tcx>) -> Type {
        self.layout_type(layout, true)
    }

    fn scalar_pair_element_backend_type(
        &self,
        layout: TyAndLayout<'tcx>,
        index: usize,
        immediate: bool,
    ) -> Type {
        let BackendRepr::ScalarPair { a, b, .. } = layout.backend_repr else {
            bug!("scalar_pair_element_backend_type of {:?}", layout.ty)
        };
        self.scalar_type(if index == 0 { a } else { b }, immediate)
    }

    fn cast_backend_type(&self, cast: &CastTarget) -> Type {
        let mut fields: Vec<Type> = cast
            .prefix
            .iter()
            .map(|r| self.reg_backend_type(r))
            .collect();
        let unit = cast.rest.unit;
        let total = cast.rest.total.bytes();
        if total > 0 {
            let unit_size = unit.size.bytes();
            for _ in 0..total / unit_size {
                fields.push(self.reg_backend_type(&unit));
            }
            let rem = total % unit_size;
            if rem > 0 {
                debug_assert_eq!(unit.kind, RegKind::Integer);
                fields.push(self.int_type(rem as u32 * 8));
            }
        }
        if let Some(offset) = cast.rest_offset {
            // One prefix register, then the rest at an explicit offset.
            let placed = vec![(fields[0], 0), (fields[1], offset.bytes())];
            let types = self.types.borrow();
            let size = (offset.bytes() + types.size(fields[1]))
                .next_multiple_of(types.align(fields[0]).max(types.align(fields[1])));
            let align = types.align(fields[0]).max(types.align(fields[1]));
            drop(types);
            return self.intern_type(TyData::Struct {
                fields: Rc::from(placed),
                size,
                align,
            });
        }
        if fields.len() == 1 {
            return fields[0];
        }
        self.natural_struct(&fields, false)
    }

    fn fn_decl_backend_type(&self, fn_abi: &FnAbi<'tcx, Ty<'tcx>>) -> FnSig {
        self.sig_of_fn_abi(fn_abi)
    }

    fn fn_ptr_backend_type(&self, _fn_abi: &FnAbi<'tcx, Ty<'tcx>>) -> Type {
        self.ty_ptr
    }

    fn reg_backend_type(&self, reg: &Reg) -> Type {
        match reg.kind {
            RegKind::Integer => self.int_type(reg.size.bits() as u32),
            RegKind::Float => match reg.size.bits() {
                16 => self.intern_type(TyData::F16),
                32 => self.ty_f32,
                64 => self.ty_f64,
                128 => self.intern_type(TyData::F128),
                b => bug!("float register of {b} bits"),
            },
            RegKind::PpcF128 => self.intern_type(TyData::F128),
            RegKind::Vector { .. } => {
                let elem = self.ty_i8;
                self.intern_type(TyData::Vector {
                    elem,
                    len: reg.size.bytes(),
                })
            }
        }
    }
}
