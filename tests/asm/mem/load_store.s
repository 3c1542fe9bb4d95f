# Loads of every width with sign and zero extension (little-endian), positive and
# negative offsets, and stores of every width writing only the low bytes of rs2.
# extra-sources: ../lib/print.s
# expect-stdout: 0xffffffffffffff80
# expect-stdout: 0x0000000000000080
# expect-stdout: 0x000000000000007f
# expect-stdout: 0x00000000000001ff
# expect-stdout: 0xfffffffffffffffe
# expect-stdout: 0x000000000000fffe
# expect-stdout: 0xfffffffffffe1234
# expect-stdout: 0x00000000fffe1234
# expect-stdout: 0xfffe123401ff7f80
# expect-stdout: 0x8877665544332211
# expect-stdout: 0xffffffffffffff88
# expect-stdout: 0xffffffff88776655
# expect-stdout: 0x0000000088776655
# expect-stdout: 0xffffffffffff8877
# expect-stdout: 0x0000000000004433
# expect-stdout: 0x8877665544332211
# expect-stdout: 0x0000000000000080
# expect-stdout: 0xddeeff00bbcccdaa
# expect-stdout: 0x2233ba9876541110
# expect-stdout: 0x00000000000000aa
# expect-stdout: 0x0000000000000011
# expect-stdout: 0x123456789abcdef0\n
    .text
    .globl _start
_start:
    movi r32 = data ;;
    ld.b r3 = [r32] ;;
    call print_hex ;;
    ld.bu r3 = [r32 + 0] ;;
    call print_hex ;;
    ld.b r3 = [r32 + 1] ;;
    call print_hex ;;
    ld.h r3 = [r32 + 2] ;;
    call print_hex ;;
    ld.h r3 = [r32 + 6] ;;
    call print_hex ;;
    ld.hu r3 = [r32 + 6] ;;
    call print_hex ;;
    ld.w r3 = [r32 + 4] ;;
    call print_hex ;;
    ld.wu r3 = [r32 + 4] ;;
    call print_hex ;;
    ld.d r3 = [r32] ;;
    call print_hex ;;
    ld.d r3 = [r32 + 8] ;;
    call print_hex ;;
    ld.b r3 = [r32 + 15] ;;
    call print_hex ;;
    ld.w r3 = [r32 + 12] ;;
    call print_hex ;;
    ld.wu r3 = [r32 + 12] ;;
    call print_hex ;;
    ld.h r3 = [r32 + 14] ;;
    call print_hex ;;
    ld.hu r3 = [r32 + 10] ;;
    call print_hex ;;
    # negative offsets
    add r33 = r32, 16 ;;
    ld.d r3 = [r33 - 8] ;;
    call print_hex ;;
    ld.bu r3 = [r33 + -16] ;;
    call print_hex ;;

    # stores: only the low 1, 2, 4 bytes of the register are written
    movi r34 = buf ; movi r35 = 0x0123456789abcdef ;;
    st.d [r34] = r35 ; movi r36 = 0x12345678aa ;;
    st.b [r34] = r36 ; movi r36 = 0xffffbbcc ;;
    st.h [r34 + 2] = r36 ; movi r36 = 0x55ddeeff00 ;;
    st.w [r34 + 4] = r36 ; movi r37 = 0xfedcba9876543210 ;;
    st.d [r34 + 8] = r37 ; movi r36 = -0xef ;;
    st.b [r34 + 9] = r36 ; movi r36 = 0x2233 ;;
    add r38 = r34, 16 ;;
    st.h [r38 - 2] = r36 ;;
    ld.d r3 = [r34] ;;
    call print_hex ;;
    ld.d r3 = [r34 + 8] ;;
    call print_hex ;;
    ld.bu r3 = [r34] ;;
    call print_hex ;;
    ld.b r3 = [r34 + 9] ;;
    call print_hex ;;
    # the stack is writable memory
    add sp = sp, -16 ; movi r39 = 0x123456789abcdef0 ;;
    st.d [sp + 8] = r39 ;;
    ld.d r3 = [sp + 8] ; add sp = sp, 16 ;;
    call print_hex ;;
    movi r3 = 0 ;;
    syscall 0 ;;

    .data
    .p2align 3
data:
    .byte 0x80, 0x7f, 0xff, 0x01, 0x34, 0x12, 0xfe, 0xff
    .quad 0x8877665544332211
buf:
    .zero 16
