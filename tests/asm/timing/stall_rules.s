# A bundle reading two pending results stalls until the later one is ready (the
# waits overlap, they do not add up), and a register's readiness is that of its
# latest write: a 1-cycle movi after a 20-cycle div to the same register can be
# read at once (and the value is the movi's). 9 bundles + 2 stall cycles.
# run-flags: --stats
# expect-exit: 42
# expect-stderr-contains: stats: cycles=11 bundles=9 ops=10 nullified=0 stalls=2 branches=0
    .text
    .globl _start
_start:
    movi r4 = slot ; movi r5 = 6 ;;             # 0
    ld.d r6 = [r4] ;;                           # 1: ready at 4
    mul r7 = r5, r5 ;;                          # 2: ready at 5
    add r8 = r6, r7 ;;                          # would be 3: stalls 2, issues at 5
    div r9 = r5, r5 ;;                          # 6: would be ready at 26
    movi r9 = 1 ;;                              # 7: the latest write, ready at 8
    add r10 = r9, r8 ;;                         # 8: no stall; 1 + 5 + 36
    mov r3 = r10 ;;                             # 9
    syscall 0 ;;                                # 10: exit(42)
    .data
    .p2align 3
slot:
    .quad 5
