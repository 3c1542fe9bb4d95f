//! Threads, thread-local storage and futexes on a machine with one thread of
//! execution.
//!
//! `sys_spawn2` runs the new thread to completion before it returns: it gives the
//! thread a fresh TLS block (a copy of the TLS image, docs/isa.md §6), points `r2`
//! at it, calls the thread's function on the current stack, and restores the
//! parent's `r2`. `sys_join` then has nothing to wait for. This is a legal
//! schedule of the program's threads (the parent is simply not scheduled until
//! the child ends), so spawn-and-join code, channels to the parent, `Arc`/`Mutex`
//! and libtest's thread per test work. A thread that waits for something only
//! its parent (or a later thread) would do can never be woken: `sys_futex_wait`
//! reports that deadlock and ends the program, rather than hanging.

use crate::errno::{EAGAIN, ETIMEDOUT};
use crate::machine::{__vliw_get_tp, __vliw_set_tp, tls_image};
use crate::memory::{sys_free, sys_malloc};

pub type Tid = u32;

/// Thread ids: the main thread is 1.
static mut NEXT_TID: Tid = 2;

/// A new thread's TLS block: the image's initialized bytes, then zeros. Null when
/// memory is exhausted.
pub fn new_tls_block() -> *mut u8 {
    let (image, data, size, align) = tls_image();
    // SAFETY: a fresh block of `size` bytes (at least one, so that it is unique).
    unsafe {
        let block = sys_malloc(size.max(1), align);
        if !block.is_null() {
            core::ptr::copy_nonoverlapping(image, block, data);
            core::ptr::write_bytes(block.add(data), 0, size - data);
        }
        block
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_spawn2(
    func: extern "C" fn(usize),
    arg: usize,
    _prio: u8,
    _stack_size: usize,
    _core_id: isize,
) -> Tid {
    let block = new_tls_block();
    if block.is_null() {
        return 0;
    }
    // SAFETY: one thread of execution; the parent's thread pointer is restored
    // before anything of the parent runs again.
    unsafe {
        let tid = NEXT_TID;
        NEXT_TID += 1;
        let parent = __vliw_get_tp();
        __vliw_set_tp(block);
        func(arg);
        __vliw_set_tp(parent);
        let (_, _, size, align) = tls_image();
        sys_free(block, size.max(1), align);
        tid
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_spawn(
    id: *mut Tid,
    func: extern "C" fn(usize),
    arg: usize,
    prio: u8,
    core_id: isize,
) -> i32 {
    let tid = unsafe { sys_spawn2(func, arg, prio, 0, core_id) };
    if !id.is_null() {
        unsafe { *id = tid };
    }
    if tid == 0 { -1 } else { 0 }
}

/// Every spawned thread has finished by the time its parent runs again.
#[unsafe(no_mangle)]
pub extern "C" fn sys_join(_id: Tid) -> i32 {
    0
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_yield() {}

#[unsafe(no_mangle)]
pub extern "C" fn sys_available_parallelism() -> usize {
    1
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_get_processor_count() -> usize {
    1
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_getpid() -> u32 {
    1
}

/// Waits while `*address == expected`. No other thread can run while this one
/// waits, so the value can never change: with a timeout the wait times out (the
/// clock advances by the timeout, `time.rs`); without one, the program is
/// deadlocked.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_futex_wait(
    address: *mut u32,
    expected: u32,
    timeout: *const crate::time::Timespec,
    flags: u32,
) -> i32 {
    // SAFETY: std passes a valid futex word.
    if unsafe { core::ptr::read_volatile(address) } != expected {
        return -EAGAIN;
    }
    if timeout.is_null() {
        crate::io::fatal(
            "deadlock: a thread waits for an event that no thread can cause (threads run to \
             completion when they are spawned; sysroot/README.md)",
        );
    }
    // SAFETY: a valid timespec from std.
    unsafe { crate::time::wait(&*timeout, flags) };
    -ETIMEDOUT
}

/// Nobody ever waits (see `sys_futex_wait`).
#[unsafe(no_mangle)]
pub extern "C" fn sys_futex_wake(_address: *mut u32, _count: i32) -> i32 {
    0
}
