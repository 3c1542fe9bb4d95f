//! The relocatable object: what the assembler writes and the linker reads.
//!
//! A plain data model, independent of ELF's encoding: sections hold their bytes and
//! their relocations, symbols say where they are defined. Indices into the vectors are
//! the only links (`SectionId`, `SymbolId`), so an object can be built or rewritten
//! without any bookkeeping of ELF section or symbol numbers; `write_object` assigns
//! those.

use vliw_isa::RelocKind;

/// Index of a section in [`Object::sections`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SectionId(pub usize);

/// Index of a symbol in [`Object::symbols`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SymbolId(pub usize);

/// What a section holds; decides its ELF type and flags and where the linker puts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SectionKind {
    /// Code (`SHT_PROGBITS`, `SHF_ALLOC | SHF_EXECINSTR`). Size is a multiple of 8,
    /// alignment at least 8.
    Text,
    /// Writable data (`SHT_PROGBITS`, `SHF_ALLOC | SHF_WRITE`).
    Data,
    /// Read-only data (`SHT_PROGBITS`, `SHF_ALLOC`).
    ReadOnlyData,
    /// Zero-initialized data (`SHT_NOBITS`, `SHF_ALLOC | SHF_WRITE`): no bytes, a size.
    Bss,
    /// Constructors (`SHT_INIT_ARRAY`): 8-byte function addresses.
    InitArray,
    /// Destructors (`SHT_FINI_ARRAY`).
    FiniArray,
    /// A note (`SHT_NOTE`), never loaded.
    Note,
    /// Initialized thread-local data (`SHT_PROGBITS`, `SHF_ALLOC | SHF_WRITE |
    /// SHF_TLS`, `.tdata*`): part of the TLS image that each thread gets a copy of.
    TlsData,
    /// Zero-initialized thread-local data (`SHT_NOBITS`, `SHF_ALLOC | SHF_WRITE |
    /// SHF_TLS`, `.tbss*`): no bytes, a size; follows `.tdata` in the TLS image.
    TlsBss,
    /// Any other section that is not loaded (`SHT_PROGBITS` without `SHF_ALLOC`):
    /// `.debug_*`, `.comment`.
    Other,
}

impl SectionKind {
    pub const ALL: [SectionKind; 10] = [
        SectionKind::Text,
        SectionKind::Data,
        SectionKind::ReadOnlyData,
        SectionKind::Bss,
        SectionKind::InitArray,
        SectionKind::FiniArray,
        SectionKind::Note,
        SectionKind::Other,
        SectionKind::TlsData,
        SectionKind::TlsBss,
    ];

    /// Whether the section occupies memory when the program runs (`SHF_ALLOC`).
    pub fn is_alloc(self) -> bool {
        !matches!(self, SectionKind::Note | SectionKind::Other)
    }

    /// Whether the section is writable when the program runs.
    pub fn is_writable(self) -> bool {
        matches!(
            self,
            SectionKind::Data
                | SectionKind::Bss
                | SectionKind::InitArray
                | SectionKind::FiniArray
                | SectionKind::TlsData
                | SectionKind::TlsBss
        )
    }

    /// Whether the section has a size but no contents (`SHT_NOBITS`: `Bss`, `TlsBss`).
    pub fn is_nobits(self) -> bool {
        matches!(self, SectionKind::Bss | SectionKind::TlsBss)
    }

    /// Whether the section is part of the thread-local storage image (`SHF_TLS`).
    pub fn is_tls(self) -> bool {
        matches!(self, SectionKind::TlsData | SectionKind::TlsBss)
    }
}

/// One relocation: patch the place `offset` of its section with the value of `symbol`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reloc {
    /// Offset of the place in the section.
    pub offset: u64,
    pub kind: RelocKind,
    pub symbol: SymbolId,
    pub addend: i64,
}

/// A section of a relocatable object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    pub name: String,
    pub kind: SectionKind,
    /// Alignment in bytes, a power of two (at least 1).
    pub align: u64,
    /// The contents; empty for [`SectionKind::Bss`] and [`SectionKind::TlsBss`].
    pub data: Vec<u8>,
    /// Size in bytes of a [`SectionKind::Bss`] or [`SectionKind::TlsBss`] section;
    /// ignored (the length of `data` is the size) for every other kind. Use
    /// [`Section::size`] to read it.
    pub size: u64,
    pub relocs: Vec<Reloc>,
    /// `SHF_GNU_RETAIN`: `--gc-sections` must keep this section.
    pub retain: bool,
}

impl Section {
    /// A section with contents (any kind but `Bss` and `TlsBss`).
    pub fn new(name: &str, kind: SectionKind, align: u64, data: Vec<u8>) -> Section {
        let size = data.len() as u64;
        Section {
            name: name.to_string(),
            kind,
            align,
            data,
            size,
            relocs: Vec::new(),
            retain: false,
        }
    }

    /// A zero-initialized section of `size` bytes.
    pub fn bss(name: &str, align: u64, size: u64) -> Section {
        Section {
            name: name.to_string(),
            kind: SectionKind::Bss,
            align,
            data: Vec::new(),
            size,
            relocs: Vec::new(),
            retain: false,
        }
    }

    /// A zero-initialized thread-local section of `size` bytes (`.tbss`).
    pub fn tbss(name: &str, align: u64, size: u64) -> Section {
        Section {
            kind: SectionKind::TlsBss,
            ..Section::bss(name, align, size)
        }
    }

    /// Size in memory: `size` for Bss and TlsBss, the length of `data` otherwise.
    pub fn size(&self) -> u64 {
        if self.kind.is_nobits() {
            self.size
        } else {
            self.data.len() as u64
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Binding {
    /// Visible only inside its object (`STB_LOCAL`).
    Local,
    /// One definition in the whole program (`STB_GLOBAL`).
    Global,
    /// Yields to a global definition; an undefined weak symbol is 0 (`STB_WEAK`).
    Weak,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    NoType,
    Func,
    Object,
    /// Stands for the start of its section (`STT_SECTION`).
    Section,
    /// Names the source file (`STT_FILE`), always local and absolute.
    File,
    /// A thread-local variable (`STT_TLS`), defined in a `TlsData` or `TlsBss`
    /// section. Relocatable objects give its offset in its section as usual;
    /// executables give its address in the TLS image as laid out by the linker.
    Tls,
}

/// Where a symbol's value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SymbolDefinition {
    /// Defined in another object (`SHN_UNDEF`).
    Undefined,
    /// At `value` bytes from the start of `section`.
    Defined { section: SectionId, value: u64 },
    /// A fixed value that no relocation moves (`SHN_ABS`).
    Absolute(u64),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub binding: Binding,
    pub kind: SymbolKind,
    pub definition: SymbolDefinition,
    pub size: u64,
}

impl Symbol {
    pub fn is_defined(&self) -> bool {
        self.definition != SymbolDefinition::Undefined
    }
}

/// A relocatable object file (`ET_REL`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Object {
    pub sections: Vec<Section>,
    /// In any order: `write_object` puts local symbols first, as ELF requires.
    pub symbols: Vec<Symbol>,
}

impl Object {
    pub fn new() -> Object {
        Object::default()
    }

    pub fn add_section(&mut self, section: Section) -> SectionId {
        self.sections.push(section);
        SectionId(self.sections.len() - 1)
    }

    pub fn add_symbol(&mut self, symbol: Symbol) -> SymbolId {
        self.symbols.push(symbol);
        SymbolId(self.symbols.len() - 1)
    }

    pub fn section(&self, id: SectionId) -> &Section {
        &self.sections[id.0]
    }

    pub fn symbol(&self, id: SymbolId) -> &Symbol {
        &self.symbols[id.0]
    }

    /// The first symbol with this name, if any.
    pub fn symbol_by_name(&self, name: &str) -> Option<SymbolId> {
        self.symbols
            .iter()
            .position(|s| s.name == name)
            .map(SymbolId)
    }

    /// The first section with this name, if any.
    pub fn section_by_name(&self, name: &str) -> Option<SectionId> {
        self.sections
            .iter()
            .position(|s| s.name == name)
            .map(SectionId)
    }

    /// Checks that every link in the object points at something that exists and that
    /// every relocation lies inside its section: what `write_object` relies on.
    pub fn check(&self) -> Result<(), String> {
        for (i, sym) in self.symbols.iter().enumerate() {
            if let SymbolDefinition::Defined { section, .. } = sym.definition
                && section.0 >= self.sections.len()
            {
                return Err(format!(
                    "symbol {i} `{}` is defined in section {} which does not exist",
                    sym.name, section.0
                ));
            }
        }
        for sec in &self.sections {
            if !sec.align.is_power_of_two() {
                return Err(format!(
                    "section {} has alignment {}, not a power of two",
                    sec.name, sec.align
                ));
            }
            if sec.kind.is_nobits() && !sec.data.is_empty() {
                return Err(format!("bss section {} has contents", sec.name));
            }
            for r in &sec.relocs {
                if r.symbol.0 >= self.symbols.len() {
                    return Err(format!(
                        "relocation at {}+{:#x} refers to symbol {} which does not exist",
                        sec.name, r.offset, r.symbol.0
                    ));
                }
                if r.offset
                    .checked_add(r.kind.size() as u64)
                    .is_none_or(|end| end > sec.data.len() as u64)
                {
                    return Err(format!(
                        "relocation {} at {}+{:#x} reaches past the end of the section",
                        r.kind.name(),
                        sec.name,
                        r.offset
                    ));
                }
            }
        }
        Ok(())
    }
}
