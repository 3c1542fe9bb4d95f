//! γ speculation into selects (if-conversion on the RVSDG, as LLVM's SimplifyCFG does
//! for a two-way branch whose sides only compute a little; Reissmann et al. leave γs as
//! they are, the machine's if-conversion predicating them later).
//!
//! A two-arm γ whose arms hold only pure, cheap simple nodes (no state, no nested
//! region, no division, no control value) and whose states pass through unchanged is
//! replaced by its arms' nodes, run unconditionally in the γ's region, and a `select`
//! per output that differs between the arms, on the condition the γ's `match` tested.
//! An output that is `undef` in one arm is the other arm's value (on the paths through
//! that arm nothing reads it). What an arm computes is then visible to folding: a
//! `match` of a boolean select is a boolean again (`select(c, x, false)` is `c & x`,
//! `fold.rs`), so that a chain of short-circuit tests (`b'a'..=b'z' | b'0'..=b'9'`)
//! becomes one boolean with its range tests merged, and one branch where the CFG had
//! one per test.
//!
//! Cost: the arms' nodes other than constants (a multiplication or a float operation
//! counts two) and the selects together at most `budget` (`rvsdg-select-budget=N`,
//! default 8): a branch on this machine costs its compare's latency and the taken
//! branch's penalty, and cuts the block that the schedulers fill; a few speculated
//! operations in free slots cost less. Innermost γs first, so that a γ whose arms held
//! converted ones is weighed with what those left.
//!
//! Counter: `select.gammas` (γs replaced), `select.selects` (selects made).

use crate::graph::{Node, NodeKind, Origin, Region};
use crate::ops::{Op, Rvsdg, Ty};
use crate::report::Report;
use vliw_ir::{IntCC, Opcode, Type};

use super::rewrite::Rewriter;

/// The default of `budget` (module documentation).
pub const DEFAULT_BUDGET: u32 = 8;

/// The selects one γ may need: a γ that chooses between many values is the join of
/// paths that restructuring or the source merged (loop variables passed through its
/// arms), which jump threading takes apart better than selects merge it.
const MAX_SELECTS: u32 = 2;

/// Replaces every cheap two-arm γ of `g` by selects (module documentation).
pub fn speculate_gammas(g: &mut Rvsdg, budget: u32, report: &mut Report) {
    let mut counts = (0u64, 0u64);
    for l in g.lambdas() {
        let body = g.lambda_body(l);
        let mut rw = Rewriter::new(g);
        region(&mut rw, body, budget, &mut counts);
    }
    report.count("select.gammas", counts.0);
    report.count("select.selects", counts.1);
}

/// Converts the γs of `r` and of every region below it, innermost first.
fn region(rw: &mut Rewriter, r: Region, budget: u32, counts: &mut (u64, u64)) {
    for n in rw.g.topological_order(r) {
        if !rw.g.is_alive(n) {
            continue;
        }
        for s in rw.g.kind(n).subregions().to_vec() {
            region(rw, s, budget, counts);
        }
        if let Some(plan) = plan(rw.g, n, Limits::cheap(budget)) {
            counts.1 += convert(rw, n, plan) as u64;
            counts.0 += 1;
        }
    }
}

/// What converting a γ needs: the boolean that selects arm 0, made from the `match`.
struct Plan {
    /// The value the `match` tests.
    tested: Origin,
    /// How `tested` selects arm 0.
    arm0_when: Test,
}

enum Test {
    /// `tested == value` selects arm 0.
    Equals(u128),
    /// `tested == value` selects arm 1.
    Differs(u128),
}

/// How much a conversion may cost, and whether control-like values stay branches.
#[derive(Copy, Clone)]
struct Limits {
    /// The most the arms' nodes and the selects may cost together.
    budget: u32,
    /// The most selects one γ may need.
    selects: u32,
    /// Whether a boolean chosen between two non-constant booleans, and an integer a
    /// `match` tests, keep the γ (the pass's own judgement; flattening a loop body for
    /// lanes must convert everything).
    keep_control: bool,
    /// Whether plain loads may be speculated (`flatten` for a loop body whose lanes
    /// run its loads as speculative ones: `jam.rs`).
    loads: bool,
}

impl Limits {
    /// The pass's own limits, with budget `budget`.
    fn cheap(budget: u32) -> Self {
        Limits {
            budget,
            selects: MAX_SELECTS,
            keep_control: true,
            loads: false,
        }
    }

    /// Everything that can be speculated is (`flatten`), plain loads too when `loads`.
    fn unbounded(loads: bool) -> Self {
        Limits {
            budget: u32::MAX,
            selects: u32::MAX,
            keep_control: false,
            loads,
        }
    }
}

/// Whether γ `n` can be converted, and how its condition is read.
fn plan(g: &Rvsdg, n: Node, limits: Limits) -> Option<Plan> {
    let NodeKind::Gamma { arms } = g.kind(n) else {
        return None;
    };
    if arms.len() != 2 {
        return None;
    }
    let p = g.producer(g.input(n, 0))?;
    let Some(Op::Match {
        cases,
        default,
        alts: 2,
    }) = g.op(p)
    else {
        return None;
    };
    let [(value, alt)] = &cases[..] else {
        return None;
    };
    if *alt == *default || *alt > 1 || *default > 1 {
        return None;
    }
    let tested = g.input(p, 0);
    if !g.ty(tested).value().is_some_and(|t| t.is_int()) {
        return None;
    }
    let arm0_when = if *alt == 0 {
        Test::Equals(*value)
    } else {
        Test::Differs(*value)
    };
    let mut cost = 0u32;
    for &a in arms.iter() {
        for &m in g.nodes(a) {
            cost = cost.saturating_add(node_cost(g, m, limits.loads)?);
        }
    }
    let (a0, a1) = (arms[0], arms[1]);
    let mut selects = 0;
    for k in 0..g.num_outputs(n) {
        let (r0, r1) = (g.results(a0)[k], g.results(a1)[k]);
        let ty = g.ty(Origin::Out(n, k as u32));
        match ty {
            Ty::Val(_) => {
                let (v0, v1) = (outside(g, n, r0), outside(g, n, r1));
                if v0 != v1 && !is_undef(g, v0) && !is_undef(g, v1) {
                    // a boolean chosen between two booleans stays a branch: the
                    // machine keeps booleans in predicates, where a select has no
                    // operation (folding makes logic of one with a constant arm)
                    if limits.keep_control
                        && ty == Ty::Val(Type::I1)
                        && !is_constant(g, v0)
                        && !is_constant(g, v1)
                    {
                        return None;
                    }
                    // an integer that a `match` tests is a control value (the
                    // restructuring's continuation number of a switch's arms): selected,
                    // it would become an indexed jump where jump threading follows the
                    // branches
                    if limits.keep_control
                        && ty != Ty::Val(Type::I1)
                        && tested_by_match(g, Origin::Out(n, k as u32))
                    {
                        return None;
                    }
                    selects += 1;
                }
            }
            // a state passes through both arms from the same entry (or, with loads,
            // through their loads from it), or the γ stays
            Ty::Mem | Ty::Io => match (loaded_from(g, r0), loaded_from(g, r1)) {
                (Some(i), Some(j))
                    if i == j
                        && (limits.loads
                            || (r0, r1) == (Origin::Arg(a0, i), Origin::Arg(a1, j))) => {}
                _ => return None,
            },
            Ty::Ctl(_) => {
                if outside(g, n, r0) != outside(g, n, r1) {
                    return None;
                }
            }
        }
    }
    (selects <= limits.selects && cost.saturating_add(selects) <= limits.budget)
        .then_some(Plan { tested, arm0_when })
}

/// The entry of an arm that state `o` of the arm comes from: the arm's argument
/// itself, or through a chain of plain loads from it (which change nothing), and of
/// γs whose arms are such chains from one entry. `None` for anything else.
fn loaded_from(g: &Rvsdg, o: Origin) -> Option<u32> {
    state_source(g, o, true)
}

/// The argument (its index) of its region that state `o` is, through the exits of
/// γs whose arms pass one entry's argument on (directly or through γs of their own),
/// and with `loads` through plain loads too (a load gives its state on unchanged).
/// `None` for anything else. (`jam.rs`: a θ body's state that passes through.)
pub(super) fn state_source(g: &Rvsdg, mut o: Origin, loads: bool) -> Option<u32> {
    loop {
        match o {
            Origin::Arg(_, i) => return Some(i),
            Origin::Out(m, _) if loads && g.op(m).is_some_and(|op| op.is_plain_load()) => {
                o = g.input(m, 1);
            }
            Origin::Out(m, k) => {
                let NodeKind::Gamma { arms } = g.kind(m) else {
                    return None;
                };
                let mut entries = arms
                    .iter()
                    .map(|&a| state_source(g, g.results(a)[k as usize], loads));
                let e = entries.next()??;
                if !entries.all(|f| f == Some(e)) {
                    return None;
                }
                o = g.input(m, e as usize + 1);
            }
        }
    }
}

/// Whether `flatten` can convert every γ of region `r` and of the regions below it:
/// γs of two arms on a `match` of one case, whose nodes (once their own γs are
/// converted) can all be speculated, with states passing through, or with `loads`
/// through plain loads that become speculative.
pub(super) fn flattenable(g: &Rvsdg, r: Region, loads: bool) -> bool {
    g.nodes(r).iter().all(|&n| match g.kind(n) {
        NodeKind::Simple(Op::Match { .. }) => true,
        NodeKind::Simple(_) => node_cost(g, n, loads).is_some(),
        NodeKind::Gamma { arms } => {
            arms.len() == 2
                && arms.iter().all(|&a| flattenable(g, a, loads))
                && (0..g.num_outputs(n)).all(|k| {
                    let (r0, r1) = (g.results(arms[0])[k], g.results(arms[1])[k]);
                    !g.ty(Origin::Out(n, k as u32)).is_state()
                        || matches!(
                            (r0, r1),
                            (Origin::Arg(_, i), Origin::Arg(_, j)) if i == j
                        )
                        || (loads
                            && loaded_from(g, r0).is_some()
                            && loaded_from(g, r0) == loaded_from(g, r1))
                })
        }
        _ => false,
    })
}

/// Converts every γ of region `r` and below into selects, whatever it costs (the
/// body of a loop whose iterations run as lanes under their own activity, `jam.rs`,
/// must not branch). With `loads`, the plain loads of the arms run unconditionally
/// as speculative loads (`MemFlags::speculative`: 0 where they would trap), the
/// second arm's after the first's on the memory state. Innermost first; `false` when
/// a γ could not be converted (the ones before it are).
pub(super) fn flatten(g: &mut Rvsdg, r: Region, loads: bool) -> bool {
    let mut rw = Rewriter::new(g);
    flatten_in(&mut rw, r, loads)
}

fn flatten_in(rw: &mut Rewriter, r: Region, loads: bool) -> bool {
    for n in rw.g.topological_order(r) {
        if !rw.g.is_alive(n) {
            continue;
        }
        let arms = rw.g.kind(n).subregions().to_vec();
        if arms.is_empty() {
            continue;
        }
        if !matches!(rw.g.kind(n), NodeKind::Gamma { .. }) {
            return false;
        }
        for a in arms {
            if !flatten_in(rw, a, loads) {
                return false;
            }
        }
        let Some(plan) = plan(rw.g, n, Limits::unbounded(loads)) else {
            return false;
        };
        convert(rw, n, plan);
    }
    true
}

/// What speculating node `m` of an arm costs, `None` if it cannot be speculated (a
/// plain load can when `loads`).
fn node_cost(g: &Rvsdg, m: Node, loads: bool) -> Option<u32> {
    let NodeKind::Simple(op) = g.kind(m) else {
        return None;
    };
    if op.is_constant_like() {
        return Some(0);
    }
    if loads && op.is_plain_load() {
        return Some(2);
    }
    let Op::Inst(data) = op else {
        return None; // a match, a memory split or join, a safe division
    };
    if !op.is_pure() || g.outputs(m).any(|o| !matches!(g.ty(o), Ty::Val(_))) {
        return None;
    }
    use Opcode::*;
    let float = g
        .outputs(m)
        .chain(g.inputs(m).iter().copied())
        .any(|o| matches!(g.ty(o), Ty::Val(Type::F32 | Type::F64)));
    Some(match data.opcode() {
        Udiv | Sdiv | Urem | Srem | Fdiv | Sqrt => return None,
        Imul | Umulhi | Smulhi | UmulOverflow | SmulOverflow => 2,
        _ if float => 2,
        _ => 1,
    })
}

/// Marks node `m`, moved out of a γ's arm, speculative if it is a load.
fn speculate(g: &mut Rvsdg, m: Node) {
    if let NodeKind::Simple(Op::Inst(vliw_ir::InstructionData::Load { flags, .. })) = g.kind_mut(m)
    {
        flags.speculative = true;
    }
}

/// Whether a `match` reads `o`, directly or through the variables of the γs and θs it
/// passes (into their regions, out of a γ's arm, into a θ's next iteration), a few
/// levels deep.
fn tested_by_match(g: &Rvsdg, o: Origin) -> bool {
    let mut work = vec![(o, 0u32)];
    while let Some((o, depth)) = work.pop() {
        for &u in g.users(o) {
            let (m, i) = match u {
                crate::graph::User::In(m, i) => (m, i),
                crate::graph::User::Res(r, i) if depth < 4 => {
                    match g.owner(r).map(|n| (n, g.kind(n))) {
                        Some((n, NodeKind::Gamma { .. })) => {
                            work.push((Origin::Out(n, i), depth + 1));
                        }
                        // a θ body's results: the predicate, then the next values
                        Some((_, NodeKind::Theta { .. })) if i > 0 => {
                            work.push((Origin::Arg(r, i - 1), depth + 1));
                        }
                        _ => {}
                    }
                    continue;
                }
                crate::graph::User::Res(..) => continue,
            };
            match g.kind(m) {
                NodeKind::Simple(Op::Match { .. }) => return true,
                NodeKind::Gamma { arms } if i > 0 && depth < 4 => {
                    for &a in arms.iter() {
                        work.push((Origin::Arg(a, i - 1), depth + 1));
                    }
                }
                NodeKind::Theta { .. } if depth < 4 => {
                    work.push((Origin::Arg(g.theta_body(m), i), depth + 1));
                }
                _ => {}
            }
        }
    }
    false
}

fn is_constant(g: &Rvsdg, o: Origin) -> bool {
    g.producer(o)
        .is_some_and(|p| super::constants::constant(g, p).is_some())
}

fn is_undef(g: &Rvsdg, o: Origin) -> bool {
    g.producer(o)
        .and_then(|p| g.op(p))
        .is_some_and(|op| matches!(op, Op::Inst(d) if d.opcode() == Opcode::Undef))
}

/// Origin `o` of an arm of γ `n` as seen from the γ's region once the arms' nodes are
/// there: an entry variable's argument is the γ's input; a node is itself.
fn outside(g: &Rvsdg, n: Node, o: Origin) -> Origin {
    match o {
        Origin::Arg(_, j) => g.input(n, j as usize + 1),
        Origin::Out(..) => o,
    }
}

/// Moves both arms of γ `n` into its region and gives its users selects; returns how
/// many selects it made.
fn convert(rw: &mut Rewriter, n: Node, plan: Plan) -> usize {
    let region = rw.g.node(n).region;
    let arms = rw.g.kind(n).subregions().to_vec();
    // a state the first arm's loads read goes on into the second arm's: what the
    // first arm leaves of each state entry
    let mut after_first: Vec<Option<Origin>> = vec![None; rw.g.inputs(n).len() - 1];
    for (k, &r0) in rw.g.results(arms[0]).to_vec().iter().enumerate() {
        if rw.g.ty(Origin::Out(n, k as u32)).is_state()
            && let Some(e) = loaded_from(rw.g, r0)
        {
            after_first[e as usize] = Some(r0);
        }
    }
    for (i, &a) in arms.iter().enumerate() {
        for m in rw.g.topological_order(a) {
            let inputs: Vec<Origin> =
                rw.g.inputs(m)
                    .iter()
                    .map(|&o| match o {
                        Origin::Arg(_, e) if i == 1 && after_first[e as usize].is_some() => {
                            let last = after_first[e as usize].expect("checked");
                            outside(rw.g, n, last)
                        }
                        _ => outside(rw.g, n, o),
                    })
                    .collect();
            rw.g.move_node(m, region, &inputs);
            speculate(rw.g, m);
        }
    }
    // the condition: true when arm 0 runs
    let ty = rw.g.ty(plan.tested).value().expect("an integer");
    let (value, arm0_on_true) = match plan.arm0_when {
        Test::Equals(v) => (v, true),
        Test::Differs(v) => (v, false),
    };
    let cond = if ty == Type::I1 {
        // `tested` itself, or its negation by which arm its true value selects
        if (value & 1 == 1) == arm0_on_true {
            plan.tested
        } else {
            rw.unary(n, Opcode::Bnot, plan.tested, Type::I1)
        }
    } else {
        let c = rw.int(n, ty, value as i128);
        let cc = if arm0_on_true { IntCC::Eq } else { IntCC::Ne };
        rw.icmp(n, cc, plan.tested, c)
    };
    let mut selects = 0;
    for k in 0..rw.g.num_outputs(n) {
        let out = Origin::Out(n, k as u32);
        let (r0, r1) = (rw.g.results(arms[0])[k], rw.g.results(arms[1])[k]);
        if rw.g.ty(out).is_state() {
            // after both arms' loads (or what went in, when neither loads)
            let last = match r1 {
                Origin::Arg(_, e) => after_first[e as usize].unwrap_or(r1),
                Origin::Out(..) => r1,
            };
            let v = outside(rw.g, n, last);
            rw.g.divert_users(out, v);
            continue;
        }
        let (v0, v1) = (outside(rw.g, n, r0), outside(rw.g, n, r1));
        let v = if v0 == v1 || is_undef(rw.g, v1) {
            v0
        } else if is_undef(rw.g, v0) {
            v1
        } else {
            selects += 1;
            rw.select(n, cond, v0, v1)
        };
        rw.g.divert_users(out, v);
    }
    // the arms' results still read the moved nodes: the γ goes with its regions
    let inputs: Vec<Origin> = rw.g.inputs(n).to_vec();
    rw.g.remove_node(n);
    for o in inputs {
        if let Some(p) = rw.g.producer(o) {
            rw.remove_if_dead(p);
        }
    }
    // nothing reads the negation or compare when no select was made
    if cond != plan.tested
        && let Some(p) = rw.g.producer(cond)
    {
        rw.remove_if_dead(p);
    }
    selects
}
