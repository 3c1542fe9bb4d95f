# A procedure must end before the file does.
# expect-asm-error: without `.cfi_endproc`
    .text
    .globl _start
_start:
    .cfi_startproc
    syscall 0 ;;
