# The helpers of lib/print.s themselves: print_hex, print_dec (with the extremes of
# i64), print_str, and check_eq passing; then fail(42) ends the program with
# "FAIL check 42" and exit status 1.
# extra-sources: ../lib/print.s
# expect-exit: 1
# expect-stdout: 0x0000000000000000
# expect-stdout: 0xfedcba9876543210
# expect-stdout: 0xffffffffffffffff
# expect-stdout: 0
# expect-stdout: 7
# expect-stdout: -1
# expect-stdout: 1234567890
# expect-stdout: 9223372036854775807
# expect-stdout: -9223372036854775808
# expect-stdout: text, then
# expect-stdout: passed
# expect-stdout: FAIL check 42\n
    .text
    .globl _start
_start:
    # Values in callee-saved registers must survive the calls.
    movi r32 = 0x5555aaaa5555aaaa ;;
    movi r3 = 0 ;;
    call print_hex ;;
    movi r3 = 0xfedcba9876543210 ;;
    call print_hex ;;
    movi r3 = -1 ;;
    call print_hex ;;
    movi r3 = 0 ;;
    call print_dec ;;
    movi r3 = 7 ;;
    call print_dec ;;
    movi r3 = -1 ;;
    call print_dec ;;
    movi r3 = 1234567890 ;;
    call print_dec ;;
    movi r3 = 0x7fffffffffffffff ;;
    call print_dec ;;
    movi r3 = 0x8000000000000000 ;;
    call print_dec ;;
    movi r3 = text ; movi r4 = 11 ;;
    call print_str ;;
    # check_eq returns when equal
    movi r3 = 5 ; movi r4 = 5 ; movi r5 = 99 ;;
    call check_eq ;;
    movi r3 = 0x5555aaaa5555aaaa ;;
    mov r4 = r32 ; movi r5 = 98 ;;
    call check_eq ;;
    movi r3 = text2 ; movi r4 = 7 ;;
    call print_str ;;
    # ... and fails otherwise
    movi r3 = 1 ; movi r4 = 2 ; movi r5 = 42 ;;
    call check_eq ;;
    movi r3 = 0 ;;
    syscall 0 ;;

    .rodata
text:
    .ascii "text, then\nXXXX"
text2:
    .ascii "passed\n"
