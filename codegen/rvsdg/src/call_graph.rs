//! The call graph of the λs of a graph: who calls whom directly (a `call` node naming,
//! through its λ's `ext_funcs`, a λ of the graph), its strongly connected components
//! in bottom-up order (Tarjan's algorithm: a component after every component it
//! calls), and which λs are recursive (in a cycle, a call to itself included).
//!
//! Calls name their callee by symbol, so the edges are derived from the names; a name
//! that is no λ of the graph (a declaration, a function that was not built) is no
//! edge. Indirect calls and addresses taken (`symbol_addr`) are not edges either: an
//! inliner expands direct calls only, so a cycle that goes through a function pointer
//! cannot make it expand forever.

use rustc_hash::FxHashMap;
use vliw_ir::InstructionData;

use crate::graph::Node;
use crate::ops::{Op, Rvsdg};

/// The direct calls between the λs of a graph.
#[derive(Clone, Debug, Default)]
pub struct CallGraph {
    /// The λs (live nodes of the root), by index.
    pub lambdas: Vec<Node>,
    /// The index of each λ's name.
    pub index: FxHashMap<String, usize>,
    /// The λs each one calls directly (indices, each once, in the order first met).
    pub callees: Vec<Vec<usize>>,
    /// The strongly connected components, callees' before callers'.
    pub sccs: Vec<Vec<usize>>,
    /// Whether each λ is in a cycle (several λs, or one that calls itself).
    pub recursive: Vec<bool>,
}

impl CallGraph {
    pub fn new(g: &Rvsdg) -> CallGraph {
        let lambdas = g.lambdas();
        let index: FxHashMap<String, usize> = lambdas
            .iter()
            .enumerate()
            .map(|(i, &l)| (g.lambda_info(l).name.clone(), i))
            .collect();
        let callees: Vec<Vec<usize>> = lambdas
            .iter()
            .map(|&l| {
                let mut out: Vec<usize> = Vec::new();
                for (_, name) in direct_calls(g, l) {
                    if let Some(&j) = index.get(name)
                        && !out.contains(&j)
                    {
                        out.push(j);
                    }
                }
                out
            })
            .collect();
        let sccs = tarjan(&callees);
        let mut recursive = vec![false; lambdas.len()];
        for scc in &sccs {
            if scc.len() > 1 || callees[scc[0]].contains(&scc[0]) {
                for &i in scc {
                    recursive[i] = true;
                }
            }
        }
        CallGraph {
            lambdas,
            index,
            callees,
            sccs,
            recursive,
        }
    }
}

/// The `call` nodes below λ `lambda`'s body, with the symbol each names (outer regions
/// first, each region's nodes in no particular order).
pub fn direct_calls(g: &Rvsdg, lambda: Node) -> Vec<(Node, &str)> {
    let info = g.lambda_info(lambda);
    let mut out = Vec::new();
    for r in g.regions_below(g.lambda_body(lambda)) {
        for &n in g.nodes(r) {
            if let Some(Op::Inst(InstructionData::Call { func, .. })) = g.op(n)
                && let Some(callee) = info.ext_funcs.get(*func)
            {
                out.push((n, callee.name.as_str()));
            }
        }
    }
    out
}

/// Tarjan's strongly connected components of the graph `succs` (iterative: call
/// chains may be long), each completed after every component it reaches.
fn tarjan(succs: &[Vec<usize>]) -> Vec<Vec<usize>> {
    const NONE: u32 = u32::MAX;
    let n = succs.len();
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    // the depth-first search's path: a vertex and the next successor to visit
    let mut path: Vec<(usize, usize)> = Vec::new();
    let mut counter = 0u32;
    let mut out = Vec::new();
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        path.push((root, 0));
        index[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut next)) = path.last_mut() {
            if let Some(&w) = succs[v].get(*next) {
                *next += 1;
                if index[w] == NONE {
                    index[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    path.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            path.pop();
            if let Some(&(u, _)) = path.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                comp.reverse();
                out.push(comp);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_graph;

    /// The SCCs by λ name, each sorted.
    fn sccs(cg: &CallGraph, g: &Rvsdg) -> Vec<Vec<String>> {
        cg.sccs
            .iter()
            .map(|c| {
                let mut names: Vec<String> = c
                    .iter()
                    .map(|&i| g.lambda_info(cg.lambdas[i]).name.clone())
                    .collect();
                names.sort();
                names
            })
            .collect()
    }

    /// A λ `name` that calls each of `callees` (no arguments, no results).
    fn lambda(name: &str, callees: &[&str]) -> String {
        let mut s = format!("lambda @{name}() {{\n");
        for (i, c) in callees.iter().enumerate() {
            s += &format!("    fn{i} = @{c}()\n");
        }
        s += "  (a0: mem, a1: io):\n";
        let (mut mem, mut io) = ("a0".to_string(), "a1".to_string());
        for i in 0..callees.len() {
            s += &format!("    n{i} = call fn{i} {mem}, {io} : mem, io\n");
            (mem, io) = (format!("n{i}.0"), format!("n{i}.1"));
        }
        s + &format!("    -> ({mem}, {io})\n}}\n")
    }

    fn graph(lambdas: &[(&str, &[&str])]) -> Rvsdg {
        let text: String = lambdas.iter().map(|(n, c)| lambda(n, c)).collect();
        parse_graph(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    #[test]
    fn components_come_bottom_up_and_cycles_are_recursive() {
        // main -> a -> b -> a (a cycle), a -> leaf, main -> self_rec -> self_rec,
        // main -> ext (a declaration: no edge)
        let g = graph(&[
            ("main", &["a", "self_rec", "ext", "a"]),
            ("a", &["b", "leaf"]),
            ("b", &["a"]),
            ("leaf", &[]),
            ("self_rec", &["self_rec"]),
        ]);
        let cg = CallGraph::new(&g);
        let by = |name: &str| cg.index[name];
        assert_eq!(cg.callees[by("main")], [by("a"), by("self_rec")]);
        let order = sccs(&cg, &g);
        assert_eq!(order.len(), 4);
        let pos = |name: &str| order.iter().position(|c| c.iter().any(|n| n == name));
        assert_eq!(order[pos("a").unwrap()], ["a", "b"]);
        assert!(pos("leaf") < pos("a"));
        assert!(pos("a") < pos("main"));
        assert!(pos("self_rec") < pos("main"));
        let rec: Vec<&str> = ["main", "a", "b", "leaf", "self_rec"]
            .into_iter()
            .filter(|n| cg.recursive[by(n)])
            .collect();
        assert_eq!(rec, ["a", "b", "self_rec"]);
    }

    #[test]
    fn a_long_chain_needs_no_deep_recursion() {
        let names: Vec<String> = (0..20_000).map(|i| format!("f{i}")).collect();
        let callees: Vec<Vec<usize>> = (0..names.len())
            .map(|i| {
                if i + 1 < names.len() {
                    vec![i + 1]
                } else {
                    vec![]
                }
            })
            .collect();
        let sccs = tarjan(&callees);
        assert_eq!(sccs.len(), names.len());
        // the last one (called by all the others) first
        assert_eq!(sccs[0], [names.len() - 1]);
        assert_eq!(sccs[names.len() - 1], [0]);
        // a ring is one component
        let mut ring = callees.clone();
        ring[names.len() - 1] = vec![0];
        assert_eq!(tarjan(&ring).len(), 1);
    }
}
