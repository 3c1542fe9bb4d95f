//! Typed indices of the IR's arenas (`cranelift-entity`).
//!
//! Each prints with a prefix and its number, which is also its text-form name:
//! `block3`, `v7`, `ss0`, `fn1`, `sig0`, `gv2`, and `inst5` (instructions have no name in
//! the text form; `inst5` appears only in diagnostics).

use cranelift_entity::entity_impl;

/// A basic block.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block(u32);
entity_impl!(Block, "block");

/// An instruction.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Inst(u32);
entity_impl!(Inst, "inst");

/// An SSA value: an instruction result or a block parameter.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(u32);
entity_impl!(Value, "v");

/// A stack slot of a function's frame.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StackSlot(u32);
entity_impl!(StackSlot, "ss");

/// A function a function calls directly (by symbol name).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncRef(u32);
entity_impl!(FuncRef, "fn");

/// A signature used by `call_indirect`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SigRef(u32);
entity_impl!(SigRef, "sig");

/// A symbol (function or data) whose address a function takes with `symbol_addr`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalRef(u32);
entity_impl!(GlobalRef, "gv");

/// Blocks are the nodes of the shared graph algorithms (`vliw_ssa::Graph`) by their
/// dense index.
impl vliw_ssa::Node for Block {
    fn from_index(index: usize) -> Self {
        cranelift_entity::EntityRef::new(index)
    }

    fn to_index(self) -> usize {
        cranelift_entity::EntityRef::index(self)
    }
}
