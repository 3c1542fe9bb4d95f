# The stack ends below 0x7fff00000000: that address is unmapped (exit 139).
# expect-exit: 139
# expect-stderr-contains: unmapped
    .text
    .globl _start
_start:
    movi r4 = 0x7fff00000000 ;;
    ld.d r5 = [r4] ;;
    movi r3 = 0 ;;
    syscall 0 ;;
