# --stack-size moves the guard region: with a 64 KiB stack, 8 bytes below
# 0x7fff00000000 - 64 KiB is in the guard (a stack overflow, exit 142), while the
# stack's own lowest doubleword is usable.
# run-flags: --stack-size 65536
# expect-exit: 142
# expect-stderr-contains: stack overflow
    .text
    .globl _start
_start:
    movi r4 = 0x7ffeffff0000 ;;         # lowest doubleword of the 64 KiB stack
    st.d [r4] = r4 ;;
    ld.d r5 = [r4 - 8] ;;
    movi r3 = 0 ;;
    syscall 0 ;;
