# The smallest program: write(1, msg, 3), then exit(7).
# expect-exit: 7
# expect-stdout: hi\n
    .text
    .globl _start
_start:
    movi r3 = 1 ; addpc r4 = msg ; movi r5 = 3 ;;
    syscall 1 ;;            # write(1, msg, 3)
    movi r3 = 7 ;;
    syscall 0 ;;            # exit(7)
    .rodata
    .p2align 3
msg: .ascii "hi\n"
