# The address of a thread-local variable (a .quad in data, R_VLIW_ABS64) is a link
# error: it has no fixed address, only an offset from tp (docs/linking.md §4.5).
# extra-sources: parts/tls_var.s
# expect-link-error: relocation R_VLIW_ABS64 against thread-local symbol `counter` at .data+0x0: a thread-local variable has no fixed address
    .text
    .globl _start
_start:
    movi r3 = 0 ;;
    syscall 0 ;;
    .data
    .quad counter
