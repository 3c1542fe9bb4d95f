//! The fold pass (`opt::fold`): random operations on random constants fold to what
//! the IR computes (the interpreter on the original function, the evaluator on the
//! folded graph, the interpreter again on its sequentialization), except what must
//! not fold (traps, NaNs from arithmetic); every algebraic identity on edge values;
//! safe divisions; constants carried into γ arms and θ bodies; a fixpoint on every IR
//! filetest.

mod common;

use common::differential::filetests;
use common::passes::*;
use proptest::prelude::*;
use vliw_ir::write::format_int;
use vliw_ir::{DataValue, Module, Opcode, Type, parse_module, verify_module};
use vliw_rvsdg::{
    NodeKind, Op, Origin, Report, Sequentializer, build_module, sequentialize_module,
};

const INTS: [Type; 6] = [
    Type::I1,
    Type::I8,
    Type::I16,
    Type::I32,
    Type::I64,
    Type::I128,
];
const FLOATS: [Type; 2] = [Type::F32, Type::F64];

/// `vK = CONST` of type `ty` with these bits (masked).
fn constant_line(k: usize, ty: Type, bits: u128) -> String {
    let bits = bits & ty.mask();
    match ty {
        Type::F32 => format!("    v{k} = f32const 0x{bits:08x}\n"),
        Type::F64 => format!("    v{k} = f64const 0x{bits:016x}\n"),
        _ => format!("    v{k} = iconst.{ty} {}\n", format_int(ty, bits)),
    }
}

fn pick<T: Copy>(list: &[T], i: u8) -> T {
    list[i as usize % list.len()]
}

/// A function `@f` that computes one operation on constants: the operation picked by
/// `shape` and `choice`, its operands' bits from `bits`. Returns the text and the
/// opcode.
fn case(shape: u8, choice: [u8; 3], bits: [u128; 3]) -> (String, Opcode) {
    use Opcode::*;
    let [c0, c1, c2] = choice;
    // (operand types, instruction after `=`, result types)
    let (operands, inst, results): (Vec<Type>, String, Vec<Type>) = match shape % 16 {
        0 => {
            let op = pick(
                &[
                    Iadd, Isub, Imul, Udiv, Sdiv, Urem, Srem, Umulhi, Smulhi, Band, Bor, Bxor,
                    Smin, Smax, Umin, Umax,
                ],
                c0,
            );
            let t = pick(&INTS, c1);
            (vec![t, t], format!("{op} v0, v1"), vec![t])
        }
        1 => {
            let op = pick(&[Ishl, Ushr, Sshr, Rotl, Rotr], c0);
            let (t, u) = (pick(&INTS, c1), pick(&INTS, c2));
            (vec![t, u], format!("{op} v0, v1"), vec![t])
        }
        2 => {
            let op = pick(
                &[
                    UaddOverflow,
                    SaddOverflow,
                    UsubOverflow,
                    SsubOverflow,
                    UmulOverflow,
                    SmulOverflow,
                ],
                c0,
            );
            let t = pick(&INTS, c1);
            (vec![t, t], format!("{op} v0, v1"), vec![t, Type::I1])
        }
        3 => {
            let op = pick(&[Ineg, Bnot, Clz, Ctz, Popcnt, Bitrev, Iabs, Bswap], c0);
            let t = if op == Bswap {
                pick(&[Type::I16, Type::I32, Type::I64, Type::I128], c1)
            } else {
                pick(&INTS, c1)
            };
            (vec![t], format!("{op} v0"), vec![t])
        }
        4 => {
            let cc = pick(&vliw_ir::IntCC::ALL, c0);
            let t = pick(&[INTS.as_slice(), &[Type::Ptr]].concat(), c1);
            (vec![t, t], format!("icmp {cc} v0, v1"), vec![Type::I1])
        }
        5 => {
            // extensions and reductions between two different widths
            let (a, b) = (pick(&INTS, c1), pick(&INTS, c2));
            let (from, to) = if a.bits() == b.bits() {
                (Type::I8, Type::I64)
            } else {
                (a, b)
            };
            let op = if from.bits() > to.bits() {
                Ireduce
            } else {
                pick(&[Uextend, Sextend], c0)
            };
            (vec![from], format!("{op}.{to} v0"), vec![to])
        }
        6 => {
            let op = pick(&[FcvtFromUint, FcvtFromSint], c0);
            let from = pick(&INTS[1..], c1);
            let to = pick(&FLOATS, c2);
            (vec![from], format!("{op}.{to} v0"), vec![to])
        }
        7 => {
            let op = pick(&[FcvtToUintSat, FcvtToSintSat], c0);
            let from = pick(&FLOATS, c1);
            let to = pick(&INTS[1..], c2);
            (vec![from], format!("{op}.{to} v0"), vec![to])
        }
        8 => {
            let (from, to) = pick(
                &[
                    (Type::I32, Type::F32),
                    (Type::F32, Type::I32),
                    (Type::I64, Type::F64),
                    (Type::F64, Type::I64),
                    (Type::I64, Type::Ptr),
                    (Type::Ptr, Type::I64),
                ],
                c0,
            );
            (vec![from], format!("bitcast.{to} v0"), vec![to])
        }
        9 => {
            if c0 % 2 == 0 {
                (vec![Type::F32], "fpromote v0".into(), vec![Type::F64])
            } else {
                (vec![Type::F64], "fdemote v0".into(), vec![Type::F32])
            }
        }
        10 => {
            let op = pick(&[Fadd, Fsub, Fmul, Fdiv, Frem, Fmin, Fmax, Fcopysign], c0);
            let t = pick(&FLOATS, c1);
            (vec![t, t], format!("{op} v0, v1"), vec![t])
        }
        11 => {
            let op = pick(&[Fneg, Fabs, Sqrt, Floor, Ceil, Trunc, Nearest, Round], c0);
            let t = pick(&FLOATS, c1);
            (vec![t], format!("{op} v0"), vec![t])
        }
        12 => {
            let t = pick(&FLOATS, c1);
            (vec![t, t, t], "fma v0, v1, v2".into(), vec![t])
        }
        13 => {
            let cc = pick(&vliw_ir::FloatCC::ALL, c0);
            let t = pick(&FLOATS, c1);
            (vec![t, t], format!("fcmp {cc} v0, v1"), vec![Type::I1])
        }
        14 => {
            let t = pick(&[INTS.as_slice(), &FLOATS, &[Type::Ptr]].concat(), c1);
            (vec![Type::I1, t, t], "select v0, v1, v2".into(), vec![t])
        }
        _ => (
            vec![Type::Ptr, Type::I64],
            "ptradd v0, v1".into(),
            vec![Type::Ptr],
        ),
    };
    let opcode = Opcode::from_name(inst.split(['.', ' ']).next().unwrap()).unwrap();
    let rets: Vec<String> = results.iter().map(|t| t.to_string()).collect();
    let mut text = format!("function @f() -> {} export {{\nblock0:\n", rets.join(", "));
    for (k, &t) in operands.iter().enumerate() {
        text += &constant_line(k, t, bits[k]);
    }
    let outs: Vec<String> = (0..results.len()).map(|i| format!("v{}", 10 + i)).collect();
    text += &format!(
        "    {} = {inst}\n    return {}\n}}\n",
        outs.join(", "),
        outs.join(", ")
    );
    (text, opcode)
}

/// Operations that give a NaN operand's bits back (or with the sign changed): they
/// fold even to a NaN.
fn moves_bits(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Bitcast | Opcode::Fneg | Opcode::Fabs | Opcode::Fcopysign | Opcode::Select
    )
}

/// Bits worth trying: random, small, the bounds of the integer types, and the
/// special floats of both widths.
fn operand_bits() -> impl Strategy<Value = u128> {
    let specials: Vec<u128> = vec![
        0,
        1,
        2,
        3,
        7,
        u128::MAX,
        1 << 127,
        (1 << 127) - 1,
        0x80,
        0x7f,
        0x8000,
        0x8000_0000,
        0x7fff_ffff,
        0x8000_0000_0000_0000,
        0x7fff_ffff_ffff_ffff,
        0x3f80_0000,           // 1.0f32
        0xbf80_0000,           // -1.0f32
        0x7f80_0000,           // inf
        0xff80_0000,           // -inf
        0x7fc0_0000,           // NaN
        0x7f80_0001,           // signalling NaN
        0x0000_0001,           // smallest subnormal
        0x7f7f_ffff,           // largest f32
        0x4f00_0000,           // 2^31
        0x5f00_0000,           // 2^63
        0x3fc0_0000,           // 1.5
        0x3ff0_0000_0000_0000, // 1.0f64
        0xbff0_0000_0000_0000, // -1.0f64
        0x7ff0_0000_0000_0000, // inf
        0xfff0_0000_0000_0000, // -inf
        0x7ff8_0000_0000_0000, // NaN
        0x7ff0_0000_0000_0001, // signalling NaN
        0x43e0_0000_0000_0000, // 2^63
        0xc3e0_0000_0000_0000, // -2^63
        0x4330_0000_0000_0001, // 2^52 + 1
        0x3ff8_0000_0000_0000, // 1.5
        0x4004_0000_0000_0000, // 2.5
        0x0010_0000_0000_0000, // smallest normal
    ];
    prop_oneof![
        any::<u128>(),
        any::<u64>().prop_map(u128::from),
        proptest::sample::select(specials),
    ]
}

fn is_nan(v: &DataValue) -> bool {
    v.is_nan()
}

/// The module's functions replaced by the graph's sequentialization.
fn sequentialized(module: &Module, rm: &vliw_rvsdg::RvsdgModule) -> Module {
    let mut new = module.clone();
    sequentialize_module(
        rm,
        &mut new,
        Sequentializer::Structural,
        Default::default(),
        &mut Report::default(),
    );
    verify_module(&new).unwrap_or_else(|e| panic!("{e}\n{new}"));
    new
}

fn check_folding(shape: u8, choice: [u8; 3], bits: [u128; 3]) -> Result<(), String> {
    let (text, opcode) = case(shape, choice, bits);
    let (module, rm, _) = through(&text, &[FOLD]);
    let want = interpret(&module, "f", &[]);
    let got = evaluate(&rm, &module, "f", &[]);
    if !agree(&want, &got) {
        return Err(format!(
            "{text}: the IR gives {want:?}, the folded graph {got:?}"
        ));
    }
    let again = interpret(&sequentialized(&module, &rm), "f", &[]);
    if !agree(&want, &again) {
        return Err(format!(
            "{text}: the IR gives {want:?}, sequentialized {again:?}"
        ));
    }
    let folded = returned(&rm, "f")
        .iter()
        .all(|&o| constant(&rm, o).is_some());
    let should = match &want {
        Ok(vals) => moves_bits(opcode) || !vals.iter().any(is_nan),
        Err(_) => false,
    };
    if folded != should {
        return Err(format!(
            "{text}: folded: {folded}, should be: {should} ({want:?})\n{}",
            rm.graph
        ));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn folding_computes_what_the_ir_computes(
        shape in 0..16u8,
        choice in any::<[u8; 3]>(),
        b0 in operand_bits(),
        b1 in operand_bits(),
        b2 in operand_bits(),
    ) {
        if let Err(e) = check_folding(shape, choice, [b0, b1, b2]) {
            prop_assert!(false, "{}", e);
        }
    }
}

#[test]
fn every_shape_and_choice_on_edge_values() {
    // every operation of the table at least once, on a few fixed operands
    for shape in 0..16u8 {
        for c0 in 0..16u8 {
            for c1 in 0..8u8 {
                for bits in [[0, 0, 0], [1, 2, 3], [u128::MAX, 1 << 127, 7]] {
                    check_folding(shape, [c0, c1, c1 + 1], bits).unwrap();
                }
            }
        }
    }
}

/// What a rule must leave as the function's returned value.
#[derive(Debug)]
enum Expect {
    /// The λ's parameter `k`.
    Param(u32),
    /// A constant of these bits.
    Const(u128),
    /// A node whose operation prints so (`ineg`, `iadd`, `udiv safe`).
    Op(&'static str),
}

/// Edge values of a type, as arguments.
fn edges(ty: Type) -> Vec<DataValue> {
    let bits: Vec<u128> = match ty {
        Type::F32 => [
            0f32,
            -0.0,
            1.0,
            -1.0,
            1.5,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            1e-45,
        ]
        .iter()
        .map(|x| x.to_bits() as u128)
        .collect(),
        Type::F64 => [0f64, -0.0, 1.0, -1.0, -2.5, f64::INFINITY, f64::NAN, 5e-324]
            .iter()
            .map(|x| x.to_bits() as u128)
            .collect(),
        _ => {
            let m = ty.mask();
            let min = 1u128 << (ty.bits() - 1);
            vec![
                0,
                1,
                2,
                7,
                m,
                m - 1,
                min,
                min - 1,
                0x5a5a_5a5a_5a5a_5a5a & m,
            ]
        }
    };
    bits.into_iter()
        .map(|b| DataValue::from_bits(ty, b & ty.mask()))
        .collect()
}

/// `@f(params) -> ret` with `body`, whose result is `v9`, folded: its result is what
/// `expect` says, and it computes what the original does on edge values.
fn rule(params: &[Type], ret: Type, body: &str, expect: Expect) {
    let names: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(i, t)| format!("v{i}: {t}"))
        .collect();
    let types: Vec<String> = params.iter().map(|t| t.to_string()).collect();
    let block = if params.is_empty() {
        "block0".to_string()
    } else {
        format!("block0({})", names.join(", "))
    };
    let text = format!(
        "function @f({}) -> {ret} export {{\n{block}:\n{body}\n    return v9\n}}\n",
        types.join(", ")
    );
    let (module, mut rm, _) = through(&text, &[FOLD]);
    dne(&mut rm);
    let r = returned(&rm, "f")[0];
    let ok = match expect {
        Expect::Param(k) => matches!(r, Origin::Arg(_, i) if i == k),
        Expect::Const(bits) => constant(&rm, r) == Some(bits),
        Expect::Op(label) => op_of(&rm, r).is_some_and(|op| op.to_string() == label),
    };
    assert!(ok, "{text}: expected {expect:?}, got\n{}", rm.graph);
    let args: Vec<Vec<DataValue>> = match params {
        [] => vec![vec![]],
        [a] => edges(*a).into_iter().map(|x| vec![x]).collect(),
        [a, b] => edges(*a)
            .into_iter()
            .flat_map(|x| edges(*b).into_iter().map(move |y| vec![x, y]))
            .collect(),
        _ => unreachable!(),
    };
    for args in args {
        let want = interpret(&module, "f", &args);
        let got = evaluate(&rm, &module, "f", &args);
        assert!(agree(&want, &got), "{text}{args:?}: {want:?} / {got:?}");
    }
}

#[test]
fn integer_identities() {
    use Expect::*;
    use Type::*;
    let x = [I64];
    let c = |v: &str| format!("    v1 = iconst.i64 {v}\n");
    let bin = |op: &str, k: &str| format!("{}    v9 = {op} v0, v1", c(k));
    rule(&x, I64, &bin("iadd", "0"), Param(0));
    rule(
        &x,
        I64,
        &format!("{}    v9 = iadd v1, v0", c("0")),
        Param(0),
    );
    rule(&x, I64, &bin("isub", "0"), Param(0));
    rule(&x, I64, "    v9 = isub v0, v0", Const(0));
    rule(
        &x,
        I64,
        &format!("{}    v9 = isub v1, v0", c("0")),
        Op("ineg"),
    );
    rule(&x, I64, &bin("isub", "5"), Op("iadd"));
    rule(&x, I64, &bin("imul", "1"), Param(0));
    rule(&x, I64, &bin("imul", "0"), Const(0));
    rule(&x, I64, &bin("imul", "-1"), Op("ineg"));
    rule(&x, I64, &bin("band", "0"), Const(0));
    rule(&x, I64, &bin("band", "-1"), Param(0));
    rule(&x, I64, "    v9 = band v0, v0", Param(0));
    rule(&x, I64, &bin("bor", "0"), Param(0));
    rule(&x, I64, &bin("bor", "-1"), Const(u64::MAX as u128));
    rule(&x, I64, "    v9 = bor v0, v0", Param(0));
    rule(&x, I64, &bin("bxor", "0"), Param(0));
    rule(&x, I64, "    v9 = bxor v0, v0", Const(0));
    rule(&x, I64, &bin("bxor", "-1"), Op("bnot"));
    rule(&x, I64, &bin("ishl", "0"), Param(0));
    rule(&x, I64, &bin("ushr", "64"), Param(0));
    rule(&x, I64, &bin("sshr", "128"), Param(0));
    rule(&x, I64, &bin("rotl", "-64"), Param(0));
    rule(
        &x,
        I64,
        &format!("{}    v9 = ishl v1, v0", c("0")),
        Const(0),
    );
    rule(
        &x,
        I64,
        &format!("{}    v9 = sshr v1, v0", c("-1")),
        Const(u64::MAX as u128),
    );
    rule(&x, I64, &bin("umulhi", "1"), Const(0));
    rule(&x, I64, &bin("smulhi", "0"), Const(0));
    rule(&x, I64, &bin("umin", "0"), Const(0));
    rule(&x, I64, &bin("umax", "0"), Param(0));
    rule(&x, I64, &bin("umin", "-1"), Param(0));
    rule(&x, I64, &bin("smax", "-9223372036854775808"), Param(0));
    rule(&x, I64, &bin("smin", "9223372036854775807"), Param(0));
    rule(
        &x,
        I64,
        &bin("smax", "9223372036854775807"),
        Const(i64::MAX as u128),
    );
    rule(&x, I64, "    v9 = smin v0, v0", Param(0));
    rule(&x, I64, "    v1 = ineg v0\n    v9 = ineg v1", Param(0));
    rule(&x, I64, "    v1 = bnot v0\n    v9 = bnot v1", Param(0));
    rule(&x, I64, "    v1 = iabs v0\n    v9 = iabs v1", Op("iabs"));
    // (x + 3) + 5 is x + 8; (x * 3) * 5 is x * 15; (x - 3) - 5 is x + -8
    let chain = |op: &str| {
        format!(
            "{}    v2 = {op} v0, v1\n    v3 = iconst.i64 5\n    v9 = {op} v2, v3",
            c("3")
        )
    };
    rule(&x, I64, &chain("iadd"), Op("iadd"));
    rule(&x, I64, &chain("imul"), Op("imul"));
    rule(&x, I64, &chain("isub"), Op("iadd"));
    rule(&x, I64, &chain("bxor"), Op("bxor"));
    // the constant was combined: one `iadd` is left
    let (_, mut rm, _) = through(
        &format!(
            "function @f(i64) -> i64 export {{\nblock0(v0: i64):\n{}    return v9\n}}\n",
            chain("iadd") + "\n"
        ),
        &[FOLD],
    );
    dne(&mut rm);
    let adds = ops_below(&rm, "f")
        .iter()
        .filter(|(_, o)| o.opcode() == Some(Opcode::Iadd))
        .count();
    assert_eq!(adds, 1, "{}", rm.graph);
}

#[test]
fn comparisons_and_selects() {
    use Expect::*;
    use Type::*;
    let cmp = |cc: &str, k: &str| format!("    v1 = iconst.i32 {k}\n    v9 = icmp {cc} v0, v1");
    rule(&[I32], I1, &cmp("ult", "0"), Const(0));
    rule(&[I32], I1, &cmp("uge", "0"), Const(1));
    rule(&[I32], I1, &cmp("ugt", "-1"), Const(0));
    rule(&[I32], I1, &cmp("ule", "-1"), Const(1));
    rule(&[I32], I1, &cmp("slt", "-2147483648"), Const(0));
    rule(&[I32], I1, &cmp("sge", "-2147483648"), Const(1));
    rule(&[I32], I1, &cmp("sgt", "2147483647"), Const(0));
    rule(&[I32], I1, &cmp("sle", "2147483647"), Const(1));
    rule(&[I32], I1, &cmp("slt", "5"), Op("icmp slt"));
    // a constant on the left moves right, the condition swapped
    rule(
        &[I32],
        I1,
        "    v1 = iconst.i32 5\n    v9 = icmp slt v1, v0",
        Op("icmp sgt"),
    );
    for (cc, v) in [
        ("eq", 1),
        ("ne", 0),
        ("ule", 1),
        ("ult", 0),
        ("sge", 1),
        ("sgt", 0),
    ] {
        rule(&[I32], I1, &format!("    v9 = icmp {cc} v0, v0"), Const(v));
    }
    rule(
        &[I1],
        I1,
        "    v1 = iconst.i1 0\n    v9 = icmp ne v0, v1",
        Param(0),
    );
    rule(
        &[I1],
        I1,
        "    v1 = iconst.i1 1\n    v9 = icmp eq v0, v1",
        Param(0),
    );
    rule(&[I1, I32], I32, "    v9 = select v0, v1, v1", Param(1));
    rule(
        &[I32, I32],
        I32,
        "    v2 = iconst.i1 1\n    v9 = select v2, v0, v1",
        Param(0),
    );
    rule(
        &[I32, I32],
        I32,
        "    v2 = iconst.i1 0\n    v9 = select v2, v0, v1",
        Param(1),
    );
    rule(
        &[I1],
        I1,
        "    v1 = iconst.i1 1\n    v2 = iconst.i1 0\n    v9 = select v0, v1, v2",
        Param(0),
    );
    rule(
        &[I1],
        I1,
        "    v1 = iconst.i1 1\n    v2 = iconst.i1 0\n    v9 = select v0, v2, v1",
        Op("bnot"),
    );
    // x % 4 == 0 (signed) is a mask
    rule(
        &[I32],
        I1,
        "    v1 = iconst.i32 -4\n    v2 = srem v0, v1\n    v3 = iconst.i32 0\n    v9 = icmp eq v2, v3",
        Op("icmp eq"),
    );
}

/// The unsigned range of a value decides a compare with a constant outside it: a
/// narrow value widened and moved up by a constant that cannot wrap is never 0 (a
/// divisor `y as u64 + 10`), and a value that a chain of `if`s picks from constants
/// (a γ's output, whose arms give the constants) is below their largest.
#[test]
fn ranges_decide_compares() {
    use Expect::*;
    use Type::*;
    let widened = |k: &str, cc: &str, c: &str| {
        format!(
            "    v1 = uextend.i64 v0\n    v2 = iconst.i64 {k}\n    v3 = iadd v1, v2\n    v4 = iconst.i64 {c}\n    v9 = icmp {cc} v3, v4"
        )
    };
    rule(&[I32], I1, &widened("10", "eq", "0"), Const(0));
    rule(&[I32], I1, &widened("10", "ne", "0"), Const(1));
    rule(&[I32], I1, &widened("10", "ugt", "9"), Const(1));
    rule(&[I32], I1, &widened("10", "sgt", "-1"), Const(1));
    rule(&[I32], I1, &widened("10", "slt", "0"), Const(0));
    rule(
        &[I32],
        I1,
        &widened("10", "eq", "4294967305"),
        Op("icmp eq"),
    );
    rule(&[I32], I1, &widened("10", "eq", "4294967306"), Const(0));
    // low bits known and not all zero: `2 * x + 1` is never 0, `2 * x + 2` may be
    let odd = |c: &str, cc: &str| {
        format!(
            "    v1 = iconst.i32 1\n    v2 = ishl v0, v1\n    v3 = iconst.i32 {c}\n    v4 = iadd v2, v3\n    v5 = iconst.i32 0\n    v9 = icmp {cc} v4, v5"
        )
    };
    rule(&[I32], I1, &odd("1", "eq"), Const(0));
    rule(&[I32], I1, &odd("1", "ne"), Const(1));
    rule(&[I32], I1, &odd("3", "eq"), Const(0));
    rule(&[I32], I1, &odd("2", "eq"), Op("icmp eq"));
    // `x * m` with `m` even has `m`'s trailing zeros: `x * 2 + 1` (rustc's `2 * x + 1`
    // before strength reduction), `x * 12 + 5` and `x * 0 + 1` are never 0; `x * 3 + 1`
    // and `x * 12 + 4` may be
    let scaled = |m: &str, c: &str| {
        format!(
            "    v1 = iconst.i32 {m}\n    v2 = imul v0, v1\n    v3 = iconst.i32 {c}\n    v4 = iadd v2, v3\n    v5 = iconst.i32 0\n    v9 = icmp eq v4, v5"
        )
    };
    rule(&[I32], I1, &scaled("2", "1"), Const(0));
    rule(&[I32], I1, &scaled("12", "5"), Const(0));
    rule(&[I32], I1, &scaled("12", "4"), Op("icmp eq"));
    rule(&[I32], I1, &scaled("3", "1"), Op("icmp eq"));
    rule(&[I32], I1, &scaled("0", "1"), Const(0));
    // a scaled index's range: `(x & 3) << 3` and `(x & 3) * 8` are at most 24
    let index = |op: &str, k: &str, bound: &str| {
        format!(
            "    v1 = iconst.i32 3\n    v2 = band v0, v1\n    v3 = iconst.i32 {k}\n    v4 = {op} v2, v3\n    v5 = iconst.i32 {bound}\n    v9 = icmp ult v4, v5"
        )
    };
    rule(&[I32], I1, &index("ishl", "3", "32"), Const(1));
    rule(&[I32], I1, &index("imul", "8", "25"), Const(1));
    rule(&[I32], I1, &index("imul", "8", "24"), Op("icmp ult"));
    // a larger shift: the range crosses the bound, nothing is decided
    rule(&[I32], I1, &index("ishl", "30", "32"), Op("icmp ult"));
    // an addition that may wrap bounds nothing: 0xff & x, minus 1
    rule(
        &[I32],
        I1,
        "    v1 = iconst.i32 255\n    v2 = band v0, v1\n    v3 = iconst.i32 -1\n    v4 = iadd v2, v3\n    v5 = iconst.i32 256\n    v9 = icmp ult v4, v5",
        Op("icmp ult"),
    );
    let picked = |cc: &str, c: &str| {
        format!(
            "    v1 = iconst.i32 0\n    v2 = icmp slt v0, v1\n    brif v2, block1, block2\nblock1:\n    v3 = iconst.i64 3\n    jump block4(v3)\nblock2:\n    v6 = iconst.i32 100\n    v7 = icmp slt v0, v6\n    brif v7, block5, block6\nblock5:\n    v10 = iconst.i64 7\n    jump block4(v10)\nblock6:\n    v11 = iconst.i64 5\n    jump block4(v11)\nblock4(v4: i64):\n    v5 = iconst.i64 {c}\n    v9 = icmp {cc} v4, v5"
        )
    };
    rule(&[I32], I1, &picked("ult", "8"), Const(1));
    rule(&[I32], I1, &picked("uge", "8"), Const(0));
    rule(&[I32], I1, &picked("ugt", "2"), Const(1));
    rule(&[I32], I1, &picked("eq", "4"), Op("icmp eq"));
    rule(&[I32], I1, &picked("eq", "9"), Const(0));
    rule(&[I32], I1, &picked("slt", "-1"), Const(0));
    rule(&[I32], I1, &picked("ult", "7"), Op("icmp ult"));
    // arms whose path does not read the value give `undef` (here both arms of the
    // inner γ, as MIR's jump threading leaves a class it does not use): they bound
    // nothing, the other arms decide
    let undef_arms = "    v1 = iconst.i32 0\n    v2 = icmp slt v0, v1\n    brif v2, block1, block2\nblock1:\n    v3 = iconst.i64 3\n    jump block4(v3)\nblock2:\n    v6 = iconst.i32 100\n    v7 = icmp slt v0, v6\n    brif v7, block5, block6\nblock5:\n    v10 = undef.i64\n    jump block4(v10)\nblock6:\n    v11 = undef.i64\n    jump block4(v11)\nblock4(v4: i64):\n    v5 = iconst.i64 8\n    v9 = icmp ult v4, v5";
    rule(&[I32], I1, undef_arms, Const(1));
}

/// Two compares of one value with constants, joined by `and` or `or`: the same
/// boolean for every value of an `i8`, and one range test (`icmp ule` or `icmp ugt` of
/// the value moved down by the lower bound) wherever the two bound a range.
#[test]
fn two_bounds_of_one_value_are_one_range_test() {
    let conds = ["ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge", "eq"];
    let consts = [-128, -100, -1, 0, 25, 97, 127];
    let mut merged = 0;
    for op in ["band", "bor"] {
        for c1 in conds {
            for c2 in conds {
                for k1 in consts {
                    for k2 in consts {
                        let text = format!(
                            "function @f(i8) -> i1 export {{\nblock0(v0: i8):\n    \
                             v1 = iconst.i8 {k1}\n    v2 = icmp {c1} v0, v1\n    \
                             v3 = iconst.i8 {k2}\n    v4 = icmp {c2} v0, v3\n    \
                             v9 = {op} v2, v4\n    return v9\n}}\n"
                        );
                        let (module, mut rm, _) = through(&text, &[FOLD]);
                        dne(&mut rm);
                        let r = returned(&rm, "f")[0];
                        let label = op_of(&rm, r).map(|o| o.to_string()).unwrap_or_default();
                        if label == "icmp ule" || label == "icmp ugt" {
                            merged += 1;
                        }
                        // each bound, its neighbours, and the ends of both signednesses
                        let mut xs: Vec<i32> = vec![0, 127, -128, -1];
                        for k in [k1, k2] {
                            xs.extend([k - 1, k, k + 1]);
                        }
                        for x in xs {
                            let args = [DataValue::from_bits(Type::I8, x as u8 as u128)];
                            let want = interpret(&module, "f", &args);
                            let got = evaluate(&rm, &module, "f", &args);
                            assert!(
                                agree(&want, &got),
                                "{text}{x}: {want:?} / {got:?}\n{}",
                                rm.graph
                            );
                        }
                    }
                }
            }
        }
    }
    // the pairs of a lower and an upper bound of one signedness, non-empty
    assert!(merged > 300, "only {merged} range tests");
}

/// A boolean chosen between a boolean and a constant is logic, and the negation of a
/// compare is the inverse compare.
#[test]
fn boolean_selects_and_negated_compares() {
    use Expect::*;
    use Type::*;
    let sel = |x: &str, y: &str| {
        format!("    v2 = iconst.i1 0\n    v3 = iconst.i1 1\n    v9 = select v0, {x}, {y}")
    };
    rule(&[I1, I1], I1, &sel("v1", "v2"), Op("band"));
    rule(&[I1, I1], I1, &sel("v3", "v1"), Op("bor"));
    rule(&[I1, I1], I1, &sel("v1", "v3"), Op("bor"));
    rule(&[I1, I1], I1, &sel("v2", "v1"), Op("band"));
    rule(
        &[I32],
        I1,
        "    v1 = iconst.i32 5\n    v2 = icmp slt v0, v1\n    v9 = bnot v2",
        Op("icmp sge"),
    );
}

#[test]
fn conversions() {
    use Expect::*;
    use Type::*;
    rule(
        &[I8],
        I64,
        "    v1 = uextend.i32 v0\n    v9 = uextend.i64 v1",
        Op("uextend"),
    );
    rule(
        &[I8],
        I64,
        "    v1 = sextend.i32 v0\n    v9 = sextend.i64 v1",
        Op("sextend"),
    );
    rule(
        &[I8],
        I64,
        "    v1 = uextend.i32 v0\n    v9 = sextend.i64 v1",
        Op("uextend"),
    );
    rule(
        &[I8],
        I8,
        "    v1 = uextend.i64 v0\n    v9 = ireduce.i8 v1",
        Param(0),
    );
    rule(
        &[I8],
        I16,
        "    v1 = sextend.i64 v0\n    v9 = ireduce.i16 v1",
        Op("sextend"),
    );
    rule(
        &[I32],
        I8,
        "    v1 = sextend.i64 v0\n    v9 = ireduce.i8 v1",
        Op("ireduce"),
    );
    rule(
        &[I64],
        I8,
        "    v1 = ireduce.i32 v0\n    v9 = ireduce.i8 v1",
        Op("ireduce"),
    );
    rule(
        &[I64],
        I64,
        "    v1 = bitcast.f64 v0\n    v9 = bitcast.i64 v1",
        Param(0),
    );
    // (uextend then sextend of a narrower value: what is left reads the parameter)
    let (_, mut rm, _) = through(
        "function @f(i8) -> i64 export {\nblock0(v0: i8):\n    v1 = uextend.i32 v0\n    \
         v2 = sextend.i64 v1\n    return v2\n}\n",
        &[FOLD],
    );
    dne(&mut rm);
    assert_eq!(ops_below(&rm, "f").len(), 1, "{}", rm.graph);
}

#[test]
fn overflow_operations() {
    use Type::*;
    for (op, k) in [
        ("uadd_overflow", 0),
        ("sadd_overflow", 0),
        ("usub_overflow", 0),
        ("ssub_overflow", 0),
        ("umul_overflow", 1),
        ("smul_overflow", 1),
        ("umul_overflow", 0),
        ("smul_overflow", 0),
    ] {
        for ty in [I1, I8, I64] {
            let text = format!(
                "function @f({ty}) -> {ty}, i1 export {{\nblock0(v0: {ty}):\n    v1 = iconst.{ty} {k}\n    \
                 v2, v3 = {op} v0, v1\n    return v2, v3\n}}\n"
            );
            let (module, mut rm, report) = through(&text, &[FOLD]);
            dne(&mut rm);
            // in i1, 1 is -1: the signed multiplication by it overflows on -1
            let expect_rule = !(op == "smul_overflow" && k == 1 && ty == I1);
            assert_eq!(
                report.get("fold.identities") == 1,
                expect_rule,
                "{text}{}",
                rm.graph
            );
            for x in edges(ty) {
                let want = interpret(&module, "f", &[x]);
                assert!(
                    agree(&want, &evaluate(&rm, &module, "f", &[x])),
                    "{text} {x}"
                );
            }
        }
    }
}

#[test]
fn float_identities_only_where_exact() {
    use Expect::*;
    use Type::*;
    let c = |v: &str| format!("    v1 = f64const {v}\n");
    let bin = |op: &str, k: &str| format!("{}    v9 = {op} v0, v1", c(k));
    rule(&[F64], F64, &bin("fmul", "1.0"), Param(0));
    rule(
        &[F64],
        F64,
        &format!("{}    v9 = fmul v1, v0", c("1.0")),
        Param(0),
    );
    rule(&[F64], F64, &bin("fdiv", "1.0"), Param(0));
    // a NaN times -1 keeps its sign on the host: not `fneg`
    rule(&[F64], F64, &bin("fmul", "-1.0"), Op("fmul"));
    rule(&[F64], F64, &bin("fdiv", "-1.0"), Op("fdiv"));
    rule(&[F64], F64, &bin("fsub", "0.0"), Param(0));
    rule(&[F64], F64, &bin("fadd", "-0.0"), Param(0));
    // -0 + 0 is +0, -0 - -0 is +0: not identities
    rule(&[F64], F64, &bin("fadd", "0.0"), Op("fadd"));
    rule(&[F64], F64, &bin("fsub", "-0.0"), Op("fsub"));
    rule(&[F64], F64, &bin("fmul", "0.0"), Op("fmul"));
    rule(&[F64], F64, "    v1 = fneg v0\n    v9 = fneg v1", Param(0));
    rule(
        &[F32],
        F32,
        "    v1 = fabs v0\n    v9 = fabs v1",
        Op("fabs"),
    );
    rule(
        &[F32],
        F32,
        "    v1 = fneg v0\n    v9 = fabs v1",
        Op("fabs"),
    );
    rule(
        &[F32],
        F32,
        "    v1 = f32const 1.0\n    v9 = fmul v0, v1",
        Param(0),
    );
}

#[test]
fn divisions_by_safe_constants_lose_their_state() {
    use Expect::*;
    use Type::*;
    let div = |op: &str, k: &str| format!("    v1 = iconst.i32 {k}\n    v9 = {op} v0, v1");
    rule(&[I32], I32, &div("udiv", "7"), Op("udiv safe"));
    rule(&[I32], I32, &div("srem", "-7"), Op("srem safe"));
    rule(&[I32], I32, &div("udiv", "1"), Param(0));
    rule(&[I32], I32, &div("srem", "1"), Const(0));
    rule(&[I32], I32, &div("urem", "0"), Op("urem"));
    // by -1: the dividend may be the minimum (it traps)
    rule(&[I32], I32, &div("sdiv", "-1"), Op("sdiv"));
    // ... unless it cannot be
    rule(
        &[I32],
        I32,
        "    v1 = iconst.i32 1\n    v2 = ushr v0, v1\n    v3 = iconst.i32 -1\n    v9 = sdiv v2, v3",
        Op("ineg"),
    );
    rule(
        &[I8],
        I32,
        "    v1 = sextend.i32 v0\n    v3 = iconst.i32 -1\n    v9 = srem v1, v3",
        Const(0),
    );
    // a safe division's I/O state goes around it: the λ's I/O result is its argument
    let text = "function @f(i32) -> i32 export {\nblock0(v0: i32):\n    v1 = iconst.i32 10\n    \
                v2 = udiv v0, v1\n    return v2\n}\n";
    let (_, rm, report) = through(text, &[FOLD]);
    assert_eq!(report.get("fold.safe-divisions"), 1);
    let g = &rm.graph;
    let body = g.lambda_body(rm.lambda("f").unwrap());
    let io = *g.results(body).last().unwrap();
    assert_eq!(io, Origin::Arg(body, 2), "{g}");
    // both constant, after safety: folded; by zero: left to trap
    rule(
        &[],
        I32,
        "    v0 = iconst.i32 -7\n    v1 = iconst.i32 2\n    v9 = sdiv v0, v1",
        Const(0xffff_fffd),
    );
    rule(
        &[],
        I32,
        "    v0 = iconst.i32 -2147483648\n    v1 = iconst.i32 -1\n    v9 = sdiv v0, v1",
        Op("sdiv"),
    );
}

/// A module's λ `name` after fold and dne, and the module.
fn folded(text: &str, name: &str) -> (Module, vliw_rvsdg::RvsdgModule, Report) {
    let (module, mut rm, report) = through(text, &[FOLD]);
    dne(&mut rm);
    assert!(rm.lambda(name).is_some());
    (module, rm, report)
}

#[test]
fn constants_enter_gamma_arms() {
    let text = "function @g(i64) -> i64 export {
block0(v0: i64):
    v1 = iconst.i64 3
    v2 = iconst.i64 4
    v3 = imul v1, v2
    v4 = icmp slt v0, v3
    brif v4, block1, block2
block1:
    v5 = iadd v3, v3
    return v5
block2:
    return v0
}
";
    let (module, rm, report) = folded(text, "g");
    assert!(
        report.get("fold.propagated-into-regions") >= 1,
        "{report:?}"
    );
    // the arm computes 24 as a constant: no addition, no multiplication left
    let ops = ops_below(&rm, "g");
    assert!(
        !ops.iter()
            .any(|(_, o)| matches!(o.opcode(), Some(Opcode::Iadd | Opcode::Imul))),
        "{}",
        rm.graph
    );
    assert!(ops.iter().any(|(_, o)| o.to_string() == "iconst 24"));
    for x in [-5i64, 0, 11, 12, 13, i64::MAX] {
        let args = [DataValue::I64(x)];
        let want = if x < 12 { 24 } else { x };
        assert_eq!(
            interpret(&module, "g", &args).unwrap(),
            [DataValue::I64(want)]
        );
        assert_eq!(
            evaluate(&rm, &module, "g", &args).unwrap(),
            [DataValue::I64(want)]
        );
    }
}

#[test]
fn constants_enter_theta_bodies() {
    // a loop adding 6 * 7 to an accumulator n times (at least once)
    let text = "function @t(i64) -> i64 export {
block0(v0: i64):
    v1 = iconst.i64 6
    v2 = iconst.i64 7
    v3 = imul v1, v2
    v4 = iconst.i64 0
    jump block1(v4, v4)
block1(v5: i64, v6: i64):
    v7 = iadd v6, v3
    v8 = iconst.i64 1
    v9 = iadd v5, v8
    v10 = icmp ult v9, v0
    brif v10, block1(v9, v7), block2
block2:
    return v7
}
";
    let (module, rm, report) = folded(text, "t");
    assert!(
        report.get("fold.propagated-into-regions") >= 1,
        "{report:?}"
    );
    let g = &rm.graph;
    let theta = ops_below(&rm, "t").len(); // (simple nodes only)
    assert!(theta > 0);
    // the body adds the constant 42 itself
    let l = rm.lambda("t").unwrap();
    let body = g
        .regions_below(g.lambda_body(l))
        .into_iter()
        .find(|&r| {
            g.owner(r)
                .is_some_and(|n| matches!(g.kind(n), NodeKind::Theta { .. }))
        })
        .expect("a θ");
    assert!(
        g.nodes(body)
            .iter()
            .any(|&n| g.op(n).is_some_and(|o| o.to_string() == "iconst 42")),
        "{g}"
    );
    for n in [0i64, 1, 2, 10] {
        let args = [DataValue::I64(n)];
        let want = 42 * n.max(1);
        assert_eq!(
            interpret(&module, "t", &args).unwrap(),
            [DataValue::I64(want)]
        );
        assert_eq!(
            evaluate(&rm, &module, "t", &args).unwrap(),
            [DataValue::I64(want)]
        );
    }
}

#[test]
fn a_branch_on_a_constant_is_a_control_constant() {
    let text = "function @m(i64) -> i64 export {
block0(v0: i64):
    v1 = iconst.i64 3
    v2 = iconst.i64 5
    v3 = icmp ult v1, v2
    brif v3, block1, block2
block1:
    v4 = iconst.i64 10
    v5 = iadd v0, v4
    return v5
block2:
    return v0
}
";
    let (module, rm, report) = folded(text, "m");
    assert!(report.get("fold.constants") >= 2, "{report:?}");
    assert!(
        ops_below(&rm, "m")
            .iter()
            .any(|(_, o)| matches!(o, Op::Ctl { alt: 0, alts: 2 })),
        "{}",
        rm.graph
    );
    // the γ on a constant goes back to the SSA IR as its arm, without a branch
    let new = sequentialized(&module, &rm);
    let f = new.function("m").unwrap();
    assert_eq!(f.layout.blocks().count(), 1, "{new}");
    for x in [0i64, -10, 7] {
        let args = [DataValue::I64(x)];
        let want = [DataValue::I64(x.wrapping_add(10))];
        assert_eq!(interpret(&new, "m", &args).unwrap(), want);
        assert_eq!(evaluate(&rm, &module, "m", &args).unwrap(), want);
    }
}

#[test]
fn every_filetest_folds_to_a_fixpoint() {
    let (_, files) = filetests();
    let mut total = Report::default();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let Ok(module) = parse_module(&text) else {
            continue;
        };
        if verify_module(&module).is_err() {
            continue;
        }
        let mut rm = build_module(&module, &mut Report::default());
        vliw_rvsdg::opt::fold(&mut rm.graph, &mut total);
        let mut again = Report::default();
        vliw_rvsdg::opt::fold(&mut rm.graph, &mut again);
        assert!(
            again.counters().iter().all(|&(_, n)| n == 0),
            "{}: a second run still {:?}\n{}",
            path.display(),
            again.counters(),
            rm.graph
        );
        vliw_rvsdg::verify(&rm.graph).unwrap();
    }
    assert!(total.get("fold.constants") + total.get("fold.identities") > 0);
}

#[test]
fn the_canonical_texts_still_verify() {
    // a node of every operation (`all-ops.rvsdg`), nested regions, calls
    let mut checked = Vec::new();
    for (name, text) in common::texts() {
        let mut g = vliw_rvsdg::parse_graph(&text).unwrap();
        if vliw_rvsdg::verify(&g).is_err() {
            continue;
        }
        checked.push(name.clone());
        let mut report = Report::default();
        vliw_rvsdg::opt::fold(&mut g, &mut report);
        vliw_rvsdg::verify(&g).unwrap_or_else(|e| panic!("{name} after fold: {e:?}\n{g}"));
        vliw_rvsdg::opt::strength_reduction(&mut g, &mut report);
        vliw_rvsdg::verify(&g).unwrap_or_else(|e| panic!("{name} after strength: {e:?}\n{g}"));
    }
    assert_eq!(checked, ["all-ops.rvsdg", "calls.rvsdg", "nested.rvsdg"]);
}
