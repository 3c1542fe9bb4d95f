# A pc-relative operand must be a multiple of 8: addpc to a data label at an odd
# offset assembles (the offset is only known at link time) but does not link.
# expect-link-error: is not a multiple of 8
    .text
    .globl _start
_start:
    addpc r3 = odd ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .data
    .p2align 3
    .byte 1
odd:
    .byte 2
