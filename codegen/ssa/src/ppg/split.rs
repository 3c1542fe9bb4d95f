//! The preconditions of the report (§3.2): a reachable acyclic CFG with START and END,
//! every critical edge split (§3.2.1), and, on request, the START→END edge of Def 3.
//!
//! **Why split.** After splitting, every edge `(v, w)` has `|Out(v)| = 1` or
//! `|In(w)| = 1`, so every edge has an equivalent node (the new node, `v` or `w`): a
//! trace, a set of nodes, then names exactly one path, and branch and merge partitions
//! (Prop 5) hold. Parallel edges (a branch whose two successors are the same block)
//! are critical and each gets its own node, so they become distinct paths.
//!
//! **Numbering.** The split graph keeps the original blocks at their numbers (with
//! their successor lists in order, the split edges redirected to the new nodes) and
//! appends the new nodes: one per split edge, in the order of the source blocks and
//! their successor lists, then the node on the START→END edge, if any.
//!
//! **The START→END edge** ([`StartEndEdge`]). The report adds it "for convenience when
//! building the Control Dependence Graph": with it, START is post-dominated by END
//! only, so every other block has a post-dominance frontier and the CDG has the single
//! root START (Prop 6's proof uses this). It is always critical (START then has two
//! successors and END two predecessors), so it becomes a node `S→E` with one trace
//! `START, S→E, END` of its own. That trace is no execution: with it, START's predicate
//! is not the predicate of the blocks every execution runs, and `S→E` is a phantom
//! child of the root. The partitions do not need it (Alg 1 never reads it, and Alg 5
//! is exact without it: the blocks equivalent to START then have no control
//! dependence and share START's predicate; `tests/ppg_oracle.rs` checks both). So
//! [`StartEndEdge::Virtual`] (no edge) is the default, and [`StartEndEdge::Real`]
//! builds the report's graph.

use crate::cfg::{Block, Cfg};
use crate::dfs::{DfsOrder, EdgeKind};
use crate::ppg::error::PpgError;

/// Whether the split graph gets the START→END edge of Def 3.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum StartEndEdge {
    /// No edge: traces are the START→END paths of the CFG, and START's predicate is
    /// the predicate of every block all executions run.
    #[default]
    Virtual,
    /// The report's edge START→END, split into a node of its own (always critical).
    /// A CFG whose START is its END gets no edge (it would be a self-loop).
    Real,
}

/// What a node of the split graph stands for.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum SplitNode {
    /// A block of the original CFG (same number).
    Original(Block),
    /// The node splitting the critical edge `from -> to`, the `succ_index`-th
    /// successor of `from` (parallel edges differ by their index).
    Edge {
        from: Block,
        succ_index: u32,
        to: Block,
    },
    /// The node on the START→END edge of Def 3 ([`StartEndEdge::Real`]).
    StartEnd,
}

/// A CFG prepared for the PPG: acyclic, reachable, critical edges split, START→END
/// edge if requested.
#[derive(Clone, Debug)]
pub struct SplitCfg {
    cfg: Cfg,
    end: Block,
    num_original: usize,
    /// The origin of each node from `num_original` on.
    added: Vec<SplitNode>,
    /// For each edge of the original graph, by its position in the concatenated
    /// successor lists: the node splitting it, or `u32::MAX`.
    edge_split: Vec<u32>,
    /// Where each original block's successors start in `edge_split`.
    edge_start: Vec<u32>,
    start_end: Option<Block>,
}

const NOT_SPLIT: u32 = u32::MAX;

impl SplitCfg {
    /// Checks the preconditions on `cfg` (entry = START, `end` = END) and splits its
    /// critical edges. Blocks START does not reach keep their numbers and stay
    /// unreachable (ignored, as everywhere in this crate); their edges are not split.
    pub fn new(cfg: &Cfg, end: Block, start_end: StartEndEdge) -> Result<SplitCfg, PpgError> {
        check_end(cfg, end)?;
        check_acyclic(cfg)?;
        check_reaches_end(cfg, end)?;

        let n = cfg.num_blocks();
        let start = cfg.entry();
        let with_edge = start_end == StartEndEdge::Real && start != end;
        let out_degree = |b: Block| cfg.succs(b).len() + usize::from(with_edge && b == start);
        let in_degree = |b: Block| cfg.preds(b).len() + usize::from(with_edge && b == end);

        let mut added = Vec::new();
        let mut edge_start = Vec::with_capacity(n + 1);
        let mut edge_split = Vec::new();
        let mut succs: Vec<Vec<Block>> = Vec::with_capacity(n);
        for a in cfg.blocks() {
            edge_start.push(edge_split.len() as u32);
            let mut list = cfg.succs(a).to_vec();
            for (i, s) in list.iter_mut().enumerate() {
                let critical = cfg.is_reachable(a) && out_degree(a) > 1 && in_degree(*s) > 1;
                if critical {
                    let x = Block::new(n + added.len());
                    added.push(SplitNode::Edge {
                        from: a,
                        succ_index: i as u32,
                        to: *s,
                    });
                    edge_split.push(x.0);
                    *s = x;
                } else {
                    edge_split.push(NOT_SPLIT);
                }
            }
            succs.push(list);
        }
        edge_start.push(edge_split.len() as u32);
        for origin in &added {
            if let SplitNode::Edge { to, .. } = *origin {
                succs.push(vec![to]);
            }
        }
        let start_end_node = with_edge.then(|| {
            let x = Block::new(n + added.len());
            added.push(SplitNode::StartEnd);
            succs[start.index()].push(x);
            succs.push(vec![end]);
            x
        });

        Ok(SplitCfg {
            cfg: Cfg::from_successors(start, succs),
            end,
            num_original: n,
            added,
            edge_split,
            edge_start,
            start_end: start_end_node,
        })
    }

    /// The split graph (its entry is START).
    pub fn cfg(&self) -> &Cfg {
        &self.cfg
    }

    pub fn start(&self) -> Block {
        self.cfg.entry()
    }

    pub fn end(&self) -> Block {
        self.end
    }

    /// The number of blocks of the original CFG: nodes below it are original blocks.
    pub fn num_original_blocks(&self) -> usize {
        self.num_original
    }

    /// The number of nodes of the split graph.
    pub fn num_nodes(&self) -> usize {
        self.cfg.num_blocks()
    }

    /// What node `x` of the split graph stands for. Panics if `x` is not a node.
    pub fn origin(&self, x: Block) -> SplitNode {
        match x.index().checked_sub(self.num_original) {
            None => SplitNode::Original(x),
            Some(i) => self.added[i],
        }
    }

    /// The node added on the START→END edge ([`StartEndEdge::Real`]).
    pub fn start_end_node(&self) -> Option<Block> {
        self.start_end
    }

    /// The node splitting the `succ_index`-th edge out of original block `from`;
    /// `None` if that edge was not critical (or does not exist).
    pub fn split_node(&self, from: Block, succ_index: usize) -> Option<Block> {
        let lo = *self.edge_start.get(from.index())? as usize;
        let hi = self.edge_start[from.index() + 1] as usize;
        let x = *self.edge_split[lo..hi].get(succ_index)?;
        (x != NOT_SPLIT).then_some(Block(x))
    }

    /// The node whose traces are exactly those taking the `succ_index`-th edge out of
    /// original block `from`: its split node, else `from` if that is its only edge,
    /// else its target (then the target's only edge in). This is the node whose
    /// predicate guards the edge. `None` if there is no such edge.
    pub fn node_of_edge(&self, from: Block, succ_index: usize) -> Option<Block> {
        if let Some(x) = self.split_node(from, succ_index) {
            return Some(x);
        }
        if from.index() >= self.num_nodes() {
            return None;
        }
        let to = *self.cfg.succs(from).get(succ_index)?;
        Some(if self.cfg.succs(from).len() == 1 {
            from
        } else {
            to
        })
    }
}

/// END is a reachable block without successors.
pub(crate) fn check_end(cfg: &Cfg, end: Block) -> Result<(), PpgError> {
    if end.index() >= cfg.num_blocks() {
        return Err(PpgError::EndOutOfRange {
            end,
            num_blocks: cfg.num_blocks(),
        });
    }
    if !cfg.is_reachable(end) {
        return Err(PpgError::EndUnreachable(end));
    }
    if !cfg.succs(end).is_empty() {
        return Err(PpgError::EndHasSuccessors(end));
    }
    Ok(())
}

/// The reachable part has no cycle: no back edge in a depth-first search from START.
pub(crate) fn check_acyclic(cfg: &Cfg) -> Result<(), PpgError> {
    let dfs = DfsOrder::compute(cfg);
    for &a in dfs.preorder() {
        for &b in cfg.succs(a) {
            if dfs.classify(a, b) == EdgeKind::Back {
                return Err(PpgError::Cyclic { from: a, to: b });
            }
        }
    }
    Ok(())
}

/// Every reachable block has a path to END (Def 9).
pub(crate) fn check_reaches_end(cfg: &Cfg, end: Block) -> Result<(), PpgError> {
    let mut reaches = vec![false; cfg.num_blocks()];
    reaches[end.index()] = true;
    let mut stack = vec![end];
    while let Some(b) = stack.pop() {
        for &p in cfg.preds(b) {
            if !reaches[p.index()] {
                reaches[p.index()] = true;
                stack.push(p);
            }
        }
    }
    match cfg.reachable_blocks().find(|b| !reaches[b.index()]) {
        Some(b) => Err(PpgError::NoPathToEnd(b)),
        None => Ok(()),
    }
}
