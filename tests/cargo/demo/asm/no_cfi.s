# A hand-written function without CFI directives, for the `cargo` suite's
# `--bin nocfi`: it calls its argument, a Rust function that panics, and the
# runtime's unwinder finds no call-frame information for this frame.
    .text
    .globl no_cfi_trampoline
    .type no_cfi_trampoline, @function
no_cfi_trampoline:
    add r1 = r1, -16 ;;
    st.d [r1] = r63 ;;
    callr r3 ;;
    ld.d r63 = [r1] ;;
    add r1 = r1, 16 ;;
    ret ;;
    .size no_cfi_trampoline, . - no_cfi_trampoline
