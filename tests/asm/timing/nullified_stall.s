# A bundle waits for every register it reads, even those of operations whose guard
# is false: the nullified add below still stalls 2 cycles for the load.
# run-flags: --stats
# expect-exit: 0
# expect-stderr-contains: cycles=7 bundles=5
# expect-stderr-contains: nullified=1 stalls=2 branches=0
    .text
    .globl _start
_start:
    movi r4 = value ; cmp.eq p1, p2 = r0, 1 ;;    # 0: p1 = false
    ld.d r5 = [r4] ;;                             # 1: r5 ready at 4
    (p1) add r3 = r5, 1 ;;                        # stalls 2, issues at 4, nullified
    movi r3 = 0 ;;                                # 5
    syscall 0 ;;                                  # 6: exit(0)
    .data
    .p2align 3
value:
    .quad 42
