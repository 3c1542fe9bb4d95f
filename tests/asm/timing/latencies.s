# Every latency class of docs/isa.md §8, each result read by the next bundle:
# divide 20 (stall 19), float 4 (stall 3), float-divide 16 (stall 15), float-compare
# 2 read as a guard (stall 1), compare 1, alu 1 and a syscall result (no stall).
# 16 bundles + 38 stall cycles = 54 cycles. Exit status 100/7 + 2 = 16.
# run-flags: --stats
# expect-exit: 16
# expect-stderr-contains: stats: cycles=54 bundles=16 ops=18 nullified=0 stalls=38 branches=0
    .text
    .globl _start
_start:
    movi r4 = 100 ; movi r5 = 7 ; movi r6 = 0x40000000 ;;    # 0
    shl r6 = r6, 32 ;;                  # 1: r6 = 2.0 (f64)
    div r7 = r4, r5 ;;                  # 2: r7 ready at 22
    add r8 = r7, 0 ;;                   # stalls 19, issues at 22
    fadd.d r9 = r6, r6 ;;               # 23: ready at 27
    mov r10 = r9 ;;                     # stalls 3, issues at 27
    fdiv.d r11 = r6, r6 ;;              # 28: ready at 44
    mov r12 = r11 ;;                    # stalls 15, issues at 44
    fcmp.lt.d p1, p2 = r6, r6 ;;        # 45: p2 = true, ready at 47
    (p2) movi r13 = 1 ;;                # stalls 1, issues at 47
    cmp.eq p3, p4 = r8, 14 ;;           # 48: p3 = true, ready at 49
    (p3) add r13 = r13, 1 ;;            # 49
    syscall 6 ;;                        # 50: cycles(), r3 ready at 51
    mov r14 = r3 ;;                     # 51
    add r3 = r13, r8 ;;                 # 52: 2 + 14
    syscall 0 ;;                        # 53: exit(16)
