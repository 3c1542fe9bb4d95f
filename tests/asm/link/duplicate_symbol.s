# Two global definitions of one symbol across objects are a link error.
# extra-sources: parts/duplicate_definition.s
# expect-link-error: duplicate symbol: shared_name
    .text
    .globl _start
_start:
    call shared_name ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .globl shared_name
shared_name:
    ret ;;
