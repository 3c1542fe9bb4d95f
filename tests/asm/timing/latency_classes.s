# The latency class of each kind of operation (docs/isa.md §10 and §8): fabs is an
# ALU operation (1), fmin float (4), atomics and speculative loads load (3), mulhu
# multiply (3), remw divide (20), fcvt float (4), fsqrt float-divide (16), fcmp
# float-compare (2, read here by sel), r2p compare (1). Each result is read by the
# next bundle: stalls 3+2+2+2+2+19+3+15+1 = 49; 25 bundles; 74 cycles.
# run-flags: --stats
# expect-exit: 8
# expect-stderr-contains: stats: cycles=74 bundles=25 ops=27 nullified=0 stalls=49 branches=0
    .text
    .globl _start
_start:
    movi r4 = slot ; movi r5 = 7 ; movi r6 = 0x40000000 ;;  # 0
    shl r6 = r6, 32 ;;                  # 1: 2.0
    fabs.d r7 = r6 ;;                   # 2: ready at 3
    fmin.d r8 = r7, r6 ;;               # 3: no stall; ready at 7
    mov r9 = r8 ;;                      # stalls 3, issues at 7
    amoadd.d r10 = [r4], r5 ;;          # 8: old value 0, ready at 11
    add r11 = r10, 1 ;;                 # stalls 2, issues at 11
    cas.d r12 = [r4], r5, r11 ;;        # 12: ready at 15
    add r13 = r12, 0 ;;                 # stalls 2, issues at 15
    lds.d r14 = [r0] ;;                 # 16: ready at 19
    add r15 = r14, 0 ;;                 # stalls 2, issues at 19
    mulhu r16 = r5, r5 ;;               # 20: ready at 23
    add r17 = r16, 0 ;;                 # stalls 2, issues at 23
    remw r18 = r5, r5 ;;                # 24: ready at 44
    add r19 = r18, 0 ;;                 # stalls 19, issues at 44
    fcvt.d.l r21 = r5 ;;                # 45: ready at 49
    mov r22 = r21 ;;                    # stalls 3, issues at 49
    fsqrt.s r23 = r5 ;;                 # 50: ready at 66
    mov r24 = r23 ;;                    # stalls 15, issues at 66
    fcmp.eq.d p1, p2 = r6, r6 ;;        # 67: p1 = true, ready at 69
    sel r25 = p1, r5, r0 ;;             # stalls 1, issues at 69: r25 = 7
    r2p p3 = r5 ;;                      # 70: ready at 71
    (p3) add r25 = r25, 1 ;;            # 71: r25 = 8
    mov r3 = r25 ;;                     # 72
    syscall 0 ;;                        # 73: exit(8)
    .data
    .p2align 3
slot:
    .quad 0
