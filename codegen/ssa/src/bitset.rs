//! A dense, fixed-universe bit set: the representation of live sets (over variables)
//! and of reachability sets (over blocks).

use std::fmt;

/// A set of indices in `0..universe`, one bit per index.
///
/// Membership queries outside the universe answer `false`, so a set built before new
/// variables were created can still be asked about them.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct BitSet {
    words: Vec<u64>,
    universe: usize,
}

const BITS: usize = 64;

impl BitSet {
    /// The empty set over `0..universe`.
    pub fn new(universe: usize) -> Self {
        BitSet {
            words: vec![0; universe.div_ceil(BITS)],
            universe,
        }
    }

    /// The size of the universe (not the number of members).
    pub fn universe(&self) -> usize {
        self.universe
    }

    /// Adds `i`; returns whether it was absent. Panics if `i` is outside the universe.
    pub fn insert(&mut self, i: usize) -> bool {
        assert!(
            i < self.universe,
            "bit {i} outside a universe of {}",
            self.universe
        );
        let (w, m) = (i / BITS, 1u64 << (i % BITS));
        let absent = self.words[w] & m == 0;
        self.words[w] |= m;
        absent
    }

    /// Removes `i`; returns whether it was present.
    pub fn remove(&mut self, i: usize) -> bool {
        if i >= self.universe {
            return false;
        }
        let (w, m) = (i / BITS, 1u64 << (i % BITS));
        let present = self.words[w] & m != 0;
        self.words[w] &= !m;
        present
    }

    /// Whether `i` is a member (`false` outside the universe).
    pub fn contains(&self, i: usize) -> bool {
        i < self.universe && self.words[i / BITS] & (1u64 << (i % BITS)) != 0
    }

    /// `self ∪= other`; returns whether `self` changed. Both sets must share a universe.
    pub fn union_with(&mut self, other: &BitSet) -> bool {
        debug_assert_eq!(self.universe, other.universe);
        let mut changed = false;
        for (a, &b) in self.words.iter_mut().zip(&other.words) {
            let new = *a | b;
            changed |= new != *a;
            *a = new;
        }
        changed
    }

    /// `self −= other`.
    pub fn subtract(&mut self, other: &BitSet) {
        debug_assert_eq!(self.universe, other.universe);
        for (a, &b) in self.words.iter_mut().zip(&other.words) {
            *a &= !b;
        }
    }

    /// Whether the two sets share a member.
    pub fn intersects(&self, other: &BitSet) -> bool {
        self.words
            .iter()
            .zip(&other.words)
            .any(|(&a, &b)| a & b != 0)
    }

    /// Removes every member.
    pub fn clear(&mut self) {
        self.words.fill(0);
    }

    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let bit = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                Some(wi * BITS + bit)
            })
        })
    }

    /// Bytes held by the set's words (for the memory figures of benchmarks).
    pub fn heap_bytes(&self) -> usize {
        self.words.len() * std::mem::size_of::<u64>()
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
}
