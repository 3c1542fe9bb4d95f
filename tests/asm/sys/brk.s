# brk: brk(0) returns the current break, page-aligned, above the program's data;
# growing it maps new memory (zero-filled) that can be written and read back; an
# invalid request (below the heap start, or 1 TiB) leaves it unchanged; it can
# shrink again.
# extra-sources: ../lib/print.s
# expect-stdout: 0
# expect-stdout: 1
# expect-stdout: 65536
# expect-stdout: 0
# expect-stdout: 0x1234567812345678
# expect-stdout: 0x1234567812345678
# expect-stdout: 65536
# expect-stdout: 65536
# expect-stdout: 0\n
    .text
    .globl _start
_start:
    movi r3 = 0 ;;
    syscall 3 ;;
    mov r32 = r3 ;;                        # the initial break
    and r3 = r32, 4095 ;;
    call print_dec ;;                      # page-aligned: 0
    movi r4 = end_of_bss ;;
    cmp.geu p1, p2 = r32, r4 ;;
    p2r r3 = p1 ;;
    call print_dec ;;                      # above the data: 1
    add r3 = r32, 0x10000 ;;
    syscall 3 ;;
    mov r33 = r3 ;;
    sub r3 = r33, r32 ;;
    call print_dec ;;                      # grown by 65536
    ld.d r3 = [r32 + 0x8000] ;;
    call print_dec ;;                      # fresh memory reads 0
    movi r34 = 0x1234567812345678 ;;
    st.d [r32] = r34 ; st.d [r33 - 8] = r34 ;;
    ld.d r3 = [r32] ;;
    call print_hex ;;
    ld.d r3 = [r33 - 8] ;;
    call print_hex ;;
    movi r3 = 4096 ;;                      # below the heap: invalid
    syscall 3 ;;
    sub r3 = r3, r32 ;;
    call print_dec ;;                      # unchanged: still 65536 above
    movi r3 = 0x10000000000 ;;             # 1 TiB more than the heap start: invalid
    add r3 = r3, r32 ;;
    syscall 3 ;;
    sub r3 = r3, r32 ;;
    call print_dec ;;                      # unchanged: still 65536 above
    mov r3 = r32 ;;
    syscall 3 ;;
    sub r3 = r3, r32 ;;
    call print_dec ;;                      # shrunk back: 0
    movi r3 = 0 ;;
    syscall 0 ;;
    .bss
    .zero 100
end_of_bss:
    .zero 8
