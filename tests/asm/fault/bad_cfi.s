# A frame description that does not match the code: `main` saves r32 at CFA-16 but
# its CFI says CFA-8 (where lr is). Without --check-unwind the program runs; with
# it, the call in main faults with exit status 145 naming main and r32.
# run-flags: --check-unwind
# expect-exit: 145
# expect-stderr-contains: bad unwind information at the call in bundle
# expect-stderr-contains: (main+0x20)
# expect-stderr-contains: r32 unwinds to
    .section .text._start, "ax"
    .globl _start
_start:
    .cfi_startproc
    .cfi_undefined lr
    call main ;;
    syscall 0 ;;
    .cfi_endproc

    .section .text.main, "ax"
    .globl main
main:
    .cfi_startproc
    add sp = sp, -16 ;;
    .cfi_def_cfa_offset 16
    st.d [sp + 8] = lr ; st.d [sp] = r32 ;;
    .cfi_offset lr, -8
    .cfi_offset r32, -8
    movi r32 = 1 ;;
    call leaf ;;
    ld.d r32 = [sp] ; ld.d lr = [sp + 8] ;;
    add sp = sp, 16 ; movi r3 = 0 ;;
    ret ;;
    .cfi_endproc

    .section .text.leaf, "ax"
    .globl leaf
leaf:
    ret ;;
