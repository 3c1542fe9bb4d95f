# Under --strict a latency stall is a scheduling error: the add reads a load's
# result one cycle after it issued. Exit status 144, the message says "stall".
# run-flags: --strict
# expect-exit: 144
# expect-stderr-contains: latency stall
# expect-stderr-contains: bad_schedule
    .text
    .globl _start
_start:
    call bad_schedule ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .type bad_schedule, @function
bad_schedule:
    movi r4 = value ;;
    ld.d r5 = [r4] ;;
    add r3 = r5, 1 ;;
    ret ;;
    .data
    .p2align 3
value:
    .quad 1
