//! Writing the [`Object`] model as an ELF relocatable object.
//!
//! File layout: header, section contents, relocation tables, `.symtab`,
//! `.symtab_shndx` (only with more than 0xff00 sections), `.strtab`, `.shstrtab`, then
//! the section headers. Section `i` of the model is ELF section `i + 1`, followed by one
//! `.rela<name>` section per section with relocations, then the tables.

use object::Endianness;
use object::elf;
use object::write::StringId;
use object::write::elf::{FileHeader, Rel, SectionHeader, Sym, SymbolIndex, Writer};

use crate::model::{Binding, Object, SectionKind, SymbolDefinition, SymbolKind};

/// File offsets of section contents are aligned to at most this: the real alignment is
/// recorded in `sh_addralign`, and a large alignment must not bloat the file.
const MAX_FILE_ALIGN: u64 = 64;

/// ELF type and flags of a section kind.
pub(crate) fn section_type_and_flags(kind: SectionKind) -> (elf::SectionType, u64) {
    let alloc = elf::SHF_ALLOC.0;
    let write = elf::SHF_WRITE.0;
    match kind {
        SectionKind::Text => (elf::SHT_PROGBITS, alloc | elf::SHF_EXECINSTR.0),
        SectionKind::Data => (elf::SHT_PROGBITS, alloc | write),
        SectionKind::ReadOnlyData => (elf::SHT_PROGBITS, alloc),
        SectionKind::Bss => (elf::SHT_NOBITS, alloc | write),
        SectionKind::InitArray => (elf::SHT_INIT_ARRAY, alloc | write),
        SectionKind::FiniArray => (elf::SHT_FINI_ARRAY, alloc | write),
        SectionKind::Note => (elf::SHT_NOTE, 0),
        SectionKind::Other => (elf::SHT_PROGBITS, 0),
        SectionKind::TlsData => (elf::SHT_PROGBITS, alloc | write | elf::SHF_TLS.0),
        SectionKind::TlsBss => (elf::SHT_NOBITS, alloc | write | elf::SHF_TLS.0),
    }
}

pub(crate) fn symbol_binding(binding: Binding) -> elf::SymbolBind {
    match binding {
        Binding::Local => elf::STB_LOCAL,
        Binding::Global => elf::STB_GLOBAL,
        Binding::Weak => elf::STB_WEAK,
    }
}

pub(crate) fn symbol_type(kind: SymbolKind) -> elf::SymbolType {
    match kind {
        SymbolKind::NoType => elf::STT_NOTYPE,
        SymbolKind::Func => elf::STT_FUNC,
        SymbolKind::Object => elf::STT_OBJECT,
        SymbolKind::Section => elf::STT_SECTION,
        SymbolKind::File => elf::STT_FILE,
        SymbolKind::Tls => elf::STT_TLS,
    }
}

/// A name as ELF can store it: up to the first NUL byte.
pub(crate) fn c_name(name: &str) -> &[u8] {
    let bytes = name.as_bytes();
    &bytes[..bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len())]
}

/// Writes `object` as an ELF64 little-endian `ET_REL` file for `EM_VLIW`.
///
/// # Panics
/// If the object is inconsistent (a symbol or relocation refers to a section or symbol
/// that does not exist, a relocation lies outside its section, an alignment is not a
/// power of two): see [`Object::check`]. Objects read by `read_object` always pass.
pub fn write_object(object: &Object) -> Vec<u8> {
    if let Err(e) = object.check() {
        panic!("write_object: invalid object: {e}");
    }
    let rela_names: Vec<String> = object
        .sections
        .iter()
        .map(|s| format!(".rela{}", s.name))
        .collect();
    // Local symbols first, as ELF requires; within each group the model's order.
    let order: Vec<usize> = (0..object.symbols.len())
        .filter(|&i| object.symbols[i].binding == Binding::Local)
        .chain((0..object.symbols.len()).filter(|&i| object.symbols[i].binding != Binding::Local))
        .collect();
    let mut elf_symbol = vec![SymbolIndex(0); object.symbols.len()];
    let num_local = 1 + object
        .symbols
        .iter()
        .filter(|s| s.binding == Binding::Local)
        .count() as u32;

    let mut out = Vec::new();
    let mut w = Writer::new(Endianness::Little, true, &mut out);
    w.reserve_file_header();

    // Section indices: contents, then relocations, then the tables.
    let mut section_index = Vec::with_capacity(object.sections.len());
    let mut section_name = Vec::with_capacity(object.sections.len());
    for s in &object.sections {
        section_name.push(non_empty(c_name(&s.name)).map(|n| w.add_section_name(n)));
        section_index.push(w.reserve_section_index());
    }
    let mut rela = Vec::new(); // (model section, name, index)
    for (i, s) in object.sections.iter().enumerate() {
        if !s.relocs.is_empty() {
            let name = w.add_section_name(c_name(&rela_names[i]));
            rela.push((i, name, w.reserve_section_index()));
        }
    }
    let symtab_index = w.reserve_symtab_section_index();
    w.reserve_strtab_section_index();
    w.reserve_shstrtab_section_index();

    let mut symbol_name: Vec<Option<StringId>> = vec![None; object.symbols.len()];
    w.reserve_null_symbol_index();
    for &i in &order {
        let sym = &object.symbols[i];
        symbol_name[i] = non_empty(c_name(&sym.name)).map(|n| w.add_string(n));
        let section = match sym.definition {
            SymbolDefinition::Defined { section, .. } => Some(section_index[section.0]),
            _ => None,
        };
        elf_symbol[i] = w.reserve_symbol_index(section);
    }
    if w.symtab_shndx_needed() {
        w.reserve_symtab_shndx_section_index();
    }

    // File ranges.
    let mut data_offset = Vec::with_capacity(object.sections.len());
    for s in &object.sections {
        let offset = if s.kind.is_nobits() {
            0
        } else {
            w.reserve(s.data.len() as u64, file_align(s.align))
        };
        data_offset.push(offset);
    }
    let rela_offset: Vec<u64> = rela
        .iter()
        .map(|&(i, _, _)| w.reserve_relocations(object.sections[i].relocs.len(), true))
        .collect();
    w.reserve_symtab();
    w.reserve_symtab_shndx();
    w.reserve_strtab().expect("string table");
    w.reserve_shstrtab().expect("section name table");
    w.reserve_section_headers();

    // Contents.
    w.write_file_header(&FileHeader {
        os_abi: elf::ELFOSABI_NONE,
        abi_version: 0,
        e_type: elf::ET_REL,
        e_machine: elf::Machine(vliw_isa::EM_VLIW),
        e_entry: 0,
        e_flags: elf::FileFlags(vliw_isa::EF_VLIW_ISA_V1),
    })
    .expect("ELF header");
    for s in &object.sections {
        if !s.kind.is_nobits() {
            w.write_align(file_align(s.align));
            w.write(&s.data);
        }
    }
    for &(i, _, _) in &rela {
        w.write_align_relocation();
        for r in &object.sections[i].relocs {
            w.write_relocation(
                true,
                &Rel {
                    r_offset: r.offset,
                    r_sym: elf_symbol[r.symbol.0].0,
                    r_type: elf::RelocationType(r.kind.to_elf()),
                    r_addend: r.addend,
                },
            );
        }
    }
    w.write_null_symbol();
    for &i in &order {
        let sym = &object.symbols[i];
        let (section, st_shndx, st_value) = match sym.definition {
            SymbolDefinition::Undefined => (None, elf::SHN_UNDEF, 0),
            SymbolDefinition::Absolute(v) => (None, elf::SHN_ABS, v),
            SymbolDefinition::Defined { section, value } => {
                (Some(section_index[section.0].0), elf::SHN_UNDEF, value)
            }
        };
        w.write_symbol(&Sym {
            section,
            st_name: w.string_offset(symbol_name[i]),
            st_info: elf::SymbolInfo::new(symbol_binding(sym.binding), symbol_type(sym.kind)),
            st_other: elf::SymbolOther(elf::STV_DEFAULT.0),
            st_shndx,
            st_value,
            st_size: sym.size,
        });
    }
    w.write_symtab_shndx();
    w.write_strtab();
    w.write_shstrtab();

    // Section headers.
    w.write_null_section_header();
    for (i, s) in object.sections.iter().enumerate() {
        let (sh_type, mut flags) = section_type_and_flags(s.kind);
        if s.retain {
            flags |= elf::SHF_GNU_RETAIN.0;
        }
        w.write_section_header(&SectionHeader {
            sh_name: w.section_name_offset(section_name[i]),
            sh_type,
            sh_flags: elf::SectionFlags(flags),
            sh_addr: 0,
            sh_offset: data_offset[i],
            sh_size: s.size(),
            sh_link: 0,
            sh_info: 0,
            sh_addralign: s.align,
            sh_entsize: 0,
        });
    }
    for (&(i, name, _), &offset) in rela.iter().zip(&rela_offset) {
        let count = object.sections[i].relocs.len();
        w.write_relocation_section_header(
            name,
            section_index[i],
            symtab_index,
            offset,
            count,
            true,
        );
    }
    w.write_symtab_section_header(num_local);
    w.write_strtab_section_header();
    w.write_shstrtab_section_header();
    w.write_symtab_shndx_section_header();
    debug_assert_eq!(w.reserved_len(), w.len());
    drop(w);
    out
}

pub(crate) fn non_empty(name: &[u8]) -> Option<&[u8]> {
    if name.is_empty() { None } else { Some(name) }
}

fn file_align(align: u64) -> u64 {
    align.clamp(1, MAX_FILE_ALIGN)
}
