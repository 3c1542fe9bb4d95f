# A load from the unmapped page at 0x1000 (below the text) is a fault: exit status
# 139; the message names the address and the function. Output before it is kept.
# expect-exit: 139
# expect-stdout: before\n
# expect-stderr-contains: 1008
# expect-stderr-contains: load_it
# expect-stderr-contains: unmapped
    .text
    .globl _start
_start:
    movi r3 = 1 ; movi r4 = text ; movi r5 = 7 ;;
    syscall 1 ;;
    call load_it ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .type load_it, @function
load_it:
    movi r4 = 0x1000 ;;
    ld.d r5 = [r4 + 8] ;;
    ret ;;
    .rodata
text:
    .ascii "before\n"
