//! The control dependence graph of a split CFG (§3.3), with edge labels: `a → y`
//! labelled by the CFG edge `a → b` that `y` depends on (`y` post-dominates `b`, not
//! strictly `a`). Built on [`ControlDependence`].
//!
//! On a split CFG, a label `a → b` is a branch edge and `b` has the single
//! predecessor `a`, so the edge is equivalent to `b`: a label is named by its target
//! `b`, and `pred_of_edge` of the report is `p_b`. The labels into `y` are
//! `PDF_succ(y)`, their sources `PDF(y)` (Defs 7 and after).

use crate::cfg::{Block, Cfg};
use crate::postdominators::{ControlDependence, PostDomTree};

/// The labelled CDG of a split CFG.
#[derive(Clone, Debug)]
pub struct Cdg {
    deps: ControlDependence,
    /// `out[a]`: the edges `a → y` as `(y, label b)`, CSR, by label in successor
    /// order then by `y` in index order.
    out_start: Vec<u32>,
    out: Vec<(Block, Block)>,
}

impl Cdg {
    /// The CDG of `cfg` (a split CFG, or its reverse) with its post-dominator tree
    /// `pdom` (for a split CFG: [`Classes::post_dom_tree`](super::Classes)).
    pub fn compute(cfg: &Cfg, pdom: &PostDomTree) -> Cdg {
        let deps = ControlDependence::compute(cfg, pdom);
        let n = cfg.num_blocks();
        let mut per_source: Vec<Vec<(Block, Block)>> = vec![Vec::new(); n];
        for y in cfg.reachable_blocks() {
            for &(a, b) in deps.dependences(y) {
                per_source[a.index()].push((y, b));
            }
        }
        // position[b]: where b is among its branch's successors (a label's target
        // has that branch as its only predecessor, so one array serves every branch)
        let mut position = vec![0u32; n];
        let mut out_start = Vec::with_capacity(n + 1);
        let mut out = Vec::new();
        out_start.push(0);
        for (a, mut edges) in per_source.into_iter().enumerate() {
            for (i, s) in cfg.succs(Block::new(a)).iter().enumerate() {
                position[s.index()] = i as u32;
            }
            edges.sort_by_key(|&(y, b)| (position[b.index()], y));
            out.extend(edges);
            out_start.push(out.len() as u32);
        }
        Cdg {
            deps,
            out_start,
            out,
        }
    }

    /// The number of nodes of the graph.
    pub fn num_nodes(&self) -> usize {
        self.out_start.len() - 1
    }

    /// The CDG edges into `y`, as CFG edges `(a, b)`: `y` depends on `a → b`.
    pub fn in_edges(&self, y: Block) -> &[(Block, Block)] {
        self.deps.dependences(y)
    }

    /// The CDG edges out of `a`, as `(y, b)`: `y` depends on `a → b`.
    pub fn out_edges(&self, a: Block) -> &[(Block, Block)] {
        match self.out_start.get(a.index() + 1) {
            Some(&hi) => &self.out[self.out_start[a.index()] as usize..hi as usize],
            None => &[],
        }
    }

    /// `PDF(y)`: the branches `y` depends on, without repeats.
    pub fn pdf(&self, y: Block) -> Vec<Block> {
        let mut sources: Vec<Block> = self.in_edges(y).iter().map(|&(a, _)| a).collect();
        sources.sort_unstable();
        sources.dedup();
        sources
    }

    /// `PDF_succ(y)`: the first nodes `y` post-dominates on the paths reaching it,
    /// the labels of its in-edges.
    pub fn pdf_succ(&self, y: Block) -> Vec<Block> {
        let mut labels: Vec<Block> = self.in_edges(y).iter().map(|&(_, b)| b).collect();
        labels.sort_unstable();
        labels.dedup();
        labels
    }
}
