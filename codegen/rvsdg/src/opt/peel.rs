//! Complete peeling of loops with a small bound (`rvsdg-unroll-peel`): an innermost θ
//! that is not counted (its test also depends on data) but whose test certainly ends
//! it within a few iterations, because a variable that starts constant decides it,
//! becomes that many copies of its body in nested γs. LLVM's loop unroller does the
//! same with a loop's upper bound (`UnrollMaxUpperBound`).
//!
//! Why: `clamp_median`'s `med5` sorts five values by insertion, `while j > 0 && v[j -
//! 1] > x { v[j] = v[j - 1]; j -= 1 }`. Once the loop around it is unrolled
//! (`rvsdg-unroll-nests`), `j` starts at 1, 2, 3 and 4, and each while loop runs at
//! most `j + 1` tests. Peeled, every index is a constant: the array's cells become
//! values (`rvsdg-memory`), the decisions γs that if-conversion makes guarded moves,
//! and the loop over the elements holds no loop any more, so that it is if-converted
//! whole and pipelined.
//!
//! **The bound.** An abstract evaluation of the body: every value is a constant, `undef`
//! (which agrees with any constant: the construction makes it only where the value is
//! not used) or unknown. Loop variables start as their inputs (constants, or unknown);
//! a pure operation on constants is evaluated with the IR's semantics, a `match` of a
//! constant is its alternative, a γ on a constant takes that arm, on anything else all
//! arms, whose results agree or are unknown; anything with a state is unknown. The
//! body is evaluated again on its next values until its predicate is the constant
//! "stop": the number of evaluations `t` (at most [`MAX_TRIPS`]) bounds the
//! iterations of every run, since each run's values are among those the evaluation
//! stands for. A body with a sink at its top level is left (its state would have two
//! users), as are copies beyond [`BUDGET`] nodes.
//!
//! **Peeling.** `t` copies of the body, each in the continuing arm of a γ on the
//! previous copy's predicate; the stopping arm gives the loop's outputs as that copy
//! left them. The last copy's predicate is "stop" on every run, so no loop remains.
//! What the copies compute is what the iterations computed, in order, on the same
//! states.

use vliw_ir::InstructionData;
use vliw_ir::semantics::eval_pure;

use super::rewrite::{const_of, vty};
use super::unroll::has_sink;
use crate::graph::{Node, NodeKind, Origin, Region};
use crate::ops::{Op, Rvsdg};

/// The most iterations a peeled loop may run.
pub const MAX_TRIPS: usize = 8;
/// The most nodes the copies of one body may have together.
pub const BUDGET: usize = 240;

/// An abstract value.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Value {
    Const(u128),
    Undef,
    Unknown,
}

impl Value {
    fn join(self, other: Value) -> Value {
        match (self, other) {
            (Value::Undef, v) | (v, Value::Undef) => v,
            (a, b) if a == b => a,
            _ => Value::Unknown,
        }
    }
}

/// The iterations θ `theta` runs at most, when the evaluation finds a bound.
pub(super) fn bound(g: &Rvsdg, theta: Node) -> Option<usize> {
    let body = g.theta_body(theta);
    if has_sink(g, body) {
        return None;
    }
    let mut vars: Vec<Value> = g
        .inputs(theta)
        .iter()
        .map(|&o| value_outside(g, o))
        .collect();
    for t in 1..=MAX_TRIPS {
        let results = evaluate(g, body, &vars)?;
        if results[0] == Value::Const(0) {
            return Some(t);
        }
        vars = results[1..].to_vec();
    }
    None
}

/// What is known of `o`, an input of the θ: a constant or `undef`, else nothing.
fn value_outside(g: &Rvsdg, o: Origin) -> Value {
    if let Some(c) = const_of(g, o) {
        return Value::Const(c);
    }
    match g.producer(o).and_then(|n| g.op(n)) {
        Some(Op::Inst(InstructionData::Nullary {
            opcode: vliw_ir::Opcode::Undef,
        })) => Value::Undef,
        _ => Value::Unknown,
    }
}

/// The results of region `r` evaluated on `args`; `None` for a θ inside (not an
/// innermost loop).
fn evaluate(g: &Rvsdg, r: Region, args: &[Value]) -> Option<Vec<Value>> {
    let mut values: rustc_hash::FxHashMap<Origin, Value> = rustc_hash::FxHashMap::default();
    for (i, &v) in args.iter().enumerate() {
        values.insert(Origin::Arg(r, i as u32), v);
    }
    let get = |values: &rustc_hash::FxHashMap<Origin, Value>, o: Origin| {
        values.get(&o).copied().unwrap_or(Value::Unknown)
    };
    for n in g.topological_order(r) {
        let inputs: Vec<Value> = g.inputs(n).iter().map(|&o| get(&values, o)).collect();
        let outputs: Vec<Value> = match g.kind(n) {
            NodeKind::Simple(op) => simple(g, n, op, &inputs),
            NodeKind::Gamma { arms } => {
                let entries = &inputs[1..];
                let taken: Vec<Region> = match inputs[0] {
                    Value::Const(a) if (a as usize) < arms.len() => vec![arms[a as usize]],
                    _ => arms.clone(),
                };
                let mut joined: Option<Vec<Value>> = None;
                for arm in taken {
                    let res = evaluate(g, arm, entries)?;
                    joined = Some(match joined {
                        None => res,
                        Some(j) => j.iter().zip(&res).map(|(&a, &b)| a.join(b)).collect(),
                    });
                }
                joined.unwrap_or_else(|| vec![Value::Unknown; g.num_outputs(n)])
            }
            NodeKind::Theta { .. } => return None,
            NodeKind::Lambda { .. } => vec![Value::Unknown; g.num_outputs(n)],
        };
        for (o, v) in g.outputs(n).zip(outputs) {
            values.insert(o, v);
        }
    }
    Some(g.results(r).iter().map(|&o| get(&values, o)).collect())
}

/// The outputs of simple node `n` (operation `op`) on `inputs`.
fn simple(g: &Rvsdg, n: Node, op: &Op, inputs: &[Value]) -> Vec<Value> {
    let unknown = vec![Value::Unknown; g.num_outputs(n)];
    match op {
        Op::Ctl { alt, .. } => vec![Value::Const(u128::from(*alt))],
        Op::Match { cases, default, .. } => match inputs[0] {
            Value::Const(x) => {
                let alt = cases
                    .iter()
                    .find(|(v, _)| *v == x)
                    .map_or(*default, |&(_, a)| a);
                vec![Value::Const(u128::from(alt))]
            }
            _ => unknown,
        },
        Op::Inst(InstructionData::Nullary {
            opcode: vliw_ir::Opcode::Undef,
        }) => vec![Value::Undef],
        Op::Inst(data) if op.is_pure() => {
            let nargs = data.arguments().len();
            let mut args = Vec::with_capacity(nargs);
            for &v in &inputs[..nargs.min(inputs.len())] {
                let Value::Const(c) = v else { return unknown };
                args.push(c);
            }
            let types: Vec<_> = g.inputs(n)[..nargs].iter().map(|&o| vty(g, o)).collect();
            let rtypes: Vec<_> = g.outputs(n).map_while(|o| g.ty(o).value()).collect();
            if rtypes.len() != g.num_outputs(n) {
                return unknown;
            }
            match eval_pure(data, &types, &args, &rtypes) {
                Ok(results) => rtypes
                    .iter()
                    .enumerate()
                    .map(|(i, ty)| match results.get(i).copied().flatten() {
                        Some(bits) => Value::Const(bits & ty.mask()),
                        None => Value::Unknown,
                    })
                    .collect(),
                Err(_) => unknown,
            }
        }
        _ => unknown,
    }
}

/// Replaces θ `theta` by `trips` copies of its body in nested γs (module
/// documentation); the caller has found `trips` by [`bound`].
pub(super) fn peel(g: &mut Rvsdg, theta: Node, trips: usize) {
    let region = g.node(theta).region;
    let inputs = g.inputs(theta).to_vec();
    let body = g.theta_body(theta);
    let outs = peel_into(g, body, region, &inputs, trips);
    for (k, &o) in outs.iter().enumerate() {
        g.divert_users(Origin::Out(theta, k as u32), o);
    }
    g.remove_node(theta);
}

/// `trips` iterations of `body` in `region` on `inputs`: the loop variables' values
/// when they stop.
fn peel_into(
    g: &mut Rvsdg,
    body: Region,
    region: Region,
    inputs: &[Origin],
    trips: usize,
) -> Vec<Origin> {
    let results = g.copy_region(body, region, inputs);
    let next = results[1..].to_vec();
    if trips == 1 {
        return next;
    }
    // alternative 0 stops, 1 goes on
    let gamma = g.add_gamma(region, results[0], &next, 2);
    let args: Vec<Vec<Origin>> = g
        .kind(gamma)
        .subregions()
        .iter()
        .map(|&a| g.arg_origins(a).collect())
        .collect();
    let arms = g.kind(gamma).subregions().to_vec();
    let going_on = peel_into(g, body, arms[1], &args[1], trips - 1);
    (0..next.len())
        .map(|k| g.add_gamma_exit(gamma, &[args[0][k], going_on[k]]))
        .collect()
}

/// Pushes the stores of region `r` (and below) into the γs before them where the
/// address depends on the γ's outputs: a store whose memory state is the only use of
/// a γ's state output, whose address is computed (by pure nodes) from the γ's outputs
/// and a stack slot's address, is done at the end of every arm instead, where a peeled
/// loop's counter is a constant (`med5`'s `v[j] = x` after its peeled inner loop).
/// Each arm stores exactly what the store after the γ stored, on the same state, so
/// nothing observable changes; the arms' stores are then pushed into the γs inside
/// them in turn. Returns how many stores moved.
pub(super) fn push_stores(g: &mut Rvsdg, r: Region) -> usize {
    let mut moved = 0;
    for n in g.topological_order(r) {
        if !g.is_alive(n) {
            continue;
        }
        for s in g.kind(n).subregions().to_vec() {
            moved += push_stores(g, s);
        }
        if let Some(arms) = push_store(g, n) {
            moved += 1;
            for arm in arms {
                moved += push_stores(g, arm);
            }
        }
    }
    moved
}

/// Pushes store `s` into the γ before it (see [`push_stores`]); the γ's arms when it
/// did.
fn push_store(g: &mut Rvsdg, s: Node) -> Option<Vec<Region>> {
    let Some(Op::Inst(InstructionData::Store {
        opcode: vliw_ir::Opcode::Store,
        flags,
        ..
    })) = g.op(s)
    else {
        return None;
    };
    if flags.volatile || g.inputs(s).len() != 3 {
        return None;
    }
    let state = g.input(s, 2);
    let Origin::Out(gamma, m) = state else {
        return None;
    };
    if !matches!(g.kind(gamma), NodeKind::Gamma { .. }) || g.users(state).len() != 1 {
        return None;
    }
    let region = g.node(s).region;
    // the pure nodes between the γ's outputs and the store's value and address, used
    // by nothing else; the address must come from them and a stack slot
    let mut cone: Vec<Node> = Vec::new();
    let mut stack_slot = false;
    let mut work = vec![g.input(s, 0), g.input(s, 1)];
    let mut seen: rustc_hash::FxHashSet<Origin> = rustc_hash::FxHashSet::default();
    let mut reads_gamma = false;
    while let Some(o) = work.pop() {
        if !seen.insert(o) {
            continue;
        }
        let Some(p) = g.producer(o) else {
            // a slot's address entering the arms of the γs around (the peeled copies)
            stack_slot |= slot_entering(g, o);
            continue;
        };
        if p == gamma {
            reads_gamma = true;
            continue;
        }
        if g.node(p).region != region {
            continue;
        }
        match g.op(p) {
            Some(Op::Inst(InstructionData::StackAddr { .. })) => stack_slot = true,
            Some(op) if op.is_pure() && !matches!(g.kind(p), NodeKind::Gamma { .. }) => {
                if !cone.contains(&p) {
                    cone.push(p);
                }
                work.extend(g.inputs(p).iter().copied());
            }
            _ => {}
        }
    }
    if !reads_gamma || !stack_slot {
        return None;
    }
    // only the nodes that read the γ's outputs (directly or not) move; the others
    // enter the arms as entry variables
    let order: Vec<Node> = g
        .topological_order(region)
        .into_iter()
        .filter(|n| cone.contains(n))
        .collect();
    let mut moving: Vec<Node> = Vec::new();
    for &n in &order {
        if g.inputs(n).iter().any(|&o| {
            g.producer(o) == Some(gamma) || g.producer(o).is_some_and(|p| moving.contains(&p))
        }) {
            moving.push(n);
        }
    }
    let inside = |u: &crate::graph::User| match u {
        crate::graph::User::In(x, _) => *x == s || moving.contains(x),
        _ => false,
    };
    if moving
        .iter()
        .any(|&n| g.outputs(n).any(|o| !g.users(o).iter().all(inside)))
    {
        return None;
    }
    let arms = g.kind(gamma).subregions().to_vec();
    // what the moving nodes and the store read from outside them, as entries
    let mut outside: Vec<Origin> = Vec::new();
    for &n in moving.iter().chain([&s]) {
        for (i, &o) in g.inputs(n).iter().enumerate() {
            let from_moving = g.producer(o).is_some_and(|p| moving.contains(&p));
            if n == s && i == 2 || from_moving || g.producer(o) == Some(gamma) {
                continue;
            }
            if !outside.contains(&o) {
                outside.push(o);
            }
        }
    }
    let entries: Vec<Vec<Origin>> = outside
        .iter()
        .map(|&o| g.add_gamma_entry(gamma, o))
        .collect();
    for (a, &arm) in arms.iter().enumerate() {
        let mut map: rustc_hash::FxHashMap<Origin, Origin> = rustc_hash::FxHashMap::default();
        for (k, &res) in g.results(arm).to_vec().iter().enumerate() {
            map.insert(Origin::Out(gamma, k as u32), res);
        }
        for (o, e) in outside.iter().zip(&entries) {
            map.insert(*o, e[a]);
        }
        g.copy_nodes(&moving, arm, &mut map);
        let inputs: Vec<Origin> = g.inputs(s).iter().map(|o| map[o]).collect();
        let copy = g.copy_node(s, arm, &inputs);
        g.set_result(arm, m as usize, Origin::Out(copy, 0));
    }
    g.divert_users(Origin::Out(s, 0), state);
    g.remove_node(s);
    for &n in moving.iter().rev() {
        if !g.is_used(n) {
            g.remove_node(n);
        }
    }
    Some(arms)
}

/// Whether argument `o` is a stack slot's address entering a γ arm (through the
/// entries of the γs around it).
fn slot_entering(g: &Rvsdg, mut o: Origin) -> bool {
    loop {
        match o {
            Origin::Arg(r, j) => {
                let Some(owner) = g.owner(r) else {
                    return false;
                };
                if !matches!(g.kind(owner), NodeKind::Gamma { .. }) {
                    return false;
                }
                o = g.input(owner, j as usize + 1);
            }
            Origin::Out(p, _) => {
                return matches!(g.op(p), Some(Op::Inst(InstructionData::StackAddr { .. })));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undef_agrees_with_a_constant() {
        assert_eq!(Value::Undef.join(Value::Const(3)), Value::Const(3));
        assert_eq!(Value::Const(3).join(Value::Const(3)), Value::Const(3));
        assert_eq!(Value::Const(3).join(Value::Const(4)), Value::Unknown);
        assert_eq!(Value::Unknown.join(Value::Undef), Value::Unknown);
    }
}
