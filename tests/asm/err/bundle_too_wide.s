# Five syllables do not fit the default issue width of 4.
# expect-asm-error: bundle has 5 syllables but the issue width is 4
    .text
    .globl _start
_start:
    movi r3 = 1 ; movi r4 = 2 ; movi r5 = 3 ; movi r6 = 4 ; movi r7 = 5 ;;
