# exit(256): the exit status is code & 0xff = 0; output before the exit is kept,
# nothing after it runs.
# expect-exit: 0
# expect-stdout: before exit\n
    .text
    .globl _start
_start:
    movi r3 = 1 ; movi r4 = text ; movi r5 = 12 ;;
    syscall 1 ;;
    movi r3 = 256 ;;
    syscall 0 ;;
    movi r3 = 1 ; movi r4 = text ; movi r5 = 12 ;;
    syscall 1 ;;
    movi r3 = 3 ;;
    syscall 0 ;;
    .rodata
text:
    .ascii "before exit\n"
