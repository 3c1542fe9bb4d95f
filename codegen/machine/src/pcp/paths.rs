//! The paths of a hyperblock (004 §3: the full-path predicates of PSSA) and sets of
//! them.
//!
//! A hyperblock here is one machine block of guarded operations: its branches were
//! if-converted into predicates, so its paths are the consistent assignments of the
//! conditions those predicates are made of (compares, `r2p`, predicates from outside
//! the block). The local pass numbers them as it meets the conditions: it starts
//! with one path, and a condition it cannot decide on a path splits that path in
//! two (the new one, the condition false, gets the next number). A path is never
//! merged again, so a set of paths made before a split stays meaningful once the
//! split path's number is added wherever the old one is (`Valued::fork`).
//!
//! The number of paths is capped ([`Paths::fork`] fails beyond the cap): PSSA is
//! exponential in the hyperblock, and the cap is what keeps the pass linear in
//! practice (above it the pass falls back to propagation without paths).

/// A set of paths, as a bit set: the first 128 paths inline, the rest (only with a
/// cap above 128) in a vector, so that the sets of the usual hyperblocks allocate
/// nothing.
#[derive(Clone, Debug, Default)]
pub struct PathSet {
    low: [u64; 2],
    high: Vec<u64>,
}

impl PartialEq for PathSet {
    /// The same paths (whatever the number of words each holds).
    fn eq(&self, other: &PathSet) -> bool {
        let n = self.high.len().max(other.high.len());
        self.low == other.low
            && (0..n).all(|i| self.high.get(i).unwrap_or(&0) == other.high.get(i).unwrap_or(&0))
    }
}

impl Eq for PathSet {}

impl PathSet {
    pub fn new() -> PathSet {
        PathSet::default()
    }

    /// `{path}`.
    pub fn single(path: usize) -> PathSet {
        let mut s = PathSet::new();
        s.insert(path);
        s
    }

    fn word(&self, w: usize) -> u64 {
        match w {
            0 | 1 => self.low[w],
            _ => self.high.get(w - 2).copied().unwrap_or(0),
        }
    }

    fn word_mut(&mut self, w: usize) -> &mut u64 {
        match w {
            0 | 1 => &mut self.low[w],
            _ => {
                if self.high.len() <= w - 2 {
                    self.high.resize(w - 1, 0);
                }
                &mut self.high[w - 2]
            }
        }
    }

    /// The number of words either set may hold.
    fn words(&self, other: &PathSet) -> usize {
        2 + self.high.len().max(other.high.len())
    }

    pub fn insert(&mut self, path: usize) {
        *self.word_mut(path / 64) |= 1 << (path % 64);
    }

    pub fn remove(&mut self, path: usize) {
        if path / 64 < 2 + self.high.len() {
            *self.word_mut(path / 64) &= !(1 << (path % 64));
        }
    }

    pub fn contains(&self, path: usize) -> bool {
        self.word(path / 64) & (1 << (path % 64)) != 0
    }

    pub fn is_empty(&self) -> bool {
        self.low == [0, 0] && self.high.iter().all(|&w| w == 0)
    }

    /// The number of paths.
    pub fn len(&self) -> usize {
        self.low
            .iter()
            .chain(&self.high)
            .map(|w| w.count_ones() as usize)
            .sum()
    }

    pub fn intersects(&self, other: &PathSet) -> bool {
        (0..self.words(other)).any(|i| self.word(i) & other.word(i) != 0)
    }

    pub fn intersection(&self, other: &PathSet) -> PathSet {
        let mut r = PathSet {
            low: [self.low[0] & other.low[0], self.low[1] & other.low[1]],
            high: Vec::new(),
        };
        let n = self.high.len().min(other.high.len());
        if n > 0 {
            r.high = (0..n).map(|i| self.high[i] & other.high[i]).collect();
        }
        r
    }

    pub fn union_with(&mut self, other: &PathSet) {
        self.low[0] |= other.low[0];
        self.low[1] |= other.low[1];
        if self.high.len() < other.high.len() {
            self.high.resize(other.high.len(), 0);
        }
        for (a, b) in self.high.iter_mut().zip(&other.high) {
            *a |= b;
        }
    }

    pub fn union(&self, other: &PathSet) -> PathSet {
        let mut u = self.clone();
        u.union_with(other);
        u
    }

    pub fn subtract(&mut self, other: &PathSet) {
        self.low[0] &= !other.low[0];
        self.low[1] &= !other.low[1];
        for (a, b) in self.high.iter_mut().zip(&other.high) {
            *a &= !b;
        }
    }

    pub fn minus(&self, other: &PathSet) -> PathSet {
        let mut d = self.clone();
        d.subtract(other);
        d
    }

    /// The paths, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.low
            .iter()
            .chain(&self.high)
            .enumerate()
            .flat_map(|(i, &w)| {
                (0..64)
                    .filter(move |b| w & (1 << b) != 0)
                    .map(move |b| 64 * i + b)
            })
    }
}

impl FromIterator<usize> for PathSet {
    fn from_iter<I: IntoIterator<Item = usize>>(iter: I) -> PathSet {
        let mut s = PathSet::new();
        for p in iter {
            s.insert(p);
        }
        s
    }
}

/// The hyperblock has more paths than the cap.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct TooManyPaths;

/// How many paths a hyperblock has so far, within a cap.
#[derive(Clone, Debug)]
pub struct Paths {
    count: usize,
    cap: usize,
}

impl Paths {
    /// One path (the hyperblock's entry), at most `cap` (at least 1).
    pub fn new(cap: usize) -> Paths {
        Paths {
            count: 1,
            cap: cap.max(1),
        }
    }

    pub fn count(&self) -> usize {
        self.count
    }

    /// A new path, split off an existing one.
    pub fn fork(&mut self) -> Result<usize, TooManyPaths> {
        if self.count >= self.cap {
            return Err(TooManyPaths);
        }
        self.count += 1;
        Ok(self.count - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_operations() {
        let a: PathSet = [0, 3, 70, 200].into_iter().collect();
        let b: PathSet = [3, 4].into_iter().collect();
        assert_eq!(a.len(), 4);
        assert!(a.contains(70) && !a.contains(69) && a.contains(200) && !a.contains(201));
        assert_eq!(a.intersection(&b).iter().collect::<Vec<_>>(), [3]);
        assert_eq!(a.union(&b).iter().collect::<Vec<_>>(), [0, 3, 4, 70, 200]);
        assert_eq!(a.minus(&b).iter().collect::<Vec<_>>(), [0, 70, 200]);
        assert_eq!(a.intersection(&a), a);
        assert_ne!(a.minus(&PathSet::single(200)), a);
        assert!(a.intersects(&b) && !a.minus(&b).intersects(&b));
        assert!(PathSet::new().is_empty() && !PathSet::single(65).is_empty());
        let mut c = a.clone();
        c.remove(0);
        c.remove(500);
        assert_eq!(c.iter().collect::<Vec<_>>(), [3, 70, 200]);
        c.remove(200);
        assert_eq!(c.iter().collect::<Vec<_>>(), [3, 70]);
    }

    #[test]
    fn forks_stop_at_the_cap() {
        let mut p = Paths::new(3);
        assert_eq!(p.fork(), Ok(1));
        assert_eq!(p.fork(), Ok(2));
        assert_eq!(p.fork(), Err(TooManyPaths));
        assert_eq!(p.count(), 3);
        assert_eq!(Paths::new(0).fork(), Err(TooManyPaths));
    }
}
