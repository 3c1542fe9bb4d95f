# read(0, buf, len) until it returns 0 (end of input), echoing every chunk to
# stdout; reads of at most 5 bytes take several calls and return 41 bytes in all.
# read from fd 3 is -EBADF.
# extra-sources: ../lib/print.s
# stdin: hello, world
# stdin: second line\twith a tab
# stdin: third
# expect-stdout: hello, world
# expect-stdout: second line\twith a tab
# expect-stdout: third
# expect-stdout: total: 41
# expect-stdout: -9\n
    .text
    .globl _start
_start:
    movi r32 = 0 ;;                     # bytes read so far
loop:
    movi r3 = 0 ; movi r4 = buf ; movi r5 = 5 ;;
    syscall 2 ;;
    cmp.eq p1, p2 = r3, 0 ; mov r5 = r3 ;;
    (p1) br done ;;
    movi r3 = 1 ; movi r4 = buf ; add r32 = r32, r3 ;;   # the add reads the count
    syscall 1 ;;
    br loop ;;
done:
    movi r3 = newline ; movi r4 = 8 ;;
    call print_str ;;
    mov r3 = r32 ;;
    call print_dec ;;
    movi r3 = 3 ; movi r4 = buf ; movi r5 = 5 ;;
    syscall 2 ;;
    call print_dec ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .rodata
newline:
    .ascii "\ntotal: "
    .bss
buf:
    .zero 8
