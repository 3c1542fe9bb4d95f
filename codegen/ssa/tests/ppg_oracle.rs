//! The PPG against its definition: on random acyclic CFGs of at most 12 blocks, every
//! START→END trace of the split graph is enumerated, and each claim of the
//! construction is checked against the trace sets (the domains, Def 14):
//!
//! (a) after splitting, every edge `(v, w)` has `|Out(v)| = 1` or `|In(w)| = 1`, and
//!     the node of each original edge lies on exactly the traces taking the edge;
//! (b) the O(1) dominance and post-dominance tests equal brute force (remove a node,
//!     test reachability), and inclusion of domains is dominance or post-dominance
//!     (Prop 3);
//! (c) `~`-classes are the classes of equal trace sets (Prop 4);
//! (d) every partition is exact: its parts are pairwise disjoint and their union is
//!     the parent (a dummy's domain is its parent minus its siblings, and must be
//!     non-empty);
//! (e) the PPG is complete and acyclic with the root `p_START` (`Ppg::check`), with
//!     END, and chains, equivalent to START;
//! (f) Alg 5 makes no dummy, and its predicates are the `~`-classes;
//! (g) implication is exact for Alg 5 (a path `q →* p` iff `Domain(p) ⊆ Domain(q)`)
//!     and sound for Alg 1 (how often it is complete is reported);
//! (h) disjointness and covering are sound (how often they are complete is
//!     reported), the complement along a path is exact.
//!
//! Both trace models are run: the report's real START→END edge, and the default
//! virtual one. `cargo test -p vliw-ssa --test ppg_oracle -- --nocapture` prints the
//! completeness rates.

mod common;

/// Random graphs per trace model.
const GRAPHS_PER_MODE: u64 = 350;

/// Random CFGs with loops.
const FOREST_GRAPHS: u64 = 200;

use common::{Rng, Shape, random_cfg};
use vliw_ssa::cfg::{Block, Cfg};
use vliw_ssa::ppg::{
    Classes, Construction, ForestPred, Ppg, PpgError, PpgForest, PredId, RegionId, SplitCfg,
    SplitNode, StartEndEdge,
};

/// A random acyclic CFG with `n` reachable blocks (2 to 12), each on a START→END
/// path, numbered in a random order, with parallel edges, a few unreachable blocks
/// and sometimes a direct START→END edge. Returns the CFG and END.
fn random_dag(rng: &mut Rng) -> (Cfg, Block) {
    let n = 2 + rng.below(11);
    // Topological positions 0..n: 0 is START, n - 1 is END.
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in 1..n {
        let p = rng.below(i.min(n - 1));
        succs[p].push(i);
    }
    for (i, s) in succs.iter_mut().enumerate().take(n - 1) {
        if s.is_empty() {
            s.push(i + 1 + rng.below(n - i - 1));
        }
    }
    let extra = rng.below(n + 2);
    for _ in 0..extra {
        let i = rng.below(n - 1);
        let j = if rng.chance(1, 5) && !succs[i].is_empty() {
            succs[i][rng.below(succs[i].len())] // a parallel edge
        } else {
            i + 1 + rng.below(n - i - 1)
        };
        succs[i].push(j);
    }
    let unreachable = if rng.chance(1, 4) {
        1 + rng.below(2)
    } else {
        0
    };
    let total = n + unreachable;
    // A random numbering of the blocks.
    let mut number: Vec<usize> = (0..total).collect();
    for i in (1..total).rev() {
        number.swap(i, rng.below(i + 1));
    }
    let mut lists: Vec<Vec<Block>> = vec![Vec::new(); total];
    for (i, s) in succs.iter().enumerate() {
        lists[number[i]] = s.iter().map(|&j| Block::new(number[j])).collect();
    }
    for u in n..total {
        // unreachable blocks may jump anywhere (even into each other)
        for _ in 0..rng.below(3) {
            lists[number[u]].push(Block::new(number[rng.below(total)]));
        }
    }
    let cfg = Cfg::from_successors(Block::new(number[0]), lists);
    (cfg, Block::new(number[n - 1]))
}

/// The traces of `cfg` from START to END (all paths: the graph is acyclic).
fn traces(cfg: &Cfg, end: Block) -> Vec<Vec<Block>> {
    let mut out = Vec::new();
    let mut path = vec![cfg.entry()];
    let mut next = vec![0usize];
    while let Some(&b) = path.last() {
        let i = *next.last().unwrap();
        if b == end && i == 0 {
            out.push(path.clone());
        }
        match cfg.succs(b).get(i) {
            Some(&s) => {
                *next.last_mut().unwrap() += 1;
                path.push(s);
                next.push(0);
            }
            None => {
                path.pop();
                next.pop();
            }
        }
    }
    out
}

/// A set of traces (the oracle's inner loop: no allocation in its tests).
#[derive(Clone, PartialEq, Eq, Debug)]
struct BitSet(Vec<u64>, usize);

impl BitSet {
    fn new(universe: usize) -> Self {
        BitSet(vec![0; universe.div_ceil(64)], universe)
    }

    fn universe(&self) -> usize {
        self.1
    }

    fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    fn union_with(&mut self, other: &BitSet) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }

    fn subtract(&mut self, other: &BitSet) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a &= !b;
        }
    }

    fn intersects(&self, other: &BitSet) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| a & b != 0)
    }
}

fn subset(a: &BitSet, b: &BitSet) -> bool {
    a.0.iter().zip(&b.0).all(|(x, y)| x & !y == 0)
}

/// Reachability from `from` (forwards, or backwards with `back`) avoiding `removed`.
fn reach(cfg: &Cfg, from: Block, removed: Block, back: bool) -> Vec<bool> {
    let mut seen = vec![false; cfg.num_blocks()];
    if from == removed {
        return seen;
    }
    seen[from.index()] = true;
    let mut stack = vec![from];
    while let Some(b) = stack.pop() {
        let next = if back { cfg.preds(b) } else { cfg.succs(b) };
        for &s in next {
            if s != removed && !seen[s.index()] {
                seen[s.index()] = true;
                stack.push(s);
            }
        }
    }
    seen
}

const CONSTRUCTIONS: [Construction; 3] = [
    Construction::Cfg,
    Construction::CdgReport,
    Construction::Cdg,
];

/// Counts over all graphs, per construction (in the order of `CONSTRUCTIONS`).
#[derive(Default, Debug)]
struct Stats {
    graphs: usize,
    traces: usize,
    partitions: [usize; 3],
    dummies: [usize; 3],
    graphs_with_dummies: [usize; 3],
    /// Pairs with `Domain(p) ⊆ Domain(q)`, and those `implies` finds.
    included_pairs: [usize; 3],
    implied_found: [usize; 3],
    disjoint_pairs: [usize; 3],
    disjoint_found: [usize; 3],
    covered: [usize; 3],
    covered_found: [usize; 3],
}

/// The domains of the predicates of `ppg`: a member's traces, or for a dummy its
/// parent minus its siblings.
fn domains(ppg: &Ppg, node_traces: &[BitSet], num_traces: usize, what: &str) -> Vec<BitSet> {
    let np = ppg.num_predicates();
    let mut dom: Vec<Option<BitSet>> = vec![None; np];
    for p in ppg.predicates() {
        if !ppg.is_dummy(p) {
            let first = &node_traces[ppg.blocks(p)[0].index()];
            for &x in ppg.blocks(p) {
                assert_eq!(
                    &node_traces[x.index()],
                    first,
                    "{what}: members of {p:?} differ"
                );
            }
            dom[p.index()] = Some(first.clone());
        }
    }
    // Dummies: from their single partition, in rounds (a parent may be a dummy).
    loop {
        let mut progress = false;
        for p in ppg.predicates() {
            if dom[p.index()].is_some() {
                continue;
            }
            let into = ppg.partitions_into(p);
            assert_eq!(into.len(), 1, "{what}: dummy {p:?} is in one partition");
            let a = into[0];
            let parent = ppg.parent(a);
            let siblings: Vec<PredId> = ppg
                .children(a)
                .iter()
                .copied()
                .filter(|&c| c != p)
                .collect();
            if dom[parent.index()].is_some() && siblings.iter().all(|c| dom[c.index()].is_some()) {
                let mut d = dom[parent.index()].clone().unwrap();
                for c in siblings {
                    d.subtract(dom[c.index()].as_ref().unwrap());
                }
                dom[p.index()] = Some(d);
                progress = true;
            }
        }
        if !progress {
            break;
        }
    }
    dom.into_iter()
        .enumerate()
        .map(|(i, d)| d.unwrap_or_else(|| panic!("{what}: no domain for p{i}")))
        .inspect(|d| assert_eq!(d.universe(), num_traces))
        .collect()
}

fn check_graph(seed: u64, mode: StartEndEdge, stats: &mut Stats) {
    let mut rng = Rng::new(seed);
    let (cfg, end) = random_dag(&mut rng);
    let what = format!("seed {seed} {mode:?}");
    let split = SplitCfg::new(&cfg, end, mode).unwrap_or_else(|e| panic!("{what}: {e}"));
    check_split_graph(&split, mode, &what, &mut rng, stats);
}

/// (a)–(h) on a split graph, for every construction.
fn check_split_graph(
    split: &SplitCfg,
    mode: StartEndEdge,
    what: &str,
    rng: &mut Rng,
    stats: &mut Stats,
) {
    let end = split.end();
    let g = split.cfg();
    let start = split.start();

    // (a) split property and edge nodes.
    for v in g.reachable_blocks() {
        for &w in g.succs(v) {
            assert!(
                g.succs(v).len() == 1 || g.preds(w).len() == 1,
                "{what}: critical edge {v:?} -> {w:?} left"
            );
        }
    }
    let all = traces(g, end);
    let nt = all.len();
    stats.graphs += 1;
    stats.traces += nt;
    let mut node_traces = vec![BitSet::new(nt); g.num_blocks()];
    for (t, path) in all.iter().enumerate() {
        for &x in path {
            node_traces[x.index()].insert(t);
        }
    }
    // the original nodes keep their numbers and the order of their edges
    let original = g
        .reachable_blocks()
        .filter(|a| a.index() < split.num_original_blocks());
    for a in original {
        for i in 0..g.succs(a).len() {
            let x = split.node_of_edge(a, i).expect("an edge");
            // the traces taking this edge: a followed by the edge's first split node
            let first = g.succs(a)[i];
            let mut taking = BitSet::new(nt);
            for (t, path) in all.iter().enumerate() {
                if path.windows(2).any(|e| e[0] == a && e[1] == first) {
                    taking.insert(t);
                }
            }
            assert_eq!(
                node_traces[x.index()],
                taking,
                "{what}: node of edge {a:?}#{i}"
            );
            if let Some(s) = split.split_node(a, i) {
                assert_eq!(s, first);
                let to = g.succs(s)[0];
                assert_eq!(
                    split.origin(s),
                    SplitNode::Edge {
                        from: a,
                        succ_index: i as u32,
                        to
                    }
                );
            }
        }
    }
    if mode == StartEndEdge::Real && start != end {
        let x = split.start_end_node().expect("the START→END node");
        assert_eq!(node_traces[x.index()].len(), 1, "{what}: one phantom trace");
    }

    // (b) dominance and post-dominance against brute force; Prop 3.
    let classes = Classes::compute(split);
    let reachable: Vec<Block> = g.reachable_blocks().collect();
    for &a in &reachable {
        let fwd = reach(g, start, a, false);
        let bwd = reach(g, end, a, true);
        for &b in &reachable {
            let dom = a == b || !fwd[b.index()];
            let pdom = a == b || !bwd[b.index()];
            assert_eq!(classes.dominates(a, b), dom, "{what}: {a:?} dom {b:?}");
            assert_eq!(
                classes.post_dominates(a, b),
                pdom,
                "{what}: {a:?} pdom {b:?}"
            );
            let included = subset(&node_traces[b.index()], &node_traces[a.index()]);
            assert_eq!(
                classes.includes(a, b),
                included,
                "{what}: Prop 3 {a:?} {b:?}"
            );
            // (c) Prop 4
            let same = node_traces[a.index()] == node_traces[b.index()];
            assert_eq!(classes.equivalent(a, b), same, "{what}: {a:?} ~ {b:?}");
            assert_eq!(
                classes.class_of(a) == classes.class_of(b),
                same,
                "{what}: classes"
            );
        }
    }

    for (k, construction) in CONSTRUCTIONS.into_iter().enumerate() {
        let what = format!("{what} {construction:?}");
        let ppg = Ppg::build(split, construction);
        // (e) structure and root
        ppg.check()
            .unwrap_or_else(|e| panic!("{what}: {e}\n{}", ppg.to_dot()));
        assert_eq!(ppg.predicate_of(start), Some(ppg.root()), "{what}: root");
        for &a in &reachable {
            for &b in &reachable {
                assert_eq!(
                    ppg.predicate_of(a) == ppg.predicate_of(b),
                    classes.class_of(a) == classes.class_of(b),
                    "{what}: predicates are the classes ({a:?}, {b:?})"
                );
            }
        }
        let dom = domains(&ppg, &node_traces, nt, &what);
        assert_eq!(
            dom[ppg.root().index()].len(),
            nt,
            "{what}: root is every trace"
        );
        // (d) exact partitions, non-empty domains
        for p in ppg.predicates() {
            assert!(!dom[p.index()].is_empty(), "{what}: {p:?} is empty");
        }
        for a in ppg.partitions() {
            let mut union = BitSet::new(nt);
            let mut total = 0;
            for c in ppg.children(a) {
                total += dom[c.index()].len();
                union.union_with(&dom[c.index()]);
            }
            assert_eq!(
                union.len(),
                total,
                "{what}: parts of {a:?} overlap\n{}",
                ppg.to_dot()
            );
            assert_eq!(
                union,
                dom[ppg.parent(a).index()],
                "{what}: {a:?} is not a partition of its parent\n{}",
                ppg.to_dot()
            );
        }
        stats.partitions[k] += ppg.num_partitions();
        stats.dummies[k] += ppg.num_dummies();
        stats.graphs_with_dummies[k] += usize::from(ppg.num_dummies() > 0);
        if construction != Construction::Cfg {
            // (f)
            assert_eq!(ppg.num_dummies(), 0, "{what}: Alg 5 made a dummy");
        }
        // (g) implication, (h) disjointness, complement
        for p in ppg.predicates() {
            for q in ppg.predicates() {
                let (dp, dq) = (&dom[p.index()], &dom[q.index()]);
                let included = subset(dp, dq);
                let implied = ppg.implies(p, q);
                if implied {
                    assert!(included, "{what}: {p:?} implies {q:?} wrongly");
                }
                if construction == Construction::Cdg {
                    assert_eq!(
                        implied,
                        included,
                        "{what}: implication {p:?} ⊆ {q:?}\n{}",
                        ppg.to_dot()
                    );
                }
                if included {
                    stats.included_pairs[k] += 1;
                    stats.implied_found[k] += usize::from(implied);
                }
                match ppg.complement(q, p) {
                    Some(rest) => {
                        assert!(implied);
                        let mut union = dp.clone();
                        let mut total = dp.len();
                        for c in &rest {
                            total += dom[c.index()].len();
                            union.union_with(&dom[c.index()]);
                        }
                        assert_eq!(union.len(), total, "{what}: complement overlaps");
                        assert_eq!(&union, dq, "{what}: complement of {p:?} in {q:?}");
                    }
                    None => assert!(!implied),
                }
                if q < p {
                    continue; // disjointness is tested once per unordered pair
                }
                let disjoint = ppg.disjoint(p, q);
                if p.0 % 4 == 0 {
                    assert_eq!(
                        disjoint,
                        ppg.disjoint(q, p),
                        "{what}: disjoint is symmetric"
                    );
                }
                if disjoint {
                    assert!(!dp.intersects(dq), "{what}: {p:?} and {q:?} share a trace");
                }
                if !dp.intersects(dq) {
                    stats.disjoint_pairs[k] += 1;
                    stats.disjoint_found[k] += usize::from(disjoint);
                }
            }
        }
        // covering, on random sets of one to three predicates
        let np = ppg.num_predicates();
        for _ in 0..3 * np {
            let p = PredId(rng.below(np) as u32);
            let qs: Vec<PredId> = (0..1 + rng.below(3))
                .map(|_| PredId(rng.below(np) as u32))
                .collect();
            let mut union = BitSet::new(nt);
            for q in &qs {
                union.union_with(&dom[q.index()]);
            }
            let truth = subset(&dom[p.index()], &union);
            let said = ppg.covers(p, &qs);
            if said {
                assert!(truth, "{what}: {qs:?} do not cover {p:?}");
            }
            if truth {
                stats.covered[k] += 1;
                stats.covered_found[k] += usize::from(said);
            }
        }
    }
}

#[test]
fn ppg_matches_the_traces_on_random_dags() {
    let mut stats = Stats::default();
    for mode in [StartEndEdge::Virtual, StartEndEdge::Real] {
        for seed in 0..GRAPHS_PER_MODE {
            check_graph(seed, mode, &mut stats);
        }
    }
    let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
    println!(
        "{} graphs, {} traces; per construction {:?}:",
        stats.graphs, stats.traces, CONSTRUCTIONS
    );
    for (k, c) in CONSTRUCTIONS.iter().enumerate() {
        println!(
            "  {c:?}: {} partitions, {} dummies ({} graphs with some); implication \
             complete on {:.1}% of included pairs, disjointness on {:.1}% of disjoint \
             pairs, covering on {:.1}% of covered samples",
            stats.partitions[k],
            stats.dummies[k],
            stats.graphs_with_dummies[k],
            pct(stats.implied_found[k], stats.included_pairs[k]),
            pct(stats.disjoint_found[k], stats.disjoint_pairs[k]),
            pct(stats.covered_found[k], stats.covered[k]),
        );
    }
    // The generator must produce unstructured graphs (Alg 1 needs dummies on some),
    // or (f) says little.
    assert!(stats.graphs_with_dummies[0] > stats.graphs / 4, "{stats:?}");
}

/// A random CFG of the test suite's reducible or irreducible shape (loops, exits
/// anywhere) with a fresh END: every block without successors, and every block that
/// cannot reach END (in a loop without exit), gets an edge to it.
fn random_cfg_with_end(shape: Shape, rng: &mut Rng) -> (Cfg, Block) {
    let n = 1 + rng.below(11);
    let g = random_cfg(shape, n, rng);
    let end = Block::new(n);
    let mut reaches = vec![false; n];
    let mut stack: Vec<Block> = g
        .reachable_blocks()
        .filter(|&b| g.succs(b).is_empty())
        .collect();
    for b in &stack {
        reaches[b.index()] = true;
    }
    while let Some(b) = stack.pop() {
        for &p in g.preds(b) {
            if !reaches[p.index()] {
                reaches[p.index()] = true;
                stack.push(p);
            }
        }
    }
    let mut lists: Vec<Vec<Block>> = g.blocks().map(|b| g.succs(b).to_vec()).collect();
    for b in g.reachable_blocks() {
        if lists[b.index()].is_empty() || !reaches[b.index()] {
            lists[b.index()].push(end);
        }
    }
    lists.push(Vec::new());
    (Cfg::from_successors(g.entry(), lists), end)
}

/// §4.2: on random reducible CFGs, every region graph passes the whole oracle, every
/// region's PPG passes the verifier, and queries across regions answer nothing;
/// irreducible CFGs are rejected.
#[test]
fn loop_forest_regions_match_their_traces() {
    let mut stats = Stats::default();
    let (mut regions, mut loops, mut rejected) = (0, 0, 0);
    for seed in 0..FOREST_GRAPHS {
        let mut rng = Rng::new(seed);
        let shape = if seed % 4 == 3 {
            Shape::Irreducible
        } else {
            Shape::Reducible
        };
        let (cfg, end) = random_cfg_with_end(shape, &mut rng);
        let mode = if seed % 2 == 0 {
            StartEndEdge::Virtual
        } else {
            StartEndEdge::Real
        };
        let what = format!("forest seed {seed} {shape:?} {mode:?}");
        let forest = match PpgForest::build(&cfg, end, mode, Construction::Cdg) {
            Ok(f) => f,
            Err(e @ PpgError::Irreducible { .. }) => {
                assert!(matches!(shape, Shape::Irreducible), "{what}: {e}");
                rejected += 1;
                continue;
            }
            Err(e) => panic!("{what}: {e}"),
        };
        forest
            .check()
            .unwrap_or_else(|(r, e)| panic!("{what}: {r:?} {e}"));
        loops += forest.loop_forest().num_loops();
        for r in forest.regions() {
            regions += 1;
            let what = format!("{what} {r:?}");
            check_split_graph(forest.region(r).split(), mode, &what, &mut rng, &mut stats);
        }
        // Every reachable block has a predicate in its innermost loop's region, and
        // nothing relates predicates of different regions.
        let preds: Vec<ForestPred> = cfg
            .reachable_blocks()
            .map(|b| forest.predicate_of(b).expect("a predicate"))
            .collect();
        for &p in &preds {
            for &q in &preds {
                if p.region != q.region {
                    assert!(!forest.implies(p, q) && !forest.disjoint(p, q));
                    assert!(forest.complement(q, p).is_none() && !forest.covers(p, &[q]));
                }
            }
        }
        for l in forest.loop_forest().loops() {
            let whole = forest
                .loop_predicate(l)
                .expect("a loop has a parent region");
            let parent = forest.region(forest.region_of_loop(l)).parent();
            assert_eq!(Some(whole.region), parent);
            assert_ne!(whole.region, forest.region_of_loop(l));
        }
        assert!(forest.region_of_block(cfg.entry()).is_some());
        assert_eq!(forest.region(RegionId::FUNCTION).loop_id(), None);
    }
    println!("{regions} regions, {loops} loops, {rejected} irreducible CFGs rejected");
    assert!(loops > FOREST_GRAPHS as usize / 2 && rejected > FOREST_GRAPHS as usize / 8);
}
