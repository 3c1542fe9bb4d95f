//! Hand-made graphs: the report's examples (Figs 8–11, reconstructed from the text),
//! small structured and unstructured shapes, the error cases, and the loop forest.
//! The random graphs against enumerated traces are in `tests/ppg_oracle.rs`.

use super::*;
use crate::cfg::{Block, Cfg};

fn b(i: u32) -> Block {
    Block(i)
}

/// A CFG with entry 0.
fn cfg(succs: &[&[u32]]) -> Cfg {
    Cfg::from_successors(b(0), succs.iter().map(|s| s.iter().map(|&i| Block(i))))
}

fn split(succs: &[&[u32]], end: u32, mode: StartEndEdge) -> SplitCfg {
    SplitCfg::new(&cfg(succs), b(end), mode).expect("a valid CFG")
}

/// The predicates of `blocks`.
fn preds(ppg: &Ppg, blocks: &[u32]) -> Vec<PredId> {
    blocks
        .iter()
        .map(|&x| ppg.predicate_of(b(x)).expect("reachable"))
        .collect()
}

/// Whether `ppg` has the partition `parent = children` (as sets).
fn has_partition(ppg: &Ppg, parent: PredId, children: &[PredId]) -> bool {
    let mut want = children.to_vec();
    want.sort();
    ppg.partitions_of(parent).iter().any(|&a| {
        let mut got = ppg.children(a).to_vec();
        got.sort();
        got == want
    })
}

const ALL: [Construction; 3] = [
    Construction::Cfg,
    Construction::CdgReport,
    Construction::Cdg,
];

#[test]
fn diamond() {
    // 0 -> 1, 2 -> 3 (END)
    let s = split(&[&[1, 2], &[3], &[3], &[]], 3, StartEndEdge::Virtual);
    for c in ALL {
        let ppg = Ppg::build(&s, c);
        ppg.check().unwrap();
        let [p0, p1, p2, p3] = preds(&ppg, &[0, 1, 2, 3])[..] else {
            unreachable!()
        };
        assert_eq!(p0, ppg.root());
        assert_eq!(p3, p0, "END is equivalent to START");
        assert_eq!(ppg.num_predicates(), 3);
        assert_eq!(
            ppg.num_partitions(),
            1,
            "{c:?}: branch and merge are one partition"
        );
        assert!(has_partition(&ppg, p0, &[p1, p2]));
        assert!(ppg.implies(p1, p0) && !ppg.implies(p0, p1));
        assert!(ppg.disjoint(p1, p2) && !ppg.disjoint(p1, p0));
        assert!(ppg.covers(p0, &[p1, p2]) && !ppg.covers(p0, &[p1]));
        assert_eq!(ppg.complement(p0, p1), Some(vec![p2]));
        assert_eq!(ppg.complement(p1, p0), None);
    }
}

#[test]
fn diamond_with_the_reports_start_end_edge() {
    let s = split(&[&[1, 2], &[3], &[3], &[]], 3, StartEndEdge::Real);
    let x = s.start_end_node().expect("the edge was added and split");
    assert_eq!(s.origin(x), SplitNode::StartEnd);
    assert_eq!(s.cfg().succs(b(0)), &[b(1), b(2), x]);
    for c in ALL {
        let ppg = Ppg::build(&s, c);
        ppg.check().unwrap();
        let [p0, p1, p2, px] = preds(&ppg, &[0, 1, 2, x.0])[..] else {
            unreachable!()
        };
        assert!(
            has_partition(&ppg, p0, &[p1, p2, px]),
            "{c:?}: a phantom part"
        );
        assert!(
            !ppg.covers(p0, &[p1, p2]),
            "{c:?}: the phantom trace is not covered"
        );
    }
}

#[test]
fn nested_diamonds() {
    // 0 -> 1, 2; 1 -> 3, 4; 3, 4 -> 5; 5 -> 6; 2 -> 6 (END)
    let s = split(
        &[&[1, 2], &[3, 4], &[6], &[5], &[5], &[6], &[]],
        6,
        StartEndEdge::Virtual,
    );
    for c in ALL {
        let ppg = Ppg::build(&s, c);
        ppg.check().unwrap();
        let [p0, p1, p2, p3, p4, p5] = preds(&ppg, &[0, 1, 2, 3, 4, 5])[..] else {
            unreachable!()
        };
        assert_eq!(p5, p1, "the inner join is equivalent to the inner branch");
        assert_eq!(
            ppg.num_dummies(),
            0,
            "{c:?}: structured code needs no dummy"
        );
        assert!(has_partition(&ppg, p0, &[p1, p2]));
        assert!(has_partition(&ppg, p1, &[p3, p4]));
        assert!(ppg.implies(p3, p0) && ppg.implies(p3, p1) && !ppg.implies(p3, p2));
        assert!(ppg.disjoint(p3, p2) && ppg.disjoint(p3, p4) && !ppg.disjoint(p3, p1));
        let mut rest = ppg.complement(p0, p3).unwrap();
        rest.sort();
        let mut want = vec![p2, p4];
        want.sort();
        assert_eq!(rest, want);
    }
}

#[test]
fn short_circuit_and() {
    // if (a && b) T else E: 0 tests a -> 1 (tests b) or 3 (E); 1 -> 2 (T) or 3;
    // 2, 3 -> 4 (END). Both edges into E are critical.
    let s = split(
        &[&[1, 3], &[2, 3], &[4], &[4], &[]],
        4,
        StartEndEdge::Virtual,
    );
    let x03 = s.split_node(b(0), 1).expect("0 -> 3 is critical");
    let x13 = s.split_node(b(1), 1).expect("1 -> 3 is critical");
    assert_eq!(s.split_node(b(0), 0), None);
    assert_eq!(s.node_of_edge(b(0), 0), Some(b(1)));
    assert_eq!(s.node_of_edge(b(2), 0), Some(b(2)));
    for c in ALL {
        let ppg = Ppg::build(&s, c);
        ppg.check().unwrap();
        let [p0, p1, p2, p3, pa, pb] = preds(&ppg, &[0, 1, 2, 3, x03.0, x13.0])[..] else {
            unreachable!()
        };
        assert_eq!(ppg.num_dummies(), 0);
        assert!(has_partition(&ppg, p0, &[p1, pa]), "a decides");
        assert!(has_partition(&ppg, p1, &[p2, pb]), "b decides");
        assert!(has_partition(&ppg, p3, &[pa, pb]), "E is !a or (a && !b)");
        assert!(has_partition(&ppg, p0, &[p2, p3]), "T | E");
        assert!(ppg.disjoint(p2, p3) && ppg.disjoint(p2, pa));
        assert!(ppg.implies(pb, p3) && ppg.implies(pb, p1) && ppg.implies(p2, p1));
        assert!(!ppg.implies(p3, p1));
        // ψ(T?x, E?y): E covers what T does not.
        assert!(ppg.covers(p0, &[p2, p3]));
        assert!(ppg.covers(p3, &[pa, pb]));
    }
}

/// Fig 8 (reconstructed): START -> 1; 1 -> 2, 3; 2 -> 4; 3 -> 4 (critical: the
/// dashed node 7 of the figure), 3 -> 5; 4, 5 -> 6; 6 -> END, with the report's
/// START→END edge. Here START is 0, END 7, and the node on 3 -> 4 is 8.
fn fig8() -> SplitCfg {
    let s = split(
        &[&[1], &[2, 3], &[4], &[4, 5], &[6], &[6], &[7], &[]],
        7,
        StartEndEdge::Real,
    );
    assert_eq!(
        s.origin(b(8)),
        SplitNode::Edge {
            from: b(3),
            succ_index: 0,
            to: b(4)
        }
    );
    s
}

#[test]
fn fig9_control_dependence_and_fig11_completion() {
    let s = fig8();
    let classes = Classes::compute(&s);
    let cdg = Cdg::compute(s.cfg(), classes.post_dom_tree());
    // Node 4 depends on 1 (via 2) and 3 (via the split node, 7 in the figure).
    assert_eq!(cdg.pdf(b(4)), vec![b(1), b(3)]);
    assert_eq!(cdg.pdf_succ(b(4)), vec![b(2), b(8)]);
    // Node 1 has the same label (1 -> 2) on its edges to 2 and 4.
    let labels: Vec<(Block, Block)> = cdg.out_edges(b(1)).to_vec();
    assert!(labels.contains(&(b(2), b(2))) && labels.contains(&(b(4), b(2))));
    for c in [Construction::CdgReport, Construction::Cdg] {
        let ppg = Ppg::build(&s, c);
        ppg.check().unwrap();
        assert_eq!(ppg.num_dummies(), 0);
        let [p1, p4, p5, p6] = preds(&ppg, &[1, 4, 5, 6])[..] else {
            unreachable!()
        };
        assert_eq!(p6, p1, "6 ~ 1 share a predicate");
        // complete(4, p4, 1): reached {1, 3}, visited {p2, p3, p7},
        // reachable {p2, p3, p5, p7}: p1 = p4 | p5.
        assert!(
            has_partition(&ppg, p1, &[p4, p5]),
            "{c:?}:\n{}",
            ppg.to_dot()
        );
    }
}

#[test]
fn fig10_post_dominance_frontier() {
    // START -> A; A -> B, X; B -> E; X -> C; C -> D, Y; D -> E; E, Y -> END.
    // START 0, A 1, B 2, X 3, C 4, D 5, E 6, Y 7, END 8.
    let s = split(
        &[&[1], &[2, 3], &[6], &[4], &[5, 7], &[6], &[8], &[8], &[]],
        8,
        StartEndEdge::Virtual,
    );
    let classes = Classes::compute(&s);
    let cdg = Cdg::compute(s.cfg(), classes.post_dom_tree());
    assert_eq!(cdg.pdf(b(6)), vec![b(1), b(4)], "PDF(E) = {{A, C}}");
    assert_eq!(
        cdg.pdf_succ(b(6)),
        vec![b(2), b(5)],
        "PDF_succ(E) = {{B, D}}"
    );
    let ppg = Ppg::from_cdg(&s);
    let [pe, pb, pd] = preds(&ppg, &[6, 2, 5])[..] else {
        unreachable!()
    };
    assert!(has_partition(&ppg, pe, &[pb, pd]), "Prop 6");
}

#[test]
fn a_chain_equivalent_to_start() {
    // 0 -> 1 -> 2 -> 3 (END): one class, no partition; with the START→END edge,
    // START ~ END and the chain 1, 2 is the other part.
    let g: &[&[u32]] = &[&[1], &[2], &[3], &[]];
    for c in ALL {
        let ppg = Ppg::build(&split(g, 3, StartEndEdge::Virtual), c);
        ppg.check().unwrap();
        assert_eq!((ppg.num_predicates(), ppg.num_partitions()), (1, 0));
        let s = split(g, 3, StartEndEdge::Real);
        let ppg = Ppg::build(&s, c);
        ppg.check().unwrap();
        let [p0, p1, p2, p3, px] = preds(&ppg, &[0, 1, 2, 3, 4])[..] else {
            unreachable!()
        };
        assert_eq!((p0, p1), (p3, p2));
        assert_eq!(ppg.num_partitions(), 1);
        assert!(has_partition(&ppg, p0, &[p1, px]));
    }
}

#[test]
fn blocks_equivalent_to_start_around_a_diamond_get_no_self_partition() {
    // 0 -> 1 -> 2, 3; 2, 3 -> 4 -> 5 (END): 1, 4 and 5 are equivalent to START.
    // Alg 1's printed completion would make p_START = p_START | p★ for them.
    let s = split(
        &[&[1], &[2, 3], &[4], &[4], &[5], &[]],
        5,
        StartEndEdge::Virtual,
    );
    for c in ALL {
        let ppg = Ppg::build(&s, c);
        ppg.check().unwrap();
        assert_eq!(ppg.num_dummies(), 0, "{c:?}");
        assert_eq!(preds(&ppg, &[0, 1, 4, 5]), vec![ppg.root(); 4]);
    }
}

#[test]
fn start_is_end() {
    let s = split(&[&[]], 0, StartEndEdge::Real);
    assert_eq!(s.start_end_node(), None, "no self-loop is added");
    for c in ALL {
        let ppg = Ppg::build(&s, c);
        ppg.check().unwrap();
        assert_eq!((ppg.num_predicates(), ppg.num_partitions()), (1, 0));
    }
}

#[test]
fn parallel_edges_are_split_apart() {
    // 0 -> 1 twice, 1 -> 2 (END)
    let s = split(&[&[1, 1], &[2], &[]], 2, StartEndEdge::Virtual);
    let (x, y) = (
        s.split_node(b(0), 0).unwrap(),
        s.split_node(b(0), 1).unwrap(),
    );
    assert_ne!(x, y);
    for c in ALL {
        let ppg = Ppg::build(&s, c);
        ppg.check().unwrap();
        let [p0, px, py] = preds(&ppg, &[0, x.0, y.0])[..] else {
            unreachable!()
        };
        assert!(has_partition(&ppg, p0, &[px, py]));
        assert!(ppg.disjoint(px, py));
    }
}

#[test]
fn alg1_needs_a_dummy_where_alg5_completes_exactly() {
    // 0 -> a(1), b(2); a -> m(3), c(4); b -> m; m -> e(5), f(6); c, e, f -> END(7).
    // No CFG partition has p_m as a part: Alg 1 adds p_0 = p_m | p★, Alg 5
    // p_0 = p_m | p_c.
    let s = split(
        &[&[1, 2], &[3, 4], &[3], &[5, 6], &[7], &[7], &[7], &[]],
        7,
        StartEndEdge::Virtual,
    );
    let alg1 = Ppg::from_cfg(&s);
    alg1.check().unwrap();
    assert_eq!(alg1.num_dummies(), 1);
    let star = alg1.predicates().find(|&p| alg1.is_dummy(p)).unwrap();
    let [p0, pm] = preds(&alg1, &[0, 3])[..] else {
        unreachable!()
    };
    assert!(has_partition(&alg1, p0, &[pm, star]));
    assert!(alg1.to_dot().contains("dummy"));
    for c in [Construction::CdgReport, Construction::Cdg] {
        let alg5 = Ppg::build(&s, c);
        alg5.check().unwrap();
        assert_eq!(alg5.num_dummies(), 0);
        let [p0, pm, pc] = preds(&alg5, &[0, 3, 4])[..] else {
            unreachable!()
        };
        assert!(
            has_partition(&alg5, p0, &[pm, pc]),
            "{c:?}:\n{}",
            alg5.to_dot()
        );
    }
}

#[test]
fn the_mirror_finds_the_post_dominance_the_report_misses() {
    // START(0) -> d(1), w(2); d -> x(3), y(4), z(5); x, y -> s(6); s, w -> u(7);
    // z, u -> END(8). u post-dominates s.
    let s = split(
        &[&[1, 2], &[3, 4, 5], &[7], &[6], &[6], &[8], &[7], &[8], &[]],
        8,
        StartEndEdge::Virtual,
    );
    let report = Ppg::build(&s, Construction::CdgReport);
    let both = Ppg::build(&s, Construction::Cdg);
    for ppg in [&report, &both] {
        ppg.check().unwrap();
    }
    let [ps, pu] = preds(&report, &[6, 7])[..] else {
        unreachable!()
    };
    assert!(!report.implies(ps, pu), "{}", report.to_dot());
    let [ps, pu] = preds(&both, &[6, 7])[..] else {
        unreachable!()
    };
    assert!(both.implies(ps, pu), "{}", both.to_dot());
}

#[test]
fn preconditions_are_errors() {
    let no_end = cfg(&[&[1], &[]]);
    assert_eq!(
        SplitCfg::new(&no_end, b(5), StartEndEdge::Virtual).unwrap_err(),
        PpgError::EndOutOfRange {
            end: b(5),
            num_blocks: 2
        }
    );
    let g = cfg(&[&[1], &[0, 2], &[], &[]]);
    assert_eq!(
        SplitCfg::new(&g, b(2), StartEndEdge::Virtual).unwrap_err(),
        PpgError::Cyclic {
            from: b(1),
            to: b(0)
        }
    );
    assert_eq!(
        SplitCfg::new(&g, b(3), StartEndEdge::Virtual).unwrap_err(),
        PpgError::EndUnreachable(b(3))
    );
    assert_eq!(
        SplitCfg::new(&g, b(1), StartEndEdge::Virtual).unwrap_err(),
        PpgError::EndHasSuccessors(b(1))
    );
    // 0 -> 1, 2; 1 traps (no successor), 2 is END.
    let trap = cfg(&[&[1, 2], &[], &[]]);
    assert_eq!(
        SplitCfg::new(&trap, b(2), StartEndEdge::Virtual).unwrap_err(),
        PpgError::NoPathToEnd(b(1))
    );
    let message = PpgError::NoPathToEnd(b(1)).to_string();
    assert!(message.contains("b1"), "{message}");
}

#[test]
fn unreachable_blocks_are_ignored() {
    // 3 is unreachable and jumps into the diamond.
    let s = split(
        &[&[1, 2], &[4], &[4], &[1, 2], &[]],
        4,
        StartEndEdge::Virtual,
    );
    assert_eq!(s.split_node(b(3), 0), None);
    for c in ALL {
        let ppg = Ppg::build(&s, c);
        ppg.check().unwrap();
        assert_eq!(ppg.predicate_of(b(3)), None);
        assert_eq!(ppg.num_predicates(), 3);
    }
}

#[test]
fn dot_draws_predicates_and_hyper_arcs() {
    let ppg = Ppg::from_cdg(&fig8());
    let dot = ppg.to_dot();
    assert!(dot.starts_with("digraph ppg {"));
    assert!(dot.contains("shape=point"));
    assert!(dot.contains("START→END"));
    assert!(dot.contains("b3→b4#0"));
    assert!(dot.contains("(root)"));
    let named = ppg.to_dot_with(|n| format!("{n:?}"));
    assert!(named.contains("Original(b6)"));
}

// ---- the loop forest (§4.2) ----

fn forest(succs: &[&[u32]], end: u32, c: Construction) -> PpgForest {
    let f = PpgForest::build(&cfg(succs), b(end), StartEndEdge::Virtual, c).expect("reducible");
    f.check()
        .unwrap_or_else(|(r, e)| panic!("{r:?}: {e}\n{}", f.to_dot()));
    f
}

#[test]
fn loop_with_an_if_inside() {
    // 0 -> 1 (header); 1 -> 2 (body), 6 (exit); 2 -> 3, 4; 3, 4 -> 5; 5 -> 1; 6 END.
    let g: &[&[u32]] = &[&[1], &[2, 6], &[3, 4], &[5], &[5], &[1], &[]];
    for c in ALL {
        let f = forest(g, 6, c);
        assert_eq!(f.num_regions(), 2);
        let l = f.loop_forest().loop_headed_by(b(1)).unwrap();
        let inner = f.region_of_loop(l);
        assert_eq!(f.region_of_block(b(3)), Some(inner));
        assert_eq!(f.region_of_block(b(0)), Some(RegionId::FUNCTION));
        let region = f.region(inner);
        assert_eq!(region.parent(), Some(RegionId::FUNCTION));
        let ppg = region.ppg();
        assert_eq!(
            f.predicate_of(b(1)).unwrap().pred,
            ppg.root(),
            "the header runs"
        );
        let p = |x: u32| f.predicate_of(b(x)).unwrap();
        assert_eq!(p(5), p(2), "the join is equivalent to the branch");
        assert!(f.implies(p(3), p(2)) && f.disjoint(p(3), p(4)));
        assert!(f.covers(p(2), &[p(3), p(4)]));
        assert!(!f.implies(p(3), p(0)), "never across loop levels");
        assert!(!f.disjoint(p(3), p(6)) && f.complement(p(0), p(3)).is_none());
        assert!(!f.covers(p(3), &[p(0)]));
        let (star, edge) = f.exit_predicate(l, b(6)).unwrap();
        assert_eq!(star.region, inner);
        assert_eq!(edge.region, RegionId::FUNCTION);
        assert!(
            f.disjoint(star, p(2)),
            "an iteration leaves or runs the body"
        );
        // The function region is the chain 0 -> loop(1) -> 6.
        let whole = f.loop_predicate(l).unwrap();
        assert_eq!(whole, p(0));
        assert_eq!(f.region(RegionId::FUNCTION).ppg().num_predicates(), 1);
        let dot = f.to_dot();
        assert!(dot.contains("cluster_r1") && dot.contains("★(b6)") && dot.contains("loop(b1)"));
    }
}

#[test]
fn nested_loops() {
    // 0 -> 1; 1 -> 2, 5; 2 -> 3; 3 -> 2, 4; 4 -> 1; 5 END.
    // Outer loop {1, 2, 3, 4}, inner loop {2, 3}.
    let g: &[&[u32]] = &[&[1], &[2, 5], &[3], &[2, 4], &[1], &[]];
    for c in ALL {
        let f = forest(g, 5, c);
        assert_eq!(f.num_regions(), 3);
        let lf = f.loop_forest();
        let (outer, inner) = (
            lf.loop_headed_by(b(1)).unwrap(),
            lf.loop_headed_by(b(2)).unwrap(),
        );
        let (ro, ri) = (f.region_of_loop(outer), f.region_of_loop(inner));
        assert_eq!(f.region(ri).parent(), Some(ro));
        assert_eq!(f.region(ro).parent(), Some(RegionId::FUNCTION));
        // The outer region: START -> 1; 1 -> loop(2), ★(5); loop(2) -> 4 -> END.
        let region = f.region(ro);
        let lnode = region
            .find(RegionNode::Loop {
                header: b(2),
                region: ri,
            })
            .unwrap();
        assert_eq!(
            region.node(lnode),
            Some(RegionNode::Loop {
                header: b(2),
                region: ri
            })
        );
        assert!(region.find(RegionNode::Exit(b(5))).is_some());
        let inner_loop = f.loop_predicate(inner).unwrap();
        assert_eq!(inner_loop.region, ro);
        assert_eq!(inner_loop, f.predicate_of(b(4)).unwrap(), "loop(2) ~ 4");
        let (star, _) = f.exit_predicate(outer, b(5)).unwrap();
        assert!(f.disjoint(star, inner_loop));
        // The inner region: START -> 2 -> 3; 3 -> END (back edge), ★(4).
        let (star4, edge) = f.exit_predicate(inner, b(4)).unwrap();
        assert_eq!((star4.region, edge.region), (ri, ro));
        let p3 = f.predicate_of(b(3)).unwrap();
        assert!(
            !f.disjoint(star4, p3) && f.implies(star4, p3),
            "3 leaves or loops"
        );
    }
}

#[test]
fn an_inner_loop_that_continues_the_outer_one() {
    // 0 -> 1; 1 -> 2, 4; 2 -> 3; 3 -> 2 (inner latch), 1 (outer latch); 4 END.
    let g: &[&[u32]] = &[&[1], &[2, 4], &[3], &[2, 1], &[]];
    for c in ALL {
        let f = forest(g, 4, c);
        let lf = f.loop_forest();
        let (outer, inner) = (
            lf.loop_headed_by(b(1)).unwrap(),
            lf.loop_headed_by(b(2)).unwrap(),
        );
        let (star, edge) = f
            .exit_predicate(inner, b(1))
            .expect("3 -> 1 leaves the inner loop");
        assert_eq!(star.region, f.region_of_loop(inner));
        assert_eq!(edge.region, f.region_of_loop(outer));
        // In the outer region, loop(2) goes to END only: the edge is equivalent to it.
        assert_eq!(Some(edge), f.loop_predicate(inner));
        assert_eq!(
            f.exit_predicate(inner, b(4)),
            None,
            "the inner loop never leaves for 4"
        );
    }
}

#[test]
fn loop_with_two_exits() {
    // 0 -> 1; 1 -> 2, 4; 2 -> 3, 5; 3 -> 1; 4, 5 -> 6 (END).
    let g: &[&[u32]] = &[&[1], &[2, 4], &[3, 5], &[1], &[6], &[6], &[]];
    for c in ALL {
        let f = forest(g, 6, c);
        let l = f.loop_forest().loop_headed_by(b(1)).unwrap();
        let (s4, e4) = f.exit_predicate(l, b(4)).unwrap();
        let (s5, e5) = f.exit_predicate(l, b(5)).unwrap();
        assert!(f.disjoint(s4, s5) && f.disjoint(e4, e5));
        let whole = f.loop_predicate(l).unwrap();
        assert!(f.covers(whole, &[e4, e5]));
        assert_eq!(
            f.predicate_of(b(4)),
            Some(e4),
            "the exit edge is equivalent to 4"
        );
        let back = f.predicate_of(b(3)).unwrap();
        assert!(f.disjoint(back, s4) && f.disjoint(back, s5));
    }
}

#[test]
fn a_loop_at_the_entry_and_parallel_exits() {
    // 0 -> 0, 1, 1 (a self-loop and two edges to 1); 1 END.
    let f = forest(&[&[0, 1, 1], &[]], 1, Construction::Cdg);
    let l = f.loop_forest().loop_headed_by(b(0)).unwrap();
    let region = f.region(f.region_of_loop(l));
    // The two exit edges are two paths to ★(1), so they are split apart.
    let star = region.find(RegionNode::Exit(b(1))).unwrap();
    assert_eq!(region.split().cfg().preds(star).len(), 2);
    assert_eq!(f.region(RegionId::FUNCTION).num_nodes(), 2, "loop(0), 1");
    assert!(f.exit_predicate(l, b(1)).is_some());
}

#[test]
fn irreducible_and_endless_graphs_are_rejected() {
    // 0 -> 1, 2; 1 <-> 2; 1, 2 -> 3: a cycle with two entries.
    let g = cfg(&[&[1, 2], &[2, 3], &[1, 3], &[]]);
    let e = PpgForest::build(&g, b(3), StartEndEdge::Virtual, Construction::Cdg).unwrap_err();
    assert!(matches!(e, PpgError::Irreducible { .. }), "{e}");
    // 0 -> 1, 2; 1 -> 1: a loop without exit.
    let g = cfg(&[&[1, 2], &[1], &[]]);
    assert_eq!(
        PpgForest::build(&g, b(2), StartEndEdge::Virtual, Construction::Cdg).unwrap_err(),
        PpgError::NoPathToEnd(b(1))
    );
}
