//! Test support shared by the crates whose tests need DWARF line tables (vliw-elf,
//! vliw-asm, vliw-sim, vliw-tools; included with `#[path]`, each with `gimli` as a
//! dev-dependency): line programs written with gimli, for constant addresses or
//! relocated against the sections of an object as vliw-machine writes them.

#![allow(dead_code)]

use std::collections::HashMap;

pub use gimli::write::Address;
use gimli::write::{
    DwarfUnit, FileId, LineProgram, LineString, Relocation, RelocationTarget, Sections,
};
use gimli::{Encoding, Format, LineEncoding};
use vliw_elf::dwarf_write::RelocWriter as Writer;
use vliw_elf::{
    Binding, LineTable, Object, Reloc, Section, SectionId, SectionKind, Symbol, SymbolDefinition,
    SymbolId, SymbolKind,
};
use vliw_isa::RelocKind;

/// One row: offset in its sequence, file path, line, column.
pub type Row = (u64, &'static str, u64, u64);

/// A sequence starting at `start` (an address, or a symbol index for objects),
/// `size` bytes long.
pub struct Seq {
    pub start: Address,
    pub size: u64,
    pub rows: Vec<Row>,
}

/// The sections gimli writes for these sequences (one unit, DWARF `version`, file
/// paths split into an include directory and a name): name → (bytes, relocations).
/// References to other sections are applied as if every section were at 0, and kept
/// as relocations too.
pub fn write_dwarf(
    version: u16,
    seqs: &[Seq],
) -> HashMap<&'static str, (Vec<u8>, Vec<Relocation>)> {
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
    let mut sections = Sections::new(Writer::new());
    dwarf.write(&mut sections).unwrap();
    let mut out = HashMap::new();
    sections
        .for_each(|id, w| -> Result<(), ()> {
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

/// The line table of sequences at constant addresses.
pub fn table(version: u16, seqs: &[Seq]) -> LineTable {
    let s = write_dwarf(version, seqs);
    let get = |name: &str| s.get(name).map_or(&[][..], |(d, _)| d.as_slice());
    LineTable::from_sections(
        get(".debug_line"),
        get(".debug_str"),
        get(".debug_line_str"),
    )
}

/// A local section symbol for `section`.
pub fn section_symbol(obj: &mut Object, section: SectionId) -> SymbolId {
    obj.add_symbol(Symbol {
        name: String::new(),
        binding: Binding::Local,
        kind: SymbolKind::Section,
        definition: SymbolDefinition::Defined { section, value: 0 },
        size: 0,
    })
}

/// Adds the `.debug_*` sections of a line program to `obj`, one sequence per
/// `(section, size, rows)` starting at that section (relocated against its symbol),
/// as vliw-machine does.
pub fn add_line_tables(obj: &mut Object, version: u16, functions: &[(SectionId, u64, Vec<Row>)]) {
    let seqs: Vec<Seq> = functions
        .iter()
        .map(|(s, size, rows)| Seq {
            start: Address::Symbol {
                symbol: section_symbol(obj, *s).0,
                addend: 0,
            },
            size: *size,
            rows: rows.clone(),
        })
        .collect();
    let sections = write_dwarf(version, &seqs);
    let mut ids = HashMap::new();
    let mut names: Vec<&&str> = sections.keys().collect();
    names.sort();
    for name in names {
        let data = &sections[*name].0;
        if !data.is_empty() {
            let id = obj.add_section(Section::new(name, SectionKind::Other, 1, data.clone()));
            let sym = section_symbol(obj, id);
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
}
