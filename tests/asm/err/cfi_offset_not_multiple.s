# Saved-register offsets are factored by the data alignment, -8.
# expect-asm-error: is not a multiple of 8
    .text
    .globl _start
_start:
    .cfi_startproc
    .cfi_offset r32, -12
    .cfi_endproc
    syscall 0 ;;
