//! `vliw-ir`: the compiler's SSA IR, independent of rustc.
//!
//! A [`Module`] holds [`Function`]s, [`DataObject`]s and declarations of external
//! symbols. A function is a control-flow graph of blocks with block parameters (no phi
//! instructions); its [`DataFlowGraph`] owns instructions, values and blocks in arenas
//! with typed indices, its [`Layout`] orders them. Build and edit functions with
//! [`FunctionBuilder`]. The IR reference is `docs/ir.md`.

pub mod builder;
pub mod dfg;
pub mod dominator;
pub mod entities;
pub mod filetest;
pub mod flowgraph;
pub mod function;
pub mod instructions;
pub mod interpreter;
pub mod layout;
pub mod memory;
pub mod module;
pub mod parser;
pub mod semantics;
pub mod types;
pub mod typing;
pub mod verifier;
pub mod write;

pub use builder::{CursorPosition, FunctionBuilder, InstBuilder};
pub use dfg::{BlockData, DataFlowGraph, ValueData, ValueDef};
pub use dominator::{DominatorTree, PostDominatorTree};
pub use entities::{Block, FuncRef, GlobalRef, Inst, SigRef, StackSlot, Value};
pub use flowgraph::ControlFlowGraph;
pub use function::{
    ExtFuncData, Function, InlineHint, Linkage, ParamAttrs, Signature, SourceLoc, StackSlotData,
};
pub use instructions::{
    AliasScope, AtomicRmwOp, BlockCall, FloatCC, InstructionData, InstructionFormat, IntCC,
    MemFlags, Opcode, SwitchData,
};
pub use interpreter::{DataValue, HostFn, Hosts, Interpreter, Trap, TrapKind};
pub use layout::Layout;
pub use memory::{Memory, Stack, Symbols};
pub use module::{DataKind, DataObject, DataReloc, FuncDecl, Module, RelocKind};
pub use parser::{ParseError, parse_function, parse_module};
pub use types::Type;
pub use verifier::{
    VerifierError, VerifierErrors, verify_function, verify_module, verify_module_shallow,
};

pub use cranelift_entity;
