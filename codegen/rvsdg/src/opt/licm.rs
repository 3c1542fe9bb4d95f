//! Loop-invariant code motion (Reissmann et al. §5, "node push-out" of θs): a
//! computation of a θ body whose inputs do not change from one iteration to the next
//! is done once, before the θ, and enters the body as a new invariant loop variable
//! (`licm.hoisted`).
//!
//! - **Invariant:** a body argument whose next value is the argument itself, or a
//!   constant of the body.
//! - **What moves:** simple pure nodes (no state: no load, no division that may trap,
//!   no call; `sdiv safe` and the like move) that read only invariant values. A θ is
//!   tail-controlled, its body runs at least once, and a pure node neither faults nor
//!   has effects, so computing it before the loop instead of in every iteration
//!   changes nothing observable.
//! - **Out of γ arms:** the same computations in an arm of a γ at the top level of
//!   the body, or of a γ nested in such an arm (a loop's preheader test that
//!   versioning or unrolling made, with the strides and first pointers that
//!   induction strength reduction put there), when what they read comes into the
//!   arm through entry variables from invariant values: they move before the θ and
//!   enter each γ on the way down as an entry variable. The arm may not run, so they
//!   are speculated: pure operations only, which neither fault nor have effects
//!   (`licm-gamma-arms.ir`).
//! - **Loads** (`licm.hoisted-loads`; only in [`loop_invariant_code_motion_with_loads`],
//!   which `rvsdg-mem-split` runs): a plain load at the top level of the body whose
//!   address is invariant and whose memory is too — its memory state is a loop
//!   variable whose chain through the body holds plain loads only, from the argument
//!   to the next value (nothing in the loop writes that memory: with one memory state,
//!   nothing writes at all; split by location, `rvsdg-mem-split`, nothing writes that
//!   location) — reads the same bytes in every iteration: it is done once, before the
//!   θ, on the memory state that enters it, and its value enters as an invariant loop
//!   variable. The body runs at least once, but the load now runs before what comes
//!   before it in the first iteration, so it must not fault — or nothing before it
//!   may trap or be seen: a load of a stack slot at a known offset within its bounds
//!   and aligned by the slot's alignment, or through a `noalias` parameter that does
//!   not escape (taken not to fault, as `rvsdg-mem-split` does), moves whatever the
//!   body holds; any other only when the body has no node with the I/O state and no
//!   memory access but the loads of its chain, and no load before it on the chain
//!   stayed. A γ on the chain that gives the memory state back unchanged in every
//!   arm that completes (a bounds check whose other arm panics or resumes unwinding)
//!   does not stop the chain: after it completes memory is as before it.
//! - **Constants** alone stay in the body: rematerializing an `iconst` in the loop
//!   costs nothing on a VLIW with free slots, while a loop variable costs a register
//!   across the whole loop. The constants a hoisted computation reads are copied
//!   before the θ with it (an equal constant already there is reused; the body's goes
//!   when nothing reads it any more).
//! - **Control values** (a `match` on an invariant value) stay: a predicate made in
//!   the region of the γ or θ it controls is a branch on the compared value, one that
//!   enters through a variable becomes a carried alternative number.
//! - **Register pressure:** at most [`MAX_NEW_LIVE`] hoisted values live across one
//!   loop's body; the computations past it stay (`licm.declined`).
//!
//! θs are processed innermost first, so a computation invariant in two nested loops
//! leaves the inner one, then the outer one. Within a body, nodes are visited
//! producers first, so a chain of invariant computations moves in one pass.

use rustc_hash::FxHashSet;
use vliw_ir::InstructionData;

use super::completion::Completion;
use super::constants::{RegionConstants, constant, remove_unused};
use super::memory::{Access, Analysis, Base, noalias_params};
use crate::graph::{Node, NodeKind, Origin, Region, User};
use crate::ops::{Op, Rvsdg, Ty};
use crate::report::Report;

/// Hoists the invariant computations (not loads) out of every θ of `g`.
pub fn loop_invariant_code_motion(g: &mut Rvsdg, report: &mut Report) {
    run(g, false, report);
}

/// [`loop_invariant_code_motion`], and invariant loads: what `rvsdg-mem-split` runs
/// after splitting the memory state (and only then, until the suites have run with
/// it).
pub fn loop_invariant_code_motion_with_loads(g: &mut Rvsdg, report: &mut Report) {
    run(g, true, report);
}

fn run(g: &mut Rvsdg, loads: bool, report: &mut Report) {
    let mut counts = Counts::default();
    for l in g.lambdas() {
        let body = g.lambda_body(l);
        let mut facts = Facts {
            lambda: l,
            loads,
            memory: None,
        };
        region(g, body, &mut facts, &mut counts);
    }
    report.count("licm.hoisted", counts.hoisted as u64);
    if loads {
        report.count("licm.hoisted-loads", counts.hoisted_loads as u64);
    }
    report.count("licm.declined", counts.declined as u64);
}

/// What is known of a λ's memory, for its loads: whether they move at all, its
/// analysis and its `noalias` parameters that do not escape (made when a loop first
/// has a load to move).
struct Facts {
    lambda: Node,
    loads: bool,
    memory: Option<(Analysis, Vec<Base>)>,
}

/// Hoists out of the θs below `r`, innermost first.
fn region(g: &mut Rvsdg, r: Region, facts: &mut Facts, counts: &mut Counts) {
    let mut constants = RegionConstants::new(r);
    for n in g.topological_order(r) {
        for s in g.kind(n).subregions().to_vec() {
            region(g, s, facts, counts);
        }
        if let NodeKind::Theta { body } = *g.kind(n) {
            theta(g, n, body, &mut constants, facts, counts);
        }
    }
}

/// Whether body node `m` can leave θ `body`: a pure computation (not a lone
/// constant, not making a control value) of invariant values.
fn hoistable(g: &Rvsdg, body: Region, m: Node) -> bool {
    let Some(op) = g.op(m) else {
        return false;
    };
    op.is_pure()
        && g.is_used(m)
        && !g.inputs(m).is_empty()
        && g.outputs(m).all(|o| matches!(g.ty(o), Ty::Val(_)))
        && g.inputs(m).iter().all(|&o| match o {
            Origin::Arg(_, k) => g.results(body)[k as usize + 1] == o,
            Origin::Out(c, _) => constant(g, c).is_some(),
        })
}

/// The most values that hoisting may make live across one loop's body: a hoisted
/// value the body reads is a register for the whole loop (the machine has 64), and a
/// reload per iteration costs more than recomputing a pure operation on a VLIW with
/// free slots. Hoisting a node whose inputs were hoisted values that nothing else in
/// the body reads frees those, so chains of invariant computations leave whole.
pub const MAX_NEW_LIVE: usize = 16;

#[derive(Default)]
struct Counts {
    hoisted: usize,
    hoisted_loads: usize,
    /// Invariant computations left in the loop by [`MAX_NEW_LIVE`].
    declined: usize,
}

/// Hoists the invariant computations of θ `n`'s body.
fn theta(
    g: &mut Rvsdg,
    n: Node,
    body: Region,
    constants: &mut RegionConstants,
    facts: &mut Facts,
    counts: &mut Counts,
) {
    let region = g.node(n).region;
    // the loop variables made here (argument numbers), and how many the body reads
    let mut new_vars: FxHashSet<u32> = FxHashSet::default();
    let mut live = 0;
    // producers first: once a node is out, its users read an invariant argument
    for m in g.topological_order(body) {
        if !hoistable(g, body, m) {
            continue;
        }
        let old = g.inputs(m).to_vec();
        let gained = g.outputs(m).filter(|&o| g.has_users(o)).count();
        let mut freed: Vec<Origin> = old
            .iter()
            .copied()
            .filter(|&o| match o {
                Origin::Arg(_, k) => {
                    new_vars.contains(&k)
                        && g.users(o).iter().all(|&u| match u {
                            User::In(x, _) => x == m,
                            User::Res(..) => true,
                        })
                }
                Origin::Out(..) => false,
            })
            .collect();
        freed.sort_unstable();
        freed.dedup();
        if live + gained > MAX_NEW_LIVE + freed.len() {
            counts.declined += 1;
            continue;
        }
        live = live + gained - freed.len();
        let inputs: Vec<Origin> = old
            .iter()
            .map(|&o| match o {
                Origin::Arg(_, k) => g.input(n, k as usize),
                Origin::Out(c, _) => {
                    let (op, ty) = constant(g, c).expect("hoistable reads constants");
                    constants.get(g, &op, ty)
                }
            })
            .collect();
        let users: Vec<Vec<User>> = g.outputs(m).map(|o| g.users(o).to_vec()).collect();
        g.move_node(m, region, &inputs);
        for (i, users) in users.into_iter().enumerate() {
            let (arg, _) = g.add_theta_var(n, Origin::Out(m, i as u32));
            if let Origin::Arg(_, k) = arg {
                new_vars.insert(k);
            }
            for u in users {
                g.set_origin(u, arg);
            }
        }
        // the body's constants that only the moved node read
        remove_unused(g, &old);
        counts.hoisted += 1;
    }
    // then out of the arms of the body's γs (a loop's preheader test that versioning
    // or unrolling made: its invariant strides and first pointers), speculated
    for gamma in g.topological_order(body) {
        if matches!(g.kind(gamma), NodeKind::Gamma { .. }) {
            hoist_from_arms(g, n, body, gamma, constants, &mut live, counts);
        }
    }
    for k in 0..g.args(body).len() {
        if facts.loads
            && g.ty(Origin::Arg(body, k as u32)) == Ty::Mem
            && let Some(chain) = load_chain(g, body, k)
        {
            loads(g, n, body, k, &chain, constants, facts, &mut live, counts);
        }
    }
}

/// What `o`, read in the innermost arm of `path` (γs nested from the top level of
/// θ `body` down, with the arm taken in each), is at the top level of the body: the
/// inputs of the entry variables it comes through, up to a body argument or a node
/// of the body; a constant of an arm is itself. `None` when it is made in an arm.
fn origin_in_body(g: &Rvsdg, path: &[(Node, usize)], o: Origin) -> Option<Origin> {
    let mut o = o;
    for &(gamma, _) in path.iter().rev() {
        match o {
            Origin::Arg(_, e) => o = g.input(gamma, e as usize + 1),
            Origin::Out(c, _) => return constant(g, c).is_some().then_some(o),
        }
    }
    Some(o)
}

/// Whether `o`, read in the innermost arm of `path`, is invariant in θ `body`'s loop.
fn invariant_in_arm(g: &Rvsdg, body: Region, path: &[(Node, usize)], o: Origin) -> bool {
    match origin_in_body(g, path, o) {
        Some(o @ Origin::Arg(r, k)) => r == body && g.results(body)[k as usize + 1] == o,
        Some(Origin::Out(c, _)) => constant(g, c).is_some(),
        None => false,
    }
}

/// Hoists the invariant pure computations of the arms of γ `gamma` (at the top level
/// of θ `n`'s body), and of the γs nested in them, before the θ: they enter the loop
/// as invariant variables and each γ on the way down as entry variables. The arm may
/// not have run, so they are speculated: pure operations only (no state, no
/// division that may trap), which neither fault nor have effects. Chains leave
/// whole (producers first: a hoisted value enters the arm through an invariant
/// variable).
fn hoist_from_arms(
    g: &mut Rvsdg,
    n: Node,
    body: Region,
    gamma: Node,
    constants: &mut RegionConstants,
    live: &mut usize,
    counts: &mut Counts,
) {
    let mut path = Vec::new();
    arms(g, n, body, gamma, &mut path, constants, live, counts);
}

#[allow(clippy::too_many_arguments)]
fn arms(
    g: &mut Rvsdg,
    n: Node,
    body: Region,
    gamma: Node,
    path: &mut Vec<(Node, usize)>,
    constants: &mut RegionConstants,
    live: &mut usize,
    counts: &mut Counts,
) {
    let region = g.node(n).region;
    let subregions = g.kind(gamma).subregions().to_vec();
    for (a, arm) in subregions.into_iter().enumerate() {
        path.push((gamma, a));
        for m in g.topological_order(arm) {
            if matches!(g.kind(m), NodeKind::Gamma { .. }) {
                arms(g, n, body, m, path, constants, live, counts);
                continue;
            }
            let Some(op) = g.op(m) else { continue };
            let candidate = op.is_pure()
                && g.is_used(m)
                && !g.inputs(m).is_empty()
                && g.outputs(m).all(|o| matches!(g.ty(o), Ty::Val(_)))
                && g.inputs(m)
                    .iter()
                    .all(|&o| invariant_in_arm(g, body, path, o));
            if !candidate {
                continue;
            }
            let gained = g.outputs(m).filter(|&o| g.has_users(o)).count();
            if *live + gained > MAX_NEW_LIVE {
                counts.declined += 1;
                continue;
            }
            *live += gained;
            let old = g.inputs(m).to_vec();
            let inputs: Vec<Origin> = old
                .iter()
                .map(|&o| match origin_in_body(g, path, o) {
                    Some(Origin::Arg(_, k)) => g.input(n, k as usize),
                    Some(Origin::Out(c, _)) => {
                        let (op, ty) = constant(g, c).expect("invariant_in_arm: a constant");
                        constants.get(g, &op, ty)
                    }
                    None => unreachable!("invariant_in_arm: made outside the arms"),
                })
                .collect();
            let users: Vec<Vec<User>> = g.outputs(m).map(|o| g.users(o).to_vec()).collect();
            g.move_node(m, region, &inputs);
            for (i, users) in users.into_iter().enumerate() {
                if users.is_empty() {
                    continue;
                }
                let (mut inner, _) = g.add_theta_var(n, Origin::Out(m, i as u32));
                for &(through, arm) in path.iter() {
                    inner = g.add_gamma_entry(through, inner)[arm];
                }
                for u in users {
                    g.set_origin(u, inner);
                }
            }
            remove_unused(g, &old);
            counts.hoisted += 1;
        }
        path.pop();
    }
}

/// The plain loads on the chain of memory loop variable `k` of θ `body`, in order,
/// when that is all the chain holds (the argument's state goes through them to the
/// next value). A γ on the chain whose every completing arm gives the state back
/// unchanged (a bounds check: `completion.rs`) holds nothing for the loads after it:
/// when it completes, memory is as before it, and when it does not, nothing after it
/// runs.
fn load_chain(g: &Rvsdg, body: Region, k: usize) -> Option<Vec<Node>> {
    let mut chain = Vec::new();
    let mut o = Origin::Arg(body, k as u32);
    let mut completion = Completion::new();
    loop {
        match *g.users(o) {
            [User::Res(_, i)] if i as usize == k + 1 => return Some(chain),
            [User::In(m, 1)]
                if g.op(m).is_some_and(Op::is_plain_load)
                    && g.inputs(m).len() == 2
                    && g.num_outputs(m) == 2 =>
            {
                chain.push(m);
                o = Origin::Out(m, 1);
            }
            [User::In(m, i)] if i > 0 && matches!(g.kind(m), NodeKind::Gamma { .. }) => {
                let entry = i - 1;
                let exit = (0..g.num_outputs(m)).find(|&x| {
                    g.ty(Origin::Out(m, x as u32)) == Ty::Mem
                        && completion.passed_through(g, m, x) == Some(entry)
                })?;
                o = Origin::Out(m, exit as u32);
            }
            _ => return None,
        }
    }
}

/// Moves the loads of `chain` (memory loop variable `k` of θ `n`) that may leave it
/// before the θ, in chain order.
#[allow(clippy::too_many_arguments)]
fn loads(
    g: &mut Rvsdg,
    n: Node,
    body: Region,
    k: usize,
    chain: &[Node],
    constants: &mut RegionConstants,
    facts: &mut Facts,
    live: &mut usize,
    counts: &mut Counts,
) {
    let region = g.node(n).region;
    // nothing in the body traps, is seen or touches memory but these loads
    let quiet = g.regions_below(body).into_iter().all(|r| {
        g.nodes(r)
            .iter()
            .all(|&m| chain.contains(&m) || !g.inputs(m).iter().any(|&o| g.ty(o).is_state()))
    });
    // no load before it on the chain stayed
    let mut first = true;
    for &m in chain {
        let addr = g.input(m, 0);
        let outside = match addr {
            Origin::Arg(_, j) if g.results(body)[j as usize + 1] == addr => {
                Some(g.input(n, j as usize))
            }
            Origin::Out(c, _) => constant(g, c).map(|(op, ty)| constants.get(g, &op, ty)),
            Origin::Arg(..) => None,
        };
        let Some(outside) = outside.filter(|_| g.has_users(Origin::Out(m, 0))) else {
            first = false;
            continue;
        };
        if !(first && quiet || cannot_fault(g, m, outside, facts)) {
            first = false;
            continue;
        }
        if *live >= MAX_NEW_LIVE {
            counts.declined += 1;
            first = false;
            continue;
        }
        *live += 1;
        // inside: the chain goes around it, its users read the new loop variable
        g.divert_users(Origin::Out(m, 1), g.input(m, 1));
        let users = g.users(Origin::Out(m, 0)).to_vec();
        let state = g.input(n, k);
        g.move_node(m, region, &[outside, state]);
        g.set_input(n, k, Origin::Out(m, 1));
        let (arg, _) = g.add_theta_var(n, Origin::Out(m, 0));
        for u in users {
            g.set_origin(u, arg);
        }
        remove_unused(g, &[addr]);
        counts.hoisted_loads += 1;
    }
}

/// Whether load `m`, at address `ptr` (of the θ's region), cannot fault: a stack
/// slot at a known offset within its bounds, aligned by the slot's alignment, or a
/// `noalias` parameter that does not escape.
fn cannot_fault(g: &Rvsdg, m: Node, ptr: Origin, facts: &mut Facts) -> bool {
    let Some(Op::Inst(InstructionData::Load { flags, offset, .. })) = g.op(m) else {
        return false;
    };
    let Some(size) = g.ty(Origin::Out(m, 0)).value().map(|t| t.bytes() as u64) else {
        return false;
    };
    let l = facts.lambda;
    let (a, params) = facts.memory.get_or_insert_with(|| {
        let a = Analysis::of_lambda(g, l);
        let params = noalias_params(g, l, &a.addrs);
        (a, params)
    });
    let acc = Access {
        ptr,
        imm: *offset as i64,
        addr: a.addrs.get(ptr).plus(Some(*offset as i64)),
        size: Some(size),
    };
    match acc.addr.base {
        Base::Slot(_) => {
            a.slots_trusted()
                && a.in_bounds(&acc) == Some(true)
                && !a.may_misalign(g, &acc, flags.align)
        }
        b @ Base::Value(_) => params.contains(&b),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{binary, finish, icmp, iconst, lambda, predicate};
    use crate::verify;
    use vliw_ir::{IntCC, Opcode, Type};

    /// A λ `(x, n)` whose loop adds `x * c` for `count` constants `c` (each product
    /// invariant, each read by the loop's sum) to a sum, or, `chained`, adds
    /// `x * c1 * c2 * ...` (one chain of invariant products).
    fn loop_of(count: usize, chained: bool) -> (Rvsdg, Node) {
        let mut g = Rvsdg::new();
        let l = lambda(&mut g, "f", &[Type::I64, Type::I64], &[Type::I64]);
        let zero = iconst(&mut g, l.body, Type::I64, 0);
        let theta = g.add_theta(l.body, &[zero, zero, l.params[0], l.params[1], l.mem, l.io]);
        let body = g.theta_body(theta);
        let a: Vec<Origin> = g.arg_origins(body).collect();
        let (i, sum, x, n) = (a[0], a[1], a[2], a[3]);
        let mut acc = sum;
        let mut product = x;
        for k in 0..count {
            let c = iconst(&mut g, body, Type::I64, k as i128 + 2);
            if chained {
                product = binary(&mut g, body, Opcode::Imul, product, c);
            } else {
                let p = binary(&mut g, body, Opcode::Imul, x, c);
                acc = binary(&mut g, body, Opcode::Iadd, acc, p);
            }
        }
        if chained {
            acc = binary(&mut g, body, Opcode::Iadd, acc, product);
        }
        let one = iconst(&mut g, body, Type::I64, 1);
        let next = binary(&mut g, body, Opcode::Iadd, i, one);
        let more = icmp(&mut g, body, IntCC::Slt, next, n);
        let p = predicate(&mut g, body, more);
        g.set_theta_predicate(theta, p);
        g.set_result(body, 1, next);
        g.set_result(body, 2, acc);
        let (mem, io) = (Origin::Out(theta, 4), Origin::Out(theta, 5));
        finish(&mut g, &l, &[Origin::Out(theta, 1)], mem, io);
        verify(&g).expect("the test graph verifies");
        (g, theta)
    }

    fn run(g: &mut Rvsdg) -> Report {
        let mut report = Report::default();
        loop_invariant_code_motion(g, &mut report);
        verify(g).expect("verifies after licm");
        report
    }

    #[test]
    fn hoists_at_most_max_new_live_values_that_the_loop_reads() {
        let (mut g, theta) = loop_of(MAX_NEW_LIVE + 5, false);
        let report = run(&mut g);
        assert_eq!(report.get("licm.hoisted"), MAX_NEW_LIVE as u64);
        assert_eq!(report.get("licm.declined"), 5);
        // the θ's 6 variables, one per hoisted product
        assert_eq!(g.num_outputs(theta), 6 + MAX_NEW_LIVE);
    }

    #[test]
    fn a_chain_of_invariant_computations_leaves_whole() {
        let (mut g, _) = loop_of(MAX_NEW_LIVE * 3, true);
        let report = run(&mut g);
        assert_eq!(report.get("licm.hoisted"), MAX_NEW_LIVE as u64 * 3);
        assert_eq!(report.get("licm.declined"), 0);
    }
}
