# The same 17-cycle program with --max-cycles 16 is stopped by the cycle limit
# before its last bundle (exit status 143).
# run-flags: --max-cycles 16
# expect-exit: 143
# expect-stderr-contains: cycle limit
    .text
    .globl _start
_start:
    movi r3 = 5 ; movi r4 = 0 ;;
loop:
    add r4 = r4, r3 ; add r3 = r3, -1 ; cmp.ne p1, p2 = r3, 1 ;;
    (p1) br loop ;;
    mov r3 = r4 ;;
    syscall 0 ;;
