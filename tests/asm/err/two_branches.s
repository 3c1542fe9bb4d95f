# The machine has two branch units: three branch operations in a bundle are an
# error (even guarded by complementary predicates).
# expect-asm-error: bundle uses 3 branch units but the machine has 2
    .text
    .globl _start
_start:
    cmp.eq p1, p2 = r3, 0 ;;
    (p1) br a ; (p2) br b ; br a ;;
a:
    nop ;;
b:
    nop ;;
