//! The disassembler's listing: one bundle per line with its address, relocations
//! and pc-relative targets in comments, labels, illegal words, and the other views.

use vliw_asm::{DisasmOptions, assemble, disassemble_executable, disassemble_object, objdump_file};
use vliw_elf::{
    Binding, ExecSection, ExecSymbol, Executable, SectionKind, Segment, SegmentFlags, SymbolKind,
};
use vliw_isa::{MachineConfig, NOP_BUNDLE, encode_bundle, parse_inst};

fn options() -> DisasmOptions {
    DisasmOptions {
        disassemble: true,
        ..Default::default()
    }
}

fn lines(text: &str) -> Vec<&str> {
    text.lines().collect()
}

const SOURCE: &str = "
    .globl main
main:
    add r3 = r4, r5 ; cmp.lt p1, p2 = r3, 9 ;;
loop:
    movi r3 = foo+8 ; movi r4 = long table ;;
    (p1) br loop ; movi r5 = 1 ;;
    call ext ;;
    .data
table: .quad 0, main
";

#[test]
fn object_listing() {
    let object = assemble(SOURCE, "l.s", &MachineConfig::default()).unwrap();
    let text = disassemble_object(&object, &options());
    let expected = [
        "Disassembly of section .text:",
        "",
        "0000000000000000 <main>:",
        "       0:  add r3 = r4, r5 ; cmp.lt p1, p2 = r3, 9 ;;",
        "",
        "0000000000000010 <loop>:",
        "      10:  movi r3 = foo+8 ; movi r4 = long .data ;;  # R_VLIW_IMM32 foo+8  # R_VLIW_IMM64 .data",
        "      28:  (p1) br .-24 ; movi r5 = 1 ;;  # 0x10 <loop>",
        "      38:  call ext ;;  # R_VLIW_BRANCH32 ext",
    ];
    assert_eq!(lines(&text)[..expected.len()], expected, "{text}");
}

#[test]
fn other_views() {
    let object = assemble(SOURCE, "l.s", &MachineConfig::default()).unwrap();
    let all = DisasmOptions {
        relocs: true,
        syms: true,
        headers: true,
        full_contents: true,
        ..Default::default()
    };
    let text = disassemble_object(&object, &all);
    for expected in [
        "Idx Name                 Size     Align  Kind        Flags",
        "  0 .text                00000040 8      text        alloc, exec, contents, relocs",
        "  1 .data                00000010 1      data        alloc, write, contents, relocs",
        "SYMBOL TABLE:",
        "0000000000000000 g   .text            0000000000000000 main",
        "0000000000000000 l d .data            0000000000000000 .data",
        "0000000000000000 g   *UND*            0000000000000000 ext",
        "RELOCATION RECORDS FOR [.text]:",
        "0000000000000010 R_VLIW_IMM32         foo+0x8",
        "RELOCATION RECORDS FOR [.data]:",
        "0000000000000008 R_VLIW_ABS64         main",
        "Contents of section .data:",
        " 0000 00000000 00000000 00000000 00000000  ................",
    ] {
        assert!(
            text.lines().any(|l| l == expected),
            "missing line `{expected}` in:\n{text}"
        );
    }
}

#[test]
fn illegal_words_and_raw_syllables() {
    let object = assemble(
        ".quad 0\n.quad 0x8040000000000001\nnop ;;\n",
        "i.s",
        &MachineConfig::default(),
    )
    .unwrap();
    let text = disassemble_object(
        &object,
        &DisasmOptions {
            show_raw: true,
            ..options()
        },
    );
    let l = lines(&text);
    assert_eq!(
        l[1], "       0:  .quad 0x0000000000000000  # illegal: illegal opcode 0x0",
        "{text}"
    );
    assert!(
        l[2].starts_with("       8:  .quad 0x8040000000000001  # illegal: reserved bits"),
        "{text}"
    );
    assert_eq!(
        l[3],
        format!("      10:  {NOP_BUNDLE:016x}  nop ;;"),
        "{text}"
    );
}

fn words(bundles: &[&[&str]]) -> Vec<u8> {
    let mut out = Vec::new();
    for b in bundles {
        let insts: Vec<_> = b.iter().map(|t| parse_inst(t).unwrap().inst).collect();
        encode_bundle(&insts, &mut out).unwrap();
    }
    out.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn executable_listing_names_branch_targets() {
    let mut code = vec![0u8; 0x40];
    for chunk in code.chunks_mut(8) {
        chunk.copy_from_slice(&NOP_BUNDLE.to_le_bytes());
    }
    code.extend(words(&[
        &["br .+64"],
        &["addpc r3 = .+0x1000", "movi r4 = 1"],
        &["syscall 0"],
    ]));
    for _ in 0..5 {
        code.extend_from_slice(&NOP_BUNDLE.to_le_bytes());
    }
    let size = code.len() as u64;
    let exe = Executable {
        entry: 0x10040,
        segments: vec![Segment {
            vaddr: 0x10000,
            mem_size: size,
            data: code,
            flags: SegmentFlags::RX,
        }],
        sections: vec![ExecSection {
            name: ".text".into(),
            addr: 0x10000,
            size,
            kind: SectionKind::Text,
        }],
        symbols: vec![
            ExecSymbol {
                name: "_start".into(),
                addr: 0x10040,
                size: 0x20,
                kind: SymbolKind::Func,
                binding: Binding::Global,
            },
            ExecSymbol {
                name: "loop".into(),
                addr: 0x10070,
                size: 0,
                kind: SymbolKind::NoType,
                binding: Binding::Local,
            },
        ],
        non_alloc_sections: Vec::new(),
        tls: None,
    };
    let text = disassemble_executable(&exe, &options());
    for expected in [
        "0000000000010040 <_start>:",
        "   10040:  br .+64 ;;  # 0x10080 <loop+0x10>",
        "   10048:  addpc r3 = .+4096 ; movi r4 = 1 ;;  # 0x11048 <loop+0xfd8>",
        "   10080:  nop ;;",
        "0000000000010070 <loop>:",
        "   10070:  nop ;;",
    ] {
        assert!(
            text.lines().any(|l| l == expected),
            "missing line `{expected}` in:\n{text}"
        );
    }
    let headers = disassemble_executable(
        &exe,
        &DisasmOptions {
            headers: true,
            syms: true,
            ..Default::default()
        },
    );
    assert!(
        headers.contains("start address 0x0000000000010040"),
        "{headers}"
    );
    assert!(
        headers
            .contains("LOAD vaddr 0x0000000000010000 memsz 0x00000088 filesz 0x00000088 flags r-x"),
        "{headers}"
    );
    assert!(
        headers.contains("0000000000010040 g F .text            0000000000000020 _start"),
        "{headers}"
    );
    // Through the file-level entry point, an executable is recognized by its header.
    let bytes = vliw_elf::write_executable(&exe);
    let text = objdump_file(&bytes, "prog", &options()).unwrap();
    assert!(
        text.contains("prog:     file format elf64-vliw (executable)"),
        "{text}"
    );
    assert!(
        objdump_file(
            &bytes,
            "prog",
            &DisasmOptions {
                reassemble: true,
                ..Default::default()
            }
        )
        .is_err()
    );
}

#[test]
fn objdump_file_names_what_is_wrong() {
    let e = objdump_file(b"hello", "notes.txt", &options()).unwrap_err();
    assert_eq!(e, "notes.txt: not an ELF file (bad magic)");
    let object = assemble(SOURCE, "l.s", &MachineConfig::default()).unwrap();
    let bytes = vliw_elf::write_object(&object);
    let e = objdump_file(&bytes[..40], "cut.o", &options()).unwrap_err();
    assert!(e.starts_with("cut.o: truncated"), "{e}");
    let text = objdump_file(&bytes, "l.o", &options()).unwrap();
    assert!(
        text.starts_with("\nl.o:     file format elf64-vliw\n"),
        "{text}"
    );
    let reassembly = objdump_file(
        &bytes,
        "l.o",
        &DisasmOptions {
            reassemble: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(
        !reassembly.contains("l.o"),
        "the reassembly must not depend on the file name"
    );
}

#[path = "../../elf/tests/support/dwarf.rs"]
mod dwarf;

const WITH_LINES: &str = "
    .globl f, g
    .section .text.f, \"ax\"
f:
    movi r3 = 1 ;;
    movi r4 = 2 ;;
    add r3 = r3, r4 ;;
    ret ;;
    .section .text.g, \"ax\"
g:
    movi r3 = 7 ;;
    ret ;;
";

/// An object with line tables for its two functions: f has two rows on line 3
/// (columns 5 and 9), one on line 4; g one on line 30 of another file, then a row
/// without a line.
fn object_with_lines() -> vliw_elf::Object {
    let mut object = assemble(WITH_LINES, "l.s", &MachineConfig::default()).unwrap();
    let f = object.section_by_name(".text.f").unwrap();
    let g = object.section_by_name(".text.g").unwrap();
    dwarf::add_line_tables(
        &mut object,
        4,
        &[
            (
                f,
                32,
                vec![
                    (0, "src/f.rs", 3, 5),
                    (8, "src/f.rs", 3, 9),
                    (16, "src/f.rs", 4, 1),
                ],
            ),
            (g, 16, vec![(0, "src/g.rs", 30, 2), (8, "src/g.rs", 0, 0)]),
        ],
    );
    object
}

#[test]
fn source_lines_before_the_bundles_of_each_line() {
    let object = object_with_lines();
    let bytes = vliw_elf::write_object(&object);
    let text = objdump_file(&bytes, "l.o", &options()).unwrap();
    let code: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Disassembly of section .text.f"))
        .collect();
    let expected = [
        "Disassembly of section .text.f:",
        "",
        "0000000000000000 <f>:",
        "           # src/f.rs:3",
        "       0:  movi r3 = 1 ;;",
        "       8:  movi r4 = 2 ;;",
        "           # src/f.rs:4",
        "      10:  add r3 = r3, r4 ;;",
        "      18:  ret ;;",
        "",
        "Disassembly of section .text.g:",
        "",
        "0000000000000000 <g>:",
        "           # src/g.rs:30",
        "       0:  movi r3 = 7 ;;",
        "       8:  ret ;;",
    ];
    assert_eq!(code[..expected.len()], expected, "{text}");
    // --no-line-numbers
    let plain = objdump_file(
        &bytes,
        "l.o",
        &DisasmOptions {
            no_line_numbers: true,
            ..options()
        },
    )
    .unwrap();
    assert!(!plain.contains("# src/"), "{plain}");
    // Other views and the reassembly do not change.
    let relocs = objdump_file(
        &bytes,
        "l.o",
        &DisasmOptions {
            relocs: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(!relocs.contains("# src/"), "{relocs}");
}

#[test]
fn source_lines_in_executables() {
    let code = words(&[
        &["movi r3 = 1"],
        &["movi r4 = 2"],
        &["add r3 = r3, r4"],
        &["ret"],
    ]);
    let size = code.len() as u64;
    let mut exe = Executable {
        entry: 0x10000,
        segments: vec![Segment {
            vaddr: 0x10000,
            mem_size: size,
            data: code,
            flags: SegmentFlags::RX,
        }],
        sections: vec![ExecSection {
            name: ".text".into(),
            addr: 0x10000,
            size,
            kind: SectionKind::Text,
        }],
        symbols: vec![ExecSymbol {
            name: "f".into(),
            addr: 0x10000,
            size,
            kind: SymbolKind::Func,
            binding: Binding::Global,
        }],
        non_alloc_sections: Vec::new(),
        tls: None,
    };
    let seqs = [dwarf::Seq {
        start: dwarf::Address::Constant(0x10008),
        size: 0x18,
        rows: vec![
            (0, "src/main.rs", 12, 5),
            (8, "/abs/lib.rs", 40, 1),
            (0x10, "src/main.rs", 12, 9),
        ],
    }];
    for (name, (data, _)) in dwarf::write_dwarf(5, &seqs) {
        if !data.is_empty() {
            exe.non_alloc_sections.push(vliw_elf::NonAllocSection {
                name: name.into(),
                kind: SectionKind::Other,
                data,
            });
        }
    }
    let text = disassemble_executable(&exe, &options());
    let code: Vec<&str> = text.lines().skip_while(|l| !l.contains("<f>:")).collect();
    let expected = [
        "0000000000010000 <f>:",
        "   10000:  movi r3 = 1 ;;",
        "           # src/main.rs:12",
        "   10008:  movi r4 = 2 ;;",
        "           # /abs/lib.rs:40",
        "   10010:  add r3 = r3, r4 ;;",
        "           # src/main.rs:12",
        "   10018:  ret ;;",
    ];
    assert_eq!(code[..expected.len()], expected, "{text}");
}
