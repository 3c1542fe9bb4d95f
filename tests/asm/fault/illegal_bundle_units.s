# A bundle using more units of a kind than the machine has is illegal: two
# multiplies run on a machine with one multiplier. Exit status 132.
# run-flags: --machine mul=1
# expect-exit: 132
# expect-stderr-contains: illegal bundle
# expect-stderr-contains: two_muls
    .text
    .globl _start
_start:
    movi r3 = 2 ;;
    mul r4 = r3, r3 ;;
    call two_muls ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .type two_muls, @function
two_muls:
    mul r4 = r3, r3 ; mul r5 = r3, r3 ;;
    ret ;;
