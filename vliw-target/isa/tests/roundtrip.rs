//! Every opcode of the machine description survives encode -> decode and
//! print -> parse with random operands; random words never make the decoder panic.

use proptest::prelude::*;
use vliw_isa::*;

fn arbitrary_inst() -> impl Strategy<Value = Inst> {
    (
        0..OPCODES.len(),
        any::<[u8; 8]>(),
        any::<u8>(),
        any::<bool>(),
        any::<i64>(),
        any::<bool>(),
        0usize..8,
    )
        .prop_map(|(index, regs, guard, negated, imm, long, ctype)| {
            let opcode = OPCODES[index].opcode;
            let format = opcode.format();
            let mut inst = Inst::new(opcode);
            let gpr = |b: u8| Gpr::new(b % 64).unwrap();
            let pred = |b: u8| Pred::new(b % 16).unwrap();
            if !opcode.is_never_guarded() {
                inst.guard = Guard::new(pred(guard), negated);
            }
            for field in format.fields() {
                match field.kind {
                    FieldKind::Rd => inst.rd = gpr(regs[0]),
                    FieldKind::Rs1 => inst.rs1 = gpr(regs[1]),
                    FieldKind::Rs2 => inst.rs2 = gpr(regs[2]),
                    FieldKind::Rs3 => inst.rs3 = gpr(regs[3]),
                    FieldKind::Pd1 => inst.pd1 = pred(regs[4]),
                    FieldKind::Pd2 => inst.pd2 = pred(regs[5]),
                    FieldKind::Ps1 => inst.ps1 = pred(regs[6]),
                    FieldKind::Ps2 => inst.ps2 = pred(regs[7]),
                    FieldKind::CmpType => inst.ctype = CmpType::ALL[ctype],
                    FieldKind::Imm => {
                        inst.imm = if format == Format::Limm {
                            imm as u32 as i64
                        } else if format.is_extendable() {
                            inst.long = long;
                            if long { imm } else { imm as i32 as i64 }
                        } else if format.is_pc_relative() {
                            (imm as i32 as i64) & !7
                        } else {
                            imm as i32 as i64
                        }
                    }
                }
            }
            if inst.pd1 == inst.pd2 && matches!(format, Format::Cmp | Format::CmpImm) {
                inst.pd2 = Pred::new((inst.pd1.num() + 1) % 16).unwrap();
            }
            inst
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn encode_decode_round_trip(inst in arbitrary_inst()) {
        prop_assume!(inst.opcode != Opcode::Limm);
        let mut words = Vec::new();
        encode_bundle(&[inst], &mut words).unwrap();
        let (decoded, used) = decode_bundle(&words).unwrap();
        prop_assert_eq!(used, words.len());
        let mut expected = inst;
        expected.long = inst.needs_limm();
        prop_assert_eq!(decoded, vec![expected]);
    }

    #[test]
    fn print_parse_round_trip(inst in arbitrary_inst()) {
        prop_assume!(inst.opcode != Opcode::Limm);
        let text = inst.to_string();
        let parsed = parse_inst(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        let mut expected = inst;
        expected.long = inst.needs_limm();
        let mut got = parsed.inst;
        got.long = got.needs_limm();
        prop_assert_eq!(got, expected, "text: {}", text);
    }

    #[test]
    fn decoder_never_panics(words in proptest::collection::vec(any::<u64>(), 0..20)) {
        let _ = decode_bundle(&words);
    }

    #[test]
    fn decoding_plausible_words_never_panics(
        opcode in 0u64..0x200, rest in any::<u64>(), stop in any::<bool>()
    ) {
        let word = (rest & ((1 << 54) - 1)) | (opcode << 54) | if stop { 1 << 63 } else { 0 };
        if let Ok((inst, s)) = Inst::decode(word) {
            // Whatever decodes re-encodes to the same word.
            let encoded = inst.encode(s);
            if inst.opcode != Opcode::Limm {
                let encoded = encoded.unwrap();
                prop_assert_eq!(encoded.words(), &[word]);
            }
        }
    }
}

#[test]
fn every_opcode_round_trips_through_text_and_bits() {
    for info in OPCODES.iter().filter(|i| i.opcode != Opcode::Limm) {
        let mut inst = Inst::new(info.opcode);
        inst.rd = Gpr::new(5).unwrap();
        inst.rs1 = Gpr::new(6).unwrap();
        inst.rs2 = Gpr::new(7).unwrap();
        inst.rs3 = Gpr::new(8).unwrap();
        inst.pd1 = Pred::new(1).unwrap();
        inst.pd2 = Pred::new(2).unwrap();
        inst.ps1 = Pred::new(3).unwrap();
        inst.ps2 = Pred::new(4).unwrap();
        inst.imm = if info.format.is_pc_relative() {
            -64
        } else {
            12
        };
        let format = info.format;
        for field in [
            FieldKind::Rd,
            FieldKind::Rs1,
            FieldKind::Rs2,
            FieldKind::Rs3,
        ] {
            if !format.has(field) {
                match field {
                    FieldKind::Rd => inst.rd = Gpr::ZERO,
                    FieldKind::Rs1 => inst.rs1 = Gpr::ZERO,
                    FieldKind::Rs2 => inst.rs2 = Gpr::ZERO,
                    _ => inst.rs3 = Gpr::ZERO,
                }
            }
        }
        for field in [
            FieldKind::Pd1,
            FieldKind::Pd2,
            FieldKind::Ps1,
            FieldKind::Ps2,
        ] {
            if !format.has(field) {
                match field {
                    FieldKind::Pd1 => inst.pd1 = Pred::TRUE,
                    FieldKind::Pd2 => inst.pd2 = Pred::TRUE,
                    FieldKind::Ps1 => inst.ps1 = Pred::TRUE,
                    _ => inst.ps2 = Pred::TRUE,
                }
            }
        }
        if !format.has(FieldKind::Imm) {
            inst.imm = 0;
        }
        let text = inst.to_string();
        assert_eq!(parse_inst(&text).unwrap().inst, inst, "{text}");
        let (decoded, _) = decode_bundle(inst.encode(true).unwrap().words()).unwrap();
        assert_eq!(decoded, vec![inst], "{text}");
    }
}
