# exit(0x12345601ff): only the low 8 bits count, 255.
# expect-exit: 255
    .text
    .globl _start
_start:
    movi r3 = 0x12345601ff ;;
    syscall 0 ;;
