//! The thesis's running examples through `buildPDG`.

use super::*;

const ORDERING: BuildOptions = BuildOptions {
    gamma_ordering: true,
    speculate: false,
};
use crate::lawrence::pdg::{Pdg, PdgNode};
use crate::text::parse_graph;

fn proceduralize(text: &str) -> (Flat, Result<Proceduralized, BuildError>) {
    let g = parse_graph(text).unwrap_or_else(|e| panic!("{e}"));
    let l = g.lambdas()[0];
    let flat = Flat::build(&g, g.lambda_body(l));
    let p = build_pdg(&g, &flat, ORDERING);
    (flat, p)
}

/// The flat node computed by `id`'s statement, if it is one.
fn statement(p: &Proceduralized, id: PdgId) -> Option<FlatId> {
    match p.pdg.node(id) {
        PdgNode::Statement(f) => Some(*f),
        _ => None,
    }
}

/// The arm groups of γ `gamma`'s predicate.
fn arms_of(p: &Proceduralized, gamma: FlatId) -> Vec<PdgId> {
    (p.pdg.nodes.iter())
        .find_map(|n| match n {
            PdgNode::Predicate { gamma: g, arms } if *g == gamma => Some(arms.clone()),
            _ => None,
        })
        .expect("the γ's predicate")
}

/// Fig. 3.1, exclusive redundancy: `if P then A else if Q then B else A`. A is
/// linked under γ1's first arm and γ2's second, once each (one static A, shared),
/// with the condition ⟨?⟩(γ1, Λ^r1, ⟨?⟩(γ2, ∅, Λ^r1)): a tail of γ1 on both paths.
const EXCLUSIVE: &str = "lambda @f(i1, i1, i32, i32) -> i32 export {
  (a0: i1, a1: i1, a2: i32, a3: i32, a4: mem, a5: io):
    n0 = iadd a2, a3 : i32
    n1 = match2 [1 -> 0, _ -> 1] a0 : ctl2
    n2 = gamma n1 [n0, a1, a2] : i32 {
      (a0: i32, a1: i1, a2: i32):
        -> (a0)
      (a0: i32, a1: i1, a2: i32):
        n3 = match2 [1 -> 0, _ -> 1] a1 : ctl2
        n4 = gamma n3 [a0, a2] : i32 {
          (a0: i32, a1: i32):
            n5 = imul a1, a1 : i32
            -> (n5)
          (a0: i32, a1: i32):
            -> (a0)
        }
        -> (n4)
    }
    -> (n2, a4, a5)
}
";

#[test]
fn exclusive_redundancy_shares_one_a_as_a_tail_of_the_outer_gamma() {
    let (flat, p) = proceduralize(EXCLUSIVE);
    let p = p.unwrap();
    p.pdg.verify(&flat).unwrap();
    // f0 = A, f1 = P's match, f2 = Q's match, f3 = B, f4 = γ2, f5 = γ1
    let (a, b, g2, g1) = (0, 3, 4, 5);
    assert_eq!(p.pdom.ipdom(a as usize), Some(g1 as usize));
    let parents = p.pdg.parents();
    let [g1_then, g1_else] = arms_of(&p, g1)[..] else {
        panic!()
    };
    let [g2_then, g2_else] = arms_of(&p, g2)[..] else {
        panic!()
    };
    let fa = p.fragments[a as usize];
    let mut want = [g1_then, g2_else];
    want.sort_unstable();
    assert_eq!(parents[fa as usize], want, "{}", p.pdg);
    assert_eq!(parents[p.fragments[b as usize] as usize], [g2_then]);
    // γ2 runs in γ1's second arm; A's condition is a tail of γ1 on both paths
    assert_eq!(parents[p.fragments[g2 as usize] as usize], [g1_else]);
    let tail = Dests::one(a, 0, Dest::Tail(g1, 0));
    assert_eq!(
        p.conditions[a as usize],
        Cond::Switch(
            g1,
            vec![
                Cond::Always(tail.clone()),
                Cond::Switch(g2, vec![Cond::Never, Cond::Always(tail)])
            ]
        )
    );
    // each fragment holds one statement; B's is f3
    let inner = p.pdg.successors(p.fragments[b as usize])[0];
    assert_eq!(statement(&p, inner), Some(b));
}

/// Fig. 3.2, independent redundancy: A is demanded by γ1's first arm and by γ2's
/// first arm, two γs side by side: ⟨?⟩(γ1, Λ, ∅) ⊕ ⟨?⟩(γ2, Λ, ∅). γ-ordering tests
/// γ1 first and moves γ2 under both its arms; A is then linked under γ1's first arm
/// and under γ2's first arm in γ1's second: evaluated at most once, each predicate
/// tested once on every path.
const INDEPENDENT: &str = "lambda @f(i1, i1, i32) -> i32 export {
  (a0: i1, a1: i1, a2: i32, a3: mem, a4: io):
    n0 = imul a2, a2 : i32
    n1 = match2 [1 -> 0, _ -> 1] a0 : ctl2
    n2 = gamma n1 [n0, a2] : i32 {
      (a0: i32, a1: i32):
        -> (a0)
      (a0: i32, a1: i32):
        -> (a1)
    }
    n3 = match2 [1 -> 0, _ -> 1] a1 : ctl2
    n4 = gamma n3 [n0, a2] : i32 {
      (a0: i32, a1: i32):
        -> (a0)
      (a0: i32, a1: i32):
        -> (a1)
    }
    n5 = iadd n2, n4 : i32
    -> (n5, a3, a4)
}
";

/// How often each flat node runs (statements computed, predicates tested) when the
/// PDG runs with γ `g` taking arm `outcome(g)`.
fn runs(pdg: &Pdg, flat: &Flat, outcome: &impl Fn(FlatId) -> usize) -> Vec<usize> {
    let mut counts = vec![0; flat.nodes.len()];
    let mut stack = vec![pdg.root];
    while let Some(id) = stack.pop() {
        match pdg.node(id) {
            PdgNode::Group(children) => stack.extend(children),
            PdgNode::Statement(f) => counts[*f as usize] += 1,
            PdgNode::Predicate { gamma, arms } => {
                counts[*gamma as usize] += 1;
                stack.push(arms[outcome(*gamma)]);
            }
        }
    }
    counts
}

#[test]
fn independent_redundancy_is_gamma_ordered() {
    let (flat, p) = proceduralize(INDEPENDENT);
    let p = p.unwrap_or_else(|e| panic!("{e:?}"));
    p.pdg
        .verify(&flat)
        .unwrap_or_else(|e| panic!("{e}\n{}", p.pdg));
    // f0 = A, f1 = P's match, f2 = γ1, f3 = Q's match, f4 = γ2, f5 = the sum
    let (a, g1, g2) = (0usize, 2usize, 4usize);
    // A runs exactly when demanded (γ1 or γ2 takes its first arm), at most once; each
    // γ is tested once on every path (Table 3.1: call-by-need, 0-1 evaluations)
    for o1 in 0..2 {
        for o2 in 0..2 {
            let outcome = |g: FlatId| if g as usize == g1 { o1 } else { o2 };
            let counts = runs(&p.pdg, &flat, &outcome);
            let demanded = o1 == 0 || o2 == 0;
            assert_eq!(counts[a], usize::from(demanded), "{o1} {o2}\n{}", p.pdg);
            assert_eq!((counts[g1], counts[g2]), (1, 1), "{o1} {o2}\n{}", p.pdg);
        }
    }
    let (pdg, _) = p.pdg.normalized();
    pdg.verify(&flat).unwrap();
    // in the order it is sequenced, every node's operands come first on every path
    for o1 in 0..2 {
        for o2 in 0..2 {
            let outcome = |g: FlatId| if g as usize == g1 { o1 } else { o2 };
            pdg.check_path(&flat, &outcome)
                .unwrap_or_else(|e| panic!("{e}\n{pdg}"));
        }
    }
}

#[test]
fn exclusive_redundancy_runs_a_only_when_demanded() {
    let (flat, p) = proceduralize(EXCLUSIVE);
    let p = p.unwrap();
    // f0 = A, f4 = γ2 (tested only in γ1's second arm), f5 = γ1
    for o1 in 0..2 {
        for o2 in 0..2 {
            let outcome = |g: FlatId| if g == 5 { o1 } else { o2 };
            let counts = runs(&p.pdg, &flat, &outcome);
            let demanded = o1 == 0 || o2 == 1;
            assert_eq!(counts[0], usize::from(demanded), "{o1} {o2}");
            assert_eq!(counts[4], usize::from(o1 == 1), "{o1} {o2}");
        }
    }
}

/// Every function of the RVSDG text tests that has no independent redundancy gives
/// a PDG that verifies, with every node placed.
#[test]
fn the_text_tests_proceduralize() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/rvsdg/text");
    let (mut built, mut ordered) = (0, 0);
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.display().to_string();
        let g = parse_graph(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for l in g.lambdas() {
            let mut units = vec![g.lambda_body(l)];
            while let Some(unit) = units.pop() {
                let flat = Flat::build(&g, unit);
                for node in &flat.nodes {
                    if let FlatKind::Theta(t) = node.kind {
                        units.push(g.theta_body(t));
                    }
                }
                match build_pdg(&g, &flat, ORDERING) {
                    Ok(p) => {
                        let verified = p.pdg.verify(&flat);
                        verified.unwrap_or_else(|e| panic!("{name}: {e}\n{}", p.pdg));
                        // normalized, it still verifies and every group has an order
                        let (pdg, _) = p.pdg.normalized();
                        pdg.verify(&flat)
                            .unwrap_or_else(|e| panic!("{name}: {e}\n{pdg}"));
                        for id in 0..pdg.nodes.len() as PdgId {
                            if let PdgNode::Group(_) = pdg.node(id) {
                                let order =
                                    pdg.sequence(&flat, id, &|id| pdg.parent_counts()[id as usize]);
                                order.unwrap_or_else(|e| panic!("{name}: {e}\n{pdg}"));
                            }
                        }
                        built += 1;
                    }
                    Err(BuildError::IndependentRedundancy { .. }) => ordered += 1,
                    Err(e) => panic!("{name}: {e:?}\n{flat}"),
                }
            }
        }
    }
    assert!(built >= 5, "{built} units built, {ordered} need γ-ordering");
}

#[test]
fn normalizing_merges_single_parent_groups_and_sequencing_follows_the_data() {
    let (flat, p) = proceduralize(EXCLUSIVE);
    let p = p.unwrap();
    let (pdg, map) = p.pdg.normalized();
    pdg.verify(&flat).unwrap_or_else(|e| panic!("{e}\n{pdg}"));
    // the root runs P's match and γ1's test directly; A's group, shared, stays
    let root: Vec<&PdgNode> = pdg
        .successors(pdg.root)
        .iter()
        .map(|&c| pdg.node(c))
        .collect();
    assert_eq!(root.len(), 2, "{pdg}");
    assert!(root.contains(&&PdgNode::Statement(1)), "{pdg}");
    assert!(
        root.iter()
            .any(|n| matches!(n, PdgNode::Predicate { gamma: 5, .. })),
        "{pdg}"
    );
    let shared = map[p.fragments[0] as usize].expect("A's group is kept");
    assert_eq!(pdg.parents()[shared as usize].len(), 2);
    // the match before the test that reads it
    let order = pdg
        .sequence(&flat, pdg.root, &|id| pdg.parent_counts()[id as usize])
        .unwrap();
    assert!(matches!(pdg.node(order[0]), PdgNode::Statement(1)), "{pdg}");
}
