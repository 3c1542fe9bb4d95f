//! Writing an [`Executable`] as an ELF `ET_EXEC` file.
//!
//! File layout: header, program headers, each segment's file part at an offset
//! congruent to its address modulo the page size (so that a loader could map it),
//! the non-allocated sections, `.symtab`, `.strtab`, `.shstrtab`, section headers.

use object::Endianness;
use object::elf;
use object::write::StringId;
use object::write::elf::{FileHeader, ProgramHeader, SectionHeader, SectionIndex, Sym, Writer};

use crate::PAGE_SIZE;
use crate::exec::{Executable, SegmentFlags};
use crate::model::{Binding, SectionKind};
use crate::write::{c_name, non_empty, section_type_and_flags, symbol_binding, symbol_type};

fn segment_flags(flags: SegmentFlags) -> elf::ProgramFlags {
    let mut f = 0;
    if flags.read {
        f |= elf::PF_R.0;
    }
    if flags.write {
        f |= elf::PF_W.0;
    }
    if flags.execute {
        f |= elf::PF_X.0;
    }
    elf::ProgramFlags(f)
}

/// Writes `exe` as an ELF64 little-endian `ET_EXEC` file for `EM_VLIW`, with one
/// `PT_LOAD` program header per segment (and a `PT_TLS` one if `exe.tls` is set),
/// section headers for the allocated and
/// non-allocated sections, and a symbol table unless `exe.symbols` is empty.
pub fn write_executable(exe: &Executable) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = Writer::new(Endianness::Little, true, &mut out);
    w.reserve_file_header();
    w.reserve_program_headers(exe.segments.len() as u32 + u32::from(exe.tls.is_some()));

    let alloc_names: Vec<Option<StringId>> = exe
        .sections
        .iter()
        .map(|s| non_empty(c_name(&s.name)).map(|n| w.add_section_name(n)))
        .collect();
    let alloc_index: Vec<SectionIndex> = exe
        .sections
        .iter()
        .map(|_| w.reserve_section_index())
        .collect();
    let other_names: Vec<Option<StringId>> = exe
        .non_alloc_sections
        .iter()
        .map(|s| non_empty(c_name(&s.name)).map(|n| w.add_section_name(n)))
        .collect();
    for _ in &exe.non_alloc_sections {
        w.reserve_section_index();
    }
    let has_symtab = !exe.symbols.is_empty();
    if has_symtab {
        w.reserve_symtab_section_index();
        w.reserve_strtab_section_index();
    }
    w.reserve_shstrtab_section_index();

    // Symbols: locals first. Each is attached to the section that contains it.
    let order: Vec<usize> = (0..exe.symbols.len())
        .filter(|&i| exe.symbols[i].binding == Binding::Local)
        .chain((0..exe.symbols.len()).filter(|&i| exe.symbols[i].binding != Binding::Local))
        .collect();
    let num_local = 1 + exe
        .symbols
        .iter()
        .filter(|s| s.binding == Binding::Local)
        .count() as u32;
    let mut symbol_name = vec![None; exe.symbols.len()];
    let mut symbol_section = vec![None; exe.symbols.len()];
    if has_symtab {
        w.reserve_null_symbol_index();
    }
    for &i in &order {
        let sym = &exe.symbols[i];
        symbol_name[i] = non_empty(c_name(&sym.name)).map(|n| w.add_string(n));
        let inside = exe
            .sections
            .iter()
            .position(|s| s.addr <= sym.addr && sym.addr < s.addr.saturating_add(s.size));
        let at_end = || {
            exe.sections
                .iter()
                .position(|s| s.addr.saturating_add(s.size) == sym.addr)
        };
        symbol_section[i] = inside.or_else(at_end).map(|s| alloc_index[s]);
        w.reserve_symbol_index(symbol_section[i]);
    }
    if has_symtab && w.symtab_shndx_needed() {
        w.reserve_symtab_shndx_section_index();
    }

    let mut segment_offset = Vec::with_capacity(exe.segments.len());
    for seg in &exe.segments {
        let cur = w.reserved_len();
        let offset = cur + (seg.vaddr.wrapping_sub(cur) % PAGE_SIZE);
        w.reserve_until(offset);
        w.reserve(seg.data.len() as u64, 1);
        segment_offset.push(offset);
    }
    let other_offset: Vec<u64> = exe
        .non_alloc_sections
        .iter()
        .map(|s| w.reserve(s.data.len() as u64, 1))
        .collect();
    if has_symtab {
        w.reserve_symtab();
        w.reserve_symtab_shndx();
        w.reserve_strtab().expect("string table");
    }
    w.reserve_shstrtab().expect("section name table");
    w.reserve_section_headers();

    w.write_file_header(&FileHeader {
        os_abi: elf::ELFOSABI_NONE,
        abi_version: 0,
        e_type: elf::ET_EXEC,
        e_machine: elf::Machine(vliw_isa::EM_VLIW),
        e_entry: exe.entry,
        e_flags: elf::FileFlags(vliw_isa::EF_VLIW_ISA_V1),
    })
    .expect("ELF header");
    w.write_align_program_headers();
    for (seg, &offset) in exe.segments.iter().zip(&segment_offset) {
        w.write_program_header(&ProgramHeader {
            p_type: elf::PT_LOAD,
            p_flags: segment_flags(seg.flags),
            p_offset: offset,
            p_vaddr: seg.vaddr,
            p_paddr: seg.vaddr,
            p_filesz: seg.data.len() as u64,
            p_memsz: seg.mem_size.max(seg.data.len() as u64),
            p_align: PAGE_SIZE,
        });
    }
    if let Some(tls) = exe.tls {
        // The file offset of the image: inside the segment that holds it.
        let p_offset = exe
            .segments
            .iter()
            .zip(&segment_offset)
            .find(|(seg, _)| {
                seg.vaddr <= tls.vaddr && tls.vaddr <= seg.vaddr.saturating_add(seg.mem_size)
            })
            .map_or(0, |(seg, &off)| off + (tls.vaddr - seg.vaddr));
        w.write_program_header(&ProgramHeader {
            p_type: elf::PT_TLS,
            p_flags: elf::ProgramFlags(elf::PF_R.0),
            p_offset,
            p_vaddr: tls.vaddr,
            p_paddr: tls.vaddr,
            p_filesz: tls.file_size,
            p_memsz: tls.mem_size,
            p_align: tls.align,
        });
    }
    for (seg, &offset) in exe.segments.iter().zip(&segment_offset) {
        w.pad_until(offset);
        w.write(&seg.data);
    }
    for s in &exe.non_alloc_sections {
        w.write(&s.data);
    }
    if has_symtab {
        w.write_null_symbol();
        for &i in &order {
            let sym = &exe.symbols[i];
            w.write_symbol(&Sym {
                section: symbol_section[i].map(|s| s.0),
                st_name: w.string_offset(symbol_name[i]),
                st_info: elf::SymbolInfo::new(symbol_binding(sym.binding), symbol_type(sym.kind)),
                st_other: elf::SymbolOther(elf::STV_DEFAULT.0),
                st_shndx: elf::SHN_ABS,
                st_value: sym.addr,
                st_size: sym.size,
            });
        }
        w.write_symtab_shndx();
        w.write_strtab();
    }
    w.write_shstrtab();

    w.write_null_section_header();
    for (i, s) in exe.sections.iter().enumerate() {
        let (sh_type, flags) = section_type_and_flags(s.kind);
        // The file offset of the section's bytes: inside the segment that holds it.
        let sh_offset = exe
            .segments
            .iter()
            .zip(&segment_offset)
            .find(|(seg, _)| {
                seg.vaddr <= s.addr && s.addr <= seg.vaddr.saturating_add(seg.mem_size)
            })
            .map_or(0, |(seg, &off)| off + (s.addr - seg.vaddr));
        w.write_section_header(&SectionHeader {
            sh_name: w.section_name_offset(alloc_names[i]),
            sh_type,
            sh_flags: elf::SectionFlags(flags),
            sh_addr: s.addr,
            sh_offset,
            sh_size: s.size,
            sh_link: 0,
            sh_info: 0,
            sh_addralign: 1 << s.addr.trailing_zeros().min(12),
            sh_entsize: 0,
        });
    }
    for (i, s) in exe.non_alloc_sections.iter().enumerate() {
        let (sh_type, _) = section_type_and_flags(if s.kind == SectionKind::Note {
            SectionKind::Note
        } else {
            SectionKind::Other
        });
        w.write_section_header(&SectionHeader {
            sh_name: w.section_name_offset(other_names[i]),
            sh_type,
            sh_flags: elf::SectionFlags(0),
            sh_addr: 0,
            sh_offset: other_offset[i],
            sh_size: s.data.len() as u64,
            sh_link: 0,
            sh_info: 0,
            sh_addralign: 1,
            sh_entsize: 0,
        });
    }
    if has_symtab {
        w.write_symtab_section_header(num_local);
        w.write_strtab_section_header();
    }
    w.write_shstrtab_section_header();
    if has_symtab {
        w.write_symtab_shndx_section_header();
    }
    debug_assert_eq!(w.reserved_len(), w.len());
    drop(w);
    out
}
