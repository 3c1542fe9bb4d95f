//! Where a demanded node's results go: the labels of the gating conditions that
//! `buildPDG` computes (thesis §3.4.2, for nodes of several results).
//!
//! Each value result of the node is either wanted in its own register ([`Dest::Own`]:
//! some consumer reads it there) or only as a tail ([`Dest::Tail`]: it is exit `e` of
//! γ `g` in the arm that demands it, so it can be computed straight into the γ's
//! result). A state result needs no register, so it is not listed: a node demanded
//! only for its state (an effect before the next one) has an empty label.
//!
//! Joining two labels of one node keeps a tail where both agree; a result wanted in
//! two places otherwise is wanted in its own register (and the tail places get a move
//! from it: the thesis's `Λ^r ∪ c = Λ`). Retargeting an inner label through an outer
//! one is the thesis's `c[rt/rv]` per result: a tail of the inner node into a result
//! of the outer node goes wherever the outer label sends that result.

use smallvec::SmallVec;

use super::flatten::FlatId;
use super::gating::{Cond, Label};

/// Where one value result goes.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Dest {
    /// Its own register.
    Own,
    /// Exit `1` of γ `0` (a flat node): computed into that γ's result.
    Tail(FlatId, u32),
}

/// The label of a node's demand: the node, and where each of its value results goes
/// (by output index, in order; results not listed are not wanted here).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Dests {
    pub node: FlatId,
    pub outputs: SmallVec<[(u32, Dest); 2]>,
}

impl Dests {
    /// Node `node` demanded for nothing in a register (a state, or an effect).
    pub fn effect(node: FlatId) -> Self {
        Dests {
            node,
            outputs: SmallVec::new(),
        }
    }

    /// Result `output` of `node` wanted at `dest`.
    pub fn one(node: FlatId, output: u32, dest: Dest) -> Self {
        let mut outputs = SmallVec::new();
        outputs.push((output, dest));
        Dests { node, outputs }
    }

    pub fn dest(&self, output: u32) -> Option<Dest> {
        (self.outputs.iter())
            .find(|&&(k, _)| k == output)
            .map(|&(_, d)| d)
    }
}

impl Label for Dests {
    fn join(&self, other: &Self) -> Self {
        debug_assert_eq!(self.node, other.node, "labels of one node");
        let mut outputs: SmallVec<[(u32, Dest); 2]> = self.outputs.clone();
        for &(k, d) in &other.outputs {
            match outputs.iter_mut().find(|(j, _)| *j == k) {
                Some((_, mine)) if *mine != d => *mine = Dest::Own,
                Some(_) => {}
                None => outputs.push((k, d)),
            }
        }
        outputs.sort_unstable();
        Dests {
            node: self.node,
            outputs,
        }
    }

    fn retarget(&self, inner: &Self) -> Self {
        let outputs = (inner.outputs.iter())
            .map(|&(k, d)| match d {
                Dest::Tail(g, e) if g == self.node => match self.dest(e) {
                    Some(Dest::Tail(g2, e2)) => (k, Dest::Tail(g2, e2)),
                    _ => (k, d),
                },
                _ => (k, d),
            })
            .collect();
        Dests {
            node: inner.node,
            outputs,
        }
    }
}

/// A gating condition of the flat graph's nodes.
pub type Gc = Cond<FlatId, Dests>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_join_where_they_agree_and_retarget_through_the_outer_node() {
        let t = |g, e| Dest::Tail(g, e);
        let a = Dests::one(1, 0, t(7, 0));
        assert_eq!(a.join(&a), a);
        assert_eq!(
            a.join(&Dests::one(1, 0, t(7, 1))),
            Dests::one(1, 0, Dest::Own)
        );
        assert_eq!(a.join(&Dests::effect(1)), a, "a state wants no register");
        let both = a.join(&Dests::one(1, 2, Dest::Own));
        assert_eq!(both.dest(0), Some(t(7, 0)));
        assert_eq!(both.dest(2), Some(Dest::Own));
        // node 1 is exit 0 of γ 7; node 7 is, as a whole, exit 3 of γ 9
        let outer = Dests::one(7, 0, t(9, 3));
        assert_eq!(outer.retarget(&a), Dests::one(1, 0, t(9, 3)));
        // where the outer γ's result is wanted in its own register, the tail stays
        let outer = Dests::one(7, 0, Dest::Own);
        assert_eq!(outer.retarget(&a), a);
        // a tail into another γ stays
        let other = Dests::one(1, 0, t(8, 0));
        assert_eq!(Dests::one(7, 0, t(9, 3)).retarget(&other), other);
    }
}
