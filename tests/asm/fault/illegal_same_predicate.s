# A compare whose two destinations are the same predicate (other than p0) is illegal.
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
    .quad 0x9140220000000000       # cmp.eq p1, p1 = r0, r0 with the stop bit
    movi r3 = 0 ;;
    syscall 0 ;;
