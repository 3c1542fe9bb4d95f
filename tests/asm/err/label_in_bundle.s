# A label may only appear when no bundle is open.
# expect-asm-error: bundle not closed with ';;' before label `middle`
    .text
    .globl _start
_start:
    movi r3 = 0
middle:
    syscall 0 ;;
