//! Errors of reading ELF files and archives.
//!
//! Every error names the file it comes from and, where it is known, the offset in the
//! file or the section that is wrong, so that a user can look at the bytes with a hex
//! dump or `readelf` and see the problem.

use std::fmt;

/// An input file that could not be read. Displays as `FILE: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElfError {
    /// The file name given to the reader (for archive members, `archive(member)`).
    pub file: String,
    pub kind: ElfErrorKind,
}

/// What is wrong with the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ElfErrorKind {
    /// The file does not start with `\x7fELF` (or `!<arch>\n` for archives).
    NotElf,
    /// The file is not an archive (no `!<arch>\n` magic).
    NotArchive,
    /// Something (`what`) needs `size` bytes at `offset`, past the end of the file.
    Truncated {
        what: String,
        offset: u64,
        size: u64,
        file_len: u64,
    },
    /// `EI_CLASS` is not ELFCLASS64.
    WrongClass(u8),
    /// `EI_DATA` is not little-endian.
    WrongEndian(u8),
    /// `e_machine` is not `EM_VLIW`.
    ForeignMachine(u16),
    /// `e_type` is not the one the reader expects.
    WrongFileType { found: u16, expected: u16 },
    /// An index (section, symbol, string) that points outside its table.
    IndexOutOfRange {
        what: String,
        index: u64,
        limit: u64,
    },
    /// A relocation type this machine does not define.
    UnknownRelocation {
        section: String,
        offset: u64,
        r_type: u32,
    },
    /// A relocation whose place reaches past the end of its section.
    RelocationPastEnd {
        section: String,
        offset: u64,
        reloc: &'static str,
        section_size: u64,
    },
    /// A text section whose size is not a whole number of syllables.
    TextSizeNotMultipleOf8 { section: String, size: u64 },
    /// Anything else that is malformed or unsupported, described in words.
    Malformed(String),
}

impl ElfError {
    pub fn new(file: &str, kind: ElfErrorKind) -> ElfError {
        ElfError {
            file: file.to_string(),
            kind,
        }
    }

    pub fn malformed(file: &str, message: impl Into<String>) -> ElfError {
        ElfError::new(file, ElfErrorKind::Malformed(message.into()))
    }
}

/// Names of the ELF file types that appear in messages.
fn file_type_name(e_type: u16) -> String {
    match e_type {
        0 => "ET_NONE".to_string(),
        1 => "relocatable object (ET_REL)".to_string(),
        2 => "executable (ET_EXEC)".to_string(),
        3 => "shared object (ET_DYN)".to_string(),
        4 => "core file (ET_CORE)".to_string(),
        n => format!("file type {n:#x}"),
    }
}

impl fmt::Display for ElfErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ElfErrorKind::NotElf => write!(f, "not an ELF file (bad magic)"),
            ElfErrorKind::NotArchive => write!(f, "not an archive (no `!<arch>` magic)"),
            ElfErrorKind::Truncated {
                what,
                offset,
                size,
                file_len,
            } => write!(
                f,
                "truncated file: {what} at offset {offset:#x} needs {size:#x} bytes but the file is only {file_len:#x} bytes long"
            ),
            ElfErrorKind::WrongClass(class) => {
                let found = match class {
                    1 => "32-bit (ELFCLASS32)".to_string(),
                    c => format!("class {c}"),
                };
                write!(f, "wrong ELF class: {found}, expected 64-bit (ELFCLASS64)")
            }
            ElfErrorKind::WrongEndian(data) => {
                let found = match data {
                    2 => "big-endian (ELFDATA2MSB)".to_string(),
                    d => format!("data encoding {d}"),
                };
                write!(
                    f,
                    "wrong endianness: {found}, expected little-endian (ELFDATA2LSB)"
                )
            }
            ElfErrorKind::ForeignMachine(m) => write!(
                f,
                "foreign machine: e_machine is {m:#x}, expected {:#x} (EM_VLIW); this file was built for another target",
                vliw_isa::EM_VLIW
            ),
            ElfErrorKind::WrongFileType { found, expected } => write!(
                f,
                "wrong file type: found a {}, expected a {}",
                file_type_name(*found),
                file_type_name(*expected)
            ),
            ElfErrorKind::IndexOutOfRange { what, index, limit } => {
                write!(
                    f,
                    "{what}: index {index} is out of range (there are {limit})"
                )
            }
            ElfErrorKind::UnknownRelocation {
                section,
                offset,
                r_type,
            } => write!(
                f,
                "unknown relocation type {r_type} at {section}+{offset:#x}"
            ),
            ElfErrorKind::RelocationPastEnd {
                section,
                offset,
                reloc,
                section_size,
            } => write!(
                f,
                "relocation {reloc} at {section}+{offset:#x} reaches past the end of the section ({section_size:#x} bytes)"
            ),
            ElfErrorKind::TextSizeNotMultipleOf8 { section, size } => write!(
                f,
                "text section {section} has size {size:#x}, not a multiple of 8 (the syllable size)"
            ),
            ElfErrorKind::Malformed(message) => write!(f, "{message}"),
        }
    }
}

impl fmt::Display for ElfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.kind)
    }
}

impl std::error::Error for ElfError {}
