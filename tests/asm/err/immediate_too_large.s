# A number that does not fit in 64 bits is an error.
# expect-asm-error: bad number
    .text
    .globl _start
_start:
    movi r3 = 0x10000000000000000 ;;
