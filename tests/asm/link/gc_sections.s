# --gc-sections drops unreferenced sections: an unused function in its own section
# may reference an undefined symbol without a link error (docs/linking.md §4.2), and
# the program still runs.
# link-flags: --gc-sections
# expect-exit: 5
    .text
    .globl _start
_start:
    movi r3 = 5 ;;
    syscall 0 ;;
    .section .text.unused, "ax"
unused:
    call not_defined_anywhere ;;
    ret ;;
