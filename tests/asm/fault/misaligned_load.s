# A 4-byte load from an address that is not a multiple of 4 is a misaligned access
# fault: exit status 135 (ld.* never fixes up alignment; lds.* would give 0).
# expect-exit: 135
# expect-stderr-contains: misaligned
# expect-stderr-contains: load_word
    .text
    .globl _start
_start:
    movi r3 = data ;;
    call load_word ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .type load_word, @function
load_word:
    ld.w r4 = [r3 + 2] ;;
    ret ;;
    .data
    .p2align 3
data:
    .quad 0
