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

/// A set of paths, as a bit set.
#[derive(Clone, Debug, Default)]
pub struct PathSet {
    words: Vec<u64>,
}

impl PartialEq for PathSet {
    /// The same paths (whatever the number of words each holds).
    fn eq(&self, other: &PathSet) -> bool {
        let n = self.words.len().max(other.words.len());
        (0..n).all(|i| self.words.get(i).unwrap_or(&0) == other.words.get(i).unwrap_or(&0))
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

    pub fn insert(&mut self, path: usize) {
        let (w, bit) = (path / 64, path % 64);
        if self.words.len() <= w {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= 1 << bit;
    }

    pub fn remove(&mut self, path: usize) {
        if let Some(w) = self.words.get_mut(path / 64) {
            *w &= !(1 << (path % 64));
        }
    }

    pub fn contains(&self, path: usize) -> bool {
        self.words
            .get(path / 64)
            .is_some_and(|w| w & (1 << (path % 64)) != 0)
    }

    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// The number of paths.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn intersects(&self, other: &PathSet) -> bool {
        self.words.iter().zip(&other.words).any(|(a, b)| a & b != 0)
    }

    pub fn intersection(&self, other: &PathSet) -> PathSet {
        let words: Vec<u64> = self
            .words
            .iter()
            .zip(&other.words)
            .map(|(a, b)| a & b)
            .collect();
        PathSet { words }
    }

    pub fn union_with(&mut self, other: &PathSet) {
        if self.words.len() < other.words.len() {
            self.words.resize(other.words.len(), 0);
        }
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
    }

    pub fn union(&self, other: &PathSet) -> PathSet {
        let mut u = self.clone();
        u.union_with(other);
        u
    }

    pub fn subtract(&mut self, other: &PathSet) {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
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
        self.words.iter().enumerate().flat_map(|(i, &w)| {
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
        let a: PathSet = [0, 3, 70].into_iter().collect();
        let b: PathSet = [3, 4].into_iter().collect();
        assert_eq!(a.len(), 3);
        assert!(a.contains(70) && !a.contains(69));
        assert_eq!(a.intersection(&b).iter().collect::<Vec<_>>(), [3]);
        assert_eq!(a.union(&b).iter().collect::<Vec<_>>(), [0, 3, 4, 70]);
        assert_eq!(a.minus(&b).iter().collect::<Vec<_>>(), [0, 70]);
        assert!(a.intersects(&b) && !a.minus(&b).intersects(&b));
        assert!(PathSet::new().is_empty() && !PathSet::single(65).is_empty());
        let mut c = a.clone();
        c.remove(0);
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
