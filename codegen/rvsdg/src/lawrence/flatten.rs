//! A unit of sequentialization as a flat dependence graph, the VSDG of the thesis: the
//! body of a λ or of a θ with every γ inside it (at any depth, but not inside a θ)
//! taken apart, so that where a node runs is decided by demand alone (§3.3), not by
//! the arm the optimizer left it in.
//!
//! - A simple node of the unit or of any of its γs' arms is a flat node reading what
//!   its inputs read, an arm's argument standing for the γ's entry variable (itself
//!   resolved the same way) and the unit's own arguments staying arguments.
//! - A γ is a selector: it reads its predicate and, per arm, the results of that arm
//!   (its operand groups, thesis §2.6); its outputs are the chosen arm's results.
//! - A θ is one opaque node reading its inputs: its body is a unit of its own.
//! - A node nothing reads (a `trap`, or a γ or θ without used outputs, which must
//!   still run when its region does, as a `loop {}` must still hang) is a *sink*: the
//!   γ whose arm holds it reads it as an effect of that arm, and the virtual return τ
//!   reads the sinks of the unit itself.
//!
//! The virtual return τ reads the unit's results. States are edges like values: an
//! effect is demanded by the effect after it, and linearity orders them.
//!
//! Our rule: τ also reads each division at the top level of the unit that cannot
//! trap (`udiv safe` and the others, float division and square root). Demanded only
//! in some γ arms, it would run there, by demand, and its path would wait its whole
//! latency (20 cycles, 16 for a float one) where it is used; read by τ it runs
//! whenever the unit runs, where the optimizer left it, and overlaps with the γs'
//! tests and the other arms' work (`classify`'s data loop: a remainder whose result
//! is stored only when the vector did not need to grow). It is pure, and its
//! operands are at the top level too, so nothing runs on a path where the program
//! as written would not run it.

use std::fmt;

use rustc_hash::FxHashMap;

use crate::graph::{Node, NodeKind, Origin, Region};
use crate::ops::{Op, Rvsdg};

/// A node of a flat graph (its index).
pub type FlatId = u32;

/// What a flat node stands for.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum FlatKind {
    /// A simple node.
    Simple(Node),
    /// A γ as a selector of one of its arms' results.
    Gamma { node: Node, arms: u32 },
    /// A θ, opaque.
    Theta(Node),
}

/// Where an operand comes from.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Source {
    /// Output `k` of a flat node.
    Out(FlatId, u32),
    /// Argument `k` of the unit.
    Arg(u32),
    /// A sink: the node itself, which gives no value but must run.
    Effect(FlatId),
}

/// What an operand is to the node that reads it.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Role {
    /// An input of a simple node or θ, a result of the unit (read by τ), or a sink of
    /// the unit.
    Plain,
    /// A γ's predicate.
    Predicate,
    /// Result `exit` of arm `arm` of a γ: read only when the γ takes that arm.
    Exit { arm: u32, exit: u32 },
    /// A sink of arm `arm` of a γ: run when the γ takes that arm.
    Sink { arm: u32 },
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Operand {
    pub source: Source,
    pub role: Role,
}

#[derive(Clone, Debug)]
pub struct FlatNode {
    pub kind: FlatKind,
    pub operands: Vec<Operand>,
}

/// A unit as a flat graph: its nodes, producers before consumers, and what τ reads.
#[derive(Clone, Debug)]
pub struct Flat {
    pub unit: Region,
    pub nodes: Vec<FlatNode>,
    /// The operands of τ: the unit's results, then its sinks, then the divisions at
    /// the unit's top level.
    pub results: Vec<Operand>,
    /// The divisions τ reads (see the module documentation), which the groups'
    /// orders also place as early as their operands allow (`Pdg::sequence`).
    pub early: Vec<FlatId>,
}

impl Flat {
    /// The flat graph of `unit`, the body of a λ or a θ.
    pub fn build(g: &Rvsdg, unit: Region) -> Flat {
        let mut f = Flattener {
            g,
            unit,
            ids: FxHashMap::default(),
            nodes: Vec::new(),
        };
        let sinks = f.region(unit);
        let mut results: Vec<Operand> = (g.results(unit).iter())
            .map(|&o| Operand {
                source: f.resolve(o),
                role: Role::Plain,
            })
            .collect();
        results.extend(sinks.into_iter().map(|id| Operand {
            source: Source::Effect(id),
            role: Role::Plain,
        }));
        let mut early = Vec::new();
        for &n in g.nodes(unit) {
            if g.op(n).is_some_and(Op::is_long_pure) && g.outputs(n).any(|o| g.has_users(o)) {
                early.push(f.ids[&n]);
                results.push(Operand {
                    source: Source::Out(f.ids[&n], 0),
                    role: Role::Plain,
                });
            }
        }
        early.sort_unstable();
        Flat {
            unit,
            nodes: f.nodes,
            results,
            early,
        }
    }

    /// τ's index (one past the nodes).
    pub fn tau(&self) -> FlatId {
        self.nodes.len() as FlatId
    }

    /// The producer an operand reads, if it is a node.
    pub fn producer(source: Source) -> Option<FlatId> {
        match source {
            Source::Out(id, _) | Source::Effect(id) => Some(id),
            Source::Arg(_) => None,
        }
    }

    /// Each node's consumers (τ as [`Flat::tau`]), each once, in increasing order.
    pub fn consumers(&self) -> Vec<Vec<usize>> {
        let mut consumers = vec![Vec::new(); self.nodes.len()];
        let readers = (self.nodes.iter().enumerate())
            .flat_map(|(u, n)| n.operands.iter().map(move |o| (u, o)))
            .chain(self.results.iter().map(|o| (self.nodes.len(), o)));
        for (u, o) in readers {
            if let Some(v) = Self::producer(o.source) {
                consumers[v as usize].push(u);
            }
        }
        for c in &mut consumers {
            c.sort_unstable();
            c.dedup();
        }
        consumers
    }
}

struct Flattener<'g> {
    g: &'g Rvsdg,
    unit: Region,
    ids: FxHashMap<Node, FlatId>,
    nodes: Vec<FlatNode>,
}

impl Flattener<'_> {
    /// Flattens the nodes of `r` (the unit or an arm); returns its sinks.
    fn region(&mut self, r: Region) -> Vec<FlatId> {
        let g = self.g;
        let mut sinks = Vec::new();
        for n in g.topological_order(r) {
            let id = match g.kind(n) {
                NodeKind::Simple(_) => self.push(FlatKind::Simple(n), self.plain_inputs(n)),
                NodeKind::Theta { .. } => self.push(FlatKind::Theta(n), self.plain_inputs(n)),
                NodeKind::Gamma { arms } => self.gamma(n, arms),
                NodeKind::Lambda { .. } => unreachable!("a λ inside a λ"),
            };
            self.ids.insert(n, id);
            if !g.outputs(n).any(|o| g.has_users(o)) {
                sinks.push(id);
            }
        }
        sinks
    }

    fn gamma(&mut self, n: Node, arms: &[Region]) -> FlatId {
        let g = self.g;
        let mut operands = vec![Operand {
            source: self.resolve(g.input(n, 0)),
            role: Role::Predicate,
        }];
        for (k, &arm) in arms.iter().enumerate() {
            let arm_no = k as u32;
            let sinks = self.region(arm);
            for (j, &o) in g.results(arm).iter().enumerate() {
                operands.push(Operand {
                    source: self.resolve(o),
                    role: Role::Exit {
                        arm: arm_no,
                        exit: j as u32,
                    },
                });
            }
            operands.extend(sinks.into_iter().map(|id| Operand {
                source: Source::Effect(id),
                role: Role::Sink { arm: arm_no },
            }));
        }
        let kind = FlatKind::Gamma {
            node: n,
            arms: arms.len() as u32,
        };
        self.push(kind, operands)
    }

    fn plain_inputs(&self, n: Node) -> Vec<Operand> {
        (self.g.inputs(n).iter())
            .map(|&o| Operand {
                source: self.resolve(o),
                role: Role::Plain,
            })
            .collect()
    }

    fn push(&mut self, kind: FlatKind, operands: Vec<Operand>) -> FlatId {
        self.nodes.push(FlatNode { kind, operands });
        self.nodes.len() as FlatId - 1
    }

    /// What origin `o` (of the unit or of an arm inside it) is in the flat graph.
    fn resolve(&self, mut o: Origin) -> Source {
        loop {
            match o {
                Origin::Out(n, k) => return Source::Out(self.ids[&n], k),
                Origin::Arg(r, k) if r == self.unit => return Source::Arg(k),
                Origin::Arg(r, k) => {
                    // an arm's argument: its γ's entry variable
                    let gamma = self.g.owner(r).expect("an arm has its γ");
                    o = self.g.input(gamma, k as usize + 1);
                }
            }
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Out(id, k) => write!(f, "f{id}.{k}"),
            Source::Arg(k) => write!(f, "a{k}"),
            Source::Effect(id) => write!(f, "!f{id}"),
        }
    }
}

impl fmt::Display for Flat {
    /// One line per node, `f3 = n7 [f1.0, a2]`, `f5 = gamma n4 ? f2.0 | 0: f3.0 | 1: a1`,
    /// then `tau [..]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |ops: &[Operand]| -> String {
            ops.iter()
                .map(|o| o.source.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        for (id, n) in self.nodes.iter().enumerate() {
            match n.kind {
                FlatKind::Simple(node) => writeln!(f, "f{id} = {node} [{}]", list(&n.operands))?,
                FlatKind::Theta(node) => {
                    writeln!(f, "f{id} = theta {node} [{}]", list(&n.operands))?
                }
                FlatKind::Gamma { node, arms } => {
                    write!(f, "f{id} = gamma {node} ? {}", n.operands[0].source)?;
                    for arm in 0..arms {
                        let group: Vec<Operand> = (n.operands.iter())
                            .filter(|o| {
                                matches!(o.role, Role::Exit { arm: a, .. } | Role::Sink { arm: a } if a == arm)
                            })
                            .copied()
                            .collect();
                        write!(f, " | {arm}: {}", list(&group))?;
                    }
                    writeln!(f)?;
                }
            }
        }
        writeln!(f, "tau [{}]", list(&self.results))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse_graph;

    fn flat_of(text: &str) -> (Rvsdg, Flat) {
        let g = parse_graph(text).unwrap();
        let l = g.lambdas()[0];
        let f = Flat::build(&g, g.lambda_body(l));
        (g, f)
    }

    #[test]
    fn a_gamma_becomes_a_selector_of_its_arms_results() {
        let (_, f) = flat_of(
            "lambda @f(i32, i32) -> i32 export {
  (a0: i32, a1: i32, a2: mem, a3: io):
    n0 = iconst 0 : i32
    n1 = icmp sgt a0, n0 : i1
    n2 = match2 [1 -> 1, _ -> 0] n1 : ctl2
    n3 = gamma n2 [a0, a1, a3] : i32, io {
      (a0: i32, a1: i32, a2: io):
        n4 = iadd a0, a1 : i32
        -> (n4, a2)
      (a0: i32, a1: i32, a2: io):
        trap 1 a2
        -> (a1, a2)
    }
    -> (n3.0, a2, n3.1)
}
",
        );
        assert_eq!(
            f.to_string(),
            // (arena numbers: the λ is n0)
            "f0 = n1 []\n\
             f1 = n2 [a0, f0.0]\n\
             f2 = n3 [f1.0]\n\
             f3 = n5 [a0, a1]\n\
             f4 = n6 [a3]\n\
             f5 = gamma n4 ? f2.0 | 0: f3.0, a3 | 1: a1, a3, !f4\n\
             tau [f5.0, a2, f5.1]\n"
        );
        let consumers = f.consumers();
        assert_eq!(consumers[3], [5], "the sum is read by the γ alone");
        assert_eq!(consumers[4], [5], "the trap is the γ's effect");
        assert_eq!(consumers[5], [6], "τ reads the γ");
    }

    #[test]
    fn nested_gammas_flatten_and_thetas_stay_whole() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/rvsdg/text/nested.rvsdg"
        ))
        .unwrap();
        let (g, f) = flat_of(&text);
        // the outer γ's θ is one node; nothing inside a θ is flattened here
        let thetas: Vec<Node> = (f.nodes.iter())
            .filter_map(|n| match n.kind {
                FlatKind::Theta(t) => Some(t),
                _ => None,
            })
            .collect();
        assert_eq!(thetas.len(), 3, "{f}");
        // every node's operands come before it
        for (id, n) in f.nodes.iter().enumerate() {
            for o in &n.operands {
                if let Some(p) = Flat::producer(o.source) {
                    assert!((p as usize) < id, "{f}");
                }
            }
        }
        // the output-less γ and θ of the body are sinks that τ reads
        let sinks = f
            .results
            .iter()
            .filter(|o| matches!(o.source, Source::Effect(_)));
        assert_eq!(sinks.count(), 2, "{f}");
        // the θ body is a unit of its own
        let inner = Flat::build(&g, g.theta_body(thetas[0]));
        assert!(
            inner
                .nodes
                .iter()
                .any(|n| matches!(n.kind, FlatKind::Gamma { .. }))
        );
    }
}
