# Operand bits a format does not use must be zero: a `nop` with bit 0 set is illegal.
# Placed in the text with `.quad` and reached by a branch: executing it is an
# illegal-bundle fault (docs/isa.md §3), exit status 132.
# expect-exit: 132
# expect-stderr-contains: illegal bundle
# expect-stderr-contains: raw_bundle
    .text
    .globl _start
_start:
    br raw_bundle ;;
    .type raw_bundle, @function
raw_bundle:
    .quad 0x8040000000000001       # nop (stop bit) with bit 0 of its operand area set
    movi r3 = 0 ;;
    syscall 0 ;;
