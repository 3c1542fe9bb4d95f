//! The assembler on whole files: encoding, symbols, relocations, data, and errors.

use vliw_asm::assemble;
use vliw_elf::{Binding, Object, SectionKind, SymbolDefinition, SymbolKind};
use vliw_isa::{Inst, MachineConfig, NOP_BUNDLE, Opcode, RelocKind, decode_bundle};

fn asm(source: &str) -> Object {
    match assemble(source, "t.s", &MachineConfig::default()) {
        Ok(o) => o,
        Err(errors) => panic!(
            "unexpected errors:\n{}",
            errors
                .iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        ),
    }
}

fn errors(source: &str) -> Vec<String> {
    match assemble(source, "t.s", &MachineConfig::default()) {
        Ok(_) => panic!("expected errors for:\n{source}"),
        Err(errors) => errors.iter().map(|e| e.to_string()).collect(),
    }
}

fn words(object: &Object, section: &str) -> Vec<u64> {
    let s = &object.sections[object.section_by_name(section).expect("section").0];
    s.data
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Bundles of a code section, decoded.
fn bundles(object: &Object, section: &str) -> Vec<Vec<Inst>> {
    let w = words(object, section);
    let mut out = Vec::new();
    let mut at = 0;
    while at < w.len() {
        let (insts, n) = decode_bundle(&w[at..]).expect("decodable");
        out.push(insts);
        at += n;
    }
    out
}

/// (offset, kind, symbol name or `[section]`, addend) of a section's relocations.
fn relocs(object: &Object, section: &str) -> Vec<(u64, RelocKind, String, i64)> {
    let s = &object.sections[object.section_by_name(section).expect("section").0];
    s.relocs
        .iter()
        .map(|r| {
            let sym = object.symbol(r.symbol);
            let name = match (sym.kind, sym.definition) {
                (SymbolKind::Section, SymbolDefinition::Defined { section, .. }) => {
                    format!("[{}]", object.section(section).name)
                }
                _ => sym.name.clone(),
            };
            (r.offset, r.kind, name, r.addend)
        })
        .collect()
}

#[test]
fn bundles_get_stop_bits_on_their_last_syllable() {
    let o = asm("add r3 = r4, r5 ; cmp.lt p1, p2 = r3, 9 ;;\nnop ;;\n");
    let w = words(&o, ".text");
    assert_eq!(w.len(), 3);
    assert_eq!(w[0] >> 63, 0);
    assert_eq!(w[1] >> 63, 1);
    assert_eq!(w[2], NOP_BUNDLE);
    let b = bundles(&o, ".text");
    assert_eq!(b[0][0].opcode, Opcode::Add);
    assert_eq!(b[0][1].opcode, Opcode::CmpLtI);
    assert_eq!(b[0][1].imm, 9);
}

#[test]
fn operations_may_span_lines_until_the_bundle_ends() {
    let o = asm("  movi r3 = 1\n  movi r4 = 2 ;\n  movi r5 = 3 ;;\n");
    assert_eq!(
        bundles(&o, ".text"),
        vec![vec![
            vliw_isa::parse_inst("movi r3 = 1").unwrap().inst,
            vliw_isa::parse_inst("movi r4 = 2").unwrap().inst,
            vliw_isa::parse_inst("movi r5 = 3").unwrap().inst,
        ]]
    );
}

#[test]
fn large_numbers_get_a_limm_and_long_forces_one() {
    let o = asm("movi r1 = 0x123456789 ;;\nmovi r2 = long 5 ;;\nmovi r3 = 5 ;;\n");
    assert_eq!(words(&o, ".text").len(), 5);
    let b = bundles(&o, ".text");
    assert_eq!((b[0][0].imm, b[0][0].long), (0x1_2345_6789, true));
    assert_eq!((b[1][0].imm, b[1][0].long), (5, true));
    assert!(!b[2][0].long);
}

#[test]
fn explicit_limm_folds_into_the_next_operation() {
    let explicit = asm("limm 1 ; movi r1 = 2 ;;\n");
    let long = asm("movi r1 = long 0x100000002 ;;\n");
    assert_eq!(words(&explicit, ".text"), words(&long, ".text"));
    assert!(errors("limm 1 ;;\n")[0].contains("end of its bundle"));
    assert!(errors("limm 1 ; mov r1 = r2 ;;\n")[0].contains("extendable"));
}

#[test]
fn symbolic_operands_become_relocations() {
    let o = asm("
        .text
        .globl f
    f:  movi r3 = data_label + 8 ;;
        movi r4 = long ext ;;
        ld.d r5 = [r3 + ext - 16] ;;
        call ext ;;
        addpc r6 = data_label ;;
        br f ;;
        .data
    pad: .quad 0
    data_label: .quad 1
    ");
    assert_eq!(
        relocs(&o, ".text"),
        vec![
            (0, RelocKind::Imm32, "[.data]".to_string(), 16),
            (8, RelocKind::Imm64, "ext".to_string(), 0),
            (24, RelocKind::Imm32, "ext".to_string(), -16),
            (32, RelocKind::Branch32, "ext".to_string(), 0),
            (40, RelocKind::Pcrel32, "[.data]".to_string(), 8),
        ]
    );
    // `br f`: a pc-relative reference within the section is resolved.
    let b = bundles(&o, ".text");
    assert_eq!((b[5][0].opcode, b[5][0].imm), (Opcode::Br, -48));
    let ext = &o.symbols[o.symbol_by_name("ext").unwrap().0];
    assert_eq!(
        (ext.binding, ext.definition),
        (Binding::Global, SymbolDefinition::Undefined)
    );
}

#[test]
fn references_to_global_symbols_in_other_sections_name_the_symbol() {
    let o = asm(".text\nmovi r1 = g + 4 ;;\n.data\n.globl g\n.quad 0\ng: .quad 0\n.quad g\n");
    assert_eq!(
        relocs(&o, ".text"),
        vec![(0, RelocKind::Imm32, "g".to_string(), 4)]
    );
    assert_eq!(
        relocs(&o, ".data"),
        vec![(16, RelocKind::Abs64, "g".to_string(), 0)]
    );
}

#[test]
fn weak_symbols_are_never_resolved_locally() {
    let o = asm(".weak w\nw: nop ;;\nbr w ;;\n");
    assert_eq!(
        relocs(&o, ".text"),
        vec![(8, RelocKind::Branch32, "w".to_string(), 0)]
    );
    let w = &o.symbols[o.symbol_by_name("w").unwrap().0];
    assert_eq!(w.binding, Binding::Weak);
}

#[test]
fn set_constants_are_numbers() {
    let o = asm(
        ".set BIG, 0x100000000\n.equ SMALL, 12\nmovi r1 = BIG ;;\nmovi r2 = SMALL + 1 ;;\nmovi r3 = LATER ;;\n.set LATER, 7\n",
    );
    let b = bundles(&o, ".text");
    assert_eq!((b[0][0].imm, b[0][0].long), (0x1_0000_0000, true));
    assert_eq!(b[1][0].imm, 13);
    assert_eq!(b[2][0].imm, 7, "a constant defined later is patched in");
    assert!(relocs(&o, ".text").is_empty());
    let big = &o.symbols[o.symbol_by_name("BIG").unwrap().0];
    assert_eq!(big.definition, SymbolDefinition::Absolute(0x1_0000_0000));
    assert!(errors("movi r1 = LATER ;;\n.set LATER, 0x100000000\n")[0].contains("write `long`"));
}

#[test]
fn data_directives() {
    let o = asm(r#"
        .data
    a:  .byte 1, -1, 255
        .short 0x1234
        .2byte -2
        .word 0xdeadbeef
        .long -1
        .quad 0x0102030405060708
        .ascii "hi\n"
        .asciz "x"
        .string "\x41\101"
        .zero 3
        .space 2, 0x7f
    b:  .byte b - a
    "#);
    let d = &o.sections[o.section_by_name(".data").unwrap().0].data;
    let mut expected = vec![
        1u8, 0xff, 0xff, 0x34, 0x12, 0xfe, 0xff, 0xef, 0xbe, 0xad, 0xde, 0xff, 0xff, 0xff, 0xff,
    ];
    expected.extend_from_slice(&0x0102030405060708u64.to_le_bytes());
    expected.extend_from_slice(b"hi\nx\0AA\0");
    expected.extend_from_slice(&[0, 0, 0, 0x7f, 0x7f]);
    expected.push(expected.len() as u8);
    assert_eq!(d, &expected);
}

#[test]
fn data_relocations() {
    let o = asm("
        .data
    start:
        .quad ext + 8
        .word ext
        .word ext - .
        .word start - .
        .quad .text
        .8byte here
    here:
        .word later - here
    later:
        .text
        nop ;;
    ");
    assert_eq!(
        relocs(&o, ".data"),
        vec![
            (0, RelocKind::Abs64, "ext".to_string(), 8),
            (8, RelocKind::Abs32, "ext".to_string(), 0),
            (12, RelocKind::Pcrel32Data, "ext".to_string(), 0),
            (20, RelocKind::Abs64, "[.text]".to_string(), 0),
            (28, RelocKind::Abs64, "[.data]".to_string(), 36),
        ]
    );
    let d = &o.sections[o.section_by_name(".data").unwrap().0].data;
    assert_eq!(
        &d[16..20],
        &(-16i32).to_le_bytes(),
        "`start - .` within the section is resolved"
    );
    assert_eq!(&d[36..40], &4u32.to_le_bytes());
}

#[test]
fn local_labels_stay_out_of_the_symbol_table() {
    let o = asm(
        ".globl main\nmain:\n.Lloop: nop ;;\nbr .Lloop ;;\nhelper: ret ;;\n.globl .Lvisible\n.Lvisible: ret ;;\n",
    );
    let names: Vec<&str> = o.symbols.iter().map(|s| s.name.as_str()).collect();
    assert!(names.contains(&"main") && names.contains(&"helper") && names.contains(&".Lvisible"));
    assert!(!names.contains(&".Lloop"));
    let helper = &o.symbols[o.symbol_by_name("helper").unwrap().0];
    assert_eq!(helper.binding, Binding::Local);
}

#[test]
fn types_and_sizes() {
    let o = asm("
        .globl f
        .type f, @function
    f:  nop ;;
        ret ;;
        .size f, .-f
        .data
        .type obj, @object
    obj: .quad 1, 2
        .size obj, 16
    ");
    let f = &o.symbols[o.symbol_by_name("f").unwrap().0];
    assert_eq!(
        (f.kind, f.size, f.binding),
        (SymbolKind::Func, 16, Binding::Global)
    );
    let obj = &o.symbols[o.symbol_by_name("obj").unwrap().0];
    assert_eq!((obj.kind, obj.size), (SymbolKind::Object, 16));
}

#[test]
fn sections_and_their_kinds() {
    let o = asm(r#"
        .section .text.hot, "ax", @progbits
        nop ;;
        .section .rodata.cst, "a"
        .byte 1
        .section .bss.buf, "aw", @nobits
        .zero 100
        .section .init_array, "aw", @init_array
        .quad 0
        .section .debug_info
        .byte 0
        .section .data.rel.ro
        .byte 0
        .section .keep, "axR"
        nop ;;
    "#);
    let kind = |n: &str| o.sections[o.section_by_name(n).unwrap().0].kind;
    assert_eq!(kind(".text.hot"), SectionKind::Text);
    assert_eq!(kind(".rodata.cst"), SectionKind::ReadOnlyData);
    assert_eq!(kind(".bss.buf"), SectionKind::Bss);
    assert_eq!(
        o.sections[o.section_by_name(".bss.buf").unwrap().0].size(),
        100
    );
    assert_eq!(kind(".init_array"), SectionKind::InitArray);
    assert_eq!(kind(".debug_info"), SectionKind::Other);
    assert_eq!(kind(".data.rel.ro"), SectionKind::Data);
    assert!(o.sections[o.section_by_name(".keep").unwrap().0].retain);
    assert_eq!(
        o.sections[o.section_by_name(".text.hot").unwrap().0].align,
        8
    );
}

#[test]
fn alignment_pads_code_with_nop_bundles_and_data_with_zeros() {
    let o = asm(
        ".text\nnop ;;\n.p2align 5\nret ;;\n.data\n.byte 1\n.balign 4\n.byte 2\n.align 8, 0xaa\n.byte 3\n",
    );
    let w = words(&o, ".text");
    assert_eq!(w.len(), 5);
    assert!(w[1..4].iter().all(|&x| x == NOP_BUNDLE));
    let text = &o.sections[o.section_by_name(".text").unwrap().0];
    assert_eq!(text.align, 32);
    let data = &o.sections[o.section_by_name(".data").unwrap().0];
    assert_eq!(data.data, vec![1, 0, 0, 0, 2, 0xaa, 0xaa, 0xaa, 3]);
    assert_eq!(data.align, 8);
}

#[test]
fn bundles_are_checked_against_the_machine() {
    let narrow = MachineConfig::from_overrides("width=2").unwrap();
    let e = assemble("nop ; nop ; nop ;;\n", "m.s", &narrow).unwrap_err();
    assert_eq!(e.len(), 1);
    assert!(
        e[0].to_string()
            .starts_with("m.s:1:1: error: bundle has 3 syllables but the issue width is 2"),
        "{}",
        e[0]
    );
    let e = errors("movi r1 = 0x123456789 ; nop ; nop ; nop ;;\n");
    assert!(e[0].contains("5 syllables"), "{e:?}");
    // two branch units: a third control operation is too many
    let e = errors("br x ; ret ; syscall 0 ;;\n");
    assert!(e[0].contains("branch unit"), "{e:?}");
    let one = MachineConfig::from_overrides("branch=1").unwrap();
    let e = assemble("br x ; ret ;;\nx: nop ;;\n", "m.s", &one).unwrap_err();
    assert!(e[0].to_string().contains("branch unit"), "{}", e[0]);
}

#[test]
fn errors_name_file_line_and_column() {
    let e = errors("nop ;;\n  frob r1 = r2 ;;\n");
    assert_eq!(
        e,
        vec!["t.s:2:3: error: unknown mnemonic `frob`".to_string()]
    );
}

#[test]
fn every_error_in_a_file_is_reported() {
    let source = "\
        add r1 = r2 ;;\n\
        .byte 300\n\
        .frob\n\
        x: nop ;;\n\
        x: nop ;;\n\
        movi r1 = . ;;\n\
        br .+4 ;;\n\
        .text\n\
        nop\n\
        y:\n\
        nop\n";
    let e = errors(source);
    let expect = [
        "t.s:1:",
        "t.s:2:",
        "t.s:3:1: error: unknown directive `.frob`",
        "t.s:5:1: error: duplicate label `x`",
        "t.s:6:1: error: `.` is only meaningful",
        "t.s:7:1: error: misaligned branch target",
        "t.s:10:1: error: bundle not closed with ';;' before label `y`",
        "t.s:11:4: error: bundle not closed with ';;' before end of file",
    ];
    assert_eq!(e.len(), expect.len(), "{e:#?}");
    for (got, want) in e.iter().zip(expect) {
        assert!(got.starts_with(want), "got `{got}`, want `{want}...`");
    }
    assert!(e[1].contains("out of range for `.byte`"), "{}", e[1]);
}

#[test]
fn more_errors() {
    let cases: &[(&str, &str)] = &[
        (
            "nop ;\n.data\n",
            "bundle not closed with ';;' before `.data`",
        ),
        (
            "nop ; .quad 1\n",
            "bundle not closed with ';;' before `.quad`",
        ),
        (".data\nnop ;;\n", "not a code section"),
        (".bss\n.byte 1\n", "bss section"),
        (".text\n.byte 1\n", "not a multiple of 8"),
        (".byte 1\nnop ;;\n", "not on an 8-byte boundary"),
        (";;\n", "empty bundle"),
        (".short 70000\n", "out of range for `.short`"),
        (".word 0x100000000\n", "out of range for `.word`"),
        (".byte sym\n", "cannot hold an address"),
        (".quad sym - .\n", "needs 4 bytes"),
        (".quad a * b\n", "absolute"),
        (".data\n.word a - b\n", "neither a constant"),
        (".p2align 99\n", "0..=30"),
        (".balign 3\n", "power of two"),
        (".zero -1\n", "size must be"),
        (".zero later\nlater:\n", "not defined before this line"),
        (".set a, b\n.set b, a\n", "depends on itself"),
        (".size nothing, 4\n", "not defined in this file"),
        (
            ".type f, @gnu_indirect_function\nf: nop ;;\n",
            "unsupported symbol type",
        ),
        (".section .x, \"q\"\n", "unknown section flag"),
        (".ascii abc\n", "string in double quotes"),
        (".ascii \"\\q\"\n", "unknown escape"),
        (".ascii \"abc\n", "unterminated string"),
        (
            "movi r1 = long x ; br long y ;;\n",
            "`long` is only allowed",
        ),
        ("limm sym ; movi r1 = 1 ;;\n", "`limm` takes a number"),
        ("br .+0x100000000 ;;\n", "out of the signed 32-bit range"),
        (".local z\nmovi r1 = z ;;\n", "never defined"),
        (".reloc ., R_VLIW_BOGUS, x\n", "relocation type"),
        ("x = 1\n", "unknown mnemonic"),
        ("nop ;;\n.text foo\n", "takes no arguments"),
        (".globl\n", "symbol name"),
        (".set x, .text + 100\nnop ;;\n", "past the end of `.text`"),
    ];
    for (source, message) in cases {
        let e = errors(source);
        assert!(
            e.iter().any(|x| x.contains(message)),
            "`{source}`: expected `{message}`, got {e:#?}"
        );
    }
}

#[test]
fn reloc_directive_adds_a_relocation_as_written() {
    let o = asm(
        "call .+0 ;;\n.reloc .-8, R_VLIW_BRANCH32, target + 8\n.data\n.quad 5\n.reloc 0, 1, .text\n",
    );
    assert_eq!(
        relocs(&o, ".text"),
        vec![(0, RelocKind::Branch32, "target".to_string(), 8)]
    );
    assert_eq!(
        relocs(&o, ".data"),
        vec![(0, RelocKind::Abs64, "[.text]".to_string(), 0)]
    );
    assert_eq!(
        o.sections[o.section_by_name(".data").unwrap().0].data,
        5u64.to_le_bytes()
    );
}

#[test]
fn the_test_programs_assemble() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests");
    for file in ["asm/lib/print.s", "bench/sim_loop.s"] {
        let path = format!("{root}/{file}");
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let o = assemble(&text, &path, &MachineConfig::default())
            .unwrap_or_else(|e| panic!("{path}: {e:?}"));
        vliw_elf::read_object(&vliw_elf::write_object(&o), &path).expect("the object reads back");
    }
}

#[test]
fn thread_local_sections_symbols_and_tprel() {
    let o = asm(r#"
        .text
        .globl _start
    _start:
        add r4 = r2, counter@tprel ; ld.w r5 = [r2 + counter@tprel+4] ;;
        add r6 = tp, slot@tprel-8 ; movi r7 = ext@tprel ;;
        .section .tdata.counter, "awT", @progbits
        .globl counter
        .type counter, @tls_object
        .p2align 3
    counter: .quad 7
        .size counter, 8
        .section .tbss.slot, "awT", @nobits
        .p2align 4
        .type slot, @tls_object
    slot: .zero 32
        .section .tbss
        .zero 4
        .section .text
        .reloc ., R_VLIW_TPREL32, counter+16
        nop ;;
    "#);
    let section = |n: &str| &o.sections[o.section_by_name(n).unwrap().0];
    assert_eq!(section(".tdata.counter").kind, SectionKind::TlsData);
    assert_eq!(section(".tbss.slot").kind, SectionKind::TlsBss);
    assert_eq!(section(".tbss.slot").size(), 32);
    assert_eq!(section(".tbss").kind, SectionKind::TlsBss, "by its name");
    let sym = |n: &str| &o.symbols[o.symbol_by_name(n).unwrap().0];
    assert_eq!(
        (sym("counter").kind, sym("counter").size),
        (SymbolKind::Tls, 8)
    );
    assert_eq!(sym("slot").kind, SymbolKind::Tls);
    let text = section(".text");
    let relocs: Vec<(u64, RelocKind, i64)> = text
        .relocs
        .iter()
        .map(|r| (r.offset, r.kind, r.addend))
        .collect();
    // `slot` is local: its section symbol with the offset in the addend.
    assert_eq!(
        relocs,
        vec![
            (0, RelocKind::Tprel32, 0),
            (8, RelocKind::Tprel32, 4),
            (16, RelocKind::Tprel32, -8),
            (24, RelocKind::Tprel32, 0),
            (32, RelocKind::Tprel32, 16),
        ]
    );
    assert_eq!(
        bundles(&o, ".text")[0][0].opcode,
        Opcode::AddI,
        "`add r4 = r2, x@tprel` is the immediate form"
    );
}

#[test]
fn tprel_errors() {
    let cases = [
        ("movi r1 = long x@tprel ;;", "there is no 64-bit form"),
        ("br x@tprel ;;", "cannot be the operand of `br`"),
        ("addpc r1 = x@tprel ;;", "cannot be the operand of `addpc`"),
        (
            ".set k, 5\n add r1 = r2, k@tprel ;;",
            "`k` is a constant, not a thread-local variable",
        ),
        (
            "d: nop ;;\n add r1 = r2, d@tprel ;;",
            "`d` is in section `.text`, which is not thread-local",
        ),
        (".section .x, \"aT\"", "must be allocated, writable"),
        (".type x, @tls", "unsupported symbol type `tls`"),
    ];
    for (source, message) in cases {
        let errs = errors(source);
        assert!(
            errs.iter().any(|e| e.contains(message)),
            "`{source}`: {errs:?} should mention `{message}`"
        );
    }
}

#[test]
fn cfi_directives_make_an_eh_frame_read_back_by_gimli() {
    use gimli::{BaseAddresses, CfaRule, Register, RegisterRule, UnwindContext, UnwindSection};
    let o = asm("
        .section .text.a, \"ax\"
    a:
        .cfi_startproc
        .cfi_undefined lr
        nop ;;
        .cfi_endproc
        .section .text.f, \"ax\"
    f:
        .cfi_startproc
        add sp = sp, -32 ;;
        .cfi_def_cfa_offset 32
        st.d [sp + 24] = lr ; movi r3 = 1 ;;
        .cfi_offset lr, -8
        .cfi_offset p12, -16
        .cfi_remember_state
        .cfi_adjust_cfa_offset -32
        ret ;;
        .cfi_restore_state
        nop ;;
        .cfi_endproc
    ");
    // one FDE per procedure, relocated against its section's symbol
    let r = relocs(&o, ".eh_frame");
    assert_eq!(r.len(), 2);
    assert_eq!(
        (r[0].1, r[0].2.as_str(), r[0].3),
        (RelocKind::Abs64, "[.text.a]", 0)
    );
    assert_eq!(
        (r[1].1, r[1].2.as_str(), r[1].3),
        (RelocKind::Abs64, "[.text.f]", 0)
    );
    // place .text.f at 0x2000 as a linker would
    let s = &o.sections[o.section_by_name(".eh_frame").unwrap().0];
    let mut bytes = s.data.clone();
    for (rel, at) in s.relocs.iter().zip([0x1000u64, 0x2000]) {
        let o = rel.offset as usize;
        bytes[o..o + 8].copy_from_slice(&(at + rel.addend as u64).to_le_bytes());
    }
    let eh = gimli::EhFrame::new(&bytes, gimli::LittleEndian);
    let bases = BaseAddresses::default();
    let mut ctx = UnwindContext::new();
    let mut row = |pc: u64| {
        eh.unwind_info_for_address(&bases, &mut ctx, pc, gimli::EhFrame::cie_from_offset)
            .map(|r| r.clone())
    };
    assert_eq!(
        row(0x1000).unwrap().register(Register(63)),
        Some(RegisterRule::Undefined)
    );
    let cfa = |r: &gimli::UnwindTableRow<usize>| match r.cfa() {
        CfaRule::RegisterAndOffset { register, offset } => (register.0, *offset),
        _ => panic!(),
    };
    let at0 = row(0x2000).unwrap();
    assert_eq!(cfa(&at0), (1, 0));
    let at_store = row(0x2008).unwrap();
    assert_eq!(cfa(&at_store), (1, 32));
    assert_eq!(at_store.register(Register(63)), None);
    let at_ret = row(0x2018).unwrap();
    assert_eq!(cfa(&at_ret), (1, 0), "adjusted by -32 before the ret");
    assert_eq!(
        at_ret.register(Register(63)),
        Some(RegisterRule::Offset(-8))
    );
    assert_eq!(
        at_ret.register(Register(76)),
        Some(RegisterRule::Offset(-16))
    );
    let after = row(0x2020).unwrap();
    assert_eq!(cfa(&after), (1, 32), "the remembered state is back");
    assert!(row(0x2028).is_err(), "the FDE ends with .cfi_endproc");
}

#[test]
fn cfi_errors() {
    let one = |src: &str| errors(src).join("\n");
    assert!(one(".cfi_endproc").contains("outside `.cfi_startproc`"));
    assert!(one(".cfi_startproc\n.cfi_startproc\n.cfi_endproc").contains("inside the procedure"));
    assert!(one(".cfi_startproc").contains("without `.cfi_endproc`"));
    assert!(one(".cfi_startproc\n.cfi_offset r3, 4\n.cfi_endproc").contains("not a multiple of 8"));
    assert!(one(".cfi_startproc\n.cfi_def_cfa sp, -16\n.cfi_endproc").contains("0 or more"));
    assert!(
        one(".cfi_startproc\n.cfi_restore_state\n.cfi_endproc")
            .contains("without a remembered state")
    );
    assert!(
        one(".cfi_startproc\n.cfi_offset r80x, 8\n.cfi_endproc").contains("expected a register")
    );
    assert!(
        one(".cfi_startproc\n.cfi_lsda 0, x\n.cfi_endproc").contains("unsupported CFI directive")
    );
    assert!(
        one(".text\n.cfi_startproc\n.data\n.cfi_endproc\n.text\n.cfi_endproc")
            .contains("in another section")
    );
    // accepted and ignored
    asm(".cfi_sections .debug_frame");
}
