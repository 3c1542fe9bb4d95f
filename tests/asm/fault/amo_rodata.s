# An atomic read-modify-write of read-only data is a write to read-only memory:
# exit status 139.
# expect-exit: 139
# expect-stderr-contains: read-only
# expect-stderr-contains: bump
    .text
    .globl _start
_start:
    movi r3 = counter ; movi r4 = 1 ;;
    call bump ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .type bump, @function
bump:
    amoadd.d r5 = [r3], r4 ;;
    ret ;;
    .rodata
    .p2align 3
counter:
    .quad 0
