# Under --strict, a nullified operation reading a register that is not ready is a
# stall fault too: operands are read whatever the guard (docs/isa.md §4).
# run-flags: --strict
# expect-exit: 144
# expect-stderr-contains: latency stall
    .text
    .globl _start
_start:
    movi r4 = slot ; cmp.eq p1, p2 = r0, 1 ;;
    ld.d r5 = [r4] ;;
    (p1) add r6 = r5, 1 ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .data
    .p2align 3
slot:
    .quad 1
