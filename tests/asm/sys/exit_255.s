# exit(-1): the exit status is code & 0xff = 255.
# expect-exit: 255
    .text
    .globl _start
_start:
    movi r3 = -1 ;;
    syscall 0 ;;
