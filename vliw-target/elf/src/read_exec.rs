//! Reading executables (`ET_EXEC`) into the [`Executable`] model.
//!
//! The loader needs the segments and the entry point, which are checked strictly;
//! sections and symbols only label addresses, so section and symbol types this
//! machine does not use are passed over rather than rejected.

use object::LittleEndian as LE;
use object::elf;
use object::read::elf::{ProgramHeader as _, SectionHeader as _, Sym as _};

use crate::error::ElfError;
use crate::exec::{
    ExecSection, ExecSymbol, Executable, NonAllocSection, Segment, SegmentFlags, TlsTemplate,
};
use crate::model::{Binding, SectionKind, SymbolKind};
use crate::parse::{RawElf, string_at};

/// Reads an executable. `file_name` is only used in error messages. Never panics.
pub fn read_executable(bytes: &[u8], file_name: &str) -> Result<Executable, ElfError> {
    let raw = RawElf::parse(bytes, file_name, elf::ET_EXEC)?;
    let mut exe = Executable {
        entry: raw.header.e_entry.get(LE),
        ..Executable::default()
    };

    for (i, ph) in raw.program_headers()?.iter().enumerate() {
        if ph.p_type(LE) == elf::PT_TLS {
            exe.tls = Some(read_tls(&raw, i, ph, exe.tls.is_some())?);
            continue;
        }
        if ph.p_type(LE) != elf::PT_LOAD {
            continue;
        }
        let (vaddr, offset, filesz, memsz) = (
            ph.p_vaddr(LE),
            ph.p_offset(LE),
            ph.p_filesz(LE),
            ph.p_memsz(LE),
        );
        if filesz > memsz {
            return Err(raw.malformed(format!(
                "segment {i}: file size {filesz:#x} is larger than memory size {memsz:#x}"
            )));
        }
        if vaddr.checked_add(memsz).is_none() {
            return Err(raw.malformed(format!(
                "segment {i}: address {vaddr:#x} + size {memsz:#x} overflows"
            )));
        }
        let data = raw
            .bytes(&format!("contents of segment {i}"), offset, filesz)?
            .to_vec();
        let f = ph.p_flags(LE).0;
        let flags = SegmentFlags {
            read: f & elf::PF_R.0 != 0,
            write: f & elf::PF_W.0 != 0,
            execute: f & elf::PF_X.0 != 0,
        };
        exe.segments.push(Segment {
            vaddr,
            mem_size: memsz,
            data,
            flags,
        });
    }
    exe.segments.sort_by_key(|s| s.vaddr);
    for pair in exe.segments.windows(2) {
        if pair[0].vaddr + pair[0].mem_size > pair[1].vaddr {
            return Err(raw.malformed(format!(
                "segments at {:#x} and {:#x} overlap",
                pair[0].vaddr, pair[1].vaddr
            )));
        }
    }

    for index in 0..raw.section_count() {
        let shdr = &raw.sections[index];
        let name = raw.section_name(index)?;
        let sh_type = shdr.sh_type(LE);
        let flags = shdr.sh_flags(LE).0;
        if sh_type == elf::SHT_SYMTAB {
            read_symbols(&raw, index, &mut exe)?;
            continue;
        }
        if flags & elf::SHF_ALLOC.0 != 0 {
            let tls = flags & elf::SHF_TLS.0 != 0;
            let kind = match sh_type {
                elf::SHT_NOBITS if tls => SectionKind::TlsBss,
                _ if tls => SectionKind::TlsData,
                elf::SHT_NOBITS => SectionKind::Bss,
                elf::SHT_INIT_ARRAY => SectionKind::InitArray,
                elf::SHT_FINI_ARRAY => SectionKind::FiniArray,
                elf::SHT_NOTE => SectionKind::Note,
                _ if flags & elf::SHF_EXECINSTR.0 != 0 => SectionKind::Text,
                _ if flags & elf::SHF_WRITE.0 != 0 => SectionKind::Data,
                _ => SectionKind::ReadOnlyData,
            };
            exe.sections.push(ExecSection {
                name,
                addr: shdr.sh_addr(LE),
                size: shdr.sh_size(LE),
                kind,
            });
        } else if sh_type == elf::SHT_PROGBITS || sh_type == elf::SHT_NOTE {
            let kind = if sh_type == elf::SHT_NOTE {
                SectionKind::Note
            } else {
                SectionKind::Other
            };
            let data = raw.section_data(index, &name)?.to_vec();
            exe.non_alloc_sections
                .push(NonAllocSection { name, kind, data });
        }
    }
    exe.sections.sort_by_key(|s| s.addr);
    if let Some(tls) = exe.tls {
        // The image must lie in the file part of a loaded segment, so that it is in
        // memory for the runtime to copy.
        let end = tls.vaddr + tls.file_size;
        let inside = exe
            .segments
            .iter()
            .any(|s| s.vaddr <= tls.vaddr && end <= s.vaddr + s.data.len() as u64);
        if !inside && tls.file_size > 0 {
            return Err(raw.malformed(format!(
                "the TLS image at {:#x} ({:#x} bytes) is not inside a loaded segment",
                tls.vaddr, tls.file_size
            )));
        }
    }
    Ok(exe)
}

/// The `PT_TLS` header `i`.
fn read_tls(
    raw: &RawElf<'_>,
    i: usize,
    ph: &elf::ProgramHeader64<LE>,
    duplicate: bool,
) -> Result<TlsTemplate, ElfError> {
    if duplicate {
        return Err(raw.malformed(format!("program header {i}: a second PT_TLS header")));
    }
    let (vaddr, filesz, memsz, align) = (
        ph.p_vaddr(LE),
        ph.p_filesz(LE),
        ph.p_memsz(LE),
        ph.p_align(LE).max(1),
    );
    if filesz > memsz || vaddr.checked_add(memsz).is_none() || !align.is_power_of_two() {
        return Err(raw.malformed(format!(
            "program header {i}: bad PT_TLS (address {vaddr:#x}, file size {filesz:#x}, \
             memory size {memsz:#x}, alignment {align:#x})"
        )));
    }
    Ok(TlsTemplate {
        vaddr,
        file_size: filesz,
        mem_size: memsz,
        align,
    })
}

fn read_symbols(raw: &RawElf<'_>, index: usize, exe: &mut Executable) -> Result<(), ElfError> {
    let table = raw.symbol_table(index)?;
    for (i, sym) in table.symbols.iter().enumerate().skip(1) {
        let name = string_at(
            raw.file,
            table.strings,
            ".strtab",
            sym.st_name(LE),
            &format!("name of symbol {i}"),
        )?;
        let binding = match sym.st_bind() {
            elf::STB_LOCAL => Binding::Local,
            elf::STB_WEAK => Binding::Weak,
            _ => Binding::Global,
        };
        let kind = match sym.st_type() {
            elf::STT_FUNC => SymbolKind::Func,
            elf::STT_OBJECT => SymbolKind::Object,
            elf::STT_SECTION => SymbolKind::Section,
            elf::STT_FILE => SymbolKind::File,
            elf::STT_TLS => SymbolKind::Tls,
            _ => SymbolKind::NoType,
        };
        exe.symbols.push(ExecSymbol {
            name,
            addr: sym.st_value(LE),
            size: sym.st_size(LE),
            kind,
            binding,
        });
    }
    Ok(())
}
