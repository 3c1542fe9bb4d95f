//! One decoded operation and its encoding into syllables.

use crate::format::{FieldKind, Format, header};
use crate::opcode::{CmpType, Opcode};
use crate::reg::{Gpr, Guard, Pred};
use std::fmt;

/// A machine operation with all operand fields explicit. Fields that the opcode's
/// format does not use are zero (`r0`, `p0`, `Normal`, 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Inst {
    pub opcode: Opcode,
    pub guard: Guard,
    pub rd: Gpr,
    pub rs1: Gpr,
    pub rs2: Gpr,
    pub rs3: Gpr,
    pub pd1: Pred,
    pub pd2: Pred,
    pub ps1: Pred,
    pub ps2: Pred,
    pub ctype: CmpType,
    /// The immediate: sign-extended from 32 bits, or 64 bits when `long`.
    /// For pc-relative formats, a byte offset from the syllable's own address.
    pub imm: i64,
    /// Encoded as a `limm` syllable followed by this one (the 64-bit form).
    pub long: bool,
}

impl Inst {
    /// An operation with every operand field zero and guard `p0`.
    pub fn new(opcode: Opcode) -> Inst {
        Inst {
            opcode,
            guard: Guard::ALWAYS,
            rd: Gpr::ZERO,
            rs1: Gpr::ZERO,
            rs2: Gpr::ZERO,
            rs3: Gpr::ZERO,
            pd1: Pred::TRUE,
            pd2: Pred::TRUE,
            ps1: Pred::TRUE,
            ps2: Pred::TRUE,
            ctype: CmpType::Normal,
            imm: 0,
            long: false,
        }
    }

    pub fn format(&self) -> Format {
        self.opcode.format()
    }

    /// Number of syllables this operation takes (2 with a `limm`).
    pub fn syllables(&self) -> usize {
        if self.needs_limm() { 2 } else { 1 }
    }

    /// Whether the encoding carries a `limm` syllable.
    pub fn needs_limm(&self) -> bool {
        self.format().is_extendable() && (self.long || i32::try_from(self.imm).is_err())
    }

    /// Encodes into one or two syllables; `stop` sets the stop bit on the last one.
    pub fn encode(&self, stop: bool) -> Result<Encoded, EncodeError> {
        let format = self.format();
        let stop_bit = if stop { header::STOP_BIT } else { 0 };
        let mut word = stop_bit
            | (self.opcode.encoding() << header::OPCODE_LSB)
            | ((self.guard.pred.num() as u64) << header::GUARD_LSB)
            | if self.guard.negated {
                header::GUARD_NEG_BIT
            } else {
                0
            };
        if self.opcode.is_never_guarded() && !self.guard.is_always() {
            return Err(EncodeError::Guarded(self.opcode));
        }
        if format == Format::Cmp || format == Format::CmpImm {
            check_distinct_predicates(self.pd1, self.pd2)
                .map_err(|_| EncodeError::SamePredicateTwice(self.pd1))?;
        }
        let long = self.needs_limm();
        for field in format.fields() {
            let value = match field.kind {
                FieldKind::Rd => self.rd.num() as u64,
                FieldKind::Rs1 => self.rs1.num() as u64,
                FieldKind::Rs2 => self.rs2.num() as u64,
                FieldKind::Rs3 => self.rs3.num() as u64,
                FieldKind::Pd1 => self.pd1.num() as u64,
                FieldKind::Pd2 => self.pd2.num() as u64,
                FieldKind::Ps1 => self.ps1.num() as u64,
                FieldKind::Ps2 => self.ps2.num() as u64,
                FieldKind::CmpType => self.ctype.bits(),
                FieldKind::Imm => self.imm_field(format, long)?,
            };
            word |= value << field.lsb;
        }
        if long {
            let hi = (self.imm as u64) >> 32;
            let limm = (Opcode::Limm.encoding() << header::OPCODE_LSB) | hi;
            Ok(Encoded {
                words: [limm, word],
                len: 2,
            })
        } else {
            Ok(Encoded {
                words: [word, 0],
                len: 1,
            })
        }
    }

    fn imm_field(&self, format: Format, long: bool) -> Result<u64, EncodeError> {
        let imm = self.imm;
        if long {
            return Ok(imm as u64 & 0xffff_ffff);
        }
        if format == Format::Limm {
            return u32::try_from(imm)
                .map(u64::from)
                .map_err(|_| EncodeError::ImmediateOutOfRange(self.opcode, imm));
        }
        let value =
            i32::try_from(imm).map_err(|_| EncodeError::ImmediateOutOfRange(self.opcode, imm))?;
        if format == Format::Branch && value % 8 != 0 {
            return Err(EncodeError::MisalignedTarget(self.opcode, imm));
        }
        Ok(value as u32 as u64)
    }

    /// Decodes one syllable (without resolving a `limm` prefix, see `decode_bundle`).
    /// Returns the operation and the syllable's stop bit.
    pub fn decode(word: u64) -> Result<(Inst, bool), DecodeError> {
        let opcode_field = (word >> header::OPCODE_LSB) & header::OPCODE_MASK;
        let opcode = Opcode::from_encoding(opcode_field)
            .ok_or(DecodeError::IllegalOpcode(opcode_field as u16))?;
        let format = opcode.format();
        let reserved = word & header::OPERAND_AREA & !format.used_mask();
        if reserved != 0 {
            return Err(DecodeError::ReservedBits {
                opcode,
                bits: reserved,
            });
        }
        let mut inst = Inst::new(opcode);
        inst.guard = Guard::new(
            Pred::new(((word >> header::GUARD_LSB) & header::GUARD_MASK) as u8)
                .expect("4-bit field"),
            word & header::GUARD_NEG_BIT != 0,
        );
        if opcode.is_never_guarded() && !inst.guard.is_always() {
            return Err(DecodeError::Guarded(opcode));
        }
        for field in format.fields() {
            let raw = field.get(word);
            let gpr = || Gpr::new(raw as u8).expect("6-bit field");
            let pred = || Pred::new(raw as u8).expect("4-bit field");
            match field.kind {
                FieldKind::Rd => inst.rd = gpr(),
                FieldKind::Rs1 => inst.rs1 = gpr(),
                FieldKind::Rs2 => inst.rs2 = gpr(),
                FieldKind::Rs3 => inst.rs3 = gpr(),
                FieldKind::Pd1 => inst.pd1 = pred(),
                FieldKind::Pd2 => inst.pd2 = pred(),
                FieldKind::Ps1 => inst.ps1 = pred(),
                FieldKind::Ps2 => inst.ps2 = pred(),
                FieldKind::CmpType => inst.ctype = CmpType::from_bits(raw),
                FieldKind::Imm => {
                    inst.imm = if format == Format::Limm {
                        raw as i64
                    } else {
                        raw as u32 as i32 as i64
                    };
                }
            }
        }
        if format == Format::Cmp || format == Format::CmpImm {
            check_distinct_predicates(inst.pd1, inst.pd2)
                .map_err(DecodeError::SamePredicateTwice)?;
        }
        Ok((inst, word & header::STOP_BIT != 0))
    }

    /// General registers read by this operation (excluding `r0`, which is constant),
    /// including the implicit ones: `lr` for `ret`, r3..r8 for `syscall`.
    pub fn gpr_sources(&self) -> impl Iterator<Item = Gpr> + '_ {
        let format = self.format();
        let lr = (self.opcode == Opcode::Ret).then_some(Gpr::LR);
        [
            format.has(FieldKind::Rs1).then_some(self.rs1),
            format.has(FieldKind::Rs2).then_some(self.rs2),
            format.has(FieldKind::Rs3).then_some(self.rs3),
            lr,
        ]
        .into_iter()
        .flatten()
        .chain(self.syscall_args())
        .filter(|r| *r != Gpr::ZERO)
    }

    /// A system call reads its arguments r3..r8.
    fn syscall_args(&self) -> impl Iterator<Item = Gpr> {
        let count = if self.opcode == Opcode::Syscall {
            crate::abi::SYSCALL_ARG_REGS.len()
        } else {
            0
        };
        crate::abi::SYSCALL_ARG_REGS[..count]
            .iter()
            .map(|&n| Gpr::new(n).expect("argument register"))
    }

    /// The general register written, if any (`r0` counts as none).
    pub fn gpr_dest(&self) -> Option<Gpr> {
        if matches!(self.opcode, Opcode::Call | Opcode::Callr) {
            return Some(Gpr::LR);
        }
        if self.opcode == Opcode::Syscall {
            return Some(Gpr::new(3).expect("r3"));
        }
        (self.format().has(FieldKind::Rd) && self.rd != Gpr::ZERO).then_some(self.rd)
    }

    /// Predicates read, including the guard (excluding `p0`, which is constant).
    /// And/or-type compares do not read their destinations: they write them only when
    /// their condition holds and otherwise leave them alone (`CmpType::apply`), so
    /// several of them may target one predicate in a bundle.
    pub fn pred_sources(&self) -> impl Iterator<Item = Pred> + '_ {
        let format = self.format();
        [
            Some(self.guard.pred),
            format.has(FieldKind::Ps1).then_some(self.ps1),
            format.has(FieldKind::Ps2).then_some(self.ps2),
        ]
        .into_iter()
        .flatten()
        .filter(|p| *p != Pred::TRUE)
    }

    /// Predicates written (excluding `p0`).
    pub fn pred_dests(&self) -> impl Iterator<Item = Pred> + '_ {
        let format = self.format();
        [
            format.has(FieldKind::Pd1).then_some(self.pd1),
            format.has(FieldKind::Pd2).then_some(self.pd2),
        ]
        .into_iter()
        .flatten()
        .filter(|p| *p != Pred::TRUE)
    }
}

fn check_distinct_predicates(pd1: Pred, pd2: Pred) -> Result<(), Pred> {
    if pd1 == pd2 && pd1 != Pred::TRUE {
        Err(pd1)
    } else {
        Ok(())
    }
}

/// One or two encoded syllables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Encoded {
    words: [u64; 2],
    len: usize,
}

impl Encoded {
    pub fn words(&self) -> &[u64] {
        &self.words[..self.len]
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EncodeError {
    ImmediateOutOfRange(Opcode, i64),
    MisalignedTarget(Opcode, i64),
    SamePredicateTwice(Pred),
    /// A guard on `limm` or `nop N`.
    Guarded(Opcode),
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::ImmediateOutOfRange(op, imm) => {
                write!(
                    f,
                    "immediate {imm} does not fit the 32-bit field of `{}`",
                    op.mnemonic()
                )
            }
            EncodeError::MisalignedTarget(op, imm) => {
                write!(
                    f,
                    "`{}` target offset {imm} is not a multiple of 8",
                    op.mnemonic()
                )
            }
            EncodeError::SamePredicateTwice(p) => write!(f, "a compare cannot write {p} twice"),
            EncodeError::Guarded(op) => write!(f, "`{}` cannot be guarded", op.syntax_name()),
        }
    }
}

impl std::error::Error for EncodeError {}

/// Why bytes are not valid code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    IllegalOpcode(u16),
    ReservedBits {
        opcode: Opcode,
        bits: u64,
    },
    SamePredicateTwice(Pred),
    /// A guard on `limm` or `nop N`.
    Guarded(Opcode),
    /// A `limm` is the last syllable of its bundle.
    LimmAtEndOfBundle,
    /// A `limm` precedes an operation without an extendable immediate.
    LimmBeforeNonExtendable(Opcode),
    /// The code ends before a syllable with the stop bit.
    Unterminated,
    /// More syllables without a stop bit than any machine width allows.
    BundleTooLong,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::IllegalOpcode(op) => write!(f, "illegal opcode {op:#x}"),
            DecodeError::ReservedBits { opcode, bits } => {
                write!(f, "reserved bits {bits:#x} set in `{}`", opcode.mnemonic())
            }
            DecodeError::SamePredicateTwice(p) => write!(f, "compare writes {p} twice"),
            DecodeError::Guarded(op) => write!(f, "guarded `{}`", op.syntax_name()),
            DecodeError::LimmAtEndOfBundle => write!(f, "`limm` at the end of a bundle"),
            DecodeError::LimmBeforeNonExtendable(op) => {
                write!(
                    f,
                    "`limm` before `{}`, which takes no long immediate",
                    op.mnemonic()
                )
            }
            DecodeError::Unterminated => {
                write!(f, "bundle without a stop bit at the end of the code")
            }
            DecodeError::BundleTooLong => {
                write!(f, "bundle longer than {} syllables", crate::MAX_WIDTH)
            }
        }
    }
}

impl std::error::Error for DecodeError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse_inst;

    fn sources(text: &str) -> Vec<String> {
        parse_inst(text)
            .unwrap()
            .inst
            .gpr_sources()
            .map(|r| r.to_string())
            .collect()
    }

    #[test]
    fn implicit_operands_are_reported() {
        assert_eq!(sources("ret"), ["r63"]);
        assert_eq!(sources("syscall 1"), ["r3", "r4", "r5", "r6", "r7", "r8"]);
        assert_eq!(sources("st.d [r1 + 8] = r5"), ["r1", "r5"]);
        assert_eq!(sources("add r3 = r0, r4"), ["r4"]);
        assert_eq!(
            parse_inst("call foo").unwrap().inst.gpr_dest(),
            Some(Gpr::LR)
        );
        let cmp = parse_inst("(p3) cmp.eq p1, p0 = r4, r5").unwrap().inst;
        assert_eq!(
            cmp.pred_sources().collect::<Vec<_>>(),
            [Pred::new(3).unwrap()]
        );
        assert_eq!(
            cmp.pred_dests().collect::<Vec<_>>(),
            [Pred::new(1).unwrap()]
        );
    }
}
