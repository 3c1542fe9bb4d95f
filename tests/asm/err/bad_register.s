# There are 64 general registers: r64 is an error.
# expect-asm-error: no register `r64`
    .text
    .globl _start
_start:
    add r3 = r64, r4 ;;
