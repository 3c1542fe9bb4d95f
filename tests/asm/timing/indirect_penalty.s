# Every taken control transfer costs the branch penalty: jr, callr and ret here
# (3 cycles); a nullified jr is not taken and costs nothing. 8 bundles + 3 = 11.
# run-flags: --stats --strict
# expect-exit: 4
# expect-stderr-contains: stats: cycles=11 bundles=8 ops=9 nullified=1 stalls=0 branches=3
    .text
    .globl _start
_start:
    movi r5 = target ; cmp.eq p1, p2 = r0, 1 ;;   # 0: p1 = false
    (p1) jr r0 ;;                               # 1: nullified
    jr r5 ;;                                    # 2: next bundle at 4
    movi r3 = 9 ;;                              # skipped
target:
    movi r6 = f ;;                              # 4
    callr r6 ;;                                 # 5: next bundle at 7
    movi r3 = 4 ;;                              # 9
    syscall 0 ;;                                # 10: exit(4)
f:
    ret ;;                                      # 7: next bundle at 9
