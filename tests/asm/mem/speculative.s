# Speculative loads (lds.*) never fault: an unmapped or misaligned address gives 0
# (null page, below the text, far above everything, the stack guard region);
# a valid address loads normally, with the same extension as ld.*.
# extra-sources: ../lib/print.s
# expect-stdout: 0x0000000000000000
# expect-stdout: 0x0000000000000000
# expect-stdout: 0x0000000000000000
# expect-stdout: 0x0000000000000000
# expect-stdout: 0x0000000000000000
# expect-stdout: 0x0000000000000000
# expect-stdout: 0x0000000000000000
# expect-stdout: 0x0000000000000000
# expect-stdout: 0xfedcba9876543210
# expect-stdout: 0xfffffffffffffffe
# expect-stdout: 0x00000000000000fe
# expect-stdout: 0xffffffffffffba98
# expect-stdout: 0x000000000000ba98
# expect-stdout: 0xfffffffffedcba98
# expect-stdout: 0x00000000fedcba98
# expect-stdout: 0x0000000000000054
# expect-stdout: not taken
# expect-stdout: 0\n
    .text
    .globl _start
_start:
    movi r32 = data ; movi r33 = 0xfff8 ; movi r34 = 0x5000000000 ;;
    movi r35 = 0x7ffeff7ffff8 ;;       # 8 bytes below the default 8 MiB stack
    lds.d r3 = [r0] ;;
    call print_hex ;;
    lds.w r3 = [r0 + 8] ;;
    call print_hex ;;
    lds.d r3 = [r33] ;;
    call print_hex ;;
    lds.bu r3 = [r34] ;;
    call print_hex ;;
    lds.d r3 = [r35] ;;
    call print_hex ;;
    lds.d r3 = [r32 + 4] ;;            # misaligned
    call print_hex ;;
    lds.h r3 = [r32 + 1] ;;            # misaligned
    call print_hex ;;
    lds.wu r3 = [r32 + 2] ;;           # misaligned
    call print_hex ;;
    lds.d r3 = [r32] ;;
    call print_hex ;;
    lds.b r3 = [r32 + 7] ;;
    call print_hex ;;
    lds.bu r3 = [r32 + 7] ;;
    call print_hex ;;
    lds.h r3 = [r32 + 4] ;;
    call print_hex ;;
    lds.hu r3 = [r32 + 4] ;;
    call print_hex ;;
    lds.w r3 = [r32 + 4] ;;
    call print_hex ;;
    lds.wu r3 = [r32 + 4] ;;
    call print_hex ;;
    lds.b r3 = [r32 + 2] ;;
    call print_hex ;;
    # a load hoisted above the test of its pointer: p = null; if (p) x = *p
    movi r36 = 0 ;;
    lds.d r37 = [r36] ; cmp.ne p1, p2 = r36, 0 ;;
    (p1) mov r3 = r37 ; (p1) br taken ;;
    movi r3 = text ; movi r4 = 10 ;;
    call print_str ;;
taken:
    mov r3 = r37 ;;
    call print_dec ;;
    movi r3 = 0 ;;
    syscall 0 ;;

    .rodata
    .p2align 3
data:
    .quad 0xfedcba9876543210
text:
    .ascii "not taken\n"
