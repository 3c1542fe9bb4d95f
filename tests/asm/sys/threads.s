# Guest threads (docs/isa.md §7, Threads): main spawns a worker on a stack of
# 4 KiB (the simulator maps it), the two hand a turn word back and forth through futex_wait/futex_wake
# three times each, printing their letter in turn; main joins the worker (join
# returns 0) and exits with the worker's id (2).
# expect-exit: 2
# expect-stdout: mwmwmw
    .bss
    .balign 16
turn:
    .space 8
    .data
letters:
    .ascii "mw"
    .text
    .globl _start
_start:
    movi r3 = worker ; movi r4 = 4096 ; movi r5 = 0 ;;
    movi r6 = 0 ; movi r7 = 0 ;;
    syscall 64 ;;
    mov r32 = r3 ; movi r33 = 3 ;;
main_loop:
    movi r3 = turn ;;
    ld.w r10 = [r3] ;;
    cmp.eq p1, p2 = r10, 0 ;;
    (p1) br main_turn ;;
    movi r4 = 1 ; movi r5 = -1 ;;
    syscall 67 ;;
    br main_loop ;;
main_turn:
    movi r3 = 1 ; movi r4 = letters ; movi r5 = 1 ;;
    syscall 1 ;;
    movi r10 = 1 ; movi r11 = turn ;;
    st.w [r11] = r10 ;;
    movi r3 = turn ; movi r4 = 1 ;;
    syscall 68 ;;
    add r33 = r33, -1 ;;
    cmp.ne p1, p2 = r33, 0 ;;
    (p1) br main_loop ;;
    mov r3 = r32 ;;
    syscall 66 ;;
    add r3 = r3, r32 ;;
    syscall 0 ;;

worker:
    movi r33 = 3 ;;
worker_loop:
    movi r3 = turn ;;
    ld.w r10 = [r3] ;;
    cmp.eq p1, p2 = r10, 1 ;;
    (p1) br worker_turn ;;
    movi r4 = 0 ; movi r5 = -1 ;;
    syscall 67 ;;
    br worker_loop ;;
worker_turn:
    movi r3 = 1 ; movi r4 = letters + 1 ; movi r5 = 1 ;;
    syscall 1 ;;
    movi r11 = turn ;;
    st.w [r11] = r0 ;;
    movi r3 = turn ; movi r4 = 1 ;;
    syscall 68 ;;
    add r33 = r33, -1 ;;
    cmp.ne p1, p2 = r33, 0 ;;
    (p1) br worker_loop ;;
    syscall 65 ;;
