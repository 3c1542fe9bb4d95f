//! The PPG on large graphs: every traversal is iterative and every step linear or
//! local, so 10^5 blocks of branches (structured, short-circuit and unstructured,
//! some nested 2 000 deep) and thousands of loops (20 deep) build, verify and answer queries on
//! a test thread's small stack.

use vliw_ssa::cfg::{Block, Cfg};
use vliw_ssa::ppg::{Construction, Ppg, PpgForest, SplitCfg, StartEndEdge};

/// Appends blocks to a successor list under construction.
struct Builder {
    succs: Vec<Vec<usize>>,
}

impl Builder {
    fn block(&mut self) -> usize {
        self.succs.push(Vec::new());
        self.succs.len() - 1
    }

    fn edge(&mut self, a: usize, b: usize) {
        self.succs[a].push(b);
    }

    /// One of four shapes from `entry` (whose successors are not set yet); returns
    /// its exit, and some of its blocks (an arm, the other arm).
    fn segment(&mut self, entry: usize, kind: usize) -> (usize, usize, usize) {
        let join = self.block();
        match kind {
            // diamond
            0 => {
                let (t, e) = (self.block(), self.block());
                self.edge(entry, t);
                self.edge(entry, e);
                self.edge(t, join);
                self.edge(e, join);
                (join, t, e)
            }
            // a && b
            1 => {
                let (b, t, e) = (self.block(), self.block(), self.block());
                self.edge(entry, b);
                self.edge(entry, e);
                self.edge(b, t);
                self.edge(b, e);
                self.edge(t, join);
                self.edge(e, join);
                (join, t, e)
            }
            // unstructured: entry -> a, b; a -> m, c; b -> m; m -> f, g; c, f, g -> join
            2 => {
                let (a, b, m, c, f, g) = (
                    self.block(),
                    self.block(),
                    self.block(),
                    self.block(),
                    self.block(),
                    self.block(),
                );
                for (x, y) in [
                    (entry, a),
                    (entry, b),
                    (a, m),
                    (a, c),
                    (b, m),
                    (m, f),
                    (m, g),
                ] {
                    self.edge(x, y);
                }
                for x in [c, f, g] {
                    self.edge(x, join);
                }
                (join, m, c)
            }
            // a switch with a repeated target
            _ => {
                let (x, y) = (self.block(), self.block());
                for t in [x, y, x, join] {
                    self.edge(entry, t);
                }
                self.edge(x, join);
                self.edge(y, join);
                (join, x, y)
            }
        }
    }
}

/// `segments` shapes in sequence, then a nest of `depth` diamonds with an
/// unstructured core. Returns the CFG, END, and sample (arm, other arm) pairs.
fn big_dag(segments: usize, depth: usize) -> (Cfg, Block, Vec<(usize, usize)>) {
    let mut g = Builder { succs: Vec::new() };
    let mut at = g.block();
    let mut arms = Vec::new();
    for i in 0..segments {
        let (join, x, y) = g.segment(at, i % 4);
        arms.push((x, y));
        at = join;
    }
    // Nested diamonds: each level's then-arm holds the next level.
    let mut joins = Vec::new();
    for _ in 0..depth {
        let (then, other, join) = (g.block(), g.block(), g.block());
        g.edge(at, then);
        g.edge(at, other);
        g.edge(other, join);
        joins.push(join);
        at = then;
    }
    let (core, x, y) = g.segment(at, 2);
    arms.push((x, y));
    at = core;
    for join in joins.into_iter().rev() {
        g.edge(at, join);
        at = join;
    }
    let end = Block::new(at);
    let succs = g.succs.into_iter().map(|s| s.into_iter().map(Block::new));
    (Cfg::from_successors(Block(0), succs), end, arms)
}

#[test]
fn a_hundred_thousand_blocks_of_branches() {
    let (cfg, end, arms) = big_dag(22_200, 2_000);
    assert!(cfg.num_blocks() > 100_000, "{}", cfg.num_blocks());
    for (mode, construction) in [
        (StartEndEdge::Virtual, Construction::Cfg),
        (StartEndEdge::Real, Construction::Cdg),
    ] {
        let split = SplitCfg::new(&cfg, end, mode).unwrap();
        let ppg = Ppg::build(&split, construction);
        ppg.check().unwrap();
        let p = |x: usize| ppg.predicate_of(Block::new(x)).unwrap();
        let root = ppg.root();
        let innermost = arms.last().unwrap();
        for (k, &(x, y)) in [arms[0], arms[1], arms[2], arms[3], *innermost]
            .iter()
            .enumerate()
        {
            assert!(ppg.implies(p(x), root));
            assert!(!ppg.implies(root, p(x)) && !ppg.implies(p(x), p(y)));
            // Alg 1's dummy hides the disjointness in unstructured segments
            let unstructured = k == 2 || k == 4;
            if construction == Construction::Cdg || !unstructured {
                assert!(ppg.disjoint(p(x), p(y)), "{construction:?} {x} {y}");
            }
            let rest = ppg.complement(root, p(x)).unwrap();
            assert!(!rest.is_empty());
        }
        if construction == Construction::Cdg {
            assert_eq!(ppg.num_dummies(), 0);
        }
        // Arms of two segments are not disjoint: both run on some trace.
        assert!(!ppg.disjoint(p(arms[0].0), p(arms[1].0)));
        assert!(ppg.covers(p(arms[0].0), &[root]));
    }
}

/// `count` loops in sequence, each `header -> body | exit`, with a diamond in the
/// body and a latch back to the header; around them `depth` nested loops.
fn many_loops(count: usize, depth: usize) -> (Cfg, Block) {
    let mut g = Builder { succs: Vec::new() };
    let entry = g.block();
    let mut at = entry;
    let mut headers = Vec::new();
    for _ in 0..depth {
        let h = g.block();
        g.edge(at, h);
        headers.push(h);
        at = h;
    }
    for _ in 0..count {
        let header = g.block();
        g.edge(at, header);
        let (join, _, _) = g.segment(header, 0);
        let exit = g.block();
        g.edge(join, header);
        g.edge(join, exit);
        at = exit;
    }
    for h in headers.into_iter().rev() {
        let latch = g.block();
        g.edge(at, latch);
        g.edge(latch, h);
        let exit = g.block();
        g.edge(latch, exit);
        at = exit;
    }
    let succs = g.succs.into_iter().map(|s| s.into_iter().map(Block::new));
    (Cfg::from_successors(Block(0), succs), Block::new(at))
}

#[test]
fn five_thousand_loops() {
    let (cfg, end) = many_loops(5_000, 20);
    let forest = PpgForest::build(&cfg, end, StartEndEdge::Virtual, Construction::Cdg).unwrap();
    assert_eq!(forest.num_regions(), 5_021);
    forest.check().unwrap();
    let deepest = forest.loop_forest().loops().last().unwrap();
    assert_eq!(forest.loop_forest().depth(deepest), 21);
    assert!(forest.loop_predicate(deepest).is_some());
}
