//! Graphviz output of a PPG: predicates are boxes labelled with their blocks (dummies
//! dashed and marked ★), each partition is a small point joined to its parent by a
//! plain line and to each part by an arrow, so a hyper-arc reads as one fork.

use std::fmt::Write;

use crate::cfg::Block;
use crate::ppg::partition_graph::Ppg;
use crate::ppg::split::SplitNode;

/// The default name of a node of the split graph: `b3` for a block, `b1→b2` for the
/// node on a split edge (`b1→b2#i` if `b1` has several edges to `b2`), `START→END`
/// for the node on the edge of Def 3.
pub fn split_node_name(origin: SplitNode) -> String {
    match origin {
        SplitNode::Original(b) => format!("b{}", b.0),
        SplitNode::Edge {
            from,
            succ_index,
            to,
        } => format!("b{}→b{}#{}", from.0, to.0, succ_index),
        SplitNode::StartEnd => "START→END".to_string(),
    }
}

impl Ppg {
    /// The graph in Graphviz's dot language, nodes named by [`split_node_name`].
    pub fn to_dot(&self) -> String {
        self.to_dot_with(split_node_name)
    }

    /// The graph in Graphviz's dot language, nodes of the split graph named by
    /// `name`.
    pub fn to_dot_with(&self, name: impl Fn(SplitNode) -> String) -> String {
        let mut out = String::from("digraph ppg {\n");
        self.write_dot_body(&mut out, "", &|x| name(self.node_origin(x)));
        out.push_str("}\n");
        out
    }

    /// The statements of the graph, every identifier prefixed by `prefix` (so that
    /// several PPGs can share one file, as the regions of a forest do).
    pub(crate) fn write_dot_body(
        &self,
        out: &mut String,
        prefix: &str,
        name: &dyn Fn(Block) -> String,
    ) {
        let _ = writeln!(out, "  node [shape=box, fontsize=10];");
        for p in self.predicates() {
            let mut label = format!("p{}", p.0);
            if p == self.root() {
                label.push_str(" (root)");
            }
            if self.is_dummy(p) {
                label.push_str(" ★ dummy");
            } else {
                let names: Vec<String> = self.blocks(p).iter().map(|&x| name(x)).collect();
                let _ = write!(label, "\\n{}", escape(&names.join(" ")));
            }
            let style = if self.is_dummy(p) {
                ", style=dashed"
            } else {
                ""
            };
            let _ = writeln!(out, "  {prefix}p{} [label=\"{label}\"{style}];", p.0);
        }
        for a in self.partitions() {
            let _ = writeln!(out, "  {prefix}part{} [shape=point, width=0.08];", a.0);
            let _ = writeln!(
                out,
                "  {prefix}p{} -> {prefix}part{} [arrowhead=none];",
                self.parent(a).0,
                a.0
            );
            for c in self.children(a) {
                let _ = writeln!(out, "  {prefix}part{} -> {prefix}p{};", a.0, c.0);
            }
        }
    }
}

/// Escapes a label for a double-quoted dot string.
pub(crate) fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}
