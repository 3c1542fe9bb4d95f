//! `vliw-isa`: the one machine description of the VLIW target.
//!
//! Opcodes, operand formats, encodings, functional units, latencies and the issue
//! width are data here (`opcode.rs`, `format.rs`, `machine.rs`); the encoder and
//! decoder (`inst.rs`, `bundle.rs`), the assembly text of an operation (`text.rs`),
//! the simulator and the compiler all read them, so they cannot disagree. What each
//! operation computes is `semantics.rs`, executed by the simulator and by the back
//! end's machine-IR interpreter.
//! `docs/isa.md` is the manual; `doc_tables.rs` generates its tables from this data.

pub mod abi;
pub mod bundle;
pub mod doc_tables;
pub mod format;
pub mod inst;
pub mod lex;
pub mod machine;
pub mod opcode;
pub mod reg;
pub mod reloc;
pub mod semantics;
pub mod text;

pub use bundle::{BundleError, check_bundle, decode_bundle, encode_bundle, syllable_count};
pub use format::{FieldKind, FieldSpec, Format};
pub use inst::{DecodeError, EncodeError, Encoded, Inst};
pub use machine::{LatencyClass, MAX_WIDTH, MachineConfig, Unit};
pub use opcode::{CmpType, OPCODES, Opcode, OpcodeInfo};
pub use reg::{Gpr, Guard, NUM_GPRS, NUM_PREDS, Pred};
pub use reloc::{
    EF_VLIW_ISA_V1, EM_VLIW, RelocError, RelocKind, apply_reloc, read_reloc_field, reloc_value,
};
pub use text::{ImmExpr, ParseError, ParsedInst, format_inst, parse_inst};

/// Size of one syllable (operation) in bytes.
pub const SYLLABLE_BYTES: u64 = 8;

/// A bundle of a single `nop` with the stop bit set: the linker's filler for text.
pub const NOP_BUNDLE: u64 = 0x8040_0000_0000_0000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nop_bundle_constant_matches_the_encoder() {
        assert_eq!(
            Inst::new(Opcode::Nop).encode(true).unwrap().words(),
            &[NOP_BUNDLE]
        );
    }
}
