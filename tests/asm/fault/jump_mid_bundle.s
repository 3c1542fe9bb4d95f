# A jump to the second syllable of a bundle (inside the text, but not a bundle
# start) is a fault: exit status 141.
# expect-exit: 141
# expect-stderr-contains: jump_inside
# expect-stderr-contains: jump outside text
    .text
    .globl _start
_start:
    call jump_inside ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .type jump_inside, @function
jump_inside:
    addpc r3 = target ;;
    add r3 = r3, 8 ;;
    jr r3 ;;
target:
    movi r3 = 1 ; movi r4 = 2 ;;
    movi r3 = 0 ;;
    syscall 0 ;;
