//! The verifier of a PPG's structure: what Defs 15–16 and Prop 8 promise of any PPG
//! built from a CFG, checked without the traces (the trace-level oracle is in
//! `tests/ppg_oracle.rs`).

use std::fmt;

use crate::cfg::Block;
use crate::ppg::partition_graph::{PartitionId, Ppg, PredId};

/// A broken property of a [`Ppg`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckError {
    /// A predicate other than the root has no partition above it, or the root has
    /// one (Def 16: one root).
    NotOneRoot(PredId),
    /// The partitions form a cycle through this predicate (Prop 8).
    Cycle(PredId),
    /// The root does not reach this predicate (Def 16: complete).
    Unreachable(PredId),
    /// A partition has fewer than two parts, a repeated part, or its parent among
    /// its parts (it would say nothing, or a cycle).
    BadPartition(PartitionId),
    /// A node reachable in the split graph has no predicate, a node has a dummy or
    /// out-of-range predicate, or a predicate's member list disagrees with its
    /// members' predicates.
    BadBlockPredicate(Block),
    /// A dummy predicate has members, or a non-dummy none.
    BadMembers(PredId),
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::NotOneRoot(p) => write!(f, "{p:?} breaks the single root"),
            CheckError::Cycle(p) => write!(f, "a cycle of partitions goes through {p:?}"),
            CheckError::Unreachable(p) => write!(f, "the root does not reach {p:?}"),
            CheckError::BadPartition(a) => write!(f, "{a:?} is not a proper partition"),
            CheckError::BadBlockPredicate(b) => write!(f, "{b:?} has a wrong predicate"),
            CheckError::BadMembers(p) => write!(f, "{p:?} has wrong members"),
        }
    }
}

impl std::error::Error for CheckError {}

impl Ppg {
    /// Checks the structure: one root (`root()`, the only predicate with no partition
    /// above it), acyclic, every predicate reachable from the root, partitions of at
    /// least two distinct parts none of which is the parent, and block predicates
    /// consistent (every node START reaches has the predicate whose members list it,
    /// the others none; dummies have no members).
    pub fn check(&self) -> Result<(), CheckError> {
        // in_part[c] == a + 1: c is a part of a already (finds repeated parts in
        // linear time)
        let mut in_part = vec![0u32; self.num_predicates()];
        for a in self.partitions() {
            let kids = self.children(a);
            in_part[self.parent(a).index()] = a.0 + 1;
            for c in kids {
                if in_part[c.index()] == a.0 + 1 {
                    return Err(CheckError::BadPartition(a));
                }
                in_part[c.index()] = a.0 + 1;
            }
            if kids.len() < 2 {
                return Err(CheckError::BadPartition(a));
            }
        }
        // Each node is listed by at most one predicate, which is its own.
        let mut listed = vec![false; self.num_nodes()];
        for p in self.predicates() {
            let is_root = p == self.root();
            if is_root != self.partitions_into(p).is_empty() {
                return Err(CheckError::NotOneRoot(p));
            }
            if self.is_dummy(p) != self.blocks(p).is_empty() {
                return Err(CheckError::BadMembers(p));
            }
            for &x in self.blocks(p) {
                if self.predicate_of(x) != Some(p) || listed[x.index()] {
                    return Err(CheckError::BadBlockPredicate(x));
                }
                listed[x.index()] = true;
            }
        }
        for i in 0..self.num_nodes() {
            let x = Block::new(i);
            let wrong = match self.predicate_of(x) {
                None => self.node_reachable[i],
                Some(p) => {
                    !self.node_reachable[i]
                        || p.index() >= self.num_predicates()
                        || self.is_dummy(p)
                        || !listed[i]
                }
            };
            if wrong {
                return Err(CheckError::BadBlockPredicate(x));
            }
        }
        if !self.acyclic {
            let cyclic = self
                .predicates()
                .find(|p| self.rank[p.index()] == u32::MAX)
                .unwrap_or(self.root());
            return Err(CheckError::Cycle(cyclic));
        }
        let mut seen = vec![false; self.num_predicates()];
        seen[self.root().index()] = true;
        let mut stack = vec![self.root()];
        while let Some(p) = stack.pop() {
            for &a in self.partitions_of(p) {
                for &c in self.children(a) {
                    if !seen[c.index()] {
                        seen[c.index()] = true;
                        stack.push(c);
                    }
                }
            }
        }
        match self.predicates().find(|p| !seen[p.index()]) {
            Some(p) => Err(CheckError::Unreachable(p)),
            None => Ok(()),
        }
    }
}
