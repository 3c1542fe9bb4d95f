# --max-cycles stops an infinite loop with a cycle limit fault: exit status 143.
# run-flags: --max-cycles 100
# expect-exit: 143
# expect-stderr-contains: spin
# expect-stderr-contains: cycle limit
    .text
    .globl _start
_start:
    movi r3 = 0 ;;
    .type spin, @function
spin:
    add r3 = r3, 1 ;;
    br spin ;;
