# Simulator speed benchmark (`./y.sh bench sim`): 100 million iterations of a
# two-bundle loop, 6 operations per iteration, 600 million operations in all. Only
# ALU, compare and branch operations, with no stall (a compare's predicate is read
# one cycle later, and each add reads results of the previous bundle), so that the
# figure measures the simulator's issue loop rather than memory or stalls.
    .text
    .globl _start
_start:
    movi r3 = 100000000
    movi r4 = 0
    movi r5 = 0
    movi r6 = 0 ;;
loop:
    add r4 = r4, 1
    add r5 = r5, r4
    xor r6 = r6, r5
    cmp.ne p1, p2 = r3, 1 ;;
    add r3 = r3, -1
    (p1) br loop ;;
    movi r3 = 0 ;;
    syscall 0 ;;
