//! DWARF line tables (`debug-info=on`): one compile unit per object with a
//! `.debug_line` program mapping each bundle that has a source location to its file,
//! line and column, written with `gimli`.
//!
//! Each function is a sequence starting at its own section (`DW_LNE_set_address` with
//! an `R_VLIW_ABS64` relocation against the function's section symbol), so the table
//! stays right wherever the linker puts the section, and a section dropped by
//! `--gc-sections` takes nothing else with it. The unit's `DW_AT_ranges` lists the
//! functions; `DW_AT_stmt_list` points at the line program (`R_VLIW_ABS32` against
//! `.debug_line`: for non-allocated sections the linker resolves a section symbol to
//! the input section's offset in the output section, which is what DWARF needs).

use rustc_hash::FxHashMap as HashMap;
use std::path::Path;

use gimli::write::{
    Address, AttributeValue, DwarfUnit, FileId, LineProgram, LineString, Range, RangeList,
    Relocation, RelocationTarget, Sections,
};
use gimli::{Encoding, Format, LineEncoding, SectionId};
use vliw_elf::dwarf_write::RelocWriter;
use vliw_elf::{Reloc, Section, SectionKind};
use vliw_isa::RelocKind;

use crate::emit::FunctionCode;
use crate::error::CompileError;
use crate::object::ObjectBuilder;

/// A function as the line table sees it.
pub struct DebugFunction<'a> {
    pub text: vliw_elf::SectionId,
    pub code: &'a FunctionCode,
    /// The function's file names (`SourceLoc::file` indexes them).
    pub files: &'a [String],
}

/// A file name DWARF can hold: no NUL bytes, not empty.
fn clean(name: &str) -> String {
    if name.is_empty() {
        "<unknown>".to_string()
    } else {
        name.replace('\0', "?")
    }
}

fn err(e: impl core::fmt::Display) -> CompileError {
    CompileError::new("", format!("cannot write the line table: {e}"))
}

/// Adds `.debug_abbrev`, `.debug_info`, `.debug_line` (and `.debug_ranges`) for the
/// functions to the object. Functions without source locations are left out; nothing
/// is added if no function has any.
pub fn add_line_tables(
    b: &mut ObjectBuilder,
    functions: &[DebugFunction<'_>],
) -> Result<(), CompileError> {
    let with_lines: Vec<&DebugFunction<'_>> = functions
        .iter()
        .filter(|f| !f.code.lines.is_empty())
        .collect();
    if with_lines.is_empty() {
        return Ok(());
    }
    let encoding = Encoding {
        format: Format::Dwarf32,
        version: 4,
        address_size: 8,
    };
    let primary = clean(
        with_lines
            .iter()
            .find_map(|f| f.files.first())
            .map_or("", |s| s.as_str()),
    );
    let mut dwarf = DwarfUnit::new(encoding);
    let mut program = LineProgram::new(
        encoding,
        LineEncoding::default(),
        LineString::String(b".".to_vec()),
        None,
        LineString::String(primary.clone().into_bytes()),
        None,
    );
    let mut file_ids: HashMap<String, FileId> = HashMap::default();
    let mut ranges = Vec::new();
    for f in &with_lines {
        let section_symbol = b.section_symbol(f.text);
        let start = Address::Symbol {
            symbol: section_symbol.0,
            addend: 0,
        };
        let size = f.code.words.len() as u64 * 8;
        ranges.push(Range::StartLength {
            begin: start,
            length: size,
        });
        program.begin_sequence(Some(start));
        for &(offset, loc) in &f.code.lines {
            let Some(name) = f.files.get(loc.file as usize) else {
                continue;
            };
            let file = match file_ids.get(name) {
                Some(&id) => id,
                None => {
                    let cleaned = clean(name);
                    let path = Path::new(&cleaned);
                    let dir = match path.parent().map(|p| p.to_string_lossy().into_owned()) {
                        Some(d) if !d.is_empty() => {
                            program.add_directory(LineString::String(d.into_bytes()))
                        }
                        _ => program.default_directory(),
                    };
                    let base = clean(
                        &path
                            .file_name()
                            .map_or(cleaned.clone(), |s| s.to_string_lossy().into_owned()),
                    );
                    let id = program.add_file(LineString::String(base.into_bytes()), dir, None);
                    file_ids.insert(name.clone(), id);
                    id
                }
            };
            let row = program.row();
            row.address_offset = offset;
            row.file = file;
            row.line = u64::from(loc.line);
            row.column = u64::from(loc.col);
            program.generate_row();
        }
        program.end_sequence(size);
    }
    dwarf.unit.line_program = program;
    let range_list = dwarf.unit.ranges.add(RangeList(ranges));
    let root = dwarf.unit.root();
    let die = dwarf.unit.get_mut(root);
    die.set(
        gimli::DW_AT_producer,
        AttributeValue::String(b"vliw-machine".to_vec()),
    );
    die.set(
        gimli::DW_AT_language,
        AttributeValue::Language(gimli::DW_LANG_Rust),
    );
    die.set(
        gimli::DW_AT_name,
        AttributeValue::String(primary.into_bytes()),
    );
    die.set(gimli::DW_AT_comp_dir, AttributeValue::String(b".".to_vec()));
    die.set(
        gimli::DW_AT_low_pc,
        AttributeValue::Address(Address::Constant(0)),
    );
    die.set(
        gimli::DW_AT_ranges,
        AttributeValue::RangeListRef(range_list),
    );

    let mut sections = Sections::new(RelocWriter::new());
    dwarf.write(&mut sections).map_err(err)?;
    // the sections first, then their relocations (which may name any of them)
    let mut written: Vec<(SectionId, vliw_elf::SectionId, Vec<Relocation>)> = Vec::new();
    let mut by_id: HashMap<SectionId, vliw_elf::SymbolId> = HashMap::default();
    sections.for_each(|id, w| -> Result<(), CompileError> {
        if w.data.slice().is_empty() {
            return Ok(());
        }
        let s = b.object.add_section(Section::new(
            id.name(),
            SectionKind::Other,
            1,
            w.data.slice().to_vec(),
        ));
        by_id.insert(id, b.section_symbol(s));
        written.push((id, s, w.relocs.clone()));
        Ok(())
    })?;
    for (_, s, relocs) in written {
        let mut out = Vec::with_capacity(relocs.len());
        for r in relocs {
            let symbol = match r.target {
                RelocationTarget::Symbol(i) => vliw_elf::SymbolId(i),
                RelocationTarget::Section(id) => *by_id
                    .get(&id)
                    .ok_or_else(|| err(format!("no section {}", id.name())))?,
            };
            let kind = match r.size {
                8 => RelocKind::Abs64,
                4 => RelocKind::Abs32,
                n => return Err(err(format!("a {n}-byte relocation"))),
            };
            out.push(Reloc {
                offset: r.offset as u64,
                kind,
                symbol,
                addend: r.addend,
            });
        }
        b.object.sections[s.0].relocs = out;
    }
    Ok(())
}
