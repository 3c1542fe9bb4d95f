# Read-only data can be read but not written: the store faults, exit status 139.
# extra-sources: ../lib/print.s
# expect-exit: 139
# expect-stdout: 0x0000000000000007\n
# expect-stderr-contains: write_constant
# expect-stderr-contains: read-only
    .text
    .globl _start
_start:
    movi r32 = constant ;;
    ld.d r3 = [r32] ;;
    call print_hex ;;
    call write_constant ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .type write_constant, @function
write_constant:
    movi r4 = 8 ;;
    st.d [r32] = r4 ;;
    ret ;;
    .rodata
    .p2align 3
constant:
    .quad 7
