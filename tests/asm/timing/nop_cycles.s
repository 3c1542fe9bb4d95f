# A multi-cycle `nop N` waits out a load's latency in the load's own bundle: under
# --strict no stall, the cycles of the two empty bundles it stands for, and no
# work counted for it (docs/isa.md §4).
# run-flags: --stats --strict
# expect-exit: 42
# expect-stderr-contains: stats: cycles=6 bundles=4 ops=4 nullified=0 stalls=0 branches=0
    .text
    .globl _start
_start:
    movi r4 = values ;;          # 0
    ld.d r5 = [r4] ; nop 3 ;;    # 1, 2, 3: r5 ready at 4
    add r3 = r5, 12 ;;           # 4: 30 + 12
    syscall 0 ;;                 # 5: exit(42)
    .data
    .p2align 3
values:
    .quad 30
