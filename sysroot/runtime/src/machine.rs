//! What `crt0.s` provides: the simulator's system calls (docs/isa.md §7) and the
//! thread pointer `r2`; and the symbols the linker defines for the TLS image
//! (docs/linking.md).

unsafe extern "C" {
    pub fn __vliw_sys_exit(code: i32) -> !;
    pub fn __vliw_sys_write(fd: i32, buf: *const u8, len: usize) -> isize;
    pub fn __vliw_sys_read(fd: i32, buf: *mut u8, len: usize) -> isize;
    pub fn __vliw_sys_brk(addr: usize) -> usize;
    pub fn __vliw_sys_clock(id: u64) -> i64;
    pub fn __vliw_sys_random(buf: *mut u8, len: usize) -> isize;
    /// `name+0xoff` of the symbol holding `addr`, truncated to `len`; the whole
    /// length, or a negative errno.
    pub fn __vliw_sys_symbolize(addr: u64, buf: *mut u8, len: usize) -> isize;

    // Files of the host directories `vliw-run --dir` maps: `fs.rs`.
    pub fn __vliw_sys_open(path: *const u8, flags: i32, mode: i32) -> i32;
    pub fn __vliw_sys_close(fd: i32) -> i32;
    pub fn __vliw_sys_lseek(fd: i32, offset: isize, whence: i32) -> isize;
    pub fn __vliw_sys_fstat(fd: i32, buf: *mut [u64; 16]) -> i32;
    pub fn __vliw_sys_stat(path: *const u8, buf: *mut [u64; 16]) -> i32;
    pub fn __vliw_sys_lstat(path: *const u8, buf: *mut [u64; 16]) -> i32;
    pub fn __vliw_sys_getdents(fd: i32, buf: *mut u8, len: usize) -> isize;
    pub fn __vliw_sys_mkdir(path: *const u8, mode: u32) -> i32;
    pub fn __vliw_sys_rmdir(path: *const u8) -> i32;
    pub fn __vliw_sys_unlink(path: *const u8) -> i32;
    pub fn __vliw_sys_rename(old: *const u8, new: *const u8) -> i32;
    pub fn __vliw_sys_fsync(fd: i32) -> i32;
    /// Thread calls (docs/isa.md §7, "Threads"); negative results are `-errno`.
    pub fn __vliw_sys_spawn(pc: usize, stack_size: usize, tp: usize, a0: usize, a1: usize)
        -> isize;
    pub fn __vliw_sys_exit_thread() -> !;
    pub fn __vliw_sys_join(tid: u64) -> isize;
    pub fn __vliw_sys_futex_wait(addr: *const u32, expected: u32, timeout_ns: u64) -> isize;
    pub fn __vliw_sys_futex_wake(addr: *const u32, count: i64) -> isize;
    pub fn __vliw_sys_yield() -> isize;
    pub fn __vliw_sys_sleep(ns: u64) -> isize;
    pub fn __vliw_sys_gettid() -> u64;
    /// The first frame of a spawned thread: calls `r4(r3)`, then ends the thread.
    pub fn __vliw_thread_start();

    pub fn __vliw_get_tp() -> *mut u8;
    pub fn __vliw_set_tp(tp: *mut u8);

    /// The TLS image: `.tdata` in `[__tls_start, __tls_data_end)`, then `.tbss` up
    /// to `__tls_end`; the address of `__tls_align` is the image's alignment.
    static __tls_start: u8;
    static __tls_data_end: u8;
    static __tls_end: u8;
    static __tls_align: u8;
}

/// `clock` ids of the simulator.
pub const CLOCK_CYCLES_NS: u64 = 0;
pub const CLOCK_HOST_REALTIME_NS: u64 = 1;

/// The TLS image: (address, initialized bytes, total bytes, alignment).
pub fn tls_image() -> (*const u8, usize, usize, usize) {
    // SAFETY: only the addresses of the linker's symbols are taken.
    unsafe {
        let start = &raw const __tls_start;
        let data_end = &raw const __tls_data_end as usize;
        let end = &raw const __tls_end as usize;
        let align = &raw const __tls_align as usize;
        let base = start as usize;
        (start, data_end - base, end - base, align.max(1))
    }
}
