# Output helpers shared by the test programs (named in their `extra-sources`, so the
# runner links them in and does not run this file on its own). No `_start`.
#
# Calling convention (docs/isa.md §6): arguments in r3.., return address in lr,
# these functions clobber only caller-saved registers (r3..r31, lr, p1..p11) and keep
# sp 16-byte aligned. Callers may keep values in r32..r61 across calls.
#
#   print_hex(r3)        prints r3 as 0x%016x and a newline
#   print_dec(r3)        prints r3 as a signed decimal and a newline
#   print_str(r3, r4)    writes r4 bytes at address r3 to stdout
#   fail(r3)             prints "FAIL check N" (N = r3, decimal) and exits with 1
#   check_eq(r3, r4, r5) returns if r3 == r4, else fail(r5)

    .text
    .globl print_hex
print_hex:
    # Buffer at sp: "0x" at 0..1, 16 digits at 2..17, newline at 18.
    add sp = sp, -32 ;;
    movi r4 = 0x7830 ; movi r8 = 10 ; movi r5 = 15 ; add r7 = sp, 17 ;;
    st.h [sp] = r4 ; st.b [sp + 18] = r8 ;;
print_hex_digit:
    # One digit per iteration, least significant first, stored from the right.
    and r9 = r3, 15 ; shr r3 = r3, 4 ; add r5 = r5, -1 ;;
    cmp.ltu p1, p2 = r9, 10 ; add r10 = r9, 48 ; add r11 = r9, 87 ; cmp.ge p3, p4 = r5, 0 ;;
    sel r12 = p1, r10, r11 ;;
    st.b [r7] = r12 ; add r7 = r7, -1 ; (p3) br print_hex_digit ;;
    movi r3 = 1 ; mov r4 = sp ; movi r5 = 19 ;;
    syscall 1 ;;
    add sp = sp, 32 ;;
    ret ;;

    .globl print_dec
print_dec:
    # Digits are stored right to left ending with the newline at sp+31.
    add sp = sp, -48 ;;
    cmp.lt p1, p2 = r3, 0 ; movi r9 = 10 ; add r7 = sp, 31 ;;
    (p1) sub r3 = r0, r3 ; st.b [r7] = r9 ; add r7 = r7, -1 ;;
print_dec_digit:
    # The magnitude is treated as unsigned, so that -2^63 prints correctly.
    remu r10 = r3, r9 ; divu r3 = r3, r9 ;;
    add r10 = r10, 48 ; cmp.ne p3, p4 = r3, 0 ;;
    st.b [r7] = r10 ; add r7 = r7, -1 ; (p3) br print_dec_digit ;;
    movi r11 = 45 ;;
    (p1) st.b [r7] = r11 ; (p1) add r7 = r7, -1 ;;
    add r4 = r7, 1 ; add r12 = sp, 32 ;;
    sub r5 = r12, r4 ; movi r3 = 1 ;;
    syscall 1 ;;
    add sp = sp, 48 ;;
    ret ;;

    .globl print_str
print_str:
    mov r5 = r4 ; mov r4 = r3 ; movi r3 = 1 ;;
    syscall 1 ;;
    ret ;;

    .globl fail
fail:
    add sp = sp, -16 ;;
    st.d [sp] = r32 ; mov r32 = r3 ;;
    addpc r3 = fail_message ; movi r4 = 11 ;;
    call print_str ;;
    mov r3 = r32 ;;
    call print_dec ;;
    movi r3 = 1 ;;
    syscall 0 ;;

    .globl check_eq
check_eq:
    cmp.eq p1, p2 = r3, r4 ;;
    (p1) ret ;;
    mov r3 = r5 ;;
    br fail ;;

    .rodata
    .p2align 3
fail_message:
    .ascii "FAIL check "
