# symbolize(addr, buf, len) (system call 7, docs/isa.md §7): the symbol holding an
# address, as fault messages name it: `target+0x10` for the third syllable of
# `target`, `target` at its start; the whole text's length is returned when the
# buffer is shorter, and only `len` bytes are written (`tar`); -2 (-ENOENT) for an
# address no symbol holds (the null page), -14 (-EFAULT) for a buffer in read-only
# data.
# extra-sources: ../lib/print.s
# expect-stdout: 11
# expect-stdout: target+0x10
# expect-stdout: 6
# expect-stdout: target
# expect-stdout: 11
# expect-stdout: tar
# expect-stdout: -2
# expect-stdout: -14\n
    .text
    .globl _start
_start:
    movi r3 = target+16 ; movi r4 = buf ; movi r5 = 64 ;;
    call show ;;
    movi r3 = target ; movi r4 = buf ; movi r5 = 64 ;;
    call show ;;
    movi r3 = target+16 ; movi r4 = buf ; movi r5 = 3 ;;
    call show ;;
    movi r3 = 16 ; movi r4 = buf ; movi r5 = 64 ;;
    syscall 7 ;;
    call print_dec ;;
    movi r3 = target ; movi r4 = constant ; movi r5 = 8 ;;
    syscall 7 ;;
    call print_dec ;;
    movi r3 = 0 ;;
    syscall 0 ;;

    # symbolize(r3, r4, r5), then print the length and min(length, r5) bytes of buf
    .globl show
show:
    add sp = sp, -32 ;;
    st.d [sp] = lr ; st.d [sp + 8] = r32 ;;
    st.d [sp + 16] = r33 ; mov r33 = r5 ;;
    syscall 7 ;;
    mov r32 = r3 ;;
    call print_dec ;;
    cmp.lt p1, p2 = r32, r33 ;;
    (p1) mov r33 = r32 ;;
    movi r3 = buf ; mov r4 = r33 ;;
    call print_str ;;
    movi r3 = newline ; movi r4 = 1 ;;
    call print_str ;;
    ld.d lr = [sp] ; ld.d r32 = [sp + 8] ;;
    ld.d r33 = [sp + 16] ;;
    add sp = sp, 32 ; nop 2 ;;
    ret ;;

    .globl target
    .type target, @function
target:
    nop ;;
    nop ;;
    nop ;;
    ret ;;
    .size target, . - target

    .rodata
constant:
    .quad 0
newline:
    .ascii "\n"
    .bss
buf:
    .zero 64
