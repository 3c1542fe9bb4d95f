# All operations of a bundle read the state before the bundle, then write in slot
# order (a later slot wins): loads/atomics see the old memory even when another
# operation of the bundle stores there; register and predicate swaps in one bundle;
# a guard reads the predicate before a compare of the same bundle writes it.
# extra-sources: ../lib/print.s
# expect-stdout: 0x1111111111111111
# expect-stdout: 0x2222222222222222
# expect-stdout: 0x2222222222222222
# expect-stdout: 0x3333333333333333
# expect-stdout: 0x66666666666666aa
# expect-stdout: 0x55555555555555aa
# expect-stdout: 0x5555555555555555
# expect-stdout: 0x0000000000000064
# expect-stdout: 0x0000000000000064
# expect-stdout: 0x0000000000000777
# expect-stdout: 0x0000000000000064
# expect-stdout: 0x0000000000000065
# expect-stdout: 0x00000000000000bb
# expect-stdout: 0x00000000000000aa
# expect-stdout: 0x0000000000000002
# expect-stdout: 0x0000000000000001
# expect-stdout: 0x0000000000000005
# expect-stdout: 0x0000000000000006
# expect-stdout: 0x0000000000000004
# expect-stdout: 0x0000000000000000
# expect-stdout: 0x0000000000000001
# expect-stdout: 0x0000000000000000\n
    .text
    .globl _start
_start:
    movi r32 = cell ; movi r33 = 0x2222222222222222 ;;
    # load and store of the same address in one bundle: the load sees the old value
    ld.d r3 = [r32] ; st.d [r32] = r33 ;;
    call print_hex ;;                                   # 0x1111...
    ld.d r3 = [r32] ;;
    call print_hex ;;                                   # 0x2222...
    movi r34 = 0x3333333333333333 ;;
    st.d [r32] = r34 ; ld.d r3 = [r32] ;;               # store in the earlier slot
    call print_hex ;;                                   # still 0x2222...
    ld.d r3 = [r32] ;;
    call print_hex ;;                                   # 0x3333...
    # two stores to one address: the later slot wins, also for partial overlap
    movi r35 = 0x5555555555555555 ; movi r36 = 0x66666666666666aa ;;
    st.d [r32] = r35 ; st.d [r32] = r36 ;;
    ld.d r3 = [r32] ;;
    call print_hex ;;                                   # 0x6666...aa
    st.d [r32] = r35 ; st.b [r32] = r36 ;;
    ld.d r3 = [r32] ;;
    call print_hex ;;                                   # 0x5555...aa
    st.b [r32] = r36 ; st.d [r32] = r35 ;;
    ld.d r3 = [r32] ;;
    call print_hex ;;                                   # 0x5555...55
    # an atomic and a load read the old value; then the slot order of the writes
    movi r37 = 100 ; movi r38 = 1 ; movi r39 = 0x777 ;;
    st.d [r32] = r37 ;;
    ld.d r40 = [r32] ; amoadd.d r41 = [r32], r38 ;;
    mov r3 = r40 ;;
    call print_hex ;;                                   # 100
    mov r3 = r41 ;;
    call print_hex ;;                                   # 100
    st.d [r32] = r37 ;;
    amoadd.d r41 = [r32], r38 ; st.d [r32] = r39 ;;     # the store is later: 0x777
    ld.d r3 = [r32] ;;
    call print_hex ;;
    st.d [r32] = r37 ;;
    st.d [r32] = r39 ; amoadd.d r41 = [r32], r38 ;;     # the atomic is later: 100 + 1
    mov r3 = r41 ;;
    call print_hex ;;                                   # it read 100
    ld.d r3 = [r32] ;;
    call print_hex ;;                                   # 101
    # swapping two registers in one bundle
    movi r3 = 0xaa ; movi r4 = 0xbb ;;
    mov r3 = r4 ; mov r4 = r3 ;;
    mov r42 = r4 ;;
    call print_hex ;;                                   # 0xbb
    mov r3 = r42 ;;
    call print_hex ;;                                   # 0xaa
    # two writes of one register: the later slot wins
    movi r3 = 1 ; movi r3 = 2 ;;
    call print_hex ;;
    movi r3 = 2 ; movi r3 = 1 ;;
    call print_hex ;;
    # rotating three registers
    movi r43 = 4 ; movi r44 = 5 ; movi r45 = 6 ;;
    mov r43 = r44 ; mov r44 = r45 ; mov r45 = r43 ;;
    mov r3 = r43 ;;
    call print_hex ;;                                   # 5
    mov r3 = r44 ;;
    call print_hex ;;                                   # 6
    mov r3 = r45 ;;
    call print_hex ;;                                   # 4
    # a guard reads the predicate before the bundle's compare writes it
    cmp.eq p1, p2 = r0, 1 ;;                            # p1 = false
    movi r3 = 0 ;;
    cmp.eq p1, p2 = r0, r0 ; (p1) movi r3 = 5 ;;        # nullified: p1 was false
    call print_hex ;;                                   # 0
    # swapping two predicates in one bundle (p1 = true, p2 = false now)
    por p1 = p2, p2 ; por p2 = p1, p1 ;;
    p2r r3 = p2 ; p2r r46 = p1 ;;                       # (calls clobber p1..p11)
    call print_hex ;;                                   # 1
    mov r3 = r46 ;;
    call print_hex ;;                                   # 0
    movi r3 = 0 ;;
    syscall 0 ;;

    .data
    .p2align 3
cell:
    .quad 0x1111111111111111
