//! Unroll-and-jam of while loops: a counted loop whose body runs one inner loop with a
//! data-dependent trip count (a pixel's escape-time iteration, a Newton step until
//! convergence) is unrolled by `lanes`, and the copies of the inner loop become one
//! loop that runs them side by side, each lane under its own activity flag, until
//! every lane is done. The inner loop's recurrence (`mandelbrot`: a multiplication
//! and two additions, 12 cycles, for a dozen operations) leaves most of a 4-wide
//! bundle empty; two independent recurrences fill it. This is outer-loop
//! vectorization with masks (what ISPC or LLVM's VPlan do for SIMD lanes) done for
//! the slots of a VLIW: the lanes are scalar, the masks are predicates.
//!
//! **Candidates.** A θ `O` whose body holds exactly one θ `I` (at its top level, and
//! no other θ below it) where
//! - `O` is counted (`unroll::counted`) and has no sink: `unroll_by` unrolls it;
//! - `I`'s body is pure once its γs are speculated (`select::flattenable`: simple
//!   nodes that cannot trap or touch a state but plain loads, γs of two arms), and its
//!   states pass through unchanged or only loads read them: running `I`'s body once
//!   more on a lane that is done computes values nobody reads and has no effect, its
//!   loads made speculative (`MemFlags::speculative`: 0 where they would trap; a done
//!   lane's pointer may be null);
//! - a state that `I`'s loads read is only read in the rest of `O`'s body too
//!   (`outer_reads_only`: loads, and γs and θs that only load): the lanes read it
//!   before what lies between the copies in the unrolled loop, which must not write
//!   it (`tree`'s lookups over a tree that the loop does not change);
//! - `I`'s body has at most [`BODY_BUDGET`] nodes (each lane costs its body again);
//! - `I` is not counted: `rvsdg-unroll` unrolls a counted inner loop, completely when
//!   its trip count is small, which a lane's loop test would hide.
//!
//! **Transformation.**
//! 1. `I`'s γs become selects (`select::flatten`): a lane must not branch. Loads in
//!    their arms run unconditionally, speculative, one arm's after the other's.
//! 2. `I`'s states that pass through go round it: their users read what went in. A
//!    copy of `I` then depends on another only through values and the states it
//!    reads.
//! 3. `O` is unrolled by `lanes` (`unroll::unroll_by`): θ_main's body holds `lanes`
//!    copies of `I`, the original `O` runs the remaining iterations.
//! 4. On each state the copies read, they become consecutive (`gather_reads`): what
//!    lies between them only reads it, so the nodes a later copy's values need go
//!    first, then the copies, then the rest.
//! 5. The copies, when none reads what another computes (in θ_main's body), become
//!    one θ `F` with each copy's value variables, a flag `active_j` per lane
//!    (initially true) and the states they read. `F`'s body has every copy's body,
//!    every load speculative, the lanes' loads one lane after the other on the state;
//!    lane `j`'s variables take their next values when `active_j` holds and keep
//!    theirs otherwise; `active_j` becomes `active_j & repeat_j` (`repeat_j` the
//!    copy's own test), and `F` repeats while some lane is active.
//!
//! **Semantics kept.** Lane `j`'s variables change exactly when `active_j` holds at the
//! start of an iteration, to the copy's next values; `active_j` starts true (a θ runs
//! at least once) and stays true exactly while the copy's test says repeat. So lane
//! `j` goes through the values of its copy's iterations, in order, and keeps the last
//! once its copy would stop; `F` stops when every copy would have. A copy running
//! ahead of or behind another changes nothing: their bodies only read, nothing
//! between them writes what they read, and neither reads the other's values. If a
//! copy never stops, neither does `F` (nor the original, which would never reach what
//! comes after). Extra iterations of a done lane compute values that the selects
//! discard, its loads speculative where the original would not have loaded.
//!
//! **Termination.** The lanes start the next outer iterations' inner loops before
//! this iteration's code after its inner loop runs. If that code may stop the
//! program or never return (it takes the I/O state: a call, a check's panic, a
//! trap), and a later inner loop never ended, the original would have stopped where
//! the lanes hang. Then the inner loop must certainly end: its test implies a compare
//! `iv <u b` (or `iv + 1 <u b`, signed too) of a variable growing by one to an
//! invariant bound (`terminates`, after the body is flattened and folded;
//! `mandelbrot`'s `n < max_iter`), or the loop is left, flattened
//! (`jam.declined-termination`).
//!
//! Counters: `jam.loops` (inner loops whose copies became one), `jam.declined-shape`
//! (an outer loop with one inner loop that is not pure or too large),
//! `jam.declined-outer` (the outer loop could not be unrolled),
//! `jam.declined-termination` (above).

use rustc_hash::{FxHashMap, FxHashSet};
use vliw_ir::{Opcode, Type};

use super::rewrite::Rewriter;
use super::unroll::{binary, iconst, match2_alternatives, predicate, select, unary, unroll_by};
use crate::graph::{Node, NodeKind, Origin, Region};
use crate::ops::{Op, Rvsdg, Ty};
use crate::report::Report;

/// The most lanes `auto` chooses (`rvsdg-jam-lanes`).
pub const MAX_LANES: usize = 4;

/// Operations the machine issues per bundle: what `auto` fills.
const ISSUE_WIDTH: u32 = 4;

/// The most nodes the inner loop's body may have.
pub const BODY_BUDGET: usize = 64;

/// Jams the while loops of every λ of `g` into `lanes` lanes, or as many as fill
/// the bundles of the inner loop's critical path (`None`, [`auto_lanes`]); inner
/// loops that load too when `loads` (`rvsdg-jam-loads`) (module documentation).
pub fn jam_loops(g: &mut Rvsdg, lanes: Option<usize>, loads: bool, report: &mut Report) {
    if lanes.is_some_and(|l| l < 2) {
        return;
    }
    let mut counts = Counts::default();
    let mut changed: Vec<Node> = Vec::new();
    for (outer, inner) in candidates(g) {
        if g.is_alive(outer) && g.is_alive(inner) {
            let lambda = g.enclosing_lambda(g.node(outer).region);
            if jam(g, outer, inner, lanes, loads, &mut counts) {
                changed.extend(lambda);
            }
        }
    }
    // the selects of the flattened bodies (`select(c, false, true)` is `!c`), and
    // the lanes' tests
    changed.sort_unstable();
    changed.dedup();
    super::fold::fold_lambdas(g, &changed, &mut Report::default());
    report.count("jam.loops", counts.loops);
    report.count("jam.declined-shape", counts.declined_shape);
    report.count("jam.declined-outer", counts.declined_outer);
    report.count("jam.declined-termination", counts.declined_termination);
}

#[derive(Default)]
struct Counts {
    loops: u64,
    declined_shape: u64,
    declined_outer: u64,
    declined_termination: u64,
}

/// The θs whose body's only θ is one at its top level, with that θ, found before
/// anything changes.
fn candidates(g: &Rvsdg) -> Vec<(Node, Node)> {
    super::unroll::thetas_with_inner(g)
        .into_iter()
        .filter_map(|(n, thetas)| match thetas[..] {
            [inner] if g.node(inner).region == g.theta_body(n) => Some((n, inner)),
            _ => None,
        })
        .collect()
}

/// Jams `inner`'s copies in `outer` unrolled by `lanes`, when they qualify; whether
/// anything changed.
fn jam(
    g: &mut Rvsdg,
    outer: Node,
    inner: Node,
    lanes: Option<usize>,
    loads: bool,
    counts: &mut Counts,
) -> bool {
    let body = g.theta_body(inner);
    // each state passes through, or only loads read it, in the inner loop and in
    // everything else the outer loop does
    let states_ok = (0..g.num_outputs(inner)).all(|i| {
        let arg = Origin::Arg(body, i as u32);
        !g.ty(arg).is_state()
            || passes_through(g, body, i)
            || (loads
                && g.ty(arg) == Ty::Mem
                && reads_only(g, arg, g.results(body)[1 + i])
                && outer_reads_only(g, outer, inner, i))
    });
    let qualifies = g.count_nodes(body) <= BODY_BUDGET
        && super::unroll::counted(g, inner).is_none()
        && super::unroll::counted_until(g, inner).is_none()
        && super::select::flattenable(g, body, loads)
        && repeat_test(g, body).is_some()
        && states_ok;
    if !qualifies || carried_through(g, outer, inner) {
        counts.declined_shape += 1;
        return false;
    }
    if !super::unroll::unrollable_by(g, outer, lanes.unwrap_or(2)) {
        counts.declined_outer += 1;
        return false;
    }
    let flat = super::select::flatten(g, body, loads);
    debug_assert!(flat && pure_body(g, inner), "checked by flattenable");
    if may_stop(g, outer, inner) {
        // the flattened test, folded, shows whether the inner loop certainly ends
        if let Some(l) = g.enclosing_lambda(body) {
            super::fold::fold_lambdas(g, &[l], &mut Report::default());
        }
        if !g.is_alive(outer) || !g.is_alive(inner) || !terminates(g, body) {
            counts.declined_termination += 1;
            return true;
        }
    }
    // the states that pass through: their users read what went in, and the θ has
    // none (those its loads read stay)
    let states: Vec<usize> = (0..g.num_outputs(inner))
        .filter(|&i| {
            g.ty(Origin::Out(inner, i as u32)).is_state()
                && g.results(body)[1 + i] == Origin::Arg(body, i as u32)
        })
        .collect();
    for &i in &states {
        let init = g.input(inner, i);
        g.divert_users(Origin::Out(inner, i as u32), init);
    }
    g.remove_theta_vars(inner, |i| states.contains(&i));
    // as many lanes as the outer loop allows, down to the 2 checked above
    let mut lanes = lanes.unwrap_or_else(|| auto_lanes(g, body));
    while lanes > 2 && !super::unroll::unrollable_by(g, outer, lanes) {
        lanes -= 1;
    }
    let main = unroll_by(g, outer, lanes).expect("unrollable_by said so");
    let mb = g.theta_body(main);
    let mut copies: Vec<Node> = g
        .nodes(mb)
        .iter()
        .copied()
        .filter(|&n| matches!(g.kind(n), NodeKind::Theta { .. }))
        .collect();
    order_on_chains(g, &mut copies);
    if copies.len() != lanes || !gather_reads(g, &copies) || !independent(g, &copies) {
        counts.declined_shape += 1;
        return true;
    }
    fuse_lanes(g, &copies);
    counts.loops += 1;
    true
}

/// Whether one iteration of `outer` gives the next what `inner` computes: some value
/// `inner` reads depends, within `outer`'s body and over any number of iterations,
/// on `inner`'s values (its own states do not count: `jam` takes them round it). The
/// copies of `inner` in the unrolled loop would then depend on each other.
fn carried_through(g: &Rvsdg, outer: Node, inner: Node) -> bool {
    let body = g.theta_body(outer);
    // everything reached from `inner`'s values (through memory too: a store of them
    // and a later load), and from the arguments of the loop variables they reach
    let mut tainted: FxHashSet<Origin> = FxHashSet::default();
    let mut work: Vec<Origin> = g.outputs(inner).filter(|&o| !g.ty(o).is_state()).collect();
    while let Some(o) = work.pop() {
        if !tainted.insert(o) {
            continue;
        }
        for &u in g.users(o) {
            match u {
                // what only reads memory passes nothing on through it
                crate::graph::User::In(m, _) if only_reads(g, m) => {
                    work.extend(g.outputs(m).filter(|&o| !g.ty(o).is_state()));
                }
                crate::graph::User::In(m, _) => work.extend(g.outputs(m)),
                crate::graph::User::Res(r, i) if r == body && i > 0 => {
                    work.push(Origin::Arg(body, i - 1));
                }
                crate::graph::User::Res(..) => {}
            }
        }
    }
    g.inputs(inner)
        .iter()
        .any(|&o| !g.ty(o).is_state() && tainted.contains(&o))
}

/// Whether node `n` writes no memory and has no effect: pure operations and plain
/// loads, and structures of only those.
fn only_reads(g: &Rvsdg, n: Node) -> bool {
    match g.kind(n) {
        NodeKind::Simple(op) => op.is_pure() || op.is_plain_load(),
        kind => kind
            .subregions()
            .iter()
            .all(|&r| g.nodes(r).iter().all(|&m| only_reads(g, m))),
    }
}

/// Whether something in `outer`'s body besides `inner` may stop the program or never
/// return (it takes the I/O state: a call, a trap, a check's panic, a division that
/// may trap). The original runs the next iteration's inner loop only after it; the
/// lanes run it beside this one's, so if that inner loop never ended, the program
/// would hang where it stopped.
fn may_stop(g: &Rvsdg, outer: Node, inner: Node) -> bool {
    let inside: FxHashSet<Region> = g.regions_below(g.theta_body(inner)).into_iter().collect();
    g.regions_below(g.theta_body(outer))
        .into_iter()
        .filter(|r| !inside.contains(r))
        .any(|r| {
            g.nodes(r).iter().any(|&n| {
                n != inner
                    && !g.kind(n).is_structural()
                    && g.inputs(n).iter().any(|&o| g.ty(o) == Ty::Io)
            })
        })
}

/// Whether the θ with body `body` certainly ends: it repeats only while a compare
/// `iv + 1 <(u|s) b` holds, `iv + 1` being a loop variable's next value and `b`
/// invariant (`mandelbrot`'s `n < max_iter` beside its escape test), through `band`s
/// and γs whose arms for a false compare give false.
fn terminates(g: &Rvsdg, body: Region) -> bool {
    let Some((tested, true)) = repeat_test(g, body) else {
        return false;
    };
    g.nodes(body)
        .iter()
        .filter(|&&n| counts_to_bound(g, body, n))
        .any(|&c| implies(g, tested, Origin::Out(c, 0), 0))
}

/// Whether node `n` of θ body `body` is `icmp ult|slt x, b` (or swapped), with `x`
/// a loop variable `iv` or its next value, which is `iv + 1`, and `b` invariant or a
/// constant: `iv` grows by one per iteration until the compare fails.
fn counts_to_bound(g: &Rvsdg, body: Region, n: Node) -> bool {
    let Some(Op::Inst(vliw_ir::InstructionData::IntCompare { cond, .. })) = g.op(n) else {
        return false;
    };
    let (next, bound) = match cond {
        vliw_ir::IntCC::Ult | vliw_ir::IntCC::Slt => (g.input(n, 0), g.input(n, 1)),
        vliw_ir::IntCC::Ugt | vliw_ir::IntCC::Sgt => (g.input(n, 1), g.input(n, 0)),
        _ => return false,
    };
    let results = g.results(body);
    let invariant = match bound {
        Origin::Arg(r, p) => r == body && results[1 + p as usize] == bound,
        Origin::Out(m, _) => g.op(m).is_some_and(|op| op.is_constant_like()),
    };
    // `next` itself, or the loop variable whose next value it is
    let increment = match next {
        Origin::Arg(r, i) if r == body => results[1 + i as usize],
        _ => next,
    };
    let Some(add) = g.producer(increment) else {
        return false;
    };
    let Some(Op::Inst(d)) = g.op(add) else {
        return false;
    };
    let by_one = |c: Origin| super::rewrite::const_of(g, c) == Some(1);
    let steps = d.opcode() == Opcode::Iadd
        && match (g.input(add, 0), g.input(add, 1)) {
            (Origin::Arg(r, i), c) | (c, Origin::Arg(r, i)) => {
                r == body && by_one(c) && results[1 + i as usize] == increment
            }
            _ => false,
        };
    invariant && steps
}

/// Whether boolean `o` is true only when boolean `c` is (both of one region, or `c`
/// entering the γs `o` comes out of): `o` is `c`, a `band` with an operand that
/// implies `c`, or an exit of a γ on `c` whose arms for a false `c` give false.
fn implies(g: &Rvsdg, o: Origin, c: Origin, depth: u32) -> bool {
    if o == c {
        return true;
    }
    if depth > 8 {
        return false;
    }
    let Some(n) = g.producer(o) else {
        return false;
    };
    match g.kind(n) {
        NodeKind::Simple(Op::Inst(d)) if d.opcode() == Opcode::Band => {
            implies(g, g.input(n, 0), c, depth + 1) || implies(g, g.input(n, 1), c, depth + 1)
        }
        NodeKind::Gamma { arms } => {
            let Origin::Out(_, k) = o else {
                return false;
            };
            let Some(m) = g.producer(g.input(n, 0)) else {
                return false;
            };
            let Some([on_false, _]) = match2_alternatives(g, m) else {
                return false;
            };
            g.input(m, 0) == c
                && super::rewrite::const_of(g, g.results(arms[on_false as usize])[k as usize])
                    == Some(0)
        }
        _ => false,
    }
}

/// Whether θ body `body`'s state variable `i` passes through: its result is its
/// argument, directly or through γs that pass it from one entry to the exit (their
/// arms directly or through γs of their own: `select::state_source`).
fn passes_through(g: &Rvsdg, body: Region, i: usize) -> bool {
    super::select::state_source(g, g.results(body)[1 + i], false) == Some(i as u32)
}

/// How many lanes fill the bundles that one iteration of the inner loop with body
/// `body` takes anyway: its test's latency (its longest path, then the conjunction
/// with the lane's flag, the disjunction of the lanes and the branch) times the issue
/// width, over what a lane issues (its operations but constants and `match`es, and
/// its flag's update): rounded up, at least 2, at most [`MAX_LANES`]. `mandelbrot`:
/// a test 13 cycles deep, 15 operations a lane, 4 lanes.
pub fn auto_lanes(g: &Rvsdg, body: Region) -> usize {
    let Some((tested, _)) = repeat_test(g, body) else {
        return 2;
    };
    let critical = Depths::default().of(g, tested) + 3;
    let ops = g
        .nodes(body)
        .iter()
        .filter(|&&n| {
            g.op(n)
                .is_some_and(|op| !op.is_constant_like() && !matches!(op, Op::Match { .. }))
        })
        .count() as u32
        + 1;
    ((critical * ISSUE_WIDTH).div_ceil(ops) as usize).clamp(2, MAX_LANES)
}

/// Whether θ `theta`'s body is simple nodes that touch no state but plain loads, its
/// states pass through or only loads read them, and its predicate is a two-way
/// `match` of a boolean.
fn pure_body(g: &Rvsdg, theta: Node) -> bool {
    let body = g.theta_body(theta);
    let simple = g.nodes(body).iter().all(|&n| match g.kind(n) {
        NodeKind::Simple(op) => {
            op.is_plain_load() || (op.is_pure() && g.inputs(n).iter().all(|&o| !g.ty(o).is_state()))
        }
        _ => false,
    });
    let states_pass = (0..g.num_outputs(theta)).all(|i| {
        let arg = Origin::Arg(body, i as u32);
        !g.ty(arg).is_state() || reads_only(g, arg, g.results(body)[1 + i])
    });
    simple && states_pass && repeat_test(g, body).is_some()
}

/// Whether state `last` of a region comes from state `first` of it through nodes
/// that only read it: plain loads, γs whose arms only read it, θs whose bodies only
/// read it (`first == last`: nothing touches it).
fn reads_only(g: &Rvsdg, first: Origin, last: Origin) -> bool {
    let mut o = first;
    loop {
        if o == last {
            return true;
        }
        match chain_step(g, o) {
            Some(Step {
                node,
                input,
                output,
            }) if reading(g, node, input, output) => o = output,
            _ => return false,
        }
    }
}

/// One node of a chain of a state: `node` reads the state at `input` and gives it on
/// at `output`.
#[derive(Copy, Clone)]
struct Step {
    node: Node,
    input: usize,
    output: Origin,
}

/// The node that state `o` goes into next, if it is a load, a γ or a θ that gives
/// the state back (a γ: the exit whose arms' results come from the entry's argument
/// through their own chains).
fn chain_step(g: &Rvsdg, o: Origin) -> Option<Step> {
    let [crate::graph::User::In(node, input)] = g.users(o)[..] else {
        return None;
    };
    let input = input as usize;
    let output = match g.kind(node) {
        NodeKind::Simple(op) if op.is_plain_load() && input == 1 => Origin::Out(node, 1),
        NodeKind::Theta { .. } => Origin::Out(node, input as u32),
        NodeKind::Gamma { arms } if input > 0 => {
            let entry = (input - 1) as u32;
            let k = (0..g.num_outputs(node)).find(|&k| {
                arms.iter()
                    .all(|&a| chain_end(g, Origin::Arg(a, entry)) == Some(g.results(a)[k]))
            })?;
            Origin::Out(node, k as u32)
        }
        _ => return None,
    };
    Some(Step {
        node,
        input,
        output,
    })
}

/// Where the chain of state `o` of a region ends: the origin a result reads.
fn chain_end(g: &Rvsdg, mut o: Origin) -> Option<Origin> {
    loop {
        match g.users(o) {
            [crate::graph::User::Res(..)] => return Some(o),
            _ => o = chain_step(g, o)?.output,
        }
    }
}

/// Whether `node`, on a chain of a state from `input` to `output`, only reads it.
fn reading(g: &Rvsdg, node: Node, input: usize, output: Origin) -> bool {
    let Origin::Out(_, k) = output else {
        return false;
    };
    match g.kind(node) {
        NodeKind::Simple(op) => op.is_plain_load(),
        NodeKind::Gamma { arms } => arms.iter().all(|&a| {
            reads_only(
                g,
                Origin::Arg(a, input as u32 - 1),
                g.results(a)[k as usize],
            )
        }),
        NodeKind::Theta { .. } => {
            let b = g.theta_body(node);
            reads_only(g, Origin::Arg(b, input as u32), g.results(b)[1 + input])
        }
        _ => false,
    }
}

/// Whether everything in `outer`'s body but `inner` only reads the state `inner`
/// takes as its variable `i`: the lanes read it before what comes between the
/// copies of `inner` in the unrolled loop, which must then not write it.
fn outer_reads_only(g: &Rvsdg, outer: Node, inner: Node, i: usize) -> bool {
    let body = g.theta_body(outer);
    // the chain from the body's argument to its result, through `inner`
    let mut o = g.input(inner, i);
    let start = loop {
        match o {
            Origin::Arg(r, _) if r == body => break o,
            Origin::Out(n, k) => {
                let Some(step) = (0..g.inputs(n).len())
                    .filter_map(|p| chain_step(g, g.input(n, p)))
                    .find(|s| s.node == n && s.output == Origin::Out(n, k))
                else {
                    return false;
                };
                o = g.input(n, step.input);
            }
            Origin::Arg(..) => return false,
        }
    };
    let Origin::Arg(_, v) = start else {
        return false;
    };
    let mut o = start;
    let last = g.results(body)[1 + v as usize];
    let mut through_inner = false;
    while o != last {
        let Some(step) = chain_step(g, o) else {
            return false;
        };
        if step.node == inner {
            through_inner = true;
        } else if !reading(g, step.node, step.input, step.output) {
            return false;
        }
        o = step.output;
    }
    through_inner
}

/// Sorts the copies of the inner loop by their order on the chain of a state they
/// read (the first reaches the others), if any.
fn order_on_chains(g: &Rvsdg, copies: &mut [Node]) {
    let Some(i) = (0..g.inputs(copies[0]).len()).find(|&i| g.ty(g.input(copies[0], i)).is_state())
    else {
        return;
    };
    let set: FxHashSet<Node> = copies.iter().copied().collect();
    let reached = |c: Node| {
        let mut o = Origin::Out(c, i as u32);
        let mut n = 0;
        while let Some(step) = chain_step(g, o) {
            n += usize::from(set.contains(&step.node));
            o = step.output;
        }
        n
    };
    copies.sort_by_key(|&c| std::cmp::Reverse(reached(c)));
}

/// Makes the copies of the inner loop (`copies`, in order) consecutive on each chain
/// of a state they read in θ_main's body: what lies between the first and the
/// last only reads it (`outer_reads_only`), so the reads may run in any order. The
/// nodes whose values a later copy reads go first, then the copies, then the rest.
/// `false` (nothing changed) when a copy reads no chain of the body's or a later one
/// reads, by value, what an earlier one or the nodes after it compute.
fn gather_reads(g: &mut Rvsdg, copies: &[Node]) -> bool {
    let set: FxHashSet<Node> = copies.iter().copied().collect();
    let states: Vec<usize> = (0..g.inputs(copies[0]).len())
        .filter(|&i| {
            let b = g.theta_body(copies[0]);
            g.ty(Origin::Arg(b, i as u32)).is_state()
                && g.results(b)[1 + i] != Origin::Arg(b, i as u32)
        })
        .collect();
    for &i in &states {
        // forward from the start of the copies to the last one
        let entry = g.input(copies[0], i);
        let mut steps: Vec<Step> = Vec::new();
        let mut o = entry;
        loop {
            let Some(step) = chain_step(g, o) else {
                return false;
            };
            steps.push(step);
            o = step.output;
            if step.node == *copies.last().expect("lanes") {
                break;
            }
        }
        if steps.iter().filter(|s| set.contains(&s.node)).count() != copies.len() {
            return false;
        }
        // the nodes of the segment that the copies read by value, through anything
        let segment: FxHashSet<Node> = steps.iter().map(|s| s.node).collect();
        let mut needed: FxHashSet<Node> = FxHashSet::default();
        let mut work: Vec<Node> = Vec::new();
        for &c in copies {
            for (p, &o) in g.inputs(c).iter().enumerate() {
                if p != i
                    && let Some(n) = g.producer(o)
                {
                    work.push(n);
                }
            }
        }
        while let Some(n) = work.pop() {
            if set.contains(&n) {
                return false; // a copy reads what another computes
            }
            if !needed.insert(n) {
                continue;
            }
            for (p, &o) in g.inputs(n).iter().enumerate() {
                let on_chain =
                    segment.contains(&n) && steps.iter().any(|s| s.node == n && s.input == p);
                if !on_chain && let Some(m) = g.producer(o) {
                    work.push(m);
                }
            }
        }
        let order: Vec<Step> = steps
            .iter()
            .filter(|s| !set.contains(&s.node) && needed.contains(&s.node))
            .chain(steps.iter().filter(|s| set.contains(&s.node)))
            .chain(
                steps
                    .iter()
                    .filter(|s| !set.contains(&s.node) && !needed.contains(&s.node)),
            )
            .copied()
            .collect();
        let after = g.users(steps.last().expect("the copies").output)[0];
        let mut prev = entry;
        for s in &order {
            g.set_input(s.node, s.input, prev);
            prev = s.output;
        }
        g.set_origin(after, prev);
    }
    true
}

/// The boolean a θ body's predicate tests and whether `true` means repeat.
fn repeat_test(g: &Rvsdg, body: Region) -> Option<(Origin, bool)> {
    let m = g.producer(g.results(body)[0])?;
    let [on_false, on_true] = match2_alternatives(g, m)?;
    let tested = g.input(m, 0);
    (g.ty(tested).value() == Some(Type::I1) && on_false != on_true)
        .then_some((tested, on_true == 1))
}

/// Whether none of `thetas` (siblings) reads, through the nodes of their region,
/// what another computes (but the states they read one after the other).
fn independent(g: &Rvsdg, thetas: &[Node]) -> bool {
    let set: FxHashSet<Node> = thetas.iter().copied().collect();
    for &t in thetas {
        let mut seen: FxHashSet<Node> = FxHashSet::default();
        // (a copy reads a state from the one before it: `gather_reads` chained them)
        let mut work: Vec<Node> = g
            .inputs(t)
            .iter()
            .filter(|&&o| !g.ty(o).is_state())
            .filter_map(|&o| g.producer(o))
            .collect();
        while let Some(n) = work.pop() {
            if !seen.insert(n) {
                continue;
            }
            if set.contains(&n) {
                return false;
            }
            work.extend(g.inputs(n).iter().filter_map(|&o| g.producer(o)));
        }
    }
    true
}

/// Replaces the sibling θs `copies` (pure bodies, independent) by one θ running them
/// as lanes (module documentation, step 4).
fn fuse_lanes(g: &mut Rvsdg, copies: &[Node]) {
    let r = g.node(copies[0]).region;
    let loc = g.node(copies[0]).loc;
    let lanes: Vec<Lane> = copies.iter().map(|&t| Lane::of(g, t)).collect();
    // F's variables: every lane's values, then every lane's kept values, then the flags
    let mut inits: Vec<Origin> = Vec::new();
    let mut first = Vec::with_capacity(lanes.len());
    for (lane, &t) in lanes.iter().zip(copies) {
        first.push(inits.len());
        inits.extend(lane.vars.iter().map(|&i| g.input(t, i)));
    }
    let mut first_kept = Vec::with_capacity(lanes.len());
    for (lane, &t) in lanes.iter().zip(copies) {
        first_kept.push(inits.len());
        inits.extend(lane.kept.iter().map(|&i| g.input(t, i)));
    }
    let flags = inits.len();
    let yes = iconst(g, r, Type::I1, 1);
    inits.extend(std::iter::repeat_n(yes, lanes.len()));
    // the states the lanes read, from what went into the first copy (`gather_reads`
    // made the copies consecutive on them)
    let first_read = inits.len();
    inits.extend(lanes[0].reads.iter().map(|&i| g.input(copies[0], i)));
    let f = g.add_theta(r, &inits);
    g.set_loc(f, loc);
    let fb = g.theta_body(f);
    let fargs: Vec<Origin> = g.arg_origins(fb).collect();
    // the bodies, node by node in turns (the lanes' independent work close together
    // for the sequentialization, as `unroll::interleaved_copies` does)
    let mut maps: Vec<FxHashMap<Origin, Origin>> = Vec::with_capacity(lanes.len());
    let mut nodes: Vec<FxHashMap<Node, Node>> = vec![FxHashMap::default(); lanes.len()];
    let mut orders: Vec<std::vec::IntoIter<Node>> = Vec::with_capacity(lanes.len());
    for (j, lane) in lanes.iter().enumerate() {
        // every lane's loads first read F's state; they are chained below
        let map: FxHashMap<Origin, Origin> = lane
            .vars
            .iter()
            .enumerate()
            .map(|(k, &i)| (Origin::Arg(lane.body, i as u32), fargs[first[j] + k]))
            .chain(
                lane.reads
                    .iter()
                    .enumerate()
                    .map(|(k, &i)| (Origin::Arg(lane.body, i as u32), fargs[first_read + k])),
            )
            .collect();
        maps.push(map);
        orders.push(g.topological_order(lane.body).into_iter());
    }
    loop {
        let mut any = false;
        for (j, order) in orders.iter_mut().enumerate() {
            let Some(n) = order.next() else {
                continue;
            };
            any = true;
            let inputs: Vec<Origin> = g.inputs(n).iter().map(|o| maps[j][o]).collect();
            let copy = g.copy_node(n, fb, &inputs);
            // a lane runs on after it is done, on values nobody reads: its loads must
            // not trap
            if let NodeKind::Simple(Op::Inst(vliw_ir::InstructionData::Load { flags, .. })) =
                g.kind_mut(copy)
            {
                flags.speculative = true;
            }
            nodes[j].insert(n, copy);
            let outs: Vec<(Origin, Origin)> = g.outputs(n).zip(g.outputs(copy)).collect();
            maps[j].extend(outs);
        }
        if !any {
            break;
        }
    }
    // each read state through the lanes' loads one lane after the other
    for (k, &i) in lanes[0].reads.iter().enumerate() {
        let mut state = fargs[first_read + k];
        for (j, lane) in lanes.iter().enumerate() {
            let arg = Origin::Arg(lane.body, i as u32);
            let last = g.results(lane.body)[1 + i];
            if last == arg {
                continue;
            }
            if let [crate::graph::User::In(m, p)] = g.users(arg)[..] {
                g.set_input(nodes[j][&m], p as usize, state);
            }
            state = maps[j][&last];
        }
        g.set_result(fb, 1 + first_read + k, state);
    }
    let mut depths = Depths::default();
    let mut stills = Vec::with_capacity(lanes.len());
    let mut dead = Vec::new();
    for (j, lane) in lanes.iter().enumerate() {
        let results = g.results(lane.body).to_vec();
        let next = |i: usize| maps[j][&results[1 + i]];
        // the values run free: a done lane's extra iterations are pure and unread
        for (k, &i) in lane.vars.iter().enumerate() {
            g.set_result(fb, 1 + first[j] + k, next(i));
        }
        // what is read after the loop is kept from the lane's last active iteration
        let active = fargs[flags + j];
        for (k, &i) in lane.kept.iter().enumerate() {
            let kept = fargs[first_kept[j] + k];
            let v = select(g, fb, active, next(i), kept);
            g.set_result(fb, 1 + first_kept[j] + k, v);
        }
        // active & repeat, the latest operand last
        let (tested, on_true) = repeat_test(g, lane.body).expect("checked by pure_body");
        let mut repeat = maps[j][&tested];
        if !on_true {
            repeat = unary(g, fb, Opcode::Bnot, repeat, Type::I1);
        }
        let mut terms = vec![active];
        conjuncts(g, repeat, &mut terms);
        let still = chain(g, fb, Opcode::Band, terms, &mut depths);
        g.set_result(fb, 1 + flags + j, still);
        stills.push(still);
        dead.push(maps[j][&results[0]]);
        dead.push(repeat);
    }
    let any = chain(g, fb, Opcode::Bor, stills, &mut depths);
    let p = predicate(g, fb, any);
    g.set_theta_predicate(f, p);
    // what the last copy left of a state read, F leaves
    let last_copy = *copies.last().expect("lanes");
    for (k, &i) in lanes[0].reads.iter().enumerate() {
        g.divert_users(
            Origin::Out(last_copy, i as u32),
            Origin::Out(f, (first_read + k) as u32),
        );
    }
    for (j, (lane, &t)) in lanes.iter().zip(copies).enumerate() {
        for (k, &i) in lane.kept.iter().enumerate() {
            g.divert_users(
                Origin::Out(t, i as u32),
                Origin::Out(f, (first_kept[j] + k) as u32),
            );
        }
        // an invariant's output is its input, which F passes on unchanged
        for (k, &i) in lane.vars.iter().enumerate() {
            g.divert_users(
                Origin::Out(t, i as u32),
                Origin::Out(f, (first[j] + k) as u32),
            );
        }
    }
    // the copies' states went unread (`jam` took them round), their values now come
    // from F
    // (the last first: each reads the state the one before it left)
    let inputs: Vec<Origin> = copies.iter().flat_map(|&t| g.inputs(t).to_vec()).collect();
    for &t in copies.iter().rev() {
        g.remove_node(t);
    }
    let mut rw = Rewriter::new(g);
    for o in dead.into_iter().chain(inputs) {
        if let Some(n) = rw.g.producer(o)
            && rw.g.is_alive(n)
        {
            rw.remove_if_dead(n);
        }
    }
}

/// One copy of the inner loop as a lane of F.
struct Lane {
    body: Region,
    /// Its value variables (the states that pass through went round it).
    vars: Vec<usize>,
    /// The states its loads read (F threads them through every lane's).
    reads: Vec<usize>,
    /// Those that change and are read after the loop: F keeps their value from the
    /// lane's last active iteration.
    kept: Vec<usize>,
}

impl Lane {
    fn of(g: &Rvsdg, t: Node) -> Lane {
        let body = g.theta_body(t);
        let vars: Vec<usize> = (0..g.num_outputs(t))
            .filter(|&i| !g.ty(Origin::Arg(body, i as u32)).is_state())
            .collect();
        let kept = vars
            .iter()
            .copied()
            .filter(|&i| {
                g.results(body)[1 + i] != Origin::Arg(body, i as u32)
                    && g.has_users(Origin::Out(t, i as u32))
            })
            .collect();
        let reads = (0..g.num_outputs(t))
            .filter(|&i| g.ty(Origin::Arg(body, i as u32)).is_state())
            .collect();
        Lane {
            body,
            vars,
            kept,
            reads,
        }
    }
}

/// The operands of the conjunction `o` (through nested `band`s of booleans).
fn conjuncts(g: &Rvsdg, o: Origin, out: &mut Vec<Origin>) {
    if let Some(n) = g.producer(o)
        && let Some(Op::Inst(d)) = g.op(n)
        && d.opcode() == Opcode::Band
    {
        for &a in g.inputs(n) {
            conjuncts(g, a, out);
        }
    } else {
        out.push(o);
    }
}

/// `terms` combined by `opcode` in region `r`, earliest first, so that the latest
/// term meets the others' result in one last operation (a lane's escape test is the
/// end of its longest path; its activity and loop test are ready long before).
fn chain(
    g: &mut Rvsdg,
    r: Region,
    opcode: Opcode,
    mut terms: Vec<Origin>,
    depths: &mut Depths,
) -> Origin {
    terms.sort_by_key(|&o| depths.of(g, o));
    let mut acc = terms[0];
    for &t in &terms[1..] {
        acc = binary(g, r, opcode, acc, t);
    }
    acc
}

/// How late each value of F's body is ready, by a rough latency per operation
/// (the machine's classes: float and multiply long, loads 3, compares of floats 2,
/// the rest 1); arguments at 0.
#[derive(Default)]
struct Depths(FxHashMap<Origin, u32>);

impl Depths {
    fn of(&mut self, g: &Rvsdg, o: Origin) -> u32 {
        if let Some(&d) = self.0.get(&o) {
            return d;
        }
        let d = match g.producer(o) {
            None => 0,
            Some(n) => {
                let inputs = g.inputs(n).to_vec();
                let before = inputs.iter().map(|&i| self.of(g, i)).max().unwrap_or(0);
                before + latency(g, n)
            }
        };
        self.0.insert(o, d);
        d
    }
}

fn latency(g: &Rvsdg, n: Node) -> u32 {
    let Some(op @ Op::Inst(d)) = g.op(n) else {
        return 1;
    };
    if op.is_constant_like() {
        return 0;
    }
    let float = g
        .outputs(n)
        .chain(g.inputs(n).iter().copied())
        .any(|o| matches!(g.ty(o).value(), Some(Type::F32 | Type::F64)));
    match d.opcode() {
        Opcode::Load => 3,
        Opcode::Fcmp => 2,
        Opcode::Imul | Opcode::Umulhi | Opcode::Smulhi => 3,
        _ if float => 4,
        _ => 1,
    }
}
