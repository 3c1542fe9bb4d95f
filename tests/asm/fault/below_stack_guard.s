# Below the stack's guard region memory is simply unmapped: not a stack overflow
# but an unmapped-address fault, exit status 139.
# expect-exit: 139
# expect-stderr-contains: unmapped
    .text
    .globl _start
_start:
    movi r4 = 0x7ffeff6ffff8 ;;         # 8 bytes below the guard region
    ld.d r5 = [r4] ;;
    movi r3 = 0 ;;
    syscall 0 ;;
