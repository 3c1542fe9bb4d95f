# A syllable with an undecodable opcode makes its bundle illegal: the raw word
# 0xffc0000000000000 (stop bit set, opcode field 511, beyond the opcode table)
# placed in the text with `.quad` and reached by a branch. Exit status 132.
# expect-exit: 132
# expect-stdout: reached\n
# expect-stderr-contains: illegal bundle
# expect-stderr-contains: raw_word
    .text
    .globl _start
_start:
    movi r3 = 1 ; movi r4 = text ; movi r5 = 8 ;;
    syscall 1 ;;
    br raw_word ;;
    .type raw_word, @function
raw_word:
    .quad 0xffc0000000000000
    .rodata
text:
    .ascii "reached\n"
