# syscall uses the branch unit, so it cannot share a bundle with a return.
# expect-asm-error: bundle uses 2 branch units but the machine has 1
    .text
    .globl _start
_start:
    syscall 0 ; ret ;;
