//! The heap behind `sys_malloc`, `sys_free` and `sys_realloc`: segregated free lists
//! of power-of-two size classes over memory taken from the program break.
//!
//! std tells the allocator the size and alignment of every block it frees
//! (hermit's interface passes them), so blocks need no header: a block's class is
//! computed again from the layout. A class is `max(size, align, 16)` rounded up to a
//! power of two; a free block stores the next free block of its class in its first
//! word. Waste is under 2x, allocation and release are O(1), and growing a `Vec` by
//! doubling reuses the classes exactly.
//!
//! New blocks are cut from the *wilderness*, the end of the heap, aligned to
//! `min(class, 4096)`, which satisfies every alignment up to the class for
//! alignments up to a page; a larger alignment is checked when a free block is
//! reused (and a fresh block cut if it does not fit). The wilderness grows through
//! `Grow` in steps of at least 64 KiB.
//!
//! This file is plain `core` code, unit-tested on the host by the workspace crate
//! `vliw-runtime-tests` (it includes this file), so that the logic is tested where a
//! failure is easy to read.

/// Where the heap gets memory from: the program break on the machine, a buffer in
/// the host tests.
pub trait Grow {
    /// Extends the heap's end from `end` to at least `new_end` and returns the new
    /// end, or `None` when memory is exhausted.
    fn grow(&mut self, end: usize, new_end: usize) -> Option<usize>;
}

/// Smallest block: two words, so that a free block can hold its link.
const MIN_CLASS_LOG2: u32 = 4;
/// Classes 2^4 .. 2^63.
const CLASSES: usize = 64;
const PAGE: usize = 4096;
/// The least the wilderness grows by, so that the break moves rarely.
const GROW_STEP: usize = 64 << 10;

pub struct Heap<G: Grow> {
    grow: G,
    /// First free block of each class (0: none).
    free: [usize; CLASSES],
    /// The unused memory at the end of the heap: `[wild, end)`.
    wild: usize,
    end: usize,
    /// Counters for the statistics and the tests.
    pub allocated_bytes: usize,
}

/// The class (log2 of the block size) of a block for `size` bytes aligned to
/// `align`, or `None` when no block can be that large.
pub fn class_of(size: usize, align: usize) -> Option<u32> {
    let need = size.max(align).max(1 << MIN_CLASS_LOG2);
    let block = need.checked_next_power_of_two()?;
    let log2 = block.trailing_zeros();
    if (log2 as usize) < CLASSES {
        Some(log2)
    } else {
        None
    }
}

impl<G: Grow> Heap<G> {
    /// An empty heap whose memory starts at `start`.
    pub const fn new(grow: G, start: usize) -> Heap<G> {
        Heap {
            grow,
            free: [0; CLASSES],
            wild: start,
            end: start,
            allocated_bytes: 0,
        }
    }

    /// A block of at least `size` bytes aligned to `align` (a power of two), or null.
    ///
    /// # Safety
    /// The heap's memory must be readable and writable (what `Grow` returned).
    pub unsafe fn alloc(&mut self, size: usize, align: usize) -> *mut u8 {
        let Some(class) = class_of(size, align) else {
            return core::ptr::null_mut();
        };
        let block_size = 1usize << class;
        let head = self.free[class as usize];
        if head != 0 && head % align == 0 {
            // SAFETY: a free block of this class holds the next one in its first word.
            self.free[class as usize] = unsafe { *(head as *const usize) };
            self.allocated_bytes += block_size;
            return head as *mut u8;
        }
        let block_align = block_size.min(PAGE).max(align);
        let Some(start) = align_up(self.wild, block_align) else {
            return core::ptr::null_mut();
        };
        let Some(block_end) = start.checked_add(block_size) else {
            return core::ptr::null_mut();
        };
        if block_end > self.end {
            let want = block_end.max(self.end.saturating_add(GROW_STEP));
            match self.grow.grow(self.end, want) {
                Some(new_end) if new_end >= block_end => self.end = new_end,
                _ => return core::ptr::null_mut(),
            }
        }
        // The bytes skipped for alignment become free blocks of their own, so that
        // aligning large blocks wastes nothing.
        self.release_range(self.wild, start);
        self.wild = block_end;
        self.allocated_bytes += block_size;
        start as *mut u8
    }

    /// Returns a block to its class's free list.
    ///
    /// # Safety
    /// `ptr` came from `alloc(size, align)` (or `realloc` to `size`) of this heap and
    /// is not used afterwards.
    pub unsafe fn free(&mut self, ptr: *mut u8, size: usize, align: usize) {
        if ptr.is_null() {
            return;
        }
        let Some(class) = class_of(size, align) else {
            return;
        };
        self.allocated_bytes -= 1usize << class;
        // SAFETY: the block is at least two words long and no longer in use.
        unsafe { self.push(class, ptr as usize) };
    }

    /// Resizes a block: the same block while its class does not change, else a
    /// new block with the contents copied.
    ///
    /// # Safety
    /// As for `free`; on success the old pointer must not be used again.
    pub unsafe fn realloc(
        &mut self,
        ptr: *mut u8,
        size: usize,
        align: usize,
        new_size: usize,
    ) -> *mut u8 {
        if class_of(size, align) == class_of(new_size, align) && !ptr.is_null() {
            return ptr;
        }
        // SAFETY: the caller's guarantees; the two blocks are distinct.
        unsafe {
            let new = self.alloc(new_size, align);
            if !new.is_null() {
                if !ptr.is_null() {
                    core::ptr::copy_nonoverlapping(ptr, new, size.min(new_size));
                }
                self.free(ptr, size, align);
            }
            new
        }
    }

    /// Splits `[from, to)` (the gap left by aligning the wilderness) into the
    /// largest aligned power-of-two blocks and frees them.
    fn release_range(&mut self, mut from: usize, to: usize) {
        while to - from >= 1 << MIN_CLASS_LOG2 {
            // The largest block that starts at `from` (alignment) and fits.
            let by_align = if from == 0 {
                usize::BITS - 1
            } else {
                from.trailing_zeros()
            };
            let by_room = usize::BITS - 1 - (to - from).leading_zeros();
            let class = by_align.min(by_room);
            if class < MIN_CLASS_LOG2 {
                break;
            }
            // SAFETY: the range is heap memory nobody uses.
            unsafe { self.push(class, from) };
            from += 1 << class;
        }
    }

    /// # Safety
    /// `block` is an unused block of class `class`.
    unsafe fn push(&mut self, class: u32, block: usize) {
        // SAFETY: the block is at least one word and ours.
        unsafe { *(block as *mut usize) = self.free[class as usize] };
        self.free[class as usize] = block;
    }
}

fn align_up(value: usize, align: usize) -> Option<usize> {
    Some(value.checked_add(align - 1)? & !(align - 1))
}
