# Running past the end of the text is a fault (docs/isa.md §4): the last bundle of
# the program's only text is not a control transfer. The next address is not a
# bundle start in the text, like a jump outside it: exit status 141.
# expect-exit: 141
# expect-stderr-contains: jump outside text
    .text
    .globl _start
_start:
    movi r3 = 0 ;;
    nop ;;
