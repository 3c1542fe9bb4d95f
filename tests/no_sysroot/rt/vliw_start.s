# The VLIW half of the no_sysroot runtime (tests/no_sysroot/README.md): the entry
# point and the two functions mini_core imports, over the simulator's system calls
# (docs/isa.md §7). The host half is host_shim.rs.
#
# Calling convention (docs/isa.md §6): arguments in r3..r10, result in r3, return
# address in lr (r63). At startup sp is 16-byte aligned and every other register is
# 0 except r3..r5 (argc, argv, envp), which test_main does not take.
#
# Thread-local storage (docs/isa.md §6): tp (r2) points to the thread's TLS block, a
# copy of the TLS image (.tdata then zeroed .tbss) that the linker places between
# __tls_start and __tls_end. There is one thread here, so the image is used in place.

    .section .text._start, "ax"
    .globl _start
    .type _start, @function
_start:
    movi r2 = __tls_start ;;
    # exit(test_main())
    call test_main ;;
    syscall 0 ;;
    # exit does not return; stop loudly if it ever did.
    trap 1 ;;
    .size _start, . - _start

    # isize vliw_write(i32 fd, const u8 *ptr, usize len): system call 1 takes the
    # same arguments in the same registers and returns the count or -errno in r3.
    .section .text.vliw_write, "ax"
    .globl vliw_write
    .type vliw_write, @function
vliw_write:
    syscall 1 ;;
    ret ;;
    .size vliw_write, . - vliw_write

    # ! vliw_exit(i32 code): system call 0, the status is code & 0xff.
    .section .text.vliw_exit, "ax"
    .globl vliw_exit
    .type vliw_exit, @function
vliw_exit:
    syscall 0 ;;
    trap 1 ;;
    .size vliw_exit, . - vliw_exit
