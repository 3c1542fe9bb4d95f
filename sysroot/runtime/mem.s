# memcpy, memmove and memset of the VLIW-64 runtime, in assembly (sysroot/README.md).
# Assembled by vliw-as into vliw_mem.o, which the target specification links into
# every executable after crt0.o (`pre-link-objects`).
#
# compiler_builtins defines the three too, as weak symbols (its `mem` feature), in
# Rust that our backend compiles into a loop of one 8-byte word per four bundles
# behind a call of a wrapper: `sort` spent a third of its cycles there. These strong
# definitions take their place (vliw-ld: a strong definition beats a weak one).
# memcmp and bcmp stay compiler_builtins'.
#
#   void *memcpy(void *dst, const void *src, usize n)      r3, r4, r5 -> r3 = dst
#   void *memmove(void *dst, const void *src, usize n)     overlapping is fine
#   void *memset(void *dst, int c, usize n)                the low byte of c
#
# The machine faults on a misaligned access (docs/isa.md §5), so words move only
# where both pointers agree modulo 8: a few bytes first up to the destination's
# boundary, then blocks of 32 bytes (four loads, three cycles later four stores: two
# memory units, a load's latency of 3), single words, and the last bytes. Pointers
# that disagree modulo 8 move by bytes, four per trip. Every bundle reads a value only
# once its latency is over (programs run under `--strict`, where a stall faults).
# They use only caller-saved registers (r3..r31, p1..p11) and no stack, and have no
# frame (their call-frame information says so).

    .section .text.memcpy, "ax"
    .globl memcpy
    .type memcpy, @function
memcpy:
    .cfi_startproc
    # r6 = destination cursor, r4 = source cursor, r5 = bytes left; r3 stays dst
    mov r6 = r3 ; xor r7 = r3, r4 ; cmp.ltu p1, p0 = r5, 16 ;;
    and r7 = r7, 7 ; (p1) br .Lmemcpy_bytes ;;
    cmp.ne p1, p0 = r7, 0 ;;
    (p1) br .Lmemcpy_bytes ;;
.Lmemcpy_head:
    # at most 7 bytes, up to the destination's (and so the source's) 8-byte boundary
    and r7 = r6, 7 ;;
    cmp.eq p1, p0 = r7, 0 ;;
    (p1) br .Lmemcpy_aligned ;;
    ld.bu r10 = [r4] ; add r4 = r4, 1 ; add r5 = r5, -1 ; nop 3 ;;
    st.b [r6] = r10 ; add r6 = r6, 1 ; br .Lmemcpy_head ;;
.Lmemcpy_aligned:
    # r9 = where the 32-byte blocks end in the destination; r5 = what remains after
    and r8 = r5, -32 ; and r5 = r5, 31 ;;
    add r9 = r6, r8 ; cmp.eq p1, p0 = r8, 0 ;;
    (p1) br .Lmemcpy_words ;;
.Lmemcpy_block:
    ld.d r10 = [r4] ; ld.d r11 = [r4 + 8] ; add r14 = r6, 32 ;;
    ld.d r12 = [r4 + 16] ; ld.d r13 = [r4 + 24] ; add r4 = r4, 32 ; cmp.ltu p1, p0 = r14, r9 ;;
    nop ;;
    st.d [r6] = r10 ; st.d [r6 + 8] = r11 ;;
    st.d [r6 + 16] = r12 ; st.d [r6 + 24] = r13 ; mov r6 = r14 ; (p1) br .Lmemcpy_block ;;
.Lmemcpy_words:
    cmp.ltu p1, p0 = r5, 8 ;;
    (p1) br .Lmemcpy_bytes ;;
    ld.d r10 = [r4] ; add r4 = r4, 8 ; add r5 = r5, -8 ; nop 3 ;;
    st.d [r6] = r10 ; add r6 = r6, 8 ; br .Lmemcpy_words ;;
.Lmemcpy_bytes:
    # any alignment: four bytes per trip, then one
    cmp.ltu p1, p0 = r5, 4 ;;
    (p1) br .Lmemcpy_last ;;
    ld.bu r10 = [r4] ; ld.bu r11 = [r4 + 1] ; add r5 = r5, -4 ;;
    ld.bu r12 = [r4 + 2] ; ld.bu r13 = [r4 + 3] ; add r4 = r4, 4 ;;
    nop ;;
    st.b [r6] = r10 ; st.b [r6 + 1] = r11 ;;
    st.b [r6 + 2] = r12 ; st.b [r6 + 3] = r13 ; add r6 = r6, 4 ; br .Lmemcpy_bytes ;;
.Lmemcpy_last:
    cmp.eq p1, p0 = r5, 0 ;;
    (p1) ret ;;
    ld.bu r10 = [r4] ; add r4 = r4, 1 ; add r5 = r5, -1 ; nop 3 ;;
    st.b [r6] = r10 ; add r6 = r6, 1 ; br .Lmemcpy_last ;;
    .cfi_endproc
    .size memcpy, . - memcpy

    .section .text.memmove, "ax"
    .globl memmove
    .type memmove, @function
memmove:
    .cfi_startproc
    # A forward copy is right unless dst lies inside (src, src + n): memcpy's loads of
    # a block all come before its stores, and later blocks read further on.
    sub r7 = r3, r4 ;;
    cmp.geu p1, p0 = r7, r5 ;;
    (p1) br memcpy ;;
    # Backward: r6 = end of dst, r4 = end of src; by words when dst, src and n are
    # multiples of 8, else by bytes.
    add r6 = r3, r5 ; add r4 = r4, r5 ; or r7 = r3, r4 ;;
    or r7 = r7, r5 ;;
    and r7 = r7, 7 ;;
    cmp.ne p1, p0 = r7, 0 ;;
    (p1) br .Lmemmove_bytes ;;
.Lmemmove_words:
    cmp.eq p1, p0 = r5, 0 ;;
    (p1) ret ;;
    ld.d r10 = [r4 - 8] ; add r4 = r4, -8 ; add r5 = r5, -8 ; nop 3 ;;
    st.d [r6 - 8] = r10 ; add r6 = r6, -8 ; br .Lmemmove_words ;;
.Lmemmove_bytes:
    cmp.eq p1, p0 = r5, 0 ;;
    (p1) ret ;;
    ld.bu r10 = [r4 - 1] ; add r4 = r4, -1 ; add r5 = r5, -1 ; nop 3 ;;
    st.b [r6 - 1] = r10 ; add r6 = r6, -1 ; br .Lmemmove_bytes ;;
    .cfi_endproc
    .size memmove, . - memmove

    .section .text.memset, "ax"
    .globl memset
    .type memset, @function
memset:
    .cfi_startproc
    # r6 = cursor, r4 = the byte, r8 = the byte in every byte of a word
    mov r6 = r3 ; zxtb r4 = r4 ; cmp.ltu p1, p0 = r5, 16 ;;
    movi r9 = 0x0101010101010101 ; (p1) br .Lmemset_bytes ;;
    mul r8 = r4, r9 ;;
.Lmemset_head:
    # (the multiplication's 3 cycles are over before the first word is stored)
    and r7 = r6, 7 ;;
    cmp.eq p1, p0 = r7, 0 ;;
    (p1) br .Lmemset_aligned ;;
    st.b [r6] = r4 ; add r6 = r6, 1 ; add r5 = r5, -1 ; br .Lmemset_head ;;
.Lmemset_aligned:
    # r11 = 32 bytes before the end of the blocks: another block follows while the
    # cursor is below it
    and r10 = r5, -32 ; and r5 = r5, 31 ;;
    add r9 = r6, r10 ; cmp.eq p1, p0 = r10, 0 ;;
    add r11 = r9, -32 ; (p1) br .Lmemset_words ;;
.Lmemset_block:
    st.d [r6] = r8 ; st.d [r6 + 8] = r8 ; add r14 = r6, 32 ; cmp.ltu p1, p0 = r6, r11 ;;
    st.d [r6 + 16] = r8 ; st.d [r6 + 24] = r8 ; mov r6 = r14 ; (p1) br .Lmemset_block ;;
.Lmemset_words:
    cmp.ltu p1, p0 = r5, 8 ;;
    (p1) br .Lmemset_bytes ;;
    st.d [r6] = r8 ; add r6 = r6, 8 ; add r5 = r5, -8 ; br .Lmemset_words ;;
.Lmemset_bytes:
    cmp.eq p1, p0 = r5, 0 ;;
    (p1) ret ;;
    st.b [r6] = r4 ; add r6 = r6, 1 ; add r5 = r5, -1 ; br .Lmemset_bytes ;;
    .cfi_endproc
    .size memset, . - memset
