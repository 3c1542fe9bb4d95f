# `call` writes lr like any other result, in slot order (docs/isa.md §4: a later
# slot wins): `mov lr = X` after the call in the same bundle makes the callee
# return to X; before the call, the call's lr wins and the callee returns normally.
# extra-sources: ../lib/print.s
# expect-stdout: returned normally
# expect-stdout: landed\n
    .text
    .globl _start
_start:
    movi r32 = landing ;;
    mov lr = r32 ; call f ;;            # call is later: lr = the next bundle
    movi r3 = text_normal ; movi r4 = 18 ;;
    call print_str ;;
    call f ; mov lr = r32 ;;            # mov is later: lr = landing
    movi r3 = 1 ;;                      # not reached
    syscall 0 ;;
landing:
    movi r3 = text_landed ; movi r4 = 7 ;;
    call print_str ;;
    movi r3 = 0 ;;
    syscall 0 ;;
f:
    ret ;;
    .rodata
text_normal:
    .ascii "returned normally\n"
text_landed:
    .ascii "landed\n"
