//! `vliw-machine`: the back end, from a `vliw_ir::Function` to machine code and a
//! `vliw_elf::Object`. Free of rustc. Its passes are entries of the pipeline list
//! (`vliw_pipeline::PIPELINE`), which runs them in order; here each is a function
//! of the machine IR.
//!
//! The passes, per function (each step a module):
//!
//! 1. `lower`: instruction selection and legalization into machine SSA (`mir`):
//!    canonical forms of narrow integers, `i128` as register pairs, calls per the
//!    calling convention (`abi`);
//! 2. `regalloc=naive`: `destruct`, leaving SSA (`ssa-destruction=copies|sreedhar3|
//!    boissinot|virtual`), then `regalloc`, the naive register allocator; `regalloc=ssa`:
//!    `ssa_regalloc`, spilling and colouring on SSA, then leaving SSA on the colours;
//! 3. `frame`: frame layout, prologue and epilogues;
//! 4. `sched`: bundling (`sched=off`: one operation per bundle; `sched=list`: list
//!    scheduling), then `emit`: encoding;
//! 5. `object`: sections, symbols and relocations of the module.
//!
//! `docs/machine.md` is the reference.

pub mod abi;
pub mod analysis_timing;
pub mod cfi;
pub mod copy_blocks;
pub mod cse;
pub mod destruct;
pub mod dwarf;
pub mod eh_frame;
pub mod emit;
pub mod error;
pub mod frame;
pub mod ifconv;
pub mod index_split;
pub mod interp;
pub mod licm;
pub mod load_rotation;
pub mod lower;
pub mod mir;
pub mod negate;
pub mod object;
pub mod offsets;
pub mod options;
pub mod pcp;
pub mod psi;
pub mod reassoc;
pub mod regalloc;
pub mod sched;
pub mod shift_add;
pub mod sink_common;
pub mod ssa_regalloc;
pub mod ssa_view;
pub mod tail_dup;
#[cfg(test)]
mod test_support;

pub use error::CompileError;
pub use lower::{lower_function, trap_code};
pub use mir::{
    FrameSlot, Imm, JumpTable, MBlock, MGuard, MInst, MOp, MachFunction, PReg, Reg, RegClass, VReg,
};
pub use options::{Counters, Options, RegAlloc, Sched, SsaDestruction};
