# Two guarded branches in one bundle (two branch units, Hexagon's dual jumps): the
# first enabled one in slot order takes effect, the other is ignored; with neither
# enabled, execution goes on with the next bundle. Exits 0 only when each of the
# three bundles went where it should: the first taken, the second when the first
# is not, and neither.
# expect-exit: 0
    .text
    .globl _start
_start:
    cmp.eq p1, p2 = r0, 0 ; movi r3 = 1 ;;          # p1 true, p2 false
    (p1) br one ; (p1) br bad ;;                    # both enabled: the first wins
    br bad ;;
one:
    (p2) br bad ; (p1) br two ;;                    # the first disabled: the second
    br bad ;;
two:
    (p2) br bad ; (p2) br bad ;;                    # neither: falls through
    movi r3 = 0 ;;
    syscall 0 ;;
bad:
    movi r3 = 9 ;;
    syscall 0 ;;
