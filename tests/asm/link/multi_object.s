# Three objects: code and data references across objects (calls, absolute and
# pc-relative addresses, .quad pointers), a global definition beating a weak one,
# and local symbols of the same name in two objects staying separate.
# extra-sources: ../lib/print.s parts/other_object.s
# expect-stdout: 0x0000000000000007
# expect-stdout: 0x000000000000002a
# expect-stdout: 0x000000000000002a
# expect-stdout: 0x0000000000000063
# expect-stdout: 0x0000000000000001
# expect-stdout: 0x0000000000000002\n
    .text
    .globl _start
_start:
    movi r3 = 3 ;;
    call add_four ;;                   # defined in other_object.s
    call print_hex ;;
    movi r32 = shared_value ;;
    ld.d r3 = [r32] ;;
    call print_hex ;;
    addpc r33 = shared_value ;;
    ld.d r3 = [r33] ;;
    call print_hex ;;
    movi r34 = pointer_to_local ;;    # other_object's pointer to its own `local_data`
    ld.d r35 = [r34] ;;
    ld.d r3 = [r35] ;;
    call print_hex ;;
    call maybe_overridden ;;           # the global definition in other_object.s wins
    call print_hex ;;
    movi r36 = local_data ;;           # our own local_data
    ld.d r3 = [r36] ;;
    call print_hex ;;
    movi r3 = 0 ;;
    syscall 0 ;;

    .weak maybe_overridden
maybe_overridden:
    movi r3 = 0 ;;
    ret ;;

    .data
    .p2align 3
local_data:
    .quad 2
