//! The Predicate Partition Graph itself (Defs 15–16): predicates, and partitions
//! `parent → [children]` meaning `Domain(parent) = Domain(c1) | … | Domain(cn)`
//! (disjoint union, Def 1), with the root `p_START`.
//!
//! A predicate is either the predicate of one `~`-class of nodes of the split CFG
//! (Prop 4: they have the same domain) or a dummy of Alg 1, which names whatever
//! remains of its parent once its sibling is taken out. The graph is built once by
//! `PpgBuilder` (Alg 1 or Alg 5) and then only read; the queries are in
//! [`queries`](super::queries), the verifier in [`check`](super::check).

use rustc_hash::FxHashSet as HashSet;
use std::fmt;

use crate::cfg::Block;
use crate::ppg::split::{SplitCfg, SplitNode};

/// A predicate of a [`Ppg`], as a dense index.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PredId(pub u32);

impl PredId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Debug for PredId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "p{}", self.0)
    }
}

/// A partition (hyper-arc) of a [`Ppg`], as a dense index.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PartitionId(pub u32);

impl PartitionId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Debug for PartitionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "part{}", self.0)
    }
}

/// Which algorithm built a [`Ppg`].
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Construction {
    /// Alg 1 (§4.1.2): branch and merge partitions of the CFG, completed with dummy
    /// predicates.
    Cfg,
    /// Alg 5 (§4.1.3) and its mirror on the reversed CFG: partitions from the
    /// control dependence graphs, completed with exact complements; no dummy, and a
    /// path `q →* p` exactly when `Domain(p) ⊆ Domain(q)`.
    Cdg,
    /// Alg 5 as the report gives it (main loop reconstructed), without the mirror:
    /// exact partitions and no dummy, but implication by paths misses some
    /// post-dominance.
    CdgReport,
}

/// A Predicate Partition Graph of a split acyclic CFG.
///
/// Every reachable node of the split graph has a predicate (one per `~`-class);
/// unreachable nodes have none. The graph is complete: `root()` is `p_START`, the
/// only predicate without a partition above it, and reaches every predicate
/// ([`Ppg::check`] verifies it).
#[derive(Clone, Debug)]
pub struct Ppg {
    construction: Construction,
    root: PredId,
    /// The members of each predicate (nodes of the split graph), CSR; dummies have
    /// none.
    member_start: Vec<u32>,
    members: Vec<Block>,
    dummy: Vec<bool>,
    node_pred: Vec<u32>,
    pub(crate) node_reachable: Vec<bool>,
    node_origin: Vec<SplitNode>,
    part_parent: Vec<PredId>,
    child_start: Vec<u32>,
    children: Vec<PredId>,
    /// The partitions of each predicate, as parent (CSR).
    out_start: Vec<u32>,
    out: Vec<PartitionId>,
    /// The partitions each predicate is a child of (CSR).
    in_start: Vec<u32>,
    inn: Vec<PartitionId>,
    /// Position in a topological order (parents before children): a path `q →+ p`
    /// implies `rank[q] < rank[p]`, which prunes searches. Meaningless if the graph
    /// is cyclic (`acyclic` is then false, and searches are not pruned).
    pub(crate) rank: Vec<u32>,
    /// The predicates in that topological order.
    pub(crate) topological: Vec<PredId>,
    pub(crate) acyclic: bool,
}

const NONE: u32 = u32::MAX;

impl Ppg {
    pub fn construction(&self) -> Construction {
        self.construction
    }

    /// `p_START`, whose domain is every trace.
    pub fn root(&self) -> PredId {
        self.root
    }

    pub fn num_predicates(&self) -> usize {
        self.dummy.len()
    }

    pub fn predicates(&self) -> impl ExactSizeIterator<Item = PredId> {
        (0..self.num_predicates() as u32).map(PredId)
    }

    /// The predicate of node `x` of the split graph (an original block keeps its
    /// number); `None` if START does not reach it.
    pub fn predicate_of(&self, x: Block) -> Option<PredId> {
        self.node_pred
            .get(x.index())
            .copied()
            .filter(|&p| p != NONE)
            .map(PredId)
    }

    /// The nodes of the split graph whose predicate is `p` (a `~`-class, topmost
    /// first); empty for a dummy.
    pub fn blocks(&self, p: PredId) -> &[Block] {
        &self.members
            [self.member_start[p.index()] as usize..self.member_start[p.index() + 1] as usize]
    }

    /// Whether `p` is a dummy predicate of Alg 1.
    pub fn is_dummy(&self, p: PredId) -> bool {
        self.dummy[p.index()]
    }

    pub fn num_dummies(&self) -> usize {
        self.dummy.iter().filter(|&&d| d).count()
    }

    /// What node `x` of the split graph stands for (for names).
    pub fn node_origin(&self, x: Block) -> SplitNode {
        self.node_origin[x.index()]
    }

    /// The number of nodes of the split graph.
    pub fn num_nodes(&self) -> usize {
        self.node_pred.len()
    }

    pub fn num_partitions(&self) -> usize {
        self.part_parent.len()
    }

    pub fn partitions(&self) -> impl ExactSizeIterator<Item = PartitionId> {
        (0..self.num_partitions() as u32).map(PartitionId)
    }

    /// The predicate a partition divides.
    pub fn parent(&self, a: PartitionId) -> PredId {
        self.part_parent[a.index()]
    }

    /// The parts, in the order the construction found them (successor order for a
    /// branch, predecessor order for a merge, the completed predicate first for a
    /// completion).
    pub fn children(&self, a: PartitionId) -> &[PredId] {
        &self.children
            [self.child_start[a.index()] as usize..self.child_start[a.index() + 1] as usize]
    }

    /// The partitions of `p` (where `p` is the parent).
    pub fn partitions_of(&self, p: PredId) -> &[PartitionId] {
        &self.out[self.out_start[p.index()] as usize..self.out_start[p.index() + 1] as usize]
    }

    /// The partitions `p` is a part of.
    pub fn partitions_into(&self, p: PredId) -> &[PartitionId] {
        &self.inn[self.in_start[p.index()] as usize..self.in_start[p.index() + 1] as usize]
    }
}

/// Builds a [`Ppg`]: predicates first, then partitions (`make_partition` of the
/// report), then [`PpgBuilder::finish`].
pub(crate) struct PpgBuilder {
    construction: Construction,
    members: Vec<Vec<Block>>,
    dummy: Vec<bool>,
    node_pred: Vec<u32>,
    node_reachable: Vec<bool>,
    node_origin: Vec<SplitNode>,
    parts: Vec<(PredId, Vec<PredId>)>,
    /// Whether each predicate is a part of some partition.
    is_part: Vec<bool>,
    /// Each partition as (parent, sorted children): the constructions find some
    /// partitions twice (a diamond's branch and merge divide one predicate into the
    /// same parts), and one copy is enough.
    seen: HashSet<(PredId, Vec<PredId>)>,
}

impl PpgBuilder {
    pub(crate) fn new(construction: Construction, split: &SplitCfg) -> Self {
        let node_origin: Vec<SplitNode> = (0..split.num_nodes())
            .map(|i| split.origin(Block::new(i)))
            .collect();
        PpgBuilder {
            construction,
            members: Vec::new(),
            dummy: Vec::new(),
            node_pred: vec![NONE; node_origin.len()],
            node_reachable: split
                .cfg()
                .blocks()
                .map(|x| split.cfg().is_reachable(x))
                .collect(),
            node_origin,
            parts: Vec::new(),
            is_part: Vec::new(),
            seen: HashSet::default(),
        }
    }

    /// A predicate for the nodes `members` (one `~`-class, topmost first).
    pub(crate) fn class_predicate(&mut self, members: Vec<Block>) -> PredId {
        let p = PredId(self.dummy.len() as u32);
        for &x in &members {
            self.node_pred[x.index()] = p.0;
        }
        self.members.push(members);
        self.dummy.push(false);
        self.is_part.push(false);
        p
    }

    /// `new_predicate()` of Alg 1: a dummy.
    pub(crate) fn dummy_predicate(&mut self) -> PredId {
        let p = PredId(self.dummy.len() as u32);
        self.members.push(Vec::new());
        self.dummy.push(true);
        self.is_part.push(false);
        p
    }

    /// The members of `p`, as given to [`PpgBuilder::class_predicate`].
    pub(crate) fn members_of(&self, p: PredId) -> &[Block] {
        &self.members[p.index()]
    }

    pub(crate) fn predicate_of(&self, x: Block) -> PredId {
        PredId(self.node_pred[x.index()])
    }

    /// Whether some partition has `p` as a part.
    pub(crate) fn has_parent(&self, p: PredId) -> bool {
        self.is_part[p.index()]
    }

    /// `make_partition(parent, children)`: records `Domain(parent) = | children`.
    /// Repeated children are kept once (a branch whose successors share a
    /// predicate). A partition already recorded is not recorded again. A partition
    /// into fewer than two parts, or containing its parent, says nothing (or would be
    /// a cycle, contradicting Prop 8) and is refused: returns `false`.
    pub(crate) fn make_partition(
        &mut self,
        parent: PredId,
        children: impl IntoIterator<Item = PredId>,
    ) -> bool {
        let mut kids: Vec<PredId> = children.into_iter().collect();
        let mut key = kids.clone();
        key.sort_unstable();
        key.dedup();
        if key.len() < kids.len() {
            // keep the first occurrence of each part, in order
            let mut taken = HashSet::with_capacity_and_hasher(key.len(), Default::default());
            kids.retain(|c| taken.insert(*c));
        }
        if kids.len() < 2 || key.binary_search(&parent).is_ok() {
            return false;
        }
        if self.seen.insert((parent, key)) {
            for c in &kids {
                self.is_part[c.index()] = true;
            }
            self.parts.push((parent, kids));
        }
        true
    }

    pub(crate) fn finish(self, root: PredId) -> Ppg {
        let np = self.dummy.len();
        let mut member_start = Vec::with_capacity(np + 1);
        let mut members = Vec::new();
        member_start.push(0);
        for m in &self.members {
            members.extend_from_slice(m);
            member_start.push(members.len() as u32);
        }
        let mut part_parent = Vec::with_capacity(self.parts.len());
        let mut child_start = vec![0u32];
        let mut children = Vec::new();
        for (parent, kids) in &self.parts {
            part_parent.push(*parent);
            children.extend_from_slice(kids);
            child_start.push(children.len() as u32);
        }
        let (out_start, out) = csr(
            np,
            part_parent
                .iter()
                .enumerate()
                .map(|(a, p)| (p.index(), PartitionId(a as u32))),
        );
        let (in_start, inn) = csr(
            np,
            self.parts.iter().enumerate().flat_map(|(a, (_, kids))| {
                kids.iter().map(move |c| (c.index(), PartitionId(a as u32)))
            }),
        );
        let mut ppg = Ppg {
            construction: self.construction,
            root,
            member_start,
            members,
            dummy: self.dummy,
            node_pred: self.node_pred,
            node_reachable: self.node_reachable,
            node_origin: self.node_origin,
            part_parent,
            child_start,
            children,
            out_start,
            out,
            in_start,
            inn,
            rank: Vec::new(),
            topological: Vec::new(),
            acyclic: false,
        };
        ppg.compute_ranks();
        ppg
    }
}

impl Ppg {
    /// Kahn's algorithm from the predicates without a parent.
    fn compute_ranks(&mut self) {
        let np = self.num_predicates();
        let mut pending: Vec<u32> = (0..np)
            .map(|p| self.partitions_into(PredId(p as u32)).len() as u32)
            .collect();
        let mut ready: Vec<PredId> = self
            .predicates()
            .filter(|p| pending[p.index()] == 0)
            .collect();
        let mut rank = vec![NONE; np];
        let mut topological = Vec::with_capacity(np);
        while let Some(p) = ready.pop() {
            rank[p.index()] = topological.len() as u32;
            topological.push(p);
            for &a in self.partitions_of(p) {
                for &c in self.children(a) {
                    pending[c.index()] -= 1;
                    if pending[c.index()] == 0 {
                        ready.push(c);
                    }
                }
            }
        }
        self.acyclic = topological.len() == np;
        self.rank = rank;
        self.topological = topological;
    }
}

/// Compressed adjacency lists from `(row, item)` pairs, rows in `0..rows`, the items
/// of a row in the order given.
fn csr<T: Copy>(
    rows: usize,
    pairs: impl Iterator<Item = (usize, T)> + Clone,
) -> (Vec<u32>, Vec<T>) {
    let mut start = vec![0u32; rows + 1];
    for (r, _) in pairs.clone() {
        start[r + 1] += 1;
    }
    for r in 0..rows {
        start[r + 1] += start[r];
    }
    let mut fill = start.clone();
    let mut slots: Vec<Option<T>> = vec![None; start[rows] as usize];
    for (r, t) in pairs {
        slots[fill[r] as usize] = Some(t);
        fill[r] += 1;
    }
    (start, slots.into_iter().flatten().collect())
}
