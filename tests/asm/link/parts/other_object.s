# Part of link/multi_object.s (named in its extra-sources).
    .text
    .globl add_four
add_four:
    add r3 = r3, 4 ;;
    ret ;;
    .globl maybe_overridden
maybe_overridden:
    movi r3 = 1 ;;
    ret ;;

    .data
    .p2align 3
    .globl shared_value
shared_value:
    .quad 42
local_data:
    .quad 99
    .globl pointer_to_local
pointer_to_local:
    .quad local_data
