# A CFI directive takes effect between bundles.
# expect-asm-error: bundle not closed with ';;' before `.cfi_def_cfa_offset`
    .text
    .globl _start
_start:
    .cfi_startproc
    add sp = sp, -16 ;
    .cfi_def_cfa_offset 16
    nop ;;
    .cfi_endproc
    syscall 0 ;;
