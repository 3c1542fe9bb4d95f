//! `sys_malloc`, `sys_free`, `sys_realloc` (std's global allocator on hermit): the
//! size-class heap of `heap.rs` over the program break.

use crate::heap::{Grow, Heap};
use crate::machine::__vliw_sys_brk;
use crate::thread::SpinLock;

/// Moves the program break (docs/isa.md §7: the heap starts empty after the last
/// segment; `brk` refuses requests past the limit by returning the old break).
pub struct ProgramBreak;

impl Grow for ProgramBreak {
    fn grow(&mut self, end: usize, new_end: usize) -> Option<usize> {
        // SAFETY: moving the break has no effect on memory in use.
        let got = unsafe { __vliw_sys_brk(new_end) };
        if got >= new_end && got > end {
            Some(got)
        } else {
            None
        }
    }
}

/// The heap, created on first use from the break's initial position, under
/// `HEAP_LOCK` (threads may be preempted anywhere, thread.rs).
static mut HEAP: Option<Heap<ProgramBreak>> = None;
static HEAP_LOCK: SpinLock = SpinLock::new();

/// Runs `f` on the heap with the lock held.
#[allow(static_mut_refs)]
fn with_heap<R>(f: impl FnOnce(&mut Heap<ProgramBreak>) -> R) -> R {
    HEAP_LOCK.lock();
    // SAFETY: the lock gives this thread the heap, and no allocator call re-enters.
    let result = unsafe {
        if HEAP.is_none() {
            let start = __vliw_sys_brk(0);
            HEAP = Some(Heap::new(ProgramBreak, start));
        }
        f(HEAP.as_mut().unwrap_unchecked())
    };
    HEAP_LOCK.unlock();
    result
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_malloc(size: usize, align: usize) -> *mut u8 {
    // SAFETY: the heap's memory is the break's.
    with_heap(|h| unsafe { h.alloc(size, align) })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_alloc(size: usize, align: usize) -> *mut u8 {
    unsafe { sys_malloc(size, align) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_alloc_zeroed(size: usize, align: usize) -> *mut u8 {
    unsafe {
        let p = sys_malloc(size, align);
        if !p.is_null() {
            core::ptr::write_bytes(p, 0, size);
        }
        p
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_free(ptr: *mut u8, size: usize, align: usize) {
    // SAFETY: std frees what it allocated, with the same layout.
    with_heap(|h| unsafe { h.free(ptr, size, align) })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_dealloc(ptr: *mut u8, size: usize, align: usize) {
    unsafe { sys_free(ptr, size, align) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_realloc(
    ptr: *mut u8,
    size: usize,
    align: usize,
    new_size: usize,
) -> *mut u8 {
    // SAFETY: as for free.
    with_heap(|h| unsafe { h.realloc(ptr, size, align, new_size) })
}
