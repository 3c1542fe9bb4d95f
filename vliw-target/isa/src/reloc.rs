//! ELF identity of the machine and its relocation types.
//!
//! Every immediate that a relocation can patch lives in bits [31:0] of a syllable, so
//! patching never needs to know an instruction's format: that is a property of the
//! encoding (see `format.rs`) that this module relies on.

/// `e_machine` of our ELF files. Not assigned by any registry; chosen from the
/// unofficial range so that no other tool mistakes our objects for its own.
pub const EM_VLIW: u16 = 0x5657; // "VW"

/// `e_flags` of our ELF files: version 1 of this ISA encoding.
pub const EF_VLIW_ISA_V1: u32 = 1;

/// Relocation types (ELF `r_type`, used with RELA sections).
/// `S` = symbol value, `A` = addend, `P` = address of the patched place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum RelocKind {
    /// No relocation.
    None = 0,
    /// 64-bit data word: `S + A`.
    Abs64 = 1,
    /// 32-bit data word: `S + A`, must fit in an unsigned 32-bit value.
    Abs32 = 2,
    /// 32-bit data word: `S + A - P`, must fit in a signed 32-bit value.
    Pcrel32Data = 3,
    /// Immediate field of one syllable: `S + A`, must fit in a signed 32-bit value
    /// (the field is sign-extended by the machine).
    Imm32 = 4,
    /// A `limm` syllable at `P` and the syllable after it: `S + A`, the high 32 bits
    /// into the `limm` syllable, the low 32 bits into the next one. Never overflows.
    Imm64 = 5,
    /// Target of a branch or call: `S + A - P` into the immediate field, where `P` is
    /// the address of the syllable itself; must fit in a signed 32-bit value and be a
    /// multiple of 8 (branch targets are syllable-aligned).
    Branch32 = 6,
    /// PC-relative immediate of `addpc`: `S + A - P`, where `P` is the address of the
    /// syllable itself; must fit in a signed 32-bit value (any byte offset).
    Pcrel32 = 7,
    /// Immediate field of one syllable: the thread-pointer offset `S + A - TLS`, where
    /// `TLS` is the start address of the executable's TLS image (local-exec model:
    /// `add rd = tp, sym@tprel`); must fit in a signed 32-bit value. `S` must be a
    /// thread-local symbol. [`reloc_value`] takes `S - TLS` as its symbol value.
    Tprel32 = 8,
}

impl RelocKind {
    pub const ALL: [RelocKind; 9] = [
        RelocKind::None,
        RelocKind::Abs64,
        RelocKind::Abs32,
        RelocKind::Pcrel32Data,
        RelocKind::Imm32,
        RelocKind::Imm64,
        RelocKind::Branch32,
        RelocKind::Pcrel32,
        RelocKind::Tprel32,
    ];

    /// The relocation that fills the immediate of `inst` with a symbol's address:
    /// `Branch32` for branches and calls, `Pcrel32` for `addpc`, `Imm64` at the `limm`
    /// of a long immediate, `Imm32` otherwise. `None` if it has no immediate.
    pub fn for_operand(inst: &crate::Inst) -> Option<RelocKind> {
        let format = inst.format();
        Some(match format {
            crate::Format::Branch => RelocKind::Branch32,
            crate::Format::PcRel => RelocKind::Pcrel32,
            _ if !format.has(crate::FieldKind::Imm) => return None,
            _ if inst.needs_limm() => RelocKind::Imm64,
            _ => RelocKind::Imm32,
        })
    }

    pub fn from_elf(r_type: u32) -> Option<RelocKind> {
        RelocKind::ALL.into_iter().find(|k| *k as u32 == r_type)
    }

    pub fn to_elf(self) -> u32 {
        self as u32
    }

    /// The ELF name, as printed by the disassembler and in error messages.
    pub fn name(self) -> &'static str {
        match self {
            RelocKind::None => "R_VLIW_NONE",
            RelocKind::Abs64 => "R_VLIW_ABS64",
            RelocKind::Abs32 => "R_VLIW_ABS32",
            RelocKind::Pcrel32Data => "R_VLIW_PCREL32_DATA",
            RelocKind::Imm32 => "R_VLIW_IMM32",
            RelocKind::Imm64 => "R_VLIW_IMM64",
            RelocKind::Branch32 => "R_VLIW_BRANCH32",
            RelocKind::Pcrel32 => "R_VLIW_PCREL32",
            RelocKind::Tprel32 => "R_VLIW_TPREL32",
        }
    }

    pub fn from_name(name: &str) -> Option<RelocKind> {
        RelocKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Number of bytes at `P` that the relocation reads and writes.
    pub fn size(self) -> usize {
        match self {
            RelocKind::None => 0,
            RelocKind::Abs64 => 8,
            RelocKind::Abs32 | RelocKind::Pcrel32Data => 4,
            RelocKind::Imm32 | RelocKind::Branch32 | RelocKind::Pcrel32 | RelocKind::Tprel32 => 8,
            RelocKind::Imm64 => 16,
        }
    }

    /// Whether the value is an offset from the thread pointer (the symbol must be
    /// thread-local, and the linker passes its offset in the TLS image as `S`).
    pub fn is_tls(self) -> bool {
        self == RelocKind::Tprel32
    }

    /// Whether the value is relative to the place `P`.
    pub fn is_pc_relative(self) -> bool {
        matches!(
            self,
            RelocKind::Pcrel32Data | RelocKind::Branch32 | RelocKind::Pcrel32
        )
    }
}

/// Why a relocation could not be applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RelocError {
    /// The computed value does not fit the field.
    Overflow { kind: RelocKind, value: i64 },
    /// A pc-relative branch target that is not a multiple of the syllable size.
    Misaligned { kind: RelocKind, value: i64 },
    /// The place lies (partly) outside its section.
    OutOfBounds {
        kind: RelocKind,
        offset: u64,
        section_size: u64,
    },
}

impl std::fmt::Display for RelocError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RelocError::Overflow { kind, value } => {
                write!(f, "{} value {value:#x} does not fit its field", kind.name())
            }
            RelocError::Misaligned { kind, value } => {
                write!(
                    f,
                    "{} offset {value:#x} is not a multiple of 8",
                    kind.name()
                )
            }
            RelocError::OutOfBounds {
                kind,
                offset,
                section_size,
            } => write!(
                f,
                "{} at offset {offset:#x} reaches past the end of its section ({section_size:#x} bytes)",
                kind.name()
            ),
        }
    }
}

impl std::error::Error for RelocError {}

/// Computes the value of a relocation: `S + A` or `S + A - P`. For
/// [`RelocKind::Tprel32`] `symbol` is the symbol's offset from the start of the TLS
/// image (`S - TLS`), so the value is `S + A - TLS`.
pub fn reloc_value(kind: RelocKind, symbol: u64, addend: i64, place: u64) -> i64 {
    let target = symbol.wrapping_add(addend as u64);
    if kind.is_pc_relative() {
        target.wrapping_sub(place) as i64
    } else {
        target as i64
    }
}

/// Writes the relocation `value` (from [`reloc_value`]) into `bytes` at `offset`.
/// `bytes` is the contents of the section holding the place.
pub fn apply_reloc(
    kind: RelocKind,
    bytes: &mut [u8],
    offset: u64,
    value: i64,
) -> Result<(), RelocError> {
    let size = kind.size() as u64;
    if offset
        .checked_add(size)
        .is_none_or(|end| end > bytes.len() as u64)
    {
        return Err(RelocError::OutOfBounds {
            kind,
            offset,
            section_size: bytes.len() as u64,
        });
    }
    let at = offset as usize;
    let fits_i32 = i32::try_from(value).is_ok();
    match kind {
        RelocKind::None => {}
        RelocKind::Abs64 => bytes[at..at + 8].copy_from_slice(&value.to_le_bytes()),
        RelocKind::Abs32 => {
            let v = u32::try_from(value).map_err(|_| RelocError::Overflow { kind, value })?;
            bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
        RelocKind::Pcrel32Data => {
            if !fits_i32 {
                return Err(RelocError::Overflow { kind, value });
            }
            bytes[at..at + 4].copy_from_slice(&(value as i32).to_le_bytes());
        }
        RelocKind::Imm32 | RelocKind::Pcrel32 | RelocKind::Tprel32 => {
            if !fits_i32 {
                return Err(RelocError::Overflow { kind, value });
            }
            set_imm_field(bytes, at, value as u32);
        }
        RelocKind::Branch32 => {
            if !fits_i32 {
                return Err(RelocError::Overflow { kind, value });
            }
            if value % 8 != 0 {
                return Err(RelocError::Misaligned { kind, value });
            }
            set_imm_field(bytes, at, value as u32);
        }
        RelocKind::Imm64 => {
            set_imm_field(bytes, at, (value as u64 >> 32) as u32);
            set_imm_field(bytes, at + 8, value as u32);
        }
    }
    Ok(())
}

/// Replaces bits [31:0] of the little-endian syllable at `at`.
fn set_imm_field(bytes: &mut [u8], at: usize, imm: u32) {
    bytes[at..at + 4].copy_from_slice(&imm.to_le_bytes());
}

/// Reads back what a relocation wrote (the addend stored in place), for tools that
/// show relocated values. Returns the field's value sign-extended.
pub fn read_reloc_field(kind: RelocKind, bytes: &[u8], offset: u64) -> Option<i64> {
    let at = usize::try_from(offset).ok()?;
    let get = |n: usize| bytes.get(at..at.checked_add(n)?);
    Some(match kind {
        RelocKind::None => 0,
        RelocKind::Abs64 => i64::from_le_bytes(get(8)?.try_into().ok()?),
        RelocKind::Abs32 => u32::from_le_bytes(get(4)?.try_into().ok()?) as i64,
        RelocKind::Pcrel32Data
        | RelocKind::Imm32
        | RelocKind::Branch32
        | RelocKind::Pcrel32
        | RelocKind::Tprel32 => i32::from_le_bytes(get(4)?.try_into().ok()?) as i64,
        RelocKind::Imm64 => {
            let hi = u32::from_le_bytes(get(4)?.try_into().ok()?) as u64;
            let lo = u32::from_le_bytes(bytes.get(at + 8..at + 12)?.try_into().ok()?) as u64;
            ((hi << 32) | lo) as i64
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for k in RelocKind::ALL {
            assert_eq!(RelocKind::from_elf(k.to_elf()), Some(k));
            assert_eq!(RelocKind::from_name(k.name()), Some(k));
        }
        assert_eq!(RelocKind::from_elf(99), None);
    }

    #[test]
    fn imm32_overflow_is_reported() {
        let mut b = [0u8; 8];
        assert!(apply_reloc(RelocKind::Imm32, &mut b, 0, 1 << 31).is_err());
        apply_reloc(RelocKind::Imm32, &mut b, 0, -4).unwrap();
        assert_eq!(read_reloc_field(RelocKind::Imm32, &b, 0), Some(-4));
    }

    #[test]
    fn imm64_splits_across_two_syllables() {
        let mut b = [0xffu8; 16];
        b[4..8].copy_from_slice(&[1, 2, 3, 4]);
        apply_reloc(RelocKind::Imm64, &mut b, 0, 0x1122_3344_5566_7788).unwrap();
        assert_eq!(
            read_reloc_field(RelocKind::Imm64, &b, 0),
            Some(0x1122_3344_5566_7788)
        );
        assert_eq!(
            &b[4..8],
            &[1, 2, 3, 4],
            "upper half of the limm syllable untouched"
        );
    }

    #[test]
    fn pcrel_requires_alignment_and_range() {
        let mut b = [0u8; 8];
        assert!(matches!(
            apply_reloc(RelocKind::Branch32, &mut b, 0, 12),
            Err(RelocError::Misaligned { .. })
        ));
        assert!(matches!(
            apply_reloc(RelocKind::Branch32, &mut b, 0, 1 << 40),
            Err(RelocError::Overflow { .. })
        ));
        assert_eq!(reloc_value(RelocKind::Branch32, 0x1000, 8, 0x2000), -0xff8);
        // `addpc` may address any byte.
        apply_reloc(RelocKind::Pcrel32, &mut b, 0, 13).unwrap();
        assert_eq!(read_reloc_field(RelocKind::Pcrel32, &b, 0), Some(13));
        assert!(matches!(
            apply_reloc(RelocKind::Pcrel32, &mut b, 0, 1 << 40),
            Err(RelocError::Overflow { .. })
        ));
    }

    #[test]
    fn tprel32_patches_the_immediate_like_imm32() {
        let mut b = [0u8; 8];
        b[4..8].copy_from_slice(&[9, 9, 9, 9]);
        assert_eq!(reloc_value(RelocKind::Tprel32, 0x10, 8, 0x2000), 0x18);
        apply_reloc(RelocKind::Tprel32, &mut b, 0, -8).unwrap();
        assert_eq!(read_reloc_field(RelocKind::Tprel32, &b, 0), Some(-8));
        assert_eq!(&b[4..8], &[9, 9, 9, 9]);
        assert!(matches!(
            apply_reloc(RelocKind::Tprel32, &mut b, 0, 1 << 31),
            Err(RelocError::Overflow { .. })
        ));
        assert!(RelocKind::Tprel32.is_tls() && !RelocKind::Imm32.is_tls());
    }

    #[test]
    fn out_of_bounds_place() {
        let mut b = [0u8; 12];
        assert!(matches!(
            apply_reloc(RelocKind::Imm64, &mut b, 0, 0),
            Err(RelocError::OutOfBounds { .. })
        ));
        assert!(matches!(
            apply_reloc(RelocKind::Abs64, &mut b, u64::MAX, 0),
            Err(RelocError::OutOfBounds { .. })
        ));
    }
}
