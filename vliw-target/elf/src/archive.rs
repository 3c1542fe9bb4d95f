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

/// Writes a GNU archive with a symbol table listing the defined global and weak
/// symbols of every member that is an object of our machine, with
/// `ar_archive_writer` (the archive writer rustc uses). Member names are stored as
/// their last path component. Deterministic: dates and owners are 0, modes 644.
pub fn write_archive(members: &[ArchiveMember]) -> Vec<u8> {
    let new_members: Vec<ar_archive_writer::NewArchiveMember> = members
        .iter()
        .map(|m| {
            let name = m.name.rsplit('/').next().unwrap_or("").to_string();
            ar_archive_writer::NewArchiveMember::new(&m.data[..], &OUR_OBJECT_READER, name)
        })
        .collect();
    let mut out = std::io::Cursor::new(Vec::new());
    ar_archive_writer::write_archive_to_stream(
        &mut out,
        &new_members,
        ar_archive_writer::ArchiveKind::Gnu,
        false,
        None,
    )
    .expect("writing to memory cannot fail");
    out.into_inner()
}

/// Tells `ar_archive_writer` which symbols a member defines, by our own reader, so
/// the archive's index lists exactly what the linker will look for.
static OUR_OBJECT_READER: ar_archive_writer::ObjectReader = ar_archive_writer::ObjectReader {
    get_symbols: |data, add| {
        let symbols = member_symbols(data);
        for name in &symbols {
            add(name.as_bytes())?;
        }
        Ok(!symbols.is_empty())
    },
    is_64_bit_object_file: |_| true,
    ..ar_archive_writer::DEFAULT_OBJECT_READER
};
