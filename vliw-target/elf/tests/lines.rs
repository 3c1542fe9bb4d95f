//! The line-table reader (`LineTable`) on line programs written with gimli: DWARF 4
//! and 5, several sequences and files, executables and relocatable objects (the
//! sequences relocated against their sections), and malformed input, which gives no
//! line info but never a panic.

mod common;

use std::collections::HashMap;

use gimli::write::{
    Address, DwarfUnit, EndianVec, FileId, LineProgram, LineString, RelocateWriter, Relocation,
    RelocationTarget, Sections,
};
use gimli::{Encoding, Format, LineEncoding, LittleEndian};
use proptest::prelude::*;
use vliw_elf::*;
use vliw_isa::RelocKind;

/// One row: offset in its sequence, file path, line, column.
type Row = (u64, &'static str, u64, u64);

/// A sequence starting at `start` (an address, or a symbol index for objects),
/// `size` bytes long.
struct Seq {
    start: Address,
    size: u64,
    rows: Vec<Row>,
}

#[derive(Clone)]
struct Writer {
    data: EndianVec<LittleEndian>,
    relocs: Vec<Relocation>,
}

impl RelocateWriter for Writer {
    type Writer = EndianVec<LittleEndian>;
    fn writer(&self) -> &Self::Writer {
        &self.data
    }
    fn writer_mut(&mut self) -> &mut Self::Writer {
        &mut self.data
    }
    fn relocate(&mut self, relocation: Relocation) {
        self.relocs.push(relocation);
    }
}

/// The sections gimli writes for these sequences: name → (bytes, relocations).
fn write_dwarf(version: u16, seqs: &[Seq]) -> HashMap<&'static str, (Vec<u8>, Vec<Relocation>)> {
    let encoding = Encoding {
        format: Format::Dwarf32,
        version,
        address_size: 8,
    };
    let mut dwarf = DwarfUnit::new(encoding);
    let mut program = LineProgram::new(
        encoding,
        LineEncoding::default(),
        LineString::new(&b"/work"[..], encoding, &mut dwarf.line_strings),
        None,
        LineString::new(&b"main.rs"[..], encoding, &mut dwarf.line_strings),
        None,
    );
    let mut files: HashMap<&str, FileId> = HashMap::new();
    for seq in seqs {
        program.begin_sequence(Some(seq.start));
        for &(offset, path, line, column) in &seq.rows {
            let file = *files.entry(path).or_insert_with(|| {
                let (dir, name) = match path.rsplit_once('/') {
                    Some((d, n)) => {
                        let d = if d.is_empty() { "/" } else { d };
                        (
                            program.add_directory(LineString::new(
                                d.as_bytes(),
                                encoding,
                                &mut dwarf.line_strings,
                            )),
                            n,
                        )
                    }
                    None => (program.default_directory(), path),
                };
                program.add_file(
                    LineString::new(name.as_bytes(), encoding, &mut dwarf.line_strings),
                    dir,
                    None,
                )
            });
            let row = program.row();
            row.address_offset = offset;
            row.file = file;
            row.line = line;
            row.column = column;
            program.generate_row();
        }
        program.end_sequence(seq.size);
    }
    dwarf.unit.line_program = program;
    let mut sections = Sections::new(Writer {
        data: EndianVec::new(LittleEndian),
        relocs: Vec::new(),
    });
    dwarf.write(&mut sections).unwrap();
    let mut out = HashMap::new();
    sections
        .for_each(|id, w| -> Result<(), ()> {
            // References to other sections (`DW_FORM_line_strp`) are relocations
            // against them; with every section at 0 their value is the addend.
            let mut data = w.data.slice().to_vec();
            for r in &w.relocs {
                if let RelocationTarget::Section(_) = r.target {
                    let bytes = (r.addend as u64).to_le_bytes();
                    data[r.offset..r.offset + r.size as usize]
                        .copy_from_slice(&bytes[..r.size as usize]);
                }
            }
            out.insert(id.name(), (data, w.relocs.clone()));
            Ok(())
        })
        .unwrap();
    out
}

fn table(version: u16, seqs: &[Seq]) -> LineTable {
    let s = write_dwarf(version, seqs);
    let get = |name: &str| s.get(name).map_or(&[][..], |(d, _)| d.as_slice());
    LineTable::from_sections(
        get(".debug_line"),
        get(".debug_str"),
        get(".debug_line_str"),
    )
}

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
    let section_symbol = |obj: &mut Object, s: SectionId| {
        obj.add_symbol(Symbol {
            name: String::new(),
            binding: Binding::Local,
            kind: SymbolKind::Section,
            definition: SymbolDefinition::Defined {
                section: s,
                value: 0,
            },
            size: 0,
        })
    };
    let fs = section_symbol(&mut obj, f);
    let gs = section_symbol(&mut obj, g);
    let seqs = [
        Seq {
            start: Address::Symbol {
                symbol: fs.0,
                addend: 0,
            },
            size: 32,
            rows: vec![(0, "src/f.rs", 3, 1), (16, "src/f.rs", 4, 2)],
        },
        Seq {
            start: Address::Symbol {
                symbol: gs.0,
                addend: 0,
            },
            size: 16,
            rows: vec![(0, "src/g.rs", 30, 0), (8, "src/f.rs", 5, 5)],
        },
    ];
    let sections = write_dwarf(version, &seqs);
    let mut ids = HashMap::new();
    for (name, (data, _)) in &sections {
        if !data.is_empty() {
            let id = obj.add_section(Section::new(name, SectionKind::Other, 1, data.clone()));
            let sym = section_symbol(&mut obj, id);
            ids.insert(*name, (id, sym));
        }
    }
    for (name, (data, relocs)) in &sections {
        if data.is_empty() {
            continue;
        }
        let relocs = relocs
            .iter()
            .map(|r| Reloc {
                offset: r.offset as u64,
                kind: if r.size == 8 {
                    RelocKind::Abs64
                } else {
                    RelocKind::Abs32
                },
                symbol: match r.target {
                    RelocationTarget::Symbol(i) => SymbolId(i),
                    RelocationTarget::Section(s) => ids[s.name()].1,
                },
                addend: r.addend,
            })
            .collect();
        obj.sections[ids[name].0.0].relocs = relocs;
    }
    obj.check().unwrap();
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
