# The lowest address of the 1 MiB guard region below the default 8 MiB stack,
# 0x7fff00000000 - 9 MiB = 0x7ffeff700000, is still a stack overflow (exit 142);
# the stack's lowest doubleword, 0x7fff00000000 - 8 MiB = 0x7ffeff800000, just
# above the guard, is ordinary memory. The fault names the enclosing function,
# _start (a function symbol at the start of the text).
# expect-exit: 142
# expect-stdout: stack bottom ok\n
# expect-stderr-contains: stack overflow
# expect-stderr-contains: 7ffeff700000
# expect-stderr-contains: (_start+0x
    .text
    .globl _start
    .type _start, @function
_start:
    movi r4 = 0x7ffeff800000 ;;         # the lowest doubleword of the stack
    st.d [r4] = r4 ;;
    ld.d r5 = [r4] ;;
    cmp.eq p1, p2 = r5, r4 ;;
    (p2) trap 1 ;;
    movi r3 = 1 ; movi r4 = text ; movi r5 = 16 ;;
    syscall 1 ;;
    movi r4 = 0x7ffeff700000 ;;
    ld.d r5 = [r4] ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .rodata
text:
    .ascii "stack bottom ok\n"
