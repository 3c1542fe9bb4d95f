//! The line-table reader (`LineTable`) on line programs written with gimli: DWARF 4
//! and 5, several sequences and files, executables and relocatable objects (the
//! sequences relocated against their sections), and malformed input, which gives no
//! line info but never a panic.

mod common;

#[path = "support/dwarf.rs"]
mod dwarf;

use dwarf::{Address, Seq, add_line_tables, table, write_dwarf};
use proptest::prelude::*;
use vliw_elf::*;
use vliw_isa::RelocKind;

fn two_functions() -> Vec<Seq> {
    vec![
        Seq {
            start: Address::Constant(0x10040),
            size: 0x30,
            rows: vec![
                (0, "src/main.rs", 10, 5),
                (8, "src/main.rs", 11, 0),
                (0x10, "/lib/core/ops.rs", 200, 9),
                (0x18, "src/main.rs", 0, 0), // no source line
                (0x20, "src/main.rs", 12, 1),
                (0x20, "src/main.rs", 13, 2), // same address: the last row wins
            ],
        },
        Seq {
            start: Address::Constant(0x10000),
            size: 0x10,
            rows: vec![(0, "start.rs", 1, 1)],
        },
    ]
}

fn show(t: &LineTable, addr: u64) -> Option<String> {
    t.lookup(addr).map(|l| l.to_string())
}

#[test]
fn lookups_in_dwarf_4_and_5() {
    for version in [4, 5] {
        let t = table(version, &two_functions());
        assert!(!t.is_empty());
        let cases: &[(u64, Option<&str>)] = &[
            (0xfff8, None),
            (0x10000, Some("start.rs:1:1")),
            (0x10008, Some("start.rs:1:1")),
            (0x10010, None), // the end of the first sequence, a gap
            (0x10040, Some("src/main.rs:10:5")),
            (0x10044, Some("src/main.rs:10:5")),
            (0x10048, Some("src/main.rs:11")),
            (0x10050, Some("/lib/core/ops.rs:200:9")),
            (0x10058, None),
            (0x10060, Some("src/main.rs:13:2")),
            (0x10068, Some("src/main.rs:13:2")),
            (0x10070, None),
            (u64::MAX, None),
        ];
        for &(addr, want) in cases {
            assert_eq!(
                show(&t, addr).as_deref(),
                want,
                "DWARF {version}, {addr:#x}"
            );
        }
        let l = t.lookup(0x10040).unwrap();
        assert_eq!((l.file, l.line, l.column), ("src/main.rs", 10, 5));
        assert_eq!(l.to_location().to_string(), "src/main.rs:10:5");
        let rows: Vec<(u64, u64, String)> =
            t.rows().map(|(s, e, l)| (s, e, l.to_string())).collect();
        assert_eq!(
            rows,
            [
                (0x10000, 0x10010, "start.rs:1:1".to_string()),
                (0x10040, 0x10048, "src/main.rs:10:5".to_string()),
                (0x10048, 0x10050, "src/main.rs:11".to_string()),
                (0x10050, 0x10058, "/lib/core/ops.rs:200:9".to_string()),
                (0x10060, 0x10070, "src/main.rs:13:2".to_string()),
            ],
            "DWARF {version}"
        );
    }
}

#[test]
fn control_characters_in_file_names_become_question_marks() {
    let t = table(
        4,
        &[Seq {
            start: Address::Constant(0x100),
            size: 8,
            rows: vec![(0, "dir\n/a\tb.rs", 2, 0)],
        }],
    );
    assert_eq!(show(&t, 0x100).as_deref(), Some("dir?/a?b.rs:2"));
}

#[test]
fn empty_and_missing_tables() {
    assert!(LineTable::from_sections(&[], &[], &[]).is_empty());
    assert_eq!(LineTable::from_sections(&[], &[], &[]).lookup(0), None);
    assert!(LineTable::from_executable(&Executable::default()).is_empty());
    assert!(LineTable::from_object(&Object::new()).is_empty());
    // a sequence with only line-0 rows
    let t = table(
        4,
        &[Seq {
            start: Address::Constant(0x100),
            size: 8,
            rows: vec![(0, "a.rs", 0, 0)],
        }],
    );
    assert!(t.is_empty());
    assert_eq!(t.lookup(0x100), None);
}

#[test]
fn concatenated_programs_and_padding() {
    // As a linker concatenates the contributions of several objects, with zero
    // padding between them.
    let a = write_dwarf(4, &two_functions());
    let b = write_dwarf(
        5,
        &[Seq {
            start: Address::Constant(0x20000),
            size: 8,
            rows: vec![(0, "lib/b.rs", 7, 3)],
        }],
    );
    let mut line = a[".debug_line"].0.clone();
    line.extend([0; 8]);
    line.extend(&b[".debug_line"].0);
    // b's DWARF 5 file names are in .debug_line_str at offsets of its own; put them
    // first (a has none).
    let t = LineTable::from_sections(&line, &[], &b[".debug_line_str"].0);
    assert_eq!(show(&t, 0x10040).as_deref(), Some("src/main.rs:10:5"));
    assert_eq!(show(&t, 0x20004).as_deref(), Some("lib/b.rs:7:3"));
}

#[test]
fn executables_keep_their_line_tables() {
    let s = write_dwarf(4, &two_functions());
    let mut exe = Executable::default();
    for name in [".debug_line", ".debug_info", ".debug_abbrev"] {
        exe.non_alloc_sections.push(NonAllocSection {
            name: name.to_string(),
            kind: SectionKind::Other,
            data: s[name].0.clone(),
        });
    }
    let t = LineTable::from_executable(&exe);
    assert_eq!(show(&t, 0x10050).as_deref(), Some("/lib/core/ops.rs:200:9"));
}

/// An object with two text sections (and a data section between them) whose line
/// program is relocated against the sections' symbols, as vliw-machine writes it.
fn object_with_lines(version: u16) -> Object {
    let mut obj = Object::new();
    let text =
        |name: &str, words: usize| Section::new(name, SectionKind::Text, 8, common::nops(words));
    let f = obj.add_section(text(".text.f", 4));
    let _data = obj.add_section(Section::new(".data", SectionKind::Data, 8, vec![1; 16]));
    let g = obj.add_section(text(".text.g", 2));
    add_line_tables(
        &mut obj,
        version,
        &[
            (f, 32, vec![(0, "src/f.rs", 3, 1), (16, "src/f.rs", 4, 2)]),
            (g, 16, vec![(0, "src/g.rs", 30, 0), (8, "src/f.rs", 5, 5)]),
        ],
    );
    obj
}

#[test]
fn objects_map_sequences_to_their_sections() {
    for version in [4, 5] {
        let obj = object_with_lines(version);
        // through ELF and back, as the disassembler reads it
        let obj = read_object(&write_object(&obj), "lines.o").unwrap();
        let f = obj.section_by_name(".text.f").unwrap();
        let g = obj.section_by_name(".text.g").unwrap();
        let data = obj.section_by_name(".data").unwrap();
        let t = LineTable::from_object(&obj);
        let at = |s: SectionId, o: u64| t.lookup_in_section(s, o).map(|l| l.to_string());
        assert_eq!(at(f, 0).as_deref(), Some("src/f.rs:3:1"), "DWARF {version}");
        assert_eq!(at(f, 8).as_deref(), Some("src/f.rs:3:1"));
        assert_eq!(at(f, 16).as_deref(), Some("src/f.rs:4:2"));
        assert_eq!(at(f, 32), None);
        assert_eq!(at(g, 0).as_deref(), Some("src/g.rs:30"));
        assert_eq!(at(g, 8).as_deref(), Some("src/f.rs:5:5"));
        assert_eq!(at(g, 16), None);
        assert_eq!(at(data, 0), None);
        assert_eq!(t.lookup_in_section(f, u64::MAX), None);
        // section-relative addresses
        assert_eq!(t.lookup(object_address(g, 8)).map(|l| l.line), Some(5));
        // unrelocated, the sequences would all start at 0
        let mut bare = obj.clone();
        for s in &mut bare.sections {
            s.relocs.clear();
        }
        let t = LineTable::from_object(&bare);
        assert_eq!(t.lookup_in_section(f, 0), None);
    }
}

#[test]
fn bad_file_indices_give_no_line() {
    // DW_LNS_set_file 9 in a program with one file: hand-made from a valid program
    // by patching the file register's opcode.
    let s = write_dwarf(
        4,
        &[Seq {
            start: Address::Constant(0x1000),
            size: 8,
            rows: vec![(0, "a.rs", 2, 1)],
        }],
    );
    let line = &s[".debug_line"].0;
    let t = LineTable::from_sections(line, &[], &[]);
    assert_eq!(show(&t, 0x1000).as_deref(), Some("a.rs:2:1"));
    // gimli writes `DW_LNS_set_file 1` only when the file changes from the initial 1:
    // a program for file 2 has one; change its operand.
    let s = write_dwarf(
        4,
        &[Seq {
            start: Address::Constant(0x1000),
            size: 16,
            rows: vec![(0, "a.rs", 2, 1), (8, "b.rs", 3, 1)],
        }],
    );
    let mut line = s[".debug_line"].0.clone();
    let t = LineTable::from_sections(&line, &[], &[]);
    assert_eq!(show(&t, 0x1008).as_deref(), Some("b.rs:3:1"));
    let pos = line
        .windows(2)
        .rposition(|w| w == [gimli::DW_LNS_set_file.0, 2])
        .expect("set_file 2");
    line[pos + 1] = 9;
    let t = LineTable::from_sections(&line, &[], &[]);
    assert_eq!(show(&t, 0x1000).as_deref(), Some("a.rs:2:1"));
    assert_eq!(show(&t, 0x1008), None);
}

/// Every lookup of a table read from `bytes` as `.debug_line`, `.debug_str` and
/// `.debug_line_str` returns without panicking.
fn read_all(line: &[u8], strings: &[u8]) {
    let t = LineTable::from_sections(line, strings, strings);
    for addr in [0, 1, 0x1000, 0x10040, u64::MAX] {
        let _ = t.lookup(addr).map(|l| l.to_string());
    }
    for (start, end, l) in t.rows() {
        assert!(start < end);
        assert!(l.line > 0);
        assert_eq!(t.lookup(start).map(|x| x.line), Some(l.line));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes_never_panic(line in proptest::collection::vec(any::<u8>(), 0..300), strings in proptest::collection::vec(any::<u8>(), 0..40)) {
        read_all(&line, &strings);
    }

    #[test]
    fn damaged_tables_never_panic(version in 4u16..=5, flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6), cut in any::<prop::sample::Index>()) {
        let s = write_dwarf(version, &two_functions());
        let mut line = s[".debug_line"].0.clone();
        for (at, byte) in flips {
            let i = at.index(line.len());
            line[i] = byte;
        }
        read_all(&line, &s[".debug_line_str"].0);
        let keep = cut.index(line.len() + 1);
        read_all(&line[..keep], &s[".debug_line_str"].0);
    }

    #[test]
    fn random_line_programs_never_panic(program in proptest::collection::vec(any::<u8>(), 0..200)) {
        // A valid DWARF 4 header (its files and directories) followed by random
        // opcodes: the row state machine sees everything.
        let s = write_dwarf(4, &two_functions());
        let line = &s[".debug_line"].0;
        let header_length = u32::from_le_bytes(line[6..10].try_into().unwrap()) as usize;
        let mut bytes = line[..10 + header_length].to_vec();
        bytes.extend(&program);
        let unit_length = (bytes.len() - 4) as u32;
        bytes[..4].copy_from_slice(&unit_length.to_le_bytes());
        read_all(&bytes, &[]);
    }

    #[test]
    fn damaged_objects_never_panic(flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6), reloc_offset in any::<u64>()) {
        let mut obj = object_with_lines(5);
        let line = obj.section_by_name(".debug_line").unwrap();
        let s = &mut obj.sections[line.0];
        for (at, byte) in flips {
            let i = at.index(s.data.len());
            s.data[i] = byte;
        }
        // a relocation outside its section, one against a symbol that does not exist
        s.relocs.push(Reloc { offset: reloc_offset, kind: RelocKind::Abs64, symbol: SymbolId(0), addend: 0 });
        s.relocs.push(Reloc { offset: 0, kind: RelocKind::Abs32, symbol: SymbolId(9999), addend: 0 });
        let t = LineTable::from_object(&obj);
        for s in 0..obj.sections.len() {
            for o in [0, 8, 16, 1 << 45] {
                let _ = t.lookup_in_section(SectionId(s), o);
            }
        }
    }
}
