//! γ simplification (Reissmann et al. §5: the γ parts of "node push-out" and "node
//! pull-in"; the known-arm rule is jlm's γ reduction):
//!
//! - **A γ whose arm is known** — its predicate is a control constant (`ctlN k`), or
//!   it has one arm — is replaced by that arm: the arm's nodes move into the γ's
//!   region, reading the entry variables' inputs where they read the arm's arguments,
//!   and the γ's users read what the arm gives back (`gamma.constant-predicate`,
//!   `gamma.one-arm`). (A γ on `match` of a constant is constant folding's: once
//!   folded, its predicate is a control constant.)
//! - **Hoisting:** a computation that every arm performs on the same entry variables
//!   (the same operation, the same output types, the same inputs: the arguments of the
//!   same entry variables, or equal constants) is done once, before the γ, and enters
//!   the arms as a new entry variable (`gamma.hoisted`). It ran on every path through
//!   the γ, so it runs exactly as often as before; the code gets smaller. Only pure
//!   operations move (no state: no load, no division that may trap, no call), so
//!   running them earlier changes nothing observable. Like loop-invariant code
//!   motion, a constant alone is not hoisted (rematerializing it in each arm costs
//!   nothing on a VLIW with free slots, while a value live across the branch costs a
//!   register); the constants a hoisted computation reads are copied before the γ
//!   (or an equal one there is reused).
//!   Nothing that makes a control value is hoisted: a predicate computed in the region
//!   of the γ or θ it controls becomes a branch on the compared value, one that enters
//!   through a variable becomes a carried alternative number.
//! - **Sinking:** a pure node outside a γ whose every use is inside one arm of it
//!   (its outputs feed only entry variables of that γ, whose arguments only that arm
//!   reads) moves into that arm, so that it runs only when that arm does
//!   (`gamma.sunk`). Its inputs enter the γ as entry variables (existing ones are
//!   reused). Not into θs: the body of a loop runs more often than its surroundings.
//!   Not a division or square root (`Op::is_long_pure`): its path would wait its
//!   whole latency in the arm, while before the γ it overlaps with the test.
//!
//! Exit variables that every arm passes from one entry are invariant value
//! redirection's; unused exits and entries are dead node elimination's.
//!
//! Order: the known-arm rule first in each region (repeated: an inlined arm may hold
//! γs with known arms), hoisting innermost first (what a nested γ hoists into an arm
//! may then be common to the enclosing γ's arms), sinking outermost first (what sinks
//! into an arm may sink further into a γ inside it).

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use super::completion::Completion;
use super::constants::{RegionConstants, constant, remove_unused};
use crate::graph::{Node, NodeKind, Origin, Region, User};
use crate::ops::{Op, Rvsdg, Ty};
use crate::report::Report;

/// Simplifies every γ of `g`.
pub fn gamma_simplification(g: &mut Rvsdg, report: &mut Report) {
    let mut counts = Counts::default();
    for l in g.lambdas() {
        let body = g.lambda_body(l);
        inline_and_hoist(g, body, &mut counts);
        sink_region(g, body, &mut counts);
    }
    report.count("gamma.constant-predicate", counts.constant as u64);
    report.count("gamma.one-arm", counts.one_arm as u64);
    report.count("gamma.hoisted", counts.hoisted as u64);
    report.count("gamma.sunk", counts.sunk as u64);
}

#[derive(Default)]
struct Counts {
    constant: usize,
    one_arm: usize,
    hoisted: usize,
    sunk: usize,
}

/// Hoists, out of every γ of `g` that has arms which never complete (a bounds
/// check: `completion.rs`), the pure computations common to the arms that may
/// complete (`gamma.hoisted-completing`): when such an arm is taken the computation
/// ran before too, and when another is taken nothing after the γ runs, so computing
/// it before the γ (it is pure) changes nothing observable. A check's passing arm is
/// then left passing values through, which `rvsdg-loop-prep`'s redirection reads
/// from before the check.
pub fn hoist_from_completing_arms(g: &mut Rvsdg, report: &mut Report) {
    let mut hoisted = 0;
    for l in g.lambdas() {
        let body = g.lambda_body(l);
        hoisted += hoist_completing_region(g, body);
    }
    report.count("gamma.hoisted-completing", hoisted as u64);
}

/// [`hoist_from_completing_arms`] below region `r`, innermost first.
fn hoist_completing_region(g: &mut Rvsdg, r: Region) -> usize {
    let mut hoisted = 0;
    let mut constants = RegionConstants::new(r);
    for n in g.topological_order(r) {
        for s in g.kind(n).subregions().to_vec() {
            hoisted += hoist_completing_region(g, s);
        }
        if !matches!(g.kind(n), NodeKind::Gamma { .. }) {
            continue;
        }
        let arms = g.kind(n).subregions().len();
        let completing = Completion::new().completing_arms(g, n);
        // (all of them: the ordinary rule's, which `rvsdg-gamma` applies)
        if !completing.is_empty() && completing.len() < arms {
            hoisted += hoist_from(g, n, &completing, &mut constants);
        }
    }
    hoisted
}

/// The known-arm rule on every γ below `r` (what unrolling a loop nest made known:
/// the bounds checks of constant indices); how many γs it replaced.
pub(crate) fn inline_known_arms(g: &mut Rvsdg, r: Region) -> usize {
    let mut count = 0;
    loop {
        let mut inlined = false;
        for q in g.regions_below(r) {
            for n in g.nodes(q).to_vec() {
                if g.is_alive(n)
                    && let Some(arm) = known_arm(g, n)
                    && inline_arm(g, n, arm)
                {
                    g.remove_node(n);
                    count += 1;
                    inlined = true;
                }
            }
        }
        if !inlined {
            return count;
        }
    }
}

/// The known-arm rule on the γs of `r` until none is left, then everything below `r`,
/// then hoisting out of the γs of `r`.
fn inline_and_hoist(g: &mut Rvsdg, r: Region, counts: &mut Counts) {
    loop {
        let mut inlined = false;
        // the known-arm rule needs no order: a snapshot of the region's list will do
        for n in g.nodes(r).to_vec() {
            if !g.is_alive(n) {
                continue;
            }
            if let Some(arm) = known_arm(g, n)
                && inline_arm(g, n, arm)
            {
                if g.kind(n).subregions().len() == 1 {
                    counts.one_arm += 1;
                } else {
                    counts.constant += 1;
                }
                g.remove_node(n);
                inlined = true;
            }
        }
        if !inlined {
            break;
        }
    }
    let mut constants = RegionConstants::new(r);
    for n in g.topological_order(r) {
        for s in g.kind(n).subregions().to_vec() {
            inline_and_hoist(g, s, counts);
        }
        if matches!(g.kind(n), NodeKind::Gamma { .. }) {
            counts.hoisted += hoist(g, n, &mut constants);
        }
    }
}

/// The arm a γ always takes, if it is known: the one of a constant predicate, or its
/// only arm.
fn known_arm(g: &Rvsdg, n: Node) -> Option<usize> {
    let NodeKind::Gamma { arms } = g.kind(n) else {
        return None;
    };
    if arms.len() == 1 {
        return Some(0);
    }
    let p = g.producer(g.input(n, 0))?;
    match g.op(p) {
        Some(Op::Ctl { alt, .. }) if (*alt as usize) < arms.len() => Some(*alt as usize),
        _ => None,
    }
}

/// Moves the nodes of arm `arm` of γ `n` into the γ's region and makes the γ's users
/// read what the arm gives back; the γ is left without users (the caller removes it).
/// Declines (returns false, changing nothing) when a state the arm gives back is also
/// read by a sink in the arm (a `trap`) and the γ's output of that state goes on to
/// anything but a result of the γ's region: outside the γ, the sink and that user
/// would be two users of one state (a sink may only share its state with a result).
pub(crate) fn inline_arm(g: &mut Rvsdg, n: Node, arm: usize) -> bool {
    let a = g.kind(n).subregions()[arm];
    let shared_state = g.results(a).iter().enumerate().any(|(k, &o)| {
        g.ty(o).is_state()
            && g.users(o).len() != 1
            && !matches!(g.users(Origin::Out(n, k as u32)), [User::Res(..)])
    });
    if shared_state {
        return false;
    }
    let region = g.node(n).region;
    let outside = |g: &Rvsdg, o: Origin| match o {
        Origin::Arg(_, j) => g.input(n, j as usize + 1),
        // a node of the arm, already moved (producers first)
        Origin::Out(..) => o,
    };
    for m in g.topological_order(a) {
        let inputs: Vec<Origin> = g.inputs(m).iter().map(|&o| outside(g, o)).collect();
        g.move_node(m, region, &inputs);
    }
    for k in 0..g.num_outputs(n) {
        let value = outside(g, g.results(a)[k]);
        g.divert_users(Origin::Out(n, k as u32), value);
    }
    true
}

/// How a candidate for hoisting reads one input: an entry variable's argument, or a
/// constant of the arm (the same constant in every arm is one input).
#[derive(Clone, PartialEq, Eq, Hash)]
enum Input {
    Entry(u32),
    Constant(Op, Ty),
}

/// What makes two nodes of different arms compute the same value.
type Key = (Op, SmallVec<[Ty; 2]>, Vec<Input>);

/// The key of node `m` of an arm, if it is a candidate: a pure computation (not a
/// constant alone, not making a control value) on entry variables and constants.
fn key(g: &Rvsdg, m: Node) -> Option<Key> {
    let op = g.op(m)?;
    if !op.is_pure() || g.inputs(m).is_empty() {
        return None;
    }
    let types = g.output_types(m);
    if types.iter().any(|t| !matches!(t, Ty::Val(_))) {
        return None;
    }
    let inputs = g
        .inputs(m)
        .iter()
        .map(|&o| match o {
            Origin::Arg(_, j) => Some(Input::Entry(j)),
            Origin::Out(c, 0) => constant(g, c).map(|(op, ty)| Input::Constant(op, ty)),
            Origin::Out(..) => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some((op.clone(), types, inputs))
}

/// Hoists the computations common to every arm of γ `n`; returns how many.
///
/// A worklist over arm 0: the candidates of each arm are indexed by key; hoisting a
/// node turns its outputs into entry variables, which makes the nodes that read it (in
/// every arm at once) candidates in turn. A key never comes back once handled: a new
/// candidate reads an entry variable newer than every key handled before. So each
/// node is looked at a bounded number of times.
fn hoist(g: &mut Rvsdg, n: Node, constants: &mut RegionConstants) -> usize {
    let all = g.kind(n).subregions().to_vec();
    if all.len() < 2 {
        return 0;
    }
    hoist_from(g, n, &(0..all.len()).collect::<Vec<_>>(), constants)
}

/// [`hoist`] over the arms `among` of γ `n` only: a computation common to them moves
/// before the γ; the other arms keep theirs.
fn hoist_from(g: &mut Rvsdg, n: Node, among: &[usize], constants: &mut RegionConstants) -> usize {
    let all = g.kind(n).subregions().to_vec();
    let arms: Vec<Region> = among.iter().map(|&a| all[a]).collect();
    if arms.is_empty() {
        return 0;
    }
    let region = g.node(n).region;
    let mut by_key: Vec<FxHashMap<Key, Vec<Node>>> = Vec::with_capacity(arms.len());
    let mut indexed: Vec<FxHashSet<Node>> = Vec::with_capacity(arms.len());
    let mut work = VecDeque::new();
    for (a, &arm) in arms.iter().enumerate() {
        let mut map: FxHashMap<Key, Vec<Node>> = FxHashMap::default();
        let mut set = FxHashSet::default();
        for m in g.topological_order(arm) {
            if let Some(k) = key(g, m) {
                map.entry(k).or_default().push(m);
                set.insert(m);
                if a == 0 {
                    work.push_back(m);
                }
            }
        }
        by_key.push(map);
        indexed.push(set);
    }
    let mut hoisted = 0;
    while let Some(m) = work.pop_front() {
        // (a duplicate, or a constant, removed since)
        if !g.is_alive(m) {
            continue;
        }
        let Some(k) = key(g, m) else { continue };
        let Some(first) = by_key[0].get(&k).and_then(|v| v.first()) else {
            continue;
        };
        // the first of its kind in arm 0 (the others merge into it), used in every arm
        if *first != m
            || !by_key
                .iter()
                .all(|map| map.get(&k).is_some_and(|v| v.iter().any(|&x| g.is_used(x))))
        {
            continue;
        }
        let inputs: Vec<Origin> =
            k.2.iter()
                .map(|i| match i {
                    Input::Entry(j) => g.input(n, *j as usize + 1),
                    Input::Constant(op, ty) => constants.get(g, op, *ty),
                })
                .collect();
        let old_inputs = g.inputs(m).to_vec();
        // the users in arm 0 first: the γ's new input becomes a user too
        let users: Vec<Vec<User>> = g.outputs(m).map(|o| g.users(o).to_vec()).collect();
        g.move_node(m, region, &inputs);
        let mut new_args: Vec<Vec<Origin>> = vec![Vec::new(); arms.len()];
        for (i, users) in users.into_iter().enumerate() {
            let every = g.add_gamma_entry(n, Origin::Out(m, i as u32));
            let args: Vec<Origin> = among.iter().map(|&a| every[a]).collect();
            for u in users {
                g.set_origin(u, args[0]);
            }
            for (a, map) in by_key.iter().enumerate() {
                for &x in &map[&k] {
                    if x != m {
                        g.divert_users(Origin::Out(x, i as u32), args[a]);
                    }
                }
                new_args[a].push(args[a]);
            }
        }
        for map in &mut by_key {
            for x in map.remove(&k).unwrap_or_default() {
                if x != m {
                    let consts = g.inputs(x).to_vec();
                    g.remove_node(x);
                    remove_unused(g, &consts);
                }
            }
        }
        remove_unused(g, &old_inputs);
        hoisted += 1;
        // what reads the new entry variables may have become a candidate
        for (a, args) in new_args.iter().enumerate() {
            for &arg in args {
                for u in g.users(arg).to_vec() {
                    let User::In(u, _) = u else { continue };
                    if indexed[a].contains(&u) {
                        continue;
                    }
                    if let Some(ku) = key(g, u) {
                        by_key[a].entry(ku).or_default().push(u);
                        indexed[a].insert(u);
                        if a == 0 {
                            work.push_back(u);
                        }
                    }
                }
            }
        }
    }
    hoisted
}

/// Sinks the pure nodes of `r` used in one arm of a γ only into that arm, then does
/// the same in every region below.
fn sink_region(g: &mut Rvsdg, r: Region, counts: &mut Counts) {
    // consumers first: a node that sinks may leave its producers used by the γ only
    for m in g.topological_order(r).into_iter().rev() {
        if let Some((gamma, arm)) = sink_target(g, m) {
            sink(g, m, gamma, arm);
            counts.sunk += 1;
        }
    }
    // the subregions are independent of each other: no order needed
    for n in g.nodes(r).to_vec() {
        for s in g.kind(n).subregions().to_vec() {
            sink_region(g, s, counts);
        }
    }
}

/// The γ and arm that node `m` can sink into: `m` is a pure simple node whose outputs
/// are read only by entry variables of one γ, whose arguments only one arm reads.
fn sink_target(g: &Rvsdg, m: Node) -> Option<(Node, usize)> {
    let op = g.op(m)?;
    if !op.is_pure() || op.is_long_pure() || !g.is_used(m) {
        return None;
    }
    let mut gamma = None;
    let mut arm = None;
    for o in g.outputs(m) {
        for &u in g.users(o) {
            let User::In(n, i) = u else { return None };
            if i == 0 || !matches!(g.kind(n), NodeKind::Gamma { .. }) {
                return None;
            }
            if *gamma.get_or_insert(n) != n {
                return None;
            }
            for (a, &r) in g.kind(n).subregions().iter().enumerate() {
                if g.has_users(Origin::Arg(r, i - 1)) && *arm.get_or_insert(a) != a {
                    return None;
                }
            }
        }
    }
    // an entry whose argument no arm reads: dead node elimination's, not a reason to
    // move anything
    Some((gamma?, arm?))
}

/// Moves pure node `m` into arm `arm` of γ `n`, where its users are.
fn sink(g: &mut Rvsdg, m: Node, n: Node, arm: usize) {
    let a = g.kind(n).subregions()[arm];
    // the entry variables that carry m's outputs (its only users), before any is
    // added; in order, for the removal
    let mut carried: Vec<(usize, u32)> = g
        .outputs(m)
        .flat_map(|o| g.users(o).iter().map(move |&u| (u, o)))
        .filter_map(|(u, o)| match (u, o) {
            (User::In(_, i), Origin::Out(_, k)) => Some((i as usize - 1, k)),
            _ => None,
        })
        .collect();
    carried.sort_unstable();
    // an entry variable that already carries an input of m (found among the users of
    // that input), else a new one
    let inputs: Vec<Origin> = g
        .inputs(m)
        .to_vec()
        .into_iter()
        .map(|o| {
            let existing = g.users(o).iter().find_map(|&u| match u {
                User::In(x, i) if x == n && i > 0 => Some(i),
                _ => None,
            });
            match existing {
                Some(i) => Origin::Arg(a, i - 1),
                None => g.add_gamma_entry(n, o)[arm],
            }
        })
        .collect();
    g.move_node(m, a, &inputs);
    for &(e, k) in &carried {
        g.divert_users(Origin::Arg(a, e as u32), Origin::Out(m, k));
    }
    // all at once: one by one, each removal renumbers every later entry
    let gone: rustc_hash::FxHashSet<usize> = carried.iter().map(|c| c.0).collect();
    if !gone.is_empty() {
        g.remove_gamma_entries(n, |e| gone.contains(&e));
    }
}
