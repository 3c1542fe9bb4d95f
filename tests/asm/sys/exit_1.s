# exit(1): the exit status is the code.
# expect-exit: 1
    .text
    .globl _start
_start:
    movi r3 = 1 ;;
    syscall 0 ;;
