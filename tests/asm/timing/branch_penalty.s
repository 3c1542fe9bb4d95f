# A taken branch costs 1 more cycle (branch-penalty), which also hides one cycle of
# the latency of a load issued in the branch's bundle: its use at the target stalls
# only 1 cycle. 4 bundles + 1 penalty + 1 stall = 6 cycles.
# run-flags: --stats
# expect-exit: 42
# expect-stderr-contains: stats: cycles=6 bundles=4 ops=5 nullified=0 stalls=1 branches=1
    .text
    .globl _start
_start:
    movi r4 = value ;;              # 0
    ld.d r5 = [r4] ; br next ;;     # 1: r5 ready at 4; next bundle at 1 + 1 + 1 = 3
    movi r3 = 99 ;;                 # skipped
next:
    add r3 = r5, 0 ;;               # would be 3: stalls 1, issues at 4
    syscall 0 ;;                    # 5: exit(42)
    .data
    .p2align 3
value:
    .quad 42
