# Self-test of the VLIW runtime (vliw_start.s, vliw_mem.s) without the compiler: a
# hand-written test_main that calls vliw_write and the memory functions and checks
# their results. The no_sysroot suite assembles and links it with the runtime and
# runs it first, so that a broken runtime is told apart from a broken backend.
# A failed check returns 100 + its number from test_main (and prints FAIL).
# expect-exit: 3
# expect-stdout: runtime self-test
# expect-stdout: memcpy memmove memset memcmp ok\n
# expect-stderr-contains: to stderr\n

    .text
    .globl test_main
    .type test_main, @function
test_main:
    add sp = sp, -16 ;;
    st.d [sp] = r32 ; st.d [sp + 8] = lr ;;

    # 1: vliw_write(1, "runtime self-test\n", 18) returns 18.
    movi r32 = 1 ; movi r3 = 1 ; movi r4 = title ; movi r5 = 18 ;;
    call vliw_write ;;
    cmp.ne p1, p2 = r3, 18 ;;
    (p1) br fail ;;
    # 2: to stderr.
    movi r32 = 2 ; movi r3 = 2 ; movi r4 = to_stderr ; movi r5 = 10 ;;
    call vliw_write ;;
    cmp.ne p1, p2 = r3, 10 ;;
    (p1) br fail ;;
    # 3: a bad descriptor gives -EBADF.
    movi r32 = 3 ; movi r3 = 7 ; movi r4 = title ; movi r5 = 1 ;;
    call vliw_write ;;
    cmp.ne p1, p2 = r3, -9 ;;
    (p1) br fail ;;

    # 4: memcpy by words returns dst and copies 16 bytes.
    movi r32 = 4 ; movi r3 = buf ; movi r4 = alpha ; movi r5 = 16 ;;
    call memcpy ;;
    movi r4 = buf ;;
    cmp.ne p1, p2 = r3, r4 ;;
    (p1) br fail ;;
    movi r32 = 5 ; movi r3 = buf ; movi r4 = alpha ; movi r5 = 16 ;;
    call memcmp ;;
    cmp.ne p1, p2 = r3, 0 ;;
    (p1) br fail ;;
    # 6: memcpy by bytes, 5 bytes to an odd address: buf = "a" "abcde" ...
    movi r32 = 6 ; movi r3 = buf + 1 ; movi r4 = alpha ; movi r5 = 5 ;;
    call memcpy ;;
    movi r3 = buf ; movi r4 = expect6 ; movi r5 = 8 ;;
    call memcmp ;;
    cmp.ne p1, p2 = r3, 0 ;;
    (p1) br fail ;;

    # 7: memmove up by 2 within "abcdefgh..." (overlapping, copies backward).
    movi r32 = 7 ; movi r3 = buf ; movi r4 = alpha ; movi r5 = 16 ;;
    call memcpy ;;
    movi r3 = buf + 2 ; movi r4 = buf ; movi r5 = 6 ;;
    call memmove ;;
    movi r3 = buf ; movi r4 = expect7 ; movi r5 = 8 ;;
    call memcmp ;;
    cmp.ne p1, p2 = r3, 0 ;;
    (p1) br fail ;;
    # 8: memmove down by 8, 16 bytes, by words (overlapping, copies forward).
    movi r32 = 8 ; movi r3 = buf ; movi r4 = alpha ; movi r5 = 24 ;;
    call memcpy ;;
    movi r3 = buf ; movi r4 = buf + 8 ; movi r5 = 16 ;;
    call memmove ;;
    movi r3 = buf ; movi r4 = alpha + 8 ; movi r5 = 16 ;;
    call memcmp ;;
    cmp.ne p1, p2 = r3, 0 ;;
    (p1) br fail ;;
    # 9: memmove up by 8, 16 bytes, by words (backward).
    movi r32 = 9 ; movi r3 = buf ; movi r4 = alpha ; movi r5 = 24 ;;
    call memcpy ;;
    movi r3 = buf + 8 ; movi r4 = buf ; movi r5 = 16 ;;
    call memmove ;;
    movi r3 = buf + 8 ; movi r4 = alpha ; movi r5 = 16 ;;
    call memcmp ;;
    cmp.ne p1, p2 = r3, 0 ;;
    (p1) br fail ;;

    # 10: memset 16 bytes by words with 0x1ab (low byte 0xab), returns dst.
    movi r32 = 10 ; movi r3 = buf ; movi r4 = 0x1ab ; movi r5 = 16 ;;
    call memset ;;
    movi r4 = buf ;;
    cmp.ne p1, p2 = r3, r4 ;;
    (p1) br fail ;;
    movi r32 = 11 ; ld.d r5 = [r4 + 8] ; movi r6 = 0xabababababababab ;;
    cmp.ne p1, p2 = r5, r6 ;;
    (p1) br fail ;;
    # 12: memset 3 bytes at an odd address with 'x': ab 'x' 'x' 'x' ab ...
    movi r32 = 12 ; movi r3 = buf + 1 ; movi r4 = 0x78 ; movi r5 = 3 ;;
    call memset ;;
    movi r4 = buf ;;
    ld.d r5 = [r4] ; movi r6 = 0xabababab787878ab ;;
    cmp.ne p1, p2 = r5, r6 ;;
    (p1) br fail ;;

    # 13..16: memcmp's sign follows the first differing unsigned byte; n = 0 is equal.
    movi r32 = 13 ; movi r3 = abc ; movi r4 = abd ; movi r5 = 3 ;;
    call memcmp ;;
    cmp.ge p1, p2 = r3, 0 ;;
    (p1) br fail ;;
    movi r32 = 14 ; movi r3 = abd ; movi r4 = abc ; movi r5 = 3 ;;
    call bcmp ;;
    cmp.le p1, p2 = r3, 0 ;;
    (p1) br fail ;;
    movi r32 = 15 ; movi r3 = high ; movi r4 = low ; movi r5 = 1 ;;
    call memcmp ;;
    cmp.le p1, p2 = r3, 0 ;;
    (p1) br fail ;;
    movi r32 = 16 ; movi r3 = abc ; movi r4 = abd ; movi r5 = 0 ;;
    call memcmp ;;
    cmp.ne p1, p2 = r3, 0 ;;
    (p1) br fail ;;

    movi r3 = 1 ; movi r4 = ok ; movi r5 = 32 ;;
    call vliw_write ;;
    movi r3 = 3 ;;
    br done ;;
fail:
    movi r3 = 1 ; movi r4 = failed ; movi r5 = 5 ;;
    call vliw_write ;;
    add r3 = r32, 100 ;;
done:
    ld.d r32 = [sp] ; ld.d lr = [sp + 8] ;;
    add sp = sp, 16 ;;
    ret ;;
    .size test_main, . - test_main

    .rodata
    .balign 8
alpha:
    .ascii "abcdefghijklmnopqrstuvwxyz012345"
expect6:
    .ascii "aabcdeg"
    .byte 0x68
expect7:
    .ascii "ababcdef"
title:
    .ascii "runtime self-test\n"
to_stderr:
    .ascii "to stderr\n"
ok:
    .ascii "memcpy memmove memset memcmp ok\n"
failed:
    .ascii "FAIL\n"
abc:
    .ascii "abc"
abd:
    .ascii "abd"
high:
    .byte 0x80
low:
    .byte 0x01

    .data
    .balign 8
buf:
    .zero 32
