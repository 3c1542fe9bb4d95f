# A counted loop: 5 iterations of 2 bundles, the last branch nullified. 13 bundles,
# 4 taken branches of 1 penalty cycle each: 17 cycles; no stall (so --strict passes).
# Sum 5+4+3+2+1 = 15.
# run-flags: --stats --strict
# expect-exit: 15
# expect-stderr-contains: cycles=17 bundles=13
# expect-stderr-contains: nullified=1 stalls=0 branches=4
    .text
    .globl _start
_start:
    movi r3 = 5 ; movi r4 = 0 ;;
loop:
    # the compare reads r3 before this bundle's decrement
    add r4 = r4, r3 ; add r3 = r3, -1 ; cmp.ne p1, p2 = r3, 1 ;;
    (p1) br loop ;;
    mov r3 = r4 ;;
    syscall 0 ;;
