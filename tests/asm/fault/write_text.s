# The text segment is read-only: a store to it is a fault with exit status 139.
# expect-exit: 139
# expect-stderr-contains: patch_code
# expect-stderr-contains: read-only
    .text
    .globl _start
_start:
    call patch_code ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .type patch_code, @function
patch_code:
    movi r4 = _start ;;
    st.d [r4] = r0 ;;
    ret ;;
