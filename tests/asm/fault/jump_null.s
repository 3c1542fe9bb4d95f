# An indirect jump to address 0 (outside the text) is a fault: exit status 141.
# expect-exit: 141
# expect-stderr-contains: jump_away
    .text
    .globl _start
_start:
    call jump_away ;;
    movi r3 = 0 ;;
    syscall 0 ;;
jump_away:
    jr r0 ;;
