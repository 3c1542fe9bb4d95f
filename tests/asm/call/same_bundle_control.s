# Control operations read their registers before the bundle's writes, and take
# effect after the whole bundle: callr uses the old value of a register the bundle
# rewrites, a move from lr in the call's bundle sees the old lr, ret uses the old lr
# even when the bundle writes lr, and the other operations of a taken branch's
# bundle (store, add, compare) all take effect.
# extra-sources: ../lib/print.s
# expect-stdout: a
# expect-stdout: 0x0000000000001234
# expect-stdout: ret used the old lr
# expect-stdout: 0x0000000000000063
# expect-stdout: 0x0000000000000006
# expect-stdout: 1\n
    .text
    .globl _start
_start:
    movi r35 = f_a ;;
    movi r35 = f_b ; callr r35 ;;        # calls f_a
    movi lr = 0x1234 ;;
    mov r36 = lr ; call f_nothing ;;     # r36 = 0x1234
    mov r3 = r36 ;;
    call print_hex ;;
    call f_ret_old_lr ;;
    movi r3 = text_ok ; movi r4 = 20 ;;
    call print_str ;;
    # a taken branch's bundle: the other operations happen
    movi r37 = slot ; movi r38 = 0x63 ; movi r39 = 5 ;;
    st.d [r37] = r38 ; add r39 = r39, 1 ; cmp.eq p5, p6 = r0, r0 ; br over ;;
    movi r39 = 0 ;;                      # skipped
over:
    p2r r40 = p5 ;;
    ld.d r3 = [r37] ;;
    call print_hex ;;
    mov r3 = r39 ;;
    call print_hex ;;
    mov r3 = r40 ;;
    call print_dec ;;
    movi r3 = 0 ;;
    syscall 0 ;;

f_a:
    movi r3 = text_a ; movi r4 = 2 ;;
    br print_str ;;                      # tail call: print_str returns to our caller
f_b:
    movi r3 = text_b ; movi r4 = 2 ;;
    br print_str ;;
f_nothing:
    ret ;;
# Returns through the old lr although its last bundle also writes lr.
f_ret_old_lr:
    movi r10 = wrong_place ;;
    mov lr = r10 ; ret ;;
wrong_place:
    movi r3 = text_wrong ; movi r4 = 6 ;;
    call print_str ;;
    movi r3 = 1 ;;
    syscall 0 ;;

    .rodata
text_a:
    .ascii "a\n"
text_b:
    .ascii "b\n"
text_ok:
    .ascii "ret used the old lr\n"
text_wrong:
    .ascii "wrong\n"
    .data
    .p2align 3
slot:
    .quad 0
