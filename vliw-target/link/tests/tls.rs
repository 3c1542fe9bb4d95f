//! Thread-local storage: the TLS image (`.tdata` then `.tbss`), `PT_TLS`,
//! `R_VLIW_TPREL32`, the `__tls_*` symbols and the errors for mixing TLS and non-TLS.

mod common;

use common::*;
use vliw_elf::*;
use vliw_isa::RelocKind;
use vliw_link::LinkConfig;

/// A thread-local variable `name` at `value` in `section`.
fn tls_def(o: &mut Obj, name: &str, section: SectionId, value: u64) -> SymbolId {
    o.symbol(
        name,
        Binding::Global,
        SymbolKind::Tls,
        SymbolDefinition::Defined { section, value },
    )
}

/// `_start` with four syllables whose immediates take `R_VLIW_TPREL32` relocations
/// against `a` (tdata), `b` (tdata, second object), `z` (tbss) and `z + 8`.
fn program() -> (Obj, Obj) {
    let mut o = Obj::new();
    let (text, _) = o.func("_start", 4);
    o.section(".data", SectionKind::Data, 8, vec![0x11; 12]);
    let td = o.section(".tdata.a", SectionKind::TlsData, 4, vec![1, 2, 3, 4]);
    let a = tls_def(&mut o, "a", td, 0);
    let tb = o.o.add_section(Section::tbss(".tbss.z", 32, 64));
    let z = tls_def(&mut o, "z", tb, 0);
    let b = o.undef("b");
    o.reloc(text, 0, RelocKind::Tprel32, a, 0);
    o.reloc(text, 8, RelocKind::Tprel32, b, 0);
    o.reloc(text, 16, RelocKind::Tprel32, z, 0);
    o.reloc(text, 24, RelocKind::Tprel32, z, 8);

    let mut p = Obj::new();
    let td = p.section(
        ".tdata.b",
        SectionKind::TlsData,
        8,
        vec![5, 6, 7, 8, 9, 10, 11, 12],
    );
    tls_def(&mut p, "b", td, 0);
    (o, p)
}

#[test]
fn tls_image_layout_and_tprel() {
    let (o, p) = program();
    let out = link_ok(
        &[o.file("a.o"), p.file("b.o")],
        &LinkConfig {
            want_map: true,
            ..default()
        },
    );
    let exe = out.executable;
    // .data is 12 bytes at 0x11000 (no rodata); the image starts at the alignment of
    // .tbss (32), .tdata.a at 0, .tdata.b at 8, .tbss.z at 32.
    let start = 0x11020;
    assert_eq!(addr(&exe, "__tls_start"), start);
    assert_eq!(addr(&exe, "__tls_data_end"), start + 16);
    assert_eq!(addr(&exe, "__tls_end"), start + 32 + 64);
    assert_eq!(addr(&exe, "__tls_align"), 32);
    assert_eq!(
        exe.tls,
        Some(TlsTemplate {
            vaddr: start,
            file_size: 16,
            mem_size: 96,
            align: 32,
        })
    );
    assert_eq!(exe.section(".tdata").unwrap().kind, SectionKind::TlsData);
    assert_eq!(exe.section(".tbss").unwrap().kind, SectionKind::TlsBss);
    assert_eq!(exe.symbol("a").unwrap().kind, SymbolKind::Tls);
    assert_eq!(addr(&exe, "b"), start + 8);
    // The image's initial bytes are in the file, in the data segment.
    assert_eq!(
        exe.bytes_at(start, 16),
        Some(&[1, 2, 3, 4, 0, 0, 0, 0, 5, 6, 7, 8, 9, 10, 11, 12][..])
    );
    // .tbss is not file-backed; .bss-like memory follows.
    let data = &exe.segments[1];
    assert_eq!(data.vaddr + data.data.len() as u64, start + 16);
    assert_eq!(data.vaddr + data.mem_size, start + 96);
    assert_eq!(addr(&exe, "_edata"), start + 16);
    assert!(addr(&exe, "__bss_start") >= start + 96);

    let t = 0x10000;
    let tprel = |at: u64| field(&exe, RelocKind::Tprel32, at);
    assert_eq!(
        [tprel(t), tprel(t + 8), tprel(t + 16), tprel(t + 24)],
        [0, 8, 32, 40]
    );

    // The executable keeps PT_TLS through writing and reading.
    let back = read_executable(&write_executable(&exe), "a.out").unwrap();
    assert_eq!(back.tls, exe.tls);

    let map = out.map.unwrap();
    for needle in [
        ".tdata",
        ".tbss",
        "a.o:(.tdata.a)",
        "b.o:(.tdata.b)",
        "__tls_start",
        "__tls_align",
    ] {
        assert!(map.contains(needle), "{needle} missing from\n{map}");
    }
}

#[test]
fn no_tls_still_defines_the_symbols() {
    let mut o = start_calling(&[]);
    o.section(".data", SectionKind::Data, 8, vec![0; 8]);
    o.bss(".bss", 8, 8);
    let exe = link_ok(&[o.file("a.o")], &default()).executable;
    assert_eq!(exe.tls, None);
    let start = addr(&exe, "__tls_start");
    assert_eq!(start, 0x11008, "right after .data");
    assert_eq!(addr(&exe, "__tls_data_end"), start);
    assert_eq!(addr(&exe, "__tls_end"), start);
    assert_eq!(addr(&exe, "__tls_align"), 1);
    assert!(exe.section(".tdata").is_none() && exe.section(".tbss").is_none());
}

#[test]
fn only_tbss() {
    let mut o = start_calling(&[]);
    o.section(".data", SectionKind::Data, 8, vec![0; 8]);
    let tb = o.o.add_section(Section::tbss(".tbss.x", 16, 4));
    let x = tls_def(&mut o, "x", tb, 0);
    let t = o.o.section_by_name(".text._start").unwrap();
    o.reloc(t, 0, RelocKind::Tprel32, x, 2);
    let exe = link_ok(&[o.file("a.o")], &default()).executable;
    let tls = exe.tls.unwrap();
    assert_eq!(
        (tls.vaddr, tls.file_size, tls.mem_size, tls.align),
        (0x11010, 0, 4, 16)
    );
    assert_eq!(field(&exe, RelocKind::Tprel32, 0x10000), 2);
}

#[test]
fn gc_sections_keeps_referenced_tls_sections() {
    let (mut o, p) = program();
    let unused = o.section(".tdata.unused", SectionKind::TlsData, 8, vec![9; 8]);
    tls_def(&mut o, "unused", unused, 0);
    let out = link_ok(
        &[o.file("a.o"), p.file("b.o")],
        &LinkConfig {
            want_map: true,
            ..gc()
        },
    );
    let exe = out.executable;
    assert!(exe.symbol("a").is_some() && exe.symbol("b").is_some());
    assert!(exe.symbol("z").is_some());
    assert!(exe.symbol("unused").is_none());
    assert_eq!(exe.tls.unwrap().mem_size, 96);
    assert!(out.map.unwrap().contains("a.o:(.tdata.unused)"));
}

#[test]
fn tprel_against_a_non_tls_symbol_is_an_error() {
    let mut o = Obj::new();
    let (text, _) = o.func("_start", 1);
    let d = o.section(".data", SectionKind::Data, 8, vec![0; 8]);
    let x = o.def("x", Binding::Global, d, 0);
    o.reloc(text, 0, RelocKind::Tprel32, x, 0);
    assert_eq!(
        link_err(&[o.file("a.o")], &default()),
        "a.o: relocation R_VLIW_TPREL32 against symbol `x` at .text._start+0x0: the symbol is not thread-local (not in a .tdata or .tbss section)"
    );
    // Nor against a linker-defined or absolute symbol.
    let mut o = Obj::new();
    let (text, _) = o.func("_start", 1);
    let s = o.undef("__tls_start");
    o.reloc(text, 0, RelocKind::Tprel32, s, 0);
    assert!(link_err(&[o.file("a.o")], &default()).contains("is not thread-local"));
}

#[test]
fn address_of_a_tls_symbol_is_an_error() {
    for (kind, in_text) in [
        (RelocKind::Abs64, false),
        (RelocKind::Imm32, true),
        (RelocKind::Pcrel32, true),
    ] {
        let (mut o, p) = program();
        let at = if in_text {
            o.o.section_by_name(".text._start").unwrap()
        } else {
            o.o.section_by_name(".data").unwrap()
        };
        let a = o.o.symbol_by_name("a").unwrap();
        // Replace the first relocation of the section (or add one).
        o.o.sections[at.0].relocs.retain(|r| r.offset != 0);
        o.reloc(at, 0, kind, a, 0);
        let message = link_err(&[o.file("a.o"), p.file("b.o")], &default());
        assert!(
            message.starts_with(&format!(
                "a.o: relocation {} against thread-local symbol `a` at ",
                kind.name()
            )) && message.contains("use R_VLIW_TPREL32"),
            "{message}"
        );
    }
}

#[test]
fn tprel_overflow_is_reported() {
    let mut o = Obj::new();
    let (text, _) = o.func("_start", 1);
    let td = o.section(".tdata.a", SectionKind::TlsData, 8, vec![0; 8]);
    let a = tls_def(&mut o, "a", td, 0);
    o.reloc(text, 0, RelocKind::Tprel32, a, 1 << 31);
    let message = link_err(&[o.file("a.o")], &default());
    assert!(
        message.contains("R_VLIW_TPREL32 value 0x80000000 does not fit its field"),
        "{message}"
    );
}
