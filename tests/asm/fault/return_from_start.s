# lr is 0 at entry: returning from the entry point jumps to 0, a fault (exit 141).
# expect-exit: 141
# expect-stderr-contains: jump outside text
    .text
    .globl _start
_start:
    movi r3 = 5 ;;
    ret ;;
