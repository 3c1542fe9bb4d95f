//! `vliw-isa`: the one machine description of the VLIW target.
//!
//! Opcodes, operand formats, encodings, functional units, latencies and the issue
//! width are data here (`opcode.rs`, `format.rs`, `machine.rs`); the encoder and
//! decoder (`inst.rs`, `bundle.rs`), the assembly text form (`text.rs`), the
//! simulator and the compiler all read them, so they cannot disagree.

pub mod reloc;

pub use reloc::{EF_VLIW_ISA_V1, EM_VLIW, RelocError, RelocKind, apply_reloc, read_reloc_field, reloc_value};

/// Size of one syllable (operation) in bytes.
pub const SYLLABLE_BYTES: u64 = 8;

/// A bundle of a single `nop` with the stop bit set: the linker's filler for text.
pub const NOP_BUNDLE: u64 = 0x8040_0000_0000_0000;
