# With two branch units (--machine branch=2) a bundle may hold two control
# operations; the first enabled one in slot order wins (docs/isa.md §4). The
# default assembler refuses such bundles, so they are written as raw syllables
# (`br` = 0x3c8 << 52, stop bit 63, guard p1 at bit 49) with relocations for their
# targets. First bundle: (p1) br wrong1 (p1 is false at entry) ; br step2 -> step2.
# Second: br first ; br wrong2 -> first, exit 1. 4 bundles, 2 taken branches.
# run-flags: --machine branch=2 --stats
# expect-exit: 1
# expect-stderr-contains: cycles=6 bundles=4
# expect-stderr-contains: nullified=1 stalls=0 branches=2
    .text
    .globl _start
_start:
    .reloc ., R_VLIW_BRANCH32, wrong1
    .quad 0x3c82000000000000
    .reloc ., R_VLIW_BRANCH32, step2
    .quad 0xbc80000000000000
wrong1:
    movi r3 = 10 ;;
    syscall 0 ;;
step2:
    .reloc ., R_VLIW_BRANCH32, first
    .quad 0x3c80000000000000
    .reloc ., R_VLIW_BRANCH32, wrong2
    .quad 0xbc80000000000000
wrong2:
    movi r3 = 20 ;;
    syscall 0 ;;
first:
    movi r3 = 1 ;;
    syscall 0 ;;
