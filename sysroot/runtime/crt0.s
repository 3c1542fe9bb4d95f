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
# allocates.

    # The entry point. The simulator starts us with sp 16-byte aligned and
    # r3 = argc, r4 = argv, r5 = envp (docs/isa.md §7): exactly the arguments of
    # __vliw_rt_start(argc, argv, envp), which never returns.
    .section .text._start, "ax"
    .globl _start
    .type _start, @function
_start:
    call __vliw_rt_start ;;
    trap 1 ;;
    .size _start, . - _start

    # *mut u8 __vliw_get_tp(void)
    .section .text.__vliw_get_tp, "ax"
    .globl __vliw_get_tp
    .type __vliw_get_tp, @function
__vliw_get_tp:
    mov r3 = r2 ; ret ;;
    .size __vliw_get_tp, . - __vliw_get_tp

    # void __vliw_set_tp(*mut u8 tp)
    .section .text.__vliw_set_tp, "ax"
    .globl __vliw_set_tp
    .type __vliw_set_tp, @function
__vliw_set_tp:
    mov r2 = r3 ; ret ;;
    .size __vliw_set_tp, . - __vliw_set_tp

    # One function per system call (docs/isa.md §7): the arguments are already in
    # r3..r8 and the result comes back in r3.
    # ! exit(i32 code)
    .section .text.__vliw_sys_exit, "ax"
    .globl __vliw_sys_exit
    .type __vliw_sys_exit, @function
__vliw_sys_exit:
    syscall 0 ;;
    ret ;;
    .size __vliw_sys_exit, . - __vliw_sys_exit

    # isize write(i32 fd, *const u8 buf, usize len)
    .section .text.__vliw_sys_write, "ax"
    .globl __vliw_sys_write
    .type __vliw_sys_write, @function
__vliw_sys_write:
    syscall 1 ;;
    ret ;;
    .size __vliw_sys_write, . - __vliw_sys_write

    # isize read(i32 fd, *mut u8 buf, usize len)
    .section .text.__vliw_sys_read, "ax"
    .globl __vliw_sys_read
    .type __vliw_sys_read, @function
__vliw_sys_read:
    syscall 2 ;;
    ret ;;
    .size __vliw_sys_read, . - __vliw_sys_read

    # usize brk(usize addr)
    .section .text.__vliw_sys_brk, "ax"
    .globl __vliw_sys_brk
    .type __vliw_sys_brk, @function
__vliw_sys_brk:
    syscall 3 ;;
    ret ;;
    .size __vliw_sys_brk, . - __vliw_sys_brk

    # i64 clock(u64 id)
    .section .text.__vliw_sys_clock, "ax"
    .globl __vliw_sys_clock
    .type __vliw_sys_clock, @function
__vliw_sys_clock:
    syscall 4 ;;
    ret ;;
    .size __vliw_sys_clock, . - __vliw_sys_clock

    # isize random(*mut u8 buf, usize len)
    .section .text.__vliw_sys_random, "ax"
    .globl __vliw_sys_random
    .type __vliw_sys_random, @function
__vliw_sys_random:
    syscall 5 ;;
    ret ;;
    .size __vliw_sys_random, . - __vliw_sys_random
