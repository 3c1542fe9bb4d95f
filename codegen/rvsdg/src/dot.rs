//! A Graphviz drawing of an RVSDG, for looking at graphs (`dot -Tsvg`).
//!
//! Each region is a cluster (nested as the regions are), with a record for its
//! arguments at the top and one for its results at the bottom; a structural node is a
//! cluster holding its record and its regions. A node is a record of three rows: its
//! input ports, its text-form name and operation, its output ports (labelled with their
//! types). Value edges are solid, state edges dashed, control edges bold and red. The
//! output depends only on the graph (nodes in index order), so it can be compared.
//! It draws ill-formed graphs too: an edge from nothing (a port that does not exist) is
//! left out.

use core::fmt::Write;

use cranelift_entity::SecondaryMap;
use vliw_ir::write::write_symbol;

use crate::graph::{Kind, Node, NodeKind, Operation, Origin, Region, User};
use crate::ops::{Op, Rvsdg};
use crate::text::node_names;

/// Appends the drawing of `g`, titled `title`, to `out`.
pub fn write_dot(out: &mut String, g: &Rvsdg, title: &str) {
    let mut d = Dot {
        g,
        out,
        names: node_names(g),
    };
    let _ = writeln!(d.out, "digraph \"{}\" {{", escape(title));
    let _ = writeln!(d.out, "  label=\"{}\";", escape(title));
    d.out.push_str("  labelloc=t;\n");
    d.out
        .push_str("  node [shape=record, fontname=\"monospace\", fontsize=10];\n");
    d.out.push_str("  edge [arrowsize=0.6];\n");
    d.region(g.root(), "root", 1);
    for r in g.regions_below(g.root()) {
        for n in sorted(g.nodes(r)) {
            for (i, &o) in g.inputs(n).iter().enumerate() {
                d.edge(o, User::In(n, i as u32));
            }
            for &sub in g.kind(n).subregions() {
                for (i, &o) in g.results(sub).iter().enumerate() {
                    d.edge(o, User::Res(sub, i as u32));
                }
            }
        }
    }
    d.out.push_str("}\n");
}

struct Dot<'a> {
    g: &'a Rvsdg,
    out: &'a mut String,
    names: SecondaryMap<Node, Option<u32>>,
}

fn sorted(nodes: &[Node]) -> Vec<Node> {
    let mut v = nodes.to_vec();
    v.sort_unstable();
    v
}

/// Escapes the characters that are special in a record label or a quoted string.
fn escape(s: &str) -> String {
    let mut e = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '{' | '}' | '|' | '<' | '>' | '"' | '\\') {
            e.push('\\');
        }
        e.push(c);
    }
    e
}

impl Dot<'_> {
    fn indent(&mut self, depth: usize) {
        self.out.extend(core::iter::repeat_n("  ", depth));
    }

    /// The cluster of region `r`, at nesting `depth`.
    fn region(&mut self, r: Region, label: &str, depth: usize) {
        let g = self.g;
        self.indent(depth);
        let _ = writeln!(self.out, "subgraph cluster_{r} {{");
        self.indent(depth + 1);
        let _ = writeln!(self.out, "label=\"{}\";", escape(label));
        if !g.args(r).is_empty() {
            let ports: Vec<String> = g
                .args(r)
                .iter()
                .enumerate()
                .map(|(i, a)| format!("<a{i}> a{i}: {}", a.ty))
                .collect();
            self.indent(depth + 1);
            let _ = writeln!(self.out, "{r}_args [label=\"{}\"];", ports.join("|"));
        }
        for n in sorted(g.nodes(r)) {
            self.node(n, depth + 1);
        }
        if !g.results(r).is_empty() {
            let ports: Vec<String> = (0..g.results(r).len())
                .map(|i| format!("<r{i}> r{i}"))
                .collect();
            self.indent(depth + 1);
            let _ = writeln!(self.out, "{r}_results [label=\"{}\"];", ports.join("|"));
        }
        self.indent(depth);
        self.out.push_str("}\n");
    }

    fn node(&mut self, n: Node, depth: usize) {
        let g = self.g;
        let mut label = match self.names[n] {
            Some(k) => format!("n{k} = "),
            None => String::new(),
        };
        match g.kind(n) {
            NodeKind::Simple(op) => {
                let _ = op.write(&mut label, g.output_types(n).first().copied());
            }
            NodeKind::Lambda { info, .. } => {
                label.push_str("lambda ");
                let _ = write_symbol(&mut label, &info.name);
            }
            kind => label.push_str(&kind.label()),
        }
        let mut rows = Vec::new();
        if !g.inputs(n).is_empty() {
            let ports: Vec<String> = (0..g.inputs(n).len()).map(|i| format!("<i{i}>")).collect();
            rows.push(format!("{{{}}}", ports.join("|")));
        }
        rows.push(escape(&label));
        if g.num_outputs(n) > 0 {
            let ports: Vec<String> = g
                .output_types(n)
                .iter()
                .enumerate()
                .map(|(i, t)| format!("<o{i}> {t}"))
                .collect();
            rows.push(format!("{{{}}}", ports.join("|")));
        }
        let subregions = g.kind(n).subregions();
        if subregions.is_empty() {
            self.indent(depth);
            let _ = writeln!(self.out, "{n} [label=\"{{{}}}\"];", rows.join("|"));
            return;
        }
        self.indent(depth);
        let _ = writeln!(self.out, "subgraph cluster_{n} {{");
        self.indent(depth + 1);
        let _ = writeln!(self.out, "label=\"{}\";", escape(&label));
        self.indent(depth + 1);
        let _ = writeln!(self.out, "{n} [label=\"{{{}}}\"];", rows.join("|"));
        for (k, &r) in subregions.iter().enumerate() {
            let what = match g.kind(n) {
                NodeKind::Gamma { .. } => format!("arm {k}"),
                _ => "body".into(),
            };
            self.region(r, &what, depth + 1);
        }
        self.indent(depth);
        self.out.push_str("}\n");
    }

    /// The edge from `o` to `u`, styled by its kind, if `o` exists.
    fn edge(&mut self, o: Origin, u: User) {
        let g = self.g;
        let (from, port) = match o {
            Origin::Out(m, i) if (i as usize) < g.num_outputs(m) => (format!("{m}:o{i}"), g.ty(o)),
            Origin::Arg(r, i) if (i as usize) < g.args(r).len() => {
                (format!("{r}_args:a{i}"), g.ty(o))
            }
            _ => return,
        };
        let to = match u {
            User::In(n, i) => format!("{n}:i{i}"),
            User::Res(r, i) => format!("{r}_results:r{i}"),
        };
        let style = match Op::kind(port) {
            Kind::Value => "",
            Kind::State => " [style=dashed]",
            Kind::Control(_) => " [style=bold, color=red]",
        };
        let _ = writeln!(self.out, "  {from} -> {to}{style};");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_regions_nodes_and_styled_edges() {
        let g = crate::parse_graph(
            "lambda @f(i32) -> i32 {\n  (a0: i32, a1: mem, a2: io):\n    \
             n0 = ctl2 1 : ctl2\n    n1 = gamma n0 [a0] : i32 {\n      (a0: i32):\n        \
             -> (a0)\n      (a0: i32):\n        -> (a0)\n    }\n    -> (n1, a1, a2)\n}\n",
        )
        .unwrap();
        let mut s = String::new();
        write_dot(&mut s, &g, "f \"quoted\"");
        assert!(s.starts_with("digraph \"f \\\"quoted\\\"\" {\n"), "{s}");
        for line in [
            "n1 [label=\"{n0 = ctl2 1|{<o0> ctl2}}\"];",
            "label=\"n1 = gamma\";",
            "n2 [label=\"{{<i0>|<i1>}|n1 = gamma|{<o0> i32}}\"];",
            "label=\"arm 1\";",
            "r1_args [label=\"<a0> a0: i32|<a1> a1: mem|<a2> a2: io\"];",
            "n1:o0 -> n2:i0 [style=bold, color=red];",
            "r1_args:a0 -> n2:i1;",
            "r1_args:a1 -> r1_results:r1 [style=dashed];",
        ] {
            assert!(s.contains(line), "missing {line}\n{s}");
        }
    }
}
