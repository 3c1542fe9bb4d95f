# Start-up code and machine helpers of the VLIW-64 runtime (sysroot/README.md).
# Assembled by vliw-as into crt0.o, which the target specification links first into
# every executable (`pre-link-objects`).
#
# Rust cannot write these: rustc refuses `asm!` for an architecture it does not
# know (docs/backend.md), and a system call or the thread pointer `r2` is not
# reachable from Rust code otherwise.
#
# Calling convention (docs/isa.md §6): arguments in r3..r10, result in r3, return
# address in lr (r63); r2 is the thread pointer, which compiled code never
# allocates. Every function has call-frame information (`.cfi_*`): `_start` is the
# outermost frame (its return address undefined, where an unwinder stops), the
# others have no frame.

    # The entry point. The simulator starts us with sp 16-byte aligned and
    # r3 = argc, r4 = argv, r5 = envp (docs/isa.md §7): exactly the arguments of
    # __vliw_rt_start(argc, argv, envp), which never returns.
    .section .text._start, "ax"
    .globl _start
    .type _start, @function
_start:
    .cfi_startproc
    .cfi_undefined lr
    call __vliw_rt_start ;;
    trap 1 ;;
    .cfi_endproc
    .size _start, . - _start

    # *mut u8 __vliw_get_tp(void)
    .section .text.__vliw_get_tp, "ax"
    .globl __vliw_get_tp
    .type __vliw_get_tp, @function
__vliw_get_tp:
    .cfi_startproc
    mov r3 = r2 ; ret ;;
    .cfi_endproc
    .size __vliw_get_tp, . - __vliw_get_tp

    # void __vliw_set_tp(*mut u8 tp)
    .section .text.__vliw_set_tp, "ax"
    .globl __vliw_set_tp
    .type __vliw_set_tp, @function
__vliw_set_tp:
    .cfi_startproc
    mov r2 = r3 ; ret ;;
    .cfi_endproc
    .size __vliw_set_tp, . - __vliw_set_tp

    # One function per system call (docs/isa.md §7): the arguments are already in
    # r3..r8 and the result comes back in r3.
    # ! exit(i32 code)
    .section .text.__vliw_sys_exit, "ax"
    .globl __vliw_sys_exit
    .type __vliw_sys_exit, @function
__vliw_sys_exit:
    .cfi_startproc
    syscall 0 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_exit, . - __vliw_sys_exit

    # isize write(i32 fd, *const u8 buf, usize len)
    .section .text.__vliw_sys_write, "ax"
    .globl __vliw_sys_write
    .type __vliw_sys_write, @function
__vliw_sys_write:
    .cfi_startproc
    syscall 1 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_write, . - __vliw_sys_write

    # isize read(i32 fd, *mut u8 buf, usize len)
    .section .text.__vliw_sys_read, "ax"
    .globl __vliw_sys_read
    .type __vliw_sys_read, @function
__vliw_sys_read:
    .cfi_startproc
    syscall 2 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_read, . - __vliw_sys_read

    # usize brk(usize addr)
    .section .text.__vliw_sys_brk, "ax"
    .globl __vliw_sys_brk
    .type __vliw_sys_brk, @function
__vliw_sys_brk:
    .cfi_startproc
    syscall 3 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_brk, . - __vliw_sys_brk

    # i64 clock(u64 id)
    .section .text.__vliw_sys_clock, "ax"
    .globl __vliw_sys_clock
    .type __vliw_sys_clock, @function
__vliw_sys_clock:
    .cfi_startproc
    syscall 4 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_clock, . - __vliw_sys_clock

    # isize random(*mut u8 buf, usize len)
    .section .text.__vliw_sys_random, "ax"
    .globl __vliw_sys_random
    .type __vliw_sys_random, @function
__vliw_sys_random:
    .cfi_startproc
    syscall 5 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_random, . - __vliw_sys_random

    # isize symbolize(u64 addr, *mut u8 buf, usize len)
    .section .text.__vliw_sys_symbolize, "ax"
    .globl __vliw_sys_symbolize
    .type __vliw_sys_symbolize, @function
__vliw_sys_symbolize:
    .cfi_startproc
    syscall 7 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_symbolize, . - __vliw_sys_symbolize

    # The file system calls (docs/isa.md §7, *Files*); results are `-errno` on
    # failure.
    # i32 open(*const u8 path, i32 flags, i32 mode)
    .section .text.__vliw_sys_open, "ax"
    .globl __vliw_sys_open
    .type __vliw_sys_open, @function
__vliw_sys_open:
    .cfi_startproc
    syscall 16 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_open, . - __vliw_sys_open

    # i32 close(i32 fd)
    .section .text.__vliw_sys_close, "ax"
    .globl __vliw_sys_close
    .type __vliw_sys_close, @function
__vliw_sys_close:
    .cfi_startproc
    syscall 17 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_close, . - __vliw_sys_close

    # isize lseek(i32 fd, isize offset, i32 whence)
    .section .text.__vliw_sys_lseek, "ax"
    .globl __vliw_sys_lseek
    .type __vliw_sys_lseek, @function
__vliw_sys_lseek:
    .cfi_startproc
    syscall 18 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_lseek, . - __vliw_sys_lseek

    # i32 fstat(i32 fd, *mut [u64; 16] buf)
    .section .text.__vliw_sys_fstat, "ax"
    .globl __vliw_sys_fstat
    .type __vliw_sys_fstat, @function
__vliw_sys_fstat:
    .cfi_startproc
    syscall 19 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_fstat, . - __vliw_sys_fstat

    # i32 stat(*const u8 path, *mut [u64; 16] buf)
    .section .text.__vliw_sys_stat, "ax"
    .globl __vliw_sys_stat
    .type __vliw_sys_stat, @function
__vliw_sys_stat:
    .cfi_startproc
    syscall 20 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_stat, . - __vliw_sys_stat

    # i32 lstat(*const u8 path, *mut [u64; 16] buf)
    .section .text.__vliw_sys_lstat, "ax"
    .globl __vliw_sys_lstat
    .type __vliw_sys_lstat, @function
__vliw_sys_lstat:
    .cfi_startproc
    syscall 21 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_lstat, . - __vliw_sys_lstat

    # isize getdents(i32 fd, *mut u8 buf, usize len)
    .section .text.__vliw_sys_getdents, "ax"
    .globl __vliw_sys_getdents
    .type __vliw_sys_getdents, @function
__vliw_sys_getdents:
    .cfi_startproc
    syscall 22 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_getdents, . - __vliw_sys_getdents

    # i32 mkdir(*const u8 path, u32 mode)
    .section .text.__vliw_sys_mkdir, "ax"
    .globl __vliw_sys_mkdir
    .type __vliw_sys_mkdir, @function
__vliw_sys_mkdir:
    .cfi_startproc
    syscall 23 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_mkdir, . - __vliw_sys_mkdir

    # i32 rmdir(*const u8 path)
    .section .text.__vliw_sys_rmdir, "ax"
    .globl __vliw_sys_rmdir
    .type __vliw_sys_rmdir, @function
__vliw_sys_rmdir:
    .cfi_startproc
    syscall 24 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_rmdir, . - __vliw_sys_rmdir

    # i32 unlink(*const u8 path)
    .section .text.__vliw_sys_unlink, "ax"
    .globl __vliw_sys_unlink
    .type __vliw_sys_unlink, @function
__vliw_sys_unlink:
    .cfi_startproc
    syscall 25 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_unlink, . - __vliw_sys_unlink

    # i32 rename(*const u8 old, *const u8 new)
    .section .text.__vliw_sys_rename, "ax"
    .globl __vliw_sys_rename
    .type __vliw_sys_rename, @function
__vliw_sys_rename:
    .cfi_startproc
    syscall 26 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_rename, . - __vliw_sys_rename

    # i32 fsync(i32 fd)
    .section .text.__vliw_sys_fsync, "ax"
    .globl __vliw_sys_fsync
    .type __vliw_sys_fsync, @function
__vliw_sys_fsync:
    .cfi_startproc
    syscall 27 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_fsync, . - __vliw_sys_fsync

    # isize spawn(pc, stack_size, tp, a0, a1): a new thread at pc (docs/isa.md §7)
    .section .text.__vliw_sys_spawn, "ax"
    .globl __vliw_sys_spawn
    .type __vliw_sys_spawn, @function
__vliw_sys_spawn:
    .cfi_startproc
    syscall 64 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_spawn, . - __vliw_sys_spawn

    # ! exit_thread()
    .section .text.__vliw_sys_exit_thread, "ax"
    .globl __vliw_sys_exit_thread
    .type __vliw_sys_exit_thread, @function
__vliw_sys_exit_thread:
    .cfi_startproc
    syscall 65 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_exit_thread, . - __vliw_sys_exit_thread

    # isize join(u32 tid)
    .section .text.__vliw_sys_join, "ax"
    .globl __vliw_sys_join
    .type __vliw_sys_join, @function
__vliw_sys_join:
    .cfi_startproc
    syscall 66 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_join, . - __vliw_sys_join

    # isize futex_wait(*const u32 addr, u32 expected, u64 timeout_ns or -1)
    .section .text.__vliw_sys_futex_wait, "ax"
    .globl __vliw_sys_futex_wait
    .type __vliw_sys_futex_wait, @function
__vliw_sys_futex_wait:
    .cfi_startproc
    syscall 67 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_futex_wait, . - __vliw_sys_futex_wait

    # isize futex_wake(*const u32 addr, i64 count)
    .section .text.__vliw_sys_futex_wake, "ax"
    .globl __vliw_sys_futex_wake
    .type __vliw_sys_futex_wake, @function
__vliw_sys_futex_wake:
    .cfi_startproc
    syscall 68 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_futex_wake, . - __vliw_sys_futex_wake

    # isize yield()
    .section .text.__vliw_sys_yield, "ax"
    .globl __vliw_sys_yield
    .type __vliw_sys_yield, @function
__vliw_sys_yield:
    .cfi_startproc
    syscall 69 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_yield, . - __vliw_sys_yield

    # isize sleep(u64 ns)
    .section .text.__vliw_sys_sleep, "ax"
    .globl __vliw_sys_sleep
    .type __vliw_sys_sleep, @function
__vliw_sys_sleep:
    .cfi_startproc
    syscall 70 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_sleep, . - __vliw_sys_sleep

    # u64 gettid()
    .section .text.__vliw_sys_gettid, "ax"
    .globl __vliw_sys_gettid
    .type __vliw_sys_gettid, @function
__vliw_sys_gettid:
    .cfi_startproc
    syscall 71 ;;
    ret ;;
    .cfi_endproc
    .size __vliw_sys_gettid, . - __vliw_sys_gettid

    # The first frame of every spawned thread (runtime/src/thread.rs): the simulator
    # starts it with sp at the top of the thread's stack, tp (r2) at its TLS block,
    # r3 = the argument and r4 = the function, which returns nothing. When the
    # function returns, the thread ends. The outermost frame of the thread, as
    # `_start` is of the first one.
    .section .text.__vliw_thread_start, "ax"
    .globl __vliw_thread_start
    .type __vliw_thread_start, @function
__vliw_thread_start:
    .cfi_startproc
    .cfi_undefined lr
    callr r4 ;;
    syscall 65 ;;
    trap 1 ;;
    .cfi_endproc
    .size __vliw_thread_start, . - __vliw_thread_start

    # The unwinder's register save and restore (runtime/src/unwind): a context is
    # 81 words, r0..r63, p0..p15 (0 or 1), and the address to continue at.
    # void __vliw_unwind_capture(*mut Context ctx): the registers as the caller
    # sees them at the call, and its return address as the context's address.
    .section .text.__vliw_unwind_capture, "ax"
    .globl __vliw_unwind_capture
    .type __vliw_unwind_capture, @function
__vliw_unwind_capture:
    .cfi_startproc
    st.d [r3 + 0] = r0 ; st.d [r3 + 8] = r1 ;;
    st.d [r3 + 16] = r2 ; st.d [r3 + 24] = r3 ;;
    st.d [r3 + 32] = r4 ; st.d [r3 + 40] = r5 ;;
    st.d [r3 + 48] = r6 ; st.d [r3 + 56] = r7 ;;
    st.d [r3 + 64] = r8 ; st.d [r3 + 72] = r9 ;;
    st.d [r3 + 80] = r10 ; st.d [r3 + 88] = r11 ;;
    st.d [r3 + 96] = r12 ; st.d [r3 + 104] = r13 ;;
    st.d [r3 + 112] = r14 ; st.d [r3 + 120] = r15 ;;
    st.d [r3 + 128] = r16 ; st.d [r3 + 136] = r17 ;;
    st.d [r3 + 144] = r18 ; st.d [r3 + 152] = r19 ;;
    st.d [r3 + 160] = r20 ; st.d [r3 + 168] = r21 ;;
    st.d [r3 + 176] = r22 ; st.d [r3 + 184] = r23 ;;
    st.d [r3 + 192] = r24 ; st.d [r3 + 200] = r25 ;;
    st.d [r3 + 208] = r26 ; st.d [r3 + 216] = r27 ;;
    st.d [r3 + 224] = r28 ; st.d [r3 + 232] = r29 ;;
    st.d [r3 + 240] = r30 ; st.d [r3 + 248] = r31 ;;
    st.d [r3 + 256] = r32 ; st.d [r3 + 264] = r33 ;;
    st.d [r3 + 272] = r34 ; st.d [r3 + 280] = r35 ;;
    st.d [r3 + 288] = r36 ; st.d [r3 + 296] = r37 ;;
    st.d [r3 + 304] = r38 ; st.d [r3 + 312] = r39 ;;
    st.d [r3 + 320] = r40 ; st.d [r3 + 328] = r41 ;;
    st.d [r3 + 336] = r42 ; st.d [r3 + 344] = r43 ;;
    st.d [r3 + 352] = r44 ; st.d [r3 + 360] = r45 ;;
    st.d [r3 + 368] = r46 ; st.d [r3 + 376] = r47 ;;
    st.d [r3 + 384] = r48 ; st.d [r3 + 392] = r49 ;;
    st.d [r3 + 400] = r50 ; st.d [r3 + 408] = r51 ;;
    st.d [r3 + 416] = r52 ; st.d [r3 + 424] = r53 ;;
    st.d [r3 + 432] = r54 ; st.d [r3 + 440] = r55 ;;
    st.d [r3 + 448] = r56 ; st.d [r3 + 456] = r57 ;;
    st.d [r3 + 464] = r58 ; st.d [r3 + 472] = r59 ;;
    st.d [r3 + 480] = r60 ; st.d [r3 + 488] = r61 ;;
    st.d [r3 + 496] = r62 ; st.d [r3 + 504] = r63 ;;
    p2r r11 = p0 ; p2r r12 = p1 ; p2r r13 = p2 ; p2r r14 = p3 ;;
    st.d [r3 + 512] = r11 ; st.d [r3 + 520] = r12 ;;
    st.d [r3 + 528] = r13 ; st.d [r3 + 536] = r14 ;;
    p2r r11 = p4 ; p2r r12 = p5 ; p2r r13 = p6 ; p2r r14 = p7 ;;
    st.d [r3 + 544] = r11 ; st.d [r3 + 552] = r12 ;;
    st.d [r3 + 560] = r13 ; st.d [r3 + 568] = r14 ;;
    p2r r11 = p8 ; p2r r12 = p9 ; p2r r13 = p10 ; p2r r14 = p11 ;;
    st.d [r3 + 576] = r11 ; st.d [r3 + 584] = r12 ;;
    st.d [r3 + 592] = r13 ; st.d [r3 + 600] = r14 ;;
    p2r r11 = p12 ; p2r r12 = p13 ; p2r r13 = p14 ; p2r r14 = p15 ;;
    st.d [r3 + 608] = r11 ; st.d [r3 + 616] = r12 ;;
    st.d [r3 + 624] = r13 ; st.d [r3 + 632] = r14 ;;
    st.d [r3 + 640] = lr ; ret ;;
    .cfi_endproc
    .size __vliw_unwind_capture, . - __vliw_unwind_capture

    # ! __vliw_unwind_restore(*const Context ctx): continues at the context's
    # address with its registers (r0 and the thread pointer r2 excepted; r11 and r12
    # are the last loaded, through which the rest is read and the jump made).
    .section .text.__vliw_unwind_restore, "ax"
    .globl __vliw_unwind_restore
    .type __vliw_unwind_restore, @function
__vliw_unwind_restore:
    .cfi_startproc
    .cfi_undefined lr
    mov r11 = r3 ;;
    ld.d r12 = [r11 + 520] ; ld.d r13 = [r11 + 528] ;;
    ld.d r14 = [r11 + 536] ; ld.d r15 = [r11 + 544] ;;
    nop 3 ;;
    r2p p1 = r12 ; r2p p2 = r13 ; r2p p3 = r14 ; r2p p4 = r15 ;;
    ld.d r12 = [r11 + 552] ; ld.d r13 = [r11 + 560] ;;
    ld.d r14 = [r11 + 568] ; ld.d r15 = [r11 + 576] ;;
    nop 3 ;;
    r2p p5 = r12 ; r2p p6 = r13 ; r2p p7 = r14 ; r2p p8 = r15 ;;
    ld.d r12 = [r11 + 584] ; ld.d r13 = [r11 + 592] ;;
    ld.d r14 = [r11 + 600] ; ld.d r15 = [r11 + 608] ;;
    nop 3 ;;
    r2p p9 = r12 ; r2p p10 = r13 ; r2p p11 = r14 ; r2p p12 = r15 ;;
    ld.d r12 = [r11 + 616] ; ld.d r13 = [r11 + 624] ;;
    ld.d r14 = [r11 + 632] ;;
    nop 3 ;;
    r2p p13 = r12 ; r2p p14 = r13 ; r2p p15 = r14 ;;
    ld.d r1 = [r11 + 8] ; ld.d r3 = [r11 + 24] ;;
    ld.d r4 = [r11 + 32] ; ld.d r5 = [r11 + 40] ;;
    ld.d r6 = [r11 + 48] ; ld.d r7 = [r11 + 56] ;;
    ld.d r8 = [r11 + 64] ; ld.d r9 = [r11 + 72] ;;
    ld.d r10 = [r11 + 80] ; ld.d r13 = [r11 + 104] ;;
    ld.d r14 = [r11 + 112] ; ld.d r15 = [r11 + 120] ;;
    ld.d r16 = [r11 + 128] ; ld.d r17 = [r11 + 136] ;;
    ld.d r18 = [r11 + 144] ; ld.d r19 = [r11 + 152] ;;
    ld.d r20 = [r11 + 160] ; ld.d r21 = [r11 + 168] ;;
    ld.d r22 = [r11 + 176] ; ld.d r23 = [r11 + 184] ;;
    ld.d r24 = [r11 + 192] ; ld.d r25 = [r11 + 200] ;;
    ld.d r26 = [r11 + 208] ; ld.d r27 = [r11 + 216] ;;
    ld.d r28 = [r11 + 224] ; ld.d r29 = [r11 + 232] ;;
    ld.d r30 = [r11 + 240] ; ld.d r31 = [r11 + 248] ;;
    ld.d r32 = [r11 + 256] ; ld.d r33 = [r11 + 264] ;;
    ld.d r34 = [r11 + 272] ; ld.d r35 = [r11 + 280] ;;
    ld.d r36 = [r11 + 288] ; ld.d r37 = [r11 + 296] ;;
    ld.d r38 = [r11 + 304] ; ld.d r39 = [r11 + 312] ;;
    ld.d r40 = [r11 + 320] ; ld.d r41 = [r11 + 328] ;;
    ld.d r42 = [r11 + 336] ; ld.d r43 = [r11 + 344] ;;
    ld.d r44 = [r11 + 352] ; ld.d r45 = [r11 + 360] ;;
    ld.d r46 = [r11 + 368] ; ld.d r47 = [r11 + 376] ;;
    ld.d r48 = [r11 + 384] ; ld.d r49 = [r11 + 392] ;;
    ld.d r50 = [r11 + 400] ; ld.d r51 = [r11 + 408] ;;
    ld.d r52 = [r11 + 416] ; ld.d r53 = [r11 + 424] ;;
    ld.d r54 = [r11 + 432] ; ld.d r55 = [r11 + 440] ;;
    ld.d r56 = [r11 + 448] ; ld.d r57 = [r11 + 456] ;;
    ld.d r58 = [r11 + 464] ; ld.d r59 = [r11 + 472] ;;
    ld.d r60 = [r11 + 480] ; ld.d r61 = [r11 + 488] ;;
    ld.d r62 = [r11 + 496] ; ld.d r63 = [r11 + 504] ;;
    ld.d r12 = [r11 + 640] ;;
    ld.d r11 = [r11 + 88] ;;
    nop 3 ;;
    jr r12 ;;
    .cfi_endproc
    .size __vliw_unwind_restore, . - __vliw_unwind_restore
