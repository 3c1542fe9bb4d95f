# Long immediates (a `limm` syllable supplies bits 63..32), chosen automatically for
# values that do not fit in 32 signed bits or forced by `long`; symbols as immediates
# (absolute 32- and 64-bit relocations), `addpc` and `.` (the syllable's own address,
# not the bundle's), and `.+N` branch targets.
# extra-sources: ../lib/print.s
# expect-stdout: 0x123456789abcdef0
# expect-stdout: 0xfffffffedcba9877
# expect-stdout: 0x0000000000000005
# expect-stdout: 0xffffffffffffffff
# expect-stdout: 0x0000000080000000
# expect-stdout: 0x00000000ffffffff
# expect-stdout: 0xffffffff80000000
# expect-stdout: 0x000000007fffffff
# expect-stdout: 0x8000000000000000
# expect-stdout: 0x0000000100001000
# expect-stdout: 0x0000000000000fff
# expect-stdout: 0xffff0000ffff0000
# expect-stdout: 0x0000000000000001
# expect-stdout: 0x0000000000000000
# expect-stdout: 0x0000000000000001
# expect-stdout: 0x1122334455667788
# expect-stdout: 0x1122334455667788
# expect-stdout: 0x1122334455667788
# expect-stdout: 0
# expect-stdout: 0
# expect-stdout: 0
# expect-stdout: 8
# expect-stdout: 16
# expect-stdout: 64
# expect-stdout: 16
# expect-stdout: 8
# expect-stdout: 0\n
    .text
    .globl _start
_start:
    movi r3 = 0x123456789abcdef0 ;;
    call print_hex ;;
    movi r3 = -0x123456789 ;;
    call print_hex ;;
    movi r3 = long 5 ;;
    call print_hex ;;
    movi r3 = long -1 ;;
    call print_hex ;;
    movi r3 = 0x80000000 ;;
    call print_hex ;;
    movi r3 = 0xffffffff ;;
    call print_hex ;;
    movi r3 = -2147483648 ;;
    call print_hex ;;
    movi r3 = 2147483647 ;;
    call print_hex ;;
    # a long immediate in the second and third syllables of a 4-syllable bundle
    movi r4 = 1 ; movi r3 = 0x8000000000000000 ; movi r5 = 2 ;;
    call print_hex ;;

    # register-immediate, compare and memory forms take long immediates too
    movi r32 = 0x1000 ; movi r33 = -1 ; movi r34 = 0x123456789 ;;
    add r3 = r32, 0x100000000 ;;
    call print_hex ;;
    add r3 = r32, long -1 ;;
    call print_hex ;;
    and r3 = r33, 0xffff0000ffff0000 ;;
    call print_hex ;;
    cmp.eq p1, p2 = r34, 0x123456789 ;;
    p2r r3 = p1 ;;
    call print_hex ;;
    cmp.eq p1, p2 = r34, 0x23456789 ;;
    p2r r3 = p1 ;;
    call print_hex ;;
    cmp.ltu p1, p2 = r34, long 0x123456790 ;;
    p2r r3 = p1 ;;
    call print_hex ;;

    # symbols as load/store offsets from r0: 32-bit and 64-bit absolute relocations
    movi r35 = 0x1122334455667788 ;;
    st.d [r0 + long slot] = r35 ;;
    ld.d r3 = [r0 + slot] ;;
    call print_hex ;;
    # a 64-bit offset from a base 2^32 below the slot
    movi r36 = long slot ;;
    add r36 = r36, -0x100000000 ;;
    ld.d r3 = [r36 + 0x100000000] ;;
    call print_hex ;;
    movi r37 = slot ;;
    ld.d r3 = [r37 + 0] ;;
    call print_hex ;;

    # three ways to get an address agree
    movi r32 = long msg ; movi r33 = msg ; addpc r34 = msg ;;
    sub r3 = r32, r33 ;;
    call print_dec ;;
    sub r3 = r32, r34 ;;
    call print_dec ;;
    # `.` in addpc is the address of the syllable holding it
here0:
    addpc r32 = . ; movi r33 = here0 ;;
    sub r3 = r32, r33 ;;
    call print_dec ;;
here1:
    nop ; addpc r32 = . ;;
    movi r33 = here1 ;;
    sub r3 = r32, r33 ;;
    call print_dec ;;
here2:
    movi r4 = 0x123456789 ; addpc r32 = . ;;
    movi r33 = here2 ;;
    sub r3 = r32, r33 ;;
    call print_dec ;;
here3:
    addpc r32 = .+64 ;;
    movi r33 = here3 ;;
    sub r3 = r32, r33 ;;
    call print_dec ;;
    # symbol plus addend, in code and in data
    movi r32 = msg+16 ; movi r33 = msg ;;
    sub r3 = r32, r33 ;;
    call print_dec ;;
    movi r34 = msg_plus_8 ;;
    ld.d r32 = [r34] ;;
    sub r3 = r32, r33 ;;
    call print_dec ;;
    # br .+16 skips the next one-syllable bundle
    movi r3 = 0 ;;
    br .+16 ;;
    movi r3 = 99 ;;
    call print_dec ;;
    movi r3 = 0 ;;
    syscall 0 ;;

    .rodata
    .p2align 3
msg:
    .ascii "0123456789abcdefghijklmnopqrstuv"
msg_plus_8:
    .quad msg+8
    .data
    .p2align 3
slot:
    .quad 0
