# `addpc` reaches data at any byte offset in another section (R_VLIW_PCREL32 has no
# alignment rule, unlike the branch relocation R_VLIW_BRANCH32).
# expect-exit: 0
# expect-stdout: bc\n
    .text
    .globl _start
_start:
    movi r3 = 1 ; addpc r4 = msg + 1 ; movi r5 = 3 ;;
    syscall 1 ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .rodata
    .byte 0
msg: .ascii "abc\n"
