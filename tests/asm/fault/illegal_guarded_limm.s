# A `limm` must be unguarded.
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
    .quad 0x0082000000000005       # (p1) limm 5
    .quad 0x8100180000000007       # movi r3 = 7 (stop bit)
    movi r3 = 0 ;;
    syscall 0 ;;
