# A symbol operand without `long` gets a 32-bit immediate (R_VLIW_IMM32, signed 32
# bits): an address plus 2^31 does not fit, which is a link error naming the type.
# expect-link-error: R_VLIW_IMM32 value
    .text
    .globl _start
_start:
    movi r3 = msg+0x80000000 ;;
    syscall 0 ;;
    .rodata
msg:
    .ascii "x"
