# syscall uses a branch unit, so it cannot share a bundle with a return and a branch
# (the machine has two).
# expect-asm-error: bundle uses 3 branch units but the machine has 2
    .text
    .globl _start
_start:
    syscall 0 ; ret ; br _start ;;
