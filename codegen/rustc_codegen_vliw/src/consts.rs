//! Constants and statics: rustc_codegen_ssa's const and static traits.
//!
//! Constant values stay symbolic (`values.rs`). Statics and the constant allocations
//! rustc's interpreter produced (string literals, promoted constants, vtables) become
//! `vliw_ir::DataObject`s: the allocation's bytes, with an `Abs64` relocation wherever
//! the allocation holds a pointer.

use rustc_abi::{self as abi, Primitive, Size};
use rustc_apfloat::FloatConvert;
use rustc_apfloat::ieee::{Double, Half, Quad};
use rustc_codegen_ssa::traits::{ConstCodegenMethods, StaticCodegenMethods};
use rustc_hir::def_id::DefId;
use rustc_middle::middle::codegen_fn_attrs::CodegenFnAttrFlags;
use rustc_middle::mir::interpret::{
    ConstAllocation, GlobalAlloc, Scalar as InterpScalar, read_target_uint,
};
use rustc_middle::ty::Instance;
use rustc_session::PointerAuthSchema;
use rustc_span::bug;
use rustc_target::spec::HasTargetSpec;
use vliw_ir as ir;

use crate::context::CodegenCx;
use crate::types::{TyData, Type};
use crate::values::{Value, ValueData};

impl<'tcx> CodegenCx<'tcx> {
    fn int_const(&self, ty: Type, bits: u128) -> Value {
        let mask = match self.ty_data(ty) {
            TyData::Int(b) if b < 128 => (1u128 << b) - 1,
            TyData::F16 => u16::MAX as u128,
            TyData::Ptr => u64::MAX as u128,
            _ => u128::MAX,
        };
        self.new_value(ValueData::Int {
            ty,
            bits: bits & mask,
        })
    }

    /// Whether a static is `#[thread_local]`.
    pub fn is_thread_local_static(&self, def_id: DefId) -> bool {
        self.tcx
            .codegen_fn_attrs(def_id)
            .flags
            .contains(CodegenFnAttrFlags::THREAD_LOCAL)
    }

    /// The link-time address of a static (defined here or elsewhere), as a constant.
    /// Code reaches a thread-local static through `Builder::get_static` (`tls_addr`);
    /// a thread-local static has no link-time address, so a constant or another
    /// static's initializer that points at one (which rustc rejects) is an error here
    /// rather than a relocation the linker would refuse.
    pub fn get_static_addr(&self, def_id: DefId) -> Value {
        let attrs = self.tcx.codegen_fn_attrs(def_id);
        if attrs.flags.contains(CodegenFnAttrFlags::THREAD_LOCAL) {
            self.tcx.dcx().fatal(format!(
                "the VLIW backend cannot take the link-time address of thread-local static `{}` \
                 (a pointer to it in a constant or a static's initializer): each thread has its own copy",
                self.tcx.def_path_str(def_id)
            ));
        }
        if attrs.import_linkage.is_some() {
            self.unsupported(
                None,
                &format!(
                    "`#[linkage]` on extern statics (`{}`)",
                    self.tcx.def_path_str(def_id)
                ),
            );
        }
        let name = self.static_name(def_id);
        self.sym_addr(&name)
    }

    /// The address of the memory a `GlobalAlloc` stands for, or a plain address for
    /// the allocations that have none (type ids, zero-sized memory).
    fn global_alloc_addr(&self, alloc: GlobalAlloc<'tcx>) -> Result<Value, u64> {
        let mem = match alloc {
            GlobalAlloc::Function { instance } => {
                return Ok(rustc_codegen_ssa::traits::MiscCodegenMethods::get_fn_addr(
                    self, instance, None,
                ));
            }
            GlobalAlloc::Static(def_id) => return Ok(self.get_static_addr(def_id)),
            GlobalAlloc::TypeId { .. } => return Err(0),
            GlobalAlloc::Memory(mem) => {
                if mem.inner().len() == 0 {
                    return Err(mem.inner().align.bytes());
                }
                mem
            }
            GlobalAlloc::VTable(ty, dyn_ty) => {
                let principal = dyn_ty
                    .principal()
                    .map(|p| self.tcx.instantiate_bound_regions_with_erased(p));
                self.tcx
                    .global_alloc(self.tcx.vtable_allocation((ty, principal)))
                    .unwrap_memory()
            }
        };
        Ok(self.static_addr_of(mem, None))
    }

    /// The bytes and relocations of a constant allocation.
    pub fn alloc_bytes(&self, alloc: ConstAllocation<'_>) -> (Vec<u8>, Vec<ir::DataReloc>) {
        let alloc = alloc.inner();
        let dl = &self.tcx.data_layout;
        let ptr_size = dl.pointer_size().bytes() as usize;
        // Uninitialized bytes read as zero; they are not observable.
        let mut bytes = alloc
            .inspect_with_uninit_and_ptr_outside_interpreter(0..alloc.len())
            .to_vec();
        let mut relocs = Vec::new();
        for &(offset, prov) in alloc.provenance().ptrs().iter() {
            let offset = offset.bytes() as usize;
            let addend = read_target_uint(dl.endian, &bytes[offset..offset + ptr_size])
                .expect("pointer-sized read") as u64;
            match self.global_alloc_addr(self.tcx.global_alloc(prov.alloc_id())) {
                Ok(v) => {
                    let ValueData::SymAddr {
                        sym, offset: base, ..
                    } = self.value(v)
                    else {
                        bug!("address of a global allocation is not a symbol")
                    };
                    bytes[offset..offset + ptr_size].fill(0);
                    relocs.push(ir::DataReloc {
                        offset: offset as u64,
                        symbol: self.symbol_name(sym),
                        addend: base.wrapping_add(addend as i64),
                        kind: ir::RelocKind::Abs64,
                    });
                }
                Err(base) => {
                    let value = base.wrapping_add(addend);
                    bytes[offset..offset + ptr_size].copy_from_slice(&value.to_le_bytes());
                }
            }
        }
        (bytes, relocs)
    }

    fn push_data(
        &self,
        name: String,
        linkage: ir::Linkage,
        mutable: bool,
        align: u64,
        alloc: ConstAllocation<'_>,
    ) {
        let (bytes, relocs) = self.alloc_bytes(alloc);
        let kind = if !mutable {
            ir::DataKind::ReadOnly
        } else if relocs.is_empty() && bytes.iter().all(|&b| b == 0) {
            ir::DataKind::Bss
        } else {
            ir::DataKind::Data
        };
        self.data.borrow_mut().push(ir::DataObject {
            name,
            linkage,
            kind,
            align,
            bytes,
            relocs,
            thread_local: false,
        });
    }
}

impl<'tcx> ConstCodegenMethods for CodegenCx<'tcx> {
    fn const_null(&self, t: Type) -> Value {
        if self.types.borrow().is_aggregate(t) {
            let fields = self.types.borrow().fields(t).unwrap();
            let elems = fields
                .into_iter()
                .map(|(ft, _)| self.const_null(ft))
                .collect();
            return self.aggregate(t, elems);
        }
        match self.ty_data(t) {
            TyData::F32 | TyData::F64 => self.new_value(ValueData::Float { ty: t, bits: 0 }),
            _ => self.int_const(t, 0),
        }
    }

    fn const_undef(&self, t: Type) -> Value {
        self.new_value(ValueData::Undef { ty: t })
    }

    fn const_poison(&self, t: Type) -> Value {
        self.new_value(ValueData::Undef { ty: t })
    }

    fn const_bool(&self, val: bool) -> Value {
        self.int_const(self.ty_i1, val as u128)
    }

    fn const_i8(&self, i: i8) -> Value {
        self.int_const(self.ty_i8, i as u8 as u128)
    }

    fn const_i16(&self, i: i16) -> Value {
        self.int_const(self.ty_i16, i as u16 as u128)
    }

    fn const_i32(&self, i: i32) -> Value {
        self.int_const(self.ty_i32, i as u32 as u128)
    }

    fn const_i64(&self, i: i64) -> Value {
        self.int_const(self.ty_i64, i as u64 as u128)
    }

    fn const_int(&self, t: Type, i: i64) -> Value {
        self.int_const(t, i as i128 as u128)
    }

    fn const_u8(&self, i: u8) -> Value {
        self.int_const(self.ty_i8, i as u128)
    }

    fn const_u32(&self, i: u32) -> Value {
        self.int_const(self.ty_i32, i as u128)
    }

    fn const_u64(&self, i: u64) -> Value {
        self.int_const(self.ty_i64, i as u128)
    }

    fn const_u128(&self, i: u128) -> Value {
        self.int_const(self.ty_i128, i)
    }

    fn const_usize(&self, i: u64) -> Value {
        self.int_const(self.ty_i64, i as u128)
    }

    fn const_uint(&self, t: Type, i: u64) -> Value {
        self.int_const(t, i as u128)
    }

    fn const_uint_big(&self, t: Type, u: u128) -> Value {
        self.int_const(t, u)
    }

    fn const_real(&self, t: Type, val: f64) -> Value {
        let bits = match self.ty_data(t) {
            TyData::F32 => (val as f32).to_bits() as u64,
            TyData::F64 => val.to_bits(),
            // Held as integer bits (see `TypeTable::ir_type`): rounded as IEEE says.
            TyData::F16 => return self.int_const(t, soft_float_bits::<Half>(val)),
            TyData::F128 => return self.int_const(t, soft_float_bits::<Quad>(val)),
            d => bug!("const_real of {d:?}"),
        };
        self.new_value(ValueData::Float { ty: t, bits })
    }

    fn const_str(&self, s: &str) -> (Value, Value) {
        let cached = self.const_strs.borrow().get(s).copied();
        let sym = cached.unwrap_or_else(|| {
            let name = self.anon_name("str");
            let sym = self.symbol(&name);
            self.data.borrow_mut().push(ir::DataObject {
                name,
                linkage: ir::Linkage::Local,
                kind: ir::DataKind::ReadOnly,
                align: 1,
                bytes: s.as_bytes().to_vec(),
                relocs: Vec::new(),
                thread_local: false,
            });
            self.const_strs.borrow_mut().insert(s.to_string(), sym);
            sym
        });
        let ptr = self.new_value(ValueData::SymAddr {
            ty: self.ty_ptr,
            sym,
            offset: 0,
        });
        (ptr, self.const_usize(s.len() as u64))
    }

    fn const_struct(&self, elts: &[Value], packed: bool) -> Value {
        let tys: Vec<Type> = elts.iter().map(|&v| self.value(v).ty()).collect();
        let ty = self.natural_struct(&tys, packed);
        self.aggregate(ty, elts.to_vec())
    }

    fn const_vector(&self, elts: &[Value]) -> Value {
        let elem = elts.first().map_or(self.ty_i8, |&v| self.value(v).ty());
        let ty = self.intern_type(TyData::Vector {
            elem,
            len: elts.len() as u64,
        });
        self.aggregate(ty, elts.to_vec())
    }

    fn const_to_opt_uint(&self, v: Value) -> Option<u64> {
        match self.value(v) {
            ValueData::Int { bits, .. } => u64::try_from(bits).ok(),
            _ => None,
        }
    }

    fn const_to_opt_u128(&self, v: Value, sign_ext: bool) -> Option<u128> {
        match self.value(v) {
            ValueData::Int { ty, bits } => {
                let width = match self.ty_data(ty) {
                    TyData::Int(b) => b,
                    _ => 64,
                };
                if sign_ext && width < 128 && width > 0 {
                    let sh = 128 - width;
                    Some((((bits << sh) as i128) >> sh) as u128)
                } else {
                    Some(bits)
                }
            }
            _ => None,
        }
    }

    fn scalar_to_backend_with_pac(
        &self,
        cv: InterpScalar,
        layout: abi::Scalar,
        ty: Type,
        _schema: Option<&PointerAuthSchema>,
    ) -> Value {
        match cv {
            InterpScalar::Int(int) => {
                let bits = int.to_bits(layout.size(self));
                match self.ty_data(ty) {
                    TyData::F32 | TyData::F64 => self.new_value(ValueData::Float {
                        ty,
                        bits: bits as u64,
                    }),
                    // f16 and f128 are held as their bits (`TypeTable::ir_type`).
                    _ => self.int_const(ty, bits),
                }
            }
            InterpScalar::Ptr(ptr, _size) => {
                let (prov, offset) = ptr.prov_and_relative_offset();
                let is_ptr = matches!(layout.primitive(), Primitive::Pointer(_));
                match self.global_alloc_addr(self.tcx.global_alloc(prov.alloc_id())) {
                    Ok(base) => {
                        let ValueData::SymAddr { sym, offset: b, .. } = self.value(base) else {
                            bug!("address of a global allocation is not a symbol")
                        };
                        let vty = if is_ptr { self.ty_ptr } else { self.ty_i64 };
                        let v = self.new_value(ValueData::SymAddr {
                            ty: vty,
                            sym,
                            offset: b.wrapping_add(offset.bytes() as i64),
                        });
                        if vty == ty || is_ptr {
                            v
                        } else {
                            // A pointer stored in an integer of another width: never on
                            // this 64-bit target.
                            bug!("pointer constant as {:?}", self.ty_data(ty))
                        }
                    }
                    Err(base) => {
                        let addr = base.wrapping_add(offset.bytes());
                        self.int_const(ty, addr as u128)
                    }
                }
            }
        }
    }

    fn const_ptr_byte_offset(&self, val: Value, offset: Size) -> Value {
        match self.value(val) {
            ValueData::SymAddr { ty, sym, offset: o } => self.new_value(ValueData::SymAddr {
                ty,
                sym,
                offset: o.wrapping_add(offset.bytes() as i64),
            }),
            ValueData::Int { ty, bits } => {
                self.int_const(ty, bits.wrapping_add(offset.bytes() as u128))
            }
            d => bug!("const_ptr_byte_offset of {d:?}"),
        }
    }
}

impl<'tcx> StaticCodegenMethods for CodegenCx<'tcx> {
    fn static_addr_of(&self, alloc: ConstAllocation<'_>, _kind: Option<&str>) -> Value {
        // Allocations are interned: the address identifies one.
        let key = alloc.inner() as *const _ as usize;
        if let Some(&sym) = self.const_allocs.borrow().get(&key) {
            return self.new_value(ValueData::SymAddr {
                ty: self.ty_ptr,
                sym,
                offset: 0,
            });
        }
        let name = self.anon_name("const");
        let sym = self.symbol(&name);
        self.const_allocs.borrow_mut().insert(key, sym);
        let inner = alloc.inner();
        let mutable = inner.mutability.is_mut();
        self.push_data(
            name,
            ir::Linkage::Local,
            mutable,
            inner.align.bytes(),
            alloc,
        );
        self.new_value(ValueData::SymAddr {
            ty: self.ty_ptr,
            sym,
            offset: 0,
        })
    }

    fn codegen_static(&mut self, def_id: DefId) {
        let Ok(alloc) = self.tcx.eval_static_initializer(def_id) else {
            // The error has been reported.
            return;
        };
        let thread_local = self.is_thread_local_static(def_id);
        let (name, linkage) = match self.statics.borrow().get(&def_id) {
            Some(s) => (s.name.clone(), s.linkage),
            None => (
                self.tcx
                    .symbol_name(Instance::mono(self.tcx, def_id))
                    .name
                    .to_string(),
                ir::Linkage::Export,
            ),
        };
        let inner = alloc.inner();
        let mut align = inner.align.bytes();
        if let Some(min) = self.target_spec().min_global_align {
            align = align.max(min.bytes());
        }
        self.symbol(&name);
        // A thread-local static is writable whatever its mutability: its TLS image is
        // copied into each thread's block.
        let mutable = inner.mutability.is_mut() || thread_local;
        self.push_data(name, linkage, mutable, align, alloc);
        if thread_local {
            // Pointers in its initializer are ordinary R_VLIW_ABS64 relocations in
            // .tdata: each thread's copy starts with the same addresses.
            let mut data = self.data.borrow_mut();
            data.last_mut().expect("pushed just now").thread_local = true;
        }
    }
}

/// The IEEE bits of `val` in format `F` (f16 or f128), rounded to nearest-even.
fn soft_float_bits<F: rustc_apfloat::Float>(val: f64) -> u128
where
    Double: FloatConvert<F>,
{
    use rustc_apfloat::Float as _;
    let mut loses_info = false;
    let x: F = Double::from_bits(val.to_bits() as u128)
        .convert(&mut loses_info)
        .value;
    x.to_bits()
}
