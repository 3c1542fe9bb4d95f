//! Conditions known after a check (part of `rvsdg-fold`): a γ one arm of which ends
//! in `unreachable` (a Rust bounds check's arm that calls the panic function) returns
//! only through its other arm, so whatever runs after it — every node that reads one
//! of its outputs, directly or through others of its region — runs only when its
//! predicate chose that arm. A later test of the same condition (the same `i1`, or
//! the same `match` output; common node elimination has made equal compares one) is
//! then known: its use becomes a constant, which folding carries on (a γ on it loses
//! its other arm, `gamma.constant-predicate`). `if a[i] > m { m = a[i] }` checks `i`
//! twice, the second time inside a γ, where loop versioning would not take it.
//!
//! Counter: `fold.known-after-check` (uses replaced).

use rustc_hash::FxHashMap;
use vliw_ir::{Opcode, Type};

use super::rewrite::{Rewriter, const_of};
use super::unroll::match2_alternatives;
use crate::graph::{Node, NodeKind, Origin, Region, User};
use crate::ops::{Op, Rvsdg, Ty};

/// Replaces, in every region below `body`, the tests that a check before them already
/// decided; how many uses it replaced.
pub(super) fn known_after_checks(rw: &mut Rewriter, body: Region) -> u64 {
    let mut replaced = 0;
    for r in rw.g.regions_below(body) {
        let checks: Vec<Node> =
            rw.g.nodes(r)
                .iter()
                .copied()
                .filter(|&n| check(rw.g, n).is_some())
                .collect();
        if checks.is_empty() {
            continue;
        }
        let after = Later::of(rw.g, r);
        for gamma in checks {
            if rw.g.is_alive(gamma) {
                replaced += after_check(rw, gamma, &after);
            }
        }
    }
    replaced
}

/// Which check of a region each node comes after: the checks of a region are
/// ordered by its I/O state (each calls a panic function, which reads and gives
/// back that state), so a node runs after check `G` exactly when it reads, directly
/// or through others, an output of `G` or of a check later than `G` on that chain.
struct Later {
    /// Each check's place on the chain.
    place: FxHashMap<Node, u32>,
    /// For each node, the latest place among the checks it comes after (+1; 0: none).
    latest: FxHashMap<Node, u32>,
}

impl Later {
    /// One pass over region `r` in a topological order.
    fn of(g: &Rvsdg, r: Region) -> Later {
        let mut place = FxHashMap::default();
        let mut latest: FxHashMap<Node, u32> = FxHashMap::default();
        for n in g.topological_order(r) {
            let mut l = g
                .inputs(n)
                .iter()
                .filter_map(|o| match o {
                    Origin::Out(p, _) => latest.get(p).copied(),
                    Origin::Arg(..) => None,
                })
                .max()
                .unwrap_or(0);
            if check(g, n).is_some() {
                // a later check reads the I/O state this one gives back
                let k = place.len() as u32 + 1;
                place.insert(n, k);
                l = l.max(k);
            }
            latest.insert(n, l);
        }
        Later { place, latest }
    }

    /// Whether node `n` (of the region) runs only after check `gamma` has passed.
    fn after(&self, gamma: Node, n: Node) -> bool {
        n != gamma
            && match (self.place.get(&gamma), self.latest.get(&n)) {
                (Some(&k), Some(&l)) => l >= k,
                _ => false,
            }
    }
}

/// The uses that check `gamma` decides (if it is one) replaced by constants.
fn after_check(rw: &mut Rewriter, gamma: Node, later: &Later) -> u64 {
    let g = &*rw.g;
    let Some((pass, m, c)) = check(g, gamma) else {
        return 0;
    };
    let [on_0, on_1] = match2_alternatives(g, m).expect("a check's match has two arms");
    if on_0 == on_1 {
        return 0;
    }
    let value = u128::from(on_1 == pass);
    // the other tests of the condition in the γ's region
    let r = g.node(gamma).region;
    let uses: Vec<(User, bool)> = g
        .users(c)
        .iter()
        .filter(|u| !matches!(u, User::In(n, _) if *n == m))
        .map(|&u| (u, false))
        .chain(
            g.users(Origin::Out(m, 0))
                .iter()
                .filter(|u| !matches!(u, User::In(n, _) if *n == gamma))
                .map(|&u| (u, true)),
        )
        .filter(|(u, _)| matches!(u, User::In(n, _) if g.node(*n).region == r))
        .collect();
    let compare = equal_compare_key(g, c);
    if uses.is_empty() && compare.is_none() {
        return 0;
    }
    let after = |_: &Rvsdg, n: Node| later.after(gamma, n);
    let mut replaced = 0;
    // the condition itself entering the passing arm
    let pass_arm = g.kind(gamma).subregions()[pass as usize];
    let entering: Vec<Origin> = (0..g.args(pass_arm).len())
        .filter(|&i| g.input(gamma, i + 1) == c)
        .map(|i| Origin::Arg(pass_arm, i as u32))
        .filter(|&a| !g.users(a).is_empty())
        .collect();
    for a in entering {
        let constant = rw.constant_in(pass_arm, Ty::Val(Type::I1), value);
        rw.replace(a, constant);
        replaced += 1;
    }
    let g = &*rw.g;
    // the same compare made again inside the regions that run after the check, and
    // inside its passing arm, from the same values entering them
    if let Some(key) = &compare {
        let pass_arm = g.kind(gamma).subregions()[pass as usize];
        let mut inner: Vec<(Region, Vec<Option<Origin>>)> = vec![(
            pass_arm,
            (0..g.args(pass_arm).len())
                .map(|i| Some(g.input(gamma, i + 1)))
                .collect(),
        )];
        // (only structural nodes that take both operands can hold such a compare)
        let first = key.1.iter().find_map(|o| match o {
            Operand::Value(v) => Some(*v),
            Operand::Const(_) => None,
        });
        let mut structural: Vec<Node> = first
            .map(|v| {
                g.users(v)
                    .iter()
                    .filter_map(|u| match *u {
                        User::In(n, _) if g.node(n).region == r => Some(n),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        structural.sort();
        structural.dedup();
        structural.retain(|&n| takes_both(g, n, &|o| Some(o), &key.1) && after(g, n));
        for n in structural {
            inner.extend(entries(g, n, &|o| Some(o)));
        }
        while let Some((q, outer)) = inner.pop() {
            let g = &*rw.g;
            let mut found = Vec::new();
            for &n in g.nodes(q) {
                if !g.kind(n).subregions().is_empty() {
                    let map = |o: Origin| match o {
                        Origin::Arg(r, i) if r == q => outer[i as usize],
                        _ => None,
                    };
                    if takes_both(g, n, &map, &key.1) {
                        inner.extend(entries(g, n, &map));
                    }
                    continue;
                }
                let Some(k) = equal_compare_key(g, Origin::Out(n, 0)) else {
                    continue;
                };
                let outside = |o: Operand| match o {
                    Operand::Value(Origin::Arg(r, i)) if r == q => {
                        outer[i as usize].map(Operand::Value)
                    }
                    Operand::Const(v) => Some(Operand::Const(v)),
                    _ => None,
                };
                if k.0 == key.0 && k.1.iter().zip(&key.1).all(|(&a, &b)| outside(a) == Some(b)) {
                    found.push(n);
                }
            }
            for n in found {
                let constant = rw.constant_in(q, Ty::Val(Type::I1), value);
                rw.replace(Origin::Out(n, 0), constant);
                replaced += 1;
            }
        }
    }
    for (u, control) in uses {
        let User::In(n, _) = u else { continue };
        if !after(rw.g, n) {
            continue;
        }
        let constant = if control {
            rw.constant_in(r, Ty::Ctl(2), u128::from(pass))
        } else {
            rw.constant_in(r, Ty::Val(Type::I1), value)
        };
        rw.redirect(u, constant);
        replaced += 1;
    }
    replaced
}

/// If `gamma` is a check — a γ on `match2` of an `i1` with one arm that ends in
/// `unreachable` — its other arm, the `match` and the `i1`.
fn check(g: &Rvsdg, gamma: Node) -> Option<(u32, Node, Origin)> {
    let NodeKind::Gamma { arms } = g.kind(gamma) else {
        return None;
    };
    if arms.len() != 2 {
        return None;
    }
    let Origin::Out(m, 0) = g.input(gamma, 0) else {
        return None;
    };
    match2_alternatives(g, m)?;
    let c = g.input(m, 0);
    if g.ty(c) != Ty::Val(Type::I1) {
        return None;
    }
    let sinks: Vec<bool> = arms
        .iter()
        .map(|&a| {
            g.nodes(a)
                .iter()
                .any(|&n| matches!(g.op(n), Some(Op::Inst(d)) if d.opcode() == Opcode::Unreachable))
        })
        .collect();
    let pass = match sinks[..] {
        [true, false] => 1,
        [false, true] => 0,
        _ => return None,
    };
    Some((pass, m, c))
}

/// An operand of a compare: a constant by its value, anything else by its origin.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Operand {
    Const(u128),
    Value(Origin),
}

/// An integer compare's condition and operands, for the compare that makes `c`.
fn equal_compare_key(g: &Rvsdg, c: Origin) -> Option<(vliw_ir::IntCC, [Operand; 2])> {
    let Origin::Out(n, 0) = c else { return None };
    let Some(Op::Inst(vliw_ir::InstructionData::IntCompare { cond, .. })) = g.op(n) else {
        return None;
    };
    let operand = |o: Origin| match const_of(g, o) {
        Some(v) => Operand::Const(v),
        None => Operand::Value(o),
    };
    Some((*cond, [operand(g.input(n, 0)), operand(g.input(n, 1))]))
}

/// Whether structural node `n` takes both `operands` (as `map` gives its inputs).
fn takes_both(
    g: &Rvsdg,
    n: Node,
    map: &dyn Fn(Origin) -> Option<Origin>,
    operands: &[Operand; 2],
) -> bool {
    if g.kind(n).subregions().is_empty() {
        return false;
    }
    let inputs: Vec<Option<Origin>> = g.inputs(n).iter().map(|&o| map(o)).collect();
    operands.iter().all(|o| match o {
        Operand::Const(_) => true,
        Operand::Value(v) => inputs.contains(&Some(*v)),
    })
}

/// The subregions of structural node `n` with, for each of their arguments, the
/// origin of the checked region it stands for (`map` gives that of `n`'s inputs): a
/// γ arm's arguments are its entries' inputs, a θ body's those of its loop variables
/// that pass through unchanged.
fn entries(
    g: &Rvsdg,
    n: Node,
    map: &dyn Fn(Origin) -> Option<Origin>,
) -> Vec<(Region, Vec<Option<Origin>>)> {
    match g.kind(n) {
        NodeKind::Gamma { arms } => arms
            .iter()
            .map(|&a| {
                let outer = (0..g.args(a).len())
                    .map(|i| map(g.input(n, i + 1)))
                    .collect();
                (a, outer)
            })
            .collect(),
        NodeKind::Theta { body } => {
            let results = g.results(*body);
            let outer = (0..g.args(*body).len())
                .map(|i| {
                    (results[i + 1] == Origin::Arg(*body, i as u32))
                        .then(|| map(g.input(n, i)))
                        .flatten()
                })
                .collect();
            vec![(*body, outer)]
        }
        _ => Vec::new(),
    }
}
