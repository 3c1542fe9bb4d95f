# Memory functions for the VLIW half of the no_sysroot runtime: what a compiler may
# call for copies, fills and comparisons it does not expand inline (as LLVM calls
# them from libc, and the sysroot will take them from compiler_builtins). With the
# C signatures and semantics:
#
#   void *memcpy(void *dst, const void *src, usize n)      r3, r4, r5 -> r3 = dst
#   void *memmove(void *dst, const void *src, usize n)     overlapping is fine
#   void *memset(void *dst, int c, usize n)                the low byte of c
#   int memcmp(const void *a, const void *b, usize n)      <0, 0, >0 by the first
#   int bcmp(const void *a, const void *b, usize n)        differing unsigned byte
#
# Each is in its own section, so `--gc-sections` drops the unused ones. They use
# only caller-saved registers (r3..r31, p1..p11) and no stack. Accesses are by
# 8 bytes when both pointers and the length allow it (the machine faults on
# misaligned accesses), else by bytes.

    .section .text.memcpy, "ax"
    .globl memcpy
    .type memcpy, @function
memcpy:
    # Forward copy. r6 = dst cursor, r4 = src cursor, r5 = bytes left.
    mov r6 = r3 ; or r7 = r3, r4 ;;
    or r7 = r7, r5 ;;
    and r7 = r7, 7 ;;
    cmp.eq p1, p2 = r7, 0 ;;
    (p2) br .Lmemcpy_bytes ;;
.Lmemcpy_words:
    cmp.eq p3, p4 = r5, 0 ;;
    (p3) ret ;;
    ld.d r8 = [r4] ; add r4 = r4, 8 ; add r5 = r5, -8 ;;
    st.d [r6] = r8 ; add r6 = r6, 8 ; br .Lmemcpy_words ;;
.Lmemcpy_bytes:
    cmp.eq p3, p4 = r5, 0 ;;
    (p3) ret ;;
    ld.bu r8 = [r4] ; add r4 = r4, 1 ; add r5 = r5, -1 ;;
    st.b [r6] = r8 ; add r6 = r6, 1 ; br .Lmemcpy_bytes ;;
    .size memcpy, . - memcpy

    .section .text.memmove, "ax"
    .globl memmove
    .type memmove, @function
memmove:
    # A forward copy is right unless dst lies inside (src, src + n).
    sub r7 = r3, r4 ;;
    cmp.geu p1, p2 = r7, r5 ;;
    (p1) br memcpy ;;
    # Backward: r6 = end of dst, r4 = end of src.
    add r6 = r3, r5 ; add r4 = r4, r5 ; or r7 = r3, r4 ;;
    or r7 = r7, r5 ;;
    and r7 = r7, 7 ;;
    cmp.eq p1, p2 = r7, 0 ;;
    (p2) br .Lmemmove_bytes ;;
.Lmemmove_words:
    cmp.eq p3, p4 = r5, 0 ;;
    (p3) ret ;;
    ld.d r8 = [r4 - 8] ; add r4 = r4, -8 ; add r5 = r5, -8 ;;
    st.d [r6 - 8] = r8 ; add r6 = r6, -8 ; br .Lmemmove_words ;;
.Lmemmove_bytes:
    cmp.eq p3, p4 = r5, 0 ;;
    (p3) ret ;;
    ld.bu r8 = [r4 - 1] ; add r4 = r4, -1 ; add r5 = r5, -1 ;;
    st.b [r6 - 1] = r8 ; add r6 = r6, -1 ; br .Lmemmove_bytes ;;
    .size memmove, . - memmove

    .section .text.memset, "ax"
    .globl memset
    .type memset, @function
memset:
    mov r6 = r3 ; zxtb r4 = r4 ; or r7 = r3, r5 ;;
    and r7 = r7, 7 ; movi r9 = 0x0101010101010101 ;;
    cmp.eq p1, p2 = r7, 0 ; mul r8 = r4, r9 ;;
    (p2) br .Lmemset_bytes ;;
.Lmemset_words:
    cmp.eq p3, p4 = r5, 0 ;;
    (p3) ret ;;
    st.d [r6] = r8 ; add r6 = r6, 8 ; add r5 = r5, -8 ; br .Lmemset_words ;;
.Lmemset_bytes:
    cmp.eq p3, p4 = r5, 0 ;;
    (p3) ret ;;
    st.b [r6] = r4 ; add r6 = r6, 1 ; add r5 = r5, -1 ; br .Lmemset_bytes ;;
    .size memset, . - memset

    .section .text.memcmp, "ax"
    .globl memcmp
    .type memcmp, @function
    .globl bcmp
    .type bcmp, @function
memcmp:
bcmp:
    cmp.eq p3, p4 = r5, 0 ;;
    (p3) movi r3 = 0 ; (p3) ret ;;
    ld.bu r6 = [r3] ; ld.bu r7 = [r4] ; add r5 = r5, -1 ;;
    cmp.eq p1, p2 = r6, r7 ; add r3 = r3, 1 ; add r4 = r4, 1 ;;
    (p1) br memcmp ;;
    sub r3 = r6, r7 ;;
    ret ;;
    .size memcmp, . - memcmp
    .size bcmp, . - bcmp
