# A call to a function that nothing defines is a link error naming the symbol
# (and, on the next line of the message, the referencing object).
# expect-link-error: undefined symbol: missing_function
    .text
    .globl _start
_start:
    call missing_function ;;
    movi r3 = 0 ;;
    syscall 0 ;;
