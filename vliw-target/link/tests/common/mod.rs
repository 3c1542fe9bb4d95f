//! Building small objects without an assembler, and linking them in memory.
#![allow(dead_code)]

use vliw_elf::*;
use vliw_isa::{NOP_BUNDLE, RelocKind};
use vliw_link::{InputFile, LinkConfig, LinkError, LinkOutput, link};

pub fn nops(n: usize) -> Vec<u8> {
    (0..n).flat_map(|_| NOP_BUNDLE.to_le_bytes()).collect()
}

/// A small object under construction.
#[derive(Default, Clone)]
pub struct Obj {
    pub o: Object,
}

impl Obj {
    pub fn new() -> Obj {
        Obj::default()
    }

    pub fn section(
        &mut self,
        name: &str,
        kind: SectionKind,
        align: u64,
        data: Vec<u8>,
    ) -> SectionId {
        self.o.add_section(Section::new(name, kind, align, data))
    }

    /// A text section of `syllables` nops, aligned to 8.
    pub fn text(&mut self, name: &str, syllables: usize) -> SectionId {
        self.section(name, SectionKind::Text, 8, nops(syllables))
    }

    pub fn bss(&mut self, name: &str, align: u64, size: u64) -> SectionId {
        self.o.add_section(Section::bss(name, align, size))
    }

    pub fn symbol(
        &mut self,
        name: &str,
        binding: Binding,
        kind: SymbolKind,
        definition: SymbolDefinition,
    ) -> SymbolId {
        self.o.add_symbol(Symbol {
            name: name.to_string(),
            binding,
            kind,
            definition,
            size: 0,
        })
    }

    /// Defines `name` at `value` in `section`.
    pub fn def(
        &mut self,
        name: &str,
        binding: Binding,
        section: SectionId,
        value: u64,
    ) -> SymbolId {
        let kind = if self.o.sections[section.0].kind == SectionKind::Text {
            SymbolKind::Func
        } else {
            SymbolKind::Object
        };
        self.symbol(
            name,
            binding,
            kind,
            SymbolDefinition::Defined { section, value },
        )
    }

    /// A global function: a text section `.text.NAME` of `syllables` nops.
    pub fn func(&mut self, name: &str, syllables: usize) -> (SectionId, SymbolId) {
        let s = self.text(&format!(".text.{name}"), syllables);
        (s, self.def(name, Binding::Global, s, 0))
    }

    pub fn undef(&mut self, name: &str) -> SymbolId {
        self.symbol(
            name,
            Binding::Global,
            SymbolKind::NoType,
            SymbolDefinition::Undefined,
        )
    }

    pub fn weak_undef(&mut self, name: &str) -> SymbolId {
        self.symbol(
            name,
            Binding::Weak,
            SymbolKind::NoType,
            SymbolDefinition::Undefined,
        )
    }

    pub fn section_symbol(&mut self, section: SectionId) -> SymbolId {
        self.symbol(
            "",
            Binding::Local,
            SymbolKind::Section,
            SymbolDefinition::Defined { section, value: 0 },
        )
    }

    pub fn reloc(
        &mut self,
        section: SectionId,
        offset: u64,
        kind: RelocKind,
        symbol: SymbolId,
        addend: i64,
    ) {
        self.o.sections[section.0].relocs.push(Reloc {
            offset,
            kind,
            symbol,
            addend,
        });
    }

    /// A call from `section` at `offset` to `name` (a PCREL32 relocation).
    pub fn call(&mut self, section: SectionId, offset: u64, name: &str) {
        let s = self
            .o
            .symbol_by_name(name)
            .unwrap_or_else(|| self.undef(name));
        self.reloc(section, offset, RelocKind::Branch32, s, 0);
    }

    pub fn file(&self, name: &str) -> InputFile {
        InputFile {
            name: name.to_string(),
            data: write_object(&self.o),
            whole_archive: false,
        }
    }
}

/// An object with `_start` that calls each of `calls`.
pub fn start_calling(calls: &[&str]) -> Obj {
    let mut o = Obj::new();
    let (text, _) = o.func("_start", calls.len().max(1));
    for (i, name) in calls.iter().enumerate() {
        o.call(text, 8 * i as u64, name);
    }
    o
}

pub fn archive(name: &str, members: &[(&str, &Obj)]) -> InputFile {
    let members: Vec<ArchiveMember> = members
        .iter()
        .map(|(n, o)| ArchiveMember {
            name: n.to_string(),
            data: write_object(&o.o),
        })
        .collect();
    InputFile {
        name: name.to_string(),
        data: write_archive(&members),
        whole_archive: false,
    }
}

/// Links and checks that the executable survives writing and reading back.
pub fn link_ok(files: &[InputFile], config: &LinkConfig) -> LinkOutput {
    let out = link(files, config).unwrap_or_else(|e| panic!("link failed: {e}"));
    let bytes = write_executable(&out.executable);
    let back = read_executable(&bytes, "a.out").unwrap();
    assert_eq!(back.segments, out.executable.segments);
    assert_eq!(back.entry, out.executable.entry);
    out
}

pub fn link_err(files: &[InputFile], config: &LinkConfig) -> String {
    match link(files, config) {
        Ok(_) => panic!("link should fail"),
        Err(e) => e.to_string(),
    }
}

pub fn link_error(files: &[InputFile], config: &LinkConfig) -> LinkError {
    link(files, config).expect_err("link should fail")
}

pub fn default() -> LinkConfig {
    LinkConfig::default()
}

pub fn gc() -> LinkConfig {
    LinkConfig {
        gc_sections: true,
        ..LinkConfig::default()
    }
}

pub fn addr(exe: &Executable, name: &str) -> u64 {
    exe.symbol(name)
        .unwrap_or_else(|| panic!("no symbol {name}"))
        .addr
}

pub fn u64_at(exe: &Executable, addr: u64) -> u64 {
    u64::from_le_bytes(exe.bytes_at(addr, 8).unwrap().try_into().unwrap())
}

/// The value a relocation wrote at `addr`.
pub fn field(exe: &Executable, kind: RelocKind, addr: u64) -> i64 {
    vliw_isa::read_reloc_field(kind, exe.bytes_at(addr, kind.size() as u64).unwrap(), 0).unwrap()
}
