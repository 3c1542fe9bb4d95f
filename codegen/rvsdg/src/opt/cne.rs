//! Common node elimination (Reissmann et al. §5, "common node elimination"):
//! congruent nodes and structural variables become one.
//!
//! - **Simple nodes.** Two simple nodes of one region with the same operation (equal
//!   with operands cleared), the same output types (an `iconst`'s type is its
//!   output's) and the same input origins compute the same values: the first in
//!   topological order stays, the other's users read it, and it goes (`cne.nodes`).
//!   Only pure operations: a node with a state is an effect, ordered on its state
//!   chain, and two effects stay two (a division that may trap is an effect on the
//!   I/O state) — but for loads:
//! - **Loads** (only in [`common_node_elimination_with_loads`], which
//!   `rvsdg-mem-split` runs). Two plain loads of one region with the same operation (type, offset,
//!   alignment), the same address and the same memory *version* — the memory state
//!   they read, seen through the plain loads before them on its chain (a load writes
//!   nothing) — read the same bytes of the same memory: the later one's value is the
//!   first's, its memory state's user reads its memory input, and it goes
//!   (`cne.loads`). It cannot fault where the first did not: same address, same
//!   alignment promise, and the first ran before it. With the memory state split by
//!   location (`rvsdg-mem-split`), accesses to other locations are on other chains, so
//!   stores to them no longer separate two loads.
//! - **γ entry variables** with the same input are one: the arms read the first one's
//!   argument (`cne.gamma-entries`), so the nodes of each arm that read them become
//!   congruent too.
//! - **γ exit variables** whose results are the same origin in every arm are one
//!   (`cne.gamma-exits`).
//! - **θ loop variables** with the same input whose next values are congruent
//!   (optimistically: assuming that the variables under test are equal, the next
//!   values are computed by congruent nodes from congruent variables) are one
//!   (`cne.theta-vars`). This is the paper's partitioning of θ variables, one θ
//!   body at a time: the candidate variables start in classes by input and type,
//!   the body is value-numbered with the variables of a class as one value, and
//!   classes are split by the value numbers of the next values until nothing splits.
//!   Nodes nested in γs or θs of the body count as distinct. By induction on the
//!   iterations, the variables of a class hold equal values in every iteration.
//!   States are never merged (each has one user).
//!
//! - **Into γ arms** (only in [`common_node_elimination_into_gammas`], off by default:
//!   `rvsdg-cne-gamma=on`). A node of an arm whose inputs are all entry variables is
//!   congruent to a node of the γ's region before the γ with the same operation on
//!   the entry variables' inputs and on the outer twins of the arm's constants (for
//!   a load: its address, and its memory version seen through the plain loads of the
//!   arm and then of the outer region): the outer
//!   node's value enters the arm as an entry variable (an existing one if it already
//!   does), the arm's users read it, and the arm's node goes (`cne.into-gamma`). The
//!   outer node runs whenever the γ does (it is before it in its region), so nothing
//!   runs that did not; a merge-sort loop's `tmp[k] = a[i]` after `if a[i] <= a[j]`
//!   loads `a[i]` once. One level: an arm's nodes against its γ's region.
//!
//! Regions are processed in topological order, each node once: a γ or θ's inputs are
//! final when it is reached, its subregions are processed then (innermost first), and
//! its merged outputs make the nodes after it congruent in turn.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::graph::{Node, NodeKind, Origin, Region};
use crate::ops::{Op, Rvsdg, Ty};
use crate::report::Report;

/// Merges the congruent nodes and variables of `g` (not loads).
pub fn common_node_elimination(g: &mut Rvsdg, report: &mut Report) {
    run(g, false, false, report);
}

/// [`common_node_elimination`], and loads of one address on one memory version:
/// what `rvsdg-mem-split` runs after splitting the memory state (and only then, until
/// the suites have run with it).
pub fn common_node_elimination_with_loads(g: &mut Rvsdg, report: &mut Report) {
    run(g, true, false, report);
}

/// [`common_node_elimination_with_loads`], and the nodes of γ arms congruent to nodes
/// of the γ's region (the module's documentation, "Into γ arms").
pub fn common_node_elimination_into_gammas(g: &mut Rvsdg, report: &mut Report) {
    run(g, true, true, report);
}

fn run(g: &mut Rvsdg, loads: bool, into_gammas: bool, report: &mut Report) {
    let mut counts = Counts {
        merge_loads: loads,
        into_gammas,
        ..Counts::default()
    };
    for l in g.lambdas() {
        let body = g.lambda_body(l);
        region(g, body, None, &mut counts);
    }
    report.count("cne.nodes", counts.nodes as u64);
    report.count("cne.gamma-entries", counts.gamma_entries as u64);
    report.count("cne.gamma-exits", counts.gamma_exits as u64);
    report.count("cne.theta-vars", counts.theta_vars as u64);
    if loads {
        report.count("cne.loads", counts.loads as u64);
    }
    if into_gammas {
        report.count("cne.into-gamma", counts.into_gamma as u64);
    }
}

#[derive(Default)]
struct Counts {
    nodes: usize,
    gamma_entries: usize,
    gamma_exits: usize,
    theta_vars: usize,
    loads: usize,
    into_gamma: usize,
    /// Whether loads merge too.
    merge_loads: bool,
    /// Whether nodes of γ arms are matched against their γ's region.
    into_gammas: bool,
}

/// A γ arm's view of its γ's region: the γ, and what that region had seen before it.
struct Outer<'a> {
    gamma: Node,
    seen: &'a FxHashMap<Key, Node>,
}

/// The most refinement rounds of one θ's loop variables (each a walk of its body).
const MAX_ROUNDS: usize = 8;

/// What makes two simple nodes of a region congruent.
type Key = (Op, SmallVec<[Ty; 2]>, SmallVec<[Origin; 3]>);

fn region(g: &mut Rvsdg, r: Region, outer: Option<&Outer>, counts: &mut Counts) {
    let mut seen: FxHashMap<Key, Node> = FxHashMap::default();
    for n in g.topological_order(r) {
        match g.kind(n) {
            NodeKind::Simple(op) if counts.merge_loads && op.is_plain_load() => {
                let key = (
                    op.clone(),
                    g.output_types(n),
                    SmallVec::from_slice(&[g.input(n, 0), version(g, n)]),
                );
                if !seen.contains_key(&key)
                    && g.inputs(n).len() == 2
                    && g.num_outputs(n) == 2
                    && let Some(outer) = outer
                    && let Some(arg) = outer_twin(g, r, outer, &key, true)
                {
                    remove_load(g, n, arg);
                    counts.into_gamma += 1;
                    continue;
                }
                match seen.get(&key) {
                    Some(&first) if g.inputs(n).len() == 2 && g.num_outputs(n) == 2 => {
                        remove_load(g, n, Origin::Out(first, 0));
                        counts.loads += 1;
                    }
                    _ => {
                        seen.insert(key, n);
                    }
                }
            }
            NodeKind::Simple(op) => {
                if !op.is_pure() {
                    continue;
                }
                let key = (
                    op.clone(),
                    g.output_types(n),
                    SmallVec::from_slice(g.inputs(n)),
                );
                if !seen.contains_key(&key)
                    && g.num_outputs(n) == 1
                    && let Some(outer) = outer
                    && let Some(arg) = outer_twin(g, r, outer, &key, false)
                {
                    g.divert_users(Origin::Out(n, 0), arg);
                    g.remove_node(n);
                    counts.into_gamma += 1;
                    continue;
                }
                match seen.get(&key) {
                    Some(&first) => {
                        for i in 0..g.num_outputs(n) as u32 {
                            g.divert_users(Origin::Out(n, i), Origin::Out(first, i));
                        }
                        g.remove_node(n);
                        counts.nodes += 1;
                    }
                    None => {
                        seen.insert(key, n);
                    }
                }
            }
            NodeKind::Gamma { arms } => {
                let arms = arms.clone();
                counts.gamma_entries += gamma_entries(g, n, &arms);
                let here = Outer {
                    gamma: n,
                    seen: &seen,
                };
                for &a in &arms {
                    region(g, a, counts.into_gammas.then_some(&here), counts);
                }
                counts.gamma_exits += gamma_exits(g, n, &arms);
            }
            NodeKind::Theta { body } => {
                let body = *body;
                counts.theta_vars += theta_vars(g, n, body);
                region(g, body, None, counts);
            }
            NodeKind::Lambda { .. } => {}
        }
    }
}

/// Removes plain load `n` (address and memory in, value and memory out), its value's
/// users reading `value` and its memory output's users its memory input.
fn remove_load(g: &mut Rvsdg, n: Node, value: Origin) {
    g.divert_users(Origin::Out(n, 0), value);
    g.divert_users(Origin::Out(n, 1), g.input(n, 1));
    g.remove_node(n);
}

/// The memory version plain load `n` reads: its memory input, seen through the plain
/// loads before it on the chain.
fn version(g: &Rvsdg, n: Node) -> Origin {
    version_of(
        g,
        g.inputs(n)
            .last()
            .copied()
            .expect("a load reads the memory state"),
    )
}

/// Memory state `o` seen through the plain loads that produced it.
fn version_of(g: &Rvsdg, mut o: Origin) -> Origin {
    while let Some(m) = g.producer(o)
        && g.op(m).is_some_and(Op::is_plain_load)
        && g.inputs(m).len() == 2
    {
        o = g.input(m, 1);
    }
    o
}

/// The argument of arm `arm` that carries the value of the node of `outer`'s region
/// congruent to a node of the arm with key `key` (its inputs all the arm's
/// arguments; for a load, `key`'s inputs are its address and memory version), an
/// entry variable added if none carries it yet; `None` if there is no such node.
fn outer_twin(g: &mut Rvsdg, arm: Region, outer: &Outer, key: &Key, load: bool) -> Option<Origin> {
    // an input as the outer region sees it: an entry variable's input, or the outer
    // twin of a constant of the arm (nodes without inputs are not routed themselves:
    // a constant is cheaper made again than kept in a register across the γ)
    let through = |g: &Rvsdg, o: Origin| match o {
        Origin::Arg(r, j) if r == arm => Some(g.input(outer.gamma, j as usize + 1)),
        Origin::Out(c, 0) if g.inputs(c).is_empty() => {
            let op = g.op(c).filter(|op| op.is_pure())?.clone();
            let key = (op, g.output_types(c), SmallVec::new());
            outer.seen.get(&key).map(|&m| Origin::Out(m, 0))
        }
        _ => None,
    };
    if key.2.is_empty() {
        return None;
    }
    let mut inputs: SmallVec<[Origin; 3]> = SmallVec::new();
    for (i, &o) in key.2.iter().enumerate() {
        let o = through(g, o)?;
        // a load's memory version: the entry's input seen through the outer loads
        inputs.push(if load && i == 1 { version_of(g, o) } else { o });
    }
    let twin = *outer.seen.get(&(key.0.clone(), key.1.clone(), inputs))?;
    let value = Origin::Out(twin, 0);
    let arms = g.kind(outer.gamma).subregions().to_vec();
    let index = arms.iter().position(|&a| a == arm)?;
    for j in 0..g.inputs(outer.gamma).len() - 1 {
        if g.input(outer.gamma, j + 1) == value {
            return Some(Origin::Arg(arm, j as u32));
        }
    }
    Some(g.add_gamma_entry(outer.gamma, value)[index])
}

/// Merges the entry variables of γ `n` that have the same input.
fn gamma_entries(g: &mut Rvsdg, n: Node, arms: &[Region]) -> usize {
    let mut first: FxHashMap<Origin, usize> = FxHashMap::default();
    let mut dups = Vec::new();
    for j in 0..g.inputs(n).len() - 1 {
        let o = g.input(n, j + 1);
        if g.ty(o).is_state() {
            continue;
        }
        match first.get(&o) {
            Some(&k) => dups.push((j, k)),
            None => {
                first.insert(o, j);
            }
        }
    }
    for &(j, k) in &dups {
        for &a in arms {
            g.divert_users(Origin::Arg(a, j as u32), Origin::Arg(a, k as u32));
        }
    }
    // all at once: one by one, each removal renumbers every later entry
    let gone: rustc_hash::FxHashSet<usize> = dups.iter().map(|d| d.0).collect();
    if !gone.is_empty() {
        g.remove_gamma_entries(n, |j| gone.contains(&j));
    }
    dups.len()
}

/// Merges the exit variables of γ `n` whose results are the same in every arm.
fn gamma_exits(g: &mut Rvsdg, n: Node, arms: &[Region]) -> usize {
    let mut first: FxHashMap<Vec<Origin>, usize> = FxHashMap::default();
    let mut dups = Vec::new();
    for k in 0..g.num_outputs(n) {
        if g.ty(Origin::Out(n, k as u32)).is_state() {
            continue;
        }
        let results: Vec<Origin> = arms.iter().map(|&a| g.results(a)[k]).collect();
        match first.get(&results) {
            Some(&f) => dups.push((k, f)),
            None => {
                first.insert(results, k);
            }
        }
    }
    for &(k, f) in &dups {
        g.divert_users(Origin::Out(n, k as u32), Origin::Out(n, f as u32));
    }
    let gone: rustc_hash::FxHashSet<usize> = dups.iter().map(|d| d.0).collect();
    if !gone.is_empty() {
        g.remove_gamma_exits(n, |k| gone.contains(&k));
    }
    dups.len()
}

/// Merges the loop variables of θ `n` that are congruent (see the module's
/// documentation).
fn theta_vars(g: &mut Rvsdg, n: Node, body: Region) -> usize {
    let vars = g.num_outputs(n);
    // initial classes: by input and type; states each alone
    let mut class: Vec<u32> = Vec::with_capacity(vars);
    {
        let mut ids: FxHashMap<(Origin, Ty), u32> = FxHashMap::default();
        let mut next = 0u32;
        for k in 0..vars {
            let o = g.input(n, k);
            let ty = g.ty(o);
            let id = if ty.is_state() {
                next += 1;
                next - 1
            } else {
                *ids.entry((o, ty)).or_insert_with(|| {
                    next += 1;
                    next - 1
                })
            };
            class.push(id);
        }
        if next as usize == vars {
            return 0; // no two variables start alike
        }
    }
    let order = g.topological_order(body);
    // each round walks the whole body; a partition that has not settled after
    // MAX_ROUNDS merges nothing (stopping early would merge what may differ), so that
    // a large body with many variables costs a bounded number of walks
    let mut rounds = 0;
    loop {
        rounds += 1;
        if rounds > MAX_ROUNDS {
            return 0;
        }
        let Some(numbers) = value_numbers(g, body, &order, &class) else {
            return 0;
        };
        let mut ids: FxHashMap<(u32, u32), u32> = FxHashMap::default();
        let mut refined = Vec::with_capacity(vars);
        for (k, &c) in class.iter().enumerate() {
            let Some(&next_value) = numbers.get(&g.results(body)[k + 1]) else {
                return 0;
            };
            let len = ids.len() as u32;
            refined.push(*ids.entry((c, next_value)).or_insert(len));
        }
        let before = class.iter().collect::<rustc_hash::FxHashSet<_>>().len();
        let stable = ids.len() == before;
        class = refined;
        if stable {
            break;
        }
    }
    // each class's first variable stays; the others' users read it
    let mut first: FxHashMap<u32, usize> = FxHashMap::default();
    let mut dups = Vec::new();
    for (k, &c) in class.iter().enumerate() {
        match first.get(&c) {
            Some(&f) => dups.push((k, f)),
            None => {
                first.insert(c, k);
            }
        }
    }
    for &(k, f) in &dups {
        g.divert_users(Origin::Arg(body, k as u32), Origin::Arg(body, f as u32));
        g.divert_users(Origin::Out(n, k as u32), Origin::Out(n, f as u32));
    }
    let gone: rustc_hash::FxHashSet<usize> = dups.iter().map(|d| d.0).collect();
    if !gone.is_empty() {
        g.remove_theta_vars(n, |k| gone.contains(&k));
    }
    dups.len()
}

/// What makes two pure nodes of a loop body congruent: the operation, the output
/// types, and the value numbers of the inputs.
type NumberKey = (Op, SmallVec<[Ty; 2]>, SmallVec<[u32; 3]>);

/// Value numbers of the origins of θ body `body` (whose nodes are `order`), with
/// argument `k` numbered `class[k]`: congruent simple pure nodes get equal numbers,
/// everything else its own. `None` if some input has no number (only in a graph with
/// a cycle, which `topological_order` leaves out).
fn value_numbers(
    g: &Rvsdg,
    body: Region,
    order: &[Node],
    class: &[u32],
) -> Option<FxHashMap<Origin, u32>> {
    let mut numbers: FxHashMap<Origin, u32> = FxHashMap::default();
    let mut fresh = class.iter().max().map_or(0, |&m| m + 1);
    for (k, &c) in class.iter().enumerate() {
        numbers.insert(Origin::Arg(body, k as u32), c);
    }
    let mut table: FxHashMap<NumberKey, u32> = FxHashMap::default();
    for &m in order {
        let outputs = g.num_outputs(m) as u32;
        let base = match g.op(m) {
            Some(op) if op.is_pure() => {
                let inputs = g
                    .inputs(m)
                    .iter()
                    .map(|o| numbers.get(o).copied())
                    .collect::<Option<SmallVec<[u32; 3]>>>()?;
                *table
                    .entry((op.clone(), g.output_types(m), inputs))
                    .or_insert_with(|| {
                        fresh += outputs;
                        fresh - outputs
                    })
            }
            _ => {
                fresh += outputs;
                fresh - outputs
            }
        };
        for i in 0..outputs {
            numbers.insert(Origin::Out(m, i), base + i);
        }
    }
    Some(numbers)
}
