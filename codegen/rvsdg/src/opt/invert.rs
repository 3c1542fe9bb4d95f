//! θ-γ inversion (loop rotation; jlm's `tginversion`, Reissmann et al. §5 list it
//! among the RVSDG's loop transformations): a θ whose body tests first and then either
//! runs the loop's work and repeats, or exits,
//!
//! ```text
//! θ (v) { w = pre(v); γ(test(w)) { work(v, w) → v', repeat | exit(v, w) → v'', stop } }
//! ```
//!
//! which is what restructuring makes of every `while` and `for` loop (the test is at
//! the head of the CFG's loop, the θ is tail-controlled), becomes a test before the
//! loop and a loop whose body is the work followed by the next test:
//!
//! ```text
//! w0 = pre(v0)
//! γ(test(w0)) { θ (v, w) { v' = work(v, w); w' = pre(v'); repeat while test(w') } | pass }
//! exit(v, w) of what the γ gives
//! ```
//!
//! The loop then runs one branch per iteration (the back edge's) instead of a test at
//! the head, a jump back and a join, its body is one block where the work and the
//! next test can be scheduled together, and the work sits at the top level of the θ's
//! body, where loop-invariant code motion and unrolling see it.
//!
//! **Why it is the same program.** Each iteration of the old θ computes `pre` once and
//! then one arm. The new form computes `pre` once before the loop, and in each
//! iteration the work and then `pre` of the next iteration: the same operations on the
//! same values in the same order, states included (`pre` may load or call). The exit
//! arm's computation runs once, after the loop, on the values of the iteration that
//! exited, as it ran once in the old θ's last iteration; what the old θ's results
//! computed after the γ (`post`, pure nodes only) is computed from the copies.
//!
//! **What is required** (otherwise the θ stays, no counter moves):
//! - the θ's predicate is a `match` of an output of a two-armed γ of its body, which is
//!   a constant in each arm, so that one arm always repeats and the other always exits;
//! - the γ's predicate is a `match` of the body (not a carried control value) and only
//!   the γ reads it;
//! - the nodes after the γ (reading its outputs) are pure simple nodes;
//! - what `pre` gives to the γ, to those nodes or to the θ's results is not a control
//!   value (it is carried as a loop variable; the test's operand is carried instead and
//!   the `match` made again);
//! - `pre` and `post` together are at most [`MAX_COPIED`] nodes: they exist twice
//!   afterwards (before the loop and in it).
//!
//! Counters: `invert.loops` (θs inverted), `invert.declined-size`.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::graph::{Node, NodeKind, Origin, Region, User};
use crate::ops::{Op, Rvsdg, Ty};
use crate::report::Report;

/// The most nodes of a θ's body outside its γ (the head's computation and what follows
/// the γ) that inversion copies; they exist twice afterwards.
pub const MAX_COPIED: usize = 48;

/// Inverts every θ of `g` that has the shape (innermost first).
pub fn invert_loops(g: &mut Rvsdg, report: &mut Report) {
    let mut counts = Counts::default();
    for l in g.lambdas() {
        let body = g.lambda_body(l);
        region(g, body, &mut counts);
    }
    report.count("invert.loops", counts.inverted as u64);
    report.count("invert.declined-size", counts.declined_size as u64);
}

#[derive(Default)]
struct Counts {
    inverted: usize,
    declined_size: usize,
}

/// Inverts the θs below `r`, innermost first.
fn region(g: &mut Rvsdg, r: Region, counts: &mut Counts) {
    for n in g.topological_order(r) {
        for s in g.kind(n).subregions().to_vec() {
            region(g, s, counts);
        }
        if matches!(g.kind(n), NodeKind::Theta { .. }) {
            match shape(g, n) {
                Some(s) if s.copied > MAX_COPIED => counts.declined_size += 1,
                Some(s) => {
                    invert(g, n, &s);
                    counts.inverted += 1;
                }
                None => {}
            }
        }
    }
}

/// What a θ that can be inverted is made of.
struct Shape {
    /// The body's γ.
    gamma: Node,
    /// Its arm that repeats and its arm that exits.
    repeat_arm: usize,
    exit_arm: usize,
    /// The body's nodes before the γ (not reading it), producers first.
    pre: Vec<Node>,
    /// The body's nodes reading the γ's outputs, producers first.
    post: Vec<Node>,
    /// The outputs of `pre` that the γ, `post` or the body's results read, and the
    /// test's operand: what the new θ carries beside the old loop variables.
    carried: Vec<Origin>,
    /// The γ's predicate: `test`, a `match` of `selector`.
    test: Node,
    selector: Origin,
    /// Nodes that exist twice afterwards.
    copied: usize,
}

/// The alternative that `match` node `m` selects for `value`.
fn select(g: &Rvsdg, m: Node, value: u128) -> Option<u32> {
    match g.op(m)? {
        Op::Match { cases, default, .. } => Some(
            cases
                .iter()
                .find(|&&(v, _)| v == value)
                .map_or(*default, |&(_, a)| a),
        ),
        _ => None,
    }
}

/// The bits of constant `o`, if an integer constant node makes it.
fn constant_bits(g: &Rvsdg, o: Origin) -> Option<u128> {
    let n = g.producer(o)?;
    match g.op(n)? {
        Op::Inst(vliw_ir::InstructionData::UnaryImm {
            opcode: vliw_ir::Opcode::Iconst,
            imm,
        }) if g.inputs(n).is_empty() => Some(*imm),
        _ => None,
    }
}

/// The shape of θ `theta` if it can be inverted.
fn shape(g: &Rvsdg, theta: Node) -> Option<Shape> {
    let body = g.theta_body(theta);
    // the θ's predicate: a match of an output of a γ of the body
    let repeat = g.producer(g.results(body)[0])?;
    if !matches!(g.op(repeat)?, Op::Match { alts: 2, .. }) {
        return None;
    }
    let Origin::Out(gamma, k) = g.input(repeat, 0) else {
        return None;
    };
    let NodeKind::Gamma { arms } = g.kind(gamma) else {
        return None;
    };
    if g.node(gamma).region != body || arms.len() != 2 {
        return None;
    }
    // one arm repeats, the other exits, whatever the values
    let mut repeats = [false; 2];
    for (a, &arm) in arms.iter().enumerate() {
        // a constant of the arm, or one that enters it
        let value = match g.results(arm)[k as usize] {
            Origin::Arg(_, j) => g.input(gamma, j as usize + 1),
            o => o,
        };
        let bits = constant_bits(g, value)?;
        repeats[a] = select(g, repeat, bits)? == 1;
    }
    let (repeat_arm, exit_arm) = match repeats {
        [true, false] => (0, 1),
        [false, true] => (1, 0),
        _ => return None,
    };
    // the γ's test: a match of the body, read by the γ alone
    let predicate = g.input(gamma, 0);
    let test = g.producer(predicate)?;
    if !matches!(g.op(test)?, Op::Match { .. }) || g.users(predicate).len() != 1 {
        return None;
    }
    let selector = g.input(test, 0);
    // before and after the γ
    let mut after: FxHashSet<Node> = FxHashSet::default();
    let (mut pre, mut post) = (Vec::new(), Vec::new());
    for n in g.topological_order(body) {
        if n == gamma {
            continue;
        }
        let reads_after = g.inputs(n).iter().any(|&o| match o {
            Origin::Out(p, _) => p == gamma || after.contains(&p),
            Origin::Arg(..) => false,
        });
        if reads_after {
            let pure = g.op(n).is_some_and(|op| op.is_pure());
            if !pure {
                return None;
            }
            after.insert(n);
            post.push(n);
        } else {
            pre.push(n);
        }
    }
    // what `pre` gives to the rest
    let pre_set: FxHashSet<Node> = pre.iter().copied().collect();
    let mut carried = Vec::new();
    for &n in &pre {
        for o in g.outputs(n) {
            if o == predicate {
                continue;
            }
            let read_later = g.users(o).iter().any(|&u| match u {
                User::In(m, _) => m == gamma || after.contains(&m),
                User::Res(..) => true,
            });
            let is_selector = o == selector;
            if read_later || is_selector {
                if matches!(g.ty(o), Ty::Ctl(_)) {
                    return None;
                }
                carried.push(o);
            }
        }
    }
    debug_assert!(match selector {
        Origin::Out(p, _) => pre_set.contains(&p),
        Origin::Arg(..) => true,
    });
    let copied = pre.iter().map(|&n| g.count_nodes_inside(n)).sum::<usize>() + post.len();
    Some(Shape {
        gamma,
        repeat_arm,
        exit_arm,
        pre,
        post,
        carried,
        test,
        selector,
        copied,
    })
}

/// Inverts θ `theta` of shape `s`.
fn invert(g: &mut Rvsdg, theta: Node, s: &Shape) {
    let body = g.theta_body(theta);
    let outer = g.node(theta).region;
    let loc = g.node(theta).loc;
    let gamma_loc = g.node(s.gamma).loc;
    let inits = g.inputs(theta).to_vec();
    let vars: Vec<Origin> = g.arg_origins(body).collect();
    let next: Vec<Origin> = g.results(body)[1..].to_vec();
    let gamma_entries = g.inputs(s.gamma)[1..].to_vec();
    let arms = g.kind(s.gamma).subregions().to_vec();
    // What the new θ carries from one iteration to the next: the old loop variables
    // that the γ, `post` or the results read (one that only `pre` reads is consumed
    // by the next test and need not be carried; a state must not be, or it would have
    // two users), and what `pre` gives them.
    let pre: FxHashSet<Node> = s.pre.iter().copied().collect();
    let read_by_pre_only = |g: &Rvsdg, o: Origin| {
        g.has_users(o)
            && g.users(o).iter().all(|&u| match u {
                User::In(m, _) => pre.contains(&m),
                User::Res(..) => false,
            })
    };
    let loop_vars: Vec<usize> = (0..vars.len())
        .filter(|&i| !read_by_pre_only(g, vars[i]))
        .collect();
    let carried: Vec<Origin> = loop_vars
        .iter()
        .map(|&i| vars[i])
        .chain(s.carried.iter().copied())
        .collect();

    // the first test, before the loop
    let mut before: FxHashMap<Origin, Origin> =
        vars.iter().copied().zip(inits.iter().copied()).collect();
    g.copy_nodes(&s.pre, outer, &mut before);
    let first_test = before[&Origin::Out(s.test, 0)];
    let entries: Vec<Origin> = carried.iter().map(|o| before[o]).collect();
    let new_gamma = g.add_gamma(outer, first_test, &entries, 2);
    g.set_loc(new_gamma, gamma_loc);
    let new_arms = g.kind(new_gamma).subregions().to_vec();

    // the loop, in the repeating arm: the work, then the next test
    let arm_args: Vec<Origin> = g.arg_origins(new_arms[s.repeat_arm]).collect();
    let new_theta = g.add_theta(new_arms[s.repeat_arm], &arm_args);
    g.set_loc(new_theta, loc);
    let new_body = g.theta_body(new_theta);
    let loop_args: Vec<Origin> = g.arg_origins(new_body).collect();
    let mut in_loop: FxHashMap<Origin, Origin> = carried
        .iter()
        .copied()
        .zip(loop_args.iter().copied())
        .collect();
    let work_args: Vec<Origin> = gamma_entries.iter().map(|o| in_loop[o]).collect();
    let work = g.copy_region(arms[s.repeat_arm], new_body, &work_args);
    in_loop.extend(g.outputs(s.gamma).zip(work));
    g.copy_nodes(&s.post, new_body, &mut in_loop);
    let next_vars: Vec<Origin> = next.iter().map(|o| in_loop[o]).collect();
    let mut next_head: FxHashMap<Origin, Origin> = vars
        .iter()
        .copied()
        .zip(next_vars.iter().copied())
        .collect();
    g.copy_nodes(&s.pre, new_body, &mut next_head);
    let next_selector = next_head[&s.selector];
    let repeat_op = repeat_match(g, s.test, s.repeat_arm as u32);
    let repeat = g.add_simple(new_body, repeat_op, &[next_selector], &[Ty::Ctl(2)]);
    g.set_loc(repeat, gamma_loc);
    g.set_theta_predicate(new_theta, Origin::Out(repeat, 0));
    for (j, o) in carried.iter().enumerate() {
        let o = next_head[o];
        g.set_result(new_body, 1 + j, o);
    }

    // the γ's exits: the loop's results, or what came in when it did not run
    let exit_args: Vec<Origin> = g.arg_origins(new_arms[s.exit_arm]).collect();
    let mut after: FxHashMap<Origin, Origin> = FxHashMap::default();
    for (j, &o) in carried.iter().enumerate() {
        let mut per_arm = [Origin::Out(new_theta, j as u32); 2];
        per_arm[s.exit_arm] = exit_args[j];
        after.insert(o, g.add_gamma_exit(new_gamma, &per_arm));
    }

    // the exit arm's computation once, on the values of the iteration that exits
    let exit_args: Vec<Origin> = gamma_entries.iter().map(|o| after[o]).collect();
    let exited = g.copy_region(arms[s.exit_arm], outer, &exit_args);
    after.extend(g.outputs(s.gamma).zip(exited));
    g.copy_nodes(&s.post, outer, &mut after);
    for (i, o) in next.iter().enumerate() {
        g.divert_users(Origin::Out(theta, i as u32), after[o]);
    }
    g.remove_node(theta);
}

/// A `match` like `test` that selects 1 (repeat) where `test` selects arm `repeat_arm`,
/// else 0 (exit).
fn repeat_match(g: &Rvsdg, test: Node, repeat_arm: u32) -> Op {
    let Some(Op::Match { cases, default, .. }) = g.op(test) else {
        unreachable!("{test}: the shape's test is a match")
    };
    let alt = |a: u32| u32::from(a == repeat_arm);
    Op::Match {
        cases: cases.iter().map(|&(v, a)| (v, alt(a))).collect(),
        default: alt(*default),
        alts: 2,
    }
}
