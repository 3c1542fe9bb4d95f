//! Property tests: random bytes as text never panic the simulator; random bundles
//! with many intra-bundle dependencies match a reference model of "all operations
//! read, then all write in slot order".

use super::*;
use proptest::prelude::*;
use vliw_isa::CmpType;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_text_never_panics(
        words in prop::collection::vec(any::<u64>(), 1..64),
        stop_bits in prop::collection::vec(any::<bool>(), 64),
        strict in any::<bool>(),
        width in 1usize..6,
    ) {
        // Set stop bits often, so that many bundles decode.
        let words: Vec<u64> = words
            .iter()
            .zip(&stop_bits)
            .map(|(&w, &stop)| if stop { w | 1 << 63 } else { w })
            .collect();
        let mut t = Test::from_words(words).max_cycles(2000);
        t.options.strict = strict;
        t.options.machine.width = width;
        t.data = vec![0x5a; 64];
        let r = t.run();
        let status = r.outcome.exit_status();
        prop_assert!((0..=255).contains(&status));
        if let crate::Outcome::Fault(f) = &r.outcome {
            prop_assert!(!f.to_string().contains('\n'));
        }
    }

    #[test]
    fn random_opcodes_with_small_operands_never_panic(
        ops in prop::collection::vec((1u64..300, any::<u32>(), 0u64..16, any::<bool>()), 1..48),
    ) {
        // Valid-looking syllables: real opcodes with random low operand bits, and
        // registers pointing at data so that memory operations hit mapped memory.
        let words: Vec<u64> = ops
            .iter()
            .map(|&(opcode, imm, guard, stop)| {
                (opcode << 54) | (guard << 49) | (imm as u64 & 0x1_0000_ffff) | if stop { 1 << 63 } else { 0 }
            })
            .collect();
        let r = Test::from_words(words).max_cycles(2000).run();
        prop_assert!((0..=255).contains(&r.outcome.exit_status()));
    }
}

/// A random ALU operation on r3..r8 and p1..p4.
#[derive(Clone, Debug)]
enum RandOp {
    Alu {
        guard: Option<(u8, bool)>,
        kind: u8,
        rd: u8,
        rs1: u8,
        rs2: u8,
        imm: i32,
    },
    Cmp {
        guard: Option<(u8, bool)>,
        ctype: CmpType,
        pd1: u8,
        pd2: u8,
        rs1: u8,
        rs2: u8,
    },
    PLogic {
        guard: Option<(u8, bool)>,
        pd: u8,
        ps1: u8,
        ps2: u8,
    },
}

fn guard_text(guard: Option<(u8, bool)>) -> String {
    match guard {
        None => String::new(),
        Some((p, negated)) => format!("({}p{p}) ", if negated { "!" } else { "" }),
    }
}

impl RandOp {
    fn text(&self) -> String {
        match *self {
            RandOp::Alu {
                guard,
                kind,
                rd,
                rs1,
                rs2,
                imm,
            } => {
                let g = guard_text(guard);
                match kind {
                    0 => format!("{g}add r{rd} = r{rs1}, r{rs2}"),
                    1 => format!("{g}sub r{rd} = r{rs1}, r{rs2}"),
                    2 => format!("{g}xor r{rd} = r{rs1}, r{rs2}"),
                    3 => format!("{g}mov r{rd} = r{rs1}"),
                    4 => format!("{g}movi r{rd} = {imm}"),
                    5 => format!("{g}sel r{rd} = p{}, r{rs1}, r{rs2}", 1 + imm.rem_euclid(4)),
                    _ => format!("{g}shl r{rd} = r{rs1}, {}", imm.rem_euclid(64)),
                }
            }
            RandOp::Cmp {
                guard,
                ctype,
                pd1,
                pd2,
                rs1,
                rs2,
            } => {
                format!(
                    "{}cmp.lt{} p{pd1}, p{pd2} = r{rs1}, r{rs2}",
                    guard_text(guard),
                    ctype.suffix()
                )
            }
            RandOp::PLogic {
                guard,
                pd,
                ps1,
                ps2,
            } => format!("{}pxor p{pd} = p{ps1}, p{ps2}", guard_text(guard)),
        }
    }
}

fn rand_op() -> impl Strategy<Value = RandOp> {
    let reg = 3u8..9;
    let pred = 1u8..5;
    let guard = prop::option::of((1u8..5, any::<bool>()));
    prop_oneof![
        4 => (guard.clone(), 0u8..7, reg.clone(), reg.clone(), reg.clone(), -100i32..100)
            .prop_map(|(guard, kind, rd, rs1, rs2, imm)| RandOp::Alu { guard, kind, rd, rs1, rs2, imm }),
        2 => (guard.clone(), 0usize..8, pred.clone(), 0u8..3, reg.clone(), reg.clone())
            .prop_map(|(guard, t, pd1, delta, rs1, rs2)| {
                let pd2 = 1 + (pd1 + delta) % 4; // distinct from pd1
                RandOp::Cmp { guard, ctype: CmpType::ALL[t], pd1, pd2, rs1, rs2 }
            }),
        1 => (guard, pred.clone(), pred.clone(), pred).prop_map(|(guard, pd, ps1, ps2)| RandOp::PLogic { guard, pd, ps1, ps2 }),
    ]
}

/// The reference: each bundle reads the state before it; writes apply in slot order.
fn reference(bundles: &[Vec<RandOp>], init: &[i64; 6]) -> ([u64; 64], [bool; 16]) {
    let mut regs = [0u64; 64];
    let mut preds = [false; 16];
    preds[0] = true;
    for (i, v) in init.iter().enumerate() {
        regs[3 + i] = *v as u64;
    }
    for bundle in bundles {
        let (old_regs, old_preds) = (regs, preds);
        let enabled = |g: Option<(u8, bool)>| g.is_none_or(|(p, neg)| old_preds[p as usize] != neg);
        for op in bundle {
            match *op {
                RandOp::Alu {
                    guard,
                    kind,
                    rd,
                    rs1,
                    rs2,
                    imm,
                } => {
                    if !enabled(guard) {
                        continue;
                    }
                    let (a, b) = (old_regs[rs1 as usize], old_regs[rs2 as usize]);
                    regs[rd as usize] = match kind {
                        0 => a.wrapping_add(b),
                        1 => a.wrapping_sub(b),
                        2 => a ^ b,
                        3 => a,
                        4 => imm as i64 as u64,
                        5 => {
                            if old_preds[1 + imm.rem_euclid(4) as usize] {
                                a
                            } else {
                                b
                            }
                        }
                        _ => a << imm.rem_euclid(64),
                    };
                }
                RandOp::Cmp {
                    guard,
                    ctype,
                    pd1,
                    pd2,
                    rs1,
                    rs2,
                } => {
                    let g = enabled(guard);
                    let c = (old_regs[rs1 as usize] as i64) < (old_regs[rs2 as usize] as i64);
                    // A type that keeps a destination leaves what earlier slots wrote.
                    let (n1, n2) = ctype.apply(g, c, (preds[pd1 as usize], preds[pd2 as usize]));
                    preds[pd1 as usize] = n1;
                    preds[pd2 as usize] = n2;
                }
                RandOp::PLogic {
                    guard,
                    pd,
                    ps1,
                    ps2,
                } => {
                    if enabled(guard) {
                        preds[pd as usize] = old_preds[ps1 as usize] ^ old_preds[ps2 as usize];
                    }
                }
            }
        }
    }
    (regs, preds)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn bundles_match_the_read_then_write_reference(
        bundles in prop::collection::vec(prop::collection::vec(rand_op(), 1..5), 1..8),
        init in prop::array::uniform6(-5i64..5),
    ) {
        let texts: Vec<Vec<String>> = bundles.iter().map(|b| b.iter().map(RandOp::text).collect()).collect();
        let inits: Vec<String> = init.iter().enumerate().map(|(i, v)| format!("movi r{} = {v}", 3 + i)).collect();
        let mut all: Vec<Vec<&str>> = vec![inits[..4].iter().map(String::as_str).collect(), inits[4..].iter().map(String::as_str).collect()];
        all.extend(texts.iter().map(|b| b.iter().map(String::as_str).collect::<Vec<_>>()));
        all.push(vec!["trap 0"]);
        let refs: Vec<&[&str]> = all.iter().map(Vec::as_slice).collect();
        let r = Test::new(&refs).max_cycles(1000).run();
        prop_assert!(r.fault().starts_with("fault: trap 0"), "{}", r.fault());
        let (regs, preds) = reference(&bundles, &init);
        for n in 3..9u8 {
            prop_assert_eq!(r.reg(n), regs[n as usize], "r{}", n);
        }
        for n in 1..5u8 {
            prop_assert_eq!(r.pred(n), preds[n as usize], "p{}", n);
        }
    }
}
