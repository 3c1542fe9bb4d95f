# Unbounded recursion runs sp down into the unmapped guard region below the stack:
# a stack overflow fault, exit status 142.
# expect-exit: 142
# expect-stderr-contains: recurse
# expect-stderr-contains: stack overflow
    .text
    .globl _start
_start:
    call recurse ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .type recurse, @function
recurse:
    add sp = sp, -1024 ;;
    st.d [sp] = lr ;;
    call recurse ;;
    ld.d lr = [sp] ;;
    add sp = sp, 1024 ;;
    ret ;;
