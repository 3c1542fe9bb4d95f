//! Floating point: arithmetic, NaN handling, rounding, conversions, compares.

use super::*;

fn s(x: f32) -> u64 {
    x.to_bits() as u64
}

fn d(x: f64) -> u64 {
    x.to_bits()
}

/// r3 = op(r4, r5, r6).
fn fop(op: &str, a: u64, b: u64, c: u64) -> u64 {
    let (sa, sb, sc) = (
        format!("movi r4 = {a:#x}"),
        format!("movi r5 = {b:#x}"),
        format!("movi r6 = {c:#x}"),
    );
    let r = Test::new(&[&[&sa, &sb], &[&sc], &[op], &["syscall 0"]]).run();
    r.exit_code();
    r.reg(3)
}

fn check(cases: &[(&str, u64, u64, u64)]) {
    for &(op, a, b, expected) in cases {
        let got = fop(op, a, b, 0);
        assert_eq!(
            got, expected,
            "`{op}` with {a:#x}, {b:#x}: got {got:#x}, expected {expected:#x}"
        );
    }
}

const GARBAGE: u64 = 0xdead_beef_0000_0000;

#[test]
fn arithmetic() {
    check(&[
        ("fadd.d r3 = r4, r5", d(1.5), d(2.25), d(3.75)),
        ("fsub.d r3 = r4, r5", d(1.5), d(2.25), d(-0.75)),
        ("fmul.d r3 = r4, r5", d(1.5), d(-2.0), d(-3.0)),
        ("fdiv.d r3 = r4, r5", d(1.0), d(0.0), d(f64::INFINITY)),
        ("fdiv.d r3 = r4, r5", d(1.0), d(3.0), d(1.0 / 3.0)),
        ("fsqrt.d r3 = r4", d(2.0), 0, d(std::f64::consts::SQRT_2)),
        // f32 operations ignore the upper halves of their operands and zero them.
        (
            "fadd.s r3 = r4, r5",
            GARBAGE | s(1.5),
            GARBAGE | s(2.25),
            s(3.75),
        ),
        ("fsub.s r3 = r4, r5", s(1.0), s(0.5), s(0.5)),
        ("fmul.s r3 = r4, r5", s(3.0), GARBAGE | s(0.5), s(1.5)),
        ("fdiv.s r3 = r4, r5", s(1.0), s(3.0), s(1.0 / 3.0)),
        ("fsqrt.s r3 = r4", GARBAGE | s(9.0), 0, s(3.0)),
    ]);
    assert!(f64::from_bits(fop("fdiv.d r3 = r4, r5", d(0.0), d(0.0), 0)).is_nan());
    assert!(f64::from_bits(fop("fsqrt.d r3 = r4", d(-1.0), 0, 0)).is_nan());
    let nan_s = fop("fsqrt.s r3 = r4", s(-1.0), 0, 0);
    assert!(f32::from_bits(nan_s as u32).is_nan() && nan_s >> 32 == 0);
}

#[test]
fn fused_multiply_add_rounds_once() {
    let e = f64::EPSILON;
    // (1 + e)(1 - e) - 1 = -e^2 exactly; separate rounding would give 0.
    let got = fop("fma.d r3 = r4, r5, r6", d(1.0 + e), d(1.0 - e), d(-1.0));
    assert_eq!(got, d(-e * e));
    let es = f32::EPSILON;
    let got = fop(
        "fma.s r3 = r4, r5, r6",
        s(1.0 + es),
        GARBAGE | s(1.0 - es),
        s(-1.0),
    );
    assert_eq!(got, s(-es * es));
    assert_eq!(
        fop("fma.d r3 = r4, r5, r6", d(2.0), d(3.0), d(4.0)),
        d(10.0)
    );
}

#[test]
fn min_and_max_return_the_number_when_one_operand_is_nan() {
    let nan = d(f64::NAN);
    check(&[
        ("fmin.d r3 = r4, r5", nan, d(1.0), d(1.0)),
        ("fmin.d r3 = r4, r5", d(1.0), nan, d(1.0)),
        ("fmax.d r3 = r4, r5", nan, d(-1.0), d(-1.0)),
        ("fmin.d r3 = r4, r5", d(-3.0), d(2.0), d(-3.0)),
        ("fmax.d r3 = r4, r5", d(-3.0), d(2.0), d(2.0)),
        ("fmin.s r3 = r4, r5", s(f32::NAN), s(1.0), s(1.0)),
        ("fmax.s r3 = r4, r5", GARBAGE | s(5.0), s(f32::NAN), s(5.0)),
        ("fmax.s r3 = r4, r5", s(f32::NEG_INFINITY), s(-1.0), s(-1.0)),
    ]);
    assert!(f64::from_bits(fop("fmax.d r3 = r4, r5", nan, nan, 0)).is_nan());
}

#[test]
fn sign_operations_are_bit_operations() {
    check(&[
        ("fneg.s r3 = r4", GARBAGE | s(1.0), 0, s(-1.0)),
        ("fneg.d r3 = r4", d(0.0), 0, d(-0.0)),
        ("fabs.s r3 = r4", GARBAGE | s(-2.0), 0, s(2.0)),
        ("fabs.d r3 = r4", d(-2.0), 0, d(2.0)),
        (
            "fabs.d r3 = r4",
            0xfff8_0000_0000_0001,
            0,
            0x7ff8_0000_0000_0001,
        ),
        (
            "fcopysign.s r3 = r4, r5",
            s(3.0),
            GARBAGE | s(-0.0),
            s(-3.0),
        ),
        ("fcopysign.d r3 = r4, r5", d(-3.0), d(1.0), d(3.0)),
    ]);
}

#[test]
fn rounding() {
    for (x, floor, ceil, trunc, round, even) in [
        (2.5, 2.0, 3.0, 2.0, 3.0, 2.0),
        (-2.5, -3.0, -2.0, -2.0, -3.0, -2.0),
        (3.5, 3.0, 4.0, 3.0, 4.0, 4.0),
        (-0.2, -1.0, -0.0, -0.0, -0.0, -0.0),
    ] {
        check(&[
            ("ffloor.d r3 = r4", d(x), 0, d(floor)),
            ("fceil.d r3 = r4", d(x), 0, d(ceil)),
            ("ftrunc.d r3 = r4", d(x), 0, d(trunc)),
            ("fround.d r3 = r4", d(x), 0, d(round)),
            ("froundeven.d r3 = r4", d(x), 0, d(even)),
            ("ffloor.s r3 = r4", s(x as f32), 0, s(floor as f32)),
            ("fceil.s r3 = r4", s(x as f32), 0, s(ceil as f32)),
            ("ftrunc.s r3 = r4", s(x as f32), 0, s(trunc as f32)),
            ("fround.s r3 = r4", s(x as f32), 0, s(round as f32)),
            (
                "froundeven.s r3 = r4",
                GARBAGE | s(x as f32),
                0,
                s(even as f32),
            ),
        ]);
    }
}

#[test]
fn conversions_to_integers_saturate_and_map_nan_to_zero() {
    const NEG1: u64 = u64::MAX;
    check(&[
        ("fcvt.w.s r3 = r4", s(f32::NAN), 0, 0),
        ("fcvt.w.s r3 = r4", s(1e10), 0, 0x7fff_ffff),
        ("fcvt.w.s r3 = r4", s(-1e10), 0, 0xffff_ffff_8000_0000),
        ("fcvt.w.s r3 = r4", s(-2.9), 0, -2i64 as u64),
        ("fcvt.wu.s r3 = r4", s(-1.0), 0, 0),
        ("fcvt.wu.s r3 = r4", s(1e10), 0, 0xffff_ffff),
        ("fcvt.wu.s r3 = r4", s(3e9), 0, 3_000_000_000),
        ("fcvt.l.s r3 = r4", s(f32::INFINITY), 0, i64::MAX as u64),
        ("fcvt.l.s r3 = r4", s(-1.5), 0, NEG1),
        ("fcvt.lu.s r3 = r4", s(f32::NAN), 0, 0),
        ("fcvt.lu.s r3 = r4", s(1e30), 0, u64::MAX),
        ("fcvt.l.d r3 = r4", d(f64::NEG_INFINITY), 0, i64::MIN as u64),
        ("fcvt.l.d r3 = r4", d(f64::NAN), 0, 0),
        ("fcvt.l.d r3 = r4", d(-123.9), 0, -123i64 as u64),
        ("fcvt.lu.d r3 = r4", d(-5.0), 0, 0),
        ("fcvt.lu.d r3 = r4", d(1e20), 0, u64::MAX),
        ("fcvt.w.d r3 = r4", d(3e9), 0, 0x7fff_ffff),
        ("fcvt.w.d r3 = r4", d(-7.5), 0, -7i64 as u64),
        ("fcvt.wu.d r3 = r4", d(3e9), 0, 3_000_000_000),
        ("fcvt.wu.d r3 = r4", d(f64::NAN), 0, 0),
    ]);
}

#[test]
fn conversions_from_integers_and_between_widths() {
    check(&[
        ("fcvt.s.l r3 = r4", u64::MAX, 0, s(-1.0)),
        ("fcvt.s.lu r3 = r4", u64::MAX, 0, 0x5f80_0000),
        ("fcvt.s.w r3 = r4", 0x1_0000_0005, 0, s(5.0)),
        ("fcvt.s.w r3 = r4", 0xffff_fffe, 0, s(-2.0)),
        ("fcvt.s.wu r3 = r4", 0xffff_fffe, 0, s(4294967294.0)),
        (
            "fcvt.d.l r3 = r4",
            i64::MIN as u64,
            0,
            d(-9223372036854775808.0),
        ),
        ("fcvt.d.lu r3 = r4", u64::MAX, 0, 0x43f0_0000_0000_0000),
        ("fcvt.d.w r3 = r4", 0xffff_ffff, 0, d(-1.0)),
        ("fcvt.d.wu r3 = r4", 0xffff_ffff, 0, d(4294967295.0)),
        ("fcvt.d.s r3 = r4", GARBAGE | s(1.5), 0, d(1.5)),
        ("fcvt.s.d r3 = r4", d(0.1), 0, 0x3dcc_cccd),
        ("fcvt.s.d r3 = r4", d(1e300), 0, s(f32::INFINITY)),
    ]);
    // 2^53 + 1 rounds to even in f64.
    assert_eq!(
        fop("fcvt.d.l r3 = r4", (1 << 53) + 1, 0, 0),
        d(9007199254740992.0)
    );
}

#[test]
fn float_compares_are_false_on_nan_except_ne_and_uno() {
    let cases: &[(&str, f64, f64, bool)] = &[
        ("eq", 1.0, 1.0, true),
        ("eq", -0.0, 0.0, true),
        ("ne", 1.0, 2.0, true),
        ("lt", 1.0, 2.0, true),
        ("le", 2.0, 2.0, true),
        ("gt", 1.0, 2.0, false),
        ("ge", 2.0, 2.0, true),
        ("uno", 1.0, 2.0, false),
        ("ord", 1.0, 2.0, true),
    ];
    let nan_cases = [
        ("eq", false),
        ("ne", true),
        ("lt", false),
        ("le", false),
        ("gt", false),
        ("ge", false),
        ("uno", true),
        ("ord", false),
    ];
    for width in ["s", "d"] {
        let bits = |x: f64| {
            if width == "s" {
                GARBAGE | s(x as f32)
            } else {
                d(x)
            }
        };
        let outcome = |cond: &str, a: u64, b: u64| {
            let op = format!("fcmp.{cond}.{width} p1, p2 = r4, r5");
            let (sa, sb) = (format!("movi r4 = {a:#x}"), format!("movi r5 = {b:#x}"));
            let r = Test::new(&[&[&sa, &sb], &[&op], &["nop"], &["syscall 0"]]).run();
            r.exit_code();
            assert_ne!(r.pred(1), r.pred(2));
            r.pred(1)
        };
        for &(cond, a, b, expected) in cases {
            assert_eq!(
                outcome(cond, bits(a), bits(b)),
                expected,
                "fcmp.{cond}.{width} {a} {b}"
            );
        }
        for (cond, expected) in nan_cases {
            assert_eq!(
                outcome(cond, bits(f64::NAN), bits(1.0)),
                expected,
                "fcmp.{cond}.{width} NaN 1"
            );
            assert_eq!(
                outcome(cond, bits(1.0), bits(f64::NAN)),
                expected,
                "fcmp.{cond}.{width} 1 NaN"
            );
        }
    }
}
