# Latencies and the branch penalty are machine parameters: the loop of loop.s with a
# 3-cycle branch penalty and a 5-cycle load. Values do not depend on timing.
# 13 + 2 bundles, 4 taken branches * 3 = 12, load use stall 4: 15 + 12 + 4 = 31.
# run-flags: --stats --machine branch-penalty=3,latency.load=5
# expect-exit: 57
# expect-stderr-contains: cycles=31 bundles=15
# expect-stderr-contains: nullified=1 stalls=4 branches=4
    .text
    .globl _start
_start:
    movi r3 = 5 ; movi r4 = 0 ;;
loop:
    add r4 = r4, r3 ; add r3 = r3, -1 ; cmp.ne p1, p2 = r3, 1 ;;
    (p1) br loop ;;
    movi r6 = value ;;
    ld.d r5 = [r6] ;;
    add r3 = r4, r5 ;;          # stalls 4
    syscall 0 ;;                # exit(15 + 42)
    .data
    .p2align 3
value:
    .quad 42
