# `-e SYMBOL` sets the entry point: execution starts at my_entry, not _start.
# link-flags: -e my_entry
# expect-exit: 3
    .text
    .globl _start
_start:
    movi r3 = 1 ;;
    syscall 0 ;;
    .globl my_entry
my_entry:
    movi r3 = 3 ;;
    syscall 0 ;;
