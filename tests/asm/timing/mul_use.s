# A multiply (latency 3) read by the next bundle stalls it 2 cycles.
# run-flags: --stats
# expect-exit: 42
# expect-stderr-contains: stats: cycles=6 bundles=4 ops=5 nullified=0 stalls=2 branches=0
    .text
    .globl _start
_start:
    movi r4 = 6 ; movi r5 = 7 ;;    # 0
    mul r6 = r4, r5 ;;              # 1: r6 ready at 4
    add r3 = r6, 0 ;;               # stalls 2, issues at 4
    syscall 0 ;;                    # 5: exit(42)
