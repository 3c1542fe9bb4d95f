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
# boundary (both already aligned: straight on), then blocks of 32 bytes (four loads,
# three cycles later four stores: two memory units, a load's latency of 3), then what
# is left, fewer than 32 bytes, as the pieces of 16, 8, 4, 2 and 1 bytes its bits ask
# for, each load and store under its bit's predicate, without a branch. Pointers
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
    # both 8-byte aligned (a copy of words, arrays of them): straight to the blocks
    # and the tail, whatever the length
    mov r6 = r3 ; xor r7 = r3, r4 ; or r8 = r3, r4 ; cmp.ltu p1, p0 = r5, 16 ;;
    and r7 = r7, 7 ; and r8 = r8, 7 ;;
    cmp.eq p2, p0 = r8, 0 ; cmp.ne p3, p0 = r7, 0 ;;
    (p2) br .Lmemcpy_aligned ;;
    (p1) br .Lmemcpy_bytes ;;
    (p3) br .Lmemcpy_bytes ;;
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
    (p1) br .Lmemcpy_tail ;;
.Lmemcpy_block:
    ld.d r10 = [r4] ; ld.d r11 = [r4 + 8] ; add r14 = r6, 32 ;;
    ld.d r12 = [r4 + 16] ; ld.d r13 = [r4 + 24] ; add r4 = r4, 32 ; cmp.ltu p1, p0 = r14, r9 ;;
    nop ;;
    st.d [r6] = r10 ; st.d [r6 + 8] = r11 ;;
    st.d [r6 + 16] = r12 ; st.d [r6 + 24] = r13 ; mov r6 = r14 ; (p1) br .Lmemcpy_block ;;
.Lmemcpy_tail:
    # fewer than 32 bytes left, both cursors 8-byte aligned: the pieces of 16, 8, 4, 2
    # and 1 bytes that the bits of r5 ask for, each under its bit's predicate, at
    # offsets r5 & 16, r5 & 24, r5 & 28, r5 & 30 (each aligned to its size): no branch
    and r7 = r5, 16 ; and r8 = r5, 24 ; and r9 = r5, 28 ; and r10 = r5, 30 ;;
    cmp.ne p1, p0 = r7, 0 ; and r11 = r5, 8 ; and r12 = r5, 4 ; and r13 = r5, 2 ;;
    cmp.ne p2, p0 = r11, 0 ; cmp.ne p3, p0 = r12, 0 ; cmp.ne p4, p0 = r13, 0 ; and r14 = r5, 1 ;;
    cmp.ne p5, p0 = r14, 0 ; add r15 = r4, r7 ; add r16 = r4, r8 ; add r17 = r4, r9 ;;
    (p1) ld.d r11 = [r4] ; (p1) ld.d r12 = [r4 + 8] ; add r18 = r4, r10 ; add r7 = r6, r7 ;;
    (p2) ld.d r13 = [r15] ; (p3) ld.wu r14 = [r16] ; add r8 = r6, r8 ; add r9 = r6, r9 ;;
    (p4) ld.hu r15 = [r17] ; (p5) ld.bu r16 = [r18] ; add r10 = r6, r10 ;;
    (p1) st.d [r6] = r11 ; (p1) st.d [r6 + 8] = r12 ;;
    (p2) st.d [r7] = r13 ; (p3) st.w [r8] = r14 ;;
    (p4) st.h [r9] = r15 ; (p5) st.b [r10] = r16 ; ret ;;
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
