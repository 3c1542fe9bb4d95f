# Part of link/duplicate_symbol.s (named in its extra-sources): a second global
# definition of shared_name.
    .text
    .globl shared_name
shared_name:
    movi r3 = 1 ;;
    ret ;;
