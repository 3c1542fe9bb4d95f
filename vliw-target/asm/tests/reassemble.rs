//! `--reassemble` round trips: assemble, print as source, assemble again, and get the
//! same section bytes, relocations and symbols; for every opcode of the machine in
//! several operand variants, for a larger mixed file, and for objects that were not
//! written by this assembler.

use proptest::prelude::*;
use vliw_asm::{DisasmOptions, assemble, disassemble_object, reassemble};
use vliw_elf::{
    Binding, Object, Reloc, Section, SectionId, SectionKind, Symbol, SymbolDefinition, SymbolId,
    SymbolKind,
};
use vliw_isa::{
    CmpType, FieldKind, Format, Gpr, Guard, ImmExpr, Inst, MachineConfig, NOP_BUNDLE, OPCODES,
    Opcode, Pred, RelocKind, format_inst,
};

fn asm(source: &str) -> Object {
    assemble(source, "t.s", &MachineConfig::default()).unwrap_or_else(|errors| {
        let list: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        panic!("errors:\n{}\nin:\n{source}", list.join("\n"))
    })
}

/// A relocation with its symbol described by name: section symbols by their section,
/// and local symbols as their section plus their offset (the assembler writes a
/// reference to a local symbol that way, as GNU as does).
fn reloc_view(object: &Object, r: &Reloc) -> (u64, RelocKind, String, i64) {
    let sym = object.symbol(r.symbol);
    match (sym.kind, sym.binding, sym.definition) {
        (SymbolKind::Section, _, SymbolDefinition::Defined { section, .. }) => (
            r.offset,
            r.kind,
            format!("[{}]", object.section(section).name),
            r.addend,
        ),
        (_, Binding::Local, SymbolDefinition::Defined { section, value }) => (
            r.offset,
            r.kind,
            format!("[{}]", object.section(section).name),
            r.addend + value as i64,
        ),
        _ => (r.offset, r.kind, sym.name.clone(), r.addend),
    }
}

type SymbolView = (String, Binding, SymbolKind, String, u64);

fn symbols_view(object: &Object) -> Vec<SymbolView> {
    let mut v: Vec<SymbolView> = object
        .symbols
        .iter()
        .filter(|s| s.kind != SymbolKind::Section && s.kind != SymbolKind::File)
        .map(|s| {
            let def = match s.definition {
                SymbolDefinition::Undefined => "undef".to_string(),
                SymbolDefinition::Absolute(v) => format!("abs {v:#x}"),
                SymbolDefinition::Defined { section, value } => {
                    format!("{}+{value:#x}", object.section(section).name)
                }
            };
            (s.name.clone(), s.binding, s.kind, def, s.size)
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// Sections (name, kind, align, bytes, size, retain) and their relocations.
type SectionView = (
    String,
    SectionKind,
    u64,
    Vec<u8>,
    u64,
    bool,
    Vec<(u64, RelocKind, String, i64)>,
);

fn sections_view(object: &Object) -> Vec<SectionView> {
    object
        .sections
        .iter()
        .map(|s| {
            let mut relocs: Vec<_> = s.relocs.iter().map(|r| reloc_view(object, r)).collect();
            relocs.sort_by_key(|r| (r.0, r.1 as u32, r.2.clone(), r.3));
            (
                s.name.clone(),
                s.kind,
                s.align,
                s.data.clone(),
                s.size(),
                s.retain,
                relocs,
            )
        })
        .collect()
}

/// Reassembles `object`, assembles the text, and checks that everything came back;
/// the reassembly of the result is the same text. Returns the text.
fn round_trip(object: &Object) -> String {
    let text = reassemble(object, &MachineConfig::default());
    let again = assemble(&text, "rt.s", &MachineConfig::default()).unwrap_or_else(|errors| {
        let list: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        panic!(
            "reassembly does not assemble:\n{}\n--- text:\n{text}",
            list.join("\n")
        )
    });
    assert_eq!(
        sections_view(&again),
        sections_view(object),
        "sections differ; text:\n{text}"
    );
    assert_eq!(
        symbols_view(&again),
        symbols_view(object),
        "symbols differ; text:\n{text}"
    );
    assert_eq!(
        reassemble(&again, &MachineConfig::default()),
        text,
        "the reassembly is not a fixed point"
    );
    text
}

/// An operation of `opcode` with every operand field set to a distinct register.
fn base_inst(opcode: Opcode) -> Inst {
    let mut inst = Inst::new(opcode);
    let format = opcode.format();
    let gpr = |n| Gpr::new(n).unwrap();
    let pred = |n| Pred::new(n).unwrap();
    for field in format.fields() {
        match field.kind {
            FieldKind::Rd => inst.rd = gpr(3),
            FieldKind::Rs1 => inst.rs1 = gpr(40),
            FieldKind::Rs2 => inst.rs2 = gpr(5),
            FieldKind::Rs3 => inst.rs3 = gpr(63),
            FieldKind::Pd1 => inst.pd1 = pred(1),
            FieldKind::Pd2 => inst.pd2 = pred(15),
            FieldKind::Ps1 => inst.ps1 = pred(7),
            FieldKind::Ps2 => inst.ps2 = pred(0),
            FieldKind::CmpType => inst.ctype = CmpType::OrAndcm,
            FieldKind::Imm => inst.imm = if format.is_pc_relative() { -24 } else { -7 },
        }
    }
    inst
}

/// The operation variants the every-opcode test assembles for `opcode`, as text.
fn variants(opcode: Opcode) -> Vec<String> {
    let format = opcode.format();
    let base = base_inst(opcode);
    if opcode == Opcode::Limm {
        // `limm` is written before the operation it extends.
        return vec![
            "limm 0x12345678 ; movi r3 = 5".to_string(),
            "limm 0xffffffff ; add r1 = r2, -1".to_string(),
        ];
    }
    if opcode == Opcode::NopN {
        // cycles 1..=max-nop, unguarded, at most one per bundle
        return vec![
            "nop 2".to_string(),
            "nop 8".to_string(),
            "add r1 = r2, r3 ; nop 4 ; ld.d r5 = [r6 + 8]".to_string(),
        ];
    }
    let mut out = vec![format_inst(&base, None)];
    let mut guarded = base;
    guarded.guard = Guard::new(Pred::new(5).unwrap(), true);
    out.push(format_inst(&guarded, None));
    guarded.guard = Guard::new(Pred::new(9).unwrap(), false);
    out.push(format_inst(&guarded, None));
    if format.has(FieldKind::CmpType) {
        for ctype in CmpType::ALL {
            let mut c = base;
            c.ctype = ctype;
            out.push(format_inst(&c, None));
        }
    }
    if format.has(FieldKind::Imm) {
        let mut i = base;
        i.imm = if format.is_pc_relative() {
            0x7fff_fff8
        } else {
            0x7fff_ffff
        };
        out.push(format_inst(&i, None));
        i.imm = i32::MIN as i64;
        out.push(format_inst(&i, None));
        i.imm = 0;
        // A symbol in another section, an undefined one, and (pc-relative) a label
        // of this section.
        out.push(format_inst(
            &i,
            Some(&ImmExpr::Sym {
                name: "data_label".into(),
                addend: 16,
            }),
        ));
        out.push(format_inst(
            &i,
            Some(&ImmExpr::Sym {
                name: "ext".into(),
                addend: -8,
            }),
        ));
        // A symbol named like a register must be quoted.
        out.push(format_inst(
            &guarded,
            Some(&ImmExpr::Sym {
                name: "r5".into(),
                addend: 0,
            }),
        ));
        if format.is_pc_relative() {
            out.push(format_inst(
                &i,
                Some(&ImmExpr::Sym {
                    name: "code_label".into(),
                    addend: 0,
                }),
            ));
            out.push(format_inst(
                &i,
                Some(&ImmExpr::Sym {
                    name: "weak_label".into(),
                    addend: 8,
                }),
            ));
        }
        if format.is_extendable() {
            let mut l = base;
            l.imm = 0x1234_5678_9abc_def0;
            out.push(format_inst(&l, None));
            l.imm = -2;
            l.long = true;
            out.push(format_inst(&l, None));
            l.imm = 0;
            out.push(format_inst(
                &l,
                Some(&ImmExpr::Sym {
                    name: "data_label".into(),
                    addend: 4,
                }),
            ));
            out.push(format_inst(
                &l,
                Some(&ImmExpr::Sym {
                    name: "ext".into(),
                    addend: 0,
                }),
            ));
            out.push(format!(
                "{} ; nop",
                format_inst(
                    &l,
                    Some(&ImmExpr::Sym {
                        name: "code_label".into(),
                        addend: 0
                    })
                )
            ));
        }
    }
    out
}

#[test]
fn every_opcode_round_trips_in_every_operand_variant() {
    let mut count = 0;
    for info in OPCODES {
        let mut source = String::from("\t.text\n\t.weak weak_label\ncode_label:\n");
        for v in variants(info.opcode) {
            source.push_str(&format!("\t{v} ;;\n"));
            count += 1;
        }
        source
            .push_str("weak_label:\n\tnop ;;\n\t.data\n\t.quad 0, 0, 0\ndata_label:\n\t.quad 1\n");
        let object = asm(&source);
        let text = round_trip(&object);
        if info.opcode != Opcode::Limm {
            assert!(
                text.contains(info.mnemonic),
                "{} missing from:\n{text}",
                info.mnemonic
            );
        }
    }
    assert!(count > 5 * OPCODES.len(), "only {count} variants");
}

#[test]
fn symbolic_operands_print_as_symbols() {
    let object = asm(
        "f: movi r3 = long data_label+4 ;;\nbr f ;;\ncall ext ;;\nld.d r1 = [r2 + .data+8] ;;\nmovi r2 = .data ;;\n.data\n.quad 0\ndata_label: .quad 0\n",
    );
    let text = round_trip(&object);
    for expected in [
        "movi r3 = long data_label+4 ;;",
        "br f ;;",
        "call ext ;;",
        "ld.d r1 = [r2 + data_label] ;;",
        "movi r2 = .data ;;",
    ] {
        assert!(text.contains(expected), "`{expected}` not in:\n{text}");
    }
}

const MIXED: &str = r#"
    # A bit of everything the assembler knows.
    .set BUFSIZE, 256
    .equ TOP, 0x7fff00000000
    .globl _start, table, counter
    .weak maybe
    .type _start, @function
    .type table, @object
    .text
_start:
    movi r3 = BUFSIZE ; movi r4 = TOP ; addpc r5 = message ;;
    ld.d r6 = [r5 + table] ; (p1) call helper ; movi r7 = long counter+8 ;;
    cmp.lt.unc p1, p2 = r3, 10 ; add r3 = r3, -1 ;;
.Lloop:
    (p1) br .Lloop ; sub r3 = r3, 1 ;;
    call maybe ;;
    movi r8 = end_of_text ;;
    syscall 0 ;;
    .size _start, . - _start
    .p2align 5
helper:
    ret ;;
end_of_text:

    .section .text.cold, "ax", @progbits
cold:
    br _start ;;
    movi r1 = 0x123456789abcdef ;;

    .rodata
message:
    .asciz "hello, world\n"
    .p2align 3
table:
    .quad _start, helper + 8, message, extern_thing - 16
    .4byte table - .
    .4byte extern_thing - .
    .word 0xdeadbeef, -1
    .2byte 0x1234
    .byte 1, 2, 3
    .size table, . - table

    .data
counter:
    .quad 0
    .zero 24, 0xff
ptr:
    .quad counter

    .bss
    .p2align 4
buffer:
    .zero BUFSIZE
after_buffer:

    .section .init_array, "aw", @init_array
    .quad _start

    .section .debug_info
    .byte 1, 2, 3, 4

    .section .rodata.keep, "aR"
    .byte 9
"#;

#[test]
fn a_mixed_file_round_trips() {
    let object = asm(MIXED);
    let text = round_trip(&object);
    assert!(
        !text.contains(".Lloop"),
        "`.L` labels are not in the object, so not in its reassembly"
    );
    // Spot checks of what the object holds.
    let table = object.symbol(object.symbol_by_name("table").unwrap());
    assert_eq!(
        (table.kind, table.size),
        (SymbolKind::Object, 8 * 4 + 4 + 4 + 8 + 2 + 3)
    );
    let start = object.symbol(object.symbol_by_name("_start").unwrap());
    assert_eq!(start.size, 15 * 8);
}

#[test]
fn thread_local_code_and_data_round_trip() {
    let object = asm(r#"
        .globl _start
    _start:
        add r4 = r2, counter@tprel ; ld.w r5 = [r2 + counter@tprel+4] ;;
        add r6 = r2, slot@tprel+8 ; st.d [r2 + ext@tprel] = r6 ;;
        .reloc ., R_VLIW_TPREL32, counter
        movi r7 = 3 ;;
        .section .tdata.counter, "awT", @progbits
        .globl counter
        .type counter, @tls_object
    counter: .quad _start
        .size counter, 8
        .section .tbss.slot, "awT", @nobits
        .p2align 4
    slot: .zero 24
    "#);
    let text = round_trip(&object);
    for needle in [
        "counter@tprel",
        "counter@tprel+4",
        "ext@tprel",
        ".type counter, @tls_object",
        "\"awT\", @progbits",
        "\"awT\", @nobits",
        ".reloc ., R_VLIW_TPREL32, counter",
    ] {
        assert!(text.contains(needle), "{needle} missing from:\n{text}");
    }
    let listing = disassemble_object(
        &object,
        &DisasmOptions {
            disassemble: true,
            ..DisasmOptions::default()
        },
    );
    assert!(
        listing.contains("add r4 = r2, counter@tprel")
            && listing.contains("# R_VLIW_TPREL32 counter"),
        "{listing}"
    );
}

/// A hand-built object with relocations this assembler would never write the same
/// way: they must come back exactly, through `.reloc` and raw words.
#[test]
fn unusual_relocations_round_trip_exactly() {
    let mut words = Vec::new();
    let op = |text: &str, stop: bool| -> Vec<u64> {
        let inst = vliw_isa::parse_inst(text).unwrap().inst;
        inst.encode(stop).unwrap().words().to_vec()
    };
    words.extend(op("call .+8", true)); // 0: Pcrel32 to a global of the same section
    words.extend(op("movi r1 = 77", true)); // 8: Imm32 with a non-zero field
    words.extend(op("nop", true)); // 16: Imm32 on an operation without immediate
    words.push(0); // 24: an illegal word with Abs64
    words.extend(op("movi r2 = 0", true)); // 32: Imm32 against an absolute symbol
    words.extend(op("br .+0", true)); // 40: Pcrel32 against its own section's symbol
    let mut text = Section::new(
        ".text",
        SectionKind::Text,
        8,
        words.iter().flat_map(|w| w.to_le_bytes()).collect(),
    );
    let mut data = Section::new(".data", SectionKind::Data, 8, vec![0; 32]);
    data.data[8] = 5; // Abs64 over non-zero bytes
    let mut object = Object::new();
    let t = object.add_section(text.clone());
    let d = object.add_section(data.clone());
    let sym = |name: &str, binding, definition| Symbol {
        name: name.into(),
        binding,
        kind: SymbolKind::NoType,
        definition,
        size: 0,
    };
    let text_sym = object.add_symbol(Symbol {
        name: String::new(),
        binding: Binding::Local,
        kind: SymbolKind::Section,
        definition: SymbolDefinition::Defined {
            section: t,
            value: 0,
        },
        size: 0,
    });
    let g = object.add_symbol(sym(
        "g",
        Binding::Global,
        SymbolDefinition::Defined {
            section: t,
            value: 8,
        },
    ));
    let abs = object.add_symbol(sym(
        "ABS",
        Binding::Local,
        SymbolDefinition::Absolute(0x1000),
    ));
    let ext = object.add_symbol(sym("ext", Binding::Global, SymbolDefinition::Undefined));
    let data_sym = object.add_symbol(sym(
        "d",
        Binding::Local,
        SymbolDefinition::Defined {
            section: d,
            value: 4,
        },
    ));
    text.relocs = vec![
        Reloc {
            offset: 0,
            kind: RelocKind::Branch32,
            symbol: g,
            addend: 0,
        },
        Reloc {
            offset: 8,
            kind: RelocKind::Imm32,
            symbol: ext,
            addend: 4,
        },
        Reloc {
            offset: 16,
            kind: RelocKind::Imm32,
            symbol: ext,
            addend: 0,
        },
        Reloc {
            offset: 24,
            kind: RelocKind::Abs64,
            symbol: ext,
            addend: 0,
        },
        Reloc {
            offset: 32,
            kind: RelocKind::Imm32,
            symbol: abs,
            addend: 1,
        },
        Reloc {
            offset: 40,
            kind: RelocKind::Branch32,
            symbol: text_sym,
            addend: 16,
        },
    ];
    data.relocs = vec![
        Reloc {
            offset: 0,
            kind: RelocKind::Abs64,
            symbol: ext,
            addend: 0,
        },
        Reloc {
            offset: 8,
            kind: RelocKind::Abs64,
            symbol: ext,
            addend: 2,
        },
        Reloc {
            offset: 16,
            kind: RelocKind::Pcrel32Data,
            symbol: data_sym,
            addend: 0,
        },
        Reloc {
            offset: 20,
            kind: RelocKind::Imm32,
            symbol: ext,
            addend: 0,
        },
    ];
    object.sections[t.0] = text;
    object.sections[d.0] = data;
    object.check().unwrap();
    let printed = round_trip(&object);
    assert!(printed.contains(".reloc"), "{printed}");
    // The disassembly shows every relocation somewhere.
    let listing = disassemble_object(
        &object,
        &DisasmOptions {
            disassemble: true,
            ..Default::default()
        },
    );
    assert_eq!(listing.matches("R_VLIW_").count(), 6, "{listing}");
}

#[test]
fn bundles_the_machine_rejects_are_kept_as_words() {
    let wide = MachineConfig::from_overrides("width=8,alu=8").unwrap();
    let object = assemble("nop ; nop ; nop ; nop ; nop ; nop ;;\n", "w.s", &wide).unwrap();
    let text = round_trip(&object);
    assert!(
        text.contains("# nop ; nop ; nop ; nop ; nop ; nop ;;"),
        "{text}"
    );
    // For the machine it was written for, it is printed as operations.
    let for_wide = reassemble(&object, &wide);
    assert!(
        for_wide.contains("\tnop ; nop ; nop ; nop ; nop ; nop ;;"),
        "{for_wide}"
    );
}

/// Code sections of random words: whatever decodes, and whatever does not.
fn random_code() -> impl Strategy<Value = Vec<u64>> {
    let word = prop_oneof![
        any::<u64>(),
        Just(NOP_BUNDLE),
        // Words with a legal opcode field, so that some decode.
        (any::<u64>(), 1u64..=OPCODES.len() as u64, any::<bool>()).prop_map(|(w, op, stop)| (w
            & ((1 << 49) - 1)
            & !(0x7fff << 32))
            | (op << 54)
            | ((stop as u64) << 63)),
    ];
    prop::collection::vec(word, 0..40)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_code_round_trips(words in random_code()) {
        let mut words = words;
        words.push(NOP_BUNDLE);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut object = Object::new();
        object.add_section(Section::new(".text", SectionKind::Text, 8, bytes));
        let _ = disassemble_object(&object, &DisasmOptions { disassemble: true, full_contents: true, headers: true, syms: true, relocs: true, ..Default::default() });
        round_trip(&object);
    }

    #[test]
    fn random_data_round_trips(bytes in prop::collection::vec(any::<u8>(), 0..200), label_at in 0usize..200) {
        let mut object = Object::new();
        let len = bytes.len();
        let s = object.add_section(Section::new(".rodata", SectionKind::ReadOnlyData, 4, bytes));
        object.add_symbol(Symbol { name: "label".into(), binding: Binding::Global, kind: SymbolKind::Object, definition: SymbolDefinition::Defined { section: s, value: label_at.min(len) as u64 }, size: 3 });
        round_trip(&object);
    }
}

#[test]
fn symbol_ids_do_not_matter() {
    // The same object with its symbols in another order reassembles to the same text.
    let object = asm(MIXED);
    let mut shuffled = object.clone();
    let n = shuffled.symbols.len();
    let order: Vec<usize> = (0..n).rev().collect();
    shuffled.symbols = order.iter().map(|&i| object.symbols[i].clone()).collect();
    let new_id = |old: SymbolId| SymbolId(order.iter().position(|&i| i == old.0).unwrap());
    for s in &mut shuffled.sections {
        for r in &mut s.relocs {
            r.symbol = new_id(r.symbol);
        }
    }
    assert_eq!(
        reassemble(&shuffled, &MachineConfig::default()),
        reassemble(&object, &MachineConfig::default())
    );
    let _ = SectionId(0);
    let _ = Format::None;
}
