//! Tail recursion as a loop (`rvsdg-tail-calls`; LLVM's `TailRecursionElimination`):
//! a λ whose every call of itself is a tail call — what the call gives back is what
//! the λ gives back, its states the λ's last — becomes a θ around its body. Where the
//! body called itself, the iteration ends with the call's arguments as the next values
//! of the parameters and the states as they were before the call; where it returned,
//! the loop stops with the value it returned. A tree insertion (`insert(&mut n.left,
//! k)` in the arm that goes left) then walks down the tree in a loop instead of a
//! chain of frames, calls and returns, and the λ is no longer recursive, so the
//! inliner may take it.
//!
//! **Tail calls.** A plain `call` (not `try_call`: no landing pad runs after it) of
//! the λ's own name, in a region reached from the body through γ arms only (a call in
//! a θ repeats), whose every output has one user and goes, through γ exits, to the
//! λ's result of the same kind: the memory state to the memory result, the I/O state
//! to the I/O one, value `i` to value result `i`. A value may pass on the way through
//! the normalization Rust's `bool` returns get (`icmp ne v, 0`, then `uextend` and
//! `ireduce`): it maps 0 and 1 to themselves and anything else to 1, so applied after
//! any number of calls it gives what it gives once, and nothing when the value the
//! innermost call returned is 0 or 1 — which is checked: every value the λ returns
//! where it does not call itself is then a constant 0 or 1, a compare, `undef`, or
//! such a value extended, reduced or chosen by a γ.
//!
//! **Stack slots.** Every iteration runs in the same frame, where each call had its
//! own. A slot's address taken (`stack_addr`) where a tail call may follow in the same
//! activation could reach the callee (stored in memory, or as an argument), which
//! would then see its caller's slot as its own: so every `stack_addr` must be in an
//! arm of a γ whose other arm holds the tail calls, never where they run after it.
//!
//! **The rewrite.** Exits `go on` (1 in the arms that call, 0 in the others) and one
//! per parameter (the call's argument, `undef` elsewhere) are threaded from each call
//! up to the body; each call's value outputs become `undef` (the loop goes on: they
//! are never returned) and its state outputs its state inputs. The body is then copied
//! into a θ whose loop variables are the λ's parameters and states and one per value
//! result; its predicate is `go on`, the parameters' next values the threaded
//! arguments, the states' the body's state results, and the λ returns the θ's
//! outputs. Counters: `tail-calls.lambdas`, `tail-calls.calls`, `tail-calls.declined`.

use rustc_hash::{FxHashMap, FxHashSet};
use vliw_ir::{InstructionData, IntCC, Linkage, Opcode, Type};

use super::rewrite::const_of;
use crate::call_graph::direct_calls;
use crate::graph::{Node, NodeKind, Origin, Region, User};
use crate::ops::{Op, Rvsdg, Ty};
use crate::report::Report;

/// How many values the normalization of a `bool` is followed through, and how deep
/// the check of the returned values goes.
const MAX_CHAIN: usize = 64;

/// Turns the tail recursion of every λ of `g` into a loop (module documentation).
pub fn eliminate_tail_calls(g: &mut Rvsdg, report: &mut Report) {
    let (mut lambdas, mut calls, mut declined) = (0u64, 0u64, 0u64);
    for l in g.lambdas() {
        if g.lambda_info(l).linkage == Linkage::Weak {
            continue;
        }
        let name = g.lambda_info(l).name.clone();
        let own: Vec<Node> = direct_calls(g, l)
            .into_iter()
            .filter(|&(_, callee)| callee == name)
            .map(|(n, _)| n)
            .collect();
        if own.is_empty() {
            continue;
        }
        if !tail_recursive(g, l, &own) {
            declined += 1;
            continue;
        }
        rewrite(g, l, &own);
        lambdas += 1;
        calls += own.len() as u64;
    }
    report.count("tail-calls.lambdas", lambdas);
    report.count("tail-calls.calls", calls);
    report.count("tail-calls.declined", declined);
}

/// The γ arms from region `r` up to the λ body `body`: each γ with the index of the
/// arm, innermost first; none when a θ is on the way.
fn arm_path(g: &Rvsdg, mut r: Region, body: Region) -> Option<Vec<(Node, usize)>> {
    let mut path = Vec::new();
    while r != body {
        let owner = g.owner(r)?;
        let NodeKind::Gamma { arms } = g.kind(owner) else {
            return None;
        };
        path.push((owner, arms.iter().position(|&a| a == r)?));
        r = g.node(owner).region;
    }
    Some(path)
}

/// Whether every call in `own` is a tail call of λ `l` and the rewrite is sound.
fn tail_recursive(g: &Rvsdg, l: Node, own: &[Node]) -> bool {
    let body = g.lambda_body(l);
    let results = g.results(body).to_vec();
    let state_result = |t: Ty| results.iter().position(|&o| g.ty(o) == t);
    let (Some(mem_r), Some(io_r)) = (state_result(Ty::Mem), state_result(Ty::Io)) else {
        return false;
    };
    let states =
        |ts: &mut dyn Iterator<Item = Ty>| ts.filter(|t| matches!(t, Ty::Mem | Ty::Io)).count();
    // one memory and one I/O state, as the construction makes them
    if states(&mut g.args(body).iter().map(|p| p.ty)) != 2
        || states(&mut results.iter().map(|&o| g.ty(o))) != 2
    {
        return false;
    }
    let value_results: Vec<usize> = (0..results.len())
        .filter(|&k| k != mem_r && k != io_r)
        .collect();
    let mut normalized = false;
    let mut paths: Vec<Vec<(Node, usize)>> = Vec::new();
    let mut regions: FxHashSet<Region> = FxHashSet::default();
    for &c in own {
        if !matches!(g.op(c), Some(Op::Inst(d)) if d.opcode() == Opcode::Call) {
            return false;
        }
        let r = g.node(c).region;
        // two calls in one region would both run
        if !regions.insert(r) {
            return false;
        }
        // (a call at the top level would recur for ever: the stack overflows, where a
        // loop would run on)
        let Some(path) = arm_path(g, r, body).filter(|p| !p.is_empty()) else {
            return false;
        };
        let mut values = 0;
        for (i, o) in g.outputs(c).enumerate() {
            let ty = g.ty(o);
            let Some((k, norm)) = flows_to_result(g, o, body, ty.value().is_some()) else {
                return false;
            };
            let expected = match ty {
                Ty::Mem => mem_r,
                Ty::Io => io_r,
                _ => {
                    values += 1;
                    match value_results.get(i) {
                        Some(&k) => k,
                        None => return false,
                    }
                }
            };
            if k != expected {
                return false;
            }
            normalized |= norm;
        }
        if values != value_results.len() {
            return false;
        }
        paths.push(path);
    }
    // two calls whose regions nest, or two γs of one region that hold calls, would
    // make the threading ambiguous: each γ on the way holds the calls of one arm
    // chain, which distinct arms of the γs keep apart
    let mut holder: FxHashMap<Region, Node> = FxHashMap::default();
    for path in &paths {
        for &(gamma, _) in path {
            let outer = g.node(gamma).region;
            if regions.contains(&outer) {
                return false;
            }
            if let Some(&other) = holder.get(&outer)
                && other != gamma
            {
                return false;
            }
            holder.insert(outer, gamma);
        }
    }
    // the calls pass the parameters' values in order
    let params = g
        .args(body)
        .iter()
        .filter(|p| p.ty.value().is_some())
        .count();
    if own.iter().any(|&c| {
        g.inputs(c)
            .iter()
            .filter(|&&o| g.ty(o).value().is_some())
            .count()
            != params
    }) {
        return false;
    }
    if normalized
        && !value_results
            .iter()
            .all(|&k| returns_bool(g, results[k], own, &mut 0))
    {
        return false;
    }
    // stack slots: never where a tail call may run after them in one activation
    for r in g.regions_below(body) {
        for &n in g.nodes(r) {
            if !matches!(g.op(n), Some(Op::Inst(InstructionData::StackAddr { .. })))
                || !g.is_used(n)
            {
                continue;
            }
            let Some(slot_path) = arm_path(g, r, body) else {
                // inside a θ: apart only when that θ is inside an arm apart
                return false;
            };
            let arms: FxHashMap<Node, usize> = slot_path.iter().copied().collect();
            for path in &paths {
                let apart = path
                    .iter()
                    .any(|(gamma, arm)| arms.get(gamma).is_some_and(|a| a != arm));
                if !apart {
                    return false;
                }
            }
        }
    }
    true
}

/// Where output `o` of a call goes: the index of the λ result it becomes through γ
/// exits, and whether it passed the normalization of a `bool` (values only).
fn flows_to_result(g: &Rvsdg, o: Origin, body: Region, value: bool) -> Option<(usize, bool)> {
    let mut cur = o;
    let mut normalized = false;
    for _ in 0..MAX_CHAIN {
        let [user] = g.users(cur) else {
            return None;
        };
        match *user {
            User::Res(r, k) if r == body => return Some((k as usize, normalized)),
            User::Res(r, k) => {
                let owner = g.owner(r)?;
                if !matches!(g.kind(owner), NodeKind::Gamma { .. }) {
                    return None;
                }
                cur = Origin::Out(owner, k);
            }
            User::In(n, 0) if value => {
                let Some(Op::Inst(d)) = g.op(n) else {
                    return None;
                };
                match d {
                    InstructionData::IntCompare {
                        cond: IntCC::Ne, ..
                    } if !normalized && const_of(g, g.input(n, 1)) == Some(0) => normalized = true,
                    InstructionData::Unary {
                        opcode: Opcode::Uextend | Opcode::Ireduce,
                        ..
                    } if normalized => {}
                    _ => return None,
                }
                cur = Origin::Out(n, 0);
            }
            _ => return None,
        }
    }
    None
}

/// Whether every value `o` may take is 0 or 1, the tail calls' `own` values taken to
/// be (they return what this returns).
fn returns_bool(g: &Rvsdg, o: Origin, own: &[Node], budget: &mut usize) -> bool {
    *budget += 1;
    if *budget > MAX_CHAIN * 16 {
        return false;
    }
    match o {
        Origin::Arg(r, i) => match g.owner(r) {
            Some(owner) if matches!(g.kind(owner), NodeKind::Gamma { .. }) => {
                returns_bool(g, g.input(owner, i as usize + 1), own, budget)
            }
            _ => false,
        },
        Origin::Out(n, k) => match g.kind(n) {
            NodeKind::Gamma { arms } => arms
                .clone()
                .iter()
                .all(|&a| returns_bool(g, g.results(a)[k as usize], own, budget)),
            NodeKind::Simple(Op::Inst(d)) => match d {
                _ if own.contains(&n) => true,
                InstructionData::IntCompare { .. } | InstructionData::FloatCompare { .. } => true,
                InstructionData::Nullary {
                    opcode: Opcode::Undef,
                } => true,
                InstructionData::UnaryImm {
                    opcode: Opcode::Iconst,
                    imm,
                } => *imm <= 1,
                InstructionData::Unary {
                    opcode: Opcode::Uextend | Opcode::Ireduce,
                    ..
                } => returns_bool(g, g.input(n, 0), own, budget),
                _ => false,
            },
            _ => false,
        },
    }
}

fn undef(g: &mut Rvsdg, r: Region, ty: Ty) -> Origin {
    let u = g.add_simple(
        r,
        Op::Inst(InstructionData::Nullary {
            opcode: Opcode::Undef,
        }),
        &[],
        &[ty],
    );
    Origin::Out(u, 0)
}

fn bool_const(g: &mut Rvsdg, r: Region, v: u128) -> Origin {
    let c = g.add_simple(
        r,
        Op::Inst(InstructionData::UnaryImm {
            opcode: Opcode::Iconst,
            imm: v,
        }),
        &[],
        &[Ty::Val(Type::I1)],
    );
    Origin::Out(c, 0)
}

/// `go on` and the next parameters' values (in region `r`) of the tail calls below
/// `r`, threaded out of the γs that hold them; none when no call is below `r`.
fn thread(
    g: &mut Rvsdg,
    r: Region,
    own: &[Node],
    params: &[Ty],
    holders: &FxHashSet<Node>,
) -> Option<(Origin, Vec<Origin>)> {
    if let Some(&c) = own.iter().find(|&&c| g.node(c).region == r) {
        let go_on = bool_const(g, r, 1);
        let args: Vec<Origin> = g
            .inputs(c)
            .iter()
            .copied()
            .filter(|&o| g.ty(o).value().is_some())
            .collect();
        return Some((go_on, args));
    }
    let gamma = g.nodes(r).iter().copied().find(|n| holders.contains(n))?;
    let arms = g.kind(gamma).subregions().to_vec();
    let mut per_arm: Vec<(Origin, Vec<Origin>)> = Vec::new();
    for &a in &arms {
        let here = match thread(g, a, own, params, holders) {
            Some(t) => t,
            None => {
                let stop = bool_const(g, a, 0);
                let args = params.iter().map(|&t| undef(g, a, t)).collect();
                (stop, args)
            }
        };
        per_arm.push(here);
    }
    let go_on = g.add_gamma_exit(gamma, &per_arm.iter().map(|p| p.0).collect::<Vec<_>>());
    let args = (0..params.len())
        .map(|i| g.add_gamma_exit(gamma, &per_arm.iter().map(|p| p.1[i]).collect::<Vec<_>>()))
        .collect();
    Some((go_on, args))
}

/// The rewrite (module documentation) of λ `l`, whose calls `own` of itself are all
/// tail calls.
fn rewrite(g: &mut Rvsdg, l: Node, own: &[Node]) {
    let body = g.lambda_body(l);
    let body_args: Vec<Origin> = g.arg_origins(body).collect();
    let arg_tys: Vec<Ty> = body_args.iter().map(|&a| g.ty(a)).collect();
    // the γs on the way from the calls up
    let mut holders: FxHashSet<Node> = FxHashSet::default();
    for &c in own {
        let mut r = g.node(c).region;
        while r != body {
            let owner = g.owner(r).expect("a γ arm");
            holders.insert(owner);
            r = g.node(owner).region;
        }
    }
    // the next values of the value parameters (the calls' value inputs, in order)
    let value_params: Vec<Ty> = arg_tys
        .iter()
        .copied()
        .filter(|t| t.value().is_some())
        .collect();
    let (go_on, next) = thread(g, body, own, &value_params, &holders).expect("calls below");
    for &c in own {
        let r = g.node(c).region;
        let inputs = g.inputs(c).to_vec();
        for o in g.outputs(c).collect::<Vec<_>>() {
            let to = match g.ty(o) {
                t @ (Ty::Mem | Ty::Io) => *inputs
                    .iter()
                    .find(|&&x| g.ty(x) == t)
                    .expect("the call takes its states"),
                t => undef(g, r, t),
            };
            g.divert_users(o, to);
        }
        g.remove_node(c);
    }
    // the body, copied into a θ
    let order = g.topological_order(body);
    let results: Vec<Origin> = g.results(body).to_vec();
    let value_results: Vec<usize> = (0..results.len())
        .filter(|&k| !matches!(g.ty(results[k]), Ty::Mem | Ty::Io))
        .collect();
    let mut inits = body_args.clone();
    for &k in &value_results {
        let t = g.ty(results[k]);
        inits.push(undef(g, body, t));
    }
    let theta = g.add_theta(body, &inits);
    let tb = g.theta_body(theta);
    let targs: Vec<Origin> = g.arg_origins(tb).collect();
    let mut map: FxHashMap<Origin, Origin> = body_args.iter().copied().zip(targs).collect();
    g.copy_nodes(&order, tb, &mut map);
    let m = g.add_simple(
        tb,
        Op::Match {
            cases: vec![(1, 1)].into_boxed_slice(),
            default: 0,
            alts: 2,
        },
        &[map[&go_on]],
        &[Ty::Ctl(2)],
    );
    g.set_theta_predicate(theta, Origin::Out(m, 0));
    let mut next_values = next.iter();
    for (i, &t) in arg_tys.iter().enumerate() {
        let next_value = match t {
            Ty::Mem | Ty::Io => {
                let k = results
                    .iter()
                    .position(|&o| g.ty(o) == t)
                    .expect("a state result");
                map[&results[k]]
            }
            _ => map[next_values.next().expect("one per value parameter")],
        };
        g.set_result(tb, i + 1, next_value);
    }
    for (j, &k) in value_results.iter().enumerate() {
        g.set_result(tb, body_args.len() + 1 + j, map[&results[k]]);
    }
    // the λ returns what the θ gives
    for (k, &o) in results.iter().enumerate() {
        let out = match g.ty(o) {
            t @ (Ty::Mem | Ty::Io) => {
                let i = arg_tys
                    .iter()
                    .position(|&a| a == t)
                    .expect("a state argument");
                Origin::Out(theta, i as u32)
            }
            _ => {
                let j = value_results
                    .iter()
                    .position(|&v| v == k)
                    .expect("a value result");
                Origin::Out(theta, (body_args.len() + j) as u32)
            }
        };
        g.set_result(body, k, out);
    }
    for &n in order.iter().rev() {
        g.remove_node(n);
    }
}
