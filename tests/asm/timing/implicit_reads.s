# Operations also wait for the registers they read implicitly: a system call reads
# its argument registers r3..r8 (r8 from a load: stall 2) and `ret` reads lr
# (reloaded from memory: stall 2). 9 bundles + 4 stall cycles + 2 taken transfers
# (call, ret) = 15 cycles.
# run-flags: --stats
# expect-stderr-contains: stats: cycles=15 bundles=9 ops=9 nullified=0 stalls=4 branches=2
    .text
    .globl _start
_start:
    movi r20 = slot ;;              # 0
    ld.d r8 = [r20] ;;              # 1: r8 ready at 4
    syscall 6 ;;                    # stalls 2, issues at 4
    call f ;;                       # 5: lr ready at 6, next bundle at 7
    movi r3 = 0 ;;                  # 13
    syscall 0 ;;                    # 14: exit(0)
f:
    st.d [r20 + 8] = lr ;;          # 7
    ld.d lr = [r20 + 8] ;;          # 8: lr ready at 11
    ret ;;                          # stalls 2, issues at 11; next bundle at 13
    .data
    .p2align 3
slot:
    .quad 0, 0
