//! Reducible CFGs (§4.2): one acyclic graph, and one PPG, per level of the
//! loop-nesting forest.
//!
//! In a loop, a "trace" could take both arms of a branch in different iterations, so
//! domains over the whole CFG mean nothing. The report splits the CFG by the
//! loop-nesting forest ([`LoopForest`], whose loops on a reducible CFG are the natural
//! loops):
//!
//! - the **function's region** is the CFG with each outermost loop collapsed into one
//!   node, its header ([`RegionNode::Loop`]);
//! - each **loop's region** is its body with its nested loops collapsed, a fresh
//!   [`RegionNode::Start`] whose only successor is the header, a fresh
//!   [`RegionNode::End`], its back edges (to the header) redirected to END (one
//!   iteration is one trace), and each edge leaving the loop for `v` redirected to a
//!   node `★(v)` ([`RegionNode::Exit`]) whose only successor is END.
//!
//! A collapsed loop has one edge to each of its exit targets (it leaves once, for one
//! of them): the edge `loop(L) → v` of the enclosing region and the node `★(v)` of
//! `L`'s region stand for the same event, and [`PpgForest::exit_predicate`] gives
//! both. Parallel edges out of a block are kept (and split), as in the acyclic case.
//!
//! Each region graph is acyclic (the graph is reducible) and reachable, so it goes
//! through [`SplitCfg`] and Alg 1 or Alg 5 like any acyclic CFG. A block's predicate
//! is in the region of its innermost loop; a loop header's is the root of its loop's
//! PPG (it runs at every iteration), and [`PpgForest::loop_predicate`] gives the
//! predicate of the whole loop in the enclosing region. Queries between predicates of
//! different regions answer `false` or `None`: code must not move across loop levels
//! (§5.1).
//!
//! Irreducible CFGs are rejected ([`PpgError::Irreducible`]): an edge entering a loop
//! elsewhere than at its header.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::fmt::{self, Write};

use crate::cfg::{Block, Cfg};
use crate::loops::{LoopForest, LoopId};
use crate::ppg::check::CheckError;
use crate::ppg::dot::escape;
use crate::ppg::error::PpgError;
use crate::ppg::partition_graph::{Construction, Ppg, PredId};
use crate::ppg::split::{self, SplitCfg, SplitNode, StartEndEdge};

/// A region of a [`PpgForest`]: 0 is the function, loop `l` is region `l + 1`.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RegionId(pub u32);

impl RegionId {
    pub const FUNCTION: RegionId = RegionId(0);

    pub fn index(self) -> usize {
        self.0 as usize
    }

    fn of_loop(l: LoopId) -> RegionId {
        RegionId(l.0 + 1)
    }
}

impl fmt::Debug for RegionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "region{}", self.0)
    }
}

/// What a node of a region graph stands for.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum RegionNode {
    /// The fresh START of a loop's region.
    Start,
    /// The fresh END of a loop's region (back edges lead to it).
    End,
    /// A block whose innermost loop is the region's (for a loop, its header too).
    Block(Block),
    /// A nested loop, collapsed into its header.
    Loop { header: Block, region: RegionId },
    /// `★(v)`: leaving the region's loop for block `v`.
    Exit(Block),
}

/// A predicate of one region of a [`PpgForest`].
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct ForestPred {
    pub region: RegionId,
    pub pred: PredId,
}

/// One level of the forest: its acyclic graph, split, and its PPG.
#[derive(Clone, Debug)]
pub struct Region {
    loop_id: Option<LoopId>,
    parent: Option<RegionId>,
    /// Node `i` of the region graph (before splitting) stands for `nodes[i]`.
    nodes: Vec<RegionNode>,
    node_of: HashMap<RegionNode, Block>,
    split: SplitCfg,
    ppg: Ppg,
}

impl Region {
    /// The loop of the region; `None` for the function.
    pub fn loop_id(&self) -> Option<LoopId> {
        self.loop_id
    }

    /// The enclosing region; `None` for the function.
    pub fn parent(&self) -> Option<RegionId> {
        self.parent
    }

    /// The region graph, split (its original nodes are the region nodes).
    pub fn split(&self) -> &SplitCfg {
        &self.split
    }

    pub fn ppg(&self) -> &Ppg {
        &self.ppg
    }

    /// The number of nodes of the region graph before splitting.
    pub fn num_nodes(&self) -> usize {
        self.nodes.len()
    }

    /// What node `x` of the region graph (before splitting) stands for.
    pub fn node(&self, x: Block) -> Option<RegionNode> {
        self.nodes.get(x.index()).copied()
    }

    /// The node standing for `what`.
    pub fn find(&self, what: RegionNode) -> Option<Block> {
        self.node_of.get(&what).copied()
    }

    /// The name of a node of the split region graph, for dumps.
    pub fn node_name(&self, x: Block) -> String {
        let name = |y: Block| match self.node(y) {
            Some(RegionNode::Start) => "START".to_string(),
            Some(RegionNode::End) => "END".to_string(),
            Some(RegionNode::Block(b)) => format!("b{}", b.0),
            Some(RegionNode::Loop { header, .. }) => format!("loop(b{})", header.0),
            Some(RegionNode::Exit(v)) => format!("★(b{})", v.0),
            None => format!("?{}", y.0),
        };
        match self.split.origin(x) {
            SplitNode::Original(y) => name(y),
            SplitNode::Edge { from, to, .. } => format!("{}→{}", name(from), name(to)),
            SplitNode::StartEnd => "START→END".to_string(),
        }
    }
}

/// The PPGs of a reducible CFG, one per region of its loop-nesting forest.
#[derive(Clone, Debug)]
pub struct PpgForest {
    loops: LoopForest,
    regions: Vec<Region>,
    /// For each block: its region and its node there; `None` if unreachable.
    block_node: Vec<Option<(RegionId, Block)>>,
}

impl PpgForest {
    /// Splits `cfg` (entry = START, `end` = END, reducible, every reachable block
    /// reaching END) into regions and builds each region's PPG with `construction`.
    pub fn build(
        cfg: &Cfg,
        end: Block,
        start_end: StartEndEdge,
        construction: Construction,
    ) -> Result<PpgForest, PpgError> {
        split::check_end(cfg, end)?;
        split::check_reaches_end(cfg, end)?;
        let loops = LoopForest::compute(cfg);
        check_reducible(cfg, &loops)?;

        let exits_of = loop_exits(cfg, &loops);
        let mut regions = Vec::with_capacity(loops.num_loops() + 1);
        let mut block_node = vec![None; cfg.num_blocks()];
        for r in 0..=loops.num_loops() {
            let l = r.checked_sub(1).map(|i| LoopId(i as u32));
            let graph = RegionGraph::build(cfg, end, &loops, &exits_of, l);
            for (i, node) in graph.nodes.iter().enumerate() {
                if let RegionNode::Block(b) = *node {
                    block_node[b.index()] = Some((RegionId(r as u32), Block::new(i)));
                }
            }
            let split = SplitCfg::new(&graph.cfg, graph.end, start_end)?;
            let ppg = Ppg::build(&split, construction);
            regions.push(Region {
                loop_id: l,
                parent: l.map(|l| match loops.parent(l) {
                    Some(p) => RegionId::of_loop(p),
                    None => RegionId::FUNCTION,
                }),
                node_of: graph
                    .nodes
                    .iter()
                    .enumerate()
                    .map(|(i, &n)| (n, Block::new(i)))
                    .collect(),
                nodes: graph.nodes,
                split,
                ppg,
            });
        }
        Ok(PpgForest {
            loops,
            regions,
            block_node,
        })
    }

    pub fn loop_forest(&self) -> &LoopForest {
        &self.loops
    }

    pub fn num_regions(&self) -> usize {
        self.regions.len()
    }

    pub fn regions(&self) -> impl ExactSizeIterator<Item = RegionId> {
        (0..self.regions.len() as u32).map(RegionId)
    }

    pub fn region(&self, r: RegionId) -> &Region {
        &self.regions[r.index()]
    }

    /// The region of loop `l`.
    pub fn region_of_loop(&self, l: LoopId) -> RegionId {
        RegionId::of_loop(l)
    }

    /// The region of `b`'s innermost loop (the function's if none); `None` if START
    /// does not reach `b`.
    pub fn region_of_block(&self, b: Block) -> Option<RegionId> {
        self.block_node
            .get(b.index())
            .copied()
            .flatten()
            .map(|(r, _)| r)
    }

    /// The predicate of block `b`, in the region of its innermost loop.
    pub fn predicate_of(&self, b: Block) -> Option<ForestPred> {
        let (r, x) = self.block_node.get(b.index()).copied().flatten()?;
        self.pred_in(r, x)
    }

    /// The predicate of loop `l` as a whole (its collapsed node), in the enclosing
    /// region: the traces there that run the loop.
    pub fn loop_predicate(&self, l: LoopId) -> Option<ForestPred> {
        let parent = self.region(self.region_of_loop(l)).parent?;
        let x = self.region(parent).find(RegionNode::Loop {
            header: self.loops.header(l),
            region: self.region_of_loop(l),
        })?;
        self.pred_in(parent, x)
    }

    /// Leaving loop `l` for block `v`: the predicate of `★(v)` in `l`'s region (the
    /// iterations that leave for `v`) and the predicate of the edge `loop(l) → v` in
    /// the enclosing region (the traces there that leave `l` for `v`; `loop(l) → END`
    /// if `v` heads the enclosing loop). `None` if `l` has no edge to `v`.
    pub fn exit_predicate(&self, l: LoopId, v: Block) -> Option<(ForestPred, ForestPred)> {
        let inner = self.region_of_loop(l);
        let star = self.region(inner).find(RegionNode::Exit(v))?;
        let parent = self.region(inner).parent?;
        let outer = self.region(parent);
        let from = outer.find(RegionNode::Loop {
            header: self.loops.header(l),
            region: inner,
        })?;
        // Where `v` is in the enclosing region: its END if `v` heads the enclosing
        // loop (the edge is a back edge there), else `v`, its collapsed loop, or
        // ★(v); the edge there may have been split.
        let heads_parent = outer.loop_id.is_some_and(|m| self.loops.header(m) == v);
        let target = if heads_parent {
            outer.find(RegionNode::End)?
        } else {
            self.node_in(parent, v)?
        };
        let index = outer.split.cfg().succs(from).iter().position(|&to| {
            to == target
                || matches!(outer.split.origin(to), SplitNode::Edge { to, .. } if to == target)
        })?;
        let edge = outer.split.node_of_edge(from, index)?;
        Some((self.pred_in(inner, star)?, self.pred_in(parent, edge)?))
    }

    /// Whether `Domain(p) ⊆ Domain(q)`; `false` across regions.
    pub fn implies(&self, p: ForestPred, q: ForestPred) -> bool {
        p.region == q.region && self.region(p.region).ppg.implies(p.pred, q.pred)
    }

    /// Whether `p` and `q` are provably disjoint; `false` across regions.
    pub fn disjoint(&self, p: ForestPred, q: ForestPred) -> bool {
        p.region == q.region && self.region(p.region).ppg.disjoint(p.pred, q.pred)
    }

    /// Whether `qs` provably cover `p`; `false` if some `q` is in another region.
    pub fn covers(&self, p: ForestPred, qs: &[ForestPred]) -> bool {
        if qs.iter().any(|q| q.region != p.region) {
            return false;
        }
        let qs: Vec<PredId> = qs.iter().map(|q| q.pred).collect();
        self.region(p.region).ppg.covers(p.pred, &qs)
    }

    /// The complement of `p` in `q` along a path; `None` across regions.
    pub fn complement(&self, q: ForestPred, p: ForestPred) -> Option<Vec<ForestPred>> {
        if p.region != q.region {
            return None;
        }
        let rest = self.region(p.region).ppg.complement(q.pred, p.pred)?;
        Some(
            rest.into_iter()
                .map(|pred| ForestPred {
                    region: p.region,
                    pred,
                })
                .collect(),
        )
    }

    /// [`Ppg::check`] on every region.
    pub fn check(&self) -> Result<(), (RegionId, CheckError)> {
        for r in self.regions() {
            self.region(r).ppg.check().map_err(|e| (r, e))?;
        }
        Ok(())
    }

    /// All regions in one Graphviz graph, one cluster each; a dashed edge joins each
    /// collapsed loop's predicate to the root of the loop's region.
    pub fn to_dot(&self) -> String {
        let mut out = String::from("digraph ppg_forest {\n  compound=true;\n");
        for r in self.regions() {
            let region = self.region(r);
            let title = match region.loop_id {
                None => "function".to_string(),
                Some(l) => format!(
                    "loop headed by b{} (depth {})",
                    self.loops.header(l).0,
                    self.loops.depth(l)
                ),
            };
            let _ = writeln!(out, "  subgraph cluster_r{} {{", r.0);
            let _ = writeln!(out, "  label=\"{}\";", escape(&title));
            region
                .ppg
                .write_dot_body(&mut out, &format!("r{}_", r.0), &|x| region.node_name(x));
            out.push_str("  }\n");
        }
        for l in self.loops.loops() {
            let inner = self.region_of_loop(l);
            if let Some(outer) = self.loop_predicate(l) {
                let _ = writeln!(
                    out,
                    "  r{}_p{} -> r{}_p{} [style=dashed, label=\"loop\"];",
                    outer.region.0,
                    outer.pred.0,
                    inner.0,
                    self.region(inner).ppg.root().0
                );
            }
        }
        out.push_str("}\n");
        out
    }

    fn pred_in(&self, r: RegionId, x: Block) -> Option<ForestPred> {
        let pred = self.region(r).ppg.predicate_of(x)?;
        Some(ForestPred { region: r, pred })
    }

    /// The node standing for block `v` in region `r`: `v`, its loop collapsed, or
    /// `★(v)` if `v` is outside `r`'s loop.
    fn node_in(&self, r: RegionId, v: Block) -> Option<Block> {
        let region = self.region(r);
        let l = region.loop_id;
        match representative(&self.loops, l, v) {
            Representative::Outside => region.find(RegionNode::Exit(v)),
            Representative::Block => region.find(RegionNode::Block(v)),
            Representative::Loop(m) => region.find(RegionNode::Loop {
                header: self.loops.header(m),
                region: RegionId::of_loop(m),
            }),
        }
    }
}

/// A reducible CFG enters each loop at its header only: for every edge `a → b`, the
/// largest loop containing `b` but not `a`, if any, is headed by `b` (a smaller one
/// would be nested in it, and a loop's header is in no loop nested in it).
fn check_reducible(cfg: &Cfg, loops: &LoopForest) -> Result<(), PpgError> {
    for a in cfg.reachable_blocks() {
        for &b in cfg.succs(a) {
            if let Some(m) = loops.outermost_loop_excluding(b, a)
                && loops.header(m) != b
            {
                return Err(PpgError::Irreducible {
                    from: a,
                    to: b,
                    header: loops.header(m),
                });
            }
        }
    }
    Ok(())
}

/// The edges leaving each loop: `a -> b` leaves the loops containing `a` but not `b`.
/// O(E · loops left per edge).
fn loop_exits(cfg: &Cfg, loops: &LoopForest) -> Vec<Vec<(Block, Block)>> {
    let mut exits = vec![Vec::new(); loops.num_loops()];
    for a in cfg.reachable_blocks() {
        for &b in cfg.succs(a) {
            let mut m = loops.innermost_loop(a);
            while let Some(l) = m
                && !loops.contains(l, b)
            {
                exits[l.index()].push((a, b));
                m = loops.parent(l);
            }
        }
    }
    exits
}

/// How a block appears in the region of loop `l` (`None`: the function).
enum Representative {
    /// Outside `l`.
    Outside,
    /// As itself: its innermost loop is `l`.
    Block,
    /// Inside this loop, directly nested in `l`.
    Loop(LoopId),
}

fn representative(loops: &LoopForest, l: Option<LoopId>, b: Block) -> Representative {
    if let Some(l) = l
        && !loops.contains(l, b)
    {
        return Representative::Outside;
    }
    let Some(mut m) = loops.innermost_loop(b) else {
        return Representative::Block;
    };
    if Some(m) == l {
        return Representative::Block;
    }
    while loops.parent(m) != l {
        match loops.parent(m) {
            Some(p) => m = p,
            None => break,
        }
    }
    Representative::Loop(m)
}

/// The acyclic graph of one region, before splitting.
struct RegionGraph {
    cfg: Cfg,
    end: Block,
    nodes: Vec<RegionNode>,
}

impl RegionGraph {
    /// The graph of the region of `l` (`None`: the function); `exits_of[m]` lists
    /// the edges leaving loop `m`.
    fn build(
        cfg: &Cfg,
        end: Block,
        loops: &LoopForest,
        exits_of: &[Vec<(Block, Block)>],
        l: Option<LoopId>,
    ) -> RegionGraph {
        let region_of = |m: LoopId| RegionId::of_loop(m);
        let mut nodes = Vec::new();
        let mut index = HashMap::default();
        let mut add = |nodes: &mut Vec<RegionNode>, n: RegionNode| {
            *index.entry(n).or_insert_with(|| {
                nodes.push(n);
                nodes.len() - 1
            })
        };
        // The blocks of the region (the function's: the reachable blocks in no loop).
        let (blocks, children): (Vec<Block>, Vec<LoopId>) = match l {
            Some(l) => (loops.direct_blocks(l).to_vec(), loops.children(l).to_vec()),
            None => (
                loops.blocks_outside_loops().to_vec(),
                loops.roots().collect(),
            ),
        };
        if l.is_some() {
            add(&mut nodes, RegionNode::Start);
        }
        let mut sorted = blocks.clone();
        sorted.sort_unstable();
        for &b in &sorted {
            add(&mut nodes, RegionNode::Block(b));
        }
        for &m in &children {
            add(
                &mut nodes,
                RegionNode::Loop {
                    header: loops.header(m),
                    region: region_of(m),
                },
            );
        }
        let node_of = |b: Block| -> RegionNode {
            match representative(loops, l, b) {
                Representative::Outside => RegionNode::Exit(b),
                Representative::Block => RegionNode::Block(b),
                Representative::Loop(m) => RegionNode::Loop {
                    header: loops.header(m),
                    region: region_of(m),
                },
            }
        };

        // Edges, as (source node, target node): those of the region's own blocks, in
        // their order, then those leaving each nested loop (the others are inside a
        // nested loop and belong to its region).
        let target = |b: Block| match l {
            Some(l) if b == loops.header(l) => RegionNode::End,
            _ => node_of(b),
        };
        let mut edges: Vec<(RegionNode, RegionNode)> = Vec::new();
        for &a in &sorted {
            for &b in cfg.succs(a) {
                edges.push((RegionNode::Block(a), target(b)));
            }
        }
        for &m in &children {
            let src = node_of(loops.header(m));
            // A collapsed loop leaves once, for one target: one edge per target.
            let mut seen = HashSet::default();
            for &(_, b) in &exits_of[m.index()] {
                let dst = target(b);
                if seen.insert(dst) {
                    edges.push((src, dst));
                }
            }
        }
        // Exit nodes in target order, then END.
        let mut exits: Vec<Block> = edges
            .iter()
            .filter_map(|&(_, d)| match d {
                RegionNode::Exit(v) => Some(v),
                _ => None,
            })
            .collect();
        exits.sort_unstable();
        exits.dedup();
        for &v in &exits {
            add(&mut nodes, RegionNode::Exit(v));
        }
        let end_node = match l {
            Some(_) => add(&mut nodes, RegionNode::End),
            None => add(&mut nodes, RegionNode::Block(end)),
        };
        let start_node = match l {
            Some(_) => add(&mut nodes, RegionNode::Start),
            None => add(&mut nodes, node_of(cfg.entry())),
        };

        // Every node is known by now; the edges as node numbers.
        let mut numbered: Vec<(usize, usize)> = Vec::with_capacity(edges.len() + 1);
        if let Some(l) = l {
            numbered.push((
                start_node,
                add(&mut nodes, RegionNode::Block(loops.header(l))),
            ));
        }
        for &(s, d) in &edges {
            numbered.push((add(&mut nodes, s), add(&mut nodes, d)));
        }
        for &v in &exits {
            numbered.push((add(&mut nodes, RegionNode::Exit(v)), end_node));
        }
        let mut succs: Vec<Vec<Block>> = vec![Vec::new(); nodes.len()];
        for (s, d) in numbered {
            succs[s].push(Block::new(d));
        }
        RegionGraph {
            cfg: Cfg::from_successors(Block::new(start_node), succs),
            end: Block::new(end_node),
            nodes,
        }
    }
}
