"""Floating-point programs: tests/asm/float/*.s. Results are bit patterns printed in
hex; f64 arithmetic uses Python's (IEEE binary64, correctly rounded) floats; f32
results of + - * / sqrt are Python doubles rounded to f32 (double rounding is
innocuous for these operations since 53 >= 2*24 + 2); fma is computed exactly with
fractions and rounded once."""

import math
import sys
sys.path.insert(0, __import__("os").path.dirname(__file__))
from common import *
from fractions import Fraction

NAN64 = 0x7ff8000000000000
NAN32 = 0x7fc00000
INF = float("inf")


def d(x):
    return f64_bits(x)


def s(x):
    return f32_bits(x)


def fs(bits):
    return f32_from(bits)


def fd(bits):
    return f64_from(bits)


def is_nan64(b):
    return (b >> 52) & 0x7ff == 0x7ff and b & ((1 << 52) - 1) != 0


def is_nan32(b):
    return (b >> 23) & 0xff == 0xff and b & ((1 << 23) - 1) != 0


# --- rounding to integral values (results keep the sign of zero) -----------------

def round_integral(x, mode):
    if math.isinf(x) or math.isnan(x) or x == 0:
        return x
    q = Fraction(x)
    a = abs(q)
    n = a.numerator // a.denominator
    frac = a - n
    if mode == "floor":
        r = math.floor(q)
    elif mode == "ceil":
        r = math.ceil(q)
    elif mode == "trunc":
        r = n if q > 0 else -n
    elif mode == "round":
        m = n + 1 if frac >= Fraction(1, 2) else n
        r = m if q > 0 else -m
    elif mode == "even":
        m = n + 1 if frac > Fraction(1, 2) or (frac == Fraction(1, 2) and n % 2 == 1) else n
        r = m if q > 0 else -m
    if r == 0:
        return math.copysign(0.0, x)
    return float(r)


ROUND_OPS = [("ffloor", "floor"), ("fceil", "ceil"), ("ftrunc", "trunc"),
             ("fround", "round"), ("froundeven", "even")]


def fminmax(a, b, is_max, nan):
    if nan(a) and nan(b):
        return None
    if nan(a):
        return b
    if nan(b):
        return a
    return None


def f64_program():
    p = Program()
    vals = {
        "r32": d(1.5), "r33": d(2.25), "r34": d(0.1), "r35": d(0.2), "r36": d(1e308),
        "r37": d(5e-324), "r38": d(INF), "r39": d(-INF), "r40": NAN64, "r41": d(-0.0),
        "r42": d(3.0), "r43": d(1.0), "r44": d(10.0), "r45": d(-1.0), "r46": d(2.0),
        "r47": d(1.0 + 2 ** -52), "r48": d(1.0 - 2 ** -52), "r49": d(2.0 ** -53),
        "r50": d(0.5), "r51": d(0.25), "r52": 0xfff8000000000001,
    }
    for r, v in vals.items():
        p.load(r, v)
    V = lambda r: fd(vals[r])
    arith = [
        ("fadd.d", "r32", "r33", V("r32") + V("r33")),
        ("fadd.d", "r34", "r35", V("r34") + V("r35")),
        ("fadd.d", "r36", "r36", INF),
        ("fadd.d", "r37", "r37", 1e-323),
        ("fadd.d", "r43", "r49", 1.0 + 2 ** -53),          # tie: stays 1.0
        ("fadd.d", "r47", "r49", (1.0 + 2 ** -52) + 2 ** -53),   # tie: to even, up
        ("fadd.d", "r41", "r41", -0.0),
        ("fsub.d", "r42", "r34", 3.0 - 0.1),
        ("fsub.d", "r32", "r32", 0.0),
        ("fsub.d", "r41", "r43", -1.0),
        ("fsub.d", "r38", "r36", INF),
        ("fmul.d", "r34", "r42", 0.1 * 3.0),
        ("fmul.d", "r36", "r44", INF),
        ("fmul.d", "r37", "r50", 0.0),                     # 2^-1075: tie to even, 0
        ("fmul.d", "r45", "r41", 0.0),                     # -1 * -0 = +0
        ("fdiv.d", "r43", "r42", 1.0 / 3.0),
        ("fdiv.d", "r43", "r41", -INF),
        ("fdiv.d", "r45", "r39", 0.0),
        ("fdiv.d", "r34", "r44", 0.1 / 10.0),
    ]
    for op, a, b, res in arith:
        p.check_hex(["%s r3 = %s, %s" % (op, a, b)], d(res))
    sqrt = [("r46", math.sqrt(2.0)), ("r51", 0.5), ("r41", -0.0), ("r38", INF),
            ("r34", math.sqrt(0.1))]
    for a, res in sqrt:
        p.check_hex(["fsqrt.d r3 = %s" % a], d(res))
    # fma: one rounding
    fma = [("r34", "r44", "r45"), ("r47", "r48", "r45"), ("r32", "r33", "r42"),
           ("r36", "r44", "r39")]
    for a, b, c in fma:
        x, y, z = V(a), V(b), V(c)
        if math.isinf(x * 1.0) or math.isinf(y) or math.isinf(z) or abs(x * y) == INF:
            res = d(x * y + z) if not (abs(x) == 1e308 and z == -INF) else d(-INF)
        else:
            res = f64_round_exact(Fraction(x) * Fraction(y) + Fraction(z))
        p.check_hex(["fma.d r3 = %s, %s, %s" % (a, b, c)], res)
    # the same product and sum rounded twice differ from fma
    p.check_hex(["fmul.d r3 = r34, r44", "fadd.d r3 = r3, r45"], d(0.1 * 10.0 - 1.0))
    # min/max: the other operand when one is NaN
    mm = [("fmin.d", "r32", "r33", 1.5), ("fmin.d", "r33", "r32", 1.5),
          ("fmax.d", "r32", "r33", 2.25), ("fmax.d", "r33", "r32", 2.25),
          ("fmin.d", "r40", "r32", 1.5), ("fmin.d", "r32", "r40", 1.5),
          ("fmax.d", "r40", "r32", 1.5), ("fmax.d", "r32", "r40", 1.5),
          ("fmin.d", "r39", "r38", -INF), ("fmax.d", "r39", "r38", INF),
          ("fmin.d", "r45", "r43", -1.0)]
    for op, a, b, res in mm:
        p.check_hex(["%s r3 = %s, %s" % (op, a, b)], d(res))
    # bit operations, also on NaN
    bitops = [("fneg.d r3 = r32", d(-1.5)), ("fneg.d r3 = r41", d(0.0)),
              ("fneg.d r3 = r40", NAN64 | 1 << 63), ("fabs.d r3 = r45", d(1.0)),
              ("fabs.d r3 = r52", 0x7ff8000000000001), ("fabs.d r3 = r41", 0),
              ("fcopysign.d r3 = r32, r41", d(-1.5)), ("fcopysign.d r3 = r45, r33", d(1.0)),
              ("fcopysign.d r3 = r33, r52", d(-2.25)), ("fcopysign.d r3 = r52, r43", 0x7ff8000000000001)]
    for asm, res in bitops:
        p.check_hex([asm], res)
    # rounding to integral values
    inputs = [2.5, -2.5, 1.5, -0.5, 0.5, 2.7, -2.7, 0.49999999999999994,
              4503599627370497.0, -1e300, INF, -0.0, -0.2]
    for i, x in enumerate(inputs):
        p.load("r53", d(x))
        for op, mode in ROUND_OPS:
            p.check_hex(["%s.d r3 = r53" % op], d(round_integral(x, mode)))
    # NaN results: their payload is unspecified, so only check that they are NaN
    p.comment("NaN-producing operations, tested with fcmp.uno (prints 1 per NaN)")
    for asm in ["fadd.d r3 = r38, r39", "fsub.d r3 = r38, r38", "fmul.d r3 = r38, r41",
                "fdiv.d r3 = r41, r41", "fsqrt.d r3 = r45", "fadd.d r3 = r40, r43",
                "fma.d r3 = r38, r41, r43"]:
        p.check_dec([asm, "fcmp.uno.d p1, p2 = r3, r3", "p2r r3 = p1"], 1)
    p.exit()
    write_program("float/f64.s",
                  "binary64 arithmetic: fadd fsub fmul fdiv fsqrt (correctly rounded, ties to\n"
                  "even, subnormals, infinities), fma (one rounding), fmin/fmax with NaN,\n"
                  "fneg fabs fcopysign, floor ceil trunc round roundeven; results in hex.",
                  p.body, p.expected, gen_name="float.py")


def f32_program():
    p = Program()
    vals = {
        "r32": s(1.5), "r33": s(2.25), "r34": s(0.1), "r35": s(0.2), "r36": s(3e38),
        "r37": 0x00000001, "r38": s(INF), "r39": s(-INF), "r40": NAN32, "r41": s(-0.0),
        "r42": s(3.0), "r43": s(1.0), "r44": s(10.0), "r45": s(-1.0), "r46": s(2.0),
        "r47": s(1.0 + 2 ** -23), "r48": s(1.0 - 2 ** -23), "r49": s(2.0 ** -24),
        "r50": s(0.5), "r51": s(0.25), "r52": 0xffc00001,
        "r54": 0xdeadbeef00000000 | s(1.5),       # junk in the upper half
        "r55": 0x1234567800000000 | s(2.25),
        "r56": s(2.0 ** -126), "r57": s(1e-38), "r58": s(1e5),
    }
    for r, v in vals.items():
        p.load(r, v)
    V = lambda r: fs(vals[r])
    arith = [
        ("fadd.s", "r32", "r33", V("r32") + V("r33")),
        ("fadd.s", "r34", "r35", V("r34") + V("r35")),
        ("fadd.s", "r36", "r36", INF),
        ("fadd.s", "r37", "r37", 2 * V("r37")),
        ("fadd.s", "r43", "r49", 1.0 + 2 ** -24),
        ("fadd.s", "r47", "r49", V("r47") + 2 ** -24),
        ("fadd.s", "r54", "r55", 3.75),
        ("fsub.s", "r42", "r34", V("r42") - V("r34")),
        ("fsub.s", "r32", "r32", 0.0),
        ("fsub.s", "r41", "r43", -1.0),
        ("fmul.s", "r34", "r42", V("r34") * 3.0),
        ("fmul.s", "r36", "r44", INF),
        ("fmul.s", "r37", "r50", 0.0),
        ("fmul.s", "r54", "r55", 1.5 * 2.25),
        ("fdiv.s", "r43", "r42", 1.0 / 3.0),
        ("fdiv.s", "r43", "r41", -INF),
        ("fdiv.s", "r34", "r44", V("r34") / 10.0),
        ("fmul.s", "r56", "r50", 2.0 ** -127),            # a subnormal result
        ("fdiv.s", "r57", "r58", V("r57") / V("r58")),    # underflows to a subnormal
    ]
    for op, a, b, res in arith:
        p.check_hex(["%s r3 = %s, %s" % (op, a, b)], s(res))
    for a, res in [("r46", math.sqrt(2.0)), ("r51", 0.5), ("r41", -0.0), ("r34", math.sqrt(V("r34")))]:
        p.check_hex(["fsqrt.s r3 = %s" % a], s(res))
    for a, b, c in [("r34", "r44", "r45"), ("r47", "r48", "r45"), ("r32", "r33", "r42")]:
        res = f32_round_exact(Fraction(V(a)) * Fraction(V(b)) + Fraction(V(c)))
        p.check_hex(["fma.s r3 = %s, %s, %s" % (a, b, c)], res)
    p.check_hex(["fmul.s r3 = r34, r44", "fadd.s r3 = r3, r45"], s(fs(s(V("r34") * 10.0)) - 1.0))
    mm = [("fmin.s", "r32", "r33", 1.5), ("fmax.s", "r32", "r33", 2.25),
          ("fmin.s", "r40", "r32", 1.5), ("fmin.s", "r32", "r40", 1.5),
          ("fmax.s", "r40", "r32", 1.5), ("fmax.s", "r32", "r40", 1.5),
          ("fmin.s", "r39", "r38", -INF), ("fmax.s", "r45", "r43", 1.0)]
    for op, a, b, res in mm:
        p.check_hex(["%s r3 = %s, %s" % (op, a, b)], s(res))
    bitops = [("fneg.s r3 = r32", s(-1.5)), ("fneg.s r3 = r41", s(0.0)),
              ("fneg.s r3 = r40", NAN32 | 1 << 31), ("fabs.s r3 = r45", s(1.0)),
              ("fabs.s r3 = r52", 0x7fc00001),
              ("fcopysign.s r3 = r32, r41", s(-1.5)), ("fcopysign.s r3 = r45, r33", s(1.0))]
    for asm, res in bitops:
        p.check_hex([asm], res)
    inputs = [2.5, -2.5, 1.5, -0.5, 0.5, 2.7, -2.7, fs(0x3effffff), 8388609.0, -1e30, INF, -0.0]
    for x in inputs:
        p.load("r53", s(x))
        for op, mode in ROUND_OPS:
            p.check_hex(["%s.s r3 = r53" % op], s(round_integral(fs(s(x)), mode)))
    p.comment("NaN-producing operations, tested with fcmp.uno")
    for asm in ["fadd.s r3 = r38, r39", "fmul.s r3 = r38, r41", "fdiv.s r3 = r41, r41",
                "fsqrt.s r3 = r45", "fsub.s r3 = r40, r43"]:
        p.check_dec([asm, "fcmp.uno.s p1, p2 = r3, r3", "p2r r3 = p1"], 1)
    p.exit()
    write_program("float/f32.s",
                  "binary32 arithmetic in the low half of registers (results zero the upper\n"
                  "half; inputs' upper halves are ignored): fadd fsub fmul fdiv fsqrt fma\n"
                  "fmin fmax fneg fabs fcopysign and the roundings; results in hex.",
                  p.body, p.expected, gen_name="float.py")


def sat(x, lo, hi):
    """Rust `as` from float to an integer type [lo, hi]."""
    if math.isnan(x):
        return 0
    if x == INF:
        return hi
    if x == -INF:
        return lo
    t = int(x)  # truncates toward zero, exact for floats
    return max(lo, min(hi, t))


I64 = (-(1 << 63), (1 << 63) - 1)
U64 = (0, (1 << 64) - 1)
I32 = (-(1 << 31), (1 << 31) - 1)
U32 = (0, (1 << 32) - 1)


def convert_program():
    p = Program()
    cases = []
    # f64 <-> f32
    for x in [0.1, INF, -0.0, 1.0 + 2 ** -24, 1.0 + 3 * 2 ** -24, 1e40, 1e-50, -3.0e38,
              3.4028235677973366e38,
              # subnormal f32 results, and ties at the bottom of the range
              1e-40, -1e-40, 2.0 ** -150, 3 * 2.0 ** -150, 1.5 * 2.0 ** -149]:
        cases.append(("fcvt.s.d", d(x), s(x)))
    for b in [s(0.1), s(INF), s(-0.0), 0x00000001, s(-3.0e38), 0xdeadbeef3f800000]:
        cases.append(("fcvt.d.s", b, d(fs(b))))
    # integers to floats
    for v in [(1 << 53) + 1, u64(-1), 1 << 63, (1 << 24) + 1, (1 << 24) + 3, u64(-7), 0]:
        # rounded once, exactly (float(v) first would round twice)
        cases.append(("fcvt.s.l", v, f32_round_exact(Fraction(s64(v)))))
        cases.append(("fcvt.d.l", v, f64_round_exact(Fraction(s64(v)))))
        cases.append(("fcvt.s.lu", v, f32_round_exact(Fraction(v))))
        cases.append(("fcvt.d.lu", v, f64_round_exact(Fraction(v))))
    for v in [0x1ffffffff, 0x80000000, 0xffffffff80000000, 0x100000007, 0xffffffff, 16777217]:
        cases.append(("fcvt.s.w", v, s(float(s32(v)))))
        cases.append(("fcvt.s.wu", v, s(float(u32(v)))))
        cases.append(("fcvt.d.w", v, d(float(s32(v)))))
        cases.append(("fcvt.d.wu", v, d(float(u32(v)))))
    # floats to integers: truncate, saturate, NaN -> 0; 32-bit results: w sign-,
    # wu zero-extended
    f32_inputs = [1e19, -1e19, float("nan"), INF, -INF, -2.7, 2.0 ** 62, -1.0, 2e19,
                  -0.9, 1.8e19, 3e9, -3e9, -5.5, 5e9, 4e9, 2147483520.0]
    for x in f32_inputs:
        b = NAN32 if math.isnan(x) else s(x)
        xv = fs(b)
        cases.append(("fcvt.l.s", b, u64(sat(xv, *I64))))
        cases.append(("fcvt.lu.s", b, sat(xv, *U64)))
        cases.append(("fcvt.w.s", b, sext32(sat(xv, *I32))))
        cases.append(("fcvt.wu.s", b, sat(xv, *U32)))
    f64_inputs = [9.3e18, -9.3e18, float("nan"), -0.0, 1e18, 1e20, -1.0,
                  1.8446744073709550e19, 2147483647.9, 2147483648.0, -2147483648.9,
                  -2147483649.0, 4294967295.5, 4294967296.0, -0.5, 3e9, -INF,
                  9223372036854774784.0]
    for x in f64_inputs:
        b = NAN64 if math.isnan(x) else d(x)
        cases.append(("fcvt.l.d", b, u64(sat(x, *I64))))
        cases.append(("fcvt.lu.d", b, sat(x, *U64)))
        cases.append(("fcvt.w.d", b, sext32(sat(x, *I32))))
        cases.append(("fcvt.wu.d", b, sat(x, *U32)))
    for op, inp, res in cases:
        p.load("r32", inp)
        p.check_hex(["%s r3 = r32" % op], res)
    p.exit()
    write_program("float/convert.s",
                  "Conversions between f32, f64 and integers: rounding to nearest even,\n"
                  "exactness, and Rust `as` semantics for float to integer (truncate,\n"
                  "saturate, NaN to 0; w results sign-extended, wu zero-extended).",
                  p.body, p.expected, gen_name="float.py")


FCONDS = ["eq", "ne", "lt", "le", "gt", "ge", "uno", "ord"]


def fcond(c, a, b):
    un = math.isnan(a) or math.isnan(b)
    return {"eq": a == b, "ne": not (a == b), "lt": a < b, "le": a <= b, "gt": a > b,
            "ge": a >= b, "uno": un, "ord": not un}[c]


def compare_program():
    p = Program()
    nan = float("nan")
    pairs = [(1.0, 2.0), (2.0, 1.0), (1.0, 1.0), (nan, 1.0), (1.0, nan), (nan, nan),
             (-0.0, 0.0), (-INF, INF), (INF, INF), (-1.0, -2.0)]
    for suffix, enc in [("d", lambda x: NAN64 if math.isnan(x) else d(x)),
                        ("s", lambda x: NAN32 if math.isnan(x) else s(x))]:
        for a, b in pairs:
            p.comment("fcmp.*.%s %r, %r" % (suffix, a, b))
            p.load("r32", enc(a))
            p.load("r33", enc(b))
            p.op("movi r40 = 0 ;;")
            value = 0
            for c in FCONDS:
                p.op("fcmp.%s.%s p1, p2 = r32, r33 ;;" % (c, suffix))
                p.op("p2r r10 = p1 ; p2r r11 = p2 ; shl r40 = r40, 2 ;;")
                p.op("shl r10 = r10, 1 ; or r40 = r40, r11 ;;")
                p.op("or r40 = r40, r10 ;;")
                t = fcond(c, a, b)
                value = value << 2 | t << 1 | (not t)
            p.check_hex(["mov r3 = r40"], value)
    p.comment("f32 compares ignore the upper half: 1.5 (junk above) == 1.5")
    p.load("r32", 0xffffffff00000000 | s(1.5))
    p.load("r33", s(1.5))
    p.check_dec(["fcmp.eq.s p1, p2 = r32, r33", "p2r r3 = p1"], 1)
    p.comment("float compares take compare types")
    p.load("r32", d(1.0))
    p.load("r33", d(2.0))
    p.op("movi r36 = 1 ;;")
    p.check_dec(["r2p p1 = r0 ; r2p p2 = r0", "fcmp.lt.d.or p1, p2 = r32, r33",
                 "p2r r10 = p1 ; p2r r11 = p2", "add r3 = r10, r11"], 2)
    p.check_dec(["r2p p1 = r36 ; r2p p2 = r36 ; r2p p3 = r0", "(p3) fcmp.lt.d.unc p1, p2 = r32, r33",
                 "p2r r10 = p1 ; p2r r11 = p2", "add r3 = r10, r11"], 0)
    p.check_dec(["r2p p1 = r36 ; r2p p2 = r36", "fcmp.gt.d.and p1, p2 = r32, r33",
                 "p2r r10 = p1 ; p2r r11 = p2", "add r3 = r10, r11"], 0)
    p.exit()
    write_program("float/compare.s",
                  "Float compares (eq ne lt le gt ge uno ord, .s and .d) including NaN, signed\n"
                  "zeros and infinities; each line packs the 8 conditions, 2 bits each (pd1,\n"
                  "pd2). Then f32 upper halves ignored, and compare types on fcmp.",
                  p.body, p.expected, gen_name="float.py")


if __name__ == "__main__":
    f64_program()
    f32_program()
    convert_program()
    compare_program()
