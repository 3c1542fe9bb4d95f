# A compare cannot write the same predicate twice.
# expect-asm-error: a compare cannot write p1 twice
    .text
    .globl _start
_start:
    cmp.eq p1, p1 = r3, r4 ;;
