//! Strength reduction (`opt::strength`) checked through the evaluator: a λ that
//! divides its parameter by a constant, folded and reduced, gives what the IR's
//! division gives (`vliw_ir::semantics`, the interpreter's definition) on every 8-bit
//! divisor and dividend, on the interesting divisors of every width with edge and
//! random dividends, and on random divisors and dividends; and no division is left
//! where a sequence replaces it.

mod common;

use common::passes::*;
use proptest::prelude::*;
use vliw_ir::semantics::eval_pure;
use vliw_ir::write::format_int;
use vliw_ir::{DataValue, InstructionData, Opcode, TrapKind, Type, Value};
use vliw_rvsdg::Op;

const DIVISIONS: [Opcode; 4] = [Opcode::Udiv, Opcode::Urem, Opcode::Sdiv, Opcode::Srem];

/// `@f(x) = x OP d` in type `ty`.
fn division(op: Opcode, ty: Type, d: u128) -> String {
    format!(
        "function @f({ty}) -> {ty} export {{\nblock0(v0: {ty}):\n    v1 = iconst.{ty} {}\n    \
         v2 = {op} v0, v1\n    return v2\n}}\n",
        format_int(ty, d)
    )
}

fn sext(ty: Type, x: u128) -> i128 {
    let s = 128 - ty.bits();
    ((x << s) as i128) >> s
}

/// What the IR's division gives (or the trap's kind).
fn expected(op: Opcode, ty: Type, x: u128, d: u128) -> Result<u128, TrapKind> {
    let data = InstructionData::Binary {
        opcode: op,
        args: [Value::from_u32(0); 2],
    };
    eval_pure(&data, &[ty, ty], &[x, d], &[ty])
        .map(|r| r[0].expect("a result"))
        .map_err(|t| t.kind)
}

/// Whether a division must still be there after the passes: a signed one by -1 (the
/// dividend may be the minimum: it traps) and an `i128` one by other than a power of
/// two (no magic numbers at 128 bits).
fn division_stays(op: Opcode, ty: Type, d: u128) -> bool {
    let signed = matches!(op, Opcode::Sdiv | Opcode::Srem);
    let magnitude = if signed {
        sext(ty, d).unsigned_abs()
    } else {
        d
    };
    (signed && sext(ty, d) == -1) || (ty == Type::I128 && !magnitude.is_power_of_two())
}

/// Builds, folds and reduces `x OP d`, then checks every dividend of `xs`.
fn check(op: Opcode, ty: Type, d: u128, xs: &[u128]) -> Result<(), String> {
    let text = division(op, ty, d);
    let (module, rm, _) = through(&text, &[FOLD, STRENGTH]);
    let left = ops_below(&rm, "f").iter().any(|(_, o)| {
        matches!(
            o.opcode(),
            Some(Opcode::Udiv | Opcode::Urem | Opcode::Sdiv | Opcode::Srem)
        )
    });
    if left != division_stays(op, ty, d) {
        return Err(format!(
            "{op}.{ty} by {}: division left: {left}\n{}",
            format_int(ty, d),
            rm.graph
        ));
    }
    let mut ev = vliw_rvsdg::Evaluator::new(&rm.graph, &module);
    for &x in xs {
        let x = x & ty.mask();
        let got = ev
            .call("f", &[DataValue::from_bits(ty, x)])
            .map(|r| r[0].bits())
            .map_err(|t| t.kind);
        let want = expected(op, ty, x, d);
        if got != want {
            return Err(format!(
                "{op}.{ty} {} by {}: {got:?}, the IR gives {want:?}\n{}",
                format_int(ty, x),
                format_int(ty, d),
                rm.graph
            ));
        }
    }
    Ok(())
}

#[test]
fn every_8_bit_division_by_a_constant() {
    let xs: Vec<u128> = (0..256).collect();
    for op in DIVISIONS {
        for d in 1..256 {
            check(op, Type::I8, d, &xs).unwrap();
        }
    }
}

/// Divisors worth trying at width `w`: small ones, powers of two and their
/// neighbours, the bounds, negated.
fn interesting_divisors(ty: Type) -> Vec<u128> {
    let w = ty.bits();
    let m = ty.mask();
    let mut ds: Vec<u128> = vec![1, 2, 3, 5, 6, 7, 10, 11, 12, 25, 100, 641, 1000];
    for k in 1..w {
        let p = 1u128 << k;
        ds.extend([p, p - 1, p + 1]);
    }
    ds.extend([m, m >> 1, (m >> 1) + 1, (m >> 1) + 2, m - 1]);
    let negated: Vec<u128> = ds.iter().map(|&d| d.wrapping_neg() & m).collect();
    ds.extend(negated);
    ds.retain(|&d| d != 0);
    ds.iter_mut().for_each(|d| *d &= m);
    ds.sort_unstable();
    ds.dedup();
    ds
}

/// Dividends worth trying for divisor `d`: the bounds, around 0 and the multiples of
/// `d`, and a few random ones.
fn dividends(ty: Type, d: u128, seed: &mut u64) -> Vec<u128> {
    let m = ty.mask();
    let min = 1u128 << (ty.bits() - 1);
    let mut xs = vec![0, 1, 2, m, m - 1, min, min - 1, min + 1];
    for k in [1u128, 2, 3, 1000] {
        let q = d.wrapping_mul(k);
        xs.extend([q, q.wrapping_sub(1), q.wrapping_add(1), q.wrapping_neg()]);
    }
    for _ in 0..24 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        let r = u128::from(*seed) << 64 | u128::from(seed.rotate_left(29));
        xs.push(r);
    }
    xs.iter().map(|x| x & m).collect()
}

#[test]
fn interesting_divisors_of_every_width() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for ty in [Type::I16, Type::I32, Type::I64, Type::I128] {
        for d in interesting_divisors(ty) {
            for op in DIVISIONS {
                let xs = dividends(ty, d, &mut seed);
                check(op, ty, d, &xs).unwrap();
            }
        }
    }
}

#[test]
fn i1_divisions_by_one() {
    // 1 is -1 in i1: the signed ones stay (1 / 1 overflows), the unsigned ones fold
    for op in DIVISIONS {
        check(op, Type::I1, 1, &[0, 1]).unwrap();
    }
}

#[test]
fn multiplications_by_powers_of_two_are_shifts() {
    for ty in [Type::I8, Type::I16, Type::I32, Type::I64, Type::I128] {
        for k in 1..ty.bits() {
            let c = 1u128 << k;
            let text = format!(
                "function @f({ty}) -> {ty} export {{\nblock0(v0: {ty}):\n    v1 = iconst.{ty} {}\n    \
                 v2 = imul v1, v0\n    return v2\n}}\n",
                format_int(ty, c)
            );
            let (module, rm, report) = through(&text, &[FOLD, STRENGTH]);
            assert_eq!(report.get("strength.multiplications"), 1, "{text}");
            let ops = ops_below(&rm, "f");
            assert!(
                !ops.iter().any(|(_, o)| o.opcode() == Some(Opcode::Imul)),
                "{}",
                rm.graph
            );
            for x in [
                0u128,
                1,
                3,
                ty.mask(),
                1 << (ty.bits() - 1),
                0x1234_5678_9abc_def0,
            ] {
                let args = [DataValue::from_bits(ty, x & ty.mask())];
                let want = interpret(&module, "f", &args);
                assert!(
                    agree(&evaluate(&rm, &module, "f", &args), &want),
                    "{text} {x}"
                );
            }
        }
    }
}

#[test]
fn other_multiplications_stay() {
    let text = "function @f(i32) -> i32 export {\nblock0(v0: i32):\n    v1 = iconst.i32 6\n    \
                v2 = imul v0, v1\n    return v2\n}\n";
    let (_, rm, report) = through(text, &[FOLD, STRENGTH]);
    assert_eq!(report.get("strength.multiplications"), 0);
    assert!(
        ops_below(&rm, "f")
            .iter()
            .any(|(_, o)| o.opcode() == Some(Opcode::Imul))
    );
}

#[test]
fn a_division_with_its_state_is_reduced_without_fold() {
    // strength reduction alone (fold off): the division still has the I/O state,
    // which goes around the sequence
    let text = division(Opcode::Urem, Type::I64, 10);
    let (module, rm, report) = through(&text, &[STRENGTH]);
    assert_eq!(report.get("strength.remainders"), 1);
    for x in [0u128, 9, 10, 11, u64::MAX as u128] {
        let args = [DataValue::from_bits(Type::I64, x)];
        assert_eq!(
            evaluate(&rm, &module, "f", &args).unwrap(),
            vec![DataValue::I64((x % 10) as i64)]
        );
    }
    // and a division by zero is left to trap
    let text = division(Opcode::Udiv, Type::I64, 0);
    let (module, rm, report) = through(&text, &[FOLD, STRENGTH]);
    assert_eq!(report.get("strength.divisions"), 0);
    let got = evaluate(&rm, &module, "f", &[DataValue::I64(3)]);
    assert_eq!(got.unwrap_err().kind, TrapKind::DivisionByZero);
}

#[test]
fn n_mod_2_is_one_band() {
    let text = "function @even(i64) -> i1 export {\nblock0(v0: i64):\n    v1 = iconst.i64 2\n    \
                v2 = urem v0, v1\n    v3 = iconst.i64 0\n    v4 = icmp eq v2, v3\n    return v4\n}\n";
    let (_, mut rm, _) = through(text, &[FOLD, STRENGTH]);
    dne(&mut rm);
    let mut ops: Vec<String> = ops_below(&rm, "even")
        .iter()
        .map(|(_, o)| o.to_string())
        .collect();
    ops.sort();
    // (`iconst` prints its bits here)
    assert_eq!(ops, ["band", "icmp eq", "iconst 0", "iconst 1"]);
    assert!(matches!(
        op_of(&rm, returned(&rm, "even")[0]),
        Some(Op::Inst(_))
    ));
}

fn width() -> impl Strategy<Value = Type> {
    prop_oneof![
        Just(Type::I8),
        Just(Type::I16),
        Just(Type::I32),
        Just(Type::I64),
        Just(Type::I128)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_divisors_and_dividends(
        ty in width(),
        op in 0..4usize,
        d in prop_oneof![
            any::<u128>(),
            (0..128u32).prop_map(|k| 1u128 << k),
            (1..128u32, any::<bool>()).prop_map(|(k, neg)| {
                let p = (1u128 << k) + 1;
                if neg { p.wrapping_neg() } else { p }
            }),
            (1..1000u128),
        ],
        xs in proptest::collection::vec(any::<u128>(), 12),
    ) {
        let d = d & ty.mask();
        prop_assume!(d != 0);
        let mut xs = xs;
        xs.extend([0, ty.mask(), 1 << (ty.bits() - 1), d, d.wrapping_sub(1)]);
        if let Err(e) = check(DIVISIONS[op], ty, d, &xs) {
            prop_assert!(false, "{}", e);
        }
    }
}
