"""Atomics program: tests/asm/mem/atomics.s.

For each width and operation: store an initial value, run the atomic, print the
returned old value and the doubleword holding the location (so that neighbouring
bytes are seen unchanged)."""

import sys
sys.path.insert(0, __import__("os").path.dirname(__file__))
from common import *

WIDTH = {"b": 1, "h": 2, "w": 4, "d": 8}


def sx(x, bits):
    x %= 1 << bits
    return x - (1 << bits) if x >= 1 << (bits - 1) else x


def amo(op, old, operand, bits):
    mask = (1 << bits) - 1
    o, v = old & mask, operand & mask
    if op == "swap":
        return v
    if op == "add":
        return (o + v) & mask
    if op == "and":
        return o & v
    if op == "or":
        return o | v
    if op == "xor":
        return o ^ v
    if op == "min":
        return min(sx(o, bits), sx(v, bits)) & mask
    if op == "max":
        return max(sx(o, bits), sx(v, bits)) & mask
    if op == "minu":
        return min(o, v)
    if op == "maxu":
        return max(o, v)
    raise ValueError(op)


def main():
    p = Program()
    # the cell is the doubleword at `cell`; the location is at byte offset `off`
    background = 0x1122334455667788
    p.op("movi r32 = cell ; movi r33 = %s ;;" % lit(background))
    cases = []
    for w, n in WIDTH.items():
        bits = 8 * n
        off = {1: 5, 2: 2, 4: 4, 8: 0}[n]
        mask = (1 << bits) - 1
        # (initial value at the location, operand); operands are given as canonical
        # sign-extended 64-bit values so that signed comparisons are unambiguous
        vals = [
            ("swap", 0x80 << (bits - 8), sx(0x5a, bits)),
            ("add", mask, 1),                                  # wraps within the width
            ("add", 0x7f << (bits - 8), 0x01 << (bits - 8)),
            ("and", mask, sx(0xf0f0f0f0f0f0f0f0, bits)),
            ("or", 0x0f, sx(0x80 << (bits - 8), bits)),
            ("xor", mask, sx(0x5555555555555555, bits)),
            ("min", 0x80 << (bits - 8), 5),                    # negative old stays
            ("min", 7, -1),
            ("max", 0x80 << (bits - 8), 5),
            ("max", 7, -1),
            ("minu", 0x80 << (bits - 8), 5),
            ("minu", 7, -1),
            ("maxu", 0x80 << (bits - 8), 5),
            ("maxu", 7, -1),
        ]
        for op, init, operand in vals:
            cases.append((w, n, off, op, init & mask, operand))
    for w, n, off, op, init, operand in cases:
        bits = 8 * n
        p.comment("amo%s.%s: old %s, operand %s" % (op, w, hex(init), operand))
        # reset the cell, then store the initial value at the location
        p.op("st.d [r32] = r33 ; movi r34 = %s ; add r35 = r32, %d ;;" % (lit(init), off))
        p.op("st.%s [r35] = r34 ; movi r36 = %s ;;" % (w, lit(operand)))
        p.op("amo%s.%s r3 = [r35], r36 ;;" % (op, w))
        p.op("call print_hex ;;")
        p.expected.append(hexline(init))                        # old value, zero-extended
        p.op("ld.d r3 = [r32] ;;")
        p.op("call print_hex ;;")
        new = amo(op, init, operand, bits)
        cell = bytearray(background.to_bytes(8, "little"))
        cell[off:off + n] = new.to_bytes(n, "little")
        p.expected.append(hexline(int.from_bytes(cell, "little")))
    # compare-and-swap: success and failure for each width
    for w, n in WIDTH.items():
        bits = 8 * n
        off = {1: 3, 2: 6, 4: 0, 8: 0}[n]
        mask = (1 << bits) - 1
        init = 0x8182838485868788 & mask
        for expected_old, new in [(init, 0x0102030405060708), (init ^ 1, 0x0102030405060708),
                                  (sx(init, bits), 0x7f)]:
            # the third case passes the expected value sign-extended: compared on
            # the low bits only, so it succeeds
            p.comment("cas.%s: memory %s, expected %s, new %s" % (w, hex(init), hex(expected_old & ((1 << 64) - 1)), hex(new)))
            p.op("st.d [r32] = r33 ; movi r34 = %s ; add r35 = r32, %d ;;" % (lit(init), off))
            p.op("st.%s [r35] = r34 ; movi r36 = %s ;;" % (w, lit(expected_old)))
            p.op("movi r37 = %s ;;" % lit(new))
            p.op("cas.%s r3 = [r35], r36, r37 ;;" % w)
            p.op("call print_hex ;;")
            p.expected.append(hexline(init))
            p.op("ld.d r3 = [r32] ;;")
            p.op("call print_hex ;;")
            cell = bytearray(background.to_bytes(8, "little"))
            stored = new & mask if (expected_old & mask) == init else init
            cell[off:off + n] = stored.to_bytes(n, "little")
            p.expected.append(hexline(int.from_bytes(cell, "little")))
    p.comment("fence is accepted and orders nothing observable")
    p.op("fence ;;")
    p.exit()
    p.body.extend(["", "    .data", "    .p2align 3", "cell:", "    .quad 0"])
    write_program("mem/atomics.s",
                  "Atomics: every amo operation (swap add and or xor min max minu maxu) at\n"
                  "every width, and cas success and failure. Each check prints the returned\n"
                  "old value (zero-extended) and the doubleword around the location.",
                  p.body, p.expected, gen_name="atomics.py")


if __name__ == "__main__":
    main()
