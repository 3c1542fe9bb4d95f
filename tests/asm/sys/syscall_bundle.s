# A system call reads its arguments before the bundle's writes, and its result is
# written in slot order: `movi r3 = 1 ; syscall 1` writes to the old r3 (2: stderr)
# and r3 becomes the byte count; `syscall 6 ; movi r3 = 5` leaves r3 = 5.
# extra-sources: ../lib/print.s
# expect-stdout: 9
# expect-stdout: 5\n
# expect-stderr-contains: to stderr
    .text
    .globl _start
_start:
    movi r3 = 2 ; movi r4 = text ; movi r5 = 9 ;;
    movi r3 = 1 ; syscall 1 ;;
    call print_dec ;;
    syscall 6 ; movi r3 = 5 ;;
    call print_dec ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .rodata
text:
    .ascii "to stderr"
