//! Inlining a callee that may unwind at an invoke (a `try_call` or `catch_call`,
//! `crate::unwind`): the copy of its body must give the call's outcome (whether it
//! unwound, the exception, the selector) where the callee would have unwound out of
//! it. LLVM's inliner turns the callee's calls into invokes of the call site's landing
//! pad and its `resume`s into branches there; in the RVSDG the outcome is a value, so
//! [`make_unwinding_explicit`] rewrites the copy:
//!
//! - every call of the copy that may unwind becomes a `try_call` (a `catch_call` at a
//!   `catch_call` site, where the callee's own `try_call`s become `catch_call`s too, so
//!   that the unwinder's search phase finds the handler in this frame, as it found it
//!   in the caller's before); its outcome is the copy's from there on;
//! - a call of `_Unwind_Resume(e)` (a `resume` in the callee's landing code) goes: the
//!   outcome there is (unwound, `e`, selector 0), what the personality routine gives a
//!   landing pad (Rust's sets the selector to 0, as the interpreters do);
//! - what depends on such a node in its region moves into the "returned" arm of a new
//!   γ on its outcome, whose other arm gives the outcome and the states as they were at
//!   the node (values undefined); the moved part is processed again (the next call in
//!   it), and the γ's outcome is the region's;
//! - a γ that holds such a call gives the outcome of its arms as three exit variables
//!   and is such a node itself.
//!
//! Every call takes the I/O state, so the calls of a region form one chain and the
//! first in a topological order is before all others. A callee with such a call inside
//! a θ is not inlined ([`unwinds_in_loop`]): the loop would need an exit on the
//! outcome.

use cranelift_entity::EntityRef;
use rustc_hash::{FxHashMap, FxHashSet};
use vliw_ir::{InstructionData, Opcode, Type};

use crate::graph::{Node, NodeKind, Origin, Region, User};
use crate::ops::{Op, Rvsdg, Ty};

/// A call's outcome, as a `try_call` gives it after its results.
#[derive(Copy, Clone, Debug)]
pub struct Outcome {
    pub unwound: Origin,
    pub exception: Origin,
    pub selector: Origin,
}

/// Whether a θ below region `r` holds a node for which `unwinds` holds.
pub fn unwinds_in_loop(g: &Rvsdg, r: Region, unwinds: &dyn Fn(Node) -> bool) -> bool {
    g.regions_below(r).into_iter().any(|q| {
        g.nodes(q).iter().any(|&n| match g.kind(n) {
            NodeKind::Theta { body } => g
                .regions_below(*body)
                .into_iter()
                .any(|b| g.nodes(b).iter().any(|&m| unwinds(m))),
            _ => false,
        })
    })
}

/// Makes the unwinding of a copied body explicit (module documentation): the nodes of
/// `region` with an index from `first` on are the copy (what is inside them all is);
/// `unwinds` are its plain calls that may unwind; `catching` at a `catch_call` site.
/// `results` (the copy's results, which nothing reads yet) are rewritten where what
/// they name moves. Returns the copy's outcome in `region`, or `None` when nothing in
/// it unwinds.
pub fn make_unwinding_explicit(
    g: &mut Rvsdg,
    region: Region,
    first: usize,
    unwinds: &FxHashSet<Node>,
    catching: bool,
    results: &mut [Origin],
) -> Option<Outcome> {
    if catching {
        for m in copied_nodes(g, region, first) {
            catch_in_this_frame(g, m);
        }
    }
    let mut pass = Explicit {
        unwinds,
        catching,
        first,
    };
    pass.region(g, region, results)
}

struct Explicit<'a> {
    unwinds: &'a FxHashSet<Node>,
    catching: bool,
    /// The first node of the copy (in the region where it was copied).
    first: usize,
}

impl Explicit<'_> {
    /// The outcome of the copied nodes of region `r` (all its nodes below the top).
    fn region(&mut self, g: &mut Rvsdg, r: Region, tracked: &mut [Origin]) -> Option<Outcome> {
        let order: Vec<Node> = g
            .topological_order(r)
            .into_iter()
            .filter(|n| n.index() >= self.first)
            .collect();
        let &n = order.iter().find(|&&n| self.unwinds_at(g, n))?;
        let dependents = dependents(g, n, &order);
        let (outcome, states) = match g.kind(n) {
            NodeKind::Gamma { arms } => {
                let arms = arms.clone();
                let per_arm: Vec<Outcome> = arms
                    .iter()
                    .map(|&a| self.region(g, a, &mut []).unwrap_or_else(|| returned(g, a)))
                    .collect();
                let exit = |g: &mut Rvsdg, f: fn(&Outcome) -> Origin| {
                    let vals: Vec<Origin> = per_arm.iter().map(f).collect();
                    g.add_gamma_exit(n, &vals)
                };
                let outcome = Outcome {
                    unwound: exit(g, |o| o.unwound),
                    exception: exit(g, |o| o.exception),
                    selector: exit(g, |o| o.selector),
                };
                (outcome, state_outputs(g, n))
            }
            _ if is_resume(g, n) => resume_outcome(g, r, n, tracked),
            _ => self.to_try_call(g, r, n, tracked),
        };
        if dependents.is_empty() {
            return Some(outcome);
        }
        Some(self.guard(g, r, &dependents, outcome, &states, tracked))
    }

    /// Whether node `n` may unwind out of the copy: a plain call of `unwinds`, or a γ
    /// with one inside.
    fn unwinds_at(&self, g: &Rvsdg, n: Node) -> bool {
        match g.kind(n) {
            NodeKind::Simple(_) => self.unwinds.contains(&n),
            NodeKind::Gamma { arms } => arms.iter().any(|&a| {
                g.regions_below(a)
                    .into_iter()
                    .any(|q| g.nodes(q).iter().any(|m| self.unwinds.contains(m)))
            }),
            _ => false,
        }
    }

    /// Call `n` as a `try_call` (`catch_call`) in its place; its outcome and its
    /// states.
    fn to_try_call(
        &mut self,
        g: &mut Rvsdg,
        r: Region,
        n: Node,
        tracked: &mut [Origin],
    ) -> (Outcome, Vec<(Ty, Origin)>) {
        let Some(Op::Inst(data)) = g.op(n) else {
            unreachable!("a call that may unwind is a simple node");
        };
        let data = with_outcome(data.clone(), self.catching)
            .unwrap_or_else(|| unreachable!("a call that may unwind is a call"));
        let inputs = g.inputs(n).to_vec();
        let types = g.output_types(n);
        let values = types.iter().take_while(|t| t.value().is_some()).count();
        let mut out: Vec<Ty> = types[..values].to_vec();
        out.extend([Ty::Val(Type::I1), Ty::Val(Type::Ptr), Ty::Val(Type::I32)]);
        out.extend_from_slice(&types[values..]);
        let t = g.add_simple(r, Op::Inst(data), &inputs, &out);
        g.set_loc(t, g.node(n).loc);
        for k in 0..types.len() {
            let to = if k < values { k } else { k + 3 };
            divert(
                g,
                Origin::Out(n, k as u32),
                Origin::Out(t, to as u32),
                tracked,
            );
        }
        g.remove_node(n);
        let v = values as u32;
        let outcome = Outcome {
            unwound: Origin::Out(t, v),
            exception: Origin::Out(t, v + 1),
            selector: Origin::Out(t, v + 2),
        };
        (outcome, state_outputs(g, t))
    }

    /// Moves `dependents` (of the node whose `outcome` this is, in a topological
    /// order) into the "returned" arm of a new γ on the outcome; the other arm gives
    /// the outcome and `states`. Returns the γ's outcome.
    fn guard(
        &mut self,
        g: &mut Rvsdg,
        r: Region,
        dependents: &[Node],
        outcome: Outcome,
        states: &[(Ty, Origin)],
        tracked: &mut [Origin],
    ) -> Outcome {
        // alternative 0 when it unwound
        let predicate = g.add_simple(
            r,
            Op::Match {
                cases: Box::new([(1, 0)]),
                default: 1,
                alts: 2,
            },
            &[outcome.unwound],
            &[Ty::Ctl(2)],
        );
        let gamma = g.add_gamma(r, Origin::Out(predicate, 0), &[], 2);
        let [unwound_arm, returned_arm] = g.node(gamma).kind.subregions() else {
            unreachable!("a γ of two arms");
        };
        let (unwound_arm, returned_arm) = (*unwound_arm, *returned_arm);
        let mut entries: FxHashMap<Origin, [Origin; 2]> = FxHashMap::default();
        // the γ's entry variable of `o`: its argument in each arm
        fn entry(
            g: &mut Rvsdg,
            gamma: Node,
            entries: &mut FxHashMap<Origin, [Origin; 2]>,
            o: Origin,
        ) -> [Origin; 2] {
            *entries.entry(o).or_insert_with(|| {
                let a = g.add_gamma_entry(gamma, o);
                [a[0], a[1]]
            })
        }
        let moved: FxHashSet<Node> = dependents.iter().copied().collect();
        for &m in dependents {
            let inputs: Vec<Origin> = g
                .inputs(m)
                .to_vec()
                .into_iter()
                .map(|o| match g.producer(o) {
                    Some(p) if moved.contains(&p) => o,
                    _ => entry(g, gamma, &mut entries, o)[1],
                })
                .collect();
            g.move_node(m, returned_arm, &inputs);
        }
        // what the moved nodes give to the rest: the γ's exits
        let mut exits: FxHashMap<Origin, Origin> = FxHashMap::default();
        let mut exit = |g: &mut Rvsdg, o: Origin| -> Origin {
            if let Some(&x) = exits.get(&o) {
                return x;
            }
            let ty = g.ty(o);
            let unwound = match ty {
                Ty::Mem | Ty::Io => {
                    let at = states
                        .iter()
                        .find(|&&(t, _)| t == ty)
                        .map(|&(_, s)| s)
                        .expect("a call takes the memory and I/O states");
                    entry(g, gamma, &mut entries, at)[0]
                }
                Ty::Val(t) => undef(g, unwound_arm, t),
                Ty::Ctl(alts) => {
                    let c = g.add_simple(unwound_arm, Op::Ctl { alt: 0, alts }, &[], &[ty]);
                    Origin::Out(c, 0)
                }
            };
            let x = g.add_gamma_exit(gamma, &[unwound, o]);
            exits.insert(o, x);
            x
        };
        for i in 0..g.results(r).len() {
            let o = g.results(r)[i];
            if g.producer(o).is_some_and(|p| moved.contains(&p)) {
                let x = exit(g, o);
                g.set_result(r, i, x);
            }
        }
        for t in tracked.iter_mut() {
            if g.producer(*t).is_some_and(|p| moved.contains(&p)) {
                *t = exit(g, *t);
            }
        }
        // the states the moved nodes took: what else reads them (a region result, or
        // what the copy gives) reads them through the γ, as the moved nodes left them
        // or as they were where it unwound (a state has one reader, or a sink and one)
        let mut state_entries: Vec<(Origin, [Origin; 2])> = entries
            .iter()
            .filter(|(o, _)| g.ty(**o).is_state())
            .map(|(&o, &a)| (o, a))
            .collect();
        // (in the order of the γ's entries: the output does not depend on hashing)
        state_entries.sort_by_key(|&(_, [a0, _])| match a0 {
            Origin::Arg(_, i) => i,
            Origin::Out(..) => u32::MAX,
        });
        for (o, [a0, a1]) in state_entries {
            let others: Vec<User> = g
                .users(o)
                .iter()
                .copied()
                .filter(|&u| match u {
                    User::In(m, _) => m != gamma && !moved.contains(&m),
                    User::Res(..) => true,
                })
                .collect();
            let is_tracked = tracked.contains(&o);
            if others.is_empty() && !is_tracked {
                continue;
            }
            let end = chain_end(g, a1);
            let x = g.add_gamma_exit(gamma, &[a0, end]);
            for u in others {
                g.set_origin(u, x);
            }
            for t in tracked.iter_mut().filter(|t| **t == o) {
                *t = x;
            }
        }
        let inner = self
            .region(g, returned_arm, &mut [])
            .unwrap_or_else(|| returned(g, returned_arm));
        let mut both = |g: &mut Rvsdg, o: Origin, i: Origin| {
            let e = entry(g, gamma, &mut entries, o)[0];
            g.add_gamma_exit(gamma, &[e, i])
        };
        Outcome {
            unwound: both(g, outcome.unwound, inner.unwound),
            exception: both(g, outcome.exception, inner.exception),
            selector: both(g, outcome.selector, inner.selector),
        }
    }
}

/// A `try_call` of the callee's that the caller's handler catches becomes a
/// `catch_call` (the search phase must find the handler in this frame).
fn catch_in_this_frame(g: &mut Rvsdg, n: Node) {
    let Some(Op::Inst(data)) = g.op(n) else {
        return;
    };
    if !matches!(data.opcode(), Opcode::TryCall | Opcode::TryCallIndirect) {
        return;
    }
    if let Some(data) = with_outcome(data.clone(), true) {
        *g.kind_mut(n) = NodeKind::Simple(Op::Inst(data));
    }
}

/// A direct or indirect call (of any kind) as the call that gives its outcome:
/// `try_call`, or `catch_call` when `catching`; `None` for anything else.
fn with_outcome(data: InstructionData, catching: bool) -> Option<InstructionData> {
    Some(match data {
        InstructionData::Call { func, args, .. } => InstructionData::Call {
            opcode: if catching {
                Opcode::CatchCall
            } else {
                Opcode::TryCall
            },
            func,
            args,
        },
        InstructionData::CallIndirect { sig, args, .. } => InstructionData::CallIndirect {
            opcode: if catching {
                Opcode::CatchCallIndirect
            } else {
                Opcode::TryCallIndirect
            },
            sig,
            args,
        },
        _ => return None,
    })
}

/// The nodes of a copy in `region` (those from index `first` on) and every node
/// inside them.
pub(crate) fn copied_nodes(g: &Rvsdg, region: Region, first: usize) -> Vec<Node> {
    let top: Vec<Node> = g
        .nodes(region)
        .iter()
        .copied()
        .filter(|n| n.index() >= first)
        .collect();
    let mut nodes = top.clone();
    for &n in &top {
        for &sub in g.node(n).kind.subregions() {
            for q in g.regions_below(sub) {
                nodes.extend_from_slice(g.nodes(q));
            }
        }
    }
    nodes
}

/// Whether `n` calls `_Unwind_Resume`.
fn is_resume(g: &Rvsdg, n: Node) -> bool {
    let Some(Op::Inst(InstructionData::Call { func, .. })) = g.op(n) else {
        return false;
    };
    let l = g
        .enclosing_lambda(g.node(n).region)
        .expect("a node inside a λ");
    g.lambda_info(l)
        .ext_funcs
        .get(*func)
        .is_some_and(|e| e.name == crate::unwind::RESUME)
}

/// A call of `_Unwind_Resume(e)` in region `r` goes: the outcome is (1, `e`, 0), what
/// read its states reads what it read.
fn resume_outcome(
    g: &mut Rvsdg,
    r: Region,
    n: Node,
    tracked: &mut [Origin],
) -> (Outcome, Vec<(Ty, Origin)>) {
    let inputs = g.inputs(n).to_vec();
    let states: Vec<(Ty, Origin)> = inputs
        .iter()
        .map(|&o| (g.ty(o), o))
        .filter(|(t, _)| t.is_state())
        .collect();
    let outputs: Vec<Origin> = g.outputs(n).collect();
    for o in outputs {
        let ty = g.ty(o);
        let &(_, before) = states
            .iter()
            .find(|&&(t, _)| t == ty)
            .expect("a call gives back the states it takes");
        divert(g, o, before, tracked);
    }
    let exception = inputs[0];
    g.remove_node(n);
    let outcome = Outcome {
        unwound: constant(g, r, Type::I1, 1),
        exception,
        selector: constant(g, r, Type::I32, 0),
    };
    (outcome, states)
}

/// The outcome "returned" in region `r`: constants.
fn returned(g: &mut Rvsdg, r: Region) -> Outcome {
    Outcome {
        unwound: constant(g, r, Type::I1, 0),
        exception: constant(g, r, Type::Ptr, 0),
        selector: constant(g, r, Type::I32, 0),
    }
}

fn constant(g: &mut Rvsdg, r: Region, ty: Type, imm: u128) -> Origin {
    let c = g.add_simple(
        r,
        Op::Inst(InstructionData::UnaryImm {
            opcode: Opcode::Iconst,
            imm,
        }),
        &[],
        &[Ty::Val(ty)],
    );
    Origin::Out(c, 0)
}

fn undef(g: &mut Rvsdg, r: Region, ty: Type) -> Origin {
    let u = g.add_simple(
        r,
        Op::Inst(InstructionData::Nullary {
            opcode: Opcode::Undef,
        }),
        &[],
        &[Ty::Val(ty)],
    );
    Origin::Out(u, 0)
}

/// Where the chain of a state that starts at `a` ends in its region: following the
/// reader that gives a state of its type back, until none does.
fn chain_end(g: &Rvsdg, a: Origin) -> Origin {
    let ty = g.ty(a);
    let mut cur = a;
    loop {
        let next = g.users(cur).iter().find_map(|&u| match u {
            User::In(m, _) => g.outputs(m).find(|&o| g.ty(o) == ty),
            User::Res(..) => None,
        });
        match next {
            Some(o) => cur = o,
            None => return cur,
        }
    }
}

/// Node `n`'s state outputs and their types.
fn state_outputs(g: &Rvsdg, n: Node) -> Vec<(Ty, Origin)> {
    g.outputs(n)
        .map(|o| (g.ty(o), o))
        .filter(|(t, _)| t.is_state())
        .collect()
}

/// The nodes of `order` (a region's, topologically ordered) that read what `n` gives,
/// directly or not, in that order.
fn dependents(g: &Rvsdg, n: Node, order: &[Node]) -> Vec<Node> {
    let seen = g.dependents(n);
    order.iter().copied().filter(|m| seen.contains(m)).collect()
}

/// Every user of `from` reads `to` instead, and so does every origin of `tracked`
/// that was `from`.
fn divert(g: &mut Rvsdg, from: Origin, to: Origin, tracked: &mut [Origin]) {
    g.divert_users(from, to);
    for t in tracked.iter_mut().filter(|t| **t == from) {
        *t = to;
    }
}
