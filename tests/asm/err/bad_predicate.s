# There are 16 predicates: p16 is an error.
# expect-asm-error: no predicate `p16`
    .text
    .globl _start
_start:
    (p16) movi r3 = 1 ;;
