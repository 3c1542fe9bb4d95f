//! The text form (round trips of hand-written functions, parse errors) and the
//! verifier (a function breaking each rule, and the error it gets).

use super::*;
use cranelift_entity::EntityRef;
use vliw_isa::{CmpType, MachineConfig, Opcode};

/// Parses `text`, checks that printing gives `text` back, and returns the function.
fn round_trip(text: &str) -> MachFunction {
    let f = MachFunction::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(f.to_string(), text);
    let again = MachFunction::parse(&f.to_string()).unwrap();
    f.same_as(&again).unwrap();
    f
}

const SSA: &str = "\
machine function @\"psi and friends\" export {
    file0 = \"src/lib.rs\"
    file1 = \"a \\\"quoted\\\" name\"
    outgoing 2 words
    fs0 = 16 bytes, align 8 (ir ss3)
    fs1 = 8 bytes, align 8 (spill pv9)
    fs2 = 4 bytes, align 4 (temp)
    jt0 = [block2, block3, block2]
block0:
    [0:3:9] v0 = copy r3
    pv1, p0 = cmp.lt.unc v0, 10
    (pv1) v2 = add v0, 1
    (!pv1) v3 = add v0, -1
    v4 = psi pv1: v2, !pv1: v3
    v5 = ld.d [r1 + fs0+8]
    st.w [r1 + fs2] = v4
    v6 = movi long @data+16
    v7 = add r2, @tls@tprel
    v8 = add r2, @tls@tprel-8
    v10 = ld.d [r1 + incoming+16]
    st.d [r1 + incoming-8] = v10
    v11 = movi long
    v12, v13 = parallel_copy v5, v6
    v14 = addpc jt0
    [1:4:2] (pv1) br block1
    br block4(v12, pv1)
block4(v15, pv16):
    jr v14, jt0
block1:
    call @\"callee.with spaces\" uses[r3 r4] clobbers[r3-r31 r63 p1-p11]
    ret uses[r3]
block2:
    trap 3
block3:
    v17 = AddI v0, v0, 5
    pv18, p0 = CmpLt.and v0, 5
    ret
}
";

#[test]
fn ssa_text_round_trips_with_every_feature() {
    let f = round_trip(SSA);
    assert_eq!(f.name, "psi and friends");
    assert_eq!(f.files, ["src/lib.rs", "a \"quoted\" name"]);
    assert_eq!(f.outgoing_words, 2);
    assert_eq!(f.slots.len(), 3);
    assert_eq!(
        f.slots[FrameSlot::new(1)].kind,
        FrameSlotKind::Spill(VReg::new(9))
    );
    assert_eq!(f.vregs[VReg::new(9)], RegClass::Pred);
    let b0 = f.layout[0];
    let psi = f.inst_at(b0, 4);
    assert_eq!(psi.op, MOp::Psi);
    assert_eq!(
        psi.psi_guards[1],
        MGuard::new(Reg::Virtual(VReg::new(1)), true)
    );
    assert_eq!(f.inst_at(b0, 1).ctype, CmpType::Unc);
    assert_eq!(
        f.inst_at(b0, 2).guard,
        MGuard::new(VReg::new(1).into(), false)
    );
    let movi = f.inst_at(b0, 7);
    assert!(movi.long);
    assert_eq!(
        movi.imm,
        Imm::Symbol {
            name: "data".into(),
            addend: 16
        }
    );
    assert_eq!(
        f.inst_at(b0, 9).imm,
        Imm::TpRel {
            name: "tls".into(),
            addend: -8
        }
    );
    assert_eq!(f.inst_at(b0, 10).imm, Imm::IncomingArg(16));
    assert!(f.inst_at(b0, 12).long && f.inst_at(b0, 12).imm == Imm::None);
    assert_eq!(f.inst_at(b0, 0).loc, vliw_ir::SourceLoc::new(0, 3, 9));
    let call = f.inst_at(f.layout[2], 0);
    assert_eq!(call.implicit_defs.len(), 29 + 1 + 11);
    assert_eq!(call.implicit_uses, [PReg::gpr(3), PReg::gpr(4)]);
    // an opcode whose mnemonic would read back as another keeps its name
    let b3 = f.layout[4];
    assert_eq!(f.inst_at(b3, 0).op, MOp::Op(Opcode::AddI));
    assert_eq!(f.inst_at(b3, 1).op, MOp::Op(Opcode::CmpLt));
    assert_eq!(f.inst_at(b3, 1).ctype, CmpType::And);
    assert_eq!(f.inst_at(b3, 1).defs.len(), 2);
    assert_eq!(f.layout.len(), 5);
    assert_eq!(f.blocks[f.layout[1]].params.len(), 2);
}

const ALLOCATED: &str = "\
machine function @g {
    fs0 = 8 bytes, align 64 (temp)
    frame 128 bytes, align 64, realigned, outgoing 16 bytes, saves [r63: 80, r62: 88, p12: 96], slots [fs0: 64]
block0:
    r11 = mov r1 ;;
    r1 = add r1, -128 ; r3 = movi 1 ;;
    nop ;;
    (p2) br block1 ;;
block1:
    r4 = ld.d [r1 + 64] ; r5 = movi long 1099511627776 ;;
    ret uses[r3] ;;
}
";

#[test]
fn bundled_text_round_trips() {
    let f = round_trip(ALLOCATED);
    let frame = f.frame.as_ref().unwrap();
    assert!(frame.realigned);
    assert_eq!(frame.saves[2], (PReg::pred(12), 96));
    assert_eq!(frame.slot_offsets, [64]);
    let bundles = f.bundles.as_ref().unwrap();
    assert_eq!(bundles.lens(f.layout[0]), [1, 2, 1, 1]);
    assert_eq!(bundles.lens(f.layout[1]), [2, 1]);
    f.verify(Phase::Bundled).unwrap();
}

#[test]
fn parsing_a_dump_skips_comment_lines_and_reads_every_function() {
    let text = format!("; dump=isel\n{SSA}; dump=final\n{ALLOCATED}");
    let fs = parse_machine_functions(&text).unwrap();
    assert_eq!(fs.len(), 2);
    assert!(parse_machine_function(&text).is_err());
}

/// The error of parsing `text`: its line, and a part of its message.
fn parse_error(text: &str, line: usize, message: &str) {
    match MachFunction::parse(text) {
        Ok(f) => panic!("parsed:\n{f}"),
        Err(e) => {
            assert_eq!(e.line, line, "{e}");
            assert!(e.message.contains(message), "{e}");
        }
    }
}

#[test]
fn parse_errors_name_the_line() {
    let head = "machine function @f {\nblock0:\n";
    parse_error("", 1, "expected 'machine'");
    parse_error("machine function f {\n}\n", 1, "the function's name");
    parse_error("machine function @f weird {\n}\n", 1, "unknown linkage");
    parse_error(
        &format!("{head}    v1 = frobnicate v2\n}}\n"),
        3,
        "unknown operation",
    );
    parse_error(&format!("{head}    v1 = add v2, v3\n"), 4, "'}'");
    parse_error(
        &format!("{head}    v1 = add v2 v3\n}}\n"),
        3,
        "end of the line",
    );
    parse_error(
        &format!("{head}    v1 = add pv2, v2\n    v3 = copy pv1\n}}\n"),
        3,
        "named both",
    );
    parse_error(
        &format!("{head}    v1 = ld.d [v2 + fs0]\n}}\n"),
        3,
        "fs0 is not declared",
    );
    parse_error(
        &format!("{head}    v1 = addpc jt3\n}}\n"),
        3,
        "jt3 is not declared",
    );
    parse_error(
        &format!("{head}    v1 = movi 99999999999999999999\n}}\n"),
        3,
        "out of range",
    );
    parse_error(
        &format!("{head}    v1 = movi -9223372036854775809\n}}\n"),
        3,
        "out of range",
    );
    parse_error(
        &format!("{head}    v1 = add v2, 1 ; v3 = add v2, 2\n}}\n"),
        3,
        ";;",
    );
    parse_error(
        &format!("{head}    v1 = movi 1 ;;\n    ret\n}}\n"),
        4,
        "outside a bundle",
    );
    parse_error(&format!("{head}    br block99999999\n}}\n"), 3, "too large");
    parse_error(
        "machine function @f {\n    v1 = movi 1\n}\n",
        2,
        "block header",
    );
    parse_error(
        "machine function @f {\nblock0:\n    ret\nblock0:\n    ret\n}\n",
        4,
        "defined twice",
    );
    parse_error(
        "machine function @f {\n    fs1 = 8 bytes, align 8 (temp)\n}\n",
        2,
        "expected fs0",
    );
    parse_error(
        "machine function @f {\nblock0:\n    fs0 = 8 bytes, align 8 (temp)\n}\n",
        3,
        "before the first block",
    );
    parse_error(
        "machine function @f {\n    fs0 = 8 bytes, align 8 (hot)\n}\n",
        2,
        "`temp`",
    );
    parse_error(
        &format!("{head}    call @f clobbers[r5-p3]\n}}\n"),
        3,
        "one class",
    );
    parse_error(
        &format!("{head}    v1 = psi v2, pv3: v4\n}}\n"),
        3,
        "first operands",
    );
    parse_error(
        &format!("{head}    v1 = movi \"x\n}}\n"),
        3,
        "unterminated string",
    );
    parse_error(
        &format!("{head}    v1 = movi 1 # 2\n}}\n"),
        3,
        "unexpected character",
    );
    parse_error(
        &format!("{head}    ret\n}}\nmachine"),
        5,
        "end of the input",
    );
}

#[test]
fn the_parser_does_not_panic_on_damaged_text() {
    // every prefix of the full texts, and each with one character replaced
    for text in [SSA, ALLOCATED] {
        for (i, _) in text.char_indices() {
            let _ = MachFunction::parse(&text[..i]);
            for c in ['(', ')', '[', ']', ';', ':', '-', '@', '"', '9', 'v', '\n'] {
                let mut damaged = text.to_string();
                damaged.replace_range(
                    i..i + text[i..].chars().next().unwrap().len_utf8(),
                    &c.to_string(),
                );
                if let Ok(f) = MachFunction::parse(&damaged) {
                    // what parses prints and parses again, and verifying does not panic
                    let printed = f.to_string();
                    let again =
                        MachFunction::parse(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}"));
                    assert_eq!(again.to_string(), printed);
                    for phase in [Phase::Ssa, Phase::Virtual, Phase::Allocated, Phase::Bundled] {
                        let _ = f.verify(phase);
                    }
                }
            }
        }
    }
}

// ---- the verifier ----

/// Verifying `text` for `phase` fails, with an error whose text contains `message`.
fn rejects(phase: Phase, text: &str, message: &str) {
    let f = MachFunction::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    match f.verify(phase) {
        Ok(()) => panic!("verified for {phase:?}:\n{text}"),
        Err(e) => assert!(
            e.0.iter().any(|e| e.to_string().contains(message)),
            "expected `{message}`, got:\n{e}"
        ),
    }
}

fn accepts(phase: Phase, text: &str) {
    let f = MachFunction::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    f.verify(phase).unwrap_or_else(|e| panic!("{e}\n{text}"));
}

/// `machine function @f {` + `body` + `}`.
fn func(body: &str) -> String {
    format!("machine function @f {{\n{body}}}\n")
}

const LOOP: &str = "\
block0:
    v1 = copy r3
    v2 = movi 1
    br block1(v2)
block1(v0):
    v3 = add v0, 1
    pv4, p0 = cmp.lt v3, v1
    (pv4) br block2
    br block3
block2:
    br block1(v3)
block3:
    r3 = copy v0
    ret uses[r3]
";

#[test]
fn a_well_formed_function_verifies_and_errors_name_function_block_and_operation() {
    accepts(Phase::Ssa, &func(LOOP));
    let f = MachFunction::parse(&func(&LOOP.replace("v3 = add v0, 1", "v3 = add v0, v9"))).unwrap();
    let e = f.verify(Phase::Ssa).unwrap_err();
    assert_eq!(e.0[0].function, "f");
    assert_eq!(e.0[0].block, Some(MBlock::new(1)));
    assert_eq!(e.0[0].inst.as_deref(), Some("v3 = add v0, v9"));
    assert_eq!(
        e.to_string(),
        "f: block1: `v3 = add v0, v9`: v9 is used but never defined"
    );
}

#[test]
fn ssa_rules() {
    let ssa = |body: &str, message: &str| rejects(Phase::Ssa, &func(body), message);
    // single definition
    ssa(
        &LOOP.replace("v2 = movi 1", "v2 = movi 1\n    v1 = movi 2"),
        "v1 is defined twice",
    );
    ssa(
        &LOOP
            .replace("block1(v0):", "block1(v2):")
            .replace("r3 = copy v0", "r3 = copy v2"),
        "v2 is defined twice",
    );
    // definitions dominate uses
    ssa(
        &LOOP
            .replace("    br block1(v3)", "    v9 = movi 1\n    br block1(v3)")
            .replace("r3 = copy v0", "r3 = copy v9"),
        "the definition of v9 does not dominate this use",
    );
    ssa(
        "block0:\n    v1 = add v2, 1\n    v2 = movi 1\n    ret\n",
        "the definition of v2 does not dominate",
    );
    ssa(
        "block0:\n    r3 = copy v7\n    ret\n",
        "v7 is used but never defined",
    );
    // block arguments match parameters in number and class
    ssa(
        &LOOP.replace("br block1(v3)", "br block1(v3, v1)"),
        "passes 2 argument(s) to block1, which takes 1",
    );
    ssa(
        &LOOP.replace("br block1(v3)", "br block1(pv4)"),
        "argument pv4 of another class than parameter v0",
    );
    ssa(
        &LOOP.replace("(pv4) br block2", "(pv4) br block1(v3)"),
        "block arguments on an operation other than the final unguarded `br`",
    );
    // every block ends in an exit, nothing after one
    ssa(
        &LOOP.replace("    br block3\n", ""),
        "does not end in an unconditional",
    );
    ssa(
        &LOOP.replace("ret uses[r3]", "ret uses[r3]\n    v9 = movi 1"),
        "operations after an unconditional",
    );
    ssa(&LOOP.replace("    br block1(v3)\n", ""), "empty block");
    // psi shape
    let psi = |line: &str| {
        format!(
            "block0:\n    pv1, pv2 = cmp.lt r3, r4\n    v3 = movi 1\n    v4 = movi 2\n    {line}\n    ret\n"
        )
    };
    accepts(Phase::Ssa, &func(&psi("v5 = psi pv1: v3, pv2: v4")));
    ssa(
        &psi("v5 = psi pv1: v3, v4"),
        "a ψ with 2 argument(s) and 1 guard(s)",
    );
    ssa(
        &psi("v5 = psi v3: v3, pv2: v4"),
        "ψ guard v3 is not a predicate",
    );
    ssa(
        &psi("v5, v6 = psi pv1: v3, pv2: v4"),
        "a ψ has one definition",
    );
    ssa(
        &psi("v5 = psi pv1: v3, pv2: pv1"),
        "ψ argument pv1 of another class",
    );
    ssa(
        &psi("v5 = copy pv1: v3"),
        "ψ guards on an operation other than `psi`",
    );
    // operand counts and classes per format, guards, copies
    ssa(
        "block0:\n    v1 = add r3, r4, r5\n    ret\n",
        "1 definition(s) and 3 source(s), the format of `add` has 1 and 2",
    );
    ssa(
        "block0:\n    pv1 = movi 1\n    ret\n",
        "operand pv1 (Rd) of the wrong class",
    );
    ssa(
        "block0:\n    (r3) ret\n    ret\n",
        "the guard is not a predicate",
    );
    ssa(
        "block0:\n    v1 = copy pv2\n    pv2 = movi 1\n    ret\n",
        "copy of pv2 into v1 of another class",
    );
    ssa(
        "block0:\n    v1, v1 = parallel_copy r3, r4\n    ret\n",
        "v1 is written twice",
    );
    ssa(
        "block0:\n    v1, v2 = parallel_copy r3\n    ret\n",
        "a parallel copy with 2 definitions and 1 sources",
    );
    ssa(
        "block0:\n    v1 = copy r3, 5\n    ret\n",
        "an immediate on a copy",
    );
    ssa(
        "block0:\n    ret 5\n",
        "an immediate on a format without one",
    );
    // branch targets are laid out
    ssa(
        "block0:\n    br block7\n",
        "branch to block7, which is not laid out",
    );
    ssa(
        "    jt0 = [block5]\nblock0:\n    v1 = addpc jt0\n    jr v1, jt0\n",
        "jt0 names block5, which is not laid out",
    );
}

#[test]
fn virtual_rules() {
    let destructed = "\
block0:
    v1 = copy r3
    v0 = movi 1
    br block1
block1:
    v0 = add v0, 1
    pv4, p0 = cmp.lt v0, v1
    (pv4) br block1
    br block2
block2:
    r3 = copy v0
    ret uses[r3]
";
    accepts(Phase::Virtual, &func(destructed));
    rejects(Phase::Ssa, &func(destructed), "v0 is defined twice");
    rejects(
        Phase::Virtual,
        &func(LOOP),
        "block parameter v0 after leaving SSA",
    );
    rejects(
        Phase::Virtual,
        &func(LOOP),
        "block arguments after leaving SSA",
    );
    rejects(
        Phase::Virtual,
        &func(&destructed.replace("r3 = copy v0", "r3 = copy v9")),
        "v9 is used but never defined",
    );
}

const LOWERED: &str = "\
    frame 16 bytes, align 16, outgoing 0 bytes, saves [r63: 0], slots []
block0:
    r1 = add r1, -16
    st.d [r1 + 0] = r63
    (p2) br block2
block1:
    r3 = movi 1
block2:
    r63 = ld.d [r1 + 0]
    r1 = add r1, 16
    ret uses[r3]
";

#[test]
fn allocated_rules() {
    accepts(Phase::Allocated, &func(LOWERED));
    let alloc = |body: &str, message: &str| rejects(Phase::Allocated, &func(body), message);
    alloc(
        &LOWERED.replace("r3 = movi 1", "v3 = movi 1\n    r3 = mov v3"),
        "virtual register v3 after allocation",
    );
    alloc(
        &LOWERED.replace("r3 = movi 1", "r3 = copy r4"),
        "a pseudo operation after allocation",
    );
    alloc(
        &LOWERED.replace("r3 = movi 1", "r3 = ld.d [r1 + incoming+8]"),
        "an incoming-argument offset left after frame lowering",
    );
    // the last block may not fall off the end
    alloc(
        &LOWERED.replace("    ret uses[r3]\n", ""),
        "does not end in an unconditional",
    );
    // before frame lowering, slots are fine
    accepts(
        Phase::Allocated,
        &func(
            "    fs0 = 8 bytes, align 8 (temp)\nblock0:\n    r3 = ld.d [r1 + fs0]\n    ret uses[r3]\n",
        ),
    );
}

#[test]
fn bundled_rules() {
    accepts(Phase::Bundled, ALLOCATED);
    let bundled = |text: &str, message: &str| rejects(Phase::Bundled, text, message);
    bundled(&func(LOWERED), "not bundled");
    // five operations in a 4-wide bundle
    bundled(
        &ALLOCATED.replace(
            "    nop ;;\n",
            "    r6 = movi 1 ; r7 = movi 2 ; r8 = movi 3 ; r9 = movi 4 ; r10 = movi 5 ;;\n",
        ),
        "the bundle does not fit the machine",
    );
    // a long immediate takes the limm syllable: 3 + 2 syllables
    bundled(
        &ALLOCATED.replace(
            "    nop ;;\n",
            "    r6 = movi 1 ; r7 = movi 2 ; r8 = movi 3 ; r9 = movi long 4 ;;\n",
        ),
        "syllables but the issue width is 4",
    );
    // three branches: two branch units
    bundled(
        &ALLOCATED.replace(
            "    nop ;;\n",
            "    (p3) br block1 ; (p4) br block1 ; (p5) br block1 ;;\n",
        ),
        "does not fit the machine",
    );
    bundled(
        &ALLOCATED.replace("r1 = add r1, -128", "r1 = add r1, fs0"),
        "fs0 left after frame lowering",
    );
    // the bundles must be the blocks' operations, in order
    let mut f = MachFunction::parse(ALLOCATED).unwrap();
    let b0 = f.layout[0];
    let mut bundles = f.bundles.clone().unwrap();
    let mut first = bundles.block(b0).to_vec();
    first.swap(0, 1);
    bundles.set_block(b0, first);
    f.bundles = Some(bundles.clone());
    let e = f.verify(Phase::Bundled).unwrap_err().to_string();
    assert!(
        e.contains("the bundles are not the block's operations"),
        "{e}"
    );
    let mut with_empty = MachFunction::parse(ALLOCATED).unwrap().bundles.unwrap();
    let mut first = with_empty.block(b0).to_vec();
    first.push(Vec::new());
    with_empty.set_block(b0, first);
    f.bundles = Some(with_empty);
    let e = f.verify(Phase::Bundled).unwrap_err().to_string();
    assert!(e.contains("an empty bundle"), "{e}");
    // a narrower machine rejects what the default takes
    let f = MachFunction::parse(ALLOCATED).unwrap();
    let narrow = MachineConfig {
        width: 1,
        ..MachineConfig::default()
    };
    let e = f
        .verify_for(Phase::Bundled, &narrow)
        .unwrap_err()
        .to_string();
    assert!(e.contains("the issue width is 1"), "{e}");
}

#[test]
fn structural_rules_of_every_phase() {
    let f = MachFunction::new("empty", vliw_ir::Linkage::Local);
    let e = f.verify(Phase::Ssa).unwrap_err().to_string();
    assert_eq!(e, "empty: no blocks in the layout");
    // an operation in two places
    let mut f = MachFunction::parse(&func(LOOP)).unwrap();
    let b3 = MBlock::new(3);
    let id = f.block_inst_ids(b3)[0];
    f.blocks[MBlock::new(2)].insts.insert(0, id);
    let e = f.verify(Phase::Ssa).unwrap_err().to_string();
    assert!(e.contains("is in the layout twice"), "{e}");
    // a block laid out twice
    let mut f = MachFunction::parse(&func(LOOP)).unwrap();
    f.layout.push(MBlock::new(1));
    assert!(
        f.verify(Phase::Ssa)
            .unwrap_err()
            .to_string()
            .contains("laid out twice")
    );
    // a register that does not exist
    let mut f = MachFunction::parse(&func(LOOP)).unwrap();
    f.inst_mut(id).uses[0] = Reg::Virtual(VReg::new(1000));
    assert!(
        f.verify(Phase::Ssa)
            .unwrap_err()
            .to_string()
            .contains("does not exist")
    );
}

#[test]
fn keeps_round_trips_and_is_only_for_one_guarded_virtual_definition_in_ssa() {
    let ok = func(
        "block0:
    v0 = copy r3
    pv1, pv2 = cmp.gt v0, 0
    v3 = add v0, 1
    (pv1) v4 = add v0, 2 keeps v3
    (!pv1) v5 = copy v0 keeps v4
    r3 = copy v5
    ret uses[r3]
",
    );
    let f = round_trip(&ok);
    assert_eq!(
        f.inst_at(f.layout[0], 3).keep,
        Some(Reg::Virtual(VReg::new(3)))
    );
    accepts(Phase::Ssa, &ok);
    rejects(Phase::Virtual, &ok, "after leaving SSA");
    let unguarded = ok.replace("(pv1) v4 = add v0, 2 keeps v3", "v4 = add v0, 2 keeps v3");
    rejects(Phase::Ssa, &unguarded, "without a guard");
    let class = ok.replace("keeps v3", "keeps pv2");
    rejects(
        Phase::Ssa,
        &class,
        "not a virtual register of the definition's class",
    );
    let compare = ok.replace(
        "(pv1) v4 = add v0, 2 keeps v3",
        "(pv1) v4 = add v0, 2 keeps v3\n    (pv1) pv6, p0 = cmp.lt.unc v0, 3 keeps pv2",
    );
    rejects(Phase::Ssa, &compare, "exactly one virtual definition");
}
