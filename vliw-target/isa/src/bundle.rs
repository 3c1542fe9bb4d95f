//! Bundles: decoding a run of syllables up to the stop bit, encoding, and checking a
//! bundle against a machine configuration (issue width and functional units).

use crate::inst::{DecodeError, EncodeError, Inst};
use crate::machine::{MAX_WIDTH, MachineConfig, Unit};
use crate::opcode::Opcode;
use std::fmt;

/// Decodes the bundle starting at `words[0]`. Returns its operations (with `limm`
/// syllables folded into the operation they extend) and the number of syllables read.
pub fn decode_bundle(words: &[u64]) -> Result<(Vec<Inst>, usize), DecodeError> {
    let mut insts = Vec::with_capacity(4);
    let mut pending_hi: Option<u64> = None;
    for (i, &word) in words.iter().enumerate() {
        if i >= MAX_WIDTH {
            return Err(DecodeError::BundleTooLong);
        }
        let (mut inst, stop) = Inst::decode(word)?;
        if inst.opcode == Opcode::Limm {
            if stop {
                return Err(DecodeError::LimmAtEndOfBundle);
            }
            if pending_hi.is_some() {
                return Err(DecodeError::LimmBeforeNonExtendable(Opcode::Limm));
            }
            pending_hi = Some(inst.imm as u64);
            continue;
        }
        if let Some(hi) = pending_hi.take() {
            if !inst.format().is_extendable() {
                return Err(DecodeError::LimmBeforeNonExtendable(inst.opcode));
            }
            inst.imm = ((hi << 32) | (inst.imm as u64 & 0xffff_ffff)) as i64;
            inst.long = true;
        }
        insts.push(inst);
        if stop {
            return Ok((insts, i + 1));
        }
    }
    Err(DecodeError::Unterminated)
}

/// Encodes a bundle: the stop bit goes on its last syllable.
pub fn encode_bundle(insts: &[Inst], out: &mut Vec<u64>) -> Result<(), EncodeError> {
    for (i, inst) in insts.iter().enumerate() {
        out.extend_from_slice(inst.encode(i + 1 == insts.len())?.words());
    }
    Ok(())
}

/// Syllables a bundle occupies (a long immediate takes two).
pub fn syllable_count(insts: &[Inst]) -> usize {
    insts.iter().map(Inst::syllables).sum()
}

/// Checks the bundle against the issue width and the number of units of each kind.
pub fn check_bundle(insts: &[Inst], config: &MachineConfig) -> Result<(), BundleError> {
    if insts.is_empty() {
        return Err(BundleError::Empty);
    }
    let syllables = syllable_count(insts);
    if syllables > config.width {
        return Err(BundleError::TooWide {
            syllables,
            width: config.width,
        });
    }
    let mut nops = insts.iter().filter(|i| i.opcode == Opcode::NopN);
    if let Some(nop) = nops.next() {
        if nops.next().is_some() {
            return Err(BundleError::SecondNop);
        }
        if nop.imm < 1 || nop.imm > i64::from(config.max_nop) {
            return Err(BundleError::NopCycles {
                cycles: nop.imm,
                max: config.max_nop,
            });
        }
    }
    if !config.shift_add
        && let Some(inst) = insts.iter().find(|i| i.opcode.is_shift_add())
    {
        return Err(BundleError::NotOnThisMachine {
            opcode: inst.opcode,
            option: "shift-add",
        });
    }
    for unit in Unit::ALL {
        let used = insts
            .iter()
            .filter(|i| i.opcode.uses_unit() && i.opcode.unit() == unit)
            .count();
        let available = config.unit_count(unit) as usize;
        if used > available {
            return Err(BundleError::UnitOverused {
                unit,
                used,
                available,
            });
        }
    }
    Ok(())
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BundleError {
    Empty,
    TooWide {
        syllables: usize,
        width: usize,
    },
    UnitOverused {
        unit: Unit,
        used: usize,
        available: usize,
    },
    /// A `nop N` whose N is not in 1..=`max-nop`.
    NopCycles {
        cycles: i64,
        max: u32,
    },
    /// Two `nop N` in one bundle.
    SecondNop,
    /// An operation of an extension the machine configuration switches off.
    NotOnThisMachine {
        opcode: Opcode,
        option: &'static str,
    },
}

impl fmt::Display for BundleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BundleError::Empty => write!(f, "empty bundle"),
            BundleError::TooWide { syllables, width } => {
                write!(
                    f,
                    "bundle has {syllables} syllables but the issue width is {width}"
                )
            }
            BundleError::UnitOverused {
                unit,
                used,
                available,
            } => write!(
                f,
                "bundle uses {used} {} unit{} but the machine has {available}",
                unit.name(),
                if *used == 1 { "" } else { "s" }
            ),
            BundleError::NopCycles { cycles, max } => write!(
                f,
                "`nop {cycles}`: a nop takes 1 to {max} cycles on this machine (`max-nop`)"
            ),
            BundleError::SecondNop => write!(f, "a bundle holds at most one `nop N`"),
            BundleError::NotOnThisMachine { opcode, option } => write!(
                f,
                "`{}` needs the `{option}` extension, off in this machine configuration",
                opcode.mnemonic()
            ),
        }
    }
}

impl std::error::Error for BundleError {}
