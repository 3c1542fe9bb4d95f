# The machine has two memory units: three loads in a bundle are an error.
# expect-asm-error: bundle uses 3 mem units but the machine has 2
    .text
    .globl _start
_start:
    ld.d r3 = [sp] ; ld.d r4 = [sp + 8] ; ld.d r5 = [sp + 16] ;;
