//! Run statistics: plain counters kept by the issue loop.

use std::fmt;

/// What a run did. Counts cover the bundles that completed; a faulting bundle is
/// not counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Cycles, stalls and branch penalties included.
    pub cycles: u64,
    /// Bundles issued.
    pub bundles: u64,
    /// Operations issued (`limm` syllables are part of their operation), nullified
    /// ones included.
    pub ops: u64,
    /// Operations whose guard was false (`.unc` compares are never nullified).
    pub nullified: u64,
    /// Cycles spent waiting for operands (interlock).
    pub stalls: u64,
    /// Taken control transfers: branches, calls, returns, indirect jumps.
    pub branches: u64,
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "stats: cycles={} bundles={} ops={} nullified={} stalls={} branches={}",
            self.cycles, self.bundles, self.ops, self.nullified, self.stalls, self.branches
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_the_documented_line() {
        let s = Stats {
            cycles: 1,
            bundles: 2,
            ops: 3,
            nullified: 4,
            stalls: 5,
            branches: 6,
        };
        assert_eq!(
            s.to_string(),
            "stats: cycles=1 bundles=2 ops=3 nullified=4 stalls=5 branches=6"
        );
    }
}
