# The undefined-symbol error names the object that references the symbol.
# expect-link-error: undefined_symbol_object.o
    .text
    .globl _start
_start:
    movi r3 = missing_data ;;
    syscall 0 ;;
