"""Compare and predicate programs: tests/asm/pred/*.s."""

import sys
sys.path.insert(0, __import__("os").path.dirname(__file__))
from common import *

MIN = 1 << 63
MAX = (1 << 63) - 1
CONDS = ["eq", "ne", "lt", "le", "gt", "ge", "ltu", "leu", "gtu", "geu"]


def cond(name, a, b, bits):
    if bits == 64:
        sa, sb, ua, ub = s64(a), s64(b), u64(a), u64(b)
    else:
        sa, sb, ua, ub = s32(a), s32(b), u32(a), u32(b)
    return {
        "eq": ua == ub, "ne": ua != ub,
        "lt": sa < sb, "le": sa <= sb, "gt": sa > sb, "ge": sa >= sb,
        "ltu": ua < ub, "leu": ua <= ub, "gtu": ua > ub, "geu": ua >= ub,
    }[name]


def accumulate(p):
    """Shifts p1 and p2 into r40: r40 = r40 << 2 | p1 << 1 | p2."""
    p.op("p2r r10 = p1 ; p2r r11 = p2 ; shl r40 = r40, 2 ;;")
    p.op("shl r10 = r10, 1 ; or r40 = r40, r11 ;;")
    p.op("or r40 = r40, r10 ;;")


def conditions():
    p = Program()
    reg_pairs = [(5, 7), (7, 5), (5, 5), (u64(-1), 1), (1, u64(-1)), (MIN, MAX),
                 (MAX, MIN), (0x100000005, 5), (0xffffffff, u64(-1)),
                 (0x80000000, 0x7fffffff), (0, 0)]
    imm_pairs = [(5, 7), (7, 5), (5, 5), (u64(-1), 1), (1, u64(-1)), (MIN, 0x7fffffff),
                 (0x100000005, 5), (0xffffffff, u64(-1)), (0x80000000, 0x7fffffff),
                 (0x123456789, 0x123456789), (5, 0x100000005)]
    for mnemonic, bits in [("cmp", 64), ("cmpw", 32)]:
        for a, b in reg_pairs:
            p.comment("%s, registers: %s vs %s" % (mnemonic, hexline(a), hexline(b)))
            p.load("r32", a)
            p.load("r33", b)
            p.op("movi r40 = 0 ;;")
            value = 0
            for c in CONDS:
                p.op("%s.%s p1, p2 = r32, r33 ;;" % (mnemonic, c))
                accumulate(p)
                t = cond(c, a, b, bits)
                value = value << 2 | t << 1 | (not t)
            p.check_hex(["mov r3 = r40"], value)
        for a, b in imm_pairs:
            p.comment("%s, immediate: %s vs %s" % (mnemonic, hexline(a), lit(b)))
            p.load("r32", a)
            p.op("movi r40 = 0 ;;")
            value = 0
            for c in CONDS:
                p.op("%s.%s p1, p2 = r32, %s ;;" % (mnemonic, c, lit(b)))
                accumulate(p)
                t = cond(c, a, b, bits)
                value = value << 2 | t << 1 | (not t)
            p.check_hex(["mov r3 = r40"], value)
    p.exit()
    write_program("pred/compare_conditions.s",
                  "Every compare condition (eq ne lt le gt ge ltu leu gtu geu) of cmp and\n"
                  "cmpw, register and immediate (also long immediate) forms. Each line packs\n"
                  "the 10 conditions in order, two bits each: pd1 then pd2 (= !pd1).",
                  p.body, p.expected, gen_name="pred.py")


CTYPES = ["", ".unc", ".and", ".or", ".andcm", ".orcm", ".or.andcm", ".and.orcm"]


def ctype_effect(t, g, c, p1, p2):
    if t == "":
        return (c, not c) if g else (p1, p2)
    if t == ".unc":
        return (g and c, g and not c)
    if t == ".and":
        return (False, False) if g and not c else (p1, p2)
    if t == ".or":
        return (True, True) if g and c else (p1, p2)
    if t == ".andcm":
        return (False, False) if g and c else (p1, p2)
    if t == ".orcm":
        return (True, True) if g and not c else (p1, p2)
    if t == ".or.andcm":
        return (True, False) if g and c else (p1, p2)
    if t == ".and.orcm":
        return (False, True) if g and not c else (p1, p2)
    raise ValueError(t)


def ctypes():
    p = Program()
    p.op("movi r36 = 1 ;;")
    one = {0: "r0", 1: "r36"}
    for t in CTYPES:
        p.comment("compare type '%s': 16 cases (guard, condition, old p1, old p2)" % t)
        p.op("movi r40 = 0 ;;")
        value = 0
        for g in (0, 1):
            for c in (0, 1):
                for i1 in (0, 1):
                    for i2 in (0, 1):
                        p.op("r2p p1 = %s ; r2p p2 = %s ; r2p p3 = %s ;;" % (one[i1], one[i2], one[g]))
                        # c: r0 == r0 is true, r0 == r36 is false
                        p.op("(p3) cmp.eq%s p1, p2 = r0, %s ;;" % (t, "r0" if c else "r36"))
                        accumulate(p)
                        n1, n2 = ctype_effect(t, bool(g), bool(c), bool(i1), bool(i2))
                        value = value << 2 | n1 << 1 | n2
        p.check_hex(["mov r3 = r40"], value)

    p.comment("a conjunction of two .and compares in one bundle: 10 <= x <= 20")
    for x in (5, 10, 15, 20, 25, -15):
        p.load("r32", x)
        p.op("r2p p4 = r36 ; r2p p5 = r36 ;;")
        p.op("cmp.ge.and p4, p5 = r32, 10 ; cmp.le.and p4, p5 = r32, 20 ;;")
        p.check_dec(["p2r r3 = p4"], int(10 <= x <= 20))
    p.comment("a disjunction of two .or compares in one bundle: x < 10 or x > 20")
    for x in (5, 10, 15, 20, 25, -15):
        p.load("r32", x)
        p.op("r2p p6 = r0 ; r2p p7 = r0 ;;")
        p.op("cmp.lt.or p6, p7 = r32, 10 ; cmp.gt.or p6, p7 = r32, 20 ;;")
        p.check_dec(["p2r r3 = p6"], int(x < 10 or x > 20))
    p.comment("nested if-then-else with .unc: a < b ? (c == d ? 1 : 2) : 3")
    for a, b, c, d in [(1, 2, 5, 5), (1, 2, 5, 6), (2, 1, 5, 5), (2, 1, 5, 6)]:
        p.load("r32", a)
        p.load("r33", b)
        p.load("r34", c)
        p.load("r35", d)
        p.op("r2p p3 = r36 ; r2p p4 = r36 ;;")   # stale true values that .unc must clear
        p.op("cmp.lt.unc p1, p2 = r32, r33 ;;")
        p.op("(p1) cmp.eq.unc p3, p4 = r34, r35 ;;")
        p.op("movi r3 = 0 ;;")
        expected = (1 if c == d else 2) if a < b else 3
        p.check_dec(["(p3) movi r3 = 1 ; (p4) movi r3 = 2 ; (p2) movi r3 = 3"], expected)
    p.comment("a compare may write p0, which stays true; p0 as the other destination")
    p.comment("(each check sets its predicates itself: calls clobber p1..p11)")
    p.check_dec(["cmp.ne p0, p5 = r0, r0", "p2r r3 = p0"], 1)
    p.check_dec(["cmp.ne p0, p5 = r0, r0", "p2r r3 = p5"], 1)
    p.check_dec(["cmp.ne p5, p0 = r0, r0", "p2r r3 = p5"], 0)
    p.comment("a guarded normal compare whose guard is false leaves its destinations")
    p.check_dec(["r2p p8 = r36 ; r2p p9 = r0 ; r2p p10 = r0",
                 "(p10) cmp.eq p8, p9 = r0, r36",
                 "p2r r10 = p8 ; p2r r11 = p9",
                 "shl r10 = r10, 1", "or r3 = r10, r11"], 2)
    p.exit()
    write_program("pred/compare_types.s",
                  "Every compare type (normal, .unc, .and, .or, .andcm, .orcm, .or.andcm,\n"
                  "and.orcm) for every guard, condition and prior predicate value; each of the\n"
                  "first 8 lines packs 16 cases (g, c, p1, p2 counting up), 2 bits each\n"
                  "(new p1, new p2). Then and/or accumulation in one bundle, nested .unc.",
                  p.body, p.expected, gen_name="pred.py")


def plogic():
    p = Program()
    p.op("movi r36 = 1 ;;")
    one = {0: "r0", 1: "r36"}
    ops = {
        "pand": lambda a, b: a and b,
        "por": lambda a, b: a or b,
        "pxor": lambda a, b: a != b,
        "pandn": lambda a, b: a and not b,
        "porn": lambda a, b: a or not b,
    }
    for name, f in ops.items():
        p.comment(name)
        p.op("movi r40 = 0 ;;")
        value = 0
        for a in (0, 1):
            for b in (0, 1):
                p.op("r2p p1 = %s ; r2p p2 = %s ;;" % (one[a], one[b]))
                p.op("%s p3 = p1, p2 ;;" % name)
                p.op("p2r r10 = p3 ; shl r40 = r40, 1 ;;")
                p.op("or r40 = r40, r10 ;;")
                value = value << 1 | int(f(a, b))
        p.check_hex(["mov r3 = r40"], value)
    p.comment("pnot, and predicate ops reading and writing the same predicate")
    p.check_dec(["r2p p1 = r0", "pnot p2 = p1", "p2r r3 = p2"], 1)
    p.check_dec(["r2p p2 = r36", "pnot p2 = p2", "p2r r3 = p2"], 0)
    p.check_dec(["r2p p1 = r36 ; r2p p2 = r0", "pand p1 = p1, p2", "p2r r3 = p1"], 0)
    p.check_dec(["r2p p1 = r36 ; r2p p2 = r0", "pxor p1 = p2, p1", "p2r r3 = p1"], 1)
    p.comment("p0 reads as true and ignores writes")
    p.check_dec(["pnot p0 = p0", "p2r r3 = p0"], 1)
    p.check_dec(["pandn p4 = p0, p0", "p2r r3 = p4"], 0)
    p.check_dec(["pandn p4 = p0, p0", "porn p4 = p4, p0", "p2r r3 = p4"], 0)
    p.comment("r2p: any non-zero register is true")
    for v in (0, 1, u64(-1), MIN, 0x100000000, 0x80):
        p.load("r32", v)
        p.check_dec(["r2p p5 = r32", "p2r r3 = p5"], int(v != 0))
    p.comment("sel")
    p.load("r32", 0x1111)
    p.load("r33", 0x2222)
    p.check_hex(["r2p p1 = r36", "sel r3 = p1, r32, r33"], 0x1111)
    p.check_hex(["r2p p1 = r0", "sel r3 = p1, r32, r33"], 0x2222)
    p.check_hex(["sel r3 = p0, r33, r32"], 0x2222)
    p.check_hex(["mov r3 = r32 ; r2p p1 = r0", "sel r3 = p1, r3, r33"], 0x2222)
    p.check_hex(["mov r3 = r32 ; r2p p1 = r36", "sel r3 = p1, r3, r33"], 0x1111)
    p.exit()
    write_program("pred/plogic_sel.s",
                  "Predicate logic (pand por pxor pandn porn pnot; the first 5 lines are the\n"
                  "truth tables for (a,b) = 00 01 10 11), p0, r2p/p2r, sel.",
                  p.body, p.expected, gen_name="pred.py")


if __name__ == "__main__":
    conditions()
    ctypes()
    plogic()
