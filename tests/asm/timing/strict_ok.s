# A schedule that respects every latency runs under --strict: the loop issues its
# load three cycles before the add that reads it. 21 bundles, 3 taken branches.
# run-flags: --strict --stats
# expect-exit: 100
# expect-stdout: strict ok\n
# expect-stderr-contains: cycles=24 bundles=21
# expect-stderr-contains: nullified=1 stalls=0 branches=3
    .text
    .globl _start
_start:
    movi r3 = 1 ; movi r4 = msg ; movi r5 = 10 ;;
    syscall 1 ;;
    movi r4 = array ; movi r5 = 4 ; movi r6 = 0 ;;
loop:
    ld.d r10 = [r4] ; add r4 = r4, 8 ; add r5 = r5, -1 ;;   # t
    cmp.ne p1, p2 = r5, 0 ;;                                # t+1
    nop ;;                                                  # t+2
    add r6 = r6, r10 ; (p1) br loop ;;                      # t+3: r10 is ready
    mov r3 = r6 ;;
    syscall 0 ;;
    .rodata
    .p2align 3
array:
    .quad 10, 20, 30, 40
msg:
    .ascii "strict ok\n"
