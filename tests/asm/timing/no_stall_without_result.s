# A stall waits for results; where no result is written there is nothing to wait
# for: a nullified load writes no register, a load into r0 is discarded (r0 is
# constant), and a compare writing p0 leaves p0 constant. No stall at all.
# run-flags: --stats --strict
# expect-exit: 2
# expect-stderr-contains: cycles=9 bundles=9
# expect-stderr-contains: nullified=1 stalls=0 branches=0
    .text
    .globl _start
_start:
    movi r4 = slot ; cmp.eq p1, p2 = r0, 1 ;;   # 0: p1 = false
    (p1) ld.d r9 = [r4] ;;                      # 1: nullified
    add r6 = r9, 1 ;;                           # 2: r9 still 0 and ready: r6 = 1
    ld.d r0 = [r4] ;;                           # 3
    add r7 = r0, 1 ;;                           # 4: r0 is always ready: r7 = 1
    fcmp.eq.d p0, p3 = r0, r0 ;;                # 5: p0 = (discarded), p3 = false
    (p0) add r8 = r7, r6 ;;                     # 6: p0 is always ready: r8 = 2
    mov r3 = r8 ;;                              # 7
    syscall 0 ;;                                # 8: exit(2)
    .data
    .p2align 3
slot:
    .quad 99
