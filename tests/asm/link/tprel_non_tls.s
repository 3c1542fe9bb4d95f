# An R_VLIW_TPREL32 (sym@tprel) against a symbol that is not thread-local (here an
# undefined symbol that another object defines in .data) is a link error
# (docs/linking.md §4.5): only .tdata/.tbss symbols have a thread-pointer offset.
# extra-sources: parts/plain_data.s
# expect-link-error: relocation R_VLIW_TPREL32 against symbol `plain` at .text+0x0: the symbol is not thread-local
    .text
    .globl _start
_start:
    add r3 = tp, plain@tprel ;;
    movi r3 = 0 ;;
    syscall 0 ;;
