//! γ threading: a γ whose predicate an earlier γ's arms decide moves into those
//! arms (the RVSDG's form of jump threading, LLVM's `JumpThreading` of a branch on a
//! φ of constants).
//!
//! A γ `G2` whose predicate is an exit of a γ `G1` of the same region (directly, or
//! through a `match`), where some arm of `G1` gives that exit a constant (or passes
//! through the value `G1` tested, by the same `match`: in arm `a` that chose `a`), runs right
//! after `G1` on values `G1` gives back or that were there before it. It moves into
//! every arm of `G1`: in an arm that decides its predicate, the chosen arm's nodes are
//! copied in (no test), in the others a copy of `G2` on that arm's values; `G2`'s
//! outputs become exits of `G1`, and `G1`'s state exits that only `G2` took go (a
//! state has one user: the copies in the arms take it now).
//!
//! This is what unwinding makes of every call that may unwind: `Vec::push`'s grow
//! call is a `try_call` in an arm of the capacity test, and the other arm gives the
//! "it unwound" flag as the constant `0`; the γ on that flag (the length's store, or
//! the landing pad that drops the vector and resumes) then runs behind the join. After
//! threading, the arm that did not grow stores the length itself, and the landing pad
//! is only in the arm that called. The store then is on the path of the test alone
//! (region scheduling can move the vector's loads above it), and what memory holds
//! after the γ is what that path stored (`rvsdg-memory` forwards it to the next push).
//!
//! Only where every arm of `G1` that does not decide `G2` calls: the copies of `G2`
//! go to the paths a call makes slow anyway, and a decision tree without calls
//! (`classify`'s arms giving the class as constants or computing it) is left to
//! if-conversion, which takes the whole tree as one block (threaded, its paths were
//! too many: 1.16x slower). Not when an arm of `G1` never completes (its states
//! are its sink's). Only a `G2`
//! of at most [`MAX_NODES`] nodes (its subregions' included) moves, and
//! only when `G2` does not depend on `G1` but through `G1`'s outputs (its other inputs
//! do not depend on `G1`: they enter `G1` as entry variables). The region has one γ
//! fewer each time, so threading ends; it then goes on in every subregion.

use rustc_hash::FxHashMap;

use super::completion::Completion;
use super::rewrite::{const_of, ctl_of};
use crate::graph::{Node, NodeKind, Origin, Region};
use crate::ops::{Op, Rvsdg};
use crate::report::Report;

/// The largest γ (in nodes, those of its subregions included) that is copied into
/// the arms of the γ before it.
pub const MAX_NODES: usize = 32;

/// Threads the γs of every λ of `g` (module documentation).
pub fn thread_gammas(g: &mut Rvsdg, report: &mut Report) {
    let mut counts = Counts::default();
    for l in g.lambdas() {
        let body = g.lambda_body(l);
        thread_region(g, body, &mut counts);
    }
    report.count("gamma-thread.threaded", counts.threaded as u64);
    report.count("gamma-thread.decided-arms", counts.decided as u64);
}

#[derive(Default)]
struct Counts {
    threaded: usize,
    decided: usize,
}

fn thread_region(g: &mut Rvsdg, r: Region, counts: &mut Counts) {
    while let Some(c) = candidate(g, r) {
        thread(g, &c, counts);
    }
    for n in g.nodes(r).to_vec() {
        if !g.is_alive(n) {
            continue;
        }
        for s in g.kind(n).subregions().to_vec() {
            thread_region(g, s, counts);
        }
    }
}

/// A γ to move into the arms of the γ before it.
struct Candidate {
    first: Node,
    second: Node,
    /// The exit of `first` that decides `second`'s predicate.
    exit: usize,
    /// The `match` between them, if any.
    matcher: Option<Node>,
}

fn candidate(g: &Rvsdg, r: Region) -> Option<Candidate> {
    // (one memo for the scan: the graph does not change during it)
    let mut completion = Completion::new();
    for &second in g.nodes(r) {
        if !matches!(g.kind(second), NodeKind::Gamma { .. }) {
            continue;
        }
        let pred = g.input(second, 0);
        let (source, matcher) = match g.producer(pred) {
            Some(m) if matches!(g.op(m), Some(Op::Match { .. })) => (g.input(m, 0), Some(m)),
            _ => (pred, None),
        };
        let Origin::Out(first, exit) = source else {
            continue;
        };
        if !matches!(g.kind(first), NodeKind::Gamma { .. }) {
            continue;
        }
        let exit = exit as usize;
        let first_arms = g.kind(first).subregions();
        // an arm that never completes shares its states with its sink (a trap reads
        // the state the arm gives back): nothing more may read them, so such a `G1`
        // is left alone
        if first_arms.iter().any(|&a| completion.never_completes(g, a)) {
            continue;
        }
        // every arm that does not decide `G2` calls (a call that may unwind and the
        // flag its landing pad sets): the copies go to the paths a call makes slow
        // anyway. A decision tree without calls (`classify`'s, whose arms give the
        // class as constants or compute it) is left to if-conversion, which takes the
        // whole tree as one block
        let decided: Vec<bool> = (0..first_arms.len())
            .map(|a| decided_alt(g, first, a, exit, matcher).is_some())
            .collect();
        if !decided.iter().any(|&d| d)
            || first_arms
                .iter()
                .zip(&decided)
                .any(|(&arm, &d)| !d && !calls(g, arm))
            || 1 + g.count_nodes_inside(second) > MAX_NODES
            || !depends_only_through(g, first, second, matcher)
        {
            continue;
        }
        return Some(Candidate {
            first,
            second,
            exit,
            matcher,
        });
    }
    None
}

/// Whether region `r` (or one inside it) calls.
fn calls(g: &Rvsdg, r: Region) -> bool {
    g.nodes(r).iter().any(|&n| match g.kind(n) {
        NodeKind::Simple(Op::Inst(d)) => d.opcode().is_call(),
        kind => kind.subregions().iter().any(|&s| calls(g, s)),
    })
}

/// Whether `second` reads `first` only through `first`'s outputs (and `matcher`'s),
/// and nothing else it reads depends on `first`.
fn depends_only_through(g: &Rvsdg, first: Node, second: Node, matcher: Option<Node>) -> bool {
    let after_first = g.dependents(first);
    if matcher.is_some_and(|m| g.users(Origin::Out(m, 0)).len() != 1) {
        return false;
    }
    g.inputs(second)[1..].iter().all(|&o| match g.producer(o) {
        Some(p) if p == first => true,
        Some(p) => !after_first.contains(&p),
        None => true,
    })
}

/// The arm of `second` that arm `a` of `first` decides: its exit `exit` is a constant
/// there (a control constant, or an integer `matcher` maps).
fn decided_alt(
    g: &Rvsdg,
    first: Node,
    a: usize,
    exit: usize,
    matcher: Option<Node>,
) -> Option<usize> {
    let arm = g.kind(first).subregions()[a];
    let value = match g.results(arm)[exit] {
        Origin::Arg(_, e) => g.input(first, e as usize + 1),
        o => o,
    };
    // the value `first` itself tested, by the same `match`: in arm `a` it chose `a`
    if let (Some(m), Some(mf)) = (matcher, g.producer(g.input(first, 0)))
        && matches!(g.op(mf), Some(Op::Match { .. }))
        && g.op(mf) == g.op(m)
        && g.input(mf, 0) == value
    {
        return Some(a);
    }
    match matcher {
        None => ctl_of(g, value).map(|alt| alt as usize),
        Some(m) => {
            let c = const_of(g, value)?;
            let Some(Op::Match { cases, default, .. }) = g.op(m) else {
                return None;
            };
            let alt = cases
                .iter()
                .find(|case| case.0 == c)
                .map_or(*default, |case| case.1);
            Some(alt as usize)
        }
    }
}

fn thread(g: &mut Rvsdg, c: &Candidate, counts: &mut Counts) {
    let (first, second) = (c.first, c.second);
    let arms = g.kind(first).subregions().to_vec();
    let second_arms = g.kind(second).subregions().to_vec();
    // `second`'s inputs other than its predicate, as seen in each arm of `first`
    let mut entries: FxHashMap<Origin, Vec<Origin>> = FxHashMap::default();
    let mut per_arm: Vec<Vec<Origin>> = vec![Vec::new(); arms.len()];
    for o in g.inputs(second)[1..].to_vec() {
        match o {
            Origin::Out(p, j) if p == first => {
                for (a, &arm) in arms.iter().enumerate() {
                    per_arm[a].push(g.results(arm)[j as usize]);
                }
            }
            _ => {
                let args = match entries.get(&o) {
                    Some(args) => args.clone(),
                    None => {
                        let args = g.add_gamma_entry(first, o);
                        entries.insert(o, args.clone());
                        args
                    }
                };
                for (a, arg) in args.into_iter().enumerate() {
                    per_arm[a].push(arg);
                }
            }
        }
    }
    let outputs = g.num_outputs(second);
    let mut exits: Vec<Vec<Origin>> = vec![Vec::with_capacity(arms.len()); outputs];
    for (a, &arm) in arms.iter().enumerate() {
        let results = match decided_alt(g, first, a, c.exit, c.matcher) {
            Some(alt) => {
                counts.decided += 1;
                g.copy_region(second_arms[alt], arm, &per_arm[a])
            }
            None => {
                let value = g.results(arm)[c.exit];
                let pred = match c.matcher {
                    Some(m) => Origin::Out(g.copy_node(m, arm, &[value]), 0),
                    None => value,
                };
                let mut inputs = vec![pred];
                inputs.extend_from_slice(&per_arm[a]);
                let copy = g.copy_node(second, arm, &inputs);
                g.outputs(copy).collect()
            }
        };
        for (k, o) in results.into_iter().enumerate() {
            exits[k].push(o);
        }
    }
    for (k, values) in exits.iter().enumerate() {
        let out = g.add_gamma_exit(first, values);
        g.divert_users(Origin::Out(second, k as u32), out);
    }
    g.remove_node(second);
    if let Some(m) = c.matcher
        && !g.is_used(m)
    {
        g.remove_node(m);
    }
    // the states `second` took from `first` are the copies' in the arms now (a state
    // has one user): those exits go
    let unused: Vec<usize> = (0..g.num_outputs(first))
        .filter(|&k| {
            let o = Origin::Out(first, k as u32);
            g.ty(o).is_state() && !g.has_users(o)
        })
        .collect();
    for k in unused.into_iter().rev() {
        g.remove_gamma_exit(first, k);
    }
    counts.threaded += 1;
}
