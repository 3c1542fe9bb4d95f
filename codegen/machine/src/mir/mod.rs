//! The machine IR ("machine SSA"): functions of machine blocks holding target
//! operations on virtual or physical registers.
//!
//! - Every operation ([`MInst`]) is a `vliw_isa::Opcode` or a pseudo operation
//!   ([`MOp::Copy`], [`MOp::ParallelCopy`], [`MOp::Psi`]), and carries a guard
//!   ([`MGuard`]: a predicate register and its polarity). Instruction selection guards
//!   only branches and traps; if-conversion will guard the rest.
//! - Registers ([`Reg`]) are virtual ([`VReg`], of class [`RegClass::Gpr`] or
//!   [`RegClass::Pred`]) or physical ([`PReg`]). Before register allocation every
//!   virtual register has exactly one definition (SSA); blocks have parameters, and
//!   only the unconditional `br` that ends a block passes block arguments.
//! - Immediates ([`Imm`]) may be symbolic (symbols, blocks, jump tables, frame slots,
//!   incoming arguments) until frame layout and emission resolve them.
//!
//! - Operations live in an arena ([`MachFunction::insts`], ids [`InstId`] that stay
//!   valid while passes reorder or rebuild blocks); each block is an order of ids.
//! - After frame lowering the function has its [`FrameLayout`]; after bundling, its
//!   [`Bundles`] (groups of operations per block).
//!
//! One concept per file: `entities` (blocks, operations, registers, slots, jump
//! tables), `inst` (operations), `function` (the function and its helpers),
//! `frame_layout`, `bundles`, `encoding` (the `vliw_isa::Inst` of an allocated
//! operation), `display` and `parse` (the text form, printed by `dump=` and read back
//! losslessly), `verify` (the invariants of each [`Phase`]), `compare` (equality up
//! to what the text does not record).
//!
//! `docs/machine.md` §2 describes the conventions, the text grammar and the verifier.

mod bundles;
mod compare;
mod display;
mod encoding;
mod entities;
mod frame_layout;
mod function;
mod inst;
mod parse;
mod verify;

#[cfg(test)]
mod tests;

pub use bundles::Bundles;
pub use encoding::{encoding_of, to_inst};
pub use entities::{FrameSlot, InstId, JumpTable, MBlock, PReg, Reg, RegClass, VReg};
pub use frame_layout::FrameLayout;
pub use function::{FrameSlotData, FrameSlotKind, MBlockData, MachFunction, PipelinedLoop};
pub use inst::{Imm, MGuard, MInst, MOp, Unwind, field_class, operand_fields};
pub use parse::{ParseError, parse_machine_function, parse_machine_functions};
pub use verify::{Phase, VerifyError, VerifyErrors};
