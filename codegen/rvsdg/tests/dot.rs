//! The Graphviz writer: its output is well-formed (balanced braces, every edge between
//! declared nodes, one edge per input and result) and deterministic.

mod common;

use rustc_hash::FxHashSet as HashSet;
use vliw_rvsdg::*;

/// Checks the shape of a drawing of `g`: braces balance outside quoted strings, every
/// node and region port record is declared once, every edge joins declared records,
/// and there is one edge per input and per result.
fn check(g: &Rvsdg, dot: &str) {
    let mut depth = 0i64;
    let mut quoted = false;
    let mut escaped = false;
    for c in dot.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => quoted = !quoted,
            '{' if !quoted => depth += 1,
            '}' if !quoted => {
                depth -= 1;
                assert!(depth >= 0, "unbalanced braces\n{dot}");
            }
            _ => {}
        }
    }
    assert!(depth == 0 && !quoted, "unbalanced\n{dot}");
    let mut declared = HashSet::default();
    let mut edges = 0;
    for line in dot.lines().map(str::trim) {
        if let Some((from, to)) = line.split_once(" -> ") {
            let id = |end: &str| end.split([':', ' ', ';']).next().unwrap().to_string();
            for end in [from, to] {
                assert!(
                    declared.contains(&id(end)),
                    "undeclared {end} in {line}\n{dot}"
                );
            }
            edges += 1;
        } else if let Some((id, _)) = line.split_once(" [label=") {
            assert!(
                declared.insert(id.to_string()),
                "{id} declared twice\n{dot}"
            );
        }
    }
    let mut expected_edges = 0;
    let mut nodes = 0;
    for r in g.regions_below(g.root()) {
        expected_edges += g.results(r).len();
        for &n in g.nodes(r) {
            expected_edges += g.inputs(n).len();
            nodes += 1;
        }
    }
    assert_eq!(edges, expected_edges, "{dot}");
    let node_records = declared.iter().filter(|id| !id.contains('_')).count();
    assert_eq!(node_records, nodes, "{dot}");
}

#[test]
fn drawings_of_the_texts_are_well_formed() {
    for (name, text) in common::texts() {
        let g = parse_graph(&text).unwrap();
        let mut dot = String::new();
        write_dot(&mut dot, &g, &name);
        check(&g, &dot);
        let mut again = String::new();
        write_dot(&mut again, &g, &name);
        assert_eq!(dot, again, "deterministic");
    }
}
