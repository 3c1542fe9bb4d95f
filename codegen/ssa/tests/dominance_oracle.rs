//! Brute-force oracles for the shared graph algorithms on random CFGs of 1 to 20 blocks
//! (unreachable blocks, self-loops, irreducible cycles, infinite loops, functions
//! without any exit):
//!
//! - dominance by its definition: `a` dominates `b` iff every path from the entry to
//!   `b` passes `a`, i.e. `b` is no longer reachable once `a` is removed; the immediate
//!   dominator is the closest strict dominator;
//! - the virtual exit's predecessors by their definition: the reachable blocks without
//!   successors, and from every terminal strongly connected component without one (by
//!   mutual reachability) its block visited last by a (recursive) depth-first search
//!   from the entry;
//! - post-dominance likewise towards the virtual exit, and the immediate
//!   post-dominator;
//! - control dependence by Ferrante et al.'s definition: `y` depends on the edge
//!   `a → s` iff a path from `s` to `y` has every block post-dominated by `y`, and `y`
//!   does not strictly post-dominate `a`.

// brute force over block numbers reads best as index loops
#![allow(clippy::needless_range_loop)]

mod common;

use common::{Rng, Shape, random_cfg};
use proptest::prelude::*;
use vliw_ssa::cfg::{Block, Cfg};
use vliw_ssa::dominators::{ChildOrder, DomTree};
use vliw_ssa::postdominators::{ControlDependence, PostDomTree};

/// A random CFG; with `close_exits`, every block without successors gets an edge back
/// to a random block, so that the graph has infinite loops and maybe no exit at all.
fn graph(shape: Shape, n: usize, seed: u64, close_exits: bool) -> Cfg {
    let mut rng = Rng::new(seed);
    let cfg = random_cfg(shape, n, &mut rng);
    if !close_exits {
        return cfg;
    }
    let succs: Vec<Vec<Block>> = cfg
        .blocks()
        .map(|b| {
            let s = cfg.succs(b).to_vec();
            if s.is_empty() && rng.chance(3, 4) {
                vec![Block::new(rng.below(b.index() + 1))]
            } else {
                s
            }
        })
        .collect();
    Cfg::from_successors(cfg.entry(), succs)
}

/// Forward reachability from `from` over `succ`, never entering `removed`.
fn reach(
    n: usize,
    from: usize,
    removed: Option<usize>,
    succ: &dyn Fn(usize) -> Vec<usize>,
) -> Vec<bool> {
    let mut seen = vec![false; n];
    if Some(from) == removed {
        return seen;
    }
    seen[from] = true;
    let mut stack = vec![from];
    while let Some(b) = stack.pop() {
        for s in succ(b) {
            if !seen[s] && Some(s) != removed {
                seen[s] = true;
                stack.push(s);
            }
        }
    }
    seen
}

fn preorder_rec(cfg: &Cfg, b: usize, seen: &mut Vec<bool>, order: &mut Vec<usize>) {
    seen[b] = true;
    order.push(b);
    for s in cfg.succs(Block::new(b)) {
        if !seen[s.index()] {
            preorder_rec(cfg, s.index(), seen, order);
        }
    }
}

/// The closest of `candidates` (strict (post)dominators of one block, totally ordered
/// by the relation `rel`): the one every other candidate (post)dominates.
fn closest(candidates: &[usize], rel: &dyn Fn(usize, usize) -> bool) -> Option<usize> {
    candidates
        .iter()
        .copied()
        .find(|&d| candidates.iter().all(|&c| rel(c, d)))
}

fn shapes() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Reducible),
        Just(Shape::Irreducible),
        Just(Shape::Arbitrary)
    ]
}

fn check(cfg: &Cfg) -> Result<(), TestCaseError> {
    let n = cfg.num_blocks();
    let succ =
        |b: usize| -> Vec<usize> { cfg.succs(Block::new(b)).iter().map(|s| s.index()).collect() };
    let entry = cfg.entry().index();
    let reachable = reach(n, entry, None, &succ);
    let blk = Block::new;
    // the depth-first preorder from the entry, recursively
    let mut dfs_order = Vec::new();
    preorder_rec(cfg, entry, &mut vec![false; n], &mut dfs_order);
    let pre_number = |b: usize| dfs_order.iter().position(|&x| x == b).unwrap();

    // Dominance.
    for order in [ChildOrder::DfsPreorder, ChildOrder::ReversePostorder] {
        let dom = DomTree::compute_with(cfg, order);
        let dominates = |a: usize, b: usize| {
            reachable[a] && reachable[b] && (a == b || !reach(n, entry, Some(a), &succ)[b])
        };
        for a in 0..n {
            for b in 0..n {
                prop_assert_eq!(
                    dom.dominates(blk(a), blk(b)),
                    dominates(a, b),
                    "{} dom {}",
                    a,
                    b
                );
            }
        }
        for b in 0..n {
            let strict: Vec<usize> = (0..n).filter(|&a| a != b && dominates(a, b)).collect();
            prop_assert_eq!(
                dom.idom(blk(b)).map(|d| d.index()),
                closest(&strict, &dominates),
                "idom {}",
                b
            );
            prop_assert_eq!(dom.is_reachable(blk(b)), reachable[b]);
        }
        let unreachable: Vec<usize> = dom.unreachable().map(|b| b.index()).collect();
        prop_assert_eq!(
            unreachable,
            (0..n).filter(|&b| !reachable[b]).collect::<Vec<_>>()
        );
        // orders: reverse postorder puts every block after its idom and its forward
        // predecessors; the tree preorder every block within its dominator's interval
        let rpo = dom.reverse_postorder();
        prop_assert_eq!(rpo.len(), reachable.iter().filter(|&&r| r).count());
        prop_assert_eq!(rpo[0], cfg.entry());
        for (i, &b) in rpo.iter().enumerate() {
            prop_assert_eq!(dom.rpo_number(b), Some(i as u32));
            if let Some(d) = dom.idom(b) {
                prop_assert!(dom.rpo_number(d).unwrap() < i as u32);
            }
        }
        for (i, &b) in dom.preorder().iter().enumerate() {
            prop_assert_eq!(dom.preorder_number(b), Some(i as u32));
            let last = dom.subtree_last(b).unwrap() as usize;
            let below: Vec<usize> = dom.preorder()[i..=last].iter().map(|x| x.index()).collect();
            let mut expected: Vec<usize> = (0..n).filter(|&c| dominates(b.index(), c)).collect();
            let mut got = below.clone();
            got.sort_unstable();
            expected.sort_unstable();
            prop_assert_eq!(got, expected, "subtree of {:?}", b);
            // children in the chosen order
            let key = |x: Block| match order {
                ChildOrder::DfsPreorder => pre_number(x.index()),
                ChildOrder::ReversePostorder => dom.rpo_number(x).unwrap() as usize,
            };
            prop_assert!(dom.children(b).windows(2).all(|w| key(w[0]) < key(w[1])));
        }
    }

    // The virtual exit's predecessors.
    let exits: Vec<usize> = (0..n)
        .filter(|&b| reachable[b] && succ(b).is_empty())
        .collect();
    let reach_from: Vec<Vec<bool>> = (0..n).map(|b| reach(n, b, None, &succ)).collect();
    let mut loop_exits = Vec::new();
    for b in (0..n).filter(|&b| reachable[b] && !succ(b).is_empty()) {
        let scc: Vec<usize> = (0..n)
            .filter(|&c| reach_from[b][c] && reach_from[c][b])
            .collect();
        let terminal = scc.iter().all(|&m| succ(m).iter().all(|s| scc.contains(s)));
        let last = *scc.iter().max_by_key(|&&m| pre_number(m)).unwrap();
        if terminal && last == b {
            loop_exits.push(b);
        }
    }
    let pdom = PostDomTree::compute(cfg);
    let got: Vec<usize> = pdom
        .infinite_loop_exits()
        .iter()
        .map(|b| b.index())
        .collect();
    prop_assert_eq!(&got, &loop_exits);
    let mut exit_preds: Vec<usize> = exits.iter().chain(&loop_exits).copied().collect();
    exit_preds.sort_unstable();
    let got: Vec<usize> = pdom.exit_predecessors().iter().map(|b| b.index()).collect();
    prop_assert_eq!(&got, &exit_preds);

    // Post-dominance: node n is the virtual exit.
    let rsucc = |b: usize| -> Vec<usize> {
        if b == n {
            return Vec::new();
        }
        let mut s = succ(b);
        if exit_preds.contains(&b) {
            s.push(n);
        }
        s
    };
    for b in (0..n).filter(|&b| reachable[b]) {
        prop_assert!(
            reach(n + 1, b, None, &rsucc)[n],
            "{} reaches the virtual exit",
            b
        );
    }
    let post_dominates = |a: usize, b: usize| {
        reachable[a] && reachable[b] && (a == b || !reach(n + 1, b, Some(a), &rsucc)[n])
    };
    for a in 0..n {
        for b in 0..n {
            prop_assert_eq!(
                pdom.post_dominates(blk(a), blk(b)),
                post_dominates(a, b),
                "{} pdom {}",
                a,
                b
            );
        }
    }
    for b in 0..n {
        let strict: Vec<usize> = (0..n).filter(|&a| a != b && post_dominates(a, b)).collect();
        prop_assert_eq!(
            pdom.ipdom(blk(b)).map(|d| d.index()),
            closest(&strict, &post_dominates),
            "ipdom {}",
            b
        );
        prop_assert_eq!(pdom.is_reachable(blk(b)), reachable[b]);
    }
    let roots: Vec<usize> = pdom.roots().map(|b| b.index()).collect();
    for b in 0..n {
        prop_assert_eq!(
            roots.contains(&b),
            reachable[b] && pdom.ipdom(blk(b)).is_none()
        );
    }

    // Control dependence.
    let cd = ControlDependence::compute(cfg, &pdom);
    let mut expected_deps: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    for a in (0..n).filter(|&a| reachable[a]) {
        let mut targets = succ(a);
        targets.dedup_by(|x, y| x == y);
        let mut seen = Vec::new();
        for s in targets {
            if seen.contains(&s) {
                continue;
            }
            seen.push(s);
            let mut expected = Vec::new();
            for y in 0..n {
                // a path from s to y through blocks y post-dominates
                let inside = |w: usize| post_dominates(y, w);
                let path = inside(s) && {
                    let only = |w: usize| -> Vec<usize> {
                        succ(w).into_iter().filter(|&x| inside(x)).collect()
                    };
                    reach(n, s, None, &only)[y]
                };
                if path && !(y != a && post_dominates(y, a)) {
                    expected.push(y);
                    expected_deps[y].push((a, s));
                }
            }
            let mut got: Vec<usize> = pdom
                .control_dependents(blk(a), blk(s))
                .map(|b| b.index())
                .collect();
            let len = got.len();
            got.sort_unstable();
            got.dedup();
            prop_assert_eq!(got.len(), len, "no block twice");
            prop_assert_eq!(got, expected, "control dependents of {} -> {}", a, s);
        }
    }
    for y in 0..n {
        let mut got: Vec<(usize, usize)> = cd
            .dependences(blk(y))
            .iter()
            .map(|&(a, s)| (a.index(), s.index()))
            .collect();
        got.sort_unstable();
        expected_deps[y].sort_unstable();
        prop_assert_eq!(&got, &expected_deps[y], "dependences of {}", y);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn dominance_post_dominance_and_control_dependence_match_their_definitions(
        shape in shapes(), n in 1usize..=20, seed: u64, close_exits: bool,
    ) {
        check(&graph(shape, n, seed, close_exits))?;
    }
}

#[test]
fn hand_made_graphs() {
    let cfg = |succs: &[&[u32]]| {
        Cfg::from_successors(Block(0), succs.iter().map(|s| s.iter().map(|&i| Block(i))))
    };
    for g in [
        // a single block returning, and looping forever on itself
        cfg(&[&[]]),
        cfg(&[&[0]]),
        // two nested infinite loops, one exit-free terminal component
        cfg(&[&[1], &[2], &[1, 3], &[2]]),
        // an irreducible cycle without exit, entered at both blocks, plus a return
        cfg(&[&[1, 2, 3], &[2], &[1], &[]]),
        // two separate infinite loops and an unreachable block into one of them
        cfg(&[&[1, 2], &[1], &[3], &[2], &[3]]),
        // parallel edges and a self-loop with an exit
        cfg(&[&[1, 1], &[1, 2], &[]]),
    ] {
        check(&g).unwrap();
    }
}
