//! Properties of the graph analyses on random CFGs: dominators against their
//! definition, depth-first orders, and the loop forest (Thm 1 and the loop
//! definitions of thesis §2.2).

mod common;

use common::{Rng, Shape, random_cfg};
use proptest::prelude::*;
use vliw_ssa::cfg::{Block, Cfg};
use vliw_ssa::dfs::{DfsOrder, EdgeKind};
use vliw_ssa::dominators::DomTree;
use vliw_ssa::loops::LoopForest;
use vliw_ssa::reduced::{reduced_succs, reduced_target};

fn shapes() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Reducible),
        Just(Shape::Irreducible),
        Just(Shape::Arbitrary)
    ]
}

/// Blocks reachable from the entry using only the edges `keep` accepts, never entering
/// `removed`.
fn reach(cfg: &Cfg, removed: Option<Block>, keep: impl Fn(Block, Block) -> bool) -> Vec<bool> {
    let mut seen = vec![false; cfg.num_blocks()];
    if Some(cfg.entry()) == removed {
        return seen;
    }
    let mut stack = vec![cfg.entry()];
    seen[cfg.entry().index()] = true;
    while let Some(b) = stack.pop() {
        for &s in cfg.succs(b) {
            if !seen[s.index()] && Some(s) != removed && keep(b, s) {
                seen[s.index()] = true;
                stack.push(s);
            }
        }
    }
    seen
}

/// Whether the graph of the given edges over reachable blocks is acyclic (Kahn).
fn acyclic(cfg: &Cfg, edges: &[(Block, Block)]) -> bool {
    let mut indeg = vec![0usize; cfg.num_blocks()];
    for &(_, t) in edges {
        indeg[t.index()] += 1;
    }
    let mut ready: Vec<Block> = cfg
        .reachable_blocks()
        .filter(|b| indeg[b.index()] == 0)
        .collect();
    let mut done = 0;
    while let Some(b) = ready.pop() {
        done += 1;
        for &(f, t) in edges {
            if f == b {
                indeg[t.index()] -= 1;
                if indeg[t.index()] == 0 {
                    ready.push(t);
                }
            }
        }
    }
    done == cfg.num_reachable()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn dominators_match_their_definition(shape in shapes(), n in 1usize..12, seed: u64) {
        let cfg = random_cfg(shape, n, &mut Rng::new(seed));
        let dom = DomTree::compute(&cfg);
        for a in cfg.blocks() {
            // a dominates b iff b is unreachable once a is removed.
            let without_a = reach(&cfg, Some(a), |_, _| true);
            for b in cfg.blocks() {
                let expected = cfg.is_reachable(a) && cfg.is_reachable(b)
                    && (a == b || !without_a[b.index()]);
                prop_assert_eq!(dom.dominates(a, b), expected, "{:?} dom {:?}", a, b);
            }
        }
        for b in cfg.reachable_blocks() {
            if let Some(i) = dom.idom(b) {
                prop_assert!(dom.strictly_dominates(i, b));
                // No block strictly between i and b.
                for c in cfg.blocks() {
                    prop_assert!(!(dom.strictly_dominates(i, c) && dom.strictly_dominates(c, b)));
                }
            } else {
                prop_assert_eq!(b, cfg.entry());
            }
        }
        let pre = dom.preorder();
        prop_assert_eq!(pre.len(), cfg.num_reachable());
        for (i, &b) in pre.iter().enumerate() {
            if let Some(d) = dom.idom(b) {
                prop_assert!((dom.preorder_number(d).unwrap() as usize) < i);
            }
        }
    }

    #[test]
    fn depth_first_orders_are_consistent(shape in shapes(), n in 1usize..14, seed: u64) {
        let cfg = random_cfg(shape, n, &mut Rng::new(seed));
        let dfs = DfsOrder::compute(&cfg);
        prop_assert_eq!(dfs.preorder().len(), cfg.num_reachable());
        prop_assert_eq!(dfs.preorder()[0], cfg.entry());
        for b in cfg.reachable_blocks() {
            for &s in cfg.succs(b) {
                let (pb, ps) = (dfs.post_number(b).unwrap(), dfs.post_number(s).unwrap());
                match dfs.classify(b, s) {
                    EdgeKind::Back => prop_assert!(ps >= pb),
                    _ => prop_assert!(ps < pb, "non-back edges go down the postorder"),
                }
            }
        }
    }

    #[test]
    fn loop_forest_is_minimal_connected_and_its_reduced_graphs_are_dags(
        shape in shapes(), n in 1usize..14, seed: u64,
    ) {
        let cfg = random_cfg(shape, n, &mut Rng::new(seed));
        let loops = LoopForest::compute(&cfg);
        let dom = DomTree::compute(&cfg);
        let dfs = DfsOrder::compute(&cfg);

        // Thm 1: without its loop edges the graph is acyclic and still connected.
        let mut reduced = Vec::new();
        let mut redirected = Vec::new();
        for b in cfg.reachable_blocks() {
            for &s in cfg.succs(b) {
                if !loops.is_loop_edge(b, s) {
                    reduced.push((b, s));
                }
                prop_assert_eq!(reduced_target(&loops, b, s).is_none(), loops.is_loop_edge(b, s));
            }
            for t in reduced_succs(&cfg, &loops, b) {
                redirected.push((b, t));
            }
        }
        prop_assert!(acyclic(&cfg, &reduced), "reduced graph has a cycle");
        prop_assert!(acyclic(&cfg, &redirected), "redirected reduced graph has a cycle");
        let r1 = reach(&cfg, None, |b, s| !loops.is_loop_edge(b, s));
        let mut r2 = vec![false; cfg.num_blocks()];
        let mut stack = vec![cfg.entry()];
        r2[cfg.entry().index()] = true;
        while let Some(b) = stack.pop() {
            for t in reduced_succs(&cfg, &loops, b) {
                if !r2[t.index()] { r2[t.index()] = true; stack.push(t); }
            }
        }
        for b in cfg.reachable_blocks() {
            prop_assert!(r1[b.index()], "{:?} unreachable in the reduced graph", b);
            prop_assert!(r2[b.index()], "{:?} unreachable in the redirected graph", b);
        }

        let mut headers = rustc_hash::FxHashSet::default();
        for l in loops.loops() {
            let body = loops.body(l);
            let h = loops.header(l);
            prop_assert!(headers.insert(h), "one loop per header");
            prop_assert!(body.contains(&h));
            prop_assert_eq!(loops.loop_headed_by(h), Some(l));
            // The body is strongly connected: everything reaches h and h reaches
            // everything, inside the body.
            let inside = |x: Block| body.contains(&x);
            for &start in body {
                let mut seen = vec![false; cfg.num_blocks()];
                let mut st = vec![start];
                while let Some(x) = st.pop() {
                    for &s in cfg.succs(x) {
                        if inside(s) && !seen[s.index()] { seen[s.index()] = true; st.push(s); }
                    }
                }
                prop_assert!(seen[h.index()], "{:?} does not reach the header inside {:?}", start, l);
                if start == h {
                    for &x in body { prop_assert!(seen[x.index()]); }
                }
            }
            // Connected forest: the header is an entry of the body (or the CFG entry).
            prop_assert!(h == cfg.entry() || cfg.preds(h).iter().any(|&p| !inside(p)));
            if let Some(p) = loops.parent(l) {
                prop_assert_eq!(loops.depth(l), loops.depth(p) + 1);
                prop_assert!(body.len() < loops.body(p).len());
                for &x in body { prop_assert!(loops.contains(p, x)); }
            } else {
                prop_assert_eq!(loops.depth(l), 1);
            }
            if let Shape::Reducible = shape {
                for &x in body { prop_assert!(dom.dominates(h, x)); }
            }
        }
        if let Shape::Reducible = shape {
            // On reducible graphs loop edges are exactly the back edges.
            for b in cfg.reachable_blocks() {
                for &s in cfg.succs(b) {
                    prop_assert_eq!(loops.is_loop_edge(b, s), dfs.classify(b, s) == EdgeKind::Back);
                }
            }
        }
        // Every block in a cycle is in a loop; others are not.
        for b in cfg.reachable_blocks() {
            let mut seen = vec![false; cfg.num_blocks()];
            let mut st = vec![b];
            let mut cyclic = false;
            while let Some(x) = st.pop() {
                for &s in cfg.succs(x) {
                    if s == b { cyclic = true; }
                    if !seen[s.index()] { seen[s.index()] = true; st.push(s); }
                }
            }
            prop_assert_eq!(loops.innermost_loop(b).is_some(), cyclic);
        }
    }
}
