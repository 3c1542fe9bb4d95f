# clock(0) is simulated time (cycles at 1 GHz, in ns) and cycles() the cycle
# counter: both increase, by exactly 2 across two bundles without stalls. With a
# fixed --seed, clock(1) (real time) is 0. random(buf, 16) returns 16 and two
# calls give different bytes. Unknown system calls return -ENOSYS (-38).
# extra-sources: ../lib/print.s
# run-flags: --seed 12345
# expect-stdout: 2
# expect-stdout: 2
# expect-stdout: 1
# expect-stdout: 0
# expect-stdout: 16
# expect-stdout: 16
# expect-stdout: 1
# expect-stdout: -38
# expect-stdout: -38\n
    .text
    .globl _start
_start:
    syscall 6 ;;
    mov r32 = r3 ;;
    syscall 6 ;;
    sub r3 = r3, r32 ;;
    call print_dec ;;                  # 2
    movi r3 = 0 ;;
    syscall 4 ;;
    mov r33 = r3 ; movi r3 = 0 ;;
    syscall 4 ;;
    sub r3 = r3, r33 ;;
    call print_dec ;;                  # 2
    syscall 6 ;;
    cmp.gtu p1, p2 = r3, r32 ;;        # later than the first reading
    p2r r3 = p1 ;;
    call print_dec ;;
    movi r3 = 1 ;;
    syscall 4 ;;
    call print_dec ;;                  # real time with a seed: 0
    movi r3 = buf ; movi r4 = 16 ;;
    syscall 5 ;;
    call print_dec ;;
    movi r3 = buf2 ; movi r4 = 16 ;;
    syscall 5 ;;
    call print_dec ;;
    movi r32 = buf ;;
    ld.d r3 = [r32] ; ld.d r4 = [r32 + 16] ;;
    ld.d r5 = [r32 + 8] ; ld.d r6 = [r32 + 24] ;;
    cmp.ne p1, p2 = r3, r4 ;;
    cmp.ne.or p1, p2 = r5, r6 ;;
    p2r r3 = p1 ;;
    call print_dec ;;                  # the two draws differ: 1
    syscall 99 ;;
    call print_dec ;;
    movi r3 = 7 ;;
    syscall 8 ;;
    call print_dec ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .bss
    .p2align 3
buf:
    .zero 16
buf2:
    .zero 16
