//! Why a link failed. Every message names the file, and where it can the section,
//! offset and symbol, in the style of lld.

use std::fmt;

use vliw_elf::ElfError;
use vliw_isa::{RelocError, RelocKind};

/// A symbol that is used but defined nowhere, with every place that uses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UndefinedSymbol {
    pub name: String,
    /// `OBJECT (section SECTION+0xOFFSET)`, one per reference.
    pub references: Vec<String>,
}

/// A symbol with two strong definitions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicateSymbol {
    pub name: String,
    /// `OBJECT (section SECTION+0xOFFSET)` of the first and of the second definition.
    pub first: String,
    pub second: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    /// A bad command line: unknown option, missing argument, unsupported mode, no
    /// output file, library not found.
    Usage(String),
    /// A file that cannot be read or written, with the operating system's reason.
    Io {
        path: String,
        action: &'static str,
        message: String,
    },
    /// An input file that is not a valid object or archive of our machine.
    Input(ElfError),
    /// An input that is neither an ELF object nor an archive.
    UnknownFileType(String),
    Undefined(Vec<UndefinedSymbol>),
    Duplicate(Vec<DuplicateSymbol>),
    /// A relocation whose value does not fit, is misaligned, or lies outside its section.
    Relocation {
        object: String,
        section: String,
        offset: u64,
        symbol: String,
        kind: RelocKind,
        error: RelocError,
    },
    /// A TLS relocation (`R_VLIW_TPREL32`) against a symbol that is not thread-local,
    /// or another relocation against a thread-local symbol.
    Tls {
        object: String,
        section: String,
        offset: u64,
        symbol: String,
        kind: RelocKind,
    },
    /// The entry symbol (`-e`, default `_start`) is not defined.
    MissingEntry(String),
    /// The program does not fit in the address space.
    Layout(String),
    /// A malformed `.eh_frame` input section.
    Frame {
        object: String,
        message: String,
    },
}

impl LinkError {
    pub(crate) fn io(path: &str, action: &'static str, error: &std::io::Error) -> LinkError {
        LinkError::Io {
            path: path.to_string(),
            action,
            message: error.to_string(),
        }
    }
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::Usage(message) => write!(f, "{message}"),
            LinkError::Io {
                path,
                action,
                message,
            } => write!(f, "cannot {action} {path}: {message}"),
            LinkError::Input(e) => write!(f, "{e}"),
            LinkError::UnknownFileType(path) => {
                write!(
                    f,
                    "{path}: unknown file type (neither an ELF object nor an archive)"
                )
            }
            LinkError::Undefined(symbols) => {
                for (i, s) in symbols.iter().enumerate() {
                    if i > 0 {
                        writeln!(f)?;
                    }
                    write!(f, "undefined symbol: {}", s.name)?;
                    for r in &s.references {
                        write!(f, "\n>>> referenced by {r}")?;
                    }
                }
                Ok(())
            }
            LinkError::Duplicate(symbols) => {
                for (i, s) in symbols.iter().enumerate() {
                    if i > 0 {
                        writeln!(f)?;
                    }
                    write!(
                        f,
                        "duplicate symbol: {}\n>>> defined at {}\n>>> defined at {}",
                        s.name, s.first, s.second
                    )?;
                }
                Ok(())
            }
            LinkError::Relocation {
                object,
                section,
                offset,
                symbol,
                kind,
                error,
            } => write!(
                f,
                "{object}: cannot apply relocation {} against symbol `{symbol}` at {section}+{offset:#x}: {error}",
                kind.name()
            ),
            LinkError::Tls {
                object,
                section,
                offset,
                symbol,
                kind,
            } => {
                if kind.is_tls() {
                    write!(
                        f,
                        "{object}: relocation {} against symbol `{symbol}` at {section}+{offset:#x}: the symbol is not thread-local (not in a .tdata or .tbss section)",
                        kind.name()
                    )
                } else {
                    write!(
                        f,
                        "{object}: relocation {} against thread-local symbol `{symbol}` at {section}+{offset:#x}: a thread-local variable has no fixed address; use R_VLIW_TPREL32 (sym@tprel) for its offset from the thread pointer",
                        kind.name()
                    )
                }
            }
            LinkError::MissingEntry(name) => write!(f, "entry symbol `{name}` is not defined"),
            LinkError::Layout(message) => write!(f, "{message}"),
            LinkError::Frame { object, message } => write!(f, "{object}: {message}"),
        }
    }
}

impl std::error::Error for LinkError {}

impl From<ElfError> for LinkError {
    fn from(e: ElfError) -> LinkError {
        LinkError::Input(e)
    }
}
