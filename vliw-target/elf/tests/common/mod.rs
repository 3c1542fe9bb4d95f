//! Shared by the tests: a sample object with every section kind, symbol kind and
//! relocation kind, and helpers to find and patch fields of the raw ELF bytes.
#![allow(dead_code)]

use vliw_elf::*;
use vliw_isa::{NOP_BUNDLE, RelocKind};

pub fn nops(n: usize) -> Vec<u8> {
    (0..n).flat_map(|_| NOP_BUNDLE.to_le_bytes()).collect()
}

pub fn sample_object() -> Object {
    let mut o = Object::new();
    let text = o.add_section(Section::new(".text.main", SectionKind::Text, 16, nops(8)));
    let data = o.add_section(Section::new(".data", SectionKind::Data, 8, vec![0; 24]));
    let rodata = o.add_section(Section::new(
        ".rodata.str",
        SectionKind::ReadOnlyData,
        1,
        b"hello\0".to_vec(),
    ));
    let bss = o.add_section(Section::bss(".bss.buf", 32, 4096));
    let init = o.add_section(Section::new(
        ".init_array",
        SectionKind::InitArray,
        8,
        vec![0; 8],
    ));
    let fini = o.add_section(Section::new(
        ".fini_array",
        SectionKind::FiniArray,
        8,
        vec![0; 8],
    ));
    // namesz 5, descsz 4, type 1, "VLIW\0" padded to 8, then the descriptor.
    let note_bytes = [
        &5u32.to_le_bytes()[..],
        &4u32.to_le_bytes(),
        &1u32.to_le_bytes(),
        b"VLIW\0\0\0\0",
        &[1, 2, 3, 4],
    ]
    .concat();
    let note = o.add_section(Section::new(".note.vliw", SectionKind::Note, 4, note_bytes));
    let mut debug = Section::new(".debug_info", SectionKind::Other, 1, vec![0; 12]);
    debug.retain = false;
    let debug = o.add_section(debug);
    let mut kept = Section::new(".text.kept", SectionKind::Text, 8, nops(1));
    kept.retain = true;
    o.add_section(kept);
    let tdata = o.add_section(Section::new(
        ".tdata.counter",
        SectionKind::TlsData,
        8,
        vec![7, 0, 0, 0, 0, 0, 0, 0],
    ));
    let tbss = o.add_section(Section::tbss(".tbss.slot", 16, 32));

    let sym = |name: &str, binding, kind, definition, size| Symbol {
        name: name.to_string(),
        binding,
        kind,
        definition,
        size,
    };
    o.add_symbol(sym(
        "main.c",
        Binding::Local,
        SymbolKind::File,
        SymbolDefinition::Absolute(0),
        0,
    ));
    let text_sym = o.add_symbol(sym(
        "",
        Binding::Local,
        SymbolKind::Section,
        SymbolDefinition::Defined {
            section: text,
            value: 0,
        },
        0,
    ));
    let main = o.add_symbol(sym(
        "main",
        Binding::Global,
        SymbolKind::Func,
        SymbolDefinition::Defined {
            section: text,
            value: 0,
        },
        48,
    ));
    let helper = o.add_symbol(sym(
        "helper",
        Binding::Local,
        SymbolKind::Func,
        SymbolDefinition::Defined {
            section: text,
            value: 16,
        },
        8,
    ));
    let msg = o.add_symbol(sym(
        "msg",
        Binding::Weak,
        SymbolKind::Object,
        SymbolDefinition::Defined {
            section: rodata,
            value: 0,
        },
        6,
    ));
    let buf = o.add_symbol(sym(
        "buf",
        Binding::Global,
        SymbolKind::Object,
        SymbolDefinition::Defined {
            section: bss,
            value: 4096,
        },
        0,
    ));
    let ext = o.add_symbol(sym(
        "external",
        Binding::Global,
        SymbolKind::NoType,
        SymbolDefinition::Undefined,
        0,
    ));
    let weak_ext = o.add_symbol(sym(
        "maybe",
        Binding::Weak,
        SymbolKind::NoType,
        SymbolDefinition::Undefined,
        0,
    ));
    let abs = o.add_symbol(sym(
        "ABS_VALUE",
        Binding::Global,
        SymbolKind::NoType,
        SymbolDefinition::Absolute(0x1234),
        0,
    ));
    let counter = o.add_symbol(sym(
        "counter",
        Binding::Global,
        SymbolKind::Tls,
        SymbolDefinition::Defined {
            section: tdata,
            value: 0,
        },
        8,
    ));
    let slot = o.add_symbol(sym(
        "slot",
        Binding::Local,
        SymbolKind::Tls,
        SymbolDefinition::Defined {
            section: tbss,
            value: 16,
        },
        16,
    ));
    let _ = (data, init, fini, note, abs);

    let r = |offset, kind, symbol, addend| Reloc {
        offset,
        kind,
        symbol,
        addend,
    };
    o.sections[text.0].relocs = vec![
        r(0, RelocKind::Imm32, msg, 2),
        r(8, RelocKind::Branch32, helper, 0),
        r(16, RelocKind::Imm64, buf, -8),
        r(32, RelocKind::Pcrel32, ext, 0),
        r(40, RelocKind::None, text_sym, 0),
        r(48, RelocKind::Tprel32, counter, 4),
        r(56, RelocKind::Tprel32, slot, 0),
    ];
    o.sections[data.0].relocs = vec![
        r(0, RelocKind::Abs64, main, 0),
        r(8, RelocKind::Abs32, weak_ext, 4),
        r(12, RelocKind::Pcrel32Data, msg, -1),
    ];
    o.sections[init.0].relocs = vec![r(0, RelocKind::Abs64, main, 0)];
    o.sections[debug.0].relocs = vec![
        r(0, RelocKind::Abs64, text_sym, 0x10),
        r(8, RelocKind::Abs32, main, 0),
    ];
    o
}

/// The model as `read_object` returns it: local symbols first.
pub fn locals_first(o: &Object) -> Object {
    let mut order: Vec<usize> = (0..o.symbols.len())
        .filter(|&i| o.symbols[i].binding == Binding::Local)
        .collect();
    order.extend((0..o.symbols.len()).filter(|&i| o.symbols[i].binding != Binding::Local));
    let mut new_index = vec![0; order.len()];
    for (new, &old) in order.iter().enumerate() {
        new_index[old] = new;
    }
    let mut out = o.clone();
    out.symbols = order.iter().map(|&i| o.symbols[i].clone()).collect();
    for s in &mut out.sections {
        for r in &mut s.relocs {
            r.symbol = SymbolId(new_index[r.symbol.0]);
        }
    }
    out
}

pub fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(b[at..at + 2].try_into().unwrap())
}
pub fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
pub fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}
pub fn put_u16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_le_bytes());
}
pub fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}
pub fn put_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// File offsets of the section headers, in order.
pub fn section_headers(b: &[u8]) -> Vec<usize> {
    let shoff = u64_at(b, 0x28) as usize;
    let shnum = u16_at(b, 0x3c) as usize;
    (0..shnum).map(|i| shoff + 64 * i).collect()
}

/// File offset of the header of the first section of ELF type `sh_type`.
pub fn header_of_type(b: &[u8], sh_type: u32) -> usize {
    *section_headers(b)
        .iter()
        .find(|&&h| u32_at(b, h + 4) == sh_type)
        .expect("section type present")
}

pub const SHT_SYMTAB: u32 = 2;
pub const SHT_RELA: u32 = 4;
