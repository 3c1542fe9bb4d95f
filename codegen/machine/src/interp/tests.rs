//! Tests of the machine-IR interpreter: every operation class against the simulator
//! on the same inputs (a table of opcodes × edge-case operands, each case encoded
//! with `emit::to_inst`, run on `vliw-sim` and interpreted), guarded operations and
//! every compare type, then the machine-IR specifics: block parameters, `Psi`,
//! parallel copies, frames, calls and their clobbers, stops.

use super::*;
use crate::mir::{RegClass, VReg};
use crate::test_support::{br, func, movi};
use vliw_isa::{CmpType, encode_bundle};

/// The data segment both sides map: writable, 64 bytes of a known pattern.
const DATA: u64 = 0x20000;
const DATA_LEN: usize = 64;

fn data_pattern() -> Vec<u8> {
    (0..DATA_LEN as u8)
        .map(|i| i.wrapping_mul(37).wrapping_add(0x81))
        .collect()
}

fn r(n: u8) -> Reg {
    Reg::gpr(n)
}

fn p(n: u8) -> Reg {
    Reg::pred(n)
}

fn op(opcode: Opcode, defs: &[Reg], uses: &[Reg], imm: Imm) -> MInst {
    MInst::op(opcode, defs, uses, imm)
}

fn set(d: u8, v: u64) -> MInst {
    op(Opcode::Movi, &[r(d)], &[], Imm::Const(v as i64))
}

/// `pd = (v != 0)` through a register.
fn set_pred(d: u8, v: bool) -> Vec<MInst> {
    vec![
        set(60, v as u64),
        op(Opcode::R2p, &[p(d)], &[r(60)], Imm::None),
    ]
}

/// What one run ends with: the observed registers (predicates as 0/1) and the data
/// segment, or the kind of fault.
type Outcome = Result<(Vec<u64>, Vec<u8>), String>;

fn on_simulator(body: &[MInst], observe: &[PReg]) -> Outcome {
    let mf = MachFunction::new("case", vliw_ir::Linkage::Export);
    let mut words = Vec::new();
    for inst in body {
        let i = crate::emit::to_inst(&mf, inst).expect("encodable");
        encode_bundle(&[i], &mut words).expect("a legal bundle");
    }
    for text in ["movi r3 = 0", "syscall 0"] {
        let i = vliw_isa::parse_inst(text).unwrap().inst;
        encode_bundle(&[i], &mut words).unwrap();
    }
    let program = vliw_sim::Program {
        entry: 0x10000,
        segments: vec![
            vliw_sim::Segment::text(0x10000, &words),
            vliw_sim::Segment::data(DATA, data_pattern(), 0x1000),
        ],
        symbols: Vec::new(),
        lines: Default::default(),
        frames: None,
    };
    let options = vliw_sim::Options {
        stack_size: 64 << 10,
        ..vliw_sim::Options::default()
    };
    let io = vliw_sim::CaptureIo::new(&[]);
    let mut sim = vliw_sim::Simulator::new(&program, &options, &[b"t".to_vec()], &[], Box::new(io))
        .expect("loads");
    match sim.run() {
        vliw_sim::Outcome::Exit(0) => {}
        vliw_sim::Outcome::Exit(c) => return Err(format!("exit {c}")),
        vliw_sim::Outcome::Fault(f) => {
            return Err(match f.kind {
                vliw_sim::FaultKind::Unmapped(_) => "unmapped".into(),
                vliw_sim::FaultKind::Misaligned(_) => "misaligned".into(),
                vliw_sim::FaultKind::ReadOnly(_) => "read-only".into(),
                vliw_sim::FaultKind::Trap(n) => format!("trap {n}"),
                k => format!("{k:?}"),
            });
        }
    }
    let regs = observe
        .iter()
        .map(|&o| match o {
            PReg::Gpr(g) => sim.reg(g.num()),
            PReg::Pred(q) => sim.pred(q.num()) as u64,
        })
        .collect();
    let data = (0..DATA_LEN as u64)
        .map(|i| sim.memory().read(DATA + i, 1).unwrap() as u8)
        .collect();
    Ok((regs, data))
}

fn interpreted(body: &[MInst], observe: &[PReg]) -> Outcome {
    let (mut mf, b) = func(1);
    mf.set_block(b[0], body.iter().cloned());
    mf.push_inst(b[0], op(Opcode::Ret, &[], &[], Imm::None));
    let mut it = Interpreter::new([&mf]);
    it.memory.map(DATA, data_pattern(), true);
    match it.call("f", &[]) {
        Ok(_) => {}
        Err(Stop::Fault(f)) => {
            return Err(match f.kind {
                FaultKind::Unmapped => "unmapped".into(),
                FaultKind::Misaligned => "misaligned".into(),
                FaultKind::ReadOnly => "read-only".into(),
            });
        }
        Err(Stop::Trap(n)) => return Err(format!("trap {n}")),
        Err(e) => panic!("{e}\n{mf}"),
    }
    let regs = observe
        .iter()
        .map(|&o| it.reg(o).unwrap_or_else(|| panic!("{o} unwritten\n{mf}")))
        .collect();
    let data = it.memory.read(DATA, DATA_LEN).unwrap().to_vec();
    Ok((regs, data))
}

/// The width of the float an operation produces, if it computes one (not the sign
/// operations, which only move bits).
fn float_result_bits(opcode: Opcode) -> Option<u32> {
    let m = opcode.mnemonic();
    let to = if let Some(rest) = m.strip_prefix("fcvt.") {
        rest.split('.').next()?
    } else if m.starts_with('f')
        && !m.starts_with("fneg")
        && !m.starts_with("fabs")
        && !m.starts_with("fcopysign")
    {
        m.rsplit('.').next()?
    } else {
        return None;
    };
    match to {
        "s" => Some(32),
        "d" => Some(64),
        _ => None,
    }
}

fn is_nan(x: u64, bits: u32) -> bool {
    if bits == 32 {
        x >> 32 == 0 && f32::from_bits(x as u32).is_nan()
    } else {
        f64::from_bits(x).is_nan()
    }
}

/// Results are equal, or NaNs of the width the last operation produces: Rust leaves
/// the payload and sign of a NaN an operation produces unspecified, and two
/// compilations of one `semantics::value` may pick different ones (an `fadd` of two
/// NaNs may be commuted), so only NaN-ness is compared there.
fn same(body: &[MInst], a: &Outcome, b: &Outcome) -> bool {
    let bits = body
        .last()
        .and_then(|i| i.opcode())
        .and_then(float_result_bits);
    match (a, b, bits) {
        (Ok((ra, da)), Ok((rb, db)), Some(bits)) => {
            da == db
                && ra.len() == rb.len()
                && ra
                    .iter()
                    .zip(rb)
                    .all(|(&x, &y)| x == y || (is_nan(x, bits) && is_nan(y, bits)))
        }
        _ => a == b,
    }
}

fn agree(body: &[MInst], observe: &[PReg]) {
    let sim = on_simulator(body, observe);
    let interp = interpreted(body, observe);
    if !same(body, &sim, &interp) {
        let mf = MachFunction::new("case", vliw_ir::Linkage::Export);
        let text: Vec<String> = body.iter().map(|i| mf.display_inst(i)).collect();
        panic!(
            "simulator and interpreter disagree on\n    {}\nsimulator:   {sim:?}\ninterpreter: {interp:?}",
            text.join("\n    ")
        );
    }
}

const F64_ONE: u64 = 0x3ff0_0000_0000_0000;
const F64_NAN: u64 = 0x7ff8_0000_0000_0001;
const F64_INF: u64 = 0x7ff0_0000_0000_0000;
const F32_ONE: u64 = 0x3f80_0000;
const F32_NAN: u64 = 0x7fc0_0001;

/// Edge-case operands: integer limits of every width, and floats of both widths
/// (zeros, ones, NaNs, infinities, halves, large, subnormal, negative).
fn operands() -> Vec<u64> {
    vec![
        0,
        1,
        2,
        7,
        u64::MAX,
        (-7i64) as u64,
        i64::MIN as u64,
        i64::MAX as u64,
        0x8000_0000,
        0x7fff_ffff,
        0xffff_ffff,
        0x1_0000_0000,
        0xffff_ffff_8000_0000,
        0x80,
        0xff,
        0x8000,
        63,
        64,
        65,
        F64_ONE,
        0x8000_0000_0000_0000,
        F64_NAN,
        F64_INF,
        0xfff0_0000_0000_0000,
        0x4004_0000_0000_0000, // 2.5
        0xc00c_0000_0000_0000, // -3.5
        0x43e0_0000_0000_0000, // 2^63
        0x0000_0000_0000_0001, // subnormal
        0x4415_af1d_78b5_8c40, // 1e20
        F32_ONE,
        F32_NAN,
        0x7f80_0000,           // f32 inf
        0xc060_0000,           // f32 -3.5
        0x4020_0000,           // f32 2.5
        0x5f00_0000,           // f32 2^63
        0xdead_beef_4f80_0000, // f32 2^32 with garbage above
        0x3f80_0000_bf80_0000, // f32 -1 with f32 1 above
    ]
}

fn immediates() -> Vec<i64> {
    vec![
        0,
        1,
        -1,
        5,
        31,
        32,
        63,
        64,
        i32::MIN as i64,
        i32::MAX as i64,
        0x1234_5678_9abc,
        i64::MIN,
    ]
}

/// Every opcode whose result depends on operands alone, on pairs of edge cases
/// (and `fma` on triples), against the simulator. Also guarded: a false guard
/// leaves the destination as it was.
#[test]
fn values_agree_with_the_simulator() {
    let vals = operands();
    let mut cases = 0;
    for opcode in Opcode::all() {
        if sem::class(opcode) != OpClass::Value || opcode == Opcode::Addpc {
            continue;
        }
        let format = opcode.format();
        let (_, uk) = crate::mir::operand_fields(format);
        let imms: Vec<Option<i64>> = if format.has(FieldKind::Imm) {
            immediates().into_iter().map(Some).collect()
        } else {
            vec![None]
        };
        for (k, &a) in vals.iter().enumerate() {
            // pairs: every a with a spread of b (all of them for two-operand ops)
            let bs: Vec<u64> = if uk.len() >= 2 { vals.clone() } else { vec![0] };
            for (j, &b) in bs.iter().enumerate() {
                for imm in &imms {
                    let c = vals[(k + j) % vals.len()];
                    let uses: Vec<Reg> = [r(4), r(5), r(6)][..uk.len()].to_vec();
                    let imm = imm.map_or(Imm::None, Imm::Const);
                    let mut body = vec![set(4, a), set(5, b), set(6, c), set(20, 0xdead)];
                    body.push(op(opcode, &[r(20)], &uses, imm.clone()));
                    agree(&body, &[PReg::gpr(20)]);
                    cases += 1;
                    if (k + j) % 11 == 0 {
                        // the same under a false and a true guard
                        for g in [false, true] {
                            let mut body = set_pred(7, g);
                            body.extend([set(4, a), set(5, b), set(6, c), set(20, 0xdead)]);
                            body.push(
                                op(opcode, &[r(20)], &uses, imm.clone())
                                    .with_guard(MGuard::new(p(7), false)),
                            );
                            agree(&body, &[PReg::gpr(20)]);
                            cases += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(cases > 20_000, "{cases}");
}

/// Every compare on pairs of edge cases, and every compare type for a few compares,
/// under false and true guards, from every old value of the destinations.
#[test]
fn compares_agree_with_the_simulator() {
    let vals = operands();
    for opcode in Opcode::all().filter(|&o| sem::class(o) == OpClass::Compare) {
        let uses: Vec<Reg> = if opcode.format() == Format::Cmp {
            vec![r(4), r(5)]
        } else {
            vec![r(4)]
        };
        for (k, &a) in vals.iter().enumerate() {
            for (j, &b) in vals.iter().enumerate() {
                if opcode.format() == Format::CmpImm && j % 4 != 0 {
                    continue;
                }
                let imm = if opcode.format() == Format::CmpImm {
                    Imm::Const(b as i32 as i64)
                } else {
                    Imm::None
                };
                let mut body = vec![set(4, a), set(5, b)];
                body.extend(set_pred(1, (k + j) % 2 == 0));
                body.extend(set_pred(2, (k + j) % 3 == 0));
                body.push(op(opcode, &[p(1), p(2)], &uses, imm));
                agree(&body, &[PReg::pred(1), PReg::pred(2)]);
            }
        }
    }
    let some = [
        Opcode::CmpLt,
        Opcode::CmpwGeuI,
        Opcode::FcmpEqD,
        Opcode::FcmpNeS,
    ];
    let pairs = [(1u64, 2u64), (2, 1), (F64_NAN, F64_ONE), (F32_ONE, F32_ONE)];
    for opcode in some {
        for ctype in CmpType::ALL {
            for g in [false, true] {
                for old in 0..4u8 {
                    for (a, b) in pairs {
                        let (uses, imm) = if opcode.format() == Format::Cmp {
                            (vec![r(4), r(5)], Imm::None)
                        } else {
                            (vec![r(4)], Imm::Const(b as i32 as i64))
                        };
                        let mut body = vec![set(4, a), set(5, b)];
                        body.extend(set_pred(7, g));
                        body.extend(set_pred(1, old & 1 != 0));
                        body.extend(set_pred(2, old & 2 != 0));
                        let mut cmp = op(opcode, &[p(1), p(2)], &uses, imm)
                            .with_guard(MGuard::new(p(7), false));
                        cmp.ctype = ctype;
                        body.push(cmp);
                        agree(&body, &[PReg::pred(1), PReg::pred(2)]);
                    }
                }
            }
        }
    }
}

/// `sel`, predicate logic, `p2r`, `r2p` on every combination.
#[test]
fn predicate_operations_agree_with_the_simulator() {
    for x in [false, true] {
        for y in [false, true] {
            let mut pre = set_pred(1, x);
            pre.extend(set_pred(2, y));
            pre.extend([set(4, 11), set(5, 22)]);
            for opcode in Opcode::all().filter(|&o| sem::class(o) == OpClass::PredLogic) {
                let uses = if opcode.format() == Format::PUnary {
                    vec![p(1)]
                } else {
                    vec![p(1), p(2)]
                };
                let mut body = pre.clone();
                body.push(op(opcode, &[p(3)], &uses, Imm::None));
                agree(&body, &[PReg::pred(3)]);
            }
            let mut body = pre.clone();
            body.push(op(Opcode::Sel, &[r(20)], &[p(1), r(4), r(5)], Imm::None));
            body.push(op(Opcode::P2r, &[r(21)], &[p(2)], Imm::None));
            agree(&body, &[PReg::gpr(20), PReg::gpr(21)]);
        }
    }
    for v in operands() {
        let body = vec![set(4, v), op(Opcode::R2p, &[p(5)], &[r(4)], Imm::None)];
        agree(&body, &[PReg::pred(5)]);
    }
}

/// Loads (ordinary and speculative) at every offset of the data (aligned and not),
/// at unmapped addresses and in read-only memory, stores, and every atomic on edge
/// cases: registers and memory after the run, or the same fault.
#[test]
fn memory_operations_agree_with_the_simulator() {
    let bases = [DATA, DATA + 40, 8, DATA + 0x2000];
    for opcode in Opcode::all() {
        let class = sem::class(opcode);
        if !matches!(
            class,
            OpClass::Load | OpClass::Store | OpClass::Amo | OpClass::Cas
        ) {
            continue;
        }
        for &base in &bases {
            for off in [0i64, 1, 2, 3, 4, 6, 8, 15, 16] {
                for &v in &[0x8899_aabb_ccdd_eeffu64, 0x7f, 0x80, u64::MAX, 1] {
                    let mut body = vec![set(4, base), set(5, v), set(6, v ^ 0x55), set(20, 0xdead)];
                    let (defs, uses, imm) = match class {
                        OpClass::Load => (vec![r(20)], vec![r(4)], Imm::Const(off)),
                        OpClass::Store => (vec![], vec![r(4), r(5)], Imm::Const(off)),
                        OpClass::Amo => {
                            body[0] = set(4, base.wrapping_add(off as u64));
                            (vec![r(20)], vec![r(4), r(5)], Imm::None)
                        }
                        _ => {
                            body[0] = set(4, base.wrapping_add(off as u64));
                            (vec![r(20)], vec![r(4), r(5), r(6)], Imm::None)
                        }
                    };
                    if class == OpClass::Cas && v == 1 {
                        // make the expected value match memory: load it first
                        let size_load = match sem::access_bytes(opcode) {
                            1 => Opcode::LdsBu,
                            2 => Opcode::LdsHu,
                            4 => Opcode::LdsWu,
                            _ => Opcode::LdsD,
                        };
                        body.push(op(size_load, &[r(5)], &[r(4)], Imm::Const(0)));
                    }
                    body.push(op(opcode, &defs, &uses, imm));
                    agree(&body, &[PReg::gpr(20)]);
                }
            }
        }
    }
}

/// A trap ends the run with its code on both.
#[test]
fn traps_agree_with_the_simulator() {
    let body = vec![set(4, 1), op(Opcode::Trap, &[], &[], Imm::Const(0x10001))];
    assert_eq!(on_simulator(&body, &[]), Err("trap 65537".into()));
    agree(&body, &[]);
}

// ---- machine IR specifics ----

fn gpr(mf: &mut MachFunction) -> VReg {
    mf.new_vreg(RegClass::Gpr)
}

fn ret_r3() -> MInst {
    let mut r = op(Opcode::Ret, &[], &[], Imm::None);
    r.implicit_uses = vec![PReg::gpr(3)];
    r
}

/// `f(n) = 0 + 1 + ... + n-1` as a loop with block parameters, in SSA.
fn sum_loop() -> MachFunction {
    let (mut mf, b) = func(3);
    let (n, i0, s0, i, s, i2, s2) = (
        gpr(&mut mf),
        gpr(&mut mf),
        gpr(&mut mf),
        gpr(&mut mf),
        gpr(&mut mf),
        gpr(&mut mf),
        gpr(&mut mf),
    );
    let c = mf.new_vreg(RegClass::Pred);
    mf.set_block(
        b[0],
        vec![
            MInst::copy(n.into(), r(3)),
            movi(i0, 0),
            movi(s0, 0),
            br(b[1], &[i0.into(), s0.into()]),
        ],
    );
    mf.blocks[b[1]].params = vec![i, s];
    mf.set_block(
        b[1],
        vec![
            op(
                Opcode::CmpLt,
                &[c.into(), Reg::P0],
                &[i.into(), n.into()],
                Imm::None,
            ),
            br(b[2], &[]).with_guard(MGuard::new(c.into(), true)),
            op(Opcode::Add, &[s2.into()], &[s.into(), i.into()], Imm::None),
            op(Opcode::AddI, &[i2.into()], &[i.into()], Imm::Const(1)),
            br(b[1], &[i2.into(), s2.into()]),
        ],
    );
    mf.set_block(b[2], vec![MInst::copy(r(3), s.into()), ret_r3()]);
    mf.verify(crate::mir::Phase::Ssa).unwrap();
    mf
}

#[test]
fn block_parameters_carry_values_around_a_loop() {
    let mf = sum_loop();
    let mut it = Interpreter::new([&mf]);
    assert_eq!(it.call("f", &[10]), Ok(vec![45]));
    assert_eq!(it.call("f", &[0]), Ok(vec![0]));
    it.set_step_limit(it.steps() + 50);
    assert_eq!(it.call("f", &[1000]), Err(Stop::StepLimit));
}

/// `psi` takes the last argument whose guard is true; with none true its result is
/// undefined, and reading it is an error.
#[test]
fn psi_takes_the_last_true_argument() {
    for (x, want) in [
        (5u64, Some(100u64)),
        (15, Some(200)),
        (25, Some(200)),
        (0, None),
    ] {
        let (mut mf, b) = func(1);
        let (x_, a, bb, d) = (gpr(&mut mf), gpr(&mut mf), gpr(&mut mf), gpr(&mut mf));
        let (p1, p2) = (mf.new_vreg(RegClass::Pred), mf.new_vreg(RegClass::Pred));
        let mut psi = MInst::new(MOp::Psi);
        psi.defs = vec![d.into()];
        psi.uses = vec![a.into(), bb.into()];
        psi.psi_guards = vec![MGuard::new(p1.into(), false), MGuard::new(p2.into(), false)];
        mf.set_block(
            b[0],
            vec![
                MInst::copy(x_.into(), r(3)),
                movi(a, 100),
                movi(bb, 200),
                // p1 = x != 0, p2 = x > 10
                op(
                    Opcode::CmpNeI,
                    &[p1.into(), Reg::P0],
                    &[x_.into()],
                    Imm::Const(0),
                ),
                op(
                    Opcode::CmpGtI,
                    &[p2.into(), Reg::P0],
                    &[x_.into()],
                    Imm::Const(10),
                ),
                psi,
                MInst::copy(r(3), d.into()),
                ret_r3(),
            ],
        );
        let mut it = Interpreter::new([&mf]);
        match want {
            Some(w) => assert_eq!(it.call("f", &[x]), Ok(vec![w]), "x = {x}"),
            None => {
                let e = it.call("f", &[x]).unwrap_err().to_string();
                assert!(e.contains("read before it is written"), "{e}");
            }
        }
    }
}

/// A parallel copy reads every source before writing any destination: a swap and a
/// rotation of three.
#[test]
fn parallel_copies_read_before_they_write() {
    let (mut mf, b) = func(1);
    let mut swap = MInst::new(MOp::ParallelCopy);
    swap.defs = vec![r(20), r(21)];
    swap.uses = vec![r(21), r(20)];
    let mut rot = MInst::new(MOp::ParallelCopy);
    rot.defs = vec![r(22), r(23), r(24)];
    rot.uses = vec![r(23), r(24), r(22)];
    mf.set_block(
        b[0],
        vec![
            set(20, 1),
            set(21, 2),
            set(22, 3),
            set(23, 4),
            set(24, 5),
            swap,
            rot,
            op(Opcode::Ret, &[], &[], Imm::None),
        ],
    );
    let mut it = Interpreter::new([&mf]);
    it.call("f", &[]).unwrap();
    let got: Vec<u64> = (20..=24).map(|n| it.reg(PReg::gpr(n)).unwrap()).collect();
    assert_eq!(got, vec![2, 1, 4, 5, 3]);
}

/// Guarded definitions of virtual registers, `.unc` compares nested under a guard
/// (if-then-else predicates), in SSA form.
#[test]
fn guarded_operations_in_ssa() {
    // r3 = x < 10 ? (x < 5 ? 1 : 2) : 3, with .unc compares and guarded movis merged
    // by a psi
    let (mut mf, b) = func(1);
    let (x, one, two, three, d) = (
        gpr(&mut mf),
        gpr(&mut mf),
        gpr(&mut mf),
        gpr(&mut mf),
        gpr(&mut mf),
    );
    let [lt10, ge10, lt5, ge5] = [(); 4].map(|_| mf.new_vreg(RegClass::Pred));
    let mut inner = op(
        Opcode::CmpLtI,
        &[lt5.into(), ge5.into()],
        &[x.into()],
        Imm::Const(5),
    )
    .with_guard(MGuard::new(lt10.into(), false));
    inner.ctype = CmpType::Unc;
    let mut psi = MInst::new(MOp::Psi);
    psi.defs = vec![d.into()];
    psi.uses = vec![one.into(), two.into(), three.into()];
    psi.psi_guards = vec![
        MGuard::new(lt5.into(), false),
        MGuard::new(ge5.into(), false),
        MGuard::new(ge10.into(), false),
    ];
    let g = |p: VReg| MGuard::new(p.into(), false);
    mf.set_block(
        b[0],
        vec![
            MInst::copy(x.into(), r(3)),
            op(
                Opcode::CmpLtI,
                &[lt10.into(), ge10.into()],
                &[x.into()],
                Imm::Const(10),
            ),
            inner,
            movi(one, 1).with_guard(g(lt5)),
            movi(two, 2).with_guard(g(ge5)),
            movi(three, 3).with_guard(g(ge10)),
            psi,
            MInst::copy(r(3), d.into()),
            ret_r3(),
        ],
    );
    let mut it = Interpreter::new([&mf]);
    for (x, want) in [
        (0u64, 1u64),
        (4, 1),
        (5, 2),
        (9, 2),
        (10, 3),
        (-1i64 as u64, 1),
    ] {
        assert_eq!(it.call("f", &[x]), Ok(vec![want]), "x = {x}");
    }
}

/// Frame slots and incoming stack arguments before frame lowering: a value stored in
/// a slot is read back; the ninth and tenth argument words come from the stack.
#[test]
fn slots_and_stack_arguments_before_frame_lowering() {
    let (mut mf, b) = func(1);
    let slot = mf.new_slot(8, 8, crate::mir::FrameSlotKind::Temp);
    let (a9, a10, t, u) = (gpr(&mut mf), gpr(&mut mf), gpr(&mut mf), gpr(&mut mf));
    mf.set_block(
        b[0],
        vec![
            op(Opcode::LdD, &[a9.into()], &[Reg::SP], Imm::IncomingArg(0)),
            op(Opcode::LdD, &[a10.into()], &[Reg::SP], Imm::IncomingArg(8)),
            op(
                Opcode::StD,
                &[],
                &[Reg::SP, a9.into()],
                Imm::Slot { slot, offset: 0 },
            ),
            op(
                Opcode::LdD,
                &[t.into()],
                &[Reg::SP],
                Imm::Slot { slot, offset: 0 },
            ),
            op(Opcode::Sub, &[u.into()], &[t.into(), a10.into()], Imm::None),
            MInst::copy(r(3), u.into()),
            ret_r3(),
        ],
    );
    let mut it = Interpreter::new([&mf]);
    let args: Vec<u64> = (1..=10).collect();
    assert_eq!(it.call("f", &args), Ok(vec![9u64.wrapping_sub(10)]));
    // sp is back where the caller had it
    assert_eq!(
        it.reg(PReg::Gpr(Gpr::SP)),
        Some((STACK_TOP - 256 - 16) & !15)
    );
}

/// A function keeping a value in a caller-saved register across a call gets the
/// garbage the call leaves there; callee-saved registers survive; results come back
/// through the return area beyond eight words.
#[test]
fn calls_clobber_caller_saved_registers() {
    // g(x) = x + 1 (interpreted); f(x) keeps x in r20 (wrong) and r40 (right)
    let (mut g, gb) = func(1);
    g.name = "g".into();
    g.set_block(
        gb[0],
        vec![op(Opcode::AddI, &[r(3)], &[r(3)], Imm::Const(1)), ret_r3()],
    );
    let (mut f, fb) = func(1);
    let mut call = op(
        Opcode::Call,
        &[],
        &[],
        Imm::Symbol {
            name: "g".into(),
            addend: 0,
        },
    );
    call.implicit_uses = vec![PReg::gpr(3)];
    call.implicit_defs = abi::caller_saved();
    f.set_block(
        fb[0],
        vec![
            MInst::copy(r(20), r(3)),
            MInst::copy(r(40), r(3)),
            call,
            op(Opcode::Add, &[r(3)], &[r(3), r(40)], Imm::None),
            op(Opcode::Add, &[r(4)], &[r(3), r(20)], Imm::None),
            ret_r3(),
        ],
    );
    let mut it = Interpreter::new([&f, &g]);
    assert_eq!(it.call("f", &[5]), Ok(vec![11]));
    let r4 = it.reg(PReg::gpr(4)).unwrap();
    assert_ne!(r4, 11 + 5, "r20 did not survive the call");
    it.set_clobber(false);
    it.call("f", &[5]).unwrap();
    assert_eq!(it.reg(PReg::gpr(4)), Some(16));

    // a host function returning ten words: two in the return area
    let (mut h, hb) = func(1);
    h.name = "h".into();
    h.set_block(hb[0], vec![op(Opcode::Ret, &[], &[], Imm::None)]);
    let mut it = Interpreter::new([&h]);
    it.add_host("ten", |c| {
        let x = c.arg(0, 2)?;
        Ok((0..10).map(|k| x + k).collect())
    });
    assert_eq!(
        it.call_with_results("ten", &[100], 10),
        Ok((100..110).collect())
    );
}

/// After frame lowering the function keeps the convention itself; `ret` checks it.
#[test]
fn a_lowered_frame_must_preserve_callee_saved_registers() {
    let (mut f, fb) = func(1);
    f.set_block(fb[0], vec![set(40, 1), ret_r3()]);
    let mut bad = f.clone();
    bad.frame = Some(crate::frame::compute_layout(&bad.slots, 0, &[]));
    let mut it = Interpreter::new([&f]);
    it.set_reg(PReg::gpr(3), 0);
    it.set_reg(PReg::gpr(40), 7);
    it.call("f", &[2]).unwrap();
    assert_eq!(
        it.reg(PReg::gpr(40)),
        Some(7),
        "restored as the epilogue will"
    );
    let mut it = Interpreter::new([&bad]);
    it.set_reg(PReg::gpr(40), 7);
    let e = it.call("f", &[2]).unwrap_err().to_string();
    assert!(e.contains("r40") && e.contains("preserve"), "{e}");
}

/// Errors are values: unknown functions and symbols, reads of unwritten registers,
/// malformed blocks, and memory faults.
#[test]
fn errors_are_values() {
    let (mut f, fb) = func(1);
    let v = gpr(&mut f);
    f.set_block(fb[0], vec![MInst::copy(r(3), v.into()), ret_r3()]);
    let mut it = Interpreter::new([&f]);
    let e = it.call("f", &[]).unwrap_err().to_string();
    assert!(e.contains("v0 read before it is written"), "{e}");
    assert!(matches!(it.call("nope", &[]), Err(Stop::Error(_))));

    let (mut f, fb) = func(1);
    f.set_block(fb[0], vec![set(4, 0)]);
    let e = Interpreter::new([&f])
        .call("f", &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("ends without a branch"), "{e}");

    // after branch cleanup, a block without a final branch falls through to the next
    // block of the layout
    let (mut f, fb) = func(2);
    f.set_block(fb[0], vec![set(3, 7)]);
    f.set_block(fb[1], vec![ret_r3()]);
    assert_eq!(Interpreter::new([&f]).call("f", &[]), Ok(vec![7]));

    let (mut f, fb) = func(1);
    f.set_block(
        fb[0],
        vec![
            op(
                Opcode::Addpc,
                &[r(4)],
                &[],
                Imm::Symbol {
                    name: "data".into(),
                    addend: 8,
                },
            ),
            op(Opcode::LdD, &[r(3)], &[r(4)], Imm::Const(0)),
            ret_r3(),
        ],
    );
    let mut it = Interpreter::new([&f]);
    assert!(
        it.call("f", &[])
            .unwrap_err()
            .to_string()
            .contains("unknown symbol @data")
    );
    it.set_symbol("data", 0x5000);
    assert_eq!(
        it.call("f", &[]),
        Err(Stop::Fault(Fault {
            kind: FaultKind::Unmapped,
            addr: 0x5008,
            bytes: 8,
            write: false
        }))
    );
    it.memory.map(0x5000, (0..16).collect(), false);
    assert_eq!(it.call("f", &[]), Ok(vec![0x0f0e_0d0c_0b0a_0908]));
}

/// `jr` through a jump table mapped by the interpreter.
#[test]
fn jump_tables_dispatch() {
    let (mut f, b) = func(4);
    let jt = f.jump_tables.push(vec![b[1], b[2], b[3]]);
    let (t, idx, e) = (gpr(&mut f), gpr(&mut f), gpr(&mut f));
    let u = gpr(&mut f);
    f.set_block(
        b[0],
        vec![
            op(Opcode::ShlI, &[idx.into()], &[r(3)], Imm::Const(3)),
            op(Opcode::Addpc, &[t.into()], &[], Imm::JumpTable(jt)),
            op(Opcode::Add, &[e.into()], &[t.into(), idx.into()], Imm::None),
            op(Opcode::LdD, &[u.into()], &[e.into()], Imm::Const(0)),
            op(Opcode::Jr, &[], &[u.into()], Imm::JumpTable(jt)),
        ],
    );
    for (k, &blk) in b[1..].iter().enumerate() {
        f.set_block(blk, vec![set(3, 10 * (k as u64 + 1)), ret_r3()]);
    }
    let mut it = Interpreter::new([&f]);
    for k in 0..3u64 {
        assert_eq!(it.call("f", &[k]), Ok(vec![10 * (k + 1)]));
    }
    assert_eq!(
        it.call("f", &[3]).unwrap_err(),
        Stop::Fault(Fault {
            kind: FaultKind::Unmapped,
            addr: JUMP_TABLE_BASE + 24,
            bytes: 8,
            write: false
        })
    );
}

/// What a machine-IR filetest's `run: %f(7, 3) == 3` will do: parse the text, call by
/// name with argument words, compare the result words (and a trap's code).
#[test]
fn runs_functions_parsed_from_text() {
    let text = "\
machine function @f export {
block0:
    v0 = copy r3
    v1 = copy r4
    pv2, p0 = cmp.eq v1, 0
    (pv2) trap 65537
    v3 = divu v0, v1
    v4 = remu v0, v1
    v5 = add v3, v4
    r3 = copy v5
    ret uses[r3]
}
";
    let f = MachFunction::parse(text).unwrap();
    let mut it = Interpreter::new([&f]);
    assert_eq!(it.call("f", &[7, 3]), Ok(vec![3]));
    assert_eq!(it.call("f", &[7, 0]), Err(Stop::Trap(0x10001)));
}

/// A pure operation may read the result of an operation whose guard was false (what
/// if-conversion's speculation does): the value is undefined, and stays harmless until
/// it reaches the calling convention, memory or a guard. `sel` reads only the operand
/// it selects, `pand` with a false operand is false.
#[test]
fn undefined_values_flow_through_pure_operations_only() {
    let build = |observe_undefined: bool| {
        let (mut mf, b) = func(1);
        let x = gpr(&mut mf);
        let (g, a, t, s) = (gpr(&mut mf), gpr(&mut mf), gpr(&mut mf), gpr(&mut mf));
        let (p, q) = (mf.new_vreg(RegClass::Pred), mf.new_vreg(RegClass::Pred));
        let (u, w) = (mf.new_vreg(RegClass::Pred), mf.new_vreg(RegClass::Pred));
        let result = if observe_undefined { t } else { s };
        mf.set_block(
            b[0],
            vec![
                MInst::copy(x.into(), r(3)),
                // p = x < 10; under !p (false for x = 4) g is never written
                op(
                    Opcode::CmpLtI,
                    &[p.into(), Reg::P0],
                    &[x.into()],
                    Imm::Const(10),
                ),
                op(Opcode::AddI, &[g.into()], &[x.into()], Imm::Const(1))
                    .with_guard(MGuard::new(p.into(), true)),
                // speculated: t and q are undefined, u = p & q false under !p... here
                // p is true, so u is undefined; w = !p & q is false whatever q is
                op(Opcode::AddI, &[t.into()], &[g.into()], Imm::Const(1)),
                op(
                    Opcode::CmpEqI,
                    &[q.into(), Reg::P0],
                    &[g.into()],
                    Imm::Const(0),
                ),
                op(Opcode::Pand, &[u.into()], &[p.into(), q.into()], Imm::None),
                op(Opcode::Pandn, &[w.into()], &[q.into(), p.into()], Imm::None),
                op(Opcode::AddI, &[a.into()], &[x.into()], Imm::Const(100)),
                // sel picks a (p true) and never reads t
                op(
                    Opcode::Sel,
                    &[s.into()],
                    &[p.into(), a.into(), t.into()],
                    Imm::None,
                ),
                op(
                    Opcode::Sel,
                    &[s.into()],
                    &[w.into(), t.into(), s.into()],
                    Imm::None,
                ),
                MInst::copy(r(3), result.into()),
                ret_r3(),
            ],
        );
        // s is defined twice above only to keep the test short: SSA is not checked
        mf
    };
    let good = build(false);
    let mut it = Interpreter::new([&good]);
    assert_eq!(it.call("f", &[4]), Ok(vec![104]));
    let bad = build(true);
    let mut it = Interpreter::new([&bad]);
    let e = it.call("f", &[4]).unwrap_err().to_string();
    assert!(e.contains("read before it is written"), "{e}");
}
