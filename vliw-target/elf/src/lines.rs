//! Source lines: the DWARF line tables (`.debug_line`) of an executable or object as
//! an address → (file, line, column) table, read with `gimli`. The one place where
//! the tools (`vliw-objdump`, `vliw-run`) read DWARF.
//!
//! Every line program of `.debug_line` is read in turn (no `.debug_info` needed); each
//! sequence becomes address ranges, one per row, from the row's address to the next
//! row's (or the end of the sequence). A lookup is a binary search.
//!
//! Malformed DWARF never panics and never fails: a program whose header does not
//! parse ends the walk, an error inside a program drops its unfinished sequence, a row
//! naming a file that does not exist covers its range with "no line". Line 0 (code
//! without a source line) is "no line" too.
//!
//! File names are the line program's: the file's name, joined to its include
//! directory unless that is directory 0 (the compilation directory) or the name is
//! absolute. So a path stays relative to where the compiler ran, as rustc wrote it
//! (`src/main.rs`). Control characters in names become `?` (one-line messages).
//!
//! Relocatable objects ([`LineTable::from_object`]): the relocations of `.debug_line`
//! are applied in memory, each allocated section at a base of its own
//! ([`object_address`]), so that a sequence relocated against a function's section
//! lands in that section: look rows up with [`LineTable::lookup_in_section`].

use std::collections::HashMap;
use std::fmt;

use gimli::{DebugLine, DebugLineOffset, DebugLineStr, DebugStr, EndianSlice, LittleEndian};

use crate::exec::Executable;
use crate::model::{Object, SectionId, SymbolDefinition};

type Reader<'a> = EndianSlice<'a, LittleEndian>;

/// The address size of VLIW-64 (needed by `DW_LNE_set_address` before DWARF 5).
const ADDRESS_SIZE: u8 = 8;

/// Where the bases of an object's sections start: section `i` of an object is at
/// `(i + 1) << SECTION_SHIFT` in its line table.
const SECTION_SHIFT: u32 = 40;

/// The address that stands for `offset` in section `section` of a relocatable object
/// in the table of [`LineTable::from_object`].
pub fn object_address(section: SectionId, offset: u64) -> u64 {
    ((section.0 as u64).wrapping_add(1) << SECTION_SHIFT).wrapping_add(offset)
}

/// A source position, borrowed from its [`LineTable`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SourceLine<'a> {
    pub file: &'a str,
    /// At least 1.
    pub line: u64,
    /// 0 when unknown (the left edge).
    pub column: u64,
}

impl SourceLine<'_> {
    pub fn to_location(&self) -> SourceLocation {
        SourceLocation {
            file: self.file.to_string(),
            line: self.line,
            column: self.column,
        }
    }
}

/// `file:line:column`, or `file:line` without a column.
impl fmt::Display for SourceLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.column == 0 {
            write!(f, "{}:{}", self.file, self.line)
        } else {
            write!(f, "{}:{}:{}", self.file, self.line, self.column)
        }
    }
}

/// An owned [`SourceLine`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceLocation {
    pub file: String,
    pub line: u64,
    pub column: u64,
}

impl SourceLocation {
    pub fn as_line(&self) -> SourceLine<'_> {
        SourceLine {
            file: &self.file,
            line: self.line,
            column: self.column,
        }
    }
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_line().fmt(f)
    }
}

/// The range `[start, end)` of one row. `line == 0`: no source line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Range {
    start: u64,
    end: u64,
    file: u32,
    line: u64,
    column: u64,
}

/// Addresses → source lines. Empty when there is no (usable) `.debug_line`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineTable {
    files: Vec<String>,
    /// Sorted by `start`, not overlapping, none empty.
    ranges: Vec<Range>,
}

impl LineTable {
    /// The line table of a linked executable (its `.debug_line`, with `.debug_str`
    /// and `.debug_line_str` for DWARF 5 file names).
    pub fn from_executable(exe: &Executable) -> LineTable {
        match exe.non_alloc_section(".debug_line") {
            Some(line) => LineTable::from_sections(
                line,
                exe.non_alloc_section(".debug_str").unwrap_or(&[]),
                exe.non_alloc_section(".debug_line_str").unwrap_or(&[]),
            ),
            None => LineTable::default(),
        }
    }

    /// The line table of a relocatable object: `.debug_line` with its relocations
    /// applied, every allocated section at [`object_address`]`(section, 0)` and every
    /// other section (`.debug_str`...) at 0. Look it up with
    /// [`LineTable::lookup_in_section`].
    pub fn from_object(object: &Object) -> LineTable {
        let Some(line) = object.section_by_name(".debug_line") else {
            return LineTable::default();
        };
        let relocated = |id: SectionId| -> Vec<u8> {
            let section = object.section(id);
            let mut data = section.data.clone();
            for r in &section.relocs {
                let Some(symbol) = object.symbols.get(r.symbol.0) else {
                    continue;
                };
                let value = match symbol.definition {
                    SymbolDefinition::Defined { section: s, value } => {
                        match object.sections.get(s.0) {
                            Some(target) if target.kind.is_alloc() => object_address(s, value),
                            Some(_) => value,
                            None => continue,
                        }
                    }
                    SymbolDefinition::Absolute(v) => v,
                    SymbolDefinition::Undefined => 0,
                };
                let v = vliw_isa::reloc_value(r.kind, value, r.addend, r.offset);
                // A value that does not fit leaves the place as it was.
                let _ = vliw_isa::apply_reloc(r.kind, &mut data, r.offset, v);
            }
            data
        };
        let named = |name: &str| {
            object
                .section_by_name(name)
                .map(relocated)
                .unwrap_or_default()
        };
        LineTable::from_sections(
            &relocated(line),
            &named(".debug_str"),
            &named(".debug_line_str"),
        )
    }

    /// The line table of raw sections: `.debug_line` (every line program in it, in
    /// turn), `.debug_str` and `.debug_line_str` (may be empty).
    pub fn from_sections(debug_line: &[u8], debug_str: &[u8], debug_line_str: &[u8]) -> LineTable {
        let mut builder = Builder {
            strings: Strings {
                str: DebugStr::new(debug_str, LittleEndian),
                line_str: DebugLineStr::new(debug_line_str, LittleEndian),
            },
            files: Vec::new(),
            file_ids: HashMap::new(),
            ranges: Vec::new(),
        };
        let section = DebugLine::new(debug_line, LittleEndian);
        let mut offset = 0usize;
        while let Some(length) = unit_length(debug_line, offset) {
            match length {
                // Padding between contributions.
                UnitLength::Zero => offset += 4,
                UnitLength::Bytes(n) => {
                    builder.program(&section, offset);
                    match offset.checked_add(n) {
                        Some(next) => offset = next,
                        None => break,
                    }
                }
            }
        }
        builder.finish()
    }

    /// Whether there is no line at all.
    pub fn is_empty(&self) -> bool {
        self.ranges.iter().all(|r| r.line == 0)
    }

    /// The source line of the code at `addr`, if known.
    pub fn lookup(&self, addr: u64) -> Option<SourceLine<'_>> {
        let n = self.ranges.partition_point(|r| r.start <= addr);
        let r = self.ranges.get(n.checked_sub(1)?)?;
        if addr >= r.end || r.line == 0 {
            return None;
        }
        Some(SourceLine {
            file: self.files.get(r.file as usize)?,
            line: r.line,
            column: r.column,
        })
    }

    /// The source line of `offset` in section `section`, for the table of an object.
    pub fn lookup_in_section(&self, section: SectionId, offset: u64) -> Option<SourceLine<'_>> {
        if offset >= 1 << SECTION_SHIFT {
            return None;
        }
        self.lookup(object_address(section, offset))
    }

    /// Every range with a line: `(start, end, line)`, by address.
    pub fn rows(&self) -> impl Iterator<Item = (u64, u64, SourceLine<'_>)> {
        self.ranges.iter().filter(|r| r.line != 0).filter_map(|r| {
            let file = self.files.get(r.file as usize)?;
            Some((
                r.start,
                r.end,
                SourceLine {
                    file,
                    line: r.line,
                    column: r.column,
                },
            ))
        })
    }
}

enum UnitLength {
    /// A zero word: padding, skip it.
    Zero,
    /// The whole contribution, its length field included.
    Bytes(usize),
}

/// The size of the line program at `offset`, or `None` at the end or when the
/// length field is cut or reserved.
fn unit_length(data: &[u8], offset: usize) -> Option<UnitLength> {
    let word = |at: usize, n: usize| -> Option<u64> {
        let bytes = data.get(at..at.checked_add(n)?)?;
        Some(
            bytes
                .iter()
                .rev()
                .fold(0u64, |acc, &b| (acc << 8) | u64::from(b)),
        )
    };
    let length = word(offset, 4)?;
    if length == 0 {
        return Some(UnitLength::Zero);
    }
    if length == 0xffff_ffff {
        let long = word(offset + 4, 8)?;
        return usize::try_from(long)
            .ok()?
            .checked_add(12)
            .map(UnitLength::Bytes);
    }
    if length >= 0xffff_fff0 {
        return None;
    }
    Some(UnitLength::Bytes(length as usize + 4))
}

struct Strings<'a> {
    str: DebugStr<Reader<'a>>,
    line_str: DebugLineStr<Reader<'a>>,
}

impl<'a> Strings<'a> {
    fn get(&self, value: gimli::AttributeValue<Reader<'a>>) -> Option<String> {
        let bytes = match value {
            gimli::AttributeValue::String(s) => s,
            gimli::AttributeValue::DebugStrRef(o) => self.str.get_str(o).ok()?,
            gimli::AttributeValue::DebugLineStrRef(o) => self.line_str.get_str(o).ok()?,
            _ => return None,
        };
        Some(String::from_utf8_lossy(bytes.slice()).into_owned())
    }
}

struct Builder<'a> {
    strings: Strings<'a>,
    files: Vec<String>,
    file_ids: HashMap<String, u32>,
    ranges: Vec<Range>,
}

/// A row of a sequence being read: address, file (`None`: unknown), line, column.
type Row = (u64, Option<u32>, u64, u64);

impl<'a> Builder<'a> {
    /// Reads the line program at `offset`; rows of finished sequences are kept.
    fn program(&mut self, section: &DebugLine<Reader<'a>>, offset: usize) {
        let Ok(program) = section.program(DebugLineOffset(offset), ADDRESS_SIZE, None, None) else {
            return;
        };
        let mut rows = program.rows();
        let mut sequence: Vec<Row> = Vec::new();
        let mut files: HashMap<u64, Option<u32>> = HashMap::new();
        loop {
            let (header, row) = match rows.next_row() {
                Ok(Some(next)) => next,
                Ok(None) | Err(_) => return,
            };
            if row.end_sequence() {
                self.sequence(&sequence, row.address());
                sequence.clear();
                continue;
            }
            let index = row.file_index();
            let file = match files.get(&index) {
                Some(&f) => f,
                None => {
                    let f = self.file_path(header, index).map(|p| self.intern(p));
                    files.insert(index, f);
                    f
                }
            };
            let column = match row.column() {
                gimli::ColumnType::LeftEdge => 0,
                gimli::ColumnType::Column(c) => c.get(),
            };
            sequence.push((
                row.address(),
                file,
                row.line().map_or(0, |l| l.get()),
                column,
            ));
        }
    }

    /// The path of file `index` of a line program.
    fn file_path(
        &self,
        header: &gimli::LineProgramHeader<Reader<'a>>,
        index: u64,
    ) -> Option<String> {
        let file = header.file(index)?;
        let name = self.strings.get(file.path_name())?;
        if name.starts_with('/') || file.directory_index() == 0 {
            return Some(name);
        }
        match header
            .directory(file.directory_index())
            .and_then(|d| self.strings.get(d))
        {
            Some(dir) if !dir.is_empty() && dir != "." => {
                Some(format!("{}/{name}", dir.strip_suffix('/').unwrap_or(&dir)))
            }
            _ => Some(name),
        }
    }

    /// The file's number in the table; control characters (a newline...) in its name
    /// become `?`, so that a message naming the file stays one line.
    fn intern(&mut self, path: String) -> u32 {
        let path: String = path
            .chars()
            .map(|c| if c.is_control() { '?' } else { c })
            .collect();
        if let Some(&id) = self.file_ids.get(&path) {
            return id;
        }
        let id = self.files.len() as u32;
        self.files.push(path.clone());
        self.file_ids.insert(path, id);
        id
    }

    /// The ranges of a finished sequence ending at `end`.
    fn sequence(&mut self, rows: &[Row], end: u64) {
        for (i, &(start, file, line, column)) in rows.iter().enumerate() {
            let next = rows.get(i + 1).map_or(end, |r| r.0);
            if start >= next {
                continue;
            }
            let (file, line) = match file {
                Some(f) => (f, line),
                None => (0, 0),
            };
            self.ranges.push(Range {
                start,
                end: next,
                file,
                line,
                column,
            });
        }
    }

    fn finish(mut self) -> LineTable {
        // Overlaps (sequences of functions dropped by the linker, malformed tables):
        // a range ends where the next one starts.
        self.ranges.sort_by_key(|r| (r.start, r.end));
        for i in 1..self.ranges.len() {
            let next_start = self.ranges[i].start;
            let prev = &mut self.ranges[i - 1];
            if prev.end > next_start {
                prev.end = next_start;
            }
        }
        self.ranges.retain(|r| r.start < r.end);
        LineTable {
            files: self.files,
            ranges: self.ranges,
        }
    }
}
