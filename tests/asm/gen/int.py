"""Integer arithmetic programs: tests/asm/int/*.s."""

import sys
sys.path.insert(0, __import__("os").path.dirname(__file__))
from common import *

MIN = 1 << 63
MAX = (1 << 63) - 1


def rotl64(x, n):
    n %= 64
    x = u64(x)
    return u64((x << n) | (x >> (64 - n))) if n else x


def rotl32(x, n):
    n %= 32
    x = u32(x)
    return u32((x << n) | (x >> (32 - n))) if n else x


def alu64():
    p = Program()
    regs = {
        "r32": 0x0123456789abcdef,
        "r33": 0xfedcba9876543210,
        "r34": MIN,
        "r35": u64(-1),
        "r36": 5,
        "r37": 67,
        "r38": u64(-7),
        "r39": MAX,
        "r40": 64,
        "r41": 0,
    }
    for r, v in regs.items():
        p.load(r, v)
    R = lambda r: regs[r]
    cases = [
        # (assembly computing r3, expected)
        ("add r3 = r32, r33", R("r32") + R("r33")),
        ("add r3 = r39, r36", R("r39") + 5),                # MAX + 5 wraps
        ("add r3 = r32, -1000", R("r32") - 1000),
        ("add r3 = r35, 1", 0),
        ("sub r3 = r32, r33", R("r32") - R("r33")),
        ("sub r3 = r34, r36", MIN - 5),                     # wraps to positive
        ("sub r3 = r32, 100", 100 - R("r32")),              # immediate form: imm - rs1
        ("sub r3 = r0, r38", 7),                            # negation
        ("sub r3 = r34, 0", u64(-MIN)),                     # 0 - MIN = MIN
        ("and r3 = r32, r33", R("r32") & R("r33")),
        ("and r3 = r33, 0xff0", R("r33") & 0xff0),
        ("and r3 = r33, -16", R("r33") & u64(-16)),         # imm sign-extended
        ("andn r3 = r35, r32", u64(-1) & ~R("r32")),
        ("andn r3 = r32, r33", R("r32") & ~R("r33")),
        ("or r3 = r32, r33", R("r32") | R("r33")),
        ("or r3 = r41, -0x80000000", u64(-0x80000000)),
        ("or r3 = r36, 0x7ff00", 5 | 0x7ff00),
        ("xor r3 = r32, r33", R("r32") ^ R("r33")),
        ("xor r3 = r32, -1", ~R("r32")),
        ("xor r3 = r32, 0x5a5a", R("r32") ^ 0x5a5a),
        ("shl r3 = r32, r36", R("r32") << 5),
        ("shl r3 = r32, r37", R("r32") << 3),               # 67 mod 64
        ("shl r3 = r32, r40", R("r32")),                    # 64 mod 64 = 0
        ("shl r3 = r32, 63", R("r32") << 63),
        ("shl r3 = r32, 68", R("r32") << 4),                # imm mod 64
        ("shl r3 = r36, r38", 5 << 57),                     # -7 mod 64 = 57
        ("shr r3 = r35, r38", u64(-1) >> 57),
        ("shr r3 = r34, 63", 1),
        ("shr r3 = r33, r36", R("r33") >> 5),
        ("shr r3 = r33, r37", R("r33") >> 3),
        ("shr r3 = r35, 1", u64(-1) >> 1),
        ("sra r3 = r34, 63", u64(-1)),
        ("sra r3 = r38, 1", u64(-4)),                       # -7 >> 1 = -4
        ("sra r3 = r33, r37", u64(s64(R("r33")) >> 3)),
        ("sra r3 = r32, r36", R("r32") >> 5),
        ("sra r3 = r34, r40", MIN),                         # shift by 0
        ("rotl r3 = r32, 4", rotl64(R("r32"), 4)),
        ("rotl r3 = r32, r37", rotl64(R("r32"), 3)),
        ("rotl r3 = r34, 1", 1),
        ("rotl r3 = r32, 64", R("r32")),
        ("rotr r3 = r32, r36", rotl64(R("r32"), 64 - 5)),
        ("rotr r3 = r32, r40", R("r32")),
        ("rotr r3 = r36, r37", rotl64(5, 64 - 3)),          # 5 ror 3
        ("min r3 = r35, r36", u64(-1)),
        ("min r3 = r34, r39", MIN),
        ("min r3 = r38, r35", u64(-7)),
        ("max r3 = r35, r36", 5),
        ("max r3 = r34, r39", MAX),
        ("max r3 = r38, r35", u64(-1)),
        ("minu r3 = r35, r36", 5),
        ("minu r3 = r34, r39", MAX),
        ("maxu r3 = r35, r36", u64(-1)),
        ("maxu r3 = r34, r39", MIN),
        ("mov r3 = r33", R("r33")),
        ("movi r3 = -2", u64(-2)),
        ("add r3 = r0, r0", 0),
        # shift-and-add (the `shift-add` extension): (rs1 << k) + rs2, wrapping
        ("sh1add r3 = r36, r37", 5 * 2 + 67),
        ("sh2add r3 = r32, r33", (R("r32") << 2) + R("r33")),
        ("sh3add r3 = r34, r36", 5),                        # MIN << 3 wraps to 0
        ("sh3add r3 = r38, r0", u64(-56)),
        ("sh2add r3 = r35, r39", MAX - 4),
    ]
    for asm, value in cases:
        p.check_hex([asm], value)
    # r0 ignores writes: write it, then read it.
    p.check_hex(["movi r0 = 77", "add r3 = r0, 1"], 1)
    p.exit()
    write_program("int/alu64.s",
                  "64-bit ALU operations: add/sub (with reverse-subtract immediate), logic,\n"
                  "shifts and rotates with amounts mod 64, signed/unsigned min/max, r0,\n"
                  "shift-and-add.",
                  p.body, p.expected, gen_name="int.py")


def alu32():
    p = Program()
    regs = {
        "r32": 0x0123456789abcdef,
        "r33": 0x7fffffff,
        "r34": 0xffffffff80000000,
        "r35": 0x00000000ffffffff,   # not canonical: low 32 bits are -1
        "r36": 5,
        "r37": 35,                   # shift amount: 35 mod 32 = 3
        "r38": u64(-7),
        "r39": 0x1234567880000001,
        "r40": 32,
    }
    for r, v in regs.items():
        p.load(r, v)
    R = lambda r: regs[r]
    cases = [
        ("addw r3 = r33, r36", sext32(0x7fffffff + 5)),
        ("addw r3 = r33, 1", sext32(0x80000000)),
        ("addw r3 = r35, 1", 0),
        ("addw r3 = r32, r32", sext32(2 * R("r32"))),
        ("addw r3 = r39, -1", sext32(R("r39") - 1)),
        ("subw r3 = r34, r36", sext32(0x80000000 - 5)),
        ("subw r3 = r36, r33", sext32(5 - 0x7fffffff)),
        ("subw r3 = r0, r34", sext32(-0x80000000)),
        ("shlw r3 = r36, 31", sext32(5 << 31)),
        ("shlw r3 = r32, r37", sext32(R("r32") << 3)),      # 35 mod 32
        ("shlw r3 = r32, r40", sext32(R("r32"))),           # 32 mod 32 = 0
        ("shlw r3 = r33, 1", sext32(0xfffffffe)),
        ("shrw r3 = r34, 1", sext32(0x40000000)),
        ("shlw r3 = r36, r38", sext32(5 << 25)),            # -7 mod 32 = 25
        ("sraw r3 = r34, r38", sext32(-(1 << 31) >> 25)),
        ("shrw r3 = r34, 0", sext32(0x80000000)),
        ("shrw r3 = r35, r37", sext32(0xffffffff >> 3)),
        ("shrw r3 = r39, 4", sext32(u32(R("r39")) >> 4)),
        ("sraw r3 = r34, 4", sext32(s32(0x80000000) >> 4)),
        ("sraw r3 = r35, 31", u64(-1)),
        ("sraw r3 = r39, r37", sext32(s32(R("r39")) >> 3)),
        ("sraw r3 = r33, 36", sext32(0x7fffffff >> 4)),
        ("rotlw r3 = r39, 1", sext32(rotl32(R("r39"), 1))),
        ("rotlw r3 = r32, r37", sext32(rotl32(R("r32"), 3))),
        ("rotlw r3 = r36, 31", sext32(rotl32(5, 31))),
        ("rotrw r3 = r39, r36", sext32(rotl32(R("r39"), 32 - 5))),
        ("rotrw r3 = r32, r40", sext32(R("r32"))),
        ("sxtw r3 = r35", u64(-1)),
    ]
    for asm, value in cases:
        p.check_hex([asm], value)
    p.exit()
    write_program("int/alu32.s",
                  "32-bit `w` operations: compute on the low 32 bits and sign-extend the\n"
                  "result; shift amounts mod 32; inputs with junk in the upper half.",
                  p.body, p.expected, gen_name="int.py")


def ext():
    p = Program()
    regs = {
        "r32": 0x0123456789abcdef,
        "r33": 0xfedcba9876543280,
        "r34": 200,
        "r35": 100,
        "r36": 300,
        "r37": u64(-100),
        "r38": 0x7fff,
        "r39": 40000,
    }
    for r, v in regs.items():
        p.load(r, v)
    R = lambda r: regs[r]

    def sx(x, bits):
        x %= 1 << bits
        return u64(x - (1 << bits) if x >= 1 << (bits - 1) else x)

    hexcases = [
        ("sxtb r3 = r32", sx(R("r32"), 8)),       # 0xef -> negative
        ("sxtb r3 = r33", sx(R("r33"), 8)),       # 0x80 -> -128
        ("sxth r3 = r32", sx(R("r32"), 16)),
        ("sxth r3 = r33", sx(R("r33"), 16)),
        ("sxtw r3 = r32", sx(R("r32"), 32)),
        ("sxtw r3 = r33", sx(R("r33"), 32)),
        ("zxtb r3 = r32", R("r32") & 0xff),
        ("zxth r3 = r33", R("r33") & 0xffff),
        ("zxtw r3 = r33", R("r33") & 0xffffffff),
        ("zxtw r3 = r37", u64(-100) & 0xffffffff),
    ]
    for asm, value in hexcases:
        p.check_hex([asm], value)
    # 8- and 16-bit arithmetic: 32/64-bit operation, then extension (printed in decimal).
    deccases = [
        (["add r3 = r34, r35", "zxtb r3 = r3"], (200 + 100) % 256),           # u8 200+100
        (["add r3 = r35, r35", "sxtb r3 = r3"], sx(200, 8)),                  # i8 100+100
        (["sub r3 = r35, r34", "zxtb r3 = r3"], (100 - 200) % 256),           # u8 100-200
        (["mulw r3 = r36, r36", "sxth r3 = r3"], sx(90000, 16)),              # i16 300*300
        (["mulw r3 = r34, r34", "sxth r3 = r3"], sx(40000, 16)),              # i16 200*200
        (["mulw r3 = r34, r34", "zxth r3 = r3"], 40000),                      # u16 200*200
        (["add r3 = r38, 1", "sxth r3 = r3"], sx(0x8000, 16)),                # i16 MAX+1
        (["add r3 = r39, r39", "zxth r3 = r3"], 80000 % 65536),               # u16 wrap
        (["sraw r3 = r37, 2", "sxtb r3 = r3"], sx(-25, 8)),                   # i8 -100>>2
        (["zxtb r3 = r37", "shrw r3 = r3, 2"], (256 - 100) >> 2),             # u8 156>>2
        (["sxtb r3 = r34", "divw r3 = r3, r35"], 0),                          # i8 -56/100 = 0
        (["sxtb r3 = r36", "remw r3 = r3, r35"], 44),                         # i8 300 wraps to 44
        (["sub r3 = r0, r34", "sxtb r3 = r3"], 56),                           # i8 -(-56) = 56
    ]
    for bundles, value in deccases:
        p.check_dec(bundles, value)
    p.exit()
    write_program("int/ext8_16.s",
                  "Sign and zero extension, and 8/16-bit arithmetic done in 32/64 bits\n"
                  "followed by sxtb/sxth/zxtb/zxth (results in decimal via print_dec).",
                  p.body, p.expected, gen_name="int.py")


def mul():
    p = Program()
    regs = {
        "r32": 0x0123456789abcdef,
        "r33": 0xfedcba9876543210,
        "r34": MIN,
        "r35": u64(-1),
        "r36": 3,
        "r37": MAX,
        "r38": 0x100000000,
        "r39": 0x80000000,
    }
    for r, v in regs.items():
        p.load(r, v)

    def prod(a, b, signed):
        if signed:
            return s64(a) * s64(b)
        return u64(a) * u64(b)

    pairs = [("r32", "r33"), ("r35", "r35"), ("r34", "r34"), ("r34", "r35"),
             ("r37", "r37"), ("r37", "r35"), ("r38", "r38"), ("r32", "r36"),
             ("r34", "r36"), ("r33", "r35")]
    for a, b in pairs:
        va, vb = regs[a], regs[b]
        p.comment("%s * %s: low, signed high, unsigned high" % (a, b))
        p.check_hex(["mul r3 = %s, %s" % (a, b)], prod(va, vb, False))
        p.check_hex(["mulh r3 = %s, %s" % (a, b)], u64(prod(va, vb, True) >> 64))
        p.check_hex(["mulhu r3 = %s, %s" % (a, b)], prod(va, vb, False) >> 64)
    cases = [
        ("mul r3 = r32, -3", regs["r32"] * -3),
        ("mul r3 = r32, 1000000", regs["r32"] * 1000000),
        ("mul r3 = r36, 0x100000000", 3 << 32),                     # long immediate
        ("mulw r3 = r39, r36", sext32(0x80000000 * 3)),
        ("mulw r3 = r32, r33", sext32(regs["r32"] * regs["r33"])),
        ("mulw r3 = r38, r38", 0),
        ("mulw r3 = r35, r36", u64(-3)),
    ]
    for asm, value in cases:
        p.check_hex([asm], value)
    p.exit()
    write_program("int/mul.s",
                  "Multiplication: mul (low 64 bits), mulh/mulhu (high halves of the signed\n"
                  "and unsigned 128-bit products), immediate and long-immediate forms, mulw.",
                  p.body, p.expected, gen_name="int.py")


def tdiv(a, b):
    """Signed division truncating toward zero (a, b nonzero-b Python ints)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def div():
    p = Program()
    regs = {
        "r32": 100,
        "r33": 7,
        "r34": u64(-100),
        "r35": u64(-7),
        "r36": MIN,
        "r37": u64(-1),
        "r38": 0,
        "r39": 0x0123456789abcdef,
        "r40": 0xfffffffffffffffe,
        "r41": 0xffffffff80000000,     # i32 MIN, canonical
        "r42": 0x12345678fffffff9,     # low 32 bits: -7 / 4294967289
        "r43": 0x00000000ffffffff,     # low 32 bits: -1 / 4294967295
    }
    for r, v in regs.items():
        p.load(r, v)

    def sdiv(a, b, bits):
        a, b = (s64(a), s64(b)) if bits == 64 else (s32(a), s32(b))
        if b == 0:
            return -1
        if b == -1 and a == -(1 << (bits - 1)):
            return a
        return tdiv(a, b)

    def srem(a, b, bits):
        a, b = (s64(a), s64(b)) if bits == 64 else (s32(a), s32(b))
        if b == 0:
            return a
        if b == -1:
            return 0
        return a - tdiv(a, b) * b

    def udiv(a, b, bits):
        mask = (1 << bits) - 1
        a, b = a & mask, b & mask
        return mask if b == 0 else a // b

    def urem(a, b, bits):
        mask = (1 << bits) - 1
        a, b = a & mask, b & mask
        return a if b == 0 else a % b

    pairs64 = [("r32", "r33"), ("r34", "r33"), ("r32", "r35"), ("r34", "r35"),
               ("r36", "r37"), ("r32", "r38"), ("r34", "r38"), ("r39", "r33"),
               ("r40", "r33"), ("r36", "r33"), ("r37", "r40")]
    for a, b in pairs64:
        va, vb = regs[a], regs[b]
        p.comment("%s / %s" % (a, b))
        p.check_hex(["div r3 = %s, %s" % (a, b)], sdiv(va, vb, 64))
        p.check_hex(["rem r3 = %s, %s" % (a, b)], srem(va, vb, 64))
        p.check_hex(["divu r3 = %s, %s" % (a, b)], udiv(va, vb, 64))
        p.check_hex(["remu r3 = %s, %s" % (a, b)], urem(va, vb, 64))
    pairs32 = [("r32", "r33"), ("r34", "r33"), ("r42", "r33"), ("r41", "r37"),
               ("r41", "r43"), ("r32", "r38"), ("r42", "r38"), ("r43", "r33"),
               ("r39", "r35")]
    for a, b in pairs32:
        va, vb = regs[a], regs[b]
        p.comment("%s / %s, 32-bit" % (a, b))
        p.check_hex(["divw r3 = %s, %s" % (a, b)], sext32(sdiv(va, vb, 32)))
        p.check_hex(["remw r3 = %s, %s" % (a, b)], sext32(srem(va, vb, 32)))
        p.check_hex(["divuw r3 = %s, %s" % (a, b)], sext32(udiv(va, vb, 32)))
        p.check_hex(["remuw r3 = %s, %s" % (a, b)], sext32(urem(va, vb, 32)))
    p.exit()
    write_program("int/div.s",
                  "Division and remainder, signed and unsigned, 64 and 32 bits, with the\n"
                  "edge cases of docs/isa.md: x/0 = -1 or all ones, x%0 = x, MIN/-1 = MIN,\n"
                  "MIN%-1 = 0; the w forms use the low 32 bits and sign-extend.",
                  p.body, p.expected, gen_name="int.py")


def bits():
    p = Program()
    values = [0, u64(-1), MIN, 1, 0x0123456789abcdef, 0x0000000080000000,
              0x0000000100000000, 0x00f0000000000f00, 0x8000000000000001]
    for i, v in enumerate(values):
        p.load("r%d" % (32 + i), v)

    def clz(x, bits):
        x &= (1 << bits) - 1
        return bits - x.bit_length()

    def ctz(x, bits):
        x &= (1 << bits) - 1
        if x == 0:
            return bits
        return (x & -x).bit_length() - 1

    for i, v in enumerate(values):
        r = "r%d" % (32 + i)
        p.comment("%s = %s" % (r, hexline(v)))
        p.check_dec(["clz r3 = %s" % r], clz(v, 64))
        p.check_dec(["ctz r3 = %s" % r], ctz(v, 64))
        p.check_dec(["popc r3 = %s" % r], bin(v).count("1"))
        p.check_dec(["clzw r3 = %s" % r], clz(v, 32))
        p.check_dec(["ctzw r3 = %s" % r], ctz(v, 32))
        p.check_hex(["bswap r3 = %s" % r], int.from_bytes(v.to_bytes(8, "little"), "big"))
        p.check_hex(["brev r3 = %s" % r], int(format(v, "064b")[::-1], 2))
    p.exit()
    write_program("int/bits.s",
                  "Bit operations clz/ctz/popc/clzw/ctzw (counts in decimal) and\n"
                  "bswap/brev, on 0, all ones, MIN and other edge values.",
                  p.body, p.expected, gen_name="int.py")


if __name__ == "__main__":
    alu64()
    alu32()
    ext()
    mul()
    div()
    bits()
