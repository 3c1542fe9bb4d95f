# A long immediate takes two syllables: 3 operations with one long immediate are 5.
# expect-asm-error: bundle has 5 syllables but the issue width is 4
    .text
    .globl _start
_start:
    movi r3 = 1 ; movi r4 = 0x123456789 ; movi r5 = 3 ; movi r6 = 4 ;;
