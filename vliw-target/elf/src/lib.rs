//! `vliw-elf`: the object-file model of the VLIW target, and the one place where ELF
//! files and archives are read and written.
//!
//! - [`Object`] (relocatable objects): written by the assembler, read by the linker,
//!   the disassembler and the simulator loader. [`write_object`], [`read_object`].
//! - [`Executable`]: written by the linker, read by the simulator and disassembler.
//!   [`write_executable`], [`read_executable`].
//! - [`Archive`] (`.a`, `.rlib`): [`read_archive`], [`write_archive`].
//! - [`LineTable`]: the DWARF line tables (`.debug_line`) of an executable or object,
//!   address → file, line and column, read with `gimli`.
//!
//! Readers never panic: malformed input gives an [`ElfError`] that names the file and
//! says what is wrong and where; malformed DWARF gives an empty or partial line table.

mod archive;
pub mod dwarf_write;
mod error;
mod exec;
mod lines;
pub mod lsda;
mod model;
mod parse;
mod read;
mod read_exec;
mod write;
mod write_exec;

pub use archive::{Archive, ArchiveMember, is_archive, read_archive, write_archive};
pub use error::{ElfError, ElfErrorKind};
pub use exec::{
    ExecSection, ExecSymbol, Executable, NonAllocSection, Segment, SegmentFlags, TlsTemplate,
};
pub use lines::{LineTable, SourceLine, SourceLocation, object_address};
pub use model::{
    Binding, Object, Reloc, Section, SectionId, SectionKind, Symbol, SymbolDefinition, SymbolId,
    SymbolKind,
};
pub use parse::is_elf;
pub use read::read_object;
pub use read_exec::read_executable;
pub use write::write_object;
pub use write_exec::write_executable;

/// Page size of the machine: loadable segments start on page boundaries.
pub const PAGE_SIZE: u64 = 4096;
