# --max-cycles N lets a program that needs exactly N cycles finish: the loop of
# loop.s takes 17 cycles (13 bundles, 4 taken branches).
# run-flags: --max-cycles 17 --stats
# expect-exit: 15
# expect-stderr-contains: cycles=17 bundles=13
    .text
    .globl _start
_start:
    movi r3 = 5 ; movi r4 = 0 ;;
loop:
    add r4 = r4, r3 ; add r3 = r3, -1 ; cmp.ne p1, p2 = r3, 1 ;;
    (p1) br loop ;;
    mov r3 = r4 ;;
    syscall 0 ;;
