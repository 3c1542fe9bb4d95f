use std::collections::BTreeMap;

use proptest::prelude::*;

use crate::heap::{Grow, Heap, class_of};

/// A heap over a host buffer; grows up to its capacity.
struct Buffer {
    base: usize,
    capacity: usize,
    grows: usize,
}

impl Grow for Buffer {
    fn grow(&mut self, _end: usize, new_end: usize) -> Option<usize> {
        self.grows += 1;
        if new_end <= self.base + self.capacity {
            Some(new_end)
        } else {
            None
        }
    }
}

fn heap(memory: &mut Vec<u64>) -> Heap<Buffer> {
    // Start the heap at a page boundary inside the buffer, like the break.
    let raw = memory.as_mut_ptr() as usize;
    let base = (raw + 4095) & !4095;
    let capacity = memory.len() * 8 - (base - raw);
    Heap::new(
        Buffer {
            base,
            capacity,
            grows: 0,
        },
        base,
    )
}

#[test]
fn classes_are_powers_of_two_covering_size_and_alignment() {
    assert_eq!(class_of(0, 1), Some(4));
    assert_eq!(class_of(16, 8), Some(4));
    assert_eq!(class_of(17, 8), Some(5));
    assert_eq!(class_of(1, 64), Some(6));
    assert_eq!(class_of(4097, 16), Some(13));
    assert_eq!(class_of(usize::MAX, 1), None);
}

#[test]
fn freed_blocks_are_reused_and_realloc_in_class_keeps_the_block() {
    let mut memory = vec![0u64; 1 << 16];
    let mut h = heap(&mut memory);
    unsafe {
        let a = h.alloc(24, 8);
        let b = h.alloc(24, 8);
        assert_ne!(a, b);
        h.free(a, 24, 8);
        assert_eq!(h.alloc(30, 8), a, "a freed block of the class is reused");
        assert_eq!(h.realloc(b, 24, 8, 32), b, "24 and 32 bytes share class 32");
        let c = h.realloc(b, 32, 8, 100);
        assert_ne!(c, b);
        assert_eq!(h.alloc(20, 8), b, "realloc freed the old block");
    }
}

#[test]
fn exhaustion_returns_null() {
    let mut memory = vec![0u64; 1 << 14];
    let mut h = heap(&mut memory);
    unsafe {
        assert!(h.alloc(1 << 20, 8).is_null());
        assert!(
            !h.alloc(64, 8).is_null(),
            "a failed request leaves the heap usable"
        );
    }
}

#[derive(Debug, Clone)]
enum Op {
    Alloc { size: usize, align_log2: u32 },
    Free { pick: usize },
    Realloc { pick: usize, size: usize },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0usize..3000, 0u32..13).prop_map(|(size, align_log2)| Op::Alloc { size, align_log2 }),
        any::<usize>().prop_map(|pick| Op::Free { pick }),
        (any::<usize>(), 0usize..5000).prop_map(|(pick, size)| Op::Realloc { pick, size }),
    ]
}

proptest! {
    /// Random allocation sequences: every live block is aligned, inside the heap,
    /// disjoint from every other live block, and keeps its contents (a fill
    /// pattern) across other operations and across realloc.
    #[test]
    fn live_blocks_are_aligned_disjoint_and_keep_their_contents(ops in prop::collection::vec(op(), 1..300)) {
        let mut memory = vec![0u64; 1 << 19];
        let mut h = heap(&mut memory);
        // start -> (size, align, fill byte)
        let mut live: BTreeMap<usize, (usize, usize, u8)> = BTreeMap::new();
        let mut fill = 0u8;
        for op in ops {
            unsafe {
                match op {
                    Op::Alloc { size, align_log2 } => {
                        let align = 1usize << align_log2;
                        let p = h.alloc(size, align);
                        prop_assert!(!p.is_null());
                        prop_assert_eq!(p as usize % align, 0);
                        fill = fill.wrapping_add(1);
                        std::ptr::write_bytes(p, fill, size);
                        live.insert(p as usize, (size, align, fill));
                    }
                    Op::Free { pick } if !live.is_empty() => {
                        let start = *live.keys().nth(pick % live.len()).unwrap();
                        let (size, align, byte) = live.remove(&start).unwrap();
                        let bytes = std::slice::from_raw_parts(start as *const u8, size);
                        prop_assert!(bytes.iter().all(|&b| b == byte));
                        h.free(start as *mut u8, size, align);
                    }
                    Op::Realloc { pick, size: new_size } if !live.is_empty() => {
                        let start = *live.keys().nth(pick % live.len()).unwrap();
                        let (size, align, byte) = live.remove(&start).unwrap();
                        let p = h.realloc(start as *mut u8, size, align, new_size);
                        prop_assert!(!p.is_null());
                        prop_assert_eq!(p as usize % align, 0);
                        let kept = std::slice::from_raw_parts(p as *const u8, size.min(new_size));
                        prop_assert!(kept.iter().all(|&b| b == byte), "realloc kept the contents");
                        std::ptr::write_bytes(p, byte, new_size);
                        live.insert(p as usize, (new_size, align, byte));
                    }
                    _ => {}
                }
            }
            // Disjoint: each block ends before the next one starts.
            let mut prev_end = 0;
            for (&start, &(size, _, _)) in &live {
                prop_assert!(start >= prev_end, "blocks overlap");
                prev_end = start + size;
            }
        }
    }
}
