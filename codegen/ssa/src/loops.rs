//! The loop-nesting forest (thesis §2.2): Ramalingam's SCC-based construction with one
//! header per loop, chosen among the loop's entries (a *connected*, minimal forest).
//!
//! Construction: find the strongly connected components of the reachable graph; each
//! non-trivial one (more than one block, or a self-loop) is a loop whose header is its
//! block of smallest depth-first preorder number. That block is the first of the
//! component the search entered, so it is an entry of the component (it has a
//! predecessor outside) or the CFG entry: the forest is connected (Thm 1). Remove the
//! loop's loop edges (edges from its body to its header) and decompose its body again
//! for the nested loops, until no cycle is left. One header per loop is the
//! Havlak-style forest that §3.4 says simplifies edge redirection (Alg 12): the δ node
//! of a loop merges with its header.
//!
//! Complexity: O((V + E) · (d + 1)) where d is the maximal loop depth (each level of
//! the decomposition is one linear SCC pass over the blocks still in loops).
//!
//! Loops are numbered in a preorder of the forest (a loop before the loops it
//! contains), and blocks are stored grouped by innermost loop in that order, so the
//! body of a loop, nested loops included, is one contiguous slice.

use std::fmt;

use crate::cfg::{Block, Cfg};
use crate::dfs::DfsOrder;

/// A loop of a [`LoopForest`], as a dense index in preorder of the forest.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LoopId(pub u32);

impl LoopId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Debug for LoopId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "loop{}", self.0)
    }
}

#[derive(Clone, Debug)]
struct LoopData {
    header: Block,
    parent: Option<LoopId>,
    /// 1 for an outermost loop.
    depth: u32,
    /// One past the last loop of this loop's subtree (loops are in preorder).
    subtree_end: u32,
    children: Vec<LoopId>,
}

/// A minimal connected loop-nesting forest with one header per loop.
#[derive(Clone, Debug)]
pub struct LoopForest {
    loops: Vec<LoopData>,
    innermost: Vec<Option<LoopId>>,
    /// Reachable blocks grouped by innermost loop: first those in no loop, then loop 0's,
    /// loop 1's, ... (`group_start[l]` is where loop `l`'s group starts; one extra entry
    /// for the end).
    grouped: Vec<Block>,
    group_start: Vec<u32>,
}

impl LoopForest {
    pub fn compute(cfg: &Cfg) -> LoopForest {
        LoopForest::from_dfs(cfg, &DfsOrder::compute(cfg))
    }

    /// Builds the forest; `dfs` chooses the headers (smallest preorder number).
    pub fn from_dfs(cfg: &Cfg, dfs: &DfsOrder) -> LoopForest {
        let n = cfg.num_blocks();
        let mut scc = SccFinder::new(n);
        // Loops in creation order: a loop is created before the loops nested in it.
        let mut created: Vec<(Block, Option<usize>)> = Vec::new();
        let mut innermost_created: Vec<Option<usize>> = vec![None; n];
        // Regions still to decompose: (blocks, the loop they form, its header).
        let mut work: Vec<(Vec<Block>, Option<usize>, Option<Block>)> =
            vec![(dfs.preorder().to_vec(), None, None)];
        while let Some((region, parent, header)) = work.pop() {
            for component in scc.nontrivial_components(cfg, &region, header) {
                let header = *component
                    .iter()
                    .min_by_key(|&&b| dfs.pre_number(b).expect("reachable"))
                    .expect("components are non-empty");
                let id = created.len();
                created.push((header, parent));
                for &b in &component {
                    innermost_created[b.index()] = Some(id);
                }
                work.push((component, Some(id), Some(header)));
            }
        }

        // Renumber in preorder of the forest.
        let m = created.len();
        let mut kids: Vec<Vec<usize>> = vec![Vec::new(); m];
        let mut roots = Vec::new();
        for (id, &(_, parent)) in created.iter().enumerate() {
            match parent {
                Some(p) => kids[p].push(id),
                None => roots.push(id),
            }
        }
        let mut new_id = vec![0u32; m];
        let mut order = Vec::with_capacity(m);
        let mut stack: Vec<usize> = roots.iter().rev().copied().collect();
        while let Some(l) = stack.pop() {
            new_id[l] = order.len() as u32;
            order.push(l);
            stack.extend(kids[l].iter().rev());
        }
        let mut loops: Vec<LoopData> = order
            .iter()
            .map(|&old| LoopData {
                header: created[old].0,
                parent: created[old].1.map(|p| LoopId(new_id[p])),
                depth: 1,
                subtree_end: 0,
                children: kids[old].iter().map(|&k| LoopId(new_id[k])).collect(),
            })
            .collect();
        for l in 0..m {
            if let Some(p) = loops[l].parent {
                loops[l].depth = loops[p.index()].depth + 1;
            }
        }
        // Subtree ends, children before parents (reverse preorder).
        for l in (0..m).rev() {
            let end = loops[l]
                .children
                .iter()
                .map(|c| loops[c.index()].subtree_end)
                .max();
            loops[l].subtree_end = end.unwrap_or(l as u32 + 1);
        }
        let innermost: Vec<Option<LoopId>> = innermost_created
            .iter()
            .map(|o| o.map(|l| LoopId(new_id[l])))
            .collect();

        // Group blocks by innermost loop (counting sort; slot 0 is "no loop").
        let mut group_start = vec![0u32; m + 2];
        for b in cfg.reachable_blocks() {
            group_start[innermost[b.index()].map_or(0, |l| l.index() + 1) + 1] += 1;
        }
        for i in 0..m + 1 {
            group_start[i + 1] += group_start[i];
        }
        let mut fill = group_start.clone();
        let mut grouped = vec![Block(0); cfg.num_reachable()];
        for b in cfg.reachable_blocks() {
            let slot = innermost[b.index()].map_or(0, |l| l.index() + 1);
            grouped[fill[slot] as usize] = b;
            fill[slot] += 1;
        }
        group_start.remove(0);

        LoopForest {
            loops,
            innermost,
            grouped,
            group_start,
        }
    }

    pub fn num_loops(&self) -> usize {
        self.loops.len()
    }

    /// Every loop, in preorder of the forest (a loop before the loops it contains).
    pub fn loops(&self) -> impl DoubleEndedIterator<Item = LoopId> + ExactSizeIterator {
        (0..self.loops.len() as u32).map(LoopId)
    }

    pub fn header(&self, l: LoopId) -> Block {
        self.loops[l.index()].header
    }

    pub fn parent(&self, l: LoopId) -> Option<LoopId> {
        self.loops[l.index()].parent
    }

    /// The nesting depth of a loop: 1 for an outermost loop.
    pub fn depth(&self, l: LoopId) -> u32 {
        self.loops[l.index()].depth
    }

    /// The loops directly nested in `l`.
    pub fn children(&self, l: LoopId) -> &[LoopId] {
        &self.loops[l.index()].children
    }

    /// The outermost loops.
    pub fn roots(&self) -> impl Iterator<Item = LoopId> + '_ {
        self.loops().filter(|&l| self.parent(l).is_none())
    }

    /// The innermost loop containing `b`; `None` if `b` is in no loop or unreachable.
    pub fn innermost_loop(&self, b: Block) -> Option<LoopId> {
        self.innermost[b.index()]
    }

    /// The loop `b` is the header of, if any.
    pub fn loop_headed_by(&self, b: Block) -> Option<LoopId> {
        self.innermost_loop(b).filter(|&l| self.header(l) == b)
    }

    /// The number of loops containing `b` (0 outside loops): the weight of spill and
    /// copy costs.
    pub fn loop_depth(&self, b: Block) -> u32 {
        self.innermost_loop(b).map_or(0, |l| self.depth(l))
    }

    /// Whether loop `outer` contains loop `inner` (reflexive). O(1).
    pub fn loop_contains_loop(&self, outer: LoopId, inner: LoopId) -> bool {
        outer <= inner && inner.0 < self.loops[outer.index()].subtree_end
    }

    /// Whether block `b` is in the body of loop `l` (nested loops included). O(1).
    pub fn contains(&self, l: LoopId, b: Block) -> bool {
        self.innermost_loop(b)
            .is_some_and(|i| self.loop_contains_loop(l, i))
    }

    /// The blocks whose innermost loop is `l`.
    pub fn direct_blocks(&self, l: LoopId) -> &[Block] {
        &self.grouped
            [self.group_start[l.index()] as usize..self.group_start[l.index() + 1] as usize]
    }

    /// Every block of the body of `l`, nested loops included.
    pub fn body(&self, l: LoopId) -> &[Block] {
        let end = self.loops[l.index()].subtree_end as usize;
        &self.grouped[self.group_start[l.index()] as usize..self.group_start[end] as usize]
    }

    /// The reachable blocks in no loop.
    pub fn blocks_outside_loops(&self) -> &[Block] {
        &self.grouped[..self.group_start[0] as usize]
    }

    /// The largest loop that contains `b` but not `excluded` (thesis Alg 11,
    /// "GreatestNonCommonAncestor"); `None` if every loop containing `b` contains
    /// `excluded`. Walks up from `b`'s innermost loop: O(loop depth).
    pub fn outermost_loop_excluding(&self, b: Block, excluded: Block) -> Option<LoopId> {
        let mut l = self.innermost_loop(b)?;
        if self.contains(l, excluded) {
            return None;
        }
        while let Some(p) = self.parent(l) {
            if self.contains(p, excluded) {
                break;
            }
            l = p;
        }
        Some(l)
    }

    /// Whether `from -> to` is a loop edge: `to` heads a loop that contains `from`.
    pub fn is_loop_edge(&self, from: Block, to: Block) -> bool {
        self.loop_headed_by(to)
            .is_some_and(|l| self.contains(l, from))
    }
}

/// Tarjan's SCC algorithm, iterative, restricted to a region of the graph and with the
/// edges into one block (the region's header) removed. Its arrays are allocated once
/// and reset per region, so a level of the decomposition costs O(region + its edges).
struct SccFinder {
    stamp: Vec<u32>,
    current: u32,
    index: Vec<u32>,
    low: Vec<u32>,
    on_stack: Vec<bool>,
}

impl SccFinder {
    fn new(n: usize) -> Self {
        SccFinder {
            stamp: vec![0; n],
            current: 0,
            index: vec![0; n],
            low: vec![0; n],
            on_stack: vec![false; n],
        }
    }

    /// The components of `region` with a cycle, ignoring edges that leave the region
    /// and edges into `removed_target`.
    fn nontrivial_components(
        &mut self,
        cfg: &Cfg,
        region: &[Block],
        removed_target: Option<Block>,
    ) -> Vec<Vec<Block>> {
        const UNVISITED: u32 = u32::MAX;
        self.current += 1;
        let stamp = self.current;
        for &b in region {
            self.stamp[b.index()] = stamp;
            self.index[b.index()] = UNVISITED;
        }
        let followed =
            |stamp_of: &[u32], s: Block| stamp_of[s.index()] == stamp && Some(s) != removed_target;
        let mut found = Vec::new();
        let mut counter = 0u32;
        let mut tarjan_stack: Vec<Block> = Vec::new();
        let mut calls: Vec<(Block, usize)> = Vec::new();
        for &root in region {
            if self.index[root.index()] != UNVISITED {
                continue;
            }
            self.index[root.index()] = counter;
            self.low[root.index()] = counter;
            counter += 1;
            tarjan_stack.push(root);
            self.on_stack[root.index()] = true;
            calls.push((root, 0));
            while let Some(&mut (v, ref mut next)) = calls.last_mut() {
                let succs = cfg.succs(v);
                if let Some(&w) = succs.get(*next) {
                    *next += 1;
                    if !followed(&self.stamp, w) {
                        continue;
                    }
                    if self.index[w.index()] == UNVISITED {
                        self.index[w.index()] = counter;
                        self.low[w.index()] = counter;
                        counter += 1;
                        tarjan_stack.push(w);
                        self.on_stack[w.index()] = true;
                        calls.push((w, 0));
                    } else if self.on_stack[w.index()] {
                        self.low[v.index()] = self.low[v.index()].min(self.index[w.index()]);
                    }
                    continue;
                }
                calls.pop();
                if let Some(&(u, _)) = calls.last() {
                    self.low[u.index()] = self.low[u.index()].min(self.low[v.index()]);
                }
                if self.low[v.index()] == self.index[v.index()] {
                    let mut component = Vec::new();
                    loop {
                        let w = tarjan_stack.pop().expect("v is on the stack");
                        self.on_stack[w.index()] = false;
                        component.push(w);
                        if w == v {
                            break;
                        }
                    }
                    let cyclic = component.len() > 1
                        || cfg
                            .succs(v)
                            .iter()
                            .any(|&s| s == v && followed(&self.stamp, s));
                    if cyclic {
                        found.push(component);
                    }
                }
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(succs: &[&[u32]]) -> Cfg {
        Cfg::from_successors(Block(0), succs.iter().map(|s| s.iter().map(|&i| Block(i))))
    }

    /// Thesis Fig 3.2-like: four nested loops with headers 1, 2, 3, 4, the innermost
    /// body {4, 5}; exit 1 -> 6.
    pub(crate) fn nested_loops() -> Cfg {
        cfg(&[&[1], &[2, 6], &[3, 1], &[4, 2], &[5, 3], &[4], &[]])
    }

    #[test]
    fn nested_loops_have_increasing_depth() {
        let g = nested_loops();
        let f = LoopForest::compute(&g);
        assert_eq!(f.num_loops(), 4);
        let b = Block;
        for (h, depth) in [(1, 1), (2, 2), (3, 3), (4, 4)] {
            let l = f.loop_headed_by(b(h)).expect("a header");
            assert_eq!(f.depth(l), depth);
            let mut body = f.body(l).to_vec();
            body.sort();
            assert_eq!(body, (h..=5).map(Block).collect::<Vec<_>>());
        }
        assert_eq!(f.loop_depth(b(5)), 4);
        assert_eq!(f.loop_depth(b(0)), 0);
        assert_eq!(f.loop_depth(b(6)), 0);
        let mut outside = f.blocks_outside_loops().to_vec();
        outside.sort();
        assert_eq!(outside, vec![b(0), b(6)]);
        assert!(f.is_loop_edge(b(5), b(4)));
        assert!(f.is_loop_edge(b(2), b(1)));
        assert!(!f.is_loop_edge(b(1), b(2)));
        let inner = f.innermost_loop(b(5)).unwrap();
        let outer = f.loop_headed_by(b(1)).unwrap();
        assert_eq!(f.outermost_loop_excluding(b(5), b(0)), Some(outer));
        assert_eq!(f.outermost_loop_excluding(b(5), b(3)), Some(inner));
        assert_eq!(f.outermost_loop_excluding(b(5), b(4)), None);
        assert_eq!(f.outermost_loop_excluding(b(6), b(0)), None);
    }

    #[test]
    fn irreducible_cycle_gets_one_header_among_its_entries() {
        // 0 -> 1, 2; 1 <-> 2 (two entries into one cycle); 2 -> 3
        let g = cfg(&[&[1, 2], &[2], &[1, 3], &[]]);
        let f = LoopForest::compute(&g);
        assert_eq!(f.num_loops(), 1);
        let l = LoopId(0);
        assert_eq!(f.header(l), Block(1), "first entry the search reaches");
        assert!(f.is_loop_edge(Block(2), Block(1)));
        assert!(!f.is_loop_edge(Block(1), Block(2)));
        assert!(!f.is_loop_edge(Block(0), Block(1)));
    }

    #[test]
    fn self_loops_and_a_looping_entry() {
        // 0 -> 0, 1; 1 -> 1, 0
        let g = cfg(&[&[0, 1], &[1, 0]]);
        let f = LoopForest::compute(&g);
        // Outer loop {0, 1} headed by 0; after removing edges into 0, {1} with its
        // self-loop is nested.
        assert_eq!(f.num_loops(), 2);
        assert_eq!(f.header(LoopId(0)), Block(0));
        assert_eq!(f.header(LoopId(1)), Block(1));
        assert_eq!(f.parent(LoopId(1)), Some(LoopId(0)));
        assert!(f.is_loop_edge(Block(0), Block(0)));
        assert!(f.is_loop_edge(Block(1), Block(1)));
    }
}
