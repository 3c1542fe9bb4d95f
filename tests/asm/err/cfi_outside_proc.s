# .cfi_offset r32, -8 outside a procedure is an error.
# expect-asm-error: outside `.cfi_startproc`
    .text
    .globl _start
_start:
    .cfi_offset r32, -8
    syscall 0 ;;
