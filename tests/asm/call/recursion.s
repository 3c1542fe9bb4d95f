# Recursive factorial and Fibonacci with stack frames that save lr and the
# callee-saved registers they use; the caller's callee-saved registers, sp and fp
# survive the calls. sum10 takes 10 arguments, the last two on the stack.
# extra-sources: ../lib/print.s
# expect-stdout: 1
# expect-stdout: 1
# expect-stdout: 3628800
# expect-stdout: 2432902008176640000
# expect-stdout: 0
# expect-stdout: 1
# expect-stdout: 55
# expect-stdout: 6765
# expect-stdout: 55
# expect-stdout: callee-saved ok
# expect-stdout: 0\n
    .text
    .globl _start
_start:
    # sentinels in callee-saved registers
    movi r32 = 0x3232 ; movi r33 = 0x3333 ; movi r61 = 0x6161 ; movi fp = 0x6262 ;;
    mov r40 = sp ;;
    movi r3 = 0 ;;
    call fact ;;
    call print_dec ;;
    movi r3 = 1 ;;
    call fact ;;
    call print_dec ;;
    movi r3 = 10 ;;
    call fact ;;
    call print_dec ;;
    movi r3 = 20 ;;
    call fact ;;
    call print_dec ;;
    movi r3 = 0 ;;
    call fib ;;
    call print_dec ;;
    movi r3 = 1 ;;
    call fib ;;
    call print_dec ;;
    movi r3 = 10 ;;
    call fib ;;
    call print_dec ;;
    movi r3 = 20 ;;
    call fib ;;
    call print_dec ;;
    # sum10(1, 2, ..., 10): arguments 9 and 10 at sp and sp+8
    add sp = sp, -16 ; movi r11 = 9 ; movi r12 = 10 ;;
    st.d [sp] = r11 ; st.d [sp + 8] = r12 ;;
    movi r3 = 1 ; movi r4 = 2 ; movi r5 = 3 ; movi r6 = 4 ;;
    movi r7 = 5 ; movi r8 = 6 ; movi r9 = 7 ; movi r10 = 8 ;;
    call sum10 ;;
    add sp = sp, 16 ;;
    call print_dec ;;
    # check the sentinels and sp
    mov r3 = r32 ; movi r4 = 0x3232 ; movi r5 = 1 ;;
    call check_eq ;;
    mov r3 = r33 ; movi r4 = 0x3333 ; movi r5 = 2 ;;
    call check_eq ;;
    mov r3 = r61 ; movi r4 = 0x6161 ; movi r5 = 3 ;;
    call check_eq ;;
    mov r3 = fp ; movi r4 = 0x6262 ; movi r5 = 4 ;;
    call check_eq ;;
    mov r3 = sp ; mov r4 = r40 ; movi r5 = 5 ;;
    call check_eq ;;
    movi r3 = ok_text ; movi r4 = 16 ;;
    call print_str ;;
    # the initial sp is 16-byte aligned
    and r3 = r40, 15 ;;
    call print_dec ;;
    movi r3 = 0 ;;
    syscall 0 ;;

# fact(n) = n!, recursively; uses r32 (saved).
fact:
    cmp.le p1, p2 = r3, 1 ;;
    (p1) movi r3 = 1 ; (p1) ret ;;
    add sp = sp, -16 ;;
    st.d [sp] = lr ; st.d [sp + 8] = r32 ; mov r32 = r3 ;;
    add r3 = r3, -1 ;;
    call fact ;;
    mul r3 = r3, r32 ;;
    ld.d lr = [sp] ; ld.d r32 = [sp + 8] ;;
    add sp = sp, 16 ;;
    ret ;;

# fib(n), doubly recursive; uses r32, r33 and fp (saved), frame of 32 bytes.
fib:
    cmp.lt p1, p2 = r3, 2 ;;
    (p1) ret ;;
    add sp = sp, -32 ;;
    st.d [sp] = lr ; st.d [sp + 8] = r32 ;;
    st.d [sp + 16] = r33 ; st.d [sp + 24] = fp ; mov r32 = r3 ;;
    mov fp = sp ; add r3 = r3, -1 ;;
    call fib ;;
    mov r33 = r3 ; add r3 = r32, -2 ;;
    call fib ;;
    add r3 = r3, r33 ; mov sp = fp ;;
    ld.d lr = [sp] ; ld.d r32 = [sp + 8] ;;
    ld.d r33 = [sp + 16] ; ld.d fp = [sp + 24] ;;
    add sp = sp, 32 ;;
    ret ;;

# sum10(a1..a10): a1..a8 in r3..r10, a9 and a10 on the stack at sp, sp+8.
sum10:
    ld.d r11 = [sp] ; ld.d r12 = [sp + 8] ; add r3 = r3, r4 ; add r5 = r5, r6 ;;
    add r7 = r7, r8 ; add r9 = r9, r10 ;;
    add r3 = r3, r5 ; add r7 = r7, r9 ; add r11 = r11, r12 ;;
    add r3 = r3, r7 ;;
    add r3 = r3, r11 ;;
    ret ;;

    .rodata
ok_text:
    .ascii "callee-saved ok\n"
