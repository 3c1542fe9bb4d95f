//! The structural rules, for any operations ([`Graph<O>`]), in three stages, each
//! relying on the ones before (so that an ill-formed graph is reported, never panics
//! the verifier):
//!
//! 1. placement: every region reachable from the root is live, and lists live nodes
//!    that say they are in it, each once; every subregion is owned by the node that
//!    lists it; nothing live is out of reach; the root holds only λs, and λs live
//!    only there;
//! 2. edges: every input and result reads an existing origin of its own region (not of
//!    a removed node), and users lists are exact: each user is in its origin's list,
//!    once, and every listed user reads that origin;
//! 3. the rest: each region is acyclic (inputs of structural nodes are edges like any
//!    other: a subregion reads only its own arguments, so a γ's predicate, an input of
//!    its region, is available before the γ), γ, θ and λ have the shapes of
//!    `graph.rs`, and states are used linearly (below).
//!
//! **Linearity of states.** Every state origin (an output or argument of a type of
//! [`Kind::State`]) has exactly one user, with a single exception: a *sink* — a node
//! with a state input and no state output, which never completes (`trap`, or a γ
//! all of whose arms end in one) — may share the state it reads with one result of
//! its region. So:
//! - no state has two users that are effects: their order would be unspecified;
//! - no state is unused: a region gives back every state it receives (a θ's body and
//!   a λ by their shapes; a γ by the linearity of its arms, whose state arguments
//!   must reach a result or a sink), so an unused state is a chain of effects cut
//!   short — effects that nothing after them would wait for, and that dead-node
//!   elimination would take for dead;
//! - a region that ends in a sink still needs state results: it reads them from the
//!   states the sink consumed, which no effect can observe, since nothing runs after
//!   the sink. Each arm of a γ reads its own state arguments, which are distinct
//!   origins: "once" is per region, as a state is.

use std::fmt::Display;

use cranelift_entity::EntityRef;
use rustc_hash::FxHashSet;

use super::{Report, Rule, Scope, VerifyError};
use crate::changes::Changes;
use crate::graph::{Graph, Kind, Node, NodeKind, Operation, Origin, Region, User};

/// Verify the structural rules alone, for a graph of any operations: `lambda_name`
/// names a λ in messages. (The compiler's graphs have [`super::verify`], which also
/// types the operations.)
pub fn verify_structure<'g, O>(
    g: &'g Graph<O>,
    lambda_name: &'g dyn Fn(&O::Lambda) -> String,
) -> Result<(), Vec<VerifyError>>
where
    O: Operation + Display,
    O::Type: Display,
{
    let mut report = Report::new(g, lambda_name);
    check(&mut report, &Scope::All);
    report.finish()
}

/// Check the structural rules in the regions of `scope`. Returns the regions checked,
/// if the graph is sound enough for rules on their nodes (stages 1 and 2 hold:
/// indices are valid, users lists exact).
pub(super) fn check<O>(report: &mut Report<'_, O>, scope: &Scope<'_>) -> Option<Vec<Region>>
where
    O: Operation + Display,
    O::Type: Display,
{
    let before = report.count();
    let regions = match scope {
        Scope::All => placement(report),
        Scope::Changed(changes) => changed_placement(report, changes),
    };
    if report.count() > before {
        return None;
    }
    edges(report, &regions);
    if report.count() > before {
        return None;
    }
    let g = report.g;
    for &r in &regions {
        acyclic(report, r);
        linearity(report, r);
        for &n in g.nodes(r) {
            shape(report, n);
        }
    }
    if let Scope::Changed(_) = scope {
        // a changed subregion of a node in an unchanged region: the node's shape
        let checked: FxHashSet<Region> = regions.iter().copied().collect();
        let mut owners: Vec<Node> = (regions.iter())
            .filter_map(|&r| g.owner(r))
            .filter(|&n| !checked.contains(&g.node(n).region))
            .collect();
        owners.sort_unstable();
        owners.dedup();
        for n in owners {
            shape(report, n);
        }
    }
    Some(regions)
}

/// Stage 1. Returns the regions reachable from the root, parents first.
fn placement<O>(report: &mut Report<'_, O>) -> Vec<Region>
where
    O: Operation + Display,
{
    let g = report.g;
    let (nn, nr) = (g.node_capacity(), g.region_capacity());
    let root = g.root();
    let mut listed = vec![false; nn];
    let mut reached = vec![false; nr];
    reached[root.index()] = true;
    let mut regions = vec![root];
    root_region(report);
    let mut i = 0;
    while i < regions.len() {
        let r = regions[i];
        i += 1;
        if !g.region_is_alive(r) {
            report.region(r, Rule::Structure, "removed, but its owner is live".into());
            continue;
        }
        for n in list(report, r, &mut listed) {
            for &s in g.kind(n).subregions() {
                let problem = subregion_problem(g, n, s).or_else(|| {
                    std::mem::replace(&mut reached[s.index()], true)
                        .then(|| "is reached twice".to_string())
                });
                match problem {
                    Some(p) => report.node(n, Rule::Structure, format!("subregion {s} {p}")),
                    None => regions.push(s),
                }
            }
        }
    }
    for (i, &seen) in listed.iter().enumerate() {
        let n = Node::new(i);
        if !seen && g.is_alive(n) {
            report.node(
                n,
                Rule::Structure,
                "live, but in the list of no region reachable from the root".into(),
            );
        }
    }
    for (i, &seen) in reached.iter().enumerate() {
        let r = Region::new(i);
        if !seen && g.region_is_alive(r) {
            report.region(
                r,
                Rule::Structure,
                "live, but not reachable from the root".into(),
            );
        }
    }
    regions
}

/// Stage 1 on what changed: the root region, the changed regions and every region
/// below a changed λ, each owned by a live node that lists it, whose nodes say they
/// are in it. Returns those regions (the root first, then in index order).
fn changed_placement<O>(report: &mut Report<'_, O>, changes: &Changes) -> Vec<Region>
where
    O: Operation + Display,
{
    let g = report.g;
    let root = g.root();
    root_region(report);
    let mut regions = changes.regions.clone();
    for &l in &changes.lambdas {
        regions.extend(g.regions_below(g.lambda_body(l)));
    }
    regions.sort_unstable();
    regions.dedup();
    let mut listed = vec![false; g.node_capacity()];
    list(report, root, &mut listed);
    for &r in &regions {
        let owned = g.owner(r).is_some_and(|n| {
            g.is_alive(n) && g.region_is_alive(g.node(n).region) && {
                g.kind(n).subregions().contains(&r)
            }
        });
        if !owned {
            report.region(
                r,
                Rule::Structure,
                "live, but its owner does not list it".into(),
            );
            continue;
        }
        for n in list(report, r, &mut listed) {
            for &s in g.kind(n).subregions() {
                if let Some(p) = subregion_problem(g, n, s) {
                    report.node(n, Rule::Structure, format!("subregion {s} {p}"));
                }
            }
        }
    }
    regions.insert(0, root);
    regions
}

/// The root region has no owner, arguments or results.
fn root_region<O>(report: &mut Report<'_, O>)
where
    O: Operation + Display,
{
    let g = report.g;
    let root = g.root();
    if g.owner(root).is_some() || !g.args(root).is_empty() || !g.results(root).is_empty() {
        report.region(
            root,
            Rule::Structure,
            "the root region has an owner, arguments or results".into(),
        );
    }
}

/// The nodes region `r` lists that exist, are live, listed once (`listed` marks the
/// nodes seen in any list) and say they are in `r`; λs only in the root, and only λs.
fn list<O>(report: &mut Report<'_, O>, r: Region, listed: &mut [bool]) -> Vec<Node>
where
    O: Operation + Display,
{
    let g = report.g;
    let root = g.root();
    let mut good = Vec::with_capacity(g.nodes(r).len());
    for &n in g.nodes(r) {
        let problem = if n.index() >= g.node_capacity() {
            Some("which does not exist")
        } else if std::mem::replace(&mut listed[n.index()], true) {
            Some("which is listed already")
        } else if !g.is_alive(n) {
            Some("which is removed")
        } else {
            None
        };
        if let Some(p) = problem {
            report.region(r, Rule::Structure, format!("lists {n}, {p}"));
            continue;
        }
        let home = g.node(n).region;
        if home != r {
            report.node(
                n,
                Rule::Structure,
                format!("listed in {r}, but says it is in {home}"),
            );
            continue;
        }
        let is_lambda = matches!(g.kind(n), NodeKind::Lambda { .. });
        if r == root && !is_lambda {
            report.node(n, Rule::Structure, "the root region holds only λs".into());
        } else if r != root && is_lambda {
            report.node(n, Rule::Structure, "a λ outside the root region".into());
        }
        good.push(n);
    }
    good
}

/// Why subregion `s` of node `n` is not rightly its own, if it is not.
fn subregion_problem<O: Operation>(g: &Graph<O>, n: Node, s: Region) -> Option<String> {
    if s.index() >= g.region_capacity() {
        Some("does not exist".to_string())
    } else if g.owner(s) != Some(n) {
        Some(match g.owner(s) {
            Some(o) => format!("is owned by {o}"),
            None => "has no owner".into(),
        })
    } else {
        None
    }
}

/// Stage 2, on the regions stage 1 found sound.
fn edges<O>(report: &mut Report<'_, O>, regions: &[Region])
where
    O: Operation + Display,
{
    let g = report.g;
    // Users lists: each listed user reads the origin back and sits where its place
    // says (so it is listed once: a user reads one origin and has one place).
    for &r in regions {
        for o in g.arg_origins(r) {
            users_of(report, o);
        }
        for &n in g.nodes(r) {
            for o in g.outputs(n) {
                users_of(report, o);
            }
        }
    }
    // Edges: each reads a valid origin of its region, and is in that origin's list.
    for &r in regions {
        for (i, &o) in g.results(r).iter().enumerate() {
            edge(report, User::Res(r, i as u32), o, r);
        }
        for &n in g.nodes(r) {
            for (i, &o) in g.inputs(n).iter().enumerate() {
                edge(report, User::In(n, i as u32), o, r);
            }
        }
    }
}

fn users_of<O>(report: &mut Report<'_, O>, o: Origin)
where
    O: Operation + Display,
{
    let users = report.g.users(o);
    for (k, &u) in users.iter().enumerate() {
        let place = report.g.user_slot(u) as usize;
        let message = if reads(report.g, u) != Some(o) {
            format!("its users list names {}, which does not read it", user(u))
        } else if place == k {
            continue;
        } else if users.get(place) == Some(&u) {
            format!("its users list names {} twice", user(u))
        } else {
            format!(
                "its users list has {} at {k}, where the edge's place says {place}",
                user(u)
            )
        };
        at_origin(report, o, Rule::Structure, message);
    }
}

fn edge<O>(report: &mut Report<'_, O>, u: User, o: Origin, r: Region)
where
    O: Operation + Display,
{
    let g = report.g;
    let message = match origin_problem(g, o, r) {
        Some(p) => format!("{} reads {}, {p}", user(u), origin(o)),
        None if g.users(o).get(g.user_slot(u) as usize) != Some(&u) => format!(
            "{} reads {}, but is not in its users list",
            user(u),
            origin(o)
        ),
        None => return,
    };
    match u {
        User::In(n, _) => report.node(n, Rule::Structure, message),
        User::Res(r, _) => report.region(r, Rule::Structure, message),
    }
}

/// What user `u` reads, if it exists.
fn reads<O: Operation>(g: &Graph<O>, u: User) -> Option<Origin> {
    match u {
        User::In(n, i) => (n.index() < g.node_capacity() && g.is_alive(n))
            .then(|| g.inputs(n).get(i as usize).copied())
            .flatten(),
        User::Res(r, i) => (r.index() < g.region_capacity() && g.region_is_alive(r))
            .then(|| g.results(r).get(i as usize).copied())
            .flatten(),
    }
}

/// Why origin `o` cannot be read in region `r`, if it cannot.
fn origin_problem<O: Operation>(g: &Graph<O>, o: Origin, r: Region) -> Option<String> {
    Some(match o {
        Origin::Out(n, _) if n.index() >= g.node_capacity() => "which does not exist".into(),
        Origin::Out(n, _) if !g.is_alive(n) => "a removed node's".into(),
        Origin::Out(n, i) if i as usize >= g.num_outputs(n) => "which does not exist".into(),
        Origin::Out(n, _) if g.node(n).region != r => {
            format!("which is in {}, not here", g.node(n).region)
        }
        Origin::Arg(q, _) if q.index() >= g.region_capacity() => "which does not exist".into(),
        Origin::Arg(_, u32::MAX) => "the placeholder of a θ predicate never set".into(),
        Origin::Arg(q, _) if !g.region_is_alive(q) => "a removed region's".into(),
        Origin::Arg(q, i) if i as usize >= g.args(q).len() => "which does not exist".into(),
        Origin::Arg(q, _) if q != r => format!("which is in {q}, not here"),
        _ => return None,
    })
}

/// Report at the node or region of origin `o`.
fn at_origin<O>(report: &mut Report<'_, O>, o: Origin, rule: Rule, message: String)
where
    O: Operation + Display,
{
    match o {
        Origin::Out(n, _) => report.node(n, rule, message),
        Origin::Arg(r, _) => report.region(r, rule, message),
    }
}

fn origin(o: Origin) -> String {
    match o {
        Origin::Out(n, i) => format!("output {i} of {n}"),
        Origin::Arg(r, i) => format!("argument {i} of {r}"),
    }
}

fn user(u: User) -> String {
    match u {
        User::In(n, i) => format!("input {i} of {n}"),
        User::Res(r, i) => format!("result {i} of {r}"),
    }
}

/// Stage 3: the nodes of `r` have a topological order.
fn acyclic<O>(report: &mut Report<'_, O>, r: Region)
where
    O: Operation + Display,
{
    let g = report.g;
    let order = g.topological_order(r);
    if order.len() == g.nodes(r).len() {
        return;
    }
    let ordered: FxHashSet<Node> = order.into_iter().collect();
    let mut stuck: Vec<Node> = g
        .nodes(r)
        .iter()
        .copied()
        .filter(|n| !ordered.contains(n))
        .collect();
    stuck.sort_unstable();
    let names: Vec<String> = stuck.iter().take(8).map(|n| n.to_string()).collect();
    report.node(
        stuck[0],
        Rule::Acyclic,
        format!(
            "on a cycle or after one, with {}{}",
            names.join(", "),
            if stuck.len() > 8 { ", ..." } else { "" }
        ),
    );
}

/// Stage 3: γ, θ and λ have the shapes of `graph.rs`.
fn shape<O>(report: &mut Report<'_, O>, n: Node)
where
    O: Operation + Display,
    O::Type: Display,
{
    let g = report.g;
    let mut err = |message: String| report.node(n, Rule::Arity, message);
    match g.kind(n) {
        NodeKind::Simple(_) => {}
        NodeKind::Gamma { arms } => {
            let Some((&predicate, entries)) = g.inputs(n).split_first() else {
                return err("a γ without a predicate".into());
            };
            if arms.is_empty() {
                return err("a γ without arms".into());
            }
            let want = O::control(arms.len() as u32);
            if g.ty(predicate) != want {
                err(format!(
                    "the predicate has type {}, expected {want} (one alternative per arm)",
                    g.ty(predicate)
                ));
            }
            for (k, &arm) in arms.iter().enumerate() {
                let args = g.args(arm);
                if args.len() != entries.len() {
                    err(format!(
                        "arm {k} ({arm}) has {} argument(s) for {} entry variable(s)",
                        args.len(),
                        entries.len()
                    ));
                } else {
                    for (i, (a, &e)) in args.iter().zip(entries).enumerate() {
                        if a.ty != g.ty(e) {
                            err(format!(
                                "argument {i} of arm {k} has type {}, its entry variable {}",
                                a.ty,
                                g.ty(e)
                            ));
                        }
                    }
                }
                let results = g.results(arm);
                if results.len() != g.num_outputs(n) {
                    err(format!(
                        "arm {k} ({arm}) has {} result(s) for {} output(s)",
                        results.len(),
                        g.num_outputs(n)
                    ));
                } else {
                    for (i, (&res, out)) in results.iter().zip(g.outputs(n)).enumerate() {
                        if g.ty(res) != g.ty(out) {
                            err(format!(
                                "result {i} of arm {k} has type {}, the output {}",
                                g.ty(res),
                                g.ty(out)
                            ));
                        }
                    }
                }
            }
        }
        NodeKind::Theta { body } => {
            let (inputs, args, results) = (g.inputs(n), g.args(*body), g.results(*body));
            if args.len() != inputs.len() || g.num_outputs(n) != inputs.len() {
                return err(format!(
                    "{} input(s), {} body argument(s), {} output(s): one of each per loop variable",
                    inputs.len(),
                    args.len(),
                    g.num_outputs(n)
                ));
            }
            for (i, ((&input, a), out)) in inputs.iter().zip(args).zip(g.outputs(n)).enumerate() {
                if g.ty(input) != a.ty || a.ty != g.ty(out) {
                    err(format!(
                        "loop variable {i}: input of type {}, argument {}, output {}",
                        g.ty(input),
                        a.ty,
                        g.ty(out)
                    ));
                }
            }
            if results.len() != inputs.len() + 1 {
                return err(format!(
                    "the body has {} result(s), expected {} (the predicate, then the loop variables)",
                    results.len(),
                    inputs.len() + 1
                ));
            }
            let want = O::control(2);
            if g.ty(results[0]) != want {
                err(format!(
                    "the predicate (result 0 of the body) has type {}, expected {want}",
                    g.ty(results[0])
                ));
            }
            for (i, (&res, a)) in results[1..].iter().zip(args).enumerate() {
                if g.ty(res) != a.ty {
                    err(format!(
                        "result {} of the body has type {}, loop variable {i} {}",
                        i + 1,
                        g.ty(res),
                        a.ty
                    ));
                }
            }
        }
        NodeKind::Lambda { .. } => {
            if !g.inputs(n).is_empty() || g.num_outputs(n) != 0 {
                err("a λ has neither inputs nor outputs".into());
            }
        }
    }
}

/// Stage 3: the states of region `r` (its arguments, its nodes' outputs) are used
/// linearly.
fn linearity<O>(report: &mut Report<'_, O>, r: Region)
where
    O: Operation + Display,
    O::Type: Display,
{
    let g = report.g;
    for o in g.arg_origins(r) {
        state_use(report, o);
    }
    for &n in g.nodes(r) {
        for o in g.outputs(n) {
            state_use(report, o);
        }
    }
}

fn state_use<O>(report: &mut Report<'_, O>, o: Origin)
where
    O: Operation + Display,
    O::Type: Display,
{
    let g = report.g;
    let ty = g.ty(o);
    if O::kind(ty) != Kind::State {
        return;
    }
    let sink_and_result = |s: User, res: User| {
        matches!(res, User::Res(..)) && matches!(s, User::In(m, _) if is_sink(g, m))
    };
    let message = match *g.users(o) {
        [_] => return,
        [a, b] if sink_and_result(a, b) || sink_and_result(b, a) => return,
        [] => format!(
            "{} ({ty}) is not used: a state goes on to the next effect or out of its region",
            origin(o)
        ),
        ref users => format!(
            "{} ({ty}) has {} users ({}): a state is used once, so that it orders the effects",
            origin(o),
            users.len(),
            users
                .iter()
                .map(|&u| user(u))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    at_origin(report, o, Rule::Linearity, message);
}

/// A node that reads a state and gives none back: it never completes.
fn is_sink<O: Operation>(g: &Graph<O>, n: Node) -> bool {
    let state = |o: Origin| O::kind(g.ty(o)) == Kind::State;
    g.inputs(n).iter().any(|&o| state(o)) && !g.outputs(n).any(state)
}
