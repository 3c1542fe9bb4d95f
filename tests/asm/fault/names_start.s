# A fault in `_start` of a program without `.type` directives names `_start`, the
# program's own (global) label that encloses the bundle, rather than a linker-defined
# symbol at the same address such as __executable_start (docs/isa.md §7: the
# message names the faulting bundle's enclosing function).
# expect-exit: 134
# expect-stderr-contains: trap 3
# expect-stderr-contains: (_start+0x8)
    .text
    .globl _start
_start:
    nop ;;
    trap 3 ;;
