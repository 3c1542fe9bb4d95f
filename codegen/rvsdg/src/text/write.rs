//! The text form: printing (the grammar is in `text/mod.rs`). It works on any graph,
//! ill-formed ones included (for diagnostics): a use it cannot name prints as `?`.

use core::fmt::{self, Write};

use cranelift_entity::SecondaryMap;
use vliw_ir::write::{write_function_shell, write_source_loc};

use crate::graph::{Node, NodeKind, Origin, Region};
use crate::ops::{Rvsdg, Ty};

/// The number of each node with outputs in the text form (`nK`): in printing order,
/// from 0 in each λ and in the root region's other nodes. Nodes without outputs, and
/// those a cycle keeps out of the topological order, have none.
pub fn node_names(g: &Rvsdg) -> SecondaryMap<Node, Option<u32>> {
    fn number(g: &Rvsdg, r: Region, next: &mut u32, names: &mut SecondaryMap<Node, Option<u32>>) {
        for n in g.topological_order(r) {
            if let NodeKind::Lambda { body, .. } = g.kind(n) {
                number(g, *body, &mut 0, names);
                continue;
            }
            if g.num_outputs(n) > 0 {
                names[n] = Some(*next);
                *next += 1;
            }
            for &sub in g.kind(n).subregions() {
                number(g, sub, next, names);
            }
        }
    }
    let mut names = SecondaryMap::new();
    number(g, g.root(), &mut 0, &mut names);
    names
}

/// Appends the text of `g` to `out`.
pub fn write_graph(out: &mut String, g: &Rvsdg) {
    let mut p = Printer {
        g,
        out,
        names: node_names(g),
    };
    for (k, n) in g.topological_order(g.root()).into_iter().enumerate() {
        // a blank line before each λ, as between the IR's functions
        if k > 0 && matches!(g.kind(n), NodeKind::Lambda { .. }) {
            p.out.push('\n');
        }
        p.node(n, 0);
    }
}

impl fmt::Display for Rvsdg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        write_graph(&mut s, self);
        f.write_str(&s)
    }
}

struct Printer<'a> {
    g: &'a Rvsdg,
    out: &'a mut String,
    names: SecondaryMap<Node, Option<u32>>,
}

/// How much deeper a region's nodes are indented than its structural node; its
/// argument line is halfway.
const INDENT: usize = 4;

impl Printer<'_> {
    fn indent(&mut self, n: usize) {
        self.out.extend(core::iter::repeat_n(' ', n));
    }

    fn name(&self, o: Origin) -> String {
        match o {
            Origin::Out(n, i) => match self.names[n] {
                Some(k) if self.g.num_outputs(n) == 1 => format!("n{k}"),
                Some(k) => format!("n{k}.{i}"),
                None => "?".into(),
            },
            Origin::Arg(_, i) => format!("a{i}"),
        }
    }

    fn uses(&mut self, origins: &[Origin]) {
        for (k, &o) in origins.iter().enumerate() {
            if k > 0 {
                self.out.push_str(", ");
            }
            let name = self.name(o);
            self.out.push_str(&name);
        }
    }

    fn types(&mut self, types: impl IntoIterator<Item = Ty>) {
        for (k, t) in types.into_iter().enumerate() {
            let sep = if k == 0 { " : " } else { ", " };
            let _ = write!(self.out, "{sep}{t}");
        }
    }

    /// One node at `indent`, with its regions.
    fn node(&mut self, n: Node, indent: usize) {
        let g = self.g;
        self.indent(indent);
        let _ = write_source_loc(self.out, g.node(n).loc);
        if let Some(k) = self.names[n] {
            let _ = write!(self.out, "n{k} = ");
        }
        let inputs = g.inputs(n);
        let outputs = g.output_types(n);
        match g.kind(n) {
            NodeKind::Simple(op) => {
                let _ = op.write(self.out, outputs.first().copied());
                if !inputs.is_empty() {
                    self.out.push(' ');
                    self.uses(inputs);
                }
                self.types(outputs);
                self.out.push('\n');
            }
            NodeKind::Gamma { arms } => {
                self.out.push_str("gamma ");
                match inputs.split_first() {
                    Some((&pred, entries)) => {
                        self.uses(&[pred]);
                        self.out.push_str(" [");
                        self.uses(entries);
                    }
                    None => self.out.push_str("? ["),
                }
                self.out.push(']');
                self.types(outputs);
                self.out.push_str(" {\n");
                for &arm in arms {
                    self.region(arm, indent + INDENT);
                }
                self.indent(indent);
                self.out.push_str("}\n");
            }
            NodeKind::Theta { body } => {
                self.out.push_str("theta [");
                self.uses(inputs);
                self.out.push(']');
                self.types(outputs);
                self.out.push_str(" {\n");
                self.region(*body, indent + INDENT);
                self.indent(indent);
                self.out.push_str("}\n");
            }
            NodeKind::Lambda { body, info } => {
                let _ = write_function_shell(self.out, "lambda", info);
                self.region(*body, indent + INDENT);
                self.indent(indent);
                self.out.push_str("}\n");
            }
        }
    }

    /// A region whose nodes are at `indent`: its arguments, nodes and results.
    fn region(&mut self, r: Region, indent: usize) {
        let g = self.g;
        self.indent(indent - INDENT / 2);
        self.out.push('(');
        for (i, a) in g.args(r).iter().enumerate() {
            let sep = if i > 0 { ", " } else { "" };
            let _ = write!(self.out, "{sep}a{i}: {}", a.ty);
        }
        self.out.push_str("):\n");
        for n in g.topological_order(r) {
            self.node(n, indent);
        }
        self.indent(indent);
        self.out.push_str("-> (");
        self.uses(g.results(r));
        self.out.push_str(")\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Op;
    use vliw_ir::{Function, InstructionData, Opcode, Signature, Type};

    /// A λ built through the API, with a γ and a θ: names are numbered in printing
    /// order, from 0 in each λ; multiple outputs are `nK.i`.
    #[test]
    fn prints_a_graph_built_by_the_api() {
        let i32t = Ty::Val(Type::I32);
        let mut g = Rvsdg::new();
        let sig = Signature::new(&[Type::I32], &[Type::I32]);
        let lam = g.add_lambda(Function::new("f", sig, Default::default()), &[i32t]);
        let body = g.lambda_body(lam);
        let a0 = Origin::Arg(body, 0);
        let ovf = Op::Inst(InstructionData::Binary {
            opcode: Opcode::SaddOverflow,
            args: [vliw_ir::Value::from_u32(0); 2],
        });
        let add = g.add_simple(body, ovf, &[a0, a0], &[i32t, Ty::Val(Type::I1)]);
        let pred = g.add_simple(body, Op::Ctl { alt: 1, alts: 2 }, &[], &[Ty::Ctl(2)]);
        let gamma = g.add_gamma(body, Origin::Out(pred, 0), &[Origin::Out(add, 0), a0], 2);
        let arms = g.kind(gamma).subregions().to_vec();
        let x = g.add_gamma_exit(gamma, &[Origin::Arg(arms[0], 0), Origin::Arg(arms[1], 1)]);
        g.add_result(body, x);
        let mut s = String::new();
        write_graph(&mut s, &g);
        assert_eq!(
            s,
            "lambda @f(i32) -> i32 {
  (a0: i32):
    n0 = sadd_overflow a0, a0 : i32, i1
    n1 = ctl2 1 : ctl2
    n2 = gamma n1 [n0.0, a0] : i32 {
      (a0: i32, a1: i32):
        -> (a0)
      (a0: i32, a1: i32):
        -> (a1)
    }
    -> (n2)
}
"
        );
        assert_eq!(g.to_string(), s);
    }
}
