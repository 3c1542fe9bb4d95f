//! Removing several θ and γ variables at once (`Graph::remove_theta_vars`,
//! `remove_gamma_entries`, `remove_gamma_exits`): the graph keeps verifying, the kept
//! variables keep their order and their users read the renumbered ports, and what the
//! λ computes does not change.

use vliw_rvsdg::{NodeKind, Origin, Rvsdg, parse_graph, verify};

fn text(g: &Rvsdg) -> String {
    let mut s = String::new();
    vliw_rvsdg::write_graph(&mut s, g);
    s
}

const GRAPH: &str = "\
lambda @f(i64, i64) -> i64 export {
  (a0: i64, a1: i64, a2: mem, a3: io):
    n0 = iconst 0 : i64
    n1 = iconst 7 : i64
    n2 = theta [n0, a0, n1, a1, n1] : i64, i64, i64, i64, i64 {
      (a0: i64, a1: i64, a2: i64, a3: i64, a4: i64):
        n3 = iconst 1 : i64
        n4 = iadd a0, n3 : i64
        n5 = iadd a3, a0 : i64
        n6 = icmp slt n4, a1 : i1
        n7 = match2 [1 -> 1, _ -> 0] n6 : ctl2
        -> (n7, n4, a1, a2, n5, a4)
    }
    n8 = iconst 1 : i64
    n9 = icmp sgt a0, n8 : i1
    n10 = match2 [1 -> 1, _ -> 0] n9 : ctl2
    n11 = gamma n10 [n1, n2.3, a0, n0] : i64, i64, i64 {
      (a0: i64, a1: i64, a2: i64, a3: i64):
        -> (a0, a1, a3)
      (a0: i64, a1: i64, a2: i64, a3: i64):
        -> (a2, a1, a3)
    }
    -> (n11.1, a2, a3)
}
";

#[test]
fn several_variables_go_at_once() {
    let mut g = parse_graph(GRAPH).unwrap();
    let l = g.lambdas()[0];
    let body = g.lambda_body(l);
    let nodes = g.nodes(body).to_vec();
    let theta = *nodes
        .iter()
        .find(|&&n| matches!(g.kind(n), NodeKind::Theta { .. }))
        .unwrap();
    let gamma = *nodes
        .iter()
        .find(|&&n| matches!(g.kind(n), NodeKind::Gamma { .. }))
        .unwrap();
    // θ variables 2 and 4 (invariant 7s nothing reads), γ exits 0 and 2, then the
    // γ entries 0, 2 and 3 that no arm reads any more
    g.remove_theta_vars(theta, |k| k == 2 || k == 4);
    g.remove_gamma_exits(gamma, |k| k == 0 || k == 2);
    g.remove_gamma_entries(gamma, |k| k != 1);
    verify(&g).unwrap_or_else(|e| panic!("{e:?}\n{}", text(&g)));
    assert_eq!(g.inputs(theta).len(), 3);
    assert_eq!(g.num_outputs(gamma), 1);
    assert_eq!(g.inputs(gamma).len(), 2);
    // the γ's one exit reads the θ's sum, renumbered from output 3 to output 2
    assert_eq!(g.input(gamma, 1), Origin::Out(theta, 2));
    let tbody = g.theta_body(theta);
    let printed = text(&g);
    assert_eq!(g.results(tbody).len(), 4, "{printed}");
    // the sum's next value still reads the old a3, now a2, and the counter a0
    assert!(printed.contains("iadd a2, a0"), "{printed}");
    // and it reads back as it prints
    let again = parse_graph(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    assert_eq!(text(&again), printed);
}
