# Indirect calls through a table of function pointers in .data (`.quad f`), a jump
# table in .rodata dispatched with `jr`, lr = the address of the bundle after the
# call (also for a multi-syllable bundle and for callr), operations sharing a bundle
# with a call take effect before the callee runs, and a tail call with `br`.
# extra-sources: ../lib/print.s
# expect-stdout: 10
# expect-stdout: 21
# expect-stdout: 36
# expect-stdout: case zero
# expect-stdout: case one
# expect-stdout: case two
# expect-stdout: default
# expect-stdout: default
# expect-stdout: 0
# expect-stdout: 0
# expect-stdout: 0
# expect-stdout: 7
# expect-stdout: 1003\n
    .text
    .globl _start
_start:
    # for i in 0..3: print(table[i](12))
    movi r32 = 0 ;;
call_loop:
    movi r33 = fn_table ;;
    shl r34 = r32, 3 ;;
    add r33 = r33, r34 ;;
    ld.d r35 = [r33] ;;
    movi r3 = 12 ;;
    callr r35 ;;
    call print_dec ;;
    add r32 = r32, 1 ;;
    cmp.lt p1, p2 = r32, 3 ;;
    (p1) br call_loop ;;

    # switch (i) for i in 0..4 through a jump table; cases 3 and 4 go to default
    movi r32 = 0 ;;
switch_loop:
    cmp.gtu p1, p2 = r32, 2 ; movi r33 = jump_table ; shl r34 = r32, 3 ;;
    (p1) br case_default ;;
    add r33 = r33, r34 ;;
    ld.d r35 = [r33] ;;
    jr r35 ;;
case0:
    movi r3 = text0 ; movi r4 = 10 ;;
    br switch_next ;;
case1:
    movi r3 = text1 ; movi r4 = 9 ;;
    br switch_next ;;
case2:
    movi r3 = text2 ; movi r4 = 9 ;;
    br switch_next ;;
case_default:
    movi r3 = text_default ; movi r4 = 8 ;;
switch_next:
    call print_str ;;
    add r32 = r32, 1 ;;
    cmp.lt p1, p2 = r32, 5 ;;
    (p1) br switch_loop ;;

    # lr is the address of the bundle after the call
    call get_lr ;;
after1:
    movi r4 = after1 ;;
    sub r3 = r3, r4 ;;
    call print_dec ;;
    movi r20 = 5 ; movi r21 = 0x123456789 ; call get_lr ;;
after2:
    movi r4 = after2 ;;
    sub r3 = r3, r4 ;;
    call print_dec ;;
    movi r35 = get_lr ;;
    callr r35 ;;
after3:
    movi r4 = after3 ;;
    sub r3 = r3, r4 ;;
    call print_dec ;;
    # r3 written in the call's bundle is the callee's argument
    movi r3 = 7 ; call identity ;;
    call print_dec ;;
    # a tail call: add1000 branches to identity, which returns to our caller
    movi r3 = 3 ;;
    call add1000 ;;
    call print_dec ;;
    movi r3 = 0 ;;
    syscall 0 ;;

f_ten:
    movi r3 = 10 ;;
    ret ;;
f_plus9:
    add r3 = r3, 9 ;;
    ret ;;
f_times3:
    mul r3 = r3, 3 ;;
    ret ;;
get_lr:
    mov r3 = lr ;;
    ret ;;
identity:
    ret ;;
add1000:
    add r3 = r3, 1000 ;;
    br identity ;;

    .data
    .p2align 3
fn_table:
    .quad f_ten, f_plus9, f_times3
    .rodata
    .p2align 3
jump_table:
    .quad case0, case1, case2
text0:
    .ascii "case zero\n"
text1:
    .ascii "case one\n"
text2:
    .ascii "case two\n"
text_default:
    .ascii "default\n"
