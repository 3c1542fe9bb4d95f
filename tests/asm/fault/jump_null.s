# An indirect jump to address 0 (outside the text) is a fault: exit status 141.
# expect-exit: 141
# expect-stderr-contains: jump_away
# expect-stderr-contains: jump outside text
    .text
    .globl _start
_start:
    call jump_away ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .type jump_away, @function
jump_away:
    jr r0 ;;
