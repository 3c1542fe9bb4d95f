# Branch targets must be bundle starts: a branch to the second syllable of a
# two-syllable bundle faults like a jump outside the text, exit status 141.
# expect-exit: 141
# expect-stderr-contains: jump outside text
    .text
    .globl _start
_start:
    br target+8 ;;
target:
    movi r3 = 1 ; movi r4 = 2 ;;
    movi r3 = 0 ;;
    syscall 0 ;;
