//! The shim's values: what `rustc_codegen_ssa` calls `Value`.
//!
//! A `Value` is a small `Copy` handle into a per-codegen-unit table. Only `Ir` entries
//! are IR values (of one function). Constants stay symbolic until an instruction uses
//! them, and are then materialized at the builder's insertion point
//! (`Builder::ir_value`); this is what lets rustc_codegen_ssa create constants without a
//! builder, share them between functions (vtables, string literals) and put them in
//! statics. Aggregates (pairs, `PassMode::Cast` register lists, `insert_value` results,
//! constant structs) are lists of handles: the IR has no aggregate values.

use std::rc::Rc;

use vliw_ir as ir;

use crate::context::FuncId;
use crate::types::Type;

/// A handle to an entry of the codegen unit's value table.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Value(u32);

impl std::fmt::Debug for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "val{}", self.0)
    }
}

/// A symbol the module defines or references, by index into the unit's symbol table.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct SymbolId(pub u32);

#[derive(Clone, Debug)]
pub enum ValueData {
    /// An SSA value of function `func`.
    Ir {
        func: FuncId,
        value: ir::Value,
        ty: Type,
    },
    /// An integer constant (masked to the type's width) of an integer type, or a
    /// pointer constant that is a plain address (`ty` = ptr).
    Int { ty: Type, bits: u128 },
    /// A float constant: the bit pattern of an `f32` or `f64`.
    Float { ty: Type, bits: u64 },
    /// An arbitrary value (rustc's `undef` and `poison`).
    Undef { ty: Type },
    /// The address of a symbol plus a byte offset, as a pointer (or, after a constant
    /// `ptrtoint`, as an `i64`).
    SymAddr {
        ty: Type,
        sym: SymbolId,
        offset: i64,
    },
    /// An aggregate: one value per field of `ty` (a struct, array or vector type).
    Aggregate { ty: Type, elems: Rc<[Value]> },
}

impl ValueData {
    pub fn ty(&self) -> Type {
        match *self {
            ValueData::Ir { ty, .. }
            | ValueData::Int { ty, .. }
            | ValueData::Float { ty, .. }
            | ValueData::Undef { ty }
            | ValueData::SymAddr { ty, .. }
            | ValueData::Aggregate { ty, .. } => ty,
        }
    }
}

/// The value table of one codegen unit.
#[derive(Default)]
pub struct ValueTable {
    values: Vec<ValueData>,
}

impl ValueTable {
    pub fn push(&mut self, data: ValueData) -> Value {
        let v = Value(self.values.len() as u32);
        self.values.push(data);
        v
    }

    pub fn get(&self, v: Value) -> &ValueData {
        &self.values[v.0 as usize]
    }
}
