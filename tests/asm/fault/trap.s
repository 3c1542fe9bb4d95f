# `trap 7` stops the program with a trap fault carrying the code: exit status 134.
# expect-exit: 134
# expect-stdout: about to trap\n
# expect-stderr-contains: trap 7
# expect-stderr-contains: trapping_function
    .text
    .globl _start
_start:
    movi r3 = 1 ; movi r4 = text ; movi r5 = 14 ;;
    syscall 1 ;;
    call trapping_function ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .type trapping_function, @function
trapping_function:
    trap 7 ;;
    ret ;;
    .rodata
text:
    .ascii "about to trap\n"
