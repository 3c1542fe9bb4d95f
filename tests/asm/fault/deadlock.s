# Every thread waits and none can be woken: main joins a worker that waits on a
# futex nobody wakes. A deadlock fault (exit 146) naming both threads, what each
# waits for and the function of its system call (waiter+0x18: after its first
# bundle of three syllables).
# expect-exit: 146
# expect-stderr-contains: fault: deadlock: every thread waits: thread 1 joins thread 2 in bundle
# expect-stderr-contains: (joiner); thread 2 waits on futex
# expect-stderr-contains: (value 0) in bundle
# expect-stderr-contains: (waiter+0x18)
    .bss
    .balign 16
word:
    .space 8
    .text
    .globl _start
_start:
    movi r3 = waiter ; movi r4 = 1024 ;;
    syscall 64 ;;
    .type joiner, @function
joiner:
    syscall 66 ;;
    syscall 0 ;;
    .size joiner, . - joiner
    .type waiter, @function
waiter:
    movi r3 = word ; movi r4 = 0 ; movi r5 = -1 ;;
    syscall 67 ;;
    syscall 65 ;;
    .size waiter, . - waiter
