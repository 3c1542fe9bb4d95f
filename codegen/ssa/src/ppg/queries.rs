//! Queries on a PPG (§5.1–5.2): implication, disjointness, covering, and the
//! complement along a path.
//!
//! Every partition is exact and every domain non-empty, so:
//! - a path `q →* p` means `Domain(p) ⊆ Domain(q)`; on a PPG of Alg 5 the converse
//!   holds too (Prop 3 and §5.1; checked against enumerated traces);
//! - two distinct parts `c_i`, `c_j` of one partition are disjoint, hence so are
//!   anything below `c_i` and anything below `c_j` (Gillies' test; sound, not always
//!   complete: two predicates can be disjoint without such a partition);
//! - along a path `q = x0 → x1 → … → xk = p`, `Domain(q)` is `Domain(p)` plus the
//!   disjoint domains of the other parts of each partition crossed.
//!
//! Searches go upwards from `p` and only visit predicates whose topological rank is
//! above `q`'s, so they stay in the part of the graph between the two. (For the
//! predicates of two blocks, [`Classes::includes`](super::Classes::includes) gives
//! the same answer as `implies` on a [`Construction::Cdg`](super::Construction) PPG
//! in O(1), by Prop 3; the PPG is needed for dummies, complements, disjointness and
//! covering.)

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use crate::ppg::partition_graph::{PartitionId, Ppg, PredId};

/// A hasher for dense indices: the searches visit small parts of large graphs, so
/// they keep their marks in hash sets, and SipHash would cost more than the walk.
#[derive(Default)]
struct IndexHasher(u64);

impl Hasher for IndexHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u32(&mut self, i: u32) {
        self.write_u64(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        // Fibonacci hashing: the high bits, which hashbrown uses, mix all input bits.
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

type IndexSet<T> = HashSet<T, BuildHasherDefault<IndexHasher>>;
type IndexMap<K, V> = HashMap<K, V, BuildHasherDefault<IndexHasher>>;

impl Ppg {
    /// Whether `Domain(p) ⊆ Domain(q)`: a path `q →* p` (reflexive).
    pub fn implies(&self, p: PredId, q: PredId) -> bool {
        self.path_up(p, q).is_some()
    }

    /// Whether `p` and `q` are disjoint because some partition has distinct parts
    /// `c_i →* p` and `c_j →* q`. Sound (never says so of predicates sharing a
    /// trace); `false` when it cannot tell.
    pub fn disjoint(&self, p: PredId, q: PredId) -> bool {
        let np = self.num_predicates();
        if p == q || p.index() >= np || q.index() >= np {
            return false;
        }
        let mut above_q = self.ancestors(q);
        above_q.insert(q);
        let mut seen = IndexSet::default();
        seen.insert(p);
        let mut stack = vec![p];
        while let Some(x) = stack.pop() {
            for &a in self.partitions_into(x) {
                if self
                    .children(a)
                    .iter()
                    .any(|&c| c != x && above_q.contains(&c))
                {
                    return true;
                }
                let up = self.parent(a);
                if seen.insert(up) {
                    stack.push(up);
                }
            }
        }
        false
    }

    /// Whether `Domain(p) ⊆ Domain(q1) ∪ … ∪ Domain(qn)`, soundly: some predicate
    /// `a` with `a →* p` is covered, where a predicate is covered if it is below some
    /// `qi`, or one of its partitions has only covered parts. `false` when it cannot
    /// tell. This is the test of ψ reduction (drop argument `i` when the later
    /// arguments cover `p_i`). O(predicates + partitions).
    pub fn covers(&self, p: PredId, qs: &[PredId]) -> bool {
        let np = self.num_predicates();
        if p.index() >= np {
            return false;
        }
        let mut covered = vec![false; np];
        let mut stack: Vec<PredId> = Vec::new();
        for &q in qs {
            if q.index() < np && !covered[q.index()] {
                covered[q.index()] = true;
                stack.push(q);
            }
        }
        while let Some(x) = stack.pop() {
            for &a in self.partitions_of(x) {
                for &c in self.children(a) {
                    if !covered[c.index()] {
                        covered[c.index()] = true;
                        stack.push(c);
                    }
                }
            }
        }
        if self.acyclic {
            // children before parents
            for &x in self.topological.iter().rev() {
                if !covered[x.index()] {
                    covered[x.index()] = self
                        .partitions_of(x)
                        .iter()
                        .any(|&a| self.children(a).iter().all(|c| covered[c.index()]));
                }
            }
        }
        covered[p.index()] || self.ancestors(p).iter().any(|a| covered[a.index()])
    }

    /// The complement of `p` in `q` along one path `q →* p`: predicates `c1 … cm`
    /// with `Domain(q) = Domain(p) | Domain(c1) | … | Domain(cm)` (the other parts of
    /// each partition on the path). Empty if `p == q`; `None` without a path. Where
    /// code moved from `p` up to `q` becomes newly executed, or where code moved down
    /// must be duplicated (§5.1).
    pub fn complement(&self, q: PredId, p: PredId) -> Option<Vec<PredId>> {
        let steps = self.path_up(p, q)?;
        let mut rest = Vec::new();
        for (a, toward_p) in steps {
            rest.extend(self.children(a).iter().filter(|&&c| c != toward_p));
        }
        Some(rest)
    }

    /// A path `q →* p` as the partitions crossed from `q` down, each with the part
    /// taken; found by a search upwards from `p` pruned by topological rank.
    fn path_up(&self, p: PredId, q: PredId) -> Option<Vec<(PartitionId, PredId)>> {
        let np = self.num_predicates();
        if p.index() >= np || q.index() >= np {
            return None;
        }
        if p == q {
            return Some(Vec::new());
        }
        let useful = |x: PredId| !self.acyclic || self.rank[x.index()] >= self.rank[q.index()];
        if !useful(p) {
            return None;
        }
        // down[x]: the partition by which x was reached from below, and the part.
        let mut down: IndexMap<PredId, (PartitionId, PredId)> = IndexMap::default();
        let mut stack = vec![p];
        while let Some(x) = stack.pop() {
            for &a in self.partitions_into(x) {
                let up = self.parent(a);
                if up == p || down.contains_key(&up) || !useful(up) {
                    continue;
                }
                down.insert(up, (a, x));
                if up == q {
                    let mut steps = Vec::new();
                    let mut at = q;
                    while at != p {
                        let (a, next) = down[&at];
                        steps.push((a, next));
                        at = next;
                    }
                    return Some(steps);
                }
                stack.push(up);
            }
        }
        None
    }

    /// The predicates `a` with `a →+ p`.
    fn ancestors(&self, p: PredId) -> IndexSet<PredId> {
        let mut seen = IndexSet::default();
        let mut stack = vec![p];
        while let Some(x) = stack.pop() {
            for &a in self.partitions_into(x) {
                let up = self.parent(a);
                if seen.insert(up) {
                    stack.push(up);
                }
            }
        }
        seen
    }
}
