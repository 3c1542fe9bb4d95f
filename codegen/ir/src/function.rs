//! Functions: signature, linkage, data-flow graph, layout, frame and references.

use crate::dfg::DataFlowGraph;
use crate::entities::{Block, FuncRef, GlobalRef, Inst, SigRef, StackSlot};
use crate::layout::Layout;
use crate::types::Type;
use core::fmt;
use cranelift_entity::{PrimaryMap, SecondaryMap};

/// Parameter and return types. A variadic function takes any further arguments after
/// `params` (each of any type).
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Signature {
    pub params: Vec<Type>,
    pub returns: Vec<Type>,
    pub variadic: bool,
}

impl Signature {
    pub fn new(params: &[Type], returns: &[Type]) -> Self {
        Signature {
            params: params.to_vec(),
            returns: returns.to_vec(),
            variadic: false,
        }
    }
}

/// Symbol visibility. `Import` only describes declarations; definitions are `Export`
/// (global symbol), `Local` (file-local) or `Weak`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Linkage {
    Export,
    #[default]
    Local,
    Weak,
    Import,
}

impl Linkage {
    pub fn name(self) -> &'static str {
        match self {
            Linkage::Export => "export",
            Linkage::Local => "local",
            Linkage::Weak => "weak",
            Linkage::Import => "import",
        }
    }

    pub fn from_name(s: &str) -> Option<Linkage> {
        [
            Linkage::Export,
            Linkage::Local,
            Linkage::Weak,
            Linkage::Import,
        ]
        .into_iter()
        .find(|l| l.name() == s)
    }
}

impl fmt::Display for Linkage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What the source says about inlining a function: Rust's `#[inline]`,
/// `#[inline(always)]`, `#[inline(never)]` (text `inline`, `inline(always)`,
/// `inline(never)` after the linkage). A hint to the inliner (`docs/rvsdg.md` §5), not
/// a semantic property: a call behaves the same inlined or not.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum InlineHint {
    /// No attribute: the inliner decides by size.
    #[default]
    Default,
    /// `#[inline]`: worth inlining at a larger size.
    Hint,
    /// `#[inline(always)]`: inline wherever possible.
    Always,
    /// `#[inline(never)]`: never inline.
    Never,
}

impl InlineHint {
    /// The text form: `inline`, `inline(always)`, `inline(never)`; empty for
    /// `Default` (which is not printed).
    pub fn text(self) -> &'static str {
        match self {
            InlineHint::Default => "",
            InlineHint::Hint => "inline",
            InlineHint::Always => "inline(always)",
            InlineHint::Never => "inline(never)",
        }
    }
}

impl fmt::Display for InlineHint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

/// A stack slot: `size` bytes aligned to `align` (a power of two), in each activation.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct StackSlotData {
    pub size: u32,
    pub align: u32,
}

/// A function called directly, by symbol name (a function of the module or an
/// external one).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct ExtFuncData {
    pub name: String,
    pub signature: Signature,
    /// The callee cannot unwind (rustc's `nounwind`; text ` nounwind` after the
    /// signature): a call of it needs no landing pad, and the RVSDG's inliner may
    /// copy a body that calls only such functions into an invoke's call.
    pub nounwind: bool,
}

/// A source position: index into the function's `files`, line and column (1-based). The
/// default (all zero) means "no location".
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct SourceLoc {
    pub file: u32,
    pub line: u32,
    pub col: u32,
}

impl SourceLoc {
    pub fn new(file: u32, line: u32, col: u32) -> Self {
        SourceLoc { file, line, col }
    }

    pub fn is_default(self) -> bool {
        self == SourceLoc::default()
    }
}

/// What the source promises about a pointer parameter during a call (rustc's argument
/// attributes, as LLVM has them): facts the optimizer may use, which change nothing
/// that runs. Only on `ptr` parameters (the verifier checks it).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct ParamAttrs {
    /// `noalias`: while the function runs, the memory it accesses through this pointer
    /// (or a pointer derived from it) is accessed through no pointer not derived from
    /// it (Rust's `&mut T`, and `&T` without interior mutability).
    pub noalias: bool,
    /// `readonly`: the function does not write through this pointer (or one derived
    /// from it).
    pub readonly: bool,
}

impl ParamAttrs {
    pub fn is_empty(self) -> bool {
        self == ParamAttrs::default()
    }
}

/// A function definition.
#[derive(Clone, Debug, Default)]
pub struct Function {
    pub name: String,
    pub signature: Signature,
    pub linkage: Linkage,
    /// The source's inlining attribute (text after the linkage).
    pub inline: InlineHint,
    /// `#[cold]`: rarely called (text `cold`, after the inlining attribute); the
    /// inliner keeps such a callee out of line unless it is tiny.
    pub cold: bool,
    /// The personality routine of the function's landing pads (text `personality
    /// @sym`, after `cold`): the unwinder calls it for the function's frame, and it
    /// reads the call-site table the back end writes (`.gcc_except_table`). Rust's is
    /// `rust_eh_personality`.
    pub personality: Option<String>,
    pub dfg: DataFlowGraph,
    pub layout: Layout,
    pub stack_slots: PrimaryMap<StackSlot, StackSlotData>,
    /// Direct callees.
    pub ext_funcs: PrimaryMap<FuncRef, ExtFuncData>,
    /// Signatures of indirect calls.
    pub signatures: PrimaryMap<SigRef, Signature>,
    /// Symbols whose address is taken by `symbol_addr`.
    pub globals: PrimaryMap<GlobalRef, String>,
    /// Source location of each instruction (default: none).
    pub srclocs: SecondaryMap<Inst, SourceLoc>,
    /// The attributes of each parameter (text: after its type), by position; shorter
    /// than the parameter list when the last ones have none (empty: none at all).
    pub param_attrs: Vec<ParamAttrs>,
    /// File names that `SourceLoc::file` indexes.
    pub files: Vec<String>,
}

impl Function {
    /// An empty function (no blocks).
    pub fn new(name: impl Into<String>, signature: Signature, linkage: Linkage) -> Self {
        Function {
            name: name.into(),
            signature,
            linkage,
            ..Default::default()
        }
    }

    /// The attributes of parameter `i` (none past the list).
    pub fn param_attrs(&self, i: usize) -> ParamAttrs {
        self.param_attrs.get(i).copied().unwrap_or_default()
    }

    /// Sets the attributes of parameter `i` (growing the list as needed).
    pub fn set_param_attrs(&mut self, i: usize, attrs: ParamAttrs) {
        if self.param_attrs.len() <= i {
            if attrs.is_empty() {
                return;
            }
            self.param_attrs.resize(i + 1, ParamAttrs::default());
        }
        self.param_attrs[i] = attrs;
    }

    /// The first block of the layout.
    pub fn entry_block(&self) -> Option<Block> {
        self.layout.entry_block()
    }

    /// The last instruction of `block` if it is a terminator.
    pub fn block_terminator(&self, block: Block) -> Option<Inst> {
        let last = self.layout.last_inst(block)?;
        self.dfg.opcode(last).is_terminator().then_some(last)
    }

    /// Whether `block` ends in a terminator.
    pub fn is_block_terminated(&self, block: Block) -> bool {
        self.block_terminator(block).is_some()
    }

    /// Add a stack slot.
    pub fn create_stack_slot(&mut self, size: u32, align: u32) -> StackSlot {
        self.stack_slots.push(StackSlotData { size, align })
    }

    /// A reference to the function `name` with `signature`, reusing an existing one with
    /// the same name and signature.
    pub fn import_function(&mut self, name: &str, signature: Signature) -> FuncRef {
        if let Some((r, _)) = self
            .ext_funcs
            .iter()
            .find(|(_, d)| d.name == name && d.signature == signature)
        {
            return r;
        }
        self.ext_funcs.push(ExtFuncData {
            name: name.to_string(),
            signature,
            nounwind: false,
        })
    }

    /// A signature reference for `call_indirect`, reusing an equal one.
    pub fn import_signature(&mut self, signature: Signature) -> SigRef {
        if let Some((r, _)) = self.signatures.iter().find(|(_, s)| **s == signature) {
            return r;
        }
        self.signatures.push(signature)
    }

    /// A reference to symbol `name` for `symbol_addr`, reusing an existing one.
    pub fn import_global(&mut self, name: &str) -> GlobalRef {
        if let Some((r, _)) = self.globals.iter().find(|(_, s)| *s == name) {
            return r;
        }
        self.globals.push(name.to_string())
    }

    /// The index of file `name` in `files`, adding it if new.
    pub fn add_file(&mut self, name: &str) -> u32 {
        if let Some(i) = self.files.iter().position(|f| f == name) {
            return i as u32;
        }
        self.files.push(name.to_string());
        (self.files.len() - 1) as u32
    }

    /// The instructions of the layout, block by block.
    pub fn insts_in_layout(&self) -> impl Iterator<Item = (Block, Inst)> + '_ {
        self.layout
            .blocks()
            .flat_map(move |b| self.layout.block_insts(b).map(move |i| (b, i)))
    }

    /// The first unwinding instruction (`invoke`, `invoke_indirect`, `landing_pad`,
    /// `resume`) of the function, if it has one.
    pub fn unwinding_opcode(&self) -> Option<crate::Opcode> {
        self.insts_in_layout()
            .map(|(_, i)| self.dfg.opcode(i))
            .find(|op| op.is_invoke() || (op.is_landing_pad() || *op == crate::Opcode::Resume))
    }
}
