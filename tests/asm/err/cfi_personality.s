# Personality routines are not supported yet.
# expect-asm-error: unsupported CFI directive `.cfi_personality`
    .text
    .globl _start
_start:
    .cfi_startproc
    .cfi_personality 0, p
    .cfi_endproc
    syscall 0 ;;
