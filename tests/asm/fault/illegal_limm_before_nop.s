# A `limm` must be followed by an operation with an extendable immediate.
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
    .quad 0x0080000000000005       # limm 5
    .quad 0x8040000000000000       # nop (stop bit): no immediate to extend
    movi r3 = 0 ;;
    syscall 0 ;;
