//! The guest's memory: a few page-granular regions (the loaded segments, the heap,
//! the stack), each a byte vector, with the checks of every access.
//!
//! Memory map (`vliw_isa::abi`): nothing below `TEXT_BASE`; the segments, each
//! rounded out to whole pages; the heap from the end of the last segment (rounded up
//! to a page) to the break, grown by `brk` up to a limit; the stack
//! `[STACK_TOP - stack_size, STACK_TOP)` with an unmapped guard region of
//! `STACK_GUARD_SIZE` below it; below that the stacks of spawned threads, which the
//! simulator maps and unmaps. Text and read-only segments are not writable.

use crate::program::Segment;
use vliw_isa::abi::{PAGE_SIZE, STACK_GUARD_SIZE, STACK_TOP, TEXT_BASE};

/// Why an access failed (the caller adds the access kind and size).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MemError {
    Unmapped,
    ReadOnly,
    StackOverflow,
    Misaligned,
}

struct Region {
    /// Page-aligned.
    base: u64,
    /// A whole number of pages, except for the heap, whose length is the break
    /// rounded up to a page.
    data: Vec<u8>,
    writable: bool,
}

/// A zero-filled byte vector, allocated lazily by the host (calloc), or an error if
/// the host cannot provide it: a guest asking for a huge stack or segment must get a
/// message, not an abort.
fn zeroed_vec(len: u64) -> Result<Vec<u8>, String> {
    let n = usize::try_from(len)
        .map_err(|_| format!("{len:#x} bytes do not fit in the host's address space"))?;
    if n == 0 {
        return Ok(Vec::new());
    }
    let layout = std::alloc::Layout::array::<u8>(n)
        .map_err(|_| format!("{len:#x} bytes do not fit in the host's address space"))?;
    // SAFETY: `layout` has a non-zero size. A non-null result is a zeroed allocation
    // of exactly `n` bytes with the alignment of `u8` from the global allocator,
    // which is what `Vec<u8>` with capacity `n` owns, and all `n` bytes are
    // initialized (zero).
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout);
        if ptr.is_null() {
            return Err(format!("the host cannot allocate {len:#x} bytes"));
        }
        Ok(Vec::from_raw_parts(ptr, n, n))
    }
}

pub(crate) fn round_up(x: u64, align: u64) -> u64 {
    x.div_ceil(align).saturating_mul(align)
}

/// Where the regions of memory are, for the loader and tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryLayout {
    pub heap_start: u64,
    /// The highest break `brk` accepts.
    pub heap_limit: u64,
    /// Lowest stack address (the stack is `[stack_base, STACK_TOP)`).
    pub stack_base: u64,
    /// Lowest address of the guard region below the stack.
    pub guard_base: u64,
}

pub struct Memory {
    /// The stack first, then the heap, then the segments: the usual order of
    /// frequency of accesses, for the linear search of the fast path; then the
    /// stacks of spawned threads.
    regions: Vec<Region>,
    layout: MemoryLayout,
    brk: u64,
}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let regions: Vec<String> = self
            .regions
            .iter()
            .map(|r| {
                format!(
                    "{:#x}..{:#x}{}",
                    r.base,
                    r.base + r.data.len() as u64,
                    if r.writable { " rw" } else { " r" }
                )
            })
            .collect();
        f.debug_struct("Memory")
            .field("regions", &regions)
            .field("layout", &self.layout)
            .field("brk", &self.brk)
            .finish()
    }
}

const STACK: usize = 0;
const HEAP: usize = 1;

impl Memory {
    /// Maps the segments, an empty heap and the stack. `stack_size` is rounded up to
    /// a page; the heap may grow to `heap_size` bytes.
    pub(crate) fn new(
        segments: &[Segment],
        stack_size: u64,
        heap_size: u64,
    ) -> Result<Memory, String> {
        let stack_size = round_up(stack_size, PAGE_SIZE);
        if stack_size == 0 || stack_size > STACK_TOP - STACK_GUARD_SIZE - TEXT_BASE {
            return Err(format!("stack size {stack_size:#x} is out of range"));
        }
        let stack_base = STACK_TOP - stack_size;
        let guard_base = stack_base - STACK_GUARD_SIZE;

        let mut sorted: Vec<&Segment> = segments.iter().filter(|s| s.mem_size > 0).collect();
        sorted.sort_by_key(|s| s.vaddr);
        let mut regions = Vec::new();
        let mut prev_end = TEXT_BASE;
        for s in &sorted {
            if s.vaddr < TEXT_BASE {
                return Err(format!(
                    "segment at {:#x} lies below {TEXT_BASE:#x}, where nothing may be mapped",
                    s.vaddr
                ));
            }
            if s.data.len() as u64 > s.mem_size {
                return Err(format!(
                    "segment at {:#x} has more data than its memory size",
                    s.vaddr
                ));
            }
            let base = s.vaddr / PAGE_SIZE * PAGE_SIZE;
            let end = s
                .vaddr
                .checked_add(s.mem_size)
                .map(|e| round_up(e, PAGE_SIZE))
                .unwrap_or(u64::MAX);
            if end > guard_base {
                return Err(format!(
                    "segment at {:#x} ({:#x} bytes) overlaps the stack or its guard region (from {guard_base:#x})",
                    s.vaddr, s.mem_size
                ));
            }
            if base < prev_end && !regions.is_empty() {
                return Err(format!(
                    "segment at {:#x} shares a page with the segment before it",
                    s.vaddr
                ));
            }
            let mut data =
                zeroed_vec(end - base).map_err(|e| format!("segment at {:#x}: {e}", s.vaddr))?;
            let offset = (s.vaddr - base) as usize;
            data[offset..offset + s.data.len()].copy_from_slice(&s.data);
            regions.push(Region {
                base,
                data,
                writable: s.write && !s.execute,
            });
            prev_end = end;
        }
        let heap_start = round_up(prev_end, PAGE_SIZE);
        if heap_start >= guard_base {
            return Err("no room for the heap below the stack".to_string());
        }
        let heap_limit = heap_start.saturating_add(heap_size).min(guard_base);
        let stack =
            zeroed_vec(stack_size).map_err(|e| format!("stack of {stack_size:#x} bytes: {e}"))?;
        // Writable regions first among the segments, then the read-only ones.
        regions.sort_by_key(|r| !r.writable);
        regions.insert(
            STACK,
            Region {
                base: stack_base,
                data: stack,
                writable: true,
            },
        );
        regions.insert(
            HEAP,
            Region {
                base: heap_start,
                data: Vec::new(),
                writable: true,
            },
        );
        Ok(Memory {
            regions,
            layout: MemoryLayout {
                heap_start,
                heap_limit,
                stack_base,
                guard_base,
            },
            brk: heap_start,
        })
    }

    /// Maps a zero-filled writable region of `size` bytes (a multiple of the page
    /// size) at `base` (page-aligned, free, below the stack's guard region and above
    /// the heap's limit): a spawned thread's stack. `None` when the host cannot
    /// provide it.
    pub(crate) fn map_thread_stack(&mut self, base: u64, size: u64) -> Option<()> {
        let data = zeroed_vec(size).ok()?;
        self.regions.push(Region {
            base,
            data,
            writable: true,
        });
        Some(())
    }

    /// Unmaps the thread stack at `base`.
    pub(crate) fn unmap_thread_stack(&mut self, base: u64) {
        if let Some(i) = self
            .regions
            .iter()
            .skip(HEAP + 1)
            .position(|r| r.base == base)
        {
            self.regions.remove(HEAP + 1 + i);
        }
    }

    pub fn layout(&self) -> MemoryLayout {
        self.layout
    }

    /// The current break (end of the heap).
    pub fn current_brk(&self) -> u64 {
        self.brk
    }

    /// `brk(request)`: moves the break when `heap_start <= request <= heap_limit` (and
    /// the host can provide the memory); returns the break after the call. Memory
    /// above a lowered break is discarded and reads as zero when the break grows again.
    pub fn brk(&mut self, request: u64) -> u64 {
        let MemoryLayout {
            heap_start,
            heap_limit,
            ..
        } = self.layout;
        if request == 0 || request < heap_start || request > heap_limit {
            return self.brk;
        }
        let Ok(new_len) = usize::try_from(round_up(request - heap_start, PAGE_SIZE)) else {
            return self.brk;
        };
        let heap = &mut self.regions[HEAP].data;
        if new_len > heap.len() {
            if heap.try_reserve(new_len - heap.len()).is_err() {
                return self.brk;
            }
            heap.resize(new_len, 0);
        } else {
            heap.truncate(new_len);
        }
        self.brk = request;
        self.brk
    }

    /// The region and offset of `[addr, addr + len)` if it lies in one region.
    fn find(&self, addr: u64, len: u64) -> Option<(usize, usize)> {
        self.regions.iter().enumerate().find_map(|(i, r)| {
            let off = addr.checked_sub(r.base)?;
            let end = off.checked_add(len)?;
            (end <= r.data.len() as u64).then_some((i, off as usize))
        })
    }

    /// Why an access of `size` bytes at `addr` fails (the fast path said it does).
    #[cold]
    fn classify(&self, addr: u64, size: u64, write: bool) -> MemError {
        match self.find(addr, 1) {
            Some(_) if !addr.is_multiple_of(size) => MemError::Misaligned,
            Some((i, _)) if write && !self.regions[i].writable => MemError::ReadOnly,
            Some(_) => MemError::Misaligned, // straddles the end of a region
            None if (self.layout.guard_base..self.layout.stack_base).contains(&addr) => {
                MemError::StackOverflow
            }
            None => MemError::Unmapped,
        }
    }

    /// Loads `N` bytes (1, 2, 4 or 8), zero-extended.
    #[inline(always)]
    pub(crate) fn load<const N: usize>(&self, addr: u64) -> Result<u64, MemError> {
        if addr & (N as u64 - 1) == 0 {
            for r in &self.regions {
                let off = addr.wrapping_sub(r.base);
                if off < r.data.len() as u64 {
                    // Aligned, and region lengths are multiples of 8: the access fits.
                    let off = off as usize;
                    let mut bytes = [0u8; 8];
                    bytes[..N].copy_from_slice(&r.data[off..off + N]);
                    return Ok(u64::from_le_bytes(bytes));
                }
            }
        }
        Err(self.classify(addr, N as u64, false))
    }

    /// Stores the low `N` bytes of `value`.
    #[inline(always)]
    pub(crate) fn store<const N: usize>(&mut self, addr: u64, value: u64) -> Result<(), MemError> {
        let (i, off) = self.check_store::<N>(addr)?;
        self.commit(i, off, N, value);
        Ok(())
    }

    /// Checks that `N` bytes at `addr` can be written; returns where they are.
    #[inline(always)]
    pub(crate) fn check_store<const N: usize>(
        &self,
        addr: u64,
    ) -> Result<(usize, usize), MemError> {
        if addr & (N as u64 - 1) == 0 {
            for (i, r) in self.regions.iter().enumerate() {
                let off = addr.wrapping_sub(r.base);
                if off < r.data.len() as u64 {
                    if !r.writable {
                        break;
                    }
                    return Ok((i, off as usize));
                }
            }
        }
        Err(self.classify(addr, N as u64, true))
    }

    /// Reads `size` bytes at a place `check_store` returned.
    #[inline(always)]
    pub(crate) fn read_at(&self, region: usize, off: usize, size: usize) -> u64 {
        let mut bytes = [0u8; 8];
        bytes[..size].copy_from_slice(&self.regions[region].data[off..off + size]);
        u64::from_le_bytes(bytes)
    }

    /// Writes the low `size` bytes of `value` at a place `check_store` returned.
    #[inline(always)]
    pub(crate) fn commit(&mut self, region: usize, off: usize, size: usize, value: u64) {
        self.regions[region].data[off..off + size].copy_from_slice(&value.to_le_bytes()[..size]);
    }

    /// The bytes `[addr, addr + len)` if they are mapped (in one region).
    pub fn slice(&self, addr: u64, len: u64) -> Option<&[u8]> {
        let (i, off) = self.find(addr, len)?;
        Some(&self.regions[i].data[off..off + len as usize])
    }

    /// The bytes `[addr, addr + len)` if they are mapped and writable.
    pub fn slice_mut(&mut self, addr: u64, len: u64) -> Option<&mut [u8]> {
        let (i, off) = self.find(addr, len)?;
        let r = &mut self.regions[i];
        r.writable.then(|| &mut r.data[off..off + len as usize])
    }

    /// Reads a little-endian value of `size` bytes, with the guest's checks.
    pub fn read(&self, addr: u64, size: u8) -> Option<u64> {
        match size {
            1 => self.load::<1>(addr).ok(),
            2 => self.load::<2>(addr).ok(),
            4 => self.load::<4>(addr).ok(),
            8 => self.load::<8>(addr).ok(),
            _ => None,
        }
    }

    /// Writes `bytes` at `addr` if the range is mapped and writable.
    pub fn write_bytes(&mut self, addr: u64, bytes: &[u8]) -> bool {
        match self.slice_mut(addr, bytes.len() as u64) {
            Some(s) => {
                s.copy_from_slice(bytes);
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory() -> Memory {
        let segments = [
            Segment::text(0x10000, &[0; 4]),
            Segment::read_only(0x11000, vec![1, 2, 3, 4]),
            Segment::data(0x12000, vec![5, 6, 7, 8, 9, 10, 11, 12], 0x2000),
        ];
        Memory::new(&segments, 0x10000, 0x100000).unwrap()
    }

    #[test]
    fn loads_stores_and_their_faults() {
        let mut m = memory();
        assert_eq!(m.load::<4>(0x11000), Ok(0x04030201));
        assert_eq!(m.load::<8>(0x12000), Ok(0x0c0b0a0908070605));
        assert_eq!(m.load::<8>(0x13ff8), Ok(0), "bss is zero");
        assert_eq!(
            m.load::<8>(0x11ff8),
            Ok(0),
            "the rest of a segment's page is mapped"
        );
        assert_eq!(m.load::<8>(0x12004), Err(MemError::Misaligned));
        assert_eq!(m.load::<1>(0x0), Err(MemError::Unmapped));
        assert_eq!(m.load::<1>(0x14000), Err(MemError::Unmapped));
        assert_eq!(m.store::<2>(0x12002, 0xbeef), Ok(()));
        assert_eq!(m.load::<2>(0x12002), Ok(0xbeef));
        assert_eq!(m.store::<8>(0x10000, 1), Err(MemError::ReadOnly), "text");
        assert_eq!(m.store::<1>(0x11000, 1), Err(MemError::ReadOnly));
        assert_eq!(m.store::<4>(0x11002, 1), Err(MemError::Misaligned));
        let l = m.layout();
        assert_eq!(l.heap_start, 0x14000);
        assert_eq!(l.stack_base, STACK_TOP - 0x10000);
        assert_eq!(m.store::<8>(STACK_TOP - 8, 7), Ok(()));
        assert_eq!(m.load::<8>(STACK_TOP), Err(MemError::Unmapped));
        assert_eq!(
            m.store::<8>(l.stack_base - 8, 7),
            Err(MemError::StackOverflow)
        );
        assert_eq!(m.load::<1>(l.guard_base), Err(MemError::StackOverflow));
        assert_eq!(m.load::<1>(l.guard_base - 1), Err(MemError::Unmapped));
    }

    #[test]
    fn thread_stacks_are_mapped_and_unmapped() {
        let mut m = memory();
        let base = m.layout().guard_base - 0x3000;
        assert_eq!(m.map_thread_stack(base, 0x2000), Some(()));
        assert_eq!(m.store::<8>(base + 0x1ff8, 5), Ok(()));
        assert_eq!(m.load::<8>(base), Ok(0));
        assert_eq!(m.load::<8>(base + 0x2000), Err(MemError::Unmapped));
        m.unmap_thread_stack(base);
        assert_eq!(m.load::<8>(base), Err(MemError::Unmapped));
        assert_eq!(
            m.store::<8>(STACK_TOP - 8, 7),
            Ok(()),
            "the main stack stays"
        );
    }

    #[test]
    fn brk_grows_and_shrinks_the_heap() {
        let mut m = memory();
        let start = m.layout().heap_start;
        assert_eq!(m.brk(0), start);
        assert_eq!(m.load::<1>(start), Err(MemError::Unmapped));
        assert_eq!(m.brk(start + 10), start + 10);
        assert_eq!(
            m.store::<8>(start + 0xff8, 3),
            Ok(()),
            "the break's page is mapped"
        );
        assert_eq!(m.load::<8>(start + 0x1000), Err(MemError::Unmapped));
        assert_eq!(m.brk(start - 1), start + 10, "below the heap: unchanged");
        assert_eq!(
            m.brk(start + 0x100001),
            start + 10,
            "over the limit: unchanged"
        );
        assert_eq!(m.brk(start + 0x100000), start + 0x100000);
        assert_eq!(m.brk(start), start);
        assert_eq!(m.brk(start + 0x1000), start + 0x1000);
        assert_eq!(
            m.load::<8>(start + 0xff8),
            Ok(0),
            "memory above a lowered break is discarded"
        );
    }

    #[test]
    fn bad_layouts_are_rejected() {
        assert!(
            Memory::new(&[Segment::text(0x1000, &[0])], 0x1000, 0)
                .unwrap_err()
                .contains("below")
        );
        let huge = Segment::data(0x20000, vec![], STACK_TOP);
        assert!(
            Memory::new(&[huge], 0x1000, 0)
                .unwrap_err()
                .contains("overlaps the stack")
        );
        let a = Segment::text(0x10000, &[0]);
        let b = Segment::data(0x10800, vec![], 8);
        assert!(
            Memory::new(&[a, b], 0x1000, 0)
                .unwrap_err()
                .contains("shares a page")
        );
    }
}
