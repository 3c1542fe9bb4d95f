# Independent bundles between a load and its use hide its latency: one bundle in
# between leaves a 1-cycle stall, two leave none. (The two `nop`s do no work: the
# statistics' ops do not count them.)
# run-flags: --stats
# expect-exit: 42
# expect-stderr-contains: stats: cycles=10 bundles=9 ops=7 nullified=0 stalls=1 branches=0
    .text
    .globl _start
_start:
    movi r4 = values ;;         # 0
    ld.d r5 = [r4] ;;           # 1: r5 ready at 4
    movi r6 = 1 ;;              # 2
    add r7 = r5, r6 ;;          # would be 3: stalls 1, issues at 4
    ld.d r8 = [r4 + 8] ;;       # 5: r8 ready at 8
    nop ;;                      # 6
    nop ;;                      # 7
    add r3 = r7, r8 ;;          # 8: no stall; 31 + 11
    syscall 0 ;;                # 9: exit(42)
    .data
    .p2align 3
values:
    .quad 30, 11
