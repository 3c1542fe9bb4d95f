# At entry r3 = argc (the program name counts) and r4 = argv, a NULL-terminated
# array of pointers to NUL-terminated strings; sp is 16-byte aligned.
# extra-sources: ../lib/print.s
# args: one two  three-and-more x
# expect-stdout: 5
# expect-stdout: one
# expect-stdout: two
# expect-stdout: three-and-more
# expect-stdout: x
# expect-stdout: argv[argc] is NULL
# expect-stdout: 0\n
    .text
    .globl _start
_start:
    mov r32 = r3 ; mov r33 = r4 ; mov r40 = sp ;;
    call print_dec ;;                       # argc
    movi r34 = 1 ;;
arg_loop:
    cmp.lt p1, p2 = r34, r32 ; shl r35 = r34, 3 ;;
    (p2) br args_done ;;
    add r35 = r33, r35 ;;
    ld.d r36 = [r35] ;;                     # argv[i]
    mov r3 = r36 ; movi r4 = 0 ;;
strlen:
    ld.bu r5 = [r3] ;;
    cmp.ne p3, p4 = r5, 0 ;;
    (p3) add r3 = r3, 1 ; (p3) add r4 = r4, 1 ; (p3) br strlen ;;
    mov r3 = r36 ;;
    call print_str ;;
    movi r3 = newline ; movi r4 = 1 ;;
    call print_str ;;
    add r34 = r34, 1 ;;
    br arg_loop ;;
args_done:
    shl r35 = r32, 3 ;;
    add r35 = r33, r35 ;;
    ld.d r3 = [r35] ; movi r4 = 0 ; movi r5 = 1 ;;
    call check_eq ;;
    movi r3 = null_text ; movi r4 = 19 ;;
    call print_str ;;
    and r3 = r40, 15 ;;
    call print_dec ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .rodata
newline:
    .ascii "\n"
null_text:
    .ascii "argv[argc] is NULL\n"
