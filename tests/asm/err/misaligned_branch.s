# Branch targets are byte offsets that must be multiples of 8 (syllable size).
# expect-asm-error: offset 4 is not a multiple of 8
    .text
    .globl _start
_start:
    br .+4 ;;
    nop ;;
