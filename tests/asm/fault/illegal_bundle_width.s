# A bundle wider than the machine is illegal when executed: assembled for the
# default 4-wide machine, run on a 2-wide one. Bundles of 1-2 syllables run fine
# before it. Exit status 132.
# run-flags: --machine width=2
# expect-exit: 132
# expect-stdout: narrow ok\n
# expect-stderr-contains: illegal bundle
# expect-stderr-contains: wide_function
    .text
    .globl _start
_start:
    movi r3 = 1 ; movi r4 = text ;;
    movi r5 = 10 ;;
    syscall 1 ;;
    call wide_function ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .type wide_function, @function
wide_function:
    movi r3 = 1 ; movi r4 = 2 ; movi r5 = 3 ;;
    ret ;;
    .rodata
text:
    .ascii "narrow ok\n"
