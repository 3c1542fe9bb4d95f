//! Archives (`.a`, `.rlib`): reading GNU and BSD `ar` files, writing GNU ones.
//!
//! Reading goes through `object::read::archive`. Writing is done here, because the
//! `ar` crate's builder cannot write a symbol table: the format is small (a global
//! header, then 60-byte member headers) and the symbol table is what lets the linker
//! find the member that defines a symbol without parsing every member.

use std::collections::HashMap;

use object::read::archive::{ArchiveFile, ArchiveKind};

use crate::error::{ElfError, ElfErrorKind};
use crate::model::{Binding, SymbolDefinition};
use crate::read::read_object;

const MAGIC: &[u8; 8] = b"!<arch>\n";
const THIN_MAGIC: &[u8; 8] = b"!<thin>\n";
const HEADER_SIZE: usize = 60;

/// One member of an archive. Members that are not ELF files (such as the `lib.rmeta`
/// of an rlib) are kept too; the linker skips them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchiveMember {
    pub name: String,
    pub data: Vec<u8>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Archive {
    /// In archive order.
    pub members: Vec<ArchiveMember>,
    /// The archive's symbol index, if it has one: each defined global symbol with the
    /// index in `members` of the member that defines it.
    pub symbols: Option<Vec<(String, usize)>>,
}

/// Whether `bytes` start with an archive's magic string (`!<arch>\n`, or `!<thin>\n`
/// which `read_archive` rejects with a clear message).
pub fn is_archive(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC) || bytes.starts_with(THIN_MAGIC)
}

/// Reads an archive in GNU (`ar`, `/` and `/SYM64/` symbol tables) or BSD
/// (`__.SYMDEF`) format. `file_name` is only used in error messages. Never panics.
pub fn read_archive(bytes: &[u8], file_name: &str) -> Result<Archive, ElfError> {
    if bytes.starts_with(THIN_MAGIC) {
        return Err(ElfError::malformed(
            file_name,
            "thin archives are not supported",
        ));
    }
    if !bytes.starts_with(MAGIC) {
        return Err(ElfError::new(file_name, ElfErrorKind::NotArchive));
    }
    let bad =
        |e: object::read::Error| ElfError::malformed(file_name, format!("malformed archive: {e}"));
    let archive = ArchiveFile::parse(bytes).map_err(bad)?;
    match archive.kind() {
        ArchiveKind::Gnu
        | ArchiveKind::Gnu64
        | ArchiveKind::Bsd
        | ArchiveKind::Bsd64
        | ArchiveKind::Unknown => {}
        kind => {
            return Err(ElfError::malformed(
                file_name,
                format!("unsupported archive format {kind:?}"),
            ));
        }
    }
    let mut members = Vec::new();
    let mut by_offset = HashMap::new();
    for member in archive.members() {
        let member = member.map_err(bad)?;
        let data = member.data(bytes).map_err(bad)?;
        by_offset.insert(member.file_range().0, members.len());
        members.push(ArchiveMember {
            name: String::from_utf8_lossy(member.name()).into_owned(),
            data: data.to_vec(),
        });
    }
    let symbols = match archive.symbols().map_err(bad)? {
        None => None,
        Some(iter) => {
            let mut symbols = Vec::new();
            for symbol in iter {
                let symbol = symbol.map_err(bad)?;
                let name = String::from_utf8_lossy(symbol.name()).into_owned();
                let member = archive.member(symbol.offset()).map_err(bad)?;
                let index = *by_offset.get(&member.file_range().0).ok_or_else(|| {
                    ElfError::malformed(file_name, format!("archive symbol index: `{name}` points at offset {:#x}, which is not a member", symbol.offset().0))
                })?;
                symbols.push((name, index));
            }
            Some(symbols)
        }
    };
    Ok(Archive { members, symbols })
}

/// The global symbols that an archive member defines: those the symbol table lists.
/// Members that are not objects of our machine define none.
pub(crate) fn member_symbols(data: &[u8]) -> Vec<String> {
    let Ok(object) = read_object(data, "") else {
        return Vec::new();
    };
    object
        .symbols
        .into_iter()
        .filter(|s| {
            s.binding != Binding::Local
                && s.definition != SymbolDefinition::Undefined
                && !s.name.is_empty()
        })
        .map(|s| s.name)
        .collect()
}

/// Writes a GNU archive with a symbol table (`/`, or `/SYM64/` past 4 GiB) listing the
/// defined global and weak symbols of every member that is an object of our machine.
/// Member names are stored as their last path component. Deterministic: dates, owners
/// are 0 and modes 644.
pub fn write_archive(members: &[ArchiveMember]) -> Vec<u8> {
    let names: Vec<&str> = members
        .iter()
        .map(|m| m.name.rsplit('/').next().unwrap_or(""))
        .collect();

    // Long names (over 15 bytes) go in the `//` table; headers point into it.
    let mut long_names = Vec::new();
    let mut header_names = Vec::with_capacity(members.len());
    for name in &names {
        if name.len() <= 15 && !name.is_empty() {
            header_names.push(format!("{name}/"));
        } else {
            header_names.push(format!("/{}", long_names.len()));
            long_names.extend_from_slice(name.as_bytes());
            long_names.extend_from_slice(b"/\n");
        }
    }

    let symbols: Vec<Vec<String>> = members.iter().map(|m| member_symbols(&m.data)).collect();
    let symbol_count: usize = symbols.iter().map(Vec::len).sum();
    let string_bytes: usize = symbols.iter().flatten().map(|s| s.len() + 1).sum();
    let members_size: usize = members
        .iter()
        .map(|m| HEADER_SIZE + padded(m.data.len()))
        .sum();
    let long_names_size = if long_names.is_empty() {
        0
    } else {
        HEADER_SIZE + padded(long_names.len())
    };
    let table_size = |width: usize| (width + width * symbol_count + string_bytes, width);
    let (mut table_len, mut width) = table_size(4);
    if MAGIC.len() + HEADER_SIZE + padded(table_len) + long_names_size + members_size
        > u32::MAX as usize
    {
        (table_len, width) = table_size(8);
    }
    let has_table = symbol_count > 0;

    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    let mut offset = MAGIC.len()
        + long_names_size
        + if has_table {
            HEADER_SIZE + padded(table_len)
        } else {
            0
        };
    let mut member_offsets = Vec::with_capacity(members.len());
    for m in members {
        member_offsets.push(offset);
        offset += HEADER_SIZE + padded(m.data.len());
    }
    if has_table {
        let mut table = Vec::with_capacity(table_len);
        let put = |table: &mut Vec<u8>, v: usize| {
            if width == 4 {
                table.extend_from_slice(&(v as u32).to_be_bytes());
            } else {
                table.extend_from_slice(&(v as u64).to_be_bytes());
            }
        };
        put(&mut table, symbol_count);
        for (i, syms) in symbols.iter().enumerate() {
            for _ in syms {
                put(&mut table, member_offsets[i]);
            }
        }
        for name in symbols.iter().flatten() {
            table.extend_from_slice(name.as_bytes());
            table.push(0);
        }
        push_member(&mut out, if width == 4 { "/" } else { "/SYM64/" }, &table);
    }
    if !long_names.is_empty() {
        push_member(&mut out, "//", &long_names);
    }
    for (m, header_name) in members.iter().zip(&header_names) {
        push_member(&mut out, header_name, &m.data);
    }
    out
}

fn padded(len: usize) -> usize {
    len + len % 2
}

fn push_member(out: &mut Vec<u8>, name: &str, data: &[u8]) {
    // The `//` table has no date, owner or mode in GNU ar's output.
    let header = if name == "//" {
        format!(
            "{name:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
            "",
            "",
            "",
            "",
            data.len()
        )
    } else {
        format!(
            "{name:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
            0,
            0,
            0,
            644,
            data.len()
        )
    };
    debug_assert_eq!(header.len(), HEADER_SIZE);
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    if data.len() % 2 == 1 {
        out.push(b'\n');
    }
}
