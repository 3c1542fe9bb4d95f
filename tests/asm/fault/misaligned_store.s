# A misaligned 8-byte store faults with exit status 135.
# expect-exit: 135
# expect-stderr-contains: misaligned
    .text
    .globl _start
_start:
    movi r3 = data ;;
    st.d [r3 + 4] = r3 ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .data
    .p2align 3
data:
    .quad 0, 0
