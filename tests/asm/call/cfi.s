# Call-frame information from CFI directives: `_start` is the outermost frame (its
# return address undefined), `main` allocates 32 bytes, saves lr at CFA-8 and r32,
# r33 at CFA-16 and CFA-24 in the bundles that store them, changes both, then calls
# `leaf` (whose own frame is empty) twice. --check-unwind unwinds the caller at each
# of the three calls (docs/isa.md §6): the CFA must be the caller's entry sp and
# every saved register its value at the caller's entry, so the run succeeds only if
# the directives describe the code; `--stats` prints the count of calls checked.
# run-flags: --check-unwind --stats
# expect-exit: 0
# expect-stderr-contains: unwind-check: checked=3 without-fde=0
    .section .text._start, "ax"
    .globl _start
_start:
    .cfi_startproc
    .cfi_undefined lr
    movi r32 = 5 ; movi r33 = 6 ;;
    call main ;;
    syscall 0 ;;
    .cfi_endproc

    .section .text.main, "ax"
    .globl main
    .type main, @function
main:
    .cfi_startproc
    add sp = sp, -32 ;;
    .cfi_def_cfa_offset 32
    st.d [sp + 24] = lr ; st.d [sp + 16] = r32 ;;
    .cfi_offset lr, -8
    .cfi_offset r32, -16
    st.d [sp + 8] = r33 ; movi r32 = 7 ;;
    .cfi_offset r33, -24
    movi r33 = 8 ;;
    call leaf ;;
    call leaf ;;
    ld.d r32 = [sp + 16] ; ld.d r33 = [sp + 8] ;;
    ld.d lr = [sp + 24] ;;
    add sp = sp, 32 ; movi r3 = 0 ;;
    .cfi_def_cfa_offset 0
    ret ;;
    .cfi_endproc
    .size main, . - main

    .section .text.leaf, "ax"
    .globl leaf
leaf:
    .cfi_startproc
    ret ;;
    .cfi_endproc
