//! Modules: functions, data objects and declarations of external symbols.

use crate::function::{Function, Linkage, Signature};

/// Where a data object goes.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum DataKind {
    /// Read-only (`.rodata`), text `rodata`.
    ReadOnly,
    /// Writable, initialized (`.data`), text `data`.
    Data,
    /// Writable, zero-initialized (`.bss`), text `bss`: all bytes zero, no relocations.
    Bss,
}

impl DataKind {
    pub fn name(self) -> &'static str {
        match self {
            DataKind::ReadOnly => "rodata",
            DataKind::Data => "data",
            DataKind::Bss => "bss",
        }
    }

    pub fn from_name(s: &str) -> Option<DataKind> {
        [DataKind::ReadOnly, DataKind::Data, DataKind::Bss]
            .into_iter()
            .find(|k| k.name() == s)
    }
}

/// Kind of a data relocation.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum RelocKind {
    /// The 64-bit absolute address of `symbol + addend`, little-endian.
    Abs64,
}

/// A relocation in a data object: at `offset`, the address of `symbol + addend`.
/// The bytes it covers are zero in `DataObject::bytes`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct DataReloc {
    pub offset: u64,
    pub symbol: String,
    pub addend: i64,
    pub kind: RelocKind,
}

/// A global variable or constant.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct DataObject {
    pub name: String,
    pub linkage: Linkage,
    pub kind: DataKind,
    /// Alignment in bytes, a power of two.
    pub align: u64,
    pub bytes: Vec<u8>,
    /// Sorted by offset, not overlapping.
    pub relocs: Vec<DataReloc>,
    /// Thread-local (text `thread_local`): each thread has its own copy, whose address
    /// `tls_addr` gives (never `symbol_addr` or a relocation). Kind `data` or `bss`.
    pub thread_local: bool,
}

/// An external function the module refers to.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct FuncDecl {
    pub name: String,
    pub signature: Signature,
}

/// A compilation unit.
#[derive(Clone, Debug, Default)]
pub struct Module {
    pub functions: Vec<Function>,
    pub data: Vec<DataObject>,
    /// External functions (`declare function @name(...)`).
    pub func_decls: Vec<FuncDecl>,
    /// External data symbols (`declare data @name`).
    pub data_decls: Vec<String>,
}

impl Module {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    pub fn function_mut(&mut self, name: &str) -> Option<&mut Function> {
        self.functions.iter_mut().find(|f| f.name == name)
    }

    pub fn data_object(&self, name: &str) -> Option<&DataObject> {
        self.data.iter().find(|d| d.name == name)
    }

    pub fn func_decl(&self, name: &str) -> Option<&FuncDecl> {
        self.func_decls.iter().find(|d| d.name == name)
    }

    /// Declare an external function (once per name).
    pub fn declare_function(&mut self, name: &str, signature: Signature) {
        if self.func_decl(name).is_none() {
            self.func_decls.push(FuncDecl {
                name: name.to_string(),
                signature,
            });
        }
    }

    /// Declare an external data symbol (once per name).
    pub fn declare_data(&mut self, name: &str) {
        if !self.data_decls.iter().any(|d| d == name) {
            self.data_decls.push(name.to_string());
        }
    }

    /// Whether `name` is defined or declared in the module (function or data).
    pub fn has_symbol(&self, name: &str) -> bool {
        self.function(name).is_some()
            || self.data_object(name).is_some()
            || self.func_decl(name).is_some()
            || self.data_decls.iter().any(|d| d == name)
    }
}
