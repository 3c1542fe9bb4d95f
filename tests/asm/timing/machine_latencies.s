# With --machine latency.alu=2,latency.compare=3 every dependent ALU operation and
# every guard read right after its compare stall: 1 + 1 + 2 + 1 = 5 stall cycles
# over 5 bundles. The values do not change.
# run-flags: --stats --machine latency.alu=2,latency.compare=3
# expect-exit: 42
# expect-stderr-contains: stats: cycles=10 bundles=5 ops=5 nullified=0 stalls=5 branches=0
    .text
    .globl _start
_start:
    movi r3 = 1 ;;                  # 0: ready at 2
    add r3 = r3, 1 ;;               # stalls 1, issues at 2: ready at 4
    cmp.eq p1, p2 = r3, 2 ;;        # stalls 1, issues at 4: p1 ready at 7
    (p1) add r3 = r3, 40 ;;         # stalls 2, issues at 7: ready at 9
    syscall 0 ;;                    # stalls 1, issues at 9: exit(42)
