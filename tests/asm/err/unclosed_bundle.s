# The last bundle of a file must be closed with `;;`.
# expect-asm-error: bundle not closed with ';;' before end of file
    .text
    .globl _start
_start:
    movi r3 = 0 ;;
    syscall 0
