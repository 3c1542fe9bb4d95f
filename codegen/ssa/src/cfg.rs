//! The control-flow graph the analyses run on: dense block indices, successor and
//! predecessor lists, an entry, and which blocks the entry reaches.

use std::fmt;

/// A basic block, as a dense index `0..Cfg::num_blocks()`.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Block(pub u32);

impl Block {
    pub fn new(index: usize) -> Self {
        Block(u32::try_from(index).expect("block index fits in u32"))
    }

    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Debug for Block {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "b{}", self.0)
    }
}

/// A control-flow graph over blocks `0..n`.
///
/// Successor lists keep their order and their duplicates: the `i`-th successor of a
/// block is its `i`-th outgoing edge (the one whose block arguments are the `i`-th
/// list of φ-uses). Blocks the entry does not reach are kept but *ignored* by every
/// analysis of this crate: they have no dominator, no loop, empty live sets, and their
/// edges are left out of the predecessor lists. The entry may have predecessors (a
/// function that starts with a loop).
#[derive(Clone, Debug)]
pub struct Cfg {
    entry: Block,
    succ_start: Vec<u32>,
    succ_list: Vec<Block>,
    pred_start: Vec<u32>,
    pred_list: Vec<Block>,
    reachable: Vec<bool>,
    num_reachable: usize,
}

impl Cfg {
    /// Builds the graph from each block's successors, in edge order.
    ///
    /// Panics if a successor or the entry is not a block of the graph.
    pub fn from_successors<I, S>(entry: Block, successors: I) -> Cfg
    where
        I: IntoIterator<Item = S>,
        S: IntoIterator<Item = Block>,
    {
        let mut succ_start = vec![0u32];
        let mut succ_list = Vec::new();
        for succs in successors {
            succ_list.extend(succs);
            succ_start.push(u32::try_from(succ_list.len()).expect("edge count fits in u32"));
        }
        let n = succ_start.len() - 1;
        assert!(
            entry.index() < n,
            "entry {entry:?} outside a graph of {n} blocks"
        );
        if let Some(bad) = succ_list.iter().find(|s| s.index() >= n) {
            panic!("successor {bad:?} outside a graph of {n} blocks");
        }

        // Reachability from the entry, with an explicit stack (graphs can be deep).
        let mut reachable = vec![false; n];
        let mut stack = vec![entry];
        reachable[entry.index()] = true;
        let mut num_reachable = 1;
        while let Some(b) = stack.pop() {
            let (lo, hi) = (
                succ_start[b.index()] as usize,
                succ_start[b.index() + 1] as usize,
            );
            for &s in &succ_list[lo..hi] {
                if !reachable[s.index()] {
                    reachable[s.index()] = true;
                    num_reachable += 1;
                    stack.push(s);
                }
            }
        }

        // Predecessors from reachable blocks only, one entry per edge, in the order of
        // the source blocks.
        let mut pred_count = vec![0u32; n + 1];
        for b in (0..n).filter(|&b| reachable[b]) {
            for s in &succ_list[succ_start[b] as usize..succ_start[b + 1] as usize] {
                pred_count[s.index() + 1] += 1;
            }
        }
        for i in 0..n {
            pred_count[i + 1] += pred_count[i];
        }
        let pred_start = pred_count.clone();
        let mut fill = pred_count;
        let mut pred_list = vec![Block(0); pred_start[n] as usize];
        for b in (0..n).filter(|&b| reachable[b]) {
            for s in &succ_list[succ_start[b] as usize..succ_start[b + 1] as usize] {
                pred_list[fill[s.index()] as usize] = Block::new(b);
                fill[s.index()] += 1;
            }
        }

        Cfg {
            entry,
            succ_start,
            succ_list,
            pred_start,
            pred_list,
            reachable,
            num_reachable,
        }
    }

    pub fn entry(&self) -> Block {
        self.entry
    }

    pub fn num_blocks(&self) -> usize {
        self.succ_start.len() - 1
    }

    /// Every block, reachable or not.
    pub fn blocks(&self) -> impl DoubleEndedIterator<Item = Block> + ExactSizeIterator {
        (0..self.num_blocks() as u32).map(Block)
    }

    /// The blocks the entry reaches, in index order.
    pub fn reachable_blocks(&self) -> impl Iterator<Item = Block> + '_ {
        self.blocks().filter(|&b| self.is_reachable(b))
    }

    pub fn num_reachable(&self) -> usize {
        self.num_reachable
    }

    pub fn is_reachable(&self, b: Block) -> bool {
        self.reachable[b.index()]
    }

    /// The successors of `b`, one per outgoing edge, in edge order.
    pub fn succs(&self, b: Block) -> &[Block] {
        &self.succ_list
            [self.succ_start[b.index()] as usize..self.succ_start[b.index() + 1] as usize]
    }

    /// The reachable predecessors of `b`, one per incoming edge.
    pub fn preds(&self, b: Block) -> &[Block] {
        &self.pred_list
            [self.pred_start[b.index()] as usize..self.pred_start[b.index() + 1] as usize]
    }

    /// The number of edges leaving reachable blocks.
    pub fn num_reachable_edges(&self) -> usize {
        self.pred_list.len()
    }
}

impl crate::graph::Node for Block {
    fn from_index(index: usize) -> Self {
        Block::new(index)
    }

    fn to_index(self) -> usize {
        self.index()
    }
}

impl crate::graph::Graph for Cfg {
    type Node = Block;

    fn num_nodes(&self) -> usize {
        self.num_blocks()
    }

    fn entry(&self) -> Block {
        self.entry
    }

    fn successors(&self, n: Block) -> &[Block] {
        self.succs(n)
    }

    fn predecessors(&self, n: Block) -> &[Block] {
        self.preds(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(i: u32) -> Block {
        Block(i)
    }

    #[test]
    fn preds_skip_unreachable_sources_and_keep_duplicate_edges() {
        // 0 -> 1 (twice), 1 -> 2, 3 -> 2 with 3 unreachable.
        let cfg =
            Cfg::from_successors(b(0), vec![vec![b(1), b(1)], vec![b(2)], vec![], vec![b(2)]]);
        assert_eq!(cfg.num_blocks(), 4);
        assert_eq!(cfg.num_reachable(), 3);
        assert!(!cfg.is_reachable(b(3)));
        assert_eq!(cfg.preds(b(1)), &[b(0), b(0)]);
        assert_eq!(
            cfg.preds(b(2)),
            &[b(1)],
            "the edge from unreachable 3 is left out"
        );
        assert_eq!(
            cfg.succs(b(3)),
            &[b(2)],
            "successor lists are kept as given"
        );
        assert_eq!(
            cfg.reachable_blocks().collect::<Vec<_>>(),
            vec![b(0), b(1), b(2)]
        );
    }

    #[test]
    #[should_panic(expected = "outside a graph")]
    fn rejects_out_of_range_successor() {
        Cfg::from_successors(b(0), vec![vec![b(5)]]);
    }
}
