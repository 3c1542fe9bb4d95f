# Atomics need natural alignment too: a misaligned amoadd.h faults, exit 135.
# expect-exit: 135
# expect-stderr-contains: misaligned
    .text
    .globl _start
_start:
    movi r3 = data ; movi r5 = 1 ;;
    add r4 = r3, 3 ;;
    amoadd.h r6 = [r4], r5 ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .data
    .p2align 3
data:
    .quad 0
