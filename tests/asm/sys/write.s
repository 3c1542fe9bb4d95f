# write(fd, buf, len) to stdout and stderr returns the byte count; a bad descriptor
# gives -EBADF (-9), an unmapped buffer -EFAULT (-14); a zero-length write writes
# nothing and returns 0.
# extra-sources: ../lib/print.s
# expect-stdout: to stdout
# expect-stdout: 10
# expect-stdout: 10
# expect-stdout: -9
# expect-stdout: -9
# expect-stdout: -14
# expect-stdout: 0\n
# expect-stderr-contains: to stderr\n
    .text
    .globl _start
_start:
    movi r3 = 1 ; movi r4 = out_text ; movi r5 = 10 ;;
    syscall 1 ;;
    mov r32 = r3 ;;
    movi r3 = 2 ; movi r4 = err_text ; movi r5 = 10 ;;
    syscall 1 ;;
    mov r33 = r3 ;;
    mov r3 = r32 ;;
    call print_dec ;;
    mov r3 = r33 ;;
    call print_dec ;;
    movi r3 = 7 ; movi r4 = out_text ; movi r5 = 10 ;;
    syscall 1 ;;
    call print_dec ;;
    movi r3 = 0 ; movi r4 = out_text ; movi r5 = 10 ;;    # stdin is not writable
    syscall 1 ;;
    call print_dec ;;
    movi r3 = 1 ; movi r4 = 0 ; movi r5 = 10 ;;
    syscall 1 ;;
    call print_dec ;;
    movi r3 = 1 ; movi r4 = out_text ; movi r5 = 0 ;;
    syscall 1 ;;
    call print_dec ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .rodata
out_text:
    .ascii "to stdout\n"
err_text:
    .ascii "to stderr\n"
