# read(0, buf, len) into memory the program may not write returns -EFAULT (-14)
# instead of faulting: the null page, the text, read-only data. A read of length 0
# returns 0.
# extra-sources: ../lib/print.s
# stdin: some input
# expect-stdout: -14
# expect-stdout: -14
# expect-stdout: -14
# expect-stdout: 0\n
    .text
    .globl _start
_start:
    movi r3 = 0 ; movi r4 = 0 ; movi r5 = 4 ;;
    syscall 2 ;;
    call print_dec ;;
    movi r3 = 0 ; movi r4 = _start ; movi r5 = 4 ;;
    syscall 2 ;;
    call print_dec ;;
    movi r3 = 0 ; movi r4 = constant ; movi r5 = 4 ;;
    syscall 2 ;;
    call print_dec ;;
    movi r3 = 0 ; movi r4 = buf ; movi r5 = 0 ;;
    syscall 2 ;;
    call print_dec ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .rodata
constant:
    .quad 0
    .bss
buf:
    .zero 8
