//! Reading relocatable objects (`ET_REL`) into the [`Object`] model.

use std::collections::HashMap;

use object::LittleEndian as LE;
use object::elf;
use object::read::elf::{Rela as _, SectionHeader as _, Sym as _};
use vliw_isa::RelocKind;

use crate::error::{ElfError, ElfErrorKind};
use crate::model::{
    Binding, Object, Reloc, Section, SectionId, SectionKind, Symbol, SymbolDefinition, SymbolId,
    SymbolKind,
};
use crate::parse::{RELA_SIZE, RawElf, string_at};

/// Reads a relocatable object. `file_name` is only used in error messages.
///
/// Never panics: any input that is not a well-formed object of our machine gives an
/// [`ElfError`] saying what is wrong and where.
pub fn read_object(bytes: &[u8], file_name: &str) -> Result<Object, ElfError> {
    let raw = RawElf::parse(bytes, file_name, elf::ET_REL)?;
    let mut object = Object::new();
    // ELF section index -> model section, for the sections the model keeps.
    let mut section_ids: HashMap<usize, SectionId> = HashMap::new();
    let mut names = Vec::with_capacity(raw.section_count());
    let mut symtab = None;
    let mut relas = Vec::new();

    for index in 0..raw.section_count() {
        let name = raw.section_name(index)?;
        let shdr = &raw.sections[index];
        let sh_type = shdr.sh_type(LE);
        names.push(name.clone());
        let kind = match sh_type {
            elf::SHT_NULL | elf::SHT_STRTAB | elf::SHT_SYMTAB_SHNDX => continue,
            elf::SHT_SYMTAB => {
                if symtab.replace(index).is_some() {
                    return Err(raw.malformed("more than one symbol table (SHT_SYMTAB)"));
                }
                continue;
            }
            elf::SHT_RELA => {
                relas.push(index);
                continue;
            }
            elf::SHT_REL => {
                return Err(raw.malformed(format!(
                    "section {name}: SHT_REL relocations are not supported (this machine uses RELA)"
                )));
            }
            elf::SHT_GROUP => {
                return Err(raw.malformed(format!(
                    "section {name}: section groups (COMDAT) are not supported"
                )));
            }
            _ => section_kind(&raw, &name, shdr)?,
        };
        let align = match shdr.sh_addralign(LE) {
            0 => 1,
            a if a.is_power_of_two() => a,
            a => {
                return Err(raw.malformed(format!(
                    "section {name} has alignment {a}, not a power of two"
                )));
            }
        };
        let size = shdr.sh_size(LE);
        let data = raw.section_data(index, &name)?.to_vec();
        if kind == SectionKind::Text {
            if size % 8 != 0 {
                return Err(raw.err(ElfErrorKind::TextSizeNotMultipleOf8 {
                    section: name,
                    size,
                }));
            }
            if align < 8 {
                return Err(raw.malformed(format!(
                    "text section {name} has alignment {align}, must be at least 8"
                )));
            }
        }
        let retain = shdr.sh_flags(LE).0 & elf::SHF_GNU_RETAIN.0 != 0;
        let section = Section {
            name,
            kind,
            align,
            data,
            size,
            relocs: Vec::new(),
            retain,
        };
        section_ids.insert(index, object.add_section(section));
    }

    if let Some(symtab) = symtab {
        read_symbols(&raw, symtab, &section_ids, &names, &mut object)?;
    }
    for rela in relas {
        read_relocations(&raw, rela, symtab, &section_ids, &names, &mut object)?;
    }
    Ok(object)
}

/// The model's section kind from an ELF type and flags.
fn section_kind(
    raw: &RawElf<'_>,
    name: &str,
    shdr: &elf::SectionHeader64<LE>,
) -> Result<SectionKind, ElfError> {
    let flags = shdr.sh_flags(LE).0;
    let alloc = flags & elf::SHF_ALLOC.0 != 0;
    if flags & elf::SHF_TLS.0 != 0 {
        let write = flags & elf::SHF_WRITE.0 != 0;
        return match shdr.sh_type(LE) {
            elf::SHT_PROGBITS if alloc && write => Ok(SectionKind::TlsData),
            elf::SHT_NOBITS if alloc && write => Ok(SectionKind::TlsBss),
            _ => Err(raw.malformed(format!(
                "section {name}: a thread-local section (SHF_TLS) must be a writable, \
                 allocated SHT_PROGBITS or SHT_NOBITS section"
            ))),
        };
    }
    if flags & elf::SHF_COMPRESSED.0 != 0 {
        return Err(raw.malformed(format!(
            "section {name}: compressed sections (SHF_COMPRESSED) are not supported"
        )));
    }
    Ok(match shdr.sh_type(LE) {
        elf::SHT_PROGBITS if !alloc => SectionKind::Other,
        elf::SHT_PROGBITS if flags & elf::SHF_EXECINSTR.0 != 0 => SectionKind::Text,
        elf::SHT_PROGBITS if flags & elf::SHF_WRITE.0 != 0 => SectionKind::Data,
        elf::SHT_PROGBITS => SectionKind::ReadOnlyData,
        elf::SHT_NOBITS if alloc => SectionKind::Bss,
        elf::SHT_INIT_ARRAY => SectionKind::InitArray,
        elf::SHT_FINI_ARRAY => SectionKind::FiniArray,
        elf::SHT_NOTE => SectionKind::Note,
        t => {
            return Err(raw.malformed(format!(
                "section {name}: unsupported section type {:#x}{}",
                t.0,
                if alloc { "" } else { " (not allocated)" }
            )));
        }
    })
}

fn read_symbols(
    raw: &RawElf<'_>,
    symtab: usize,
    section_ids: &HashMap<usize, SectionId>,
    names: &[String],
    object: &mut Object,
) -> Result<(), ElfError> {
    let table = raw.symbol_table(symtab)?;
    for (index, sym) in table.symbols.iter().enumerate().skip(1) {
        let what = format!("name of symbol {index}");
        let name = string_at(raw.file, table.strings, ".strtab", sym.st_name(LE), &what)?;
        let label = if name.is_empty() {
            format!("symbol {index}")
        } else {
            format!("symbol {index} `{name}`")
        };
        let binding = match sym.st_bind() {
            elf::STB_LOCAL => Binding::Local,
            elf::STB_GLOBAL => Binding::Global,
            elf::STB_WEAK => Binding::Weak,
            b => return Err(raw.malformed(format!("{label} has unsupported binding {}", b.0))),
        };
        let kind = match sym.st_type() {
            elf::STT_NOTYPE => SymbolKind::NoType,
            elf::STT_FUNC => SymbolKind::Func,
            elf::STT_OBJECT => SymbolKind::Object,
            elf::STT_SECTION => SymbolKind::Section,
            elf::STT_FILE => SymbolKind::File,
            elf::STT_TLS => SymbolKind::Tls,
            t => return Err(raw.malformed(format!("{label} has unsupported type {}", t.0))),
        };
        let value = sym.st_value(LE);
        let shndx = sym.st_shndx(LE);
        let definition = match shndx {
            elf::SHN_UNDEF => SymbolDefinition::Undefined,
            elf::SHN_ABS => SymbolDefinition::Absolute(value),
            elf::SHN_COMMON => {
                return Err(raw.malformed(format!(
                    "{label}: common symbols (SHN_COMMON) are not supported"
                )));
            }
            _ => {
                let elf_index = if shndx == elf::SHN_XINDEX {
                    *table.shndx.get(index).ok_or_else(|| {
                        raw.malformed(format!(
                            "{label} has SHN_XINDEX but no extended section index"
                        ))
                    })? as u64
                } else if shndx.is_reserved() {
                    return Err(raw.malformed(format!(
                        "{label} has unsupported special section index {:#x}",
                        shndx.0
                    )));
                } else {
                    shndx.0 as u64
                };
                raw.section(elf_index, &format!("definition of {label}"))?;
                let section = *section_ids.get(&(elf_index as usize)).ok_or_else(|| {
                    raw.malformed(format!(
                        "{label} is defined in section {elf_index} ({}), which holds no code or data",
                        names[elf_index as usize]
                    ))
                })?;
                let size = object.sections[section.0].size();
                if value > size {
                    return Err(raw.malformed(format!(
                        "{label} has value {value:#x}, past the end of section {} ({size:#x} bytes)",
                        object.sections[section.0].name
                    )));
                }
                SymbolDefinition::Defined { section, value }
            }
        };
        let size = sym.st_size(LE);
        object.symbols.push(Symbol {
            name,
            binding,
            kind,
            definition,
            size,
        });
    }
    Ok(())
}

fn read_relocations(
    raw: &RawElf<'_>,
    index: usize,
    symtab: Option<usize>,
    section_ids: &HashMap<usize, SectionId>,
    names: &[String],
    object: &mut Object,
) -> Result<(), ElfError> {
    let shdr = &raw.sections[index];
    let rela_name = &names[index];
    let target = shdr.sh_info(LE) as u64;
    raw.section(
        target,
        &format!("sh_info of relocation section {rela_name}"),
    )?;
    let section = *section_ids.get(&(target as usize)).ok_or_else(|| {
        raw.malformed(format!("relocation section {rela_name} applies to section {target} ({}), which holds no code or data", names[target as usize]))
    })?;
    let entsize = shdr.sh_entsize(LE);
    if entsize != RELA_SIZE {
        return Err(raw.malformed(format!(
            "relocation section {rela_name} has entry size {entsize}, expected {RELA_SIZE}"
        )));
    }
    let size = shdr.sh_size(LE);
    if !size.is_multiple_of(RELA_SIZE) {
        return Err(raw.malformed(format!(
            "relocation section {rela_name} has size {size:#x}, not a multiple of {RELA_SIZE}"
        )));
    }
    let entries: &[elf::Rela64<LE>] = raw.table(
        &format!("relocation section {rela_name}"),
        shdr.sh_offset(LE),
        size / RELA_SIZE,
        RELA_SIZE,
    )?;
    if !entries.is_empty() && Some(shdr.sh_link(LE) as usize) != symtab {
        return Err(raw.malformed(format!(
            "relocation section {rela_name}: sh_link does not name the symbol table"
        )));
    }
    let section_name = object.sections[section.0].name.clone();
    let section_len = object.sections[section.0].data.len() as u64;
    let symbol_count = object.symbols.len() as u64;
    let mut relocs = Vec::with_capacity(entries.len());
    for rela in entries {
        let offset = rela.r_offset(LE);
        let r_type = rela.r_type(LE, false).0;
        let kind = RelocKind::from_elf(r_type).ok_or_else(|| {
            raw.err(ElfErrorKind::UnknownRelocation {
                section: section_name.clone(),
                offset,
                r_type,
            })
        })?;
        let r_sym = rela.r_sym(LE, false) as u64;
        if r_sym == 0 {
            if kind == RelocKind::None {
                continue;
            }
            return Err(raw.malformed(format!(
                "relocation {} at {section_name}+{offset:#x} refers to the null symbol",
                kind.name()
            )));
        }
        if r_sym > symbol_count {
            return Err(raw.err(ElfErrorKind::IndexOutOfRange {
                what: format!(
                    "symbol index of relocation {} at {section_name}+{offset:#x}",
                    kind.name()
                ),
                index: r_sym,
                limit: symbol_count + 1,
            }));
        }
        if offset
            .checked_add(kind.size() as u64)
            .is_none_or(|end| end > section_len)
        {
            return Err(raw.err(ElfErrorKind::RelocationPastEnd {
                section: section_name.clone(),
                offset,
                reloc: kind.name(),
                section_size: section_len,
            }));
        }
        relocs.push(Reloc {
            offset,
            kind,
            symbol: SymbolId(r_sym as usize - 1),
            addend: rela.r_addend(LE),
        });
    }
    object.sections[section.0].relocs.extend(relocs);
    Ok(())
}
