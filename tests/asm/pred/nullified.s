# Operations whose guard is false have no effect: no register, predicate or memory
# write, no call, branch, system call, trap or fault. Self-contained (no library
# calls) so that the `nullified=` count of the stats line is exactly known:
# the 14 operations marked [N] below.
# run-flags: --stats
# expect-stdout: good
# expect-stdout: A1\n
# expect-stderr-contains: nullified=14
    .text
    .globl _start
_start:
    cmp.eq p1, p2 = r0, 1 ; movi r20 = buf ; movi r21 = 0x2121444142 ;;  # p1 false, p2 true
    (p1) st.d [r20] = r21 ;;                   # [1] store: buf keeps "good\n"
    (!p2) st.b [r20] = r21 ;;                  # [2]
    (p1) call bad_function ;;                  # [3] the callee would print BAD
    movi r3 = 1 ; movi r4 = bad_text ; movi r5 = 4 ;;
    (p1) syscall 1 ;;                          # [4] write(1, "BAD\n", 4)
    (p1) br bad_path ;;                        # [5]
    (p1) trap 1 ;;                             # [6]
    (p1) ld.d r6 = [r0] ;;                     # [7] a null load would fault
    (p1) jr r0 ;;                              # [8]
    movi r3 = 9 ;;
    (p1) syscall 0 ;;                          # [9] exit(9)
    movi r7 = 0x41 ; movi r8 = 0x31 ; movi r9 = 1 ;;
    (p1) movi r7 = 0x42 ; (!p2) add r8 = r8, 1 ; (p1) r2p p2 = r0 ; (p1) cmp.eq p3, p4 = r0, r0 ;;  # [10-13]
    (p2) movi r9 = 2 ; (p1) mov r9 = r0 ;;     # [14]: r9 = 2
    # buf still holds "good\n"
    movi r3 = 1 ; mov r4 = r20 ; movi r5 = 5 ;;
    syscall 1 ;;
    # r7 = 'A', r8 = '1'; p3 was not written (still false): r9 = 2 + 0
    p2r r10 = p3 ;;
    add r9 = r9, r10 ;;
    add r9 = r9, -2 ;;
    st.b [r20] = r7 ; st.b [r20 + 1] = r8 ;;
    add r8 = r20, r9 ; movi r11 = 10 ;;
    st.b [r8 + 2] = r11 ;;
    movi r3 = 1 ; mov r4 = r20 ; movi r5 = 3 ;;
    syscall 1 ;;
    movi r3 = 0 ;;
    syscall 0 ;;

bad_function:
    movi r3 = 1 ; movi r4 = bad_text ; movi r5 = 4 ;;
    syscall 1 ;;
    ret ;;

bad_path:
    movi r3 = 1 ; movi r4 = bad_text ; movi r5 = 4 ;;
    syscall 1 ;;
    movi r3 = 3 ;;
    syscall 0 ;;

    .rodata
bad_text:
    .ascii "BAD\n"
    .data
buf:
    .ascii "good\n\0\0\0"
