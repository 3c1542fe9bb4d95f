//! Operand formats and their bit layouts.
//!
//! A syllable is 64 bits, little-endian in memory:
//!
//! ```text
//!  63    62..54   53    52..49   48 ............................. 0
//! stop   opcode   neg   guard    operand fields (layout per format)
//! ```
//!
//! The immediate field, where a format has one, is always bits [31:0]; relocations
//! rely on that. Bits a format does not use must be zero.

/// What an operand field holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldKind {
    /// Destination general register.
    Rd,
    /// Source general registers.
    Rs1,
    Rs2,
    Rs3,
    /// Destination predicates (compares write two; predicate logic writes one).
    Pd1,
    Pd2,
    /// Source predicates (of `sel`, predicate logic, `p2r`).
    Ps1,
    Ps2,
    /// Compare type of IA-64 style compares (`CmpType`).
    CmpType,
    /// 32-bit immediate, bits [31:0].
    Imm,
}

/// Position of one operand field in a syllable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldSpec {
    pub kind: FieldKind,
    pub lsb: u8,
    pub width: u8,
}

impl FieldSpec {
    pub const fn mask(self) -> u64 {
        ((1u64 << self.width) - 1) << self.lsb
    }
    pub const fn get(self, word: u64) -> u64 {
        (word >> self.lsb) & ((1u64 << self.width) - 1)
    }
}

const fn field(kind: FieldKind, lsb: u8, width: u8) -> FieldSpec {
    FieldSpec { kind, lsb, width }
}

use FieldKind::*;

// Register fields A..D, predicate fields, and the immediate.
const RD_A: FieldSpec = field(Rd, 43, 6);
const RS1_B: FieldSpec = field(Rs1, 37, 6);
const RS2_C: FieldSpec = field(Rs2, 26, 6);
const RS3_D: FieldSpec = field(Rs3, 20, 6);
const RS2_A: FieldSpec = field(Rs2, 43, 6);
const IMM: FieldSpec = field(Imm, 0, 32);
const PD1: FieldSpec = field(Pd1, 45, 4);
const PD2: FieldSpec = field(Pd2, 41, 4);
const CMP_RS1: FieldSpec = field(Rs1, 35, 6);
const CMP_TYPE: FieldSpec = field(CmpType, 32, 3);
const SEL_PS1: FieldSpec = field(Ps1, 32, 4);
const PL_PS1: FieldSpec = field(Ps1, 41, 4);
const PL_PS2: FieldSpec = field(Ps2, 37, 4);
const P2R_PS1: FieldSpec = field(Ps1, 39, 4);

/// Operand formats. The assembly syntax of each is given in its doc comment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `op`
    None,
    /// `limm IMM` (the high 32 bits of the next syllable's immediate)
    Limm,
    /// `op rd = rs1`
    R1,
    /// `op rd = rs1, rs2`
    R2,
    /// `op rd = rs1, rs2, rs3`
    R3,
    /// `op rd = rs1, IMM`
    RImm,
    /// `op rd = IMM`
    Imm,
    /// `op rd = TARGET` (pc-relative)
    PcRel,
    /// `op rd = ps1, rs1, rs2`
    Sel,
    /// `op[.ctype] pd1, pd2 = rs1, rs2`
    Cmp,
    /// `op[.ctype] pd1, pd2 = rs1, IMM`
    CmpImm,
    /// `op pd1 = ps1, ps2`
    PLogic,
    /// `op pd1 = ps1`
    PUnary,
    /// `op rd = ps1`
    P2R,
    /// `op pd1 = rs1`
    R2P,
    /// `op rd = [rs1 + IMM]`
    Load,
    /// `op [rs1 + IMM] = rs2`
    Store,
    /// `op rd = [rs1], rs2`
    Amo,
    /// `op rd = [rs1], rs2, rs3`
    Cas,
    /// `op TARGET` (pc-relative)
    Branch,
    /// `op rs1`
    Jump,
    /// `op IMM`
    Sys,
}

impl Format {
    pub const ALL: [Format; 22] = [
        Format::None,
        Format::Limm,
        Format::R1,
        Format::R2,
        Format::R3,
        Format::RImm,
        Format::Imm,
        Format::PcRel,
        Format::Sel,
        Format::Cmp,
        Format::CmpImm,
        Format::PLogic,
        Format::PUnary,
        Format::P2R,
        Format::R2P,
        Format::Load,
        Format::Store,
        Format::Amo,
        Format::Cas,
        Format::Branch,
        Format::Jump,
        Format::Sys,
    ];

    /// The operand fields of this format and where they sit.
    pub const fn fields(self) -> &'static [FieldSpec] {
        match self {
            Format::None => &[],
            Format::Limm | Format::Branch | Format::Sys => &[IMM],
            Format::R1 => &[RD_A, RS1_B],
            Format::R2 => &[RD_A, RS1_B, RS2_C],
            Format::R3 => &[RD_A, RS1_B, RS2_C, RS3_D],
            Format::RImm | Format::Load => &[RD_A, RS1_B, IMM],
            Format::Imm | Format::PcRel => &[RD_A, IMM],
            Format::Sel => &[RD_A, RS1_B, SEL_PS1, RS2_C],
            Format::Cmp => &[PD1, PD2, CMP_RS1, CMP_TYPE, RS2_C],
            Format::CmpImm => &[PD1, PD2, CMP_RS1, CMP_TYPE, IMM],
            Format::PLogic => &[PD1, PL_PS1, PL_PS2],
            Format::PUnary => &[PD1, PL_PS1],
            Format::P2R => &[RD_A, P2R_PS1],
            Format::R2P => &[PD1, RS1_B],
            Format::Store => &[RS2_A, RS1_B, IMM],
            Format::Amo => &[RD_A, RS1_B, RS2_C],
            Format::Cas => &[RD_A, RS1_B, RS2_C, RS3_D],
            Format::Jump => &[RS1_B],
        }
    }

    /// Bits of the operand area this format uses.
    pub fn used_mask(self) -> u64 {
        self.fields().iter().fold(0, |m, f| m | f.mask())
    }

    pub fn has(self, kind: FieldKind) -> bool {
        self.fields().iter().any(|f| f.kind == kind)
    }

    pub fn field(self, kind: FieldKind) -> Option<FieldSpec> {
        self.fields().iter().copied().find(|f| f.kind == kind)
    }

    /// Formats whose immediate a preceding `limm` syllable may extend to 64 bits.
    pub fn is_extendable(self) -> bool {
        matches!(
            self,
            Format::RImm | Format::Imm | Format::Load | Format::Store | Format::CmpImm
        )
    }

    /// Formats whose immediate is a byte offset from the syllable's own address.
    pub fn is_pc_relative(self) -> bool {
        matches!(self, Format::PcRel | Format::Branch)
    }
}

/// Header fields common to all syllables.
pub mod header {
    pub const STOP_BIT: u64 = 1 << 63;
    pub const OPCODE_LSB: u32 = 54;
    pub const OPCODE_MASK: u64 = 0x1ff;
    pub const GUARD_NEG_BIT: u64 = 1 << 53;
    pub const GUARD_LSB: u32 = 49;
    pub const GUARD_MASK: u64 = 0xf;
    /// Bits [48:0]: the operand area.
    pub const OPERAND_AREA: u64 = (1 << 49) - 1;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_do_not_overlap_and_stay_in_the_operand_area() {
        for format in Format::ALL {
            let mut seen = 0u64;
            for f in format.fields() {
                assert_eq!(seen & f.mask(), 0, "{format:?}: {:?} overlaps", f.kind);
                assert_eq!(
                    f.mask() & !header::OPERAND_AREA,
                    0,
                    "{format:?}: {:?} outside operand area",
                    f.kind
                );
                seen |= f.mask();
            }
            if let Some(imm) = format.field(FieldKind::Imm) {
                assert_eq!(
                    (imm.lsb, imm.width),
                    (0, 32),
                    "immediates are always bits [31:0]"
                );
            }
        }
    }
}
