# A label defined twice is an error.
# expect-asm-error: duplicate label `twice`
    .text
    .globl _start
_start:
twice:
    nop ;;
twice:
    nop ;;
