# CFI registers are r0..r63, the aliases, p0..p15 or DWARF numbers.
# expect-asm-error: expected a register
    .text
    .globl _start
_start:
    .cfi_startproc
    .cfi_undefined q3
    .cfi_endproc
    syscall 0 ;;
