//! A fixed-universe bit set: the representation of live sets (over variables) and of
//! reachability sets (over blocks).
//!
//! Sparse: only the words with a member are held, in increasing order. A live set
//! over the virtual registers of a large function has a few dozen members among
//! hundreds of thousands of registers, and one dense set per block made the memory
//! and time of liveness grow with blocks × registers (3 GB for a function of 16 000
//! statements); held sparsely they grow with the members. Membership is a binary
//! search over the held words, union and difference a merge.

use std::fmt;

/// A set of indices in `0..universe`.
///
/// Membership queries outside the universe answer `false`, so a set built before new
/// variables were created can still be asked about them.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct BitSet {
    /// The words with at least one member, by increasing index: (index of the word,
    /// its bits). No zero word is held, so equal sets are equal vectors.
    words: Vec<(u32, u64)>,
    universe: usize,
}

const BITS: usize = 64;

/// The word of `i` and its bit in it.
fn split(i: usize) -> (u32, u64) {
    ((i / BITS) as u32, 1u64 << (i % BITS))
}

impl BitSet {
    /// The empty set over `0..universe`.
    pub fn new(universe: usize) -> Self {
        assert!(
            universe.div_ceil(BITS) <= u32::MAX as usize,
            "a universe of {universe} is too large"
        );
        BitSet {
            words: Vec::new(),
            universe,
        }
    }

    /// The size of the universe (not the number of members).
    pub fn universe(&self) -> usize {
        self.universe
    }

    fn find(&self, word: u32) -> Result<usize, usize> {
        self.words.binary_search_by_key(&word, |&(w, _)| w)
    }

    /// Adds `i`; returns whether it was absent. Panics if `i` is outside the universe.
    pub fn insert(&mut self, i: usize) -> bool {
        assert!(
            i < self.universe,
            "bit {i} outside a universe of {}",
            self.universe
        );
        let (w, m) = split(i);
        match self.find(w) {
            Ok(k) => {
                let absent = self.words[k].1 & m == 0;
                self.words[k].1 |= m;
                absent
            }
            Err(k) => {
                self.words.insert(k, (w, m));
                true
            }
        }
    }

    /// Removes `i`; returns whether it was present.
    pub fn remove(&mut self, i: usize) -> bool {
        if i >= self.universe {
            return false;
        }
        let (w, m) = split(i);
        let Ok(k) = self.find(w) else {
            return false;
        };
        let present = self.words[k].1 & m != 0;
        self.words[k].1 &= !m;
        if self.words[k].1 == 0 {
            self.words.remove(k);
        }
        present
    }

    /// Whether `i` is a member (`false` outside the universe).
    pub fn contains(&self, i: usize) -> bool {
        if i >= self.universe {
            return false;
        }
        let (w, m) = split(i);
        self.find(w).is_ok_and(|k| self.words[k].1 & m != 0)
    }

    /// `self ∪= other`; returns whether `self` changed. Both sets must share a universe.
    pub fn union_with(&mut self, other: &BitSet) -> bool {
        debug_assert_eq!(self.universe, other.universe);
        if other.words.is_empty() {
            return false;
        }
        if self.words.is_empty() {
            self.words.clone_from(&other.words);
            return true;
        }
        // in place when every word of `other` is held already (the common case of a
        // fixpoint's later rounds), else a merge into a new vector
        let mut k = 0;
        let mut in_place = true;
        for &(w, _) in &other.words {
            while k < self.words.len() && self.words[k].0 < w {
                k += 1;
            }
            if k == self.words.len() || self.words[k].0 != w {
                in_place = false;
                break;
            }
        }
        let mut changed = false;
        if in_place {
            let mut k = 0;
            for &(w, bits) in &other.words {
                while self.words[k].0 < w {
                    k += 1;
                }
                let new = self.words[k].1 | bits;
                changed |= new != self.words[k].1;
                self.words[k].1 = new;
            }
            return changed;
        }
        let mut merged = Vec::with_capacity(self.words.len() + other.words.len());
        let (mut a, mut b) = (0, 0);
        while a < self.words.len() || b < other.words.len() {
            let x = self.words.get(a).copied();
            let y = other.words.get(b).copied();
            match (x, y) {
                (Some((wx, bx)), Some((wy, by))) if wx == wy => {
                    changed |= bx | by != bx;
                    merged.push((wx, bx | by));
                    a += 1;
                    b += 1;
                }
                (Some((wx, bx)), Some((wy, _))) if wx < wy => {
                    merged.push((wx, bx));
                    a += 1;
                }
                (Some(x), None) => {
                    merged.push(x);
                    a += 1;
                }
                (_, Some(y)) => {
                    changed = true;
                    merged.push(y);
                    b += 1;
                }
                (None, None) => unreachable!(),
            }
        }
        self.words = merged;
        changed
    }

    /// `self −= other`.
    pub fn subtract(&mut self, other: &BitSet) {
        debug_assert_eq!(self.universe, other.universe);
        if other.words.is_empty() {
            return;
        }
        let mut b = 0;
        self.words.retain_mut(|(w, bits)| {
            while b < other.words.len() && other.words[b].0 < *w {
                b += 1;
            }
            if b < other.words.len() && other.words[b].0 == *w {
                *bits &= !other.words[b].1;
            }
            *bits != 0
        });
    }

    /// Whether the two sets share a member.
    pub fn intersects(&self, other: &BitSet) -> bool {
        let (mut a, mut b) = (0, 0);
        while a < self.words.len() && b < other.words.len() {
            let ((wa, ba), (wb, bb)) = (self.words[a], other.words[b]);
            match wa.cmp(&wb) {
                std::cmp::Ordering::Less => a += 1,
                std::cmp::Ordering::Greater => b += 1,
                std::cmp::Ordering::Equal => {
                    if ba & bb != 0 {
                        return true;
                    }
                    a += 1;
                    b += 1;
                }
            }
        }
        false
    }

    /// Removes every member.
    pub fn clear(&mut self) {
        self.words.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.1.count_ones() as usize).sum()
    }

    /// The members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().flat_map(|&(wi, word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let bit = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                Some(wi as usize * BITS + bit)
            })
        })
    }

    /// Bytes held by the set's words (for the memory figures of benchmarks).
    pub fn heap_bytes(&self) -> usize {
        self.words.capacity() * std::mem::size_of::<(u32, u64)>()
    }
}

impl fmt::Debug for BitSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_remove_contains_across_words() {
        let mut s = BitSet::new(130);
        assert!(s.is_empty());
        for i in [0, 63, 64, 129] {
            assert!(s.insert(i));
            assert!(!s.insert(i));
        }
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![0, 63, 64, 129]);
        assert_eq!(s.len(), 4);
        assert!(s.remove(63));
        assert!(!s.remove(63));
        assert!(!s.contains(63));
        assert!(
            !s.contains(1000),
            "outside the universe is absent, not a panic"
        );
    }

    #[test]
    fn union_reports_change_and_subtract() {
        let mut a = BitSet::new(70);
        let mut b = BitSet::new(70);
        a.insert(1);
        b.insert(1);
        assert!(!a.union_with(&b));
        b.insert(69);
        assert!(a.union_with(&b));
        assert!(a.intersects(&b));
        a.subtract(&b);
        assert!(a.is_empty());
        assert_eq!(format!("{b:?}"), "{1, 69}");
    }

    /// Every operation against `std`'s ordered set, on random members spread over a
    /// universe of a few hundred words.
    #[test]
    fn agrees_with_an_ordered_set() {
        use std::collections::BTreeSet;
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        const U: usize = 20_000;
        for _ in 0..200 {
            let (mut a, mut b) = (BitSet::new(U), BitSet::new(U));
            let (mut ra, mut rb) = (BTreeSet::new(), BTreeSet::new());
            for _ in 0..next(60) {
                let i = next(U);
                assert_eq!(a.insert(i), ra.insert(i));
            }
            for _ in 0..next(60) {
                // clustered, so that words are shared
                let i = (next(U / 64) * 64 + next(3)).min(U - 1);
                assert_eq!(b.insert(i), rb.insert(i));
            }
            for _ in 0..next(10) {
                let i = next(U);
                assert_eq!(a.remove(i), ra.remove(&i));
            }
            assert_eq!(a.intersects(&b), !ra.is_disjoint(&rb));
            let mut u = a.clone();
            let changed = u.union_with(&b);
            let ru: BTreeSet<usize> = ra.union(&rb).copied().collect();
            assert_eq!(changed, ru != ra);
            assert_eq!(u.iter().collect::<BTreeSet<_>>(), ru);
            assert_eq!(u.len(), ru.len());
            assert!(!u.clone().union_with(&a), "a subset adds nothing");
            let mut d = u.clone();
            d.subtract(&b);
            let rd: BTreeSet<usize> = ru.difference(&rb).copied().collect();
            assert_eq!(d.iter().collect::<BTreeSet<_>>(), rd);
            for i in (0..U).step_by(97) {
                assert_eq!(d.contains(i), rd.contains(&i));
            }
            // canonical: equal members, equal sets
            let mut rebuilt = BitSet::new(U);
            for i in rd.iter() {
                rebuilt.insert(*i);
            }
            assert_eq!(rebuilt, d);
        }
    }
}
