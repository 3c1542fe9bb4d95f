# An unknown mnemonic is an assembly error naming it.
# expect-asm-error: unknown mnemonic `frobnicate`
    .text
    .globl _start
_start:
    frobnicate r3 = r4 ;;
