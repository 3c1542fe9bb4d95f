//! The shim's types: what `rustc_codegen_ssa` calls `Type` and `FunctionSignature`.
//!
//! rustc_codegen_ssa thinks in LLVM types. Scalars map onto `vliw_ir::Type`; the
//! aggregate types it asks for (pairs, `PassMode::Cast` register lists, constant
//! structs, arrays for `gep` strides) exist only here: values of those types are
//! aggregates of handles in the shim (`values.rs`) and never reach the IR. Types are
//! interned, so two equal types have the same handle and `==` works as
//! rustc_codegen_ssa expects.

use std::rc::Rc;

use rustc_data_structures::fx::FxHashMap;
use vliw_ir as ir;

/// A handle to an interned type of one codegen unit.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Type(u32);

impl std::fmt::Debug for Type {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ty{}", self.0)
    }
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum TyData {
    /// No value (the return type of a function that returns nothing).
    Void,
    /// An integer of `bits` bits. 1, 8, 16, 32, 64 and 128 are IR types. Other multiples
    /// of 8 below 64 (24, 40, 48, 56) are the registers of `PassMode::Cast` for odd-sized
    /// aggregates: held in the next wider IR integer (upper bits zero), `bits / 8` bytes
    /// in memory.
    Int(u32),
    F16,
    F32,
    F64,
    F128,
    Ptr,
    /// Memory with no register form (a `BackendRepr::Memory` layout): only its size
    /// (the `gep` stride) and alignment matter.
    Bytes {
        size: u64,
        align: u64,
    },
    Array {
        elem: Type,
        len: u64,
    },
    /// SIMD vectors: `len` lanes of scalar type `elem`, contiguous in memory. A vector
    /// value is an aggregate of its lane values (the machine has no vector registers).
    Vector {
        elem: Type,
        len: u64,
    },
    /// Fields at explicit byte offsets.
    Struct {
        fields: Rc<[(Type, u64)]>,
        size: u64,
        align: u64,
    },
}

/// Sign or zero extension of a narrow integer to the 64-bit register it travels in.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Ext {
    None,
    Sext,
    Zext,
}

/// One IR parameter or result of a signature: the scalar shim type of the value, which
/// field of the argument's aggregate it is (`None`: the argument itself), and how it
/// travels (`abi`, extended by `ext`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Part {
    pub ty: Type,
    pub field: Option<u32>,
    pub abi: ir::Type,
    pub ext: Ext,
}

/// One argument as rustc_codegen_ssa passes it (one backend value) and its IR parts.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct ArgShape {
    pub ty: Type,
    pub parts: Vec<Part>,
}

/// A function signature as the shim uses it (rustc_codegen_ssa's `FunctionSignature`).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct SigData {
    /// A hidden first parameter: the address of the caller's return buffer.
    pub sret: bool,
    /// Arguments after the sret pointer, one per rustc_codegen_ssa-level argument.
    pub args: Vec<ArgShape>,
    /// The returned value (`None`: nothing returned, or returned through sret).
    pub ret: Option<ArgShape>,
    /// C varargs follow the fixed arguments.
    pub variadic: bool,
    /// The IR signature: all parts of all arguments, sret first.
    pub ir: ir::Signature,
}

/// A handle to an interned signature.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct FnSig(u32);

impl std::fmt::Debug for FnSig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "sig{}", self.0)
    }
}

/// The interned types and signatures of one codegen unit.
#[derive(Default)]
pub struct TypeTable {
    types: Vec<TyData>,
    type_ids: FxHashMap<TyData, Type>,
    sigs: Vec<Rc<SigData>>,
    sig_ids: FxHashMap<Rc<SigData>, FnSig>,
}

impl TypeTable {
    pub fn intern(&mut self, data: TyData) -> Type {
        if let Some(&t) = self.type_ids.get(&data) {
            return t;
        }
        let t = Type(self.types.len() as u32);
        self.types.push(data.clone());
        self.type_ids.insert(data, t);
        t
    }

    pub fn get(&self, t: Type) -> &TyData {
        &self.types[t.0 as usize]
    }

    pub fn intern_sig(&mut self, data: SigData) -> FnSig {
        if let Some(&s) = self.sig_ids.get(&data) {
            return s;
        }
        let s = FnSig(self.sigs.len() as u32);
        let data = Rc::new(data);
        self.sigs.push(data.clone());
        self.sig_ids.insert(data, s);
        s
    }

    pub fn sig(&self, s: FnSig) -> Rc<SigData> {
        self.sigs[s.0 as usize].clone()
    }

    /// Size in bytes of a value of `t` in memory.
    pub fn size(&self, t: Type) -> u64 {
        match *self.get(t) {
            TyData::Void => 0,
            TyData::Int(bits) => (bits as u64).div_ceil(8),
            TyData::F16 => 2,
            TyData::F32 => 4,
            TyData::F64 | TyData::Ptr => 8,
            TyData::F128 => 16,
            TyData::Bytes { size, .. } | TyData::Struct { size, .. } => size,
            TyData::Array { elem, len } | TyData::Vector { elem, len } => self.size(elem) * len,
        }
    }

    /// Alignment in bytes of `t` in memory (the data layout's ABI alignment).
    pub fn align(&self, t: Type) -> u64 {
        match *self.get(t) {
            TyData::Void => 1,
            TyData::Int(bits) => match bits {
                0..=8 => 1,
                9..=16 => 2,
                17..=32 => 4,
                33..=64 => 8,
                _ => 16,
            },
            TyData::F16 => 2,
            TyData::F32 => 4,
            TyData::F64 | TyData::Ptr => 8,
            TyData::F128 => 16,
            TyData::Bytes { align, .. } | TyData::Struct { align, .. } => align,
            TyData::Array { elem, .. } => self.align(elem),
            TyData::Vector { elem, len } => (self.size(elem) * len).next_power_of_two(),
        }
    }

    /// The IR type holding a scalar of type `t`; `None` for aggregates and `Void`. The
    /// float formats the machine lacks (f16, f128) are held as their IEEE bits in an
    /// integer of their width: they move, load, store and travel as arguments like one,
    /// and the builder refuses the operations that need their arithmetic.
    pub fn ir_type(&self, t: Type) -> Option<ir::Type> {
        Some(match *self.get(t) {
            TyData::Int(1) => ir::Type::I1,
            TyData::Int(8) => ir::Type::I8,
            TyData::Int(16) => ir::Type::I16,
            TyData::Int(bits) if bits <= 32 => ir::Type::I32,
            TyData::Int(bits) if bits <= 64 => ir::Type::I64,
            TyData::Int(128) => ir::Type::I128,
            TyData::F16 => ir::Type::I16,
            TyData::F32 => ir::Type::F32,
            TyData::F64 => ir::Type::F64,
            TyData::F128 => ir::Type::I128,
            TyData::Ptr => ir::Type::Ptr,
            _ => return None,
        })
    }

    /// The fields of an aggregate type with their offsets (array elements included).
    pub fn fields(&self, t: Type) -> Option<Vec<(Type, u64)>> {
        match *self.get(t) {
            TyData::Struct { ref fields, .. } => Some(fields.to_vec()),
            TyData::Array { elem, len } | TyData::Vector { elem, len } => {
                let size = self.size(elem);
                Some((0..len).map(|i| (elem, i * size)).collect())
            }
            _ => None,
        }
    }

    pub fn is_aggregate(&self, t: Type) -> bool {
        matches!(
            self.get(t),
            TyData::Struct { .. } | TyData::Array { .. } | TyData::Vector { .. }
        )
    }

    /// The parts (IR parameters) of a value of type `t`, with the default extension of
    /// narrow integers (see `Part`): aggregates by their scalar fields.
    pub fn parts(
        &self,
        t: Type,
        scalar_ext: impl Fn(usize, Type) -> Ext,
    ) -> Result<Vec<Part>, String> {
        let part = |ty: Type, field: Option<u32>| -> Result<Part, String> {
            let index = field.unwrap_or(0) as usize;
            let ir = self
                .ir_type(ty)
                .ok_or_else(|| format!("arguments of type {:?}", self.get(ty)))?;
            let (abi, ext) = match ir {
                ir::Type::I1 | ir::Type::I8 | ir::Type::I16 | ir::Type::I32 => {
                    (ir::Type::I64, scalar_ext(index, ty))
                }
                ir::Type::I64 if !matches!(self.get(ty), TyData::Int(64)) => {
                    // An odd-sized cast register held in an i64 (upper bytes zero).
                    (ir::Type::I64, Ext::None)
                }
                other => (other, Ext::None),
            };
            Ok(Part {
                ty,
                field,
                abi,
                ext,
            })
        };
        match self.get(t) {
            TyData::Void => Ok(Vec::new()),
            TyData::Struct { .. } | TyData::Array { .. } | TyData::Vector { .. } => {
                let fields = self.fields(t).unwrap();
                let mut parts = Vec::with_capacity(fields.len());
                for (i, (ft, _)) in fields.into_iter().enumerate() {
                    if self.is_aggregate(ft) {
                        return Err("nested aggregates as arguments".to_string());
                    }
                    parts.push(part(ft, Some(i as u32))?);
                }
                Ok(parts)
            }
            _ => Ok(vec![part(t, None)?]),
        }
    }
}

/// The machine's convention for a narrow integer without a signedness of its own:
/// 32-bit values travel sign-extended (their canonical form), others zero-extended
/// (an f16's bits included).
pub fn default_ext(table: &TypeTable, t: Type) -> Ext {
    match table.get(t) {
        TyData::Int(32) => Ext::Sext,
        TyData::Int(_) | TyData::F16 => Ext::Zext,
        _ => Ext::None,
    }
}
