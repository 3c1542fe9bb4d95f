# A load (latency 3) read by the very next bundle stalls it 2 cycles. Each bundle
# takes one cycle, so 4 bundles + 2 stall cycles = 6 cycles (docs/isa.md §4, §8).
# run-flags: --stats
# expect-exit: 42
# expect-stderr-contains: stats: cycles=6 bundles=4 ops=4 nullified=0 stalls=2 branches=0
    .text
    .globl _start
_start:
    movi r4 = value ;;          # cycle 0
    ld.d r5 = [r4] ;;           # cycle 1: r5 ready at 4
    add r3 = r5, 0 ;;           # would issue at 2: stalls 2, issues at 4
    syscall 0 ;;                # cycle 5: exit(42)
    .data
    .p2align 3
value:
    .quad 42
