//! Every kind of bad input gives the expected message, naming the file and the place.

mod common;

use common::*;
use vliw_elf::*;

fn object_error(bytes: &[u8]) -> String {
    read_object(bytes, "bad.o").unwrap_err().to_string()
}

fn assert_contains(message: &str, parts: &[&str]) {
    for part in parts {
        assert!(
            message.contains(part),
            "`{message}` should contain `{part}`"
        );
    }
}

#[test]
fn not_elf() {
    assert_eq!(
        object_error(b"#!/bin/sh\necho hello\n"),
        "bad.o: not an ELF file (bad magic)"
    );
    assert_eq!(
        object_error(b""),
        "bad.o: truncated file: ELF identification at offset 0x0 needs 0x10 bytes but the file is only 0x0 bytes long"
    );
    assert_eq!(
        object_error(b"!<arch>\n"),
        "bad.o: not an ELF file (bad magic)"
    );
}

#[test]
fn truncated() {
    let bytes = write_object(&sample_object());
    assert_contains(
        &object_error(&bytes[..40]),
        &[
            "bad.o: truncated file: ELF file header at offset 0x0 needs 0x40 bytes",
            "only 0x28 bytes",
        ],
    );
    // Cut inside the section header table.
    let shoff = u64_at(&bytes, 0x28) as usize;
    let message = object_error(&bytes[..shoff + 10]);
    assert_contains(
        &message,
        &[
            "truncated file: section header table at offset",
            &format!("{shoff:#x}"),
        ],
    );
    // Section contents past the end of the file.
    let mut b = bytes.clone();
    let text = section_headers(&b)[1];
    put_u64(&mut b, text + 0x18, 0x10_0000);
    assert_contains(
        &object_error(&b),
        &["truncated file: contents of section .text.main at offset 0x100000"],
    );
}

#[test]
fn wrong_class_and_endianness() {
    let mut b = write_object(&sample_object());
    b[4] = 1;
    assert_eq!(
        object_error(&b),
        "bad.o: wrong ELF class: 32-bit (ELFCLASS32), expected 64-bit (ELFCLASS64)"
    );
    b[4] = 2;
    b[5] = 2;
    assert_eq!(
        object_error(&b),
        "bad.o: wrong endianness: big-endian (ELFDATA2MSB), expected little-endian (ELFDATA2LSB)"
    );
}

#[test]
fn foreign_machine() {
    let mut b = write_object(&sample_object());
    put_u16(&mut b, 18, 0x3e); // EM_X86_64
    assert_contains(
        &object_error(&b),
        &["bad.o: foreign machine: e_machine is 0x3e, expected 0x5657 (EM_VLIW)"],
    );
}

#[test]
fn wrong_file_type() {
    let b = write_object(&sample_object());
    let message = read_executable(&b, "a.o").unwrap_err().to_string();
    assert_eq!(
        message,
        "a.o: wrong file type: found a relocatable object (ET_REL), expected a executable (ET_EXEC)"
    );
    let mut b = b;
    put_u16(&mut b, 16, 3); // ET_DYN
    assert_contains(
        &object_error(&b),
        &["found a shared object (ET_DYN), expected a relocatable object (ET_REL)"],
    );
}

#[test]
fn section_index_out_of_range() {
    let mut b = write_object(&sample_object());
    let symtab = header_of_type(&b, SHT_SYMTAB);
    let symbols = u64_at(&b, symtab + 0x18) as usize;
    // Symbol 2 is the section symbol of .text.main: move it to section 500.
    put_u16(&mut b, symbols + 2 * 24 + 6, 500);
    assert_contains(
        &object_error(&b),
        &["bad.o: section index in definition of symbol 2: index 500 is out of range (there are "],
    );

    let mut b = write_object(&sample_object());
    let rela = header_of_type(&b, SHT_RELA);
    put_u32(&mut b, rela + 0x2c, 77); // sh_info
    assert_contains(
        &object_error(&b),
        &[
            "section index in sh_info of relocation section .rela.text.main: index 77 is out of range",
        ],
    );

    let mut b = write_object(&sample_object());
    put_u16(&mut b, 0x3e, 400); // e_shstrndx
    assert_contains(
        &object_error(&b),
        &["section index in e_shstrndx (section name string table): index 400 is out of range"],
    );
}

#[test]
fn symbol_index_out_of_range() {
    let mut b = write_object(&sample_object());
    let rela = header_of_type(&b, SHT_RELA);
    let entries = u64_at(&b, rela + 0x18) as usize;
    put_u32(&mut b, entries + 12, 1000); // r_sym of the first relocation
    assert_contains(
        &object_error(&b),
        &[
            "symbol index of relocation R_VLIW_IMM32 at .text.main+0x0: index 1000 is out of range (there are 12)",
        ],
    );
}

#[test]
fn string_index_out_of_range() {
    let mut b = write_object(&sample_object());
    let text = section_headers(&b)[1];
    put_u32(&mut b, text, 0xffff); // sh_name
    assert_contains(
        &object_error(&b),
        &["name of section 1: offset into .shstrtab: index 65535 is out of range"],
    );

    let mut b = write_object(&sample_object());
    let symtab = header_of_type(&b, SHT_SYMTAB);
    let symbols = u64_at(&b, symtab + 0x18) as usize;
    put_u32(&mut b, symbols + 24, 0xfff0);
    assert_contains(
        &object_error(&b),
        &["name of symbol 1: offset into .strtab: index 65520 is out of range"],
    );
}

#[test]
fn unknown_relocation() {
    let mut b = write_object(&sample_object());
    let rela = header_of_type(&b, SHT_RELA);
    let entries = u64_at(&b, rela + 0x18) as usize;
    put_u32(&mut b, entries + 24 + 8, 99); // r_type of the second relocation (at offset 8)
    assert_eq!(
        object_error(&b),
        "bad.o: unknown relocation type 99 at .text.main+0x8"
    );
}

#[test]
fn relocation_past_section_end() {
    let mut b = write_object(&sample_object());
    let rela = header_of_type(&b, SHT_RELA);
    let entries = u64_at(&b, rela + 0x18) as usize;
    put_u64(&mut b, entries, 60); // .text.main is 64 bytes; IMM32 needs 8
    assert_eq!(
        object_error(&b),
        "bad.o: relocation R_VLIW_IMM32 at .text.main+0x3c reaches past the end of the section (0x40 bytes)"
    );
    put_u64(&mut b, entries, u64::MAX - 2);
    assert_contains(&object_error(&b), &["reaches past the end of the section"]);
}

#[test]
fn text_size_not_multiple_of_8() {
    let mut o = Object::new();
    o.add_section(Section::new(".text.odd", SectionKind::Text, 8, vec![0; 12]));
    let b = write_object(&o);
    assert_eq!(
        object_error(&b),
        "bad.o: text section .text.odd has size 0xc, not a multiple of 8 (the syllable size)"
    );
}

#[test]
fn other_malformations_are_named() {
    let mut b = write_object(&sample_object());
    let text = section_headers(&b)[1];
    put_u64(&mut b, text + 0x30, 3); // sh_addralign
    assert_contains(
        &object_error(&b),
        &["section .text.main has alignment 3, not a power of two"],
    );

    let mut b = write_object(&sample_object());
    put_u32(&mut b, 0x30, 7); // e_flags
    assert_contains(&object_error(&b), &["unsupported e_flags 0x7"]);

    let mut b = write_object(&sample_object());
    let symtab = header_of_type(&b, SHT_SYMTAB);
    let symbols = u64_at(&b, symtab + 0x18) as usize;
    put_u64(&mut b, symbols + 3 * 24 + 8, 0x1000); // value of `helper`, past .text.main
    assert_contains(
        &object_error(&b),
        &["symbol 3 `helper` has value 0x1000, past the end of section .text.main"],
    );
}
