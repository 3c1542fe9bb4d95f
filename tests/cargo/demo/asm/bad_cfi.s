# A hand-written function whose CFI directives do not describe its frame, for the
# `cargo` suite's `--bin badcfi`: it moves the stack pointer and saves lr without
# saying so, so its call-frame information gives a caller at the same stack
# pointer and the same address as the frame itself. Followed blindly, the unwinder
# would step from this frame to itself forever; it must stop with a fatal error.
    .text
    .globl bad_cfi_trampoline
    .type bad_cfi_trampoline, @function
bad_cfi_trampoline:
    .cfi_startproc
    add r1 = r1, -16 ;;
    st.d [r1] = r63 ;;
    callr r3 ;;
    ld.d r63 = [r1] ;;
    add r1 = r1, 16 ;;
    ret ;;
    .cfi_endproc
    .size bad_cfi_trampoline, . - bad_cfi_trampoline
