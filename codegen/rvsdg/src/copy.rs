//! Copying a region's contents into another region of the same graph: every node,
//! γ and θ with their subregions, recursively. What inlining does with a λ's body,
//! and what unrolling or unswitching will do with a θ's or a γ's.
//!
//! The copy reads `args` where the original read the region's arguments, and the
//! caller gets back, for each result of the original region, the origin of the copy
//! that computes it: it decides what reads them (a call's users, a new region's
//! results). The original is left as it was. Operations and source locations can be
//! rewritten on the way ([`Graph::copy_region_with`] with a [`Rewrite`]), for instance
//! to renumber what an operation refers to in the tables of the λ it moves into.

use rustc_hash::FxHashMap;

use crate::graph::{Graph, Node, NodeKind, Operation, Origin, Region};

/// How a copy rewrites what it copies: each operation and each node's source
/// location (unchanged by default).
pub trait Rewrite<O: Operation> {
    /// The operation of the copy of a simple node whose operation is `op`.
    fn op(&mut self, op: &O) -> O {
        op.clone()
    }

    /// The location of the copy of a node at `loc`.
    fn loc(&mut self, loc: O::Loc) -> O::Loc {
        loc
    }
}

/// A copy that changes nothing.
pub struct Unchanged;

impl<O: Operation> Rewrite<O> for Unchanged {}

impl<O: Operation> Graph<O> {
    /// Copies the nodes of region `from` into region `into`, the copy reading
    /// `args[i]` (origins of `into`) where the original reads argument `i` of `from`.
    /// Returns the copies' origins of `from`'s results, in order.
    ///
    /// `into` must not be `from` or below it (the copy would see itself), `args` must
    /// match `from`'s arguments in number and type, and `from` must be acyclic (the
    /// verifier's rule). λs live only in the root, which is never copied (`into` would
    /// be below it), so the nodes copied are simple nodes, γs and θs.
    pub fn copy_region(&mut self, from: Region, into: Region, args: &[Origin]) -> Vec<Origin> {
        self.copy_region_with(from, into, args, &mut Unchanged)
    }

    /// [`Graph::copy_region`], each copied operation and location rewritten by
    /// `rewrite`.
    pub fn copy_region_with(
        &mut self,
        from: Region,
        into: Region,
        args: &[Origin],
        rewrite: &mut dyn Rewrite<O>,
    ) -> Vec<Origin> {
        assert!(
            !self.region_within(into, from),
            "copying {from} into {into}, which is within it"
        );
        assert_eq!(
            args.len(),
            self.args(from).len(),
            "copying {from}: one origin per argument"
        );
        for (i, &a) in args.iter().enumerate() {
            assert_eq!(self.origin_region(a), into, "argument {i} of the copy");
            assert_eq!(
                self.ty(a),
                self.args(from)[i].ty,
                "argument {i} of the copy"
            );
        }
        copy(self, from, into, args, rewrite)
    }
}

impl<O: Operation> Graph<O> {
    /// Copies some of a region's nodes, `nodes` (producers before their users), into
    /// region `into`. `map` says what each origin the nodes read is in the copy (every
    /// input of a node must be there, or be the output of a node copied before it);
    /// the copies' outputs are added to it. What a θ's body shares with the code
    /// around it after unrolling or inversion is copied this way.
    pub fn copy_nodes(
        &mut self,
        nodes: &[Node],
        into: Region,
        map: &mut FxHashMap<Origin, Origin>,
    ) {
        copy_nodes(self, nodes, into, map, &mut Unchanged);
    }
}

/// Copies the nodes of `from` into `into` on `args`; returns the results' copies.
fn copy<O: Operation>(
    g: &mut Graph<O>,
    from: Region,
    into: Region,
    args: &[Origin],
    rewrite: &mut dyn Rewrite<O>,
) -> Vec<Origin> {
    // what each origin of `from` is in the copy: its arguments, then each node's
    // outputs as the node is copied (producers first)
    let mut map: FxHashMap<Origin, Origin> = FxHashMap::default();
    map.extend(g.arg_origins(from).zip(args.iter().copied()));
    let order = g.topological_order(from);
    copy_nodes(g, &order, into, &mut map, rewrite);
    g.results(from).iter().map(|o| map[o]).collect()
}

/// Copies `nodes` (in an order where producers come first) into `into`, reading what
/// `map` says their inputs are, and adding their outputs' copies to `map`.
fn copy_nodes<O: Operation>(
    g: &mut Graph<O>,
    nodes: &[Node],
    into: Region,
    map: &mut FxHashMap<Origin, Origin>,
    rewrite: &mut dyn Rewrite<O>,
) {
    for &n in nodes {
        let inputs: Vec<Origin> = g.inputs(n).iter().map(|o| map[o]).collect();
        let copy_of_n = copy_node(g, n, into, &inputs, rewrite);
        map.extend(g.outputs(n).zip(g.outputs(copy_of_n)));
    }
}

impl<O: Operation> Graph<O> {
    /// A copy of node `n` in region `into` on `inputs` (origins of `into`): a simple
    /// node, or a γ or θ with its subregions copied; its location is `n`'s.
    pub fn copy_node(&mut self, n: Node, into: Region, inputs: &[Origin]) -> Node {
        copy_node(self, n, into, inputs, &mut Unchanged)
    }
}

/// A copy of `n` in `into` on `inputs`, rewritten by `rewrite`.
fn copy_node<O: Operation>(
    g: &mut Graph<O>,
    n: Node,
    into: Region,
    inputs: &[Origin],
    rewrite: &mut dyn Rewrite<O>,
) -> Node {
    let copy_of_n = match g.kind(n) {
        NodeKind::Simple(original) => {
            let op = rewrite.op(original);
            let types = g.output_types(n);
            g.add_simple(into, op, inputs, &types)
        }
        NodeKind::Gamma { arms } => {
            let arms = arms.clone();
            let gamma = g.add_gamma(into, inputs[0], &inputs[1..], arms.len());
            let new_arms = g.kind(gamma).subregions().to_vec();
            for (&arm, &new_arm) in arms.iter().zip(&new_arms) {
                let arm_args: Vec<Origin> = g.arg_origins(new_arm).collect();
                for o in copy(g, arm, new_arm, &arm_args, rewrite) {
                    g.add_result(new_arm, o);
                }
            }
            for ty in g.output_types(n) {
                g.add_output(gamma, ty);
            }
            gamma
        }
        NodeKind::Theta { body } => {
            let body = *body;
            let theta = g.add_theta(into, inputs);
            let new_body = g.theta_body(theta);
            let body_args: Vec<Origin> = g.arg_origins(new_body).collect();
            let results = copy(g, body, new_body, &body_args, rewrite);
            for (i, o) in results.into_iter().enumerate() {
                g.set_result(new_body, i, o);
            }
            theta
        }
        NodeKind::Lambda { .. } => {
            unreachable!("{n}: a λ below the root (the verifier's rule)")
        }
    };
    let loc = rewrite.loc(g.node(n).loc);
    g.set_loc(copy_of_n, loc);
    copy_of_n
}

#[cfg(test)]
mod tests {
    use vliw_ir::{DataValue, InstructionData, Module, SourceLoc};

    use super::Rewrite;
    use crate::graph::{Node, Origin, Region};
    use crate::ops::{Op, Rvsdg};
    use crate::{Evaluator, parse_graph, verify};

    fn parse(text: &str) -> Rvsdg {
        let g = parse_graph(text).unwrap_or_else(|e| panic!("{e}"));
        verify(&g).unwrap_or_else(|e| panic!("{}", e[0]));
        g
    }

    fn lambda(g: &Rvsdg, name: &str) -> Node {
        g.lambdas()
            .into_iter()
            .find(|&l| g.lambda_info(l).name == name)
            .expect("the λ")
    }

    fn text_of(g: &Rvsdg, name: &str) -> String {
        let mut one = g.clone();
        for l in one.lambdas() {
            if one.lambda_info(l).name != name {
                one.remove_node(l);
            }
        }
        one.to_string()
    }

    fn call(g: &Rvsdg, name: &str, args: &[DataValue]) -> Vec<DataValue> {
        let m = Module::default();
        let mut ev = Evaluator::new(g, &m);
        ev.call(name, args)
            .unwrap_or_else(|t| panic!("@{name}: {t}"))
    }

    /// `@f`: a γ in a θ, and a value computed before the loop: the sum of the odd
    /// numbers below `n`, plus `k`.
    const F: &str = "
lambda @f(i64, i64) -> i64 export {
    file0 = \"f.rs\"
  (a0: i64, a1: i64, a2: mem, a3: io):
    [0:1:1] n0 = iconst 0 : i64
    n1 = theta [n0, n0, a0] : i64, i64, i64 {
      (a0: i64, a1: i64, a2: i64):
        n2 = iconst 1 : i64
        n3 = band a0, n2 : i64
        n4 = match2 [0 -> 0, _ -> 1] n3 : ctl2
        [0:2:7] n5 = gamma n4 [a0, a1] : i64 {
          (a0: i64, a1: i64):
            -> (a1)
          (a0: i64, a1: i64):
            n6 = iadd a0, a1 : i64
            -> (n6)
        }
        n7 = iadd a0, n2 : i64
        n8 = icmp ult n7, a2 : i1
        n9 = match2 [1 -> 1, _ -> 0] n8 : ctl2
        -> (n9, n7, n5, a2)
    }
    n10 = iadd n1.1, a1 : i64
    -> (n10, a2, a3)
}
";

    /// Copies `@f`'s body into a new λ `@g` of the same signature (whose shell is
    /// `@f`'s, renamed), and makes its results `@g`'s.
    fn copy_f_to_g(g: &mut Rvsdg) -> (Node, Vec<Origin>) {
        let f = lambda(g, "f");
        let mut info = g.lambda_info(f).clone();
        info.name = "g".into();
        let from = g.lambda_body(f);
        let types: Vec<_> = g.args(from).iter().map(|p| p.ty).collect();
        let l = g.add_lambda(info, &types);
        let into = g.lambda_body(l);
        let args: Vec<Origin> = g.arg_origins(into).collect();
        let results = g.copy_region(from, into, &args);
        for &o in &results {
            g.add_result(into, o);
        }
        (l, results)
    }

    #[test]
    fn a_copied_body_computes_the_same_and_leaves_the_original() {
        let mut g = parse(F);
        let before = text_of(&g, "f");
        let (l, _) = copy_f_to_g(&mut g);
        verify(&g).unwrap_or_else(|e| panic!("{}\n{g}", e[0]));
        assert_eq!(text_of(&g, "f"), before);
        // the same text but for the name: every node, subregion, location
        assert_eq!(text_of(&g, "g"), before.replace("lambda @f(", "lambda @g("));
        let f = lambda(&g, "f");
        assert_eq!(
            g.count_nodes_inside(l),
            g.count_nodes_inside(f),
            "every node copied once"
        );
        use DataValue::I64;
        for (n, k) in [(0, 0), (1, 5), (10, 100), (7, -3)] {
            let want = call(&g, "f", &[I64(n), I64(k)]);
            assert_eq!(call(&g, "g", &[I64(n), I64(k)]), want);
        }
        // 1 + 3 + 5 + 7 + 9 + 100
        assert_eq!(call(&g, "g", &[I64(10), I64(100)]), [I64(125)]);
    }

    #[test]
    fn copies_are_distinct_nodes_and_share_nothing_with_the_original() {
        let mut g = parse(F);
        let f = lambda(&g, "f");
        let from = g.lambda_body(f);
        let (l, results) = copy_f_to_g(&mut g);
        let into = g.lambda_body(l);
        let originals: Vec<Node> = g
            .regions_below(from)
            .iter()
            .flat_map(|&r| g.nodes(r).to_vec())
            .collect();
        let copies: Vec<(Region, Node)> = g
            .regions_below(into)
            .iter()
            .flat_map(|&r| g.nodes(r).iter().map(move |&n| (r, n)).collect::<Vec<_>>())
            .collect();
        for (r, n) in copies {
            assert!(!originals.contains(&n));
            assert_eq!(g.node(n).region, r);
            for &o in g.inputs(n) {
                assert_eq!(g.origin_region(o), r, "{n} reads its own region");
            }
        }
        // the value result is the copy's iadd; the states are the arguments
        assert!(matches!(results[0], Origin::Out(n, 0) if g.node(n).region == into));
        assert_eq!(results[1], Origin::Arg(into, 2));
        assert_eq!(results[2], Origin::Arg(into, 3));
    }

    #[test]
    fn a_body_copied_twice_into_a_gamma_arm_reads_the_arms_values() {
        // @h(c, n) = c ? f(n, 1) + f(n, 2) : 0, the two copies side by side in one arm
        let mut g = parse(&format!(
            "{F}
lambda @h(i64, i64) -> i64 export {{
  (a0: i64, a1: i64, a2: mem, a3: io):
    n0 = match2 [0 -> 0, _ -> 1] a0 : ctl2
    n1 = iconst 1 : i64
    n2 = iconst 2 : i64
    n3 = gamma n0 [a1, n1, n2, a2, a3] : i64, mem, io {{
      (a0: i64, a1: i64, a2: i64, a3: mem, a4: io):
        n4 = iconst 0 : i64
        -> (n4, a3, a4)
      (a0: i64, a1: i64, a2: i64, a3: mem, a4: io):
        n5 = iadd a0, a0 : i64
        -> (n5, a3, a4)
    }}
    -> (n3.0, n3.1, n3.2)
}}
"
        ));
        let f = lambda(&g, "f");
        let h = lambda(&g, "h");
        let from = g.lambda_body(f);
        let Some(Origin::Out(gamma, _)) = g.results(g.lambda_body(h)).first().copied() else {
            panic!("the γ");
        };
        let arm = g.kind(gamma).subregions()[1];
        let a = |i| Origin::Arg(arm, i);
        let first = g.copy_region(from, arm, &[a(0), a(1), a(3), a(4)]);
        let second = g.copy_region(from, arm, &[a(0), a(2), first[1], first[2]]);
        let sum = g.add_simple(
            arm,
            Op::from_inst(&InstructionData::Binary {
                opcode: vliw_ir::Opcode::Iadd,
                args: [vliw_ir::Value::from_u32(0); 2],
            }),
            &[first[0], second[0]],
            &[crate::Ty::Val(vliw_ir::Type::I64)],
        );
        let old = g.results(arm)[0];
        g.set_result(arm, 0, Origin::Out(sum, 0));
        g.set_result(arm, 1, second[1]);
        g.set_result(arm, 2, second[2]);
        if let Origin::Out(n, _) = old {
            g.remove_node(n);
        }
        verify(&g).unwrap_or_else(|e| panic!("{}\n{g}", e[0]));
        use DataValue::I64;
        // f(10, 1) + f(10, 2) = 26 + 27
        assert_eq!(call(&g, "h", &[I64(1), I64(10)]), [I64(53)]);
        assert_eq!(call(&g, "h", &[I64(0), I64(10)]), [I64(0)]);
        // f(1, k) = k: the loop runs once on 0, an even number
        assert_eq!(call(&g, "h", &[I64(5), I64(1)]), [I64(3)]);
    }

    #[test]
    fn operations_and_locations_are_rewritten_on_the_way() {
        let mut g = parse(F);
        let f = lambda(&g, "f");
        let from = g.lambda_body(f);
        let mut info = g.lambda_info(f).clone();
        info.name = "g".into();
        info.files.insert(0, "other.rs".into());
        let types: Vec<_> = g.args(from).iter().map(|p| p.ty).collect();
        let l = g.add_lambda(info, &types);
        let into = g.lambda_body(l);
        let args: Vec<Origin> = g.arg_origins(into).collect();
        // every `iconst 1` becomes `iconst 2` (the loop counts by two and tests bit
        // 1 instead of bit 0), and the locations move to file 1
        struct Twos {
            ops: usize,
            locs: usize,
        }
        impl Rewrite<Op> for Twos {
            fn op(&mut self, op: &Op) -> Op {
                self.ops += 1;
                match op {
                    Op::Inst(InstructionData::UnaryImm { opcode, imm: 1 }) => {
                        Op::Inst(InstructionData::UnaryImm {
                            opcode: *opcode,
                            imm: 2,
                        })
                    }
                    _ => op.clone(),
                }
            }

            fn loc(&mut self, loc: SourceLoc) -> SourceLoc {
                self.locs += 1;
                if loc.is_default() {
                    loc
                } else {
                    SourceLoc { file: 1, ..loc }
                }
            }
        }
        let mut twos = Twos { ops: 0, locs: 0 };
        let results = g.copy_region_with(from, into, &args, &mut twos);
        for &o in &results {
            g.add_result(into, o);
        }
        verify(&g).unwrap_or_else(|e| panic!("{}\n{g}", e[0]));
        // simple nodes: 9 of them; every node: 11
        assert_eq!((twos.ops, twos.locs), (9, 11));
        let text = text_of(&g, "g");
        assert!(text.contains("[1:1:1] n0 = iconst 0"), "{text}");
        assert!(text.contains("[1:2:7] n5 = gamma"), "{text}");
        use DataValue::I64;
        // i = 0, 2, 4, 6, 8: bit 1 is set in 2 and 6
        assert_eq!(call(&g, "g", &[I64(10), I64(7)]), [I64(2 + 6 + 7)]);
        assert_eq!(call(&g, "f", &[I64(10), I64(7)]), [I64(32)]);
    }

    #[test]
    #[should_panic(expected = "within it")]
    fn a_region_is_not_copied_into_itself() {
        let mut g = parse(F);
        let body = g.lambda_body(lambda(&g, "f"));
        let args: Vec<Origin> = g.arg_origins(body).collect();
        g.copy_region(body, body, &args);
    }
}
