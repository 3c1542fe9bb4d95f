//! Threads, thread-local storage and futexes over the simulator's thread calls
//! (docs/isa.md §7, "Threads").
//!
//! The simulator runs the guest threads on its one core, switching between them
//! when one blocks (a futex wait, a join, a sleep) and after a quantum of cycles.
//! `sys_spawn2` allocates the new thread's TLS block (a copy of the TLS image,
//! docs/isa.md §6) from the heap and asks the simulator for a thread on a stack of
//! std's requested size (at least `MIN_STACK`), which the simulator maps with a
//! guard region below it and unmaps when the thread ends. The thread starts at
//! `__vliw_thread_start` (crt0.s), which calls the thread's function and ends the
//! thread when it returns. `sys_join` waits for the thread in the simulator and
//! then frees its TLS block (a thread that is never joined keeps it). Futex waits and wakes, yields and sleeps are the
//! simulator's; a wait that no thread can end is the simulator's deadlock fault.
//!
//! The runtime's own shared state (the heap, the table of threads) is guarded by
//! `SpinLock`, which yields to the other threads while it is taken: a thread can
//! be preempted anywhere.

use core::sync::atomic::{AtomicU32, Ordering};

use crate::machine::{
    __vliw_sys_futex_wait, __vliw_sys_futex_wake, __vliw_sys_join, __vliw_sys_spawn,
    __vliw_sys_yield, __vliw_thread_start, tls_image,
};
use crate::memory::{sys_free, sys_malloc};

pub type Tid = u32;

/// The smallest stack a thread gets.
const MIN_STACK: usize = 64 << 10;

/// A lock for the runtime's own state: taken by an atomic swap; a thread that
/// finds it taken yields until the holder has released it.
pub struct SpinLock(AtomicU32);

impl SpinLock {
    pub const fn new() -> SpinLock {
        SpinLock(AtomicU32::new(0))
    }

    pub fn lock(&self) {
        while self.0.swap(1, Ordering::Acquire) != 0 {
            // SAFETY: a system call without memory arguments.
            unsafe { __vliw_sys_yield() };
        }
    }

    pub fn unlock(&self) {
        self.0.store(0, Ordering::Release);
    }
}

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

unsafe fn free_tls_block(block: *mut u8) {
    let (_, _, size, align) = tls_image();
    // SAFETY: allocated by `new_tls_block` with this layout.
    unsafe { sys_free(block, size.max(1), align) }
}

/// What a spawned thread owns, freed when it is joined: its TLS block (the
/// simulator unmaps its stack when it ends).
struct ThreadRecord {
    tid: Tid,
    tls: *mut u8,
    next: *mut ThreadRecord,
}

/// The spawned threads not yet joined (a list, newest first), under `THREADS_LOCK`.
static mut THREADS: *mut ThreadRecord = core::ptr::null_mut();
static THREADS_LOCK: SpinLock = SpinLock::new();

const RECORD_SIZE: usize = size_of::<ThreadRecord>();
const RECORD_ALIGN: usize = align_of::<ThreadRecord>();

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_spawn2(
    func: extern "C" fn(usize),
    arg: usize,
    _prio: u8,
    stack_size: usize,
    _core_id: isize,
) -> Tid {
    // SAFETY: fresh allocations, freed on every failure path and by `sys_join`.
    unsafe {
        let tls = new_tls_block();
        let record = sys_malloc(RECORD_SIZE, RECORD_ALIGN) as *mut ThreadRecord;
        if tls.is_null() || record.is_null() {
            if !tls.is_null() {
                free_tls_block(tls);
            }
            if !record.is_null() {
                sys_free(record as *mut u8, RECORD_SIZE, RECORD_ALIGN);
            }
            return 0;
        }
        let tid = __vliw_sys_spawn(
            __vliw_thread_start as usize,
            stack_size.max(MIN_STACK),
            tls as usize,
            arg,
            func as usize,
        );
        if tid <= 0 {
            free_tls_block(tls);
            sys_free(record as *mut u8, RECORD_SIZE, RECORD_ALIGN);
            return 0;
        }
        THREADS_LOCK.lock();
        record.write(ThreadRecord {
            tid: tid as Tid,
            tls,
            next: THREADS,
        });
        THREADS = record;
        THREADS_LOCK.unlock();
        tid as Tid
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

/// Waits until thread `id` has ended, then frees its TLS block.
#[unsafe(no_mangle)]
pub extern "C" fn sys_join(id: Tid) -> i32 {
    // SAFETY: a system call without memory arguments.
    let result = unsafe { __vliw_sys_join(u64::from(id)) };
    if result < 0 {
        return result as i32;
    }
    // SAFETY: the list is only touched under the lock; the thread has ended, so
    // nothing uses its stack or TLS block any more.
    unsafe {
        THREADS_LOCK.lock();
        let mut link = &raw mut THREADS;
        let mut found = core::ptr::null_mut();
        while !(*link).is_null() {
            if (**link).tid == id {
                found = *link;
                *link = (*found).next;
                break;
            }
            link = &raw mut (**link).next;
        }
        THREADS_LOCK.unlock();
        if !found.is_null() {
            free_tls_block((*found).tls);
            sys_free(found as *mut u8, RECORD_SIZE, RECORD_ALIGN);
        }
    }
    0
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_yield() {
    // SAFETY: a system call without memory arguments.
    unsafe { __vliw_sys_yield() };
}

/// The machine has one core, which the simulator shares among the threads: more
/// threads do not make a program faster (and libtest, for one, runs one test at a
/// time when told 1).
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

/// Waits while `*address == expected`, until a wake or the timeout (relative
/// with `FUTEX_RELATIVE_TIMEOUT`, else an absolute time of the monotonic clock).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_futex_wait(
    address: *mut u32,
    expected: u32,
    timeout: *const crate::time::Timespec,
    flags: u32,
) -> i32 {
    let timeout_ns = if timeout.is_null() {
        u64::MAX
    } else {
        // SAFETY: a valid timespec from std.
        crate::time::timeout_ns(unsafe { &*timeout }, flags)
    };
    // SAFETY: the simulator checks the address (-EFAULT, -EINVAL).
    // 0 after a wake, -EAGAIN, -ETIMEDOUT
    unsafe { __vliw_sys_futex_wait(address, expected, timeout_ns) as i32 }
}

/// Wakes up to `count` threads waiting on `address`; returns how many.
#[unsafe(no_mangle)]
pub extern "C" fn sys_futex_wake(address: *mut u32, count: i32) -> i32 {
    // SAFETY: no memory is accessed by the call.
    unsafe { __vliw_sys_futex_wake(address, i64::from(count)) as i32 }
}
