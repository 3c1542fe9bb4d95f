//! Links small programmatically built objects and checks the executables.

mod common;

use common::*;
use vliw_elf::*;
use vliw_isa::{NOP_BUNDLE, RelocKind};
use vliw_link::{LinkConfig, LinkError, Strip, TEXT_BASE};

#[test]
fn layout_of_segments_and_sections() {
    let mut o = Obj::new();
    let (_, _) = o.func("_start", 3);
    let f = o.section(".text.f", SectionKind::Text, 32, nops(1));
    o.def("f", Binding::Global, f, 0);
    let ro = o.section(
        ".rodata.msg",
        SectionKind::ReadOnlyData,
        1,
        b"hello".to_vec(),
    );
    o.def("msg", Binding::Global, ro, 0);
    let d = o.section(
        ".data.x",
        SectionKind::Data,
        8,
        vec![1, 2, 3, 4, 5, 6, 7, 8],
    );
    o.def("x", Binding::Global, d, 0);
    let b = o.bss(".bss.buf", 16, 100);
    o.def("buf", Binding::Global, b, 0);
    let init = o.section(".init_array", SectionKind::InitArray, 8, vec![0; 8]);
    let fini = o.section(".fini_array", SectionKind::FiniArray, 8, vec![0; 16]);
    let _ = (init, fini);

    let out = link_ok(&[o.file("a.o")], &default());
    let exe = &out.executable;
    assert_eq!(exe.entry, TEXT_BASE);
    assert_eq!(addr(exe, "_start"), 0x10000);
    assert_eq!(addr(exe, "f"), 0x10020, "aligned to 32");
    // The gap between _start's 3 syllables and f is nop bundles.
    assert_eq!(u64_at(exe, 0x10018), NOP_BUNDLE);
    assert_eq!(addr(exe, "msg"), 0x11000);
    assert_eq!(exe.section(".init_array").unwrap().addr, 0x12000);
    assert_eq!(exe.section(".fini_array").unwrap().addr, 0x12008);
    assert_eq!(addr(exe, "x"), 0x12018);
    assert_eq!(addr(exe, "buf"), 0x12020);
    assert_eq!(
        addr(exe, "_end"),
        0x12090,
        "end of bss (0x12084) rounded up to 16"
    );

    let names: Vec<&str> = exe.sections.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            ".text",
            ".rodata",
            ".init_array",
            ".fini_array",
            ".data",
            ".bss"
        ]
    );
    assert_eq!(exe.segments.len(), 3);
    let flags: Vec<SegmentFlags> = exe.segments.iter().map(|s| s.flags).collect();
    assert_eq!(flags, [SegmentFlags::RX, SegmentFlags::R, SegmentFlags::RW]);
    for seg in &exe.segments {
        assert_eq!(seg.vaddr % 4096, 0);
    }
    let data = &exe.segments[2];
    assert_eq!(
        (data.vaddr, data.data.len(), data.mem_size),
        (0x12000, 0x20, 0x84)
    );
    assert_eq!(
        exe.bytes_at(0x12018, 8),
        Some(&[1, 2, 3, 4, 5, 6, 7, 8][..])
    );
}

#[test]
fn linker_defined_symbols() {
    let mut o = start_calling(&[]);
    let data = o.section(".data", SectionKind::Data, 8, vec![0; 8 * 5]);
    for (i, name) in [
        "__executable_start",
        "_etext",
        "__bss_start",
        "_end",
        "__init_array_start",
    ]
    .iter()
    .enumerate()
    {
        let s = o.undef(name);
        o.reloc(data, 8 * i as u64, RelocKind::Abs64, s, 0);
    }
    o.section(".rodata", SectionKind::ReadOnlyData, 8, vec![0; 8]);
    o.bss(".bss", 8, 24);
    let exe = link_ok(&[o.file("a.o")], &default()).executable;
    assert_eq!(addr(&exe, "__executable_start"), 0x10000);
    assert_eq!(addr(&exe, "_etext"), 0x10008);
    assert_eq!(addr(&exe, "__rodata_start"), 0x11000);
    assert_eq!(addr(&exe, "__data_start"), 0x12000);
    assert_eq!(addr(&exe, "__init_array_start"), 0x12000);
    assert_eq!(addr(&exe, "__init_array_end"), 0x12000);
    assert_eq!(addr(&exe, "_edata"), 0x12028);
    assert_eq!(addr(&exe, "__bss_start"), 0x12028);
    assert_eq!(addr(&exe, "_end"), 0x12040);
    let d = exe.section(".data").unwrap().addr;
    let words: Vec<u64> = (0..5).map(|i| u64_at(&exe, d + 8 * i)).collect();
    assert_eq!(words, [0x10000, 0x10008, 0x12028, 0x12040, 0x12000]);
}

#[test]
fn input_defines_a_linker_symbol() {
    // An input's own definition wins over the linker's.
    let mut o = start_calling(&[]);
    let d = o.section(".data", SectionKind::Data, 8, vec![0; 8]);
    o.def("_end", Binding::Global, d, 0);
    let exe = link_ok(&[o.file("a.o")], &default()).executable;
    assert_eq!(
        addr(&exe, "_end"),
        0x11000,
        "the start of .data (no rodata: data follows text's page)"
    );
    assert_eq!(exe.symbols.iter().filter(|s| s.name == "_end").count(), 1);
}

#[test]
fn every_relocation_kind() {
    let mut o = Obj::new();
    let (text, _) = o.func("_start", 6);
    let f = o.text(".text.f", 1);
    let f_sym = o.def("f", Binding::Local, f, 0);
    let d = o.section(".data", SectionKind::Data, 8, vec![0xaa; 24]);
    let x = o.def("x", Binding::Global, d, 16);
    let b = o.bss(".bss", 8, 8);
    let buf = o.def("buf", Binding::Global, b, 0);
    o.reloc(text, 0, RelocKind::Imm32, x, 4);
    o.reloc(text, 8, RelocKind::Branch32, f_sym, 0);
    o.reloc(text, 16, RelocKind::Imm64, buf, 0x1_0000_0000);
    o.reloc(text, 32, RelocKind::None, buf, 0);
    o.reloc(d, 0, RelocKind::Abs64, f_sym, 8);
    o.reloc(d, 8, RelocKind::Abs32, x, 0);
    o.reloc(d, 12, RelocKind::Pcrel32Data, f_sym, 0);

    let exe = link_ok(&[o.file("a.o")], &default()).executable;
    let (start, f, x, buf) = (0x10000u64, 0x10030u64, addr(&exe, "x"), addr(&exe, "buf"));
    let data = exe.section(".data").unwrap().addr;
    assert_eq!(field(&exe, RelocKind::Imm32, start) as u64, x + 4);
    assert_eq!(
        field(&exe, RelocKind::Branch32, start + 8),
        (f - (start + 8)) as i64
    );
    assert_eq!(
        field(&exe, RelocKind::Imm64, start + 16) as u64,
        buf + 0x1_0000_0000
    );
    // The other bits of the syllables are untouched.
    assert_eq!(u64_at(&exe, start) >> 32, NOP_BUNDLE >> 32);
    assert_eq!(u64_at(&exe, start + 24) >> 32, NOP_BUNDLE >> 32);
    assert_eq!(
        u64_at(&exe, start + 32),
        NOP_BUNDLE,
        "R_VLIW_NONE changes nothing"
    );
    assert_eq!(u64_at(&exe, data), f + 8);
    assert_eq!(field(&exe, RelocKind::Abs32, data + 8) as u64, x);
    assert_eq!(
        field(&exe, RelocKind::Pcrel32Data, data + 12),
        f as i64 - (data + 12) as i64
    );
    assert_eq!(exe.bytes_at(data + 16, 8), Some(&[0xaa; 8][..]));
    // Local symbols are in the output symbol table too.
    assert_eq!(exe.symbol("f").unwrap().binding, Binding::Local);
}

#[test]
fn relocation_overflow_and_misalignment() {
    let mut o = Obj::new();
    let (text, _) = o.func("_start", 2);
    let far = o.symbol(
        "far",
        Binding::Global,
        SymbolKind::NoType,
        SymbolDefinition::Absolute(0x1_0000_0000),
    );
    o.reloc(text, 8, RelocKind::Imm32, far, 0);
    let message = link_err(&[o.file("a.o")], &default());
    assert_eq!(
        message,
        "a.o: cannot apply relocation R_VLIW_IMM32 against symbol `far` at .text._start+0x8: R_VLIW_IMM32 value 0x100000000 does not fit its field"
    );

    let mut o = Obj::new();
    let (text, start) = o.func("_start", 2);
    o.reloc(text, 0, RelocKind::Branch32, start, 4);
    let error = link_error(&[o.file("b.o")], &default());
    assert!(matches!(
        error,
        LinkError::Relocation {
            kind: RelocKind::Branch32,
            offset: 0,
            ..
        }
    ));
    assert_eq!(
        error.to_string(),
        "b.o: cannot apply relocation R_VLIW_BRANCH32 against symbol `_start` at .text._start+0x0: R_VLIW_BRANCH32 offset 0x4 is not a multiple of 8"
    );

    // ABS32 is unsigned: a negative value does not fit.
    let mut o = start_calling(&[]);
    let d = o.section(".data", SectionKind::Data, 8, vec![0; 4]);
    let s = o.o.symbol_by_name("_start").unwrap();
    o.reloc(d, 0, RelocKind::Abs32, s, -0x20000);
    assert!(link_err(&[o.file("c.o")], &default()).contains("R_VLIW_ABS32 value"));
}

#[test]
fn strong_beats_weak_and_first_weak_wins() {
    let mut a = start_calling(&["foo", "bar"]);
    let t = a.text(".text.weak_foo", 1);
    a.def("foo", Binding::Weak, t, 0);
    let t = a.text(".text.weak_bar", 1);
    a.def("bar", Binding::Weak, t, 0);
    let mut b = Obj::new();
    b.func("foo", 2);
    let t = b.text(".text.weak_bar2", 1);
    b.def("bar", Binding::Weak, t, 0);
    let exe = link_ok(&[a.file("a.o"), b.file("b.o")], &default()).executable;
    // a.o: _start (2 syllables), weak foo, weak bar; b.o: foo, weak bar.
    assert_eq!(addr(&exe, "foo"), 0x10020, "the strong foo of b.o");
    assert_eq!(addr(&exe, "bar"), 0x10018, "the first weak bar");
    assert_eq!(field(&exe, RelocKind::Branch32, 0x10000), 0x20);
    assert_eq!(exe.symbols.iter().filter(|s| s.name == "foo").count(), 1);
}

#[test]
fn undefined_weak_is_zero() {
    let mut o = start_calling(&[]);
    let d = o.section(".data", SectionKind::Data, 8, vec![0xff; 8]);
    let w = o.weak_undef("maybe");
    o.reloc(d, 0, RelocKind::Abs64, w, 0);
    let t = o.o.section_by_name(".text._start").unwrap();
    o.reloc(t, 0, RelocKind::Imm32, w, 0);
    let exe = link_ok(&[o.file("a.o")], &default()).executable;
    assert_eq!(u64_at(&exe, exe.section(".data").unwrap().addr), 0);
    assert_eq!(field(&exe, RelocKind::Imm32, 0x10000), 0);
}

#[test]
fn local_symbols_stay_in_their_object() {
    let mut a = start_calling(&["helper_a"]);
    let t = a.text(".text.h", 1);
    a.def("helper", Binding::Local, t, 0);
    a.def("helper_a", Binding::Global, t, 0);
    let mut b = Obj::new();
    let t = b.text(".text.h", 2);
    let h = b.def("helper", Binding::Local, t, 0);
    let d = b.section(".data", SectionKind::Data, 8, vec![0; 8]);
    b.reloc(d, 0, RelocKind::Abs64, h, 0);
    let exe = link_ok(&[a.file("a.o"), b.file("b.o")], &default()).executable;
    let helpers: Vec<u64> = exe
        .symbols
        .iter()
        .filter(|s| s.name == "helper")
        .map(|s| s.addr)
        .collect();
    assert_eq!(helpers, [0x10008, 0x10010]);
    assert_eq!(
        u64_at(&exe, exe.section(".data").unwrap().addr),
        0x10010,
        "b.o's own helper"
    );
}

#[test]
fn duplicate_symbols_name_both_objects() {
    let mut a = start_calling(&["foo"]);
    a.func("foo", 1);
    let mut b = Obj::new();
    b.func("foo", 2);
    let message = link_err(&[a.file("a.o"), b.file("b.o")], &default());
    assert_eq!(
        message,
        "duplicate symbol: foo\n>>> defined at a.o (section .text.foo+0x0)\n>>> defined at b.o (section .text.foo+0x0)"
    );
}

#[test]
fn undefined_symbols_list_every_reference() {
    let mut a = Obj::new();
    let (t, _) = a.func("_start", 4);
    a.call(t, 0x18, "missing");
    let bar = a.text(".text.bar", 4);
    a.call(bar, 0x8, "missing");
    a.call(bar, 0x10, "other");
    let mut b = Obj::new();
    let t = b.text(".text", 1);
    b.call(t, 0, "missing");
    let message = link_err(&[a.file("a.o"), b.file("lib/b.o")], &default());
    assert_eq!(
        message,
        "undefined symbol: missing\n\
         >>> referenced by a.o (section .text._start+0x18)\n\
         >>> referenced by a.o (section .text.bar+0x8)\n\
         >>> referenced by lib/b.o (section .text+0x0)\n\
         undefined symbol: other\n\
         >>> referenced by a.o (section .text.bar+0x10)"
    );
    // With --gc-sections, references from dropped sections do not count.
    let message = link_err(&[a.file("a.o"), b.file("lib/b.o")], &gc());
    assert_eq!(
        message,
        "undefined symbol: missing\n>>> referenced by a.o (section .text._start+0x18)"
    );
}

#[test]
fn entry_symbol() {
    let mut o = Obj::new();
    o.func("main", 1);
    o.func("other", 1);
    assert_eq!(
        link_err(&[o.file("a.o")], &default()),
        "entry symbol `_start` is not defined"
    );
    let config = LinkConfig {
        entry: "other".into(),
        ..default()
    };
    assert_eq!(link_ok(&[o.file("a.o")], &config).executable.entry, 0x10008);
    // A weak undefined entry is still undefined.
    o.weak_undef("_start");
    assert!(matches!(
        link_error(&[o.file("a.o")], &default()),
        LinkError::MissingEntry(_)
    ));
}

#[test]
fn archive_members_are_extracted_on_demand() {
    let mut used = Obj::new();
    let (t, _) = used.func("used", 1);
    used.call(t, 0, "deep");
    let mut deep = Obj::new();
    deep.func("deep", 1);
    let mut unused = Obj::new();
    unused.func("unused", 1);
    unused.func("_start", 1); // would be a duplicate if it were extracted
    // `deep` comes before `used` in the archive, and the archive before the object
    // that needs it: extraction iterates to a fixpoint regardless of order.
    let lib = archive(
        "libx.a",
        &[("deep.o", &deep), ("unused.o", &unused), ("used.o", &used)],
    );
    let main = start_calling(&["used"]).file("main.o");
    for files in [
        vec![lib.clone(), main.clone()],
        vec![main.clone(), lib.clone()],
    ] {
        let out = link_ok(
            &files,
            &LinkConfig {
                want_map: true,
                ..default()
            },
        );
        let exe = out.executable;
        assert!(exe.symbol("used").is_some());
        assert!(exe.symbol("deep").is_some());
        assert!(
            exe.symbol("unused").is_none(),
            "unused.o must not be extracted"
        );
        let map = out.map.unwrap();
        assert!(map.contains("libx.a(used.o):(.text.used)"), "{map}");
        assert!(!map.contains("unused.o"), "{map}");
    }
    // Placement follows the command line, then member order, not extraction order.
    let exe = link_ok(&[lib.clone(), main.clone()], &default()).executable;
    assert!(addr(&exe, "deep") < addr(&exe, "used"));
    assert!(addr(&exe, "used") < addr(&exe, "_start"));
}

#[test]
fn whole_archive_extracts_every_member() {
    let mut a = Obj::new();
    a.func("a", 1);
    let mut b = Obj::new();
    b.func("b", 1);
    let mut lib = archive("liby.a", &[("a.o", &a), ("b.o", &b)]);
    lib.whole_archive = true;
    let exe = link_ok(&[start_calling(&[]).file("main.o"), lib], &default()).executable;
    assert!(exe.symbol("a").is_some() && exe.symbol("b").is_some());
}

#[test]
fn weak_undefined_does_not_extract() {
    let mut m = Obj::new();
    m.func("optional", 1);
    let lib = archive("libz.a", &[("m.o", &m)]);
    let mut main = start_calling(&[]);
    let t = main.o.section_by_name(".text._start").unwrap();
    let w = main.weak_undef("optional");
    main.reloc(t, 0, RelocKind::Imm32, w, 0);
    let exe = link_ok(&[main.file("main.o"), lib], &default()).executable;
    assert!(exe.symbol("optional").is_none());
    assert_eq!(field(&exe, RelocKind::Imm32, 0x10000), 0);
}

#[test]
fn non_elf_archive_members_are_skipped() {
    let mut f = Obj::new();
    f.func("f", 1);
    let members = vec![
        ArchiveMember {
            name: "lib.rmeta".into(),
            data: b"rust metadata".to_vec(),
        },
        ArchiveMember {
            name: "f.o".into(),
            data: write_object(&f.o),
        },
    ];
    let lib = vliw_link::InputFile {
        name: "libf.rlib".into(),
        data: write_archive(&members),
        whole_archive: true,
    };
    let exe = link_ok(&[start_calling(&["f"]).file("main.o"), lib], &default()).executable;
    assert!(exe.symbol("f").is_some());
}

#[test]
fn gc_sections_drops_unreferenced_sections() {
    let mut o = start_calling(&["used"]);
    o.func("used", 2);
    o.func("unused", 3);
    let init = o.section(".init_array", SectionKind::InitArray, 8, vec![0; 8]);
    let (_, ctor) = o.func("ctor", 1);
    o.reloc(init, 0, RelocKind::Abs64, ctor, 0);
    let kept = o.text(".text.kept", 1);
    o.o.sections[kept.0].retain = true;
    let ro = o.section(".rodata.unused", SectionKind::ReadOnlyData, 8, vec![1; 8]);
    o.def("unused_data", Binding::Global, ro, 0);

    let without = link_ok(&[o.file("a.o")], &default()).executable;
    assert!(without.symbol("unused").is_some());
    let out = link_ok(
        &[o.file("a.o")],
        &LinkConfig {
            gc_sections: true,
            want_map: true,
            ..default()
        },
    );
    let exe = out.executable;
    assert!(exe.symbol("unused").is_none());
    assert!(exe.symbol("unused_data").is_none());
    assert!(exe.symbol("used").is_some());
    assert!(exe.symbol("ctor").is_some(), "reachable from .init_array");
    assert!(exe.section(".rodata").is_none());
    // _start (1) + used (2) + ctor (1) + kept (1) syllables.
    assert_eq!(exe.section(".text").unwrap().size, 5 * 8);
    let map = out.map.unwrap();
    assert!(
        map.contains("Discarded input sections (--gc-sections):"),
        "{map}"
    );
    assert!(map.contains("a.o:(.text.unused)"), "{map}");
    assert!(map.contains("a.o:(.rodata.unused)"), "{map}");
}

#[test]
fn gc_roots_include_undefined_option() {
    let mut o = start_calling(&[]);
    o.func("keep_me", 1);
    let config = LinkConfig {
        gc_sections: true,
        undefined: vec!["keep_me".into()],
        ..default()
    };
    assert!(
        link_ok(&[o.file("a.o")], &config)
            .executable
            .symbol("keep_me")
            .is_some()
    );
}

#[test]
fn debug_sections_are_concatenated_and_relocated() {
    let mut a = start_calling(&[]);
    let abbrev_a = a.section(".debug_abbrev", SectionKind::Other, 1, vec![1, 2, 3]);
    let info_a = a.section(".debug_info", SectionKind::Other, 1, vec![0; 14]);
    let abbrev_sym = a.section_symbol(abbrev_a);
    let start = a.o.symbol_by_name("_start").unwrap();
    a.reloc(info_a, 0, RelocKind::Abs32, abbrev_sym, 0);
    a.reloc(info_a, 4, RelocKind::Abs64, start, 0);
    let mut b = Obj::new();
    let (_, dead) = b.func("dead", 1);
    let abbrev_b = b.section(".debug_abbrev", SectionKind::Other, 1, vec![4, 5]);
    let info_b = b.section(".debug_info", SectionKind::Other, 4, vec![0; 12]);
    let abbrev_sym = b.section_symbol(abbrev_b);
    b.reloc(info_b, 0, RelocKind::Abs32, abbrev_sym, 1);
    b.reloc(info_b, 4, RelocKind::Abs64, dead, 0);
    b.section(".comment", SectionKind::Other, 1, b"vliw-rustc\0".to_vec());

    let files = [a.file("a.o"), b.file("b.o")];
    let exe = link_ok(&files, &gc()).executable;
    assert_eq!(
        exe.non_alloc_section(".debug_abbrev"),
        Some(&[1, 2, 3, 4, 5][..])
    );
    let info = exe.non_alloc_section(".debug_info").unwrap();
    assert_eq!(info.len(), 14 + 2 + 12, "b's part aligned to 4");
    let word = |at: usize, n: usize| {
        info[at..at + n]
            .iter()
            .rev()
            .fold(0u64, |v, &b| v << 8 | b as u64)
    };
    assert_eq!(word(0, 4), 0, "a's abbreviations start at offset 0");
    assert_eq!(word(4, 8), 0x10000, "address of _start");
    assert_eq!(
        word(16, 4),
        3 + 1,
        "b's abbreviations start at offset 3, plus the addend"
    );
    assert_eq!(word(20, 8), 0, "dead was collected: address 0");
    assert!(exe.non_alloc_section(".comment").is_some());
    for section in &exe.sections {
        assert!(section.kind.is_alloc());
    }

    let stripped = link_ok(
        &files,
        &LinkConfig {
            strip: Strip::Debug,
            ..default()
        },
    )
    .executable;
    assert!(stripped.non_alloc_section(".debug_info").is_none());
    assert!(stripped.non_alloc_section(".comment").is_some());
    assert!(!stripped.symbols.is_empty());
    let stripped = link_ok(
        &files,
        &LinkConfig {
            strip: Strip::All,
            ..default()
        },
    )
    .executable;
    assert!(stripped.symbols.is_empty());
    assert!(stripped.non_alloc_section(".debug_abbrev").is_none());
}

#[test]
fn map_file_lists_sections_and_symbols() {
    let mut o = start_calling(&["f"]);
    o.func("f", 2);
    o.section(".rodata", SectionKind::ReadOnlyData, 4, vec![0; 6]);
    let out = link_ok(
        &[o.file("a.o")],
        &LinkConfig {
            want_map: true,
            ..default()
        },
    );
    let map = out.map.unwrap();
    let expected_lines = [
        "Entry point: 0x10000",
        "             VMA     Size Align Out     In      Symbol",
        "           10000       18     8 .text",
        "           10000        8     8         a.o:(.text._start)",
        "           10000        0     0                 _start",
        "           10008       10     8         a.o:(.text.f)",
        "           10008        0     0                 f",
        "           11000        6     4 .rodata",
        "           11000        6     4         a.o:(.rodata)",
        "Linker-defined symbols:",
        "           10000 __executable_start",
        "           12000 _end",
    ];
    for line in expected_lines {
        assert!(
            map.lines().any(|l| l == line),
            "missing line `{line}` in\n{map}"
        );
    }
    assert!(!map.contains("Discarded"));
}

#[test]
fn empty_program_sections_are_omitted() {
    let o = start_calling(&[]);
    let exe = link_ok(&[o.file("a.o")], &default()).executable;
    assert_eq!(exe.segments.len(), 1);
    assert_eq!(exe.sections.len(), 1);
    assert_eq!(addr(&exe, "_end"), 0x11000);
}

#[test]
fn bad_inputs_are_reported() {
    let garbage = vliw_link::InputFile {
        name: "notes.txt".into(),
        data: b"hello".to_vec(),
        whole_archive: false,
    };
    assert_eq!(
        link_err(&[garbage], &default()),
        "notes.txt: unknown file type (neither an ELF object nor an archive)"
    );
    let mut bytes = write_object(&start_calling(&[]).o);
    bytes[18] = 0x3e;
    bytes[19] = 0;
    let foreign = vliw_link::InputFile {
        name: "x86.o".into(),
        data: bytes,
        whole_archive: false,
    };
    assert!(
        link_err(&[foreign], &default()).starts_with("x86.o: foreign machine: e_machine is 0x3e")
    );
    let mut lib = archive("libbad.a", &[("ok.o", &start_calling(&[]))]);
    let len = lib.data.len();
    lib.data.truncate(len - 30);
    lib.whole_archive = true;
    assert!(link_err(&[lib], &default()).starts_with("libbad.a"));
}

#[test]
fn entry_symbol_pulls_its_archive_member() {
    let crt = start_calling(&["main"]);
    let lib = archive("libcrt.a", &[("crt0.o", &crt)]);
    let mut main = Obj::new();
    main.func("main", 1);
    let exe = link_ok(&[main.file("main.o"), lib], &default()).executable;
    assert_eq!(exe.entry, addr(&exe, "_start"));
}

/// `write_archive` output without its symbol table member (as `ar rcS` makes).
fn without_symbol_table(mut file: vliw_link::InputFile) -> vliw_link::InputFile {
    let header = &file.data[8..68];
    assert_eq!(&header[..2], b"/ ");
    let size: usize = std::str::from_utf8(&header[48..58])
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let end = 68 + size + size % 2;
    file.data.drain(8..end);
    file
}

#[test]
fn archive_without_symbol_table_is_indexed_by_reading_members() {
    let mut used = Obj::new();
    used.func("used", 1);
    let mut other = Obj::new();
    other.func("other", 1);
    let lib = without_symbol_table(archive(
        "libnoindex.a",
        &[("other-member-with-long-name.o", &other), ("used.o", &used)],
    ));
    assert_eq!(read_archive(&lib.data, "x").unwrap().symbols, None);
    let exe = link_ok(&[lib, start_calling(&["used"]).file("main.o")], &default()).executable;
    assert!(exe.symbol("used").is_some());
    assert!(exe.symbol("other").is_none());
}
