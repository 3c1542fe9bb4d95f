# A branch or call target must be a multiple of 8 (R_VLIW_BRANCH32): a call to a
# label at an odd offset of another section assembles (the offset is only known at
# link time) but does not link. (`addpc` may address any byte: addpc_any_byte.s.)
# expect-link-error: is not a multiple of 8
    .text
    .globl _start
_start:
    call odd ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .data
    .p2align 3
    .byte 1
odd:
    .byte 2
