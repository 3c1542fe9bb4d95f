//! `vliw-asm`: the assembler and disassembler of the VLIW target.
//!
//! - [`assemble`] turns assembly text (syntax: `docs/assembly.md`) into a
//!   [`vliw_elf::Object`], reporting every error it finds as `FILE:LINE:COL: error: ...`.
//! - [`disassemble_object`] and [`disassemble_executable`] print objects and
//!   executables bundle by bundle, objdump style; with [`DisasmOptions::reassemble`]
//!   an object is printed as source that [`assemble`] turns back into the same bytes
//!   and relocations.
//!
//! The text of a single operation belongs to `vliw_isa::text` (shared by both
//! directions); this crate adds labels, bundles, directives, sections and symbols.

mod assemble;
mod bundles;
mod cfi;
pub mod cli;
mod code;
mod directives;
mod disasm;
mod error;
mod expr;
mod finish;
mod frames;
mod lines;
mod objdump;
mod reassemble;
mod sections;
mod strings;
mod symbols;

pub use assemble::assemble;
pub use disasm::{DisasmOptions, disassemble_executable, disassemble_object};
pub use error::AsmError;
pub use objdump::objdump_file;
pub use reassemble::reassemble;
