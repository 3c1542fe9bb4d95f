//! Loop fusion: two sibling loops that run the same number of iterations and only
//! read memory become one loop doing both bodies per iteration (`fuse.loops`). Their
//! recurrences then overlap: `fnv`'s 64-bit and 32-bit hashes of one key, each a
//! chain of `xor` and `mul` per byte, take four cycles a byte together instead of
//! four each.
//!
//! Loops guarded by a test of their trip count sit in γs (`rvsdg-invert`), so two
//! sibling γs on the same predicate are merged first when an arm of each holds a θ
//! (`fuse.gammas`): the second's arms' nodes move into the first's, its entries that
//! are the first's exits read the arm's values directly, those the first has too read
//! the first's arguments, and one branch is left where there were two.
//!
//! Two θs `T1` and `T2` of one region fuse when
//!
//! - `T2` reads nothing computed from `T1`'s outputs but the states `T1` gives back
//!   (the memory and I/O states its loads thread), and `T1` reads nothing of `T2`;
//! - both bodies hold only simple nodes that are pure or plain loads: no store, call,
//!   trap or nested region, so running `T2`'s iteration `i` after `T1`'s iteration
//!   `i` instead of after all of `T1` reorders nothing but reads of memory nothing
//!   writes;
//! - their predicates are congruent: the same operations on loop variables paired so
//!   that each pair starts from congruent values and is updated by congruent
//!   operations (a bisimulation: by induction the paired variables are equal in every
//!   iteration, so the predicates are, and the trip counts). The pairs are found by
//!   walking back from the predicates.
//!
//! The fused θ keeps `T1`'s variables. A variable of `T2` paired with one of `T1` is
//! `T1`'s; a state `T2` takes from `T1` is threaded through both bodies in turn (`T2`'s
//! accesses after `T1`'s within an iteration); every other variable of `T2` is a new
//! variable of the fused θ. `T2`'s predicate and the copies the pairing made redundant
//! are left to dead node elimination and common node elimination.

use crate::graph::{Node, NodeKind, Origin, Region};
use crate::ops::Rvsdg;
use crate::report::Report;

/// Fuses the sibling loops of every λ of `g` (module documentation).
pub fn fuse_loops(g: &mut Rvsdg, report: &mut Report) {
    let mut counts = Counts::default();
    for l in g.lambdas() {
        let body = g.lambda_body(l);
        fuse_region(g, body, &mut counts);
    }
    report.count("fuse.gammas", counts.gammas as u64);
    report.count("fuse.loops", counts.loops as u64);
}

#[derive(Default)]
struct Counts {
    gammas: usize,
    loops: usize,
}

/// How deep the congruence of two loops' initial values looks through operations.
const OUTER_DEPTH: usize = 4;

/// Fuses in `r`, then in the regions below it.
fn fuse_region(g: &mut Rvsdg, r: Region, counts: &mut Counts) {
    // γs first: merging them makes sibling θs of their arms
    while let Some((first, second)) = gamma_pair(g, r) {
        merge_gammas(g, first, second);
        counts.gammas += 1;
    }
    while let Some((first, second, pairs)) = theta_pair(g, r) {
        merge_thetas(g, first, second, &pairs);
        counts.loops += 1;
    }
    for n in g.nodes(r).to_vec() {
        if g.is_alive(n) {
            for s in g.kind(n).subregions().to_vec() {
                fuse_region(g, s, counts);
            }
        }
    }
}

/// Whether `second` may join `first`: `first` does not depend on `second`, and what
/// `second` reads of `first` it reads directly from `first`'s outputs (each such
/// output passing `allowed`).
fn independent(g: &Rvsdg, first: Node, second: Node, allowed: &dyn Fn(Origin) -> bool) -> bool {
    if g.dependents(second).contains(&first) {
        return false;
    }
    let after_first = g.dependents(first);
    g.inputs(second).iter().all(|&o| match g.producer(o) {
        Some(p) if p == first => allowed(o),
        Some(p) => !after_first.contains(&p),
        None => true,
    })
}

fn has_theta(g: &Rvsdg, arm: Region) -> bool {
    g.nodes(arm)
        .iter()
        .any(|&n| matches!(g.kind(n), NodeKind::Theta { .. }))
}

/// Two γs of `r` on one predicate whose arms at one index both hold a θ, the second
/// independent of the first but for reading its exits.
fn gamma_pair(g: &Rvsdg, r: Region) -> Option<(Node, Node)> {
    let gammas: Vec<Node> = g
        .nodes(r)
        .iter()
        .copied()
        .filter(|&n| matches!(g.kind(n), NodeKind::Gamma { .. }))
        .collect();
    for &a in &gammas {
        for &b in &gammas {
            if a == b || g.input(a, 0) != g.input(b, 0) {
                continue;
            }
            let (arms_a, arms_b) = (g.kind(a).subregions(), g.kind(b).subregions());
            let loops_meet = arms_a
                .iter()
                .zip(arms_b)
                .any(|(&x, &y)| has_theta(g, x) && has_theta(g, y));
            // (the predicate, input 0, is the same origin: not one of `a`'s outputs)
            if loops_meet && independent(g, a, b, &|_| true) {
                return Some((a, b));
            }
        }
    }
    None
}

/// Maps origins of a region whose nodes move into another: arguments to what stands
/// for them there, node outputs to themselves (the nodes keep their identity).
fn mapped(args: &[Origin], o: Origin) -> Origin {
    match o {
        Origin::Arg(_, i) => args[i as usize],
        other => other,
    }
}

/// Moves the nodes of region `from` into `to`, in dependence order, with `from`'s
/// arguments standing for `args` (origins of `to`).
fn move_nodes(g: &mut Rvsdg, from: Region, to: Region, args: &[Origin]) {
    for n in g.topological_order(from) {
        let inputs: Vec<Origin> = g.inputs(n).iter().map(|&o| mapped(args, o)).collect();
        g.move_node(n, to, &inputs);
    }
}

/// Merges γ `second` into γ `first` (same predicate; `second` independent of
/// `first` but for reading its exits).
fn merge_gammas(g: &mut Rvsdg, first: Node, second: Node) {
    let arms_first = g.kind(first).subregions().to_vec();
    let arms_second = g.kind(second).subregions().to_vec();
    // what each of `second`'s arguments is in each of `first`'s arms
    let mut per_arm: Vec<Vec<Origin>> = vec![Vec::new(); arms_first.len()];
    let entries: Vec<Origin> = g.inputs(second)[1..].to_vec();
    for o in entries {
        if g.producer(o) == Some(first) {
            let Origin::Out(_, k) = o else {
                unreachable!("an output of {first}")
            };
            for (a, &arm) in arms_first.iter().enumerate() {
                per_arm[a].push(g.results(arm)[k as usize]);
            }
        } else if let Some(e) = g.inputs(first)[1..].iter().position(|&x| x == o) {
            // an entry `first` has already: its arguments
            for (a, &arm) in arms_first.iter().enumerate() {
                per_arm[a].push(Origin::Arg(arm, e as u32));
            }
        } else {
            let args = g.add_gamma_entry(first, o);
            for (a, arg) in args.into_iter().enumerate() {
                per_arm[a].push(arg);
            }
        }
    }
    for (a, (&to, &from)) in arms_first.iter().zip(&arms_second).enumerate() {
        move_nodes(g, from, to, &per_arm[a]);
    }
    let exits = g.num_outputs(second);
    for k in 0..exits {
        let values: Vec<Origin> = arms_second
            .iter()
            .enumerate()
            .map(|(a, &arm)| mapped(&per_arm[a], g.results(arm)[k]))
            .collect();
        let out = g.add_gamma_exit(first, &values);
        g.divert_users(Origin::Out(second, k as u32), out);
    }
    g.remove_node(second);
    // a state `second` took from `first` now goes on through `second`'s nodes in the
    // arms: `first`'s exit of it, which only `second` read, goes (a state is used
    // once)
    let unused: Vec<usize> = (0..g.num_outputs(first))
        .filter(|&k| {
            let o = Origin::Out(first, k as u32);
            g.ty(o).is_state() && !g.has_users(o)
        })
        .collect();
    for k in unused.into_iter().rev() {
        g.remove_gamma_exit(first, k);
    }
}

/// Whether every node of θ body `body` is a simple node that is pure or a plain load.
fn only_reads(g: &Rvsdg, body: Region) -> bool {
    g.nodes(body).iter().all(|&n| match g.kind(n) {
        NodeKind::Simple(op) => op.is_pure() || op.is_plain_load(),
        _ => false,
    })
}

/// Two θs of `r` that fuse (module documentation), with the pairs of their loop
/// variables (`first`'s index, `second`'s) that the congruence of their predicates
/// found.
fn theta_pair(g: &Rvsdg, r: Region) -> Option<(Node, Node, Vec<(usize, usize)>)> {
    let thetas: Vec<Node> = g
        .nodes(r)
        .iter()
        .copied()
        .filter(|&n| matches!(g.kind(n), NodeKind::Theta { .. }) && only_reads(g, g.theta_body(n)))
        .collect();
    for &a in &thetas {
        for &b in &thetas {
            if a == b {
                continue;
            }
            let mut c = Congruence {
                g,
                first: a,
                second: b,
                pairs: Vec::new(),
                budget: CONGRUENCE_BUDGET,
            };
            let (p1, p2) = (g.results(g.theta_body(a))[0], g.results(g.theta_body(b))[0]);
            // (congruence first: it looks at the two bodies only, while
            // independence walks the region)
            if !c.inner(p1, p2) {
                continue;
            }
            let pairs = c.pairs;
            if !independent(g, a, b, &|o| g.ty(o).is_state()) {
                continue;
            }
            // each state taken from `a` is threaded once
            let from_a: Vec<Origin> = g
                .inputs(b)
                .iter()
                .copied()
                .filter(|&o| g.producer(o) == Some(a))
                .collect();
            if (1..from_a.len()).any(|i| from_a[..i].contains(&from_a[i])) {
                continue;
            }
            return Some((a, b, pairs));
        }
    }
    None
}

/// The congruence of two θs' predicates (module documentation).
struct Congruence<'a> {
    g: &'a Rvsdg,
    first: Node,
    second: Node,
    /// Loop variables assumed (then proven) equal.
    pairs: Vec<(usize, usize)>,
    /// Comparisons left: the walk gives up (no fusion) when it runs out.
    budget: usize,
}

/// How many pairs of origins one congruence walk compares at most (it recurses once
/// per pair).
const CONGRUENCE_BUDGET: usize = 256;

impl Congruence<'_> {
    /// Whether `x` (of `first`'s body) and `y` (of `second`'s) are equal in every
    /// iteration.
    fn inner(&mut self, x: Origin, y: Origin) -> bool {
        let g = self.g;
        if self.budget == 0 {
            return false;
        }
        self.budget -= 1;
        match (x, y) {
            (Origin::Arg(_, i), Origin::Arg(_, j)) => {
                let (i, j) = (i as usize, j as usize);
                if self.pairs.contains(&(i, j)) {
                    return true;
                }
                if self.pairs.iter().any(|&(a, b)| a == i || b == j) {
                    return false;
                }
                let (ix, iy) = (g.input(self.first, i), g.input(self.second, j));
                if g.ty(ix).is_state() || !outer_equal(g, ix, iy, OUTER_DEPTH) {
                    return false;
                }
                self.pairs.push((i, j));
                let (rx, ry) = (
                    g.results(g.theta_body(self.first))[i + 1],
                    g.results(g.theta_body(self.second))[j + 1],
                );
                self.inner(rx, ry)
            }
            (Origin::Out(n, k), Origin::Out(m, l)) if k == l => {
                let (NodeKind::Simple(a), NodeKind::Simple(b)) = (g.kind(n), g.kind(m)) else {
                    return false;
                };
                if a != b || !a.is_pure() || g.output_types(n) != g.output_types(m) {
                    return false;
                }
                let (xs, ys) = (g.inputs(n).to_vec(), g.inputs(m).to_vec());
                xs.len() == ys.len() && xs.iter().zip(&ys).all(|(&p, &q)| self.inner(p, q))
            }
            _ => false,
        }
    }
}

/// Whether origins `x` and `y` of one region are equal: the same origin, or the
/// outputs of equal pure simple nodes on equal inputs (within `depth` nodes).
fn outer_equal(g: &Rvsdg, x: Origin, y: Origin, depth: usize) -> bool {
    if x == y {
        return true;
    }
    let (Origin::Out(n, k), Origin::Out(m, l)) = (x, y) else {
        return false;
    };
    if k != l || depth == 0 {
        return false;
    }
    let (NodeKind::Simple(a), NodeKind::Simple(b)) = (g.kind(n), g.kind(m)) else {
        return false;
    };
    a == b
        && a.is_pure()
        && g.output_types(n) == g.output_types(m)
        && g.inputs(n).len() == g.inputs(m).len()
        && g.inputs(n)
            .iter()
            .zip(g.inputs(m))
            .all(|(&p, &q)| outer_equal(g, p, q, depth - 1))
}

/// Fuses θ `second` into θ `first` (see [`theta_pair`]), `pairs` of their variables
/// equal in every iteration.
fn merge_thetas(g: &mut Rvsdg, first: Node, second: Node, pairs: &[(usize, usize)]) {
    let body1 = g.theta_body(first);
    let body2 = g.theta_body(second);
    let vars2 = g.inputs(second).len();
    // what each of `second`'s arguments is in the fused body, and where each of its
    // results goes: a paired variable is `first`'s; a state taken from `first`'s
    // output `k` continues `first`'s variable `k` (its result set after the move);
    // the others are new variables
    let mut args: Vec<Origin> = Vec::with_capacity(vars2);
    enum Var {
        Paired(usize),
        Threaded(usize),
        New(Origin, Origin),
    }
    let mut vars: Vec<Var> = Vec::with_capacity(vars2);
    for j in 0..vars2 {
        let init = g.input(second, j);
        if let Some(&(i, _)) = pairs.iter().find(|&&(_, b)| b == j) {
            args.push(Origin::Arg(body1, i as u32));
            vars.push(Var::Paired(i));
        } else if g.producer(init) == Some(first) {
            let Origin::Out(_, k) = init else {
                unreachable!("an output of {first}")
            };
            let k = k as usize;
            // the state after `first`'s body in this iteration
            args.push(g.results(body1)[k + 1]);
            vars.push(Var::Threaded(k));
        } else {
            let (arg, out) = g.add_theta_var(first, init);
            args.push(arg);
            vars.push(Var::New(arg, out));
        }
    }
    move_nodes(g, body2, body1, &args);
    for (j, var) in vars.iter().enumerate() {
        let next = mapped(&args, g.results(body2)[j + 1]);
        let out2 = Origin::Out(second, j as u32);
        match *var {
            Var::Paired(i) => {
                g.divert_users(out2, Origin::Out(first, i as u32));
            }
            Var::Threaded(k) => {
                g.set_result(body1, k + 1, next);
                g.divert_users(out2, Origin::Out(first, k as u32));
            }
            Var::New(arg, out) => {
                let Origin::Arg(_, i) = arg else {
                    unreachable!("a body argument")
                };
                g.set_result(body1, i as usize + 1, next);
                g.divert_users(out2, out);
            }
        }
    }
    g.remove_node(second);
}
