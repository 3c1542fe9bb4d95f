//! The executable: what the linker writes and the simulator loads.
//!
//! Loading only needs the segments and the entry point; the section and symbol lists
//! are kept so that the simulator can name the function that faulted and the
//! disassembler can label code, and the non-allocated sections (`.debug_line`...)
//! so that tools can map addresses to source lines.

use crate::model::{Binding, SectionKind, SymbolKind};

/// Access rights of a loaded segment (`PF_R`, `PF_W`, `PF_X`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SegmentFlags {
    pub read: bool,
    pub write: bool,
    pub execute: bool,
}

impl SegmentFlags {
    pub const RX: SegmentFlags = SegmentFlags {
        read: true,
        write: false,
        execute: true,
    };
    pub const R: SegmentFlags = SegmentFlags {
        read: true,
        write: false,
        execute: false,
    };
    pub const RW: SegmentFlags = SegmentFlags {
        read: true,
        write: true,
        execute: false,
    };
}

/// One `PT_LOAD` segment: `data` is loaded at `vaddr`, and the rest of `mem_size`
/// (bss) is zero.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub vaddr: u64,
    pub mem_size: u64,
    /// The part that is stored in the file (`p_filesz` bytes).
    pub data: Vec<u8>,
    pub flags: SegmentFlags,
}

/// The `PT_TLS` program header: where the TLS image (the initial contents of every
/// thread's TLS block) lies. It is not a loadable segment: its bytes are part of a
/// `PT_LOAD` segment (the data segment), and the runtime copies them for each thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TlsTemplate {
    /// Start address of the image (`p_vaddr`).
    pub vaddr: u64,
    /// Size of the initialized part, `.tdata` (`p_filesz`).
    pub file_size: u64,
    /// Size of the whole image, `.tdata` and then `.tbss` (`p_memsz`).
    pub mem_size: u64,
    /// Alignment of the image (`p_align`), a power of two.
    pub align: u64,
}

/// An allocated output section: a named address range inside a segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecSection {
    pub name: String,
    pub addr: u64,
    pub size: u64,
    pub kind: SectionKind,
}

/// A symbol of the executable's `.symtab`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecSymbol {
    pub name: String,
    pub addr: u64,
    pub size: u64,
    pub kind: SymbolKind,
    pub binding: Binding,
}

/// A section that is not loaded (`.debug_line`, `.comment`...), kept by name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NonAllocSection {
    pub name: String,
    pub kind: SectionKind,
    pub data: Vec<u8>,
}

/// A statically linked executable (`ET_EXEC`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Executable {
    pub entry: u64,
    /// In address order, not overlapping.
    pub segments: Vec<Segment>,
    /// Allocated sections, in address order.
    pub sections: Vec<ExecSection>,
    /// Empty if the executable was stripped.
    pub symbols: Vec<ExecSymbol>,
    pub non_alloc_sections: Vec<NonAllocSection>,
    /// The `PT_TLS` header, if the program has thread-local variables.
    pub tls: Option<TlsTemplate>,
}

impl Executable {
    /// The bytes of a non-allocated section, e.g. `.debug_line`.
    pub fn non_alloc_section(&self, name: &str) -> Option<&[u8]> {
        self.non_alloc_sections
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.data.as_slice())
    }

    pub fn section(&self, name: &str) -> Option<&ExecSection> {
        self.sections.iter().find(|s| s.name == name)
    }

    pub fn symbol(&self, name: &str) -> Option<&ExecSymbol> {
        self.symbols.iter().find(|s| s.name == name)
    }

    /// The function or object symbol whose range `[addr, addr + size)` contains
    /// `addr`, or failing that the closest symbol at or below it: how the simulator
    /// names the function of a faulting bundle.
    pub fn symbol_at(&self, addr: u64) -> Option<&ExecSymbol> {
        let named = |s: &&ExecSymbol| {
            !s.name.is_empty()
                && matches!(
                    s.kind,
                    SymbolKind::Func | SymbolKind::Object | SymbolKind::NoType
                )
        };
        self.symbols
            .iter()
            .filter(named)
            .find(|s| s.addr <= addr && addr < s.addr.saturating_add(s.size))
            .or_else(|| {
                self.symbols
                    .iter()
                    .filter(named)
                    .filter(|s| s.addr <= addr)
                    .max_by_key(|s| s.addr)
            })
    }

    /// The loaded bytes at `addr..addr + len`, if they lie in the file part of one
    /// segment.
    pub fn bytes_at(&self, addr: u64, len: u64) -> Option<&[u8]> {
        self.segments.iter().find_map(|seg| {
            let start = addr.checked_sub(seg.vaddr)?;
            let end = start.checked_add(len)?;
            seg.data
                .get(usize::try_from(start).ok()?..usize::try_from(end).ok()?)
        })
    }
}
