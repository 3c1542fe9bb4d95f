# Thread-local storage, local exec (docs/isa.md §6, §9; docs/linking.md §3): .tdata
# and .tbss sections (flag T) with STT_TLS symbols, `add rd = tp, sym@tprel` and
# `ld/st [tp + sym@tprel]` (R_VLIW_TPREL32), the TLS image after .data aligned to its
# largest alignment (32, from .tbss), the __tls_* symbols, and a second "thread"
# block: a copy of the image elsewhere with tp pointing at it, whose writes leave the
# image alone. The program sets tp (r2) itself, as a runtime does.
#
# Image layout, by hand: t_quad at 0 (8 bytes), t_word at 8 (4 bytes), t_ptr at 16
# (8-aligned, 8 bytes): .tdata is 24 bytes; z_buf (.tbss, 32-aligned) at 32, 64 bytes:
# the image is 96 bytes, aligned to 32.
# extra-sources: ../lib/print.s
# expect-stdout: 0
# expect-stdout: 8
# expect-stdout: 16
# expect-stdout: 32
# expect-stdout: 40
# expect-stdout: 24
# expect-stdout: 96
# expect-stdout: 32
# expect-stdout: 0
# expect-stdout: 1
# expect-stdout: 0x1122334455667788
# expect-stdout: 0x000000000000cafe
# expect-stdout: 0x000000000000006b
# expect-stdout: 0x0000000000000000
# expect-stdout: 0x0000000000000000
# expect-stdout: 0x00000000000000aa
# expect-stdout: 0x1122334455667788
# expect-stdout: 0x000000000000beef
# expect-stdout: 0x0000000000000000
# expect-stdout: 0x000000000000cafe
# expect-stdout: 0x00000000000000aa
# expect-stdout: done\n
    .text
    .globl _start
_start:
    movi r2 = __tls_start ;;
    # The offsets (R_VLIW_TPREL32 = S + A - __tls_start), printed in decimal.
    add r3 = r0, t_quad@tprel ;;
    call print_dec ;;
    add r3 = r0, t_word@tprel ;;
    call print_dec ;;
    add r3 = r0, t_ptr@tprel ;;
    call print_dec ;;
    add r3 = r0, z_buf@tprel ;;
    call print_dec ;;
    add r3 = r0, z_buf@tprel+8 ;;
    call print_dec ;;
    # The image: .tdata size, total size, alignment (an absolute symbol).
    movi r32 = __tls_start ; movi r33 = __tls_data_end ; movi r34 = __tls_end ;;
    sub r3 = r33, r32 ;;
    call print_dec ;;
    sub r3 = r34, r32 ;;
    call print_dec ;;
    movi r3 = __tls_align ;;
    call print_dec ;;
    and r3 = r32, 31 ;;
    call print_dec ;;                           # the image start is 32-aligned
    # The image follows .data (same page here).
    movi r35 = d_last ;;
    cmp.ltu p1, p2 = r35, r32 ;;
    p2r r3 = p1 ;;
    call print_dec ;;
    # Initialized values through tp.
    ld.d r3 = [tp + t_quad@tprel] ;;
    call print_hex ;;
    ld.wu r3 = [r2 + t_word@tprel] ;;
    call print_hex ;;
    # A pointer in .tdata (R_VLIW_ABS64 in a TLS section) to a byte of .rodata.
    ld.d r36 = [tp + t_ptr@tprel] ;;
    ld.bu r3 = [r36] ;;
    call print_hex ;;                           # 'k'
    # .tbss is zero and writable (the image is used in place: one thread).
    add r37 = tp, z_buf@tprel ;;
    ld.d r3 = [r37 + 56] ;;
    call print_hex ;;
    ld.d r3 = [tp + z_buf@tprel] ;;
    call print_hex ;;
    movi r38 = 0xaa ;;
    st.d [r37 + 8] = r38 ;;
    ld.d r3 = [tp + z_buf@tprel+8] ;;
    call print_hex ;;
    # A second thread's block: 96 bytes at a 32-aligned address, .tdata copied, the
    # rest zero (it is in .bss).
    movi r40 = block ;;
    ld.d r41 = [r32] ;;
    st.d [r40] = r41 ; ld.d r42 = [r32 + 8] ;;
    st.d [r40 + 8] = r42 ; ld.d r43 = [r32 + 16] ;;
    st.d [r40 + 16] = r43 ;;
    mov r2 = r40 ;;
    ld.d r3 = [tp + t_quad@tprel] ;;
    call print_hex ;;                           # the copy's initial value
    movi r44 = 0xbeef ;;
    st.w [tp + t_word@tprel] = r44 ;;
    ld.wu r3 = [tp + t_word@tprel] ;;
    call print_hex ;;
    ld.d r3 = [tp + z_buf@tprel+8] ;;
    call print_hex ;;                           # its .tbss is its own: zero
    # Back to the first block: unchanged by the second thread's writes.
    movi r2 = __tls_start ;;
    ld.wu r3 = [tp + t_word@tprel] ;;
    call print_hex ;;
    ld.d r3 = [tp + z_buf@tprel+8] ;;
    call print_hex ;;
    movi r3 = msg ; movi r4 = 5 ;;
    call print_str ;;
    movi r3 = 0 ;;
    syscall 0 ;;

    .section .rodata
msg: .ascii "done\n"
r_k: .ascii "jkl"

    .data
d_first: .quad 1
d_last: .byte 2

    .section .tdata.a, "awT", @progbits
    .p2align 3
    .globl t_quad
    .type t_quad, @tls_object
t_quad: .quad 0x1122334455667788
    .size t_quad, 8
    .type t_word, @tls_object
t_word: .word 0xcafe
    .p2align 3
    .type t_ptr, @tls_object
t_ptr: .quad r_k+1

    .section .tbss.z, "awT", @nobits
    .p2align 5
    .type z_buf, @tls_object
z_buf: .zero 64

    .bss
    .p2align 5
block: .zero 96
