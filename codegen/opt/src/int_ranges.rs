//! Sets of `w`-bit integers as the compares of a value with constants describe them,
//! and the one unsigned compare that tests such a set when it is a range.
//!
//! A set is a sorted list of disjoint, non-adjacent inclusive intervals of the
//! unsigned values `0 ..= 2^w - 1`. A signed compare is an unsigned one on the value
//! with its sign bit flipped (that maps the signed order onto the unsigned one), so
//! its set is the unsigned set of the flipped compare, flipped back (an interval that
//! contains the sign boundary in the flipped order is two intervals).
//!
//! A set is a **wrapped range** when it is one interval `[lo, hi]`, or two that
//! touch both ends (`[0, a] ∪ [b, 2^w - 1]`, the interval from `b` round to `a`): then
//! `x ∈ S` is `(x - lo) mod 2^w <u len`, one subtraction and one compare, for the
//! set's first value `lo` going round and its size `len`. This is LLVM's range
//! folding of `and`/`or` of compares (`InstCombine`'s `foldAndOrOfICmpsUsingRanges`),
//! which is how `b'a'..=b'z'` becomes one test.

use vliw_ir::IntCC;

/// An inclusive interval of unsigned values.
pub type Interval = (u128, u128);

/// A set of `bits`-bit values (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntSet {
    bits: u32,
    intervals: Vec<Interval>,
}

impl IntSet {
    fn max(bits: u32) -> u128 {
        if bits >= 128 {
            u128::MAX
        } else {
            (1u128 << bits) - 1
        }
    }

    fn new(bits: u32, mut intervals: Vec<Interval>) -> Self {
        intervals.retain(|&(a, b)| a <= b);
        intervals.sort_unstable();
        let mut merged: Vec<Interval> = Vec::with_capacity(intervals.len());
        for (a, b) in intervals {
            match merged.last_mut() {
                Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        Self {
            bits,
            intervals: merged,
        }
    }

    /// The values `x` of `bits` bits for which `x cc k` holds.
    pub fn of_compare(cc: IntCC, k: u128, bits: u32) -> Option<Self> {
        if bits == 0 || bits > 64 {
            return None;
        }
        let max = Self::max(bits);
        let k = k & max;
        let sign = 1u128 << (bits - 1);
        let unsigned = |cc: IntCC, k: u128| -> Vec<Interval> {
            match cc {
                IntCC::Eq => vec![(k, k)],
                IntCC::Ult if k == 0 => vec![],
                IntCC::Ult => vec![(0, k - 1)],
                IntCC::Ule => vec![(0, k)],
                IntCC::Ugt if k == max => vec![],
                IntCC::Ugt => vec![(k + 1, max)],
                IntCC::Uge => vec![(k, max)],
                _ => unreachable!("a signed condition, or `ne`"),
            }
        };
        let to_unsigned = |cc: IntCC| match cc {
            IntCC::Slt => IntCC::Ult,
            IntCC::Sle => IntCC::Ule,
            IntCC::Sgt => IntCC::Ugt,
            IntCC::Sge => IntCC::Uge,
            c => c,
        };
        if cc == IntCC::Ne {
            return Some(Self::new(bits, vec![(k, k)]).complement());
        }
        let intervals = match cc {
            IntCC::Slt | IntCC::Sle | IntCC::Sgt | IntCC::Sge => {
                // in the order of `x ^ sign`, then flipped back
                let flipped = Self::new(bits, unsigned(to_unsigned(cc), k ^ sign));
                return Some(flipped.flip_sign());
            }
            _ => unsigned(cc, k),
        };
        Some(Self::new(bits, intervals))
    }

    /// The values not in `self`.
    pub fn complement(&self) -> Self {
        let max = Self::max(self.bits);
        let mut out = Vec::new();
        let mut next = 0u128;
        for &(a, b) in &self.intervals {
            if a > next {
                out.push((next, a - 1));
            }
            next = b.saturating_add(1);
        }
        if next <= max && !(self.intervals.last().is_some_and(|&(_, b)| b == max)) {
            out.push((next, max));
        }
        Self::new(self.bits, out)
    }

    /// The values in both.
    pub fn intersect(&self, other: &Self) -> Self {
        let mut out = Vec::new();
        for &(a, b) in &self.intervals {
            for &(c, d) in &other.intervals {
                out.push((a.max(c), b.min(d)));
            }
        }
        Self::new(self.bits, out)
    }

    /// The values in either.
    pub fn union(&self, other: &Self) -> Self {
        let mut all = self.intervals.clone();
        all.extend_from_slice(&other.intervals);
        Self::new(self.bits, all)
    }

    /// `(lo, len)` with `x ∈ self` exactly when `(x - lo) mod 2^bits <u len`, if the
    /// set is a wrapped range that is neither empty nor every value.
    pub fn as_range(&self) -> Option<(u128, u128)> {
        let max = Self::max(self.bits);
        match self.intervals[..] {
            [(0, b)] if b == max => None,
            [(a, b)] => Some((a, b - a + 1)),
            [(0, a), (b, m)] if m == max => Some((b, (max - b + 1) + (a + 1))),
            _ => None,
        }
    }

    /// The set's one interval, when it is one.
    pub fn as_interval(&self) -> Option<Interval> {
        match self.intervals[..] {
            [i] => Some(i),
            _ => None,
        }
    }

    /// The values with their sign bit flipped: the set in signed order (the
    /// interval `[a, b]` of the result is the signed values `a - 2^(bits-1) ..=
    /// b - 2^(bits-1)`).
    pub fn flip_sign(&self) -> Self {
        let sign = 1u128 << (self.bits - 1);
        let mut out = Vec::new();
        for &(a, b) in &self.intervals {
            if a < sign && b >= sign {
                out.push((a ^ sign, (sign - 1) ^ sign));
                out.push((sign ^ sign, b ^ sign));
            } else {
                out.push((a ^ sign, b ^ sign));
            }
        }
        Self::new(self.bits, out)
    }

    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// Whether `x` is in the set.
    #[cfg(test)]
    pub fn contains(&self, x: u128) -> bool {
        self.intervals.iter().any(|&(a, b)| a <= x && x <= b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holds(cc: IntCC, x: u128, k: u128, bits: u32) -> bool {
        let sign = 1u128 << (bits - 1);
        let s = |v: u128| -> i128 {
            if v & sign != 0 {
                v as i128 - (1i128 << bits)
            } else {
                v as i128
            }
        };
        match cc {
            IntCC::Eq => x == k,
            IntCC::Ne => x != k,
            IntCC::Ult => x < k,
            IntCC::Ule => x <= k,
            IntCC::Ugt => x > k,
            IntCC::Uge => x >= k,
            IntCC::Slt => s(x) < s(k),
            IntCC::Sle => s(x) <= s(k),
            IntCC::Sgt => s(x) > s(k),
            IntCC::Sge => s(x) >= s(k),
        }
    }

    /// Every compare of every 4-bit value with every 4-bit constant, and every union
    /// and intersection of two of them: the sets are exact, and where a set is a
    /// wrapped range its one compare gives the same answer for every value.
    #[test]
    fn exhaustive_on_four_bits() {
        let bits = 4;
        let mut sets = Vec::new();
        for cc in IntCC::ALL {
            for k in 0..16u128 {
                let s = IntSet::of_compare(cc, k, bits).unwrap();
                for x in 0..16u128 {
                    assert_eq!(s.contains(x), holds(cc, x, k, bits), "{cc:?} {x} {k}");
                }
                sets.push(s);
            }
        }
        let check = |s: &IntSet, member: &dyn Fn(u128) -> bool| {
            for x in 0..16u128 {
                assert_eq!(s.contains(x), member(x));
            }
            if let Some((lo, len)) = s.as_range() {
                for x in 0..16u128 {
                    assert_eq!((x.wrapping_sub(lo) & 15) < len, member(x), "{s:?}");
                }
            }
            let n = (0..16u128).filter(|&x| member(x)).count();
            let ranged = s.as_range().is_some();
            if n == 0 || n == 16 {
                assert!(!ranged);
            }
        };
        for a in sets.iter().step_by(3) {
            check(&a.complement(), &|x| !a.contains(x));
            check(&a.flip_sign(), &|x| a.contains(x ^ 8));
            for b in sets.iter().step_by(5) {
                check(&a.union(b), &|x| a.contains(x) || b.contains(x));
                check(&a.intersect(b), &|x| a.contains(x) && b.contains(x));
            }
        }
    }

    #[test]
    fn letters_are_one_range() {
        let ge = IntSet::of_compare(IntCC::Uge, 97, 8).unwrap();
        let le = IntSet::of_compare(IntCC::Ule, 122, 8).unwrap();
        assert_eq!(ge.intersect(&le).as_range(), Some((97, 26)));
        // not a letter: the rest, from 123 round to 96
        assert_eq!(ge.intersect(&le).complement().as_range(), Some((123, 230)));
        // two ranges apart are not one
        let upper = IntSet::of_compare(IntCC::Uge, 65, 8)
            .unwrap()
            .intersect(&IntSet::of_compare(IntCC::Ule, 90, 8).unwrap());
        assert_eq!(ge.intersect(&le).union(&upper).as_range(), None);
    }
}
