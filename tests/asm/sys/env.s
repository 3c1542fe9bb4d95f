# r5 = envp at entry: a NULL-terminated array of "KEY=VALUE" strings. With
# --clear-env and two --env flags the environment holds exactly those two; the
# program finds VLIW_TEST_FOO and prints its value.
# extra-sources: ../lib/print.s
# run-flags: --clear-env --env VLIW_TEST_FOO=bar --env OTHER=1
# expect-stdout: 2
# expect-stdout: bar\n
    .text
    .globl _start
_start:
    mov r32 = r5 ; movi r33 = 0 ; movi r38 = 0 ;;     # r33: count, r38: value found
count:
    shl r34 = r33, 3 ;;
    add r34 = r32, r34 ;;
    ld.d r35 = [r34] ;;
    cmp.eq p1, p2 = r35, 0 ;;
    (p1) br counted ;;
    # compare the entry with the prefix "VLIW_TEST_FOO="
    movi r36 = prefix ; mov r37 = r35 ;;
cmp_loop:
    ld.bu r3 = [r36] ; ld.bu r4 = [r37] ;;
    cmp.eq p3, p4 = r3, 0 ;;                          # end of the prefix: a match
    (p3) mov r38 = r37 ; (p3) br next ;;
    cmp.ne p5, p6 = r3, r4 ;;
    (p5) br next ;;
    add r36 = r36, 1 ; add r37 = r37, 1 ; br cmp_loop ;;
next:
    add r33 = r33, 1 ; br count ;;
counted:
    mov r3 = r33 ;;
    call print_dec ;;
    cmp.eq p1, p2 = r38, 0 ;;
    (p1) movi r3 = 1 ;;
    (p1) call fail ;;
    # print the value: strlen, then print_str
    mov r3 = r38 ; movi r4 = 0 ;;
strlen:
    ld.bu r5 = [r3] ;;
    cmp.ne p3, p4 = r5, 0 ;;
    (p3) add r3 = r3, 1 ; (p3) add r4 = r4, 1 ; (p3) br strlen ;;
    mov r3 = r38 ;;
    call print_str ;;
    movi r3 = newline ; movi r4 = 1 ;;
    call print_str ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .rodata
prefix:
    .asciz "VLIW_TEST_FOO="
newline:
    .ascii "\n"
