"""tests/asm/sys/startup.s: the register state at entry (docs/isa.md §7)."""

import sys
sys.path.insert(0, __import__("os").path.dirname(__file__))
from common import *


def reduce_or(p, regs):
    """ORs the registers together into regs[0], four operations per bundle."""
    while len(regs) > 1:
        ops = []
        nxt = []
        for i in range(0, len(regs) - 1, 2):
            ops.append("or %s = %s, %s" % (regs[i], regs[i], regs[i + 1]))
            nxt.append(regs[i])
        if len(regs) % 2:
            nxt.append(regs[-1])
        for i in range(0, len(ops), 4):
            p.op(" ; ".join(ops[i:i + 4]) + " ;;")
        regs = nxt
    return regs[0]


def main():
    p = Program()
    p.comment("OR together every register that must be zero at entry (all but sp,")
    p.comment("r3, r4, r5), before anything writes them")
    regs = ["r2"] + ["r%d" % i for i in range(6, 64)]
    acc = reduce_or(p, list(regs))
    p.op("mov r40 = %s ;;" % acc)                    # r40: OR of r2, r6..r63
    p.comment("predicates p1..p15 into r6..r20, then OR them")
    preds = ["p%d" % i for i in range(1, 16)]
    dests = ["r%d" % i for i in range(6, 21)]
    pairs = list(zip(dests, preds))
    for i in range(0, len(pairs), 4):
        p.op(" ; ".join("p2r %s = %s" % pr for pr in pairs[i:i + 4]) + " ;;")
    acc = reduce_or(p, list(dests))
    p.op("mov r41 = %s ; mov r32 = r3 ; mov r33 = r4 ; mov r34 = r5 ;;" % acc)
    p.op("mov r35 = sp ; p2r r42 = p0 ;;")
    p.check_hex(["mov r3 = r40"], 0)                 # general registers zero
    p.check_hex(["mov r3 = r41"], 0)                 # predicates false
    p.check_dec(["mov r3 = r42"], 1)                 # p0 true
    p.check_dec(["mov r3 = r32"], 1)                 # argc: the program name only
    p.check_dec(["and r3 = r35, 15"], 0)             # sp 16-byte aligned
    p.comment("argv[0] is a string, argv[1] and envp[0] are NULL (--clear-env)")
    p.check_dec(["ld.d r36 = [r33]", "cmp.ne p1, p2 = r36, 0", "p2r r3 = p1"], 1)
    p.check_dec(["ld.d r3 = [r33 + 8]"], 0)
    p.check_dec(["ld.d r3 = [r34]"], 0)
    p.comment("the arrays and strings lie between sp and the top of the stack")
    p.check_dec(["cmp.leu p1, p2 = r35, r33", "p2r r3 = p1"], 1)
    p.check_dec(["cmp.leu p1, p2 = r35, r34", "p2r r3 = p1"], 1)
    p.check_dec(["cmp.leu p1, p2 = r35, r36", "p2r r3 = p1"], 1)
    p.check_dec(["movi r37 = 0x7fff00000000", "cmp.ltu p1, p2 = r36, r37", "p2r r3 = p1"], 1)
    p.exit()
    write_program("sys/startup.s",
                  "The state at entry (docs/isa.md §7): every register zero except sp, r3\n"
                  "(argc), r4 (argv), r5 (envp); lr = 0; predicates false except p0; sp\n"
                  "16-byte aligned below the argument arrays and strings.",
                  p.body, p.expected, extra=("run-flags: --clear-env",), gen_name="startup.py")


if __name__ == "__main__":
    main()
