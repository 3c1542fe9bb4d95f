//! Checked access to the raw structures of an ELF64 little-endian file.
//!
//! `object::read::elf` decodes the structures; this module checks every offset, size
//! and index before it is used, so that a bad file yields an error that says what was
//! wrong and where, never a panic. Readers of objects and executables share it.

use object::LittleEndian as LE;
use object::elf::{self, FileHeader64, ProgramHeader64, SectionHeader64, Sym64};
use object::pod::{Pod, slice_from_all_bytes};
use object::read::elf::{FileHeader as _, SectionHeader as _};

use crate::error::{ElfError, ElfErrorKind};

pub(crate) const EHDR_SIZE: u64 = 64;
pub(crate) const SHDR_SIZE: u64 = 64;
pub(crate) const PHDR_SIZE: u64 = 56;
pub(crate) const SYM_SIZE: u64 = 24;
pub(crate) const RELA_SIZE: u64 = 24;

/// A file whose header has been checked, with its section header table.
pub(crate) struct RawElf<'a> {
    pub file: &'a str,
    pub data: &'a [u8],
    pub header: &'a FileHeader64<LE>,
    pub sections: &'a [SectionHeader64<LE>],
    /// Contents of the section header string table (empty if there is none).
    pub shstrtab: &'a [u8],
}

/// Checks that `data` starts like one of our ELF files, in the order that gives the
/// most useful message: magic, class, endianness, version, then header fields.
pub(crate) fn check_ident(data: &[u8], file: &str) -> Result<(), ElfError> {
    let magic = &elf::ELFMAG[..];
    let n = data.len().min(4);
    if data[..n] != magic[..n] {
        return Err(ElfError::new(file, ElfErrorKind::NotElf));
    }
    if data.len() < 16 {
        return Err(truncated(file, data, "ELF identification", 0, 16));
    }
    if data[4] != elf::ELFCLASS64.0 {
        return Err(ElfError::new(file, ElfErrorKind::WrongClass(data[4])));
    }
    if data[5] != elf::ELFDATA2LSB.0 {
        return Err(ElfError::new(file, ElfErrorKind::WrongEndian(data[5])));
    }
    if data[6] != elf::EV_CURRENT.0 {
        return Err(ElfError::malformed(
            file,
            format!("unsupported ELF version {} in e_ident", data[6]),
        ));
    }
    Ok(())
}

pub(crate) fn truncated(file: &str, data: &[u8], what: &str, offset: u64, size: u64) -> ElfError {
    ElfError::new(
        file,
        ElfErrorKind::Truncated {
            what: what.to_string(),
            offset,
            size,
            file_len: data.len() as u64,
        },
    )
}

impl<'a> RawElf<'a> {
    /// Parses the file header and section header table; `e_type` must be
    /// `expected_type`.
    pub fn parse(
        data: &'a [u8],
        file: &'a str,
        expected_type: elf::FileType,
    ) -> Result<RawElf<'a>, ElfError> {
        check_ident(data, file)?;
        if (data.len() as u64) < EHDR_SIZE {
            return Err(truncated(file, data, "ELF file header", 0, EHDR_SIZE));
        }
        let header = FileHeader64::<LE>::parse(data)
            .map_err(|e| ElfError::malformed(file, format!("bad ELF header: {e}")))?;
        let machine = header.e_machine(LE).0;
        if machine != vliw_isa::EM_VLIW {
            return Err(ElfError::new(file, ElfErrorKind::ForeignMachine(machine)));
        }
        let e_type = header.e_type(LE);
        if e_type != expected_type {
            return Err(ElfError::new(
                file,
                ElfErrorKind::WrongFileType {
                    found: e_type.0,
                    expected: expected_type.0,
                },
            ));
        }
        let flags = header.e_flags(LE).0;
        if flags != vliw_isa::EF_VLIW_ISA_V1 {
            return Err(ElfError::malformed(
                file,
                format!(
                    "unsupported e_flags {flags:#x}: expected {:#x} (ISA version 1)",
                    vliw_isa::EF_VLIW_ISA_V1
                ),
            ));
        }
        let mut raw = RawElf {
            file,
            data,
            header,
            sections: &[],
            shstrtab: &[],
        };
        raw.sections = raw.section_headers()?;
        raw.shstrtab = raw.section_string_table()?;
        Ok(raw)
    }

    pub fn err(&self, kind: ElfErrorKind) -> ElfError {
        ElfError::new(self.file, kind)
    }

    pub fn malformed(&self, message: impl Into<String>) -> ElfError {
        ElfError::malformed(self.file, message)
    }

    /// The bytes `offset..offset + size` of the file, or a truncation error about
    /// `what`.
    pub fn bytes(&self, what: &str, offset: u64, size: u64) -> Result<&'a [u8], ElfError> {
        let end = offset.checked_add(size);
        match end {
            Some(end) if end <= self.data.len() as u64 => {
                Ok(&self.data[offset as usize..end as usize])
            }
            _ => Err(truncated(self.file, self.data, what, offset, size)),
        }
    }

    /// An array of `count` structures of `entsize` bytes at `offset`.
    pub fn table<T: Pod>(
        &self,
        what: &str,
        offset: u64,
        count: u64,
        entsize: u64,
    ) -> Result<&'a [T], ElfError> {
        let size = count
            .checked_mul(entsize)
            .ok_or_else(|| self.malformed(format!("{what}: size overflows")))?;
        let bytes = self.bytes(what, offset, size)?;
        slice_from_all_bytes(bytes).map_err(|_| self.malformed(format!("{what}: bad entry size")))
    }

    fn section_headers(&self) -> Result<&'a [SectionHeader64<LE>], ElfError> {
        let shoff = self.header.e_shoff(LE);
        if shoff == 0 {
            return Ok(&[]);
        }
        let entsize = self.header.e_shentsize(LE) as u64;
        if entsize != SHDR_SIZE {
            return Err(self.malformed(format!(
                "section header entry size is {entsize}, expected {SHDR_SIZE}"
            )));
        }
        let mut count = self.header.e_shnum(LE) as u64;
        if count == 0 {
            // More than 0xff00 sections: the count is in section 0's sh_size.
            let first: &[SectionHeader64<LE>] =
                self.table("section header 0", shoff, 1, SHDR_SIZE)?;
            count = first[0].sh_size(LE);
        }
        self.table("section header table", shoff, count, SHDR_SIZE)
    }

    pub fn section_count(&self) -> usize {
        self.sections.len()
    }

    fn section_string_table(&self) -> Result<&'a [u8], ElfError> {
        if self.sections.is_empty() {
            return Ok(&[]);
        }
        let mut index = self.header.e_shstrndx(LE).0 as u64;
        if index == elf::SHN_XINDEX.0 as u64 {
            index = self.sections[0].sh_link(LE) as u64;
        }
        if index == 0 {
            return Ok(&[]);
        }
        let shdr = self.section(index, "e_shstrndx (section name string table)")?;
        if shdr.sh_type(LE) != elf::SHT_STRTAB {
            return Err(self.malformed(format!(
                "section {index} named by e_shstrndx is not a string table"
            )));
        }
        self.bytes(
            "section name string table",
            shdr.sh_offset(LE),
            shdr.sh_size(LE),
        )
    }

    /// Section header `index`; `what` says who refers to it, for the error.
    pub fn section(&self, index: u64, what: &str) -> Result<&'a SectionHeader64<LE>, ElfError> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.sections.get(i))
            .ok_or_else(|| {
                self.err(ElfErrorKind::IndexOutOfRange {
                    what: format!("section index in {what}"),
                    index,
                    limit: self.sections.len() as u64,
                })
            })
    }

    /// The name of section `index`, as printed in messages. A name that cannot be
    /// read is an error.
    pub fn section_name(&self, index: usize) -> Result<String, ElfError> {
        let name = self.sections[index].sh_name(LE);
        string_at(
            self.file,
            self.shstrtab,
            ".shstrtab",
            name,
            &format!("name of section {index}"),
        )
    }

    /// The contents of a section that has bytes in the file (empty for `SHT_NOBITS`).
    pub fn section_data(&self, index: usize, name: &str) -> Result<&'a [u8], ElfError> {
        let shdr = &self.sections[index];
        if shdr.sh_type(LE) == elf::SHT_NOBITS {
            return Ok(&[]);
        }
        self.bytes(
            &format!("contents of section {name}"),
            shdr.sh_offset(LE),
            shdr.sh_size(LE),
        )
    }

    /// The symbol table in section `index`: its symbols (with the null symbol at 0), its
    /// string table and its extended section indices (`SHT_SYMTAB_SHNDX`), if any.
    pub fn symbol_table(&self, index: usize) -> Result<SymbolTable<'a>, ElfError> {
        let shdr = &self.sections[index];
        let entsize = shdr.sh_entsize(LE);
        if entsize != SYM_SIZE {
            return Err(self.malformed(format!(
                "symbol table entry size is {entsize}, expected {SYM_SIZE}"
            )));
        }
        let size = shdr.sh_size(LE);
        if !size.is_multiple_of(SYM_SIZE) {
            return Err(self.malformed(format!(
                "symbol table size {size:#x} is not a multiple of {SYM_SIZE}"
            )));
        }
        let symbols: &[Sym64<LE>] = self.table(
            "symbol table",
            shdr.sh_offset(LE),
            size / SYM_SIZE,
            SYM_SIZE,
        )?;
        let link = shdr.sh_link(LE) as u64;
        let strtab_hdr = self.section(link, "sh_link of the symbol table")?;
        if strtab_hdr.sh_type(LE) != elf::SHT_STRTAB {
            return Err(self.malformed(format!(
                "sh_link of the symbol table names section {link}, which is not a string table"
            )));
        }
        let strings = self.bytes(
            "symbol string table",
            strtab_hdr.sh_offset(LE),
            strtab_hdr.sh_size(LE),
        )?;
        let mut shndx = Vec::new();
        for s in self.sections {
            if s.sh_type(LE) == elf::SHT_SYMTAB_SHNDX && s.sh_link(LE) as usize == index {
                let raw: &[object::U32<LE>] = self.table(
                    "extended section index table",
                    s.sh_offset(LE),
                    s.sh_size(LE) / 4,
                    4,
                )?;
                shndx = raw.iter().map(|w| w.get(LE)).collect();
            }
        }
        Ok(SymbolTable {
            symbols,
            strings,
            shndx,
        })
    }

    /// The program header table (empty if there is none).
    pub fn program_headers(&self) -> Result<&'a [ProgramHeader64<LE>], ElfError> {
        let phoff = self.header.e_phoff(LE);
        let count = self.header.e_phnum(LE) as u64;
        if phoff == 0 || count == 0 {
            return Ok(&[]);
        }
        let entsize = self.header.e_phentsize(LE) as u64;
        if entsize != PHDR_SIZE {
            return Err(self.malformed(format!(
                "program header entry size is {entsize}, expected {PHDR_SIZE}"
            )));
        }
        self.table("program header table", phoff, count, PHDR_SIZE)
    }
}

pub(crate) struct SymbolTable<'a> {
    pub symbols: &'a [Sym64<LE>],
    pub strings: &'a [u8],
    /// Extended section indices, one per symbol, when there are more than 0xff00
    /// sections.
    pub shndx: Vec<u32>,
}

/// The NUL-terminated string at `offset` of a string table.
pub(crate) fn string_at(
    file: &str,
    table: &[u8],
    table_name: &str,
    offset: u32,
    what: &str,
) -> Result<String, ElfError> {
    let start = offset as usize;
    if start >= table.len() {
        if offset == 0 {
            // No string table at all: every name is empty.
            return Ok(String::new());
        }
        return Err(ElfError::new(
            file,
            ElfErrorKind::IndexOutOfRange {
                what: format!("{what}: offset into {table_name}"),
                index: offset as u64,
                limit: table.len() as u64,
            },
        ));
    }
    let rest = &table[start..];
    let len = rest.iter().position(|&b| b == 0).ok_or_else(|| {
        ElfError::malformed(
            file,
            format!("{what}: string at offset {offset:#x} of {table_name} is not NUL-terminated"),
        )
    })?;
    String::from_utf8(rest[..len].to_vec()).map_err(|_| {
        ElfError::malformed(
            file,
            format!("{what}: string at offset {offset:#x} of {table_name} is not valid UTF-8"),
        )
    })
}

/// Whether `bytes` start with the ELF magic number (the linker's test of what an input
/// file is; it does not look at file names).
pub fn is_elf(bytes: &[u8]) -> bool {
    bytes.starts_with(&elf::ELFMAG)
}
