# Initial contents of .data, .rodata and .bss (zero) from the data directives
# (.byte .short .word .quad .ascii .asciz .zero, .set constants, alignment), data
# relocations, named sections (.section .text.NAME etc.), writable .data/.bss,
# the layout order text < rodata < data < bss (docs/linking.md §3), linker-defined
# symbols, and an undefined weak symbol resolving to 0.
# extra-sources: ../lib/print.s
# expect-stdout: 0x1122334455667788
# expect-stdout: 0xffffffffffffffff
# expect-stdout: 0x0000000089abcdef
# expect-stdout: 0xffffffff89abcdef
# expect-stdout: 0x0000000000001234
# expect-stdout: 0xfffffffffffffedc
# expect-stdout: 0x00000000000000ff
# expect-stdout: 0x0000000000000080
# expect-stdout: 0x0000000000000000
# expect-stdout: 0x000000000000abcd
# expect-stdout: 0x0000000000000005
# expect-stdout: 0x0000000000000000
# expect-stdout: 0x0000000000000000
# expect-stdout: 0x0000000000000000
# expect-stdout: 0x0000000000000000
# expect-stdout: 0x0000000000000000
# expect-stdout: 0x00000000deadbeef
# expect-stdout: 0x0000000000000063
# expect-stdout: 0x0000000000000000
# expect-stdout: 0x000000000000007e
# expect-stdout: 0x0000000000000008
# expect-stdout: 0x0000000000000000
# expect-stdout: 0x0000000000000000
# expect-stdout: 1
# expect-stdout: 1
# expect-stdout: 1
# expect-stdout: 1
# expect-stdout: 1
# expect-stdout: 1
# expect-stdout: 1
# expect-stdout: 0
# expect-stdout: 42\n
    .set ANSWER, 0x1234
    .set FIVE, 5
    .text
    .globl _start
_start:
    movi r32 = d_quad ;;
    ld.d r3 = [r32] ;;
    call print_hex ;;
    ld.d r3 = [r32 + 8] ;;
    call print_hex ;;
    movi r33 = d_word ;;
    ld.wu r3 = [r33] ;;
    call print_hex ;;
    ld.w r3 = [r33] ;;
    call print_hex ;;
    movi r34 = d_short ;;
    ld.hu r3 = [r34] ;;
    call print_hex ;;
    ld.h r3 = [r34 + 2] ;;
    call print_hex ;;
    movi r35 = d_byte ;;
    ld.bu r3 = [r35] ;;
    call print_hex ;;
    ld.bu r3 = [r35 + 1] ;;                     # .byte -128
    call print_hex ;;
    # .p2align 4 padded with zeros and aligned the next label
    movi r36 = d_aligned ;;
    and r3 = r36, 15 ;;
    call print_hex ;;
    ld.d r3 = [r36] ;;
    call print_hex ;;
    # .set constants as immediates and in data
    movi r3 = FIVE ;;
    call print_hex ;;
    movi r3 = ANSWER ;;
    add r3 = r3, -0x1234 ;;
    call print_hex ;;
    # .bss is zero, and writable; .data is writable
    movi r37 = b_zero ;;
    ld.d r3 = [r37] ;;
    call print_hex ;;
    ld.d r3 = [r37 + 2048] ;;
    call print_hex ;;
    ld.d r3 = [r37 + 4088] ;;
    call print_hex ;;
    ld.d r3 = [r0 + b_more] ;;
    call print_hex ;;
    movi r38 = 0xdeadbeef ;;
    st.d [r37 + 8] = r38 ; st.b [r32] = r0 ;;
    ld.d r3 = [r37 + 8] ;;
    call print_hex ;;
    # .rodata: .asciz adds a NUL; .string too
    movi r39 = r_str ;;
    ld.bu r3 = [r39 + 2] ;;
    call print_hex ;;                           # 'c'
    ld.bu r3 = [r39 + 3] ;;
    call print_hex ;;                           # NUL
    ld.bu r3 = [r39 + 4] ;;
    call print_hex ;;                           # 0x7e after it
    # data relocations: .quad sym+8, and a pointer to code
    movi r40 = d_ptrs ;;
    ld.d r41 = [r40] ;;
    sub r3 = r41, r32 ;;
    call print_hex ;;                           # 8
    ld.d r41 = [r40 + 8] ; movi r42 = helper ;;
    sub r3 = r41, r42 ;;
    call print_hex ;;                           # 0
    # a function in a named text section, called through its data pointer
    ld.d r41 = [r40 + 8] ;;
    callr r41 ;;
    call print_hex ;;                           # helper returns 0
    # layout: text (at 0x10000) < rodata < data < bss, separate pages
    movi r43 = _start ; movi r44 = r_str ; movi r45 = d_quad ; movi r46 = b_zero ;;
    shr r3 = r43, 16 ;;
    call print_dec ;;                           # 1
    cmp.ltu p1, p2 = r43, r44 ;;
    p2r r3 = p1 ;;
    call print_dec ;;
    cmp.ltu p1, p2 = r44, r45 ;;
    p2r r3 = p1 ;;
    call print_dec ;;
    cmp.ltu p1, p2 = r45, r46 ;;
    p2r r3 = p1 ;;
    call print_dec ;;
    shr r5 = r44, 12 ; shr r6 = r45, 12 ;;
    cmp.ne p1, p2 = r5, r6 ;;
    p2r r3 = p1 ;;
    call print_dec ;;
    # linker-defined symbols
    movi r47 = __executable_start ; movi r48 = _end ;;
    cmp.eq p1, p2 = r47, 0x10000 ;;
    p2r r3 = p1 ;;
    call print_dec ;;
    add r49 = r46, 4096 ;;                      # b_zero + its size <= _end
    cmp.leu p1, p2 = r49, r48 ;;
    p2r r3 = p1 ;;
    call print_dec ;;
    # an undefined weak symbol is 0
    movi r3 = maybe_missing ;;
    call print_dec ;;
    # a defined weak symbol
    call weak_function ;;
    call print_dec ;;
    movi r3 = 0 ;;
    syscall 0 ;;

    .weak maybe_missing
    .weak weak_function
    .type weak_function, @function
weak_function:
    movi r3 = 42 ;;
    ret ;;

    .section .text.helper, "ax"
    .type helper, @function
helper:
    movi r3 = 0 ;;
    ret ;;

    .data
    .p2align 3
d_quad:
    .quad 0x1122334455667788, -1
d_word:
    .word 0x89abcdef
d_short:
    .short 0x1234, 0xfedc
d_byte:
    .byte 255, -128
    .p2align 4
d_aligned:
    .quad 0xabcd
    .section .data.pointers, "aw"
    .p2align 3
d_ptrs:
    .quad d_quad+8, helper

    .section .rodata.strings, "a"
r_str:
    .asciz "abc"
    .byte 0x7e
    .string "x"

    .bss
    .p2align 3
b_zero:
    .zero 4096
b_more:
    .zero 16
