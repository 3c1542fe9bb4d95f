# A store through a null pointer faults with exit status 139.
# expect-exit: 139
# expect-stderr-contains: null_store_fn
# expect-stderr-contains: unmapped
    .text
    .globl _start
_start:
    call null_store_fn ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .type null_store_fn, @function
null_store_fn:
    movi r3 = 5 ;;
    st.w [r0 + 16] = r3 ;;
    ret ;;
