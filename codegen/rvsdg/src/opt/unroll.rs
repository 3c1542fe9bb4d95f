//! Loop unrolling of counted θs: the body of an innermost loop that counts an
//! induction variable up to a bound is copied `k` times into one iteration of a new
//! loop, so that the machine's scheduler (one basic block at a time, 4 slots per
//! bundle) overlaps `k` independent iterations and the compare and branch run once
//! per `k` iterations. jlm's `llvm/opt/unroll.cpp` is the RVSDG reference (it unrolls
//! θs with a known or computable trip count); this pass needs no trip count.
//!
//! **Pattern.** A θ without a θ inside its body (γs, loads, stores and calls are fine:
//! the copies thread the states in order) whose predicate is a `match2` of an `icmp`
//! saying "repeat iff `iv' < b`" (`ult`, `slt`, their swapped forms `ugt`/`sgt`, and
//! their negations: `uge`, `sge`... through a `match2` that maps true to alternative 0,
//! or a `bnot` or `bxor c, true`, as the construction negates a branch), where
//! - `iv' = iadd iv, c` and `iv'` is the next value of loop variable `iv`;
//! - `c` is a positive constant (for `slt`, positive as a signed number), with `k * c`
//!   representable (below `2^w`, or `2^(w-1)` for `slt`);
//! - `b` is invariant: a body argument whose next value is itself, or a constant.
//!
//! The test may also run ahead of the next value by a constant `l` ("repeat iff
//! `iv + (c + l) <u b`", unsigned only: how folding leaves `while i + 1 < n` of a loop
//! counting by 1): everything below holds with `d = (k-1)*c + l` in the limit, since
//! `x + j*c + l <= x + d < limit + d = b` for `j <= k-1`, and the remainder's test
//! `more` is the original's own, `outs.iv + l <u b` (no known trip count then).
//!
//! Anything else is left alone (`unroll.not-counted`, also when not even `2 * c` is
//! representable). A body with a sink at its top
//! level (a `trap`, or a γ whose arms all end in one) is left too (`unroll.declined-sink`):
//! the sink shares its state with the body's result, and chained copies would give
//! that state a second user.
//!
//! **Semantics kept** (wrapping `iadd`): the θ runs its body at least once, and after
//! each iteration repeats iff `iv' <u b` (all below for `<u`; `<s` is the same with
//! signed order, bounds `MIN..=MAX` instead of `0..=2^w - 1`). With `d = (k-1) * c`:
//!
//! ```text
//! limit = b - d                        (wrapping)
//! c0    = iv0 <u (limit <=u b ? limit : 0)   (the least value when b - d wraps)
//! γ1(c0) {
//!   true:  θ_main(vars0) { k copies of the body chained; copy j reads iv + j*c,
//!                           repeat iff iv + k*c <u limit }
//!          → outs, more = (outs.iv <u b)
//!   false: → vars0, more = true
//! }
//! γ2(more) { true: the original θ on γ1's outputs (the remainder); false: them }
//! ```
//!
//! *Claim:* if `x <u limit` and `limit <=u b` (i.e. `b - d` did not wrap: `b >= d`),
//! the original loop entering an iteration with `iv = x` runs at least `k` iterations:
//! for `1 <= j <= k-1`, `x + j*c <= x + d < limit + d = b <= 2^w - 1` as integers, so
//! the wrapping sum is that integer, `x + j*c <u b`, and the tests after the first
//! `k - 1` iterations all pass (the first iteration runs anyway). `limit <=u b` holds
//! exactly when `b - d` does not wrap: when it wraps, `b - d + 2^w > b` since `d < 2^w`.
//! (Signed: `b - d` does not overflow iff `b >= MIN + d` iff `limit <=s b`, and
//! `x + j*c <= x + d < b <= MAX` likewise.)
//!
//! So γ1's true arm starts θ_main only when `k` iterations certainly run; each
//! iteration of θ_main is exactly `k` iterations of the original, on the same values
//! (copy `j` reads `iv + j*c`, which is the original's `iv` after `j` wrapping
//! increments: wrapping addition is associative). θ_main repeats when `x' <u limit`,
//! `x' = iv + k*c` being the original's `iv` at the start of the next block (wrapping:
//! whether or not it wrapped, `x'` is the value the original tests and continues
//! from): by the claim the next block then certainly runs `k` iterations (and the
//! original's own test `x' <u b` holds, since `limit <=u b`). When θ_main
//! stops, the original would go on iff its test `x' <u b` holds: that is `more`, and
//! the remainder is the original θ continuing from there (a θ started on the current
//! values runs the same iterations as the loop it continues: at least one, then while
//! its test holds). When c0 fails, the original θ runs from the start. Every path runs
//! the original's iterations in order on the same values, with the same effects, and
//! ends (or not) exactly when it does. The original body exists `k + 1` times.
//!
//! **Loops to an end** (`counted_until`): "repeat iff `iv' != b`", `iv' = iv + c`
//! (`iadd`), or `iv' = ptradd iv, c` with the test comparing `bitcast iv'` (how a
//! slice iterator's `ptr != end` reaches the RVSDG), `c` a positive constant, `b`
//! invariant, unsigned, no lead. With `d = (k-1)*c` (representable): if the distance
//! `b - x` (wrapping) is above `d`, the tests after the next `k - 1` iterations all
//! pass, since `x + j*c == b` would need `j*c == b - x` with `j*c <= d < b - x`. So
//! γ1's guard is `b - iv0 >u d`, θ_main repeats while `b - x' >u d`, and the original
//! continues iff `x' != b`; the rest is as above. No trip count is known (a distance
//! that is not a multiple of `c` never ends: neither does the remainder loop). Such
//! a loop whose body branches at its top level is left (`unroll.declined-branches`):
//! `branchy_hash`'s body is one chain of decisions on the hash it carries, branch-free
//! after if-conversion as one body but not as four copies (1.011x unrolled).
//!
//! **Known trip counts.** When `iv0` and `b` are both constants (types up to 64 bits)
//! and the iterations do not wrap, the trip count `t` is known: fewer than `k`
//! iterations and the loop is left (`unroll.declined-short`, as is a constant bound
//! below `d`, where no block is ever certain); otherwise the factor is
//! lowered to a divisor of `t` when one is above half of it, θ_main runs in the θ's
//! region without γs, followed by the original θ only when `t mod k != 0`
//! (`unroll.known-trip-count`).
//!
//! **Size.** `k` is the largest factor at most `rvsdg-unroll-factor` with `k` times the
//! body's size (`count_nodes`, nested regions included) within `rvsdg-unroll-budget`
//! nodes; below 2 the loop stays (`unroll.declined-size`).
//!
//! The copies of θ_main are made node by node, for the scheduler
//! (`interleaved_copies`), and cleaned: copy `j`'s own `iv'` is replaced by the
//! shared `iv + (j+1)*c`, the copies' predicates are removed, and equal constants of
//! the new body merged (no `rvsdg-cne` or `rvsdg-fold` runs after this pass).

use rustc_hash::FxHashMap;
use vliw_ir::{InstructionData, IntCC, Opcode, Type, Value};

use super::constants::constant;
use super::rewrite::{Rewriter, const_of, sext};
use crate::graph::{Node, NodeKind, Origin, Region, User};
use crate::ops::{Op, Rvsdg, Ty};
use crate::report::Report;

/// The default unrolling factor (`rvsdg-unroll-factor`).
pub const DEFAULT_FACTOR: usize = 4;
/// The default budget (`rvsdg-unroll-budget`): the factor times the body's size in
/// nodes stays within it (4 copies of a body of up to 40 nodes).
pub const DEFAULT_BUDGET: usize = 160;
/// Loops with a known trip count up to this many iterations are unrolled completely
/// when the copies fit the budget (`unroll.full`).
pub const FULL_UNROLL_TRIPS: usize = 16;

/// A loop nest's outer loop is unrolled completely when it runs at most this many
/// times (`rvsdg-unroll-nests`).
pub const NEST_TRIPS: u128 = 8;
/// The most nodes the copies of a nest's outer body may have together, and those of
/// each inner loop unrolled completely after it (`rvsdg-unroll-nests`).
pub const NEST_BUDGET: usize = 1024;

/// The unroller's knobs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnrollOptions {
    /// How many copies of the body one iteration of the unrolled loop runs (1: none).
    pub factor: usize,
    /// The most nodes the copies of one body may have together.
    pub budget: usize,
    /// Whether small loop nests of known trip counts are unrolled completely
    /// (`rvsdg-unroll-nests=on|off`).
    pub nests: bool,
    /// Whether loops to an end (`i + c != b`, `counted_until`) are unrolled
    /// (`rvsdg-unroll-until=on|off`).
    pub until: bool,
    /// Whether the inner loops of an unrolled nest that are not counted but certainly
    /// end within a few iterations are peeled completely (`rvsdg-unroll-peel=on|off`,
    /// `peel.rs`).
    pub peel: bool,
}

impl Default for UnrollOptions {
    fn default() -> Self {
        UnrollOptions {
            factor: DEFAULT_FACTOR,
            budget: DEFAULT_BUDGET,
            nests: true,
            until: true,
            peel: true,
        }
    }
}

/// Unrolls the counted innermost θs of `g`.
pub fn unroll_loops(g: &mut Rvsdg, options: &UnrollOptions, report: &mut Report) {
    if options.factor < 2 {
        return;
    }
    let mut counts = Counts::default();
    if options.nests {
        unroll_nests(g, options.peel, &mut counts);
    }
    for theta in innermost_thetas(g) {
        unroll(g, theta, options, &mut counts);
    }
    report.count("unroll.loops", counts.loops);
    report.count("unroll.known-trip-count", counts.known);
    report.count("unroll.full", counts.full);
    report.count("unroll.not-counted", counts.not_counted);
    report.count("unroll.declined-size", counts.declined_size);
    report.count("unroll.declined-short", counts.declined_short);
    report.count("unroll.declined-sink", counts.declined_sink);
    report.count("unroll.declined-branches", counts.declined_branches);
    if options.nests {
        report.count("unroll.nests", counts.nests);
    }
    if options.peel {
        report.count("unroll.peeled", counts.peeled);
        report.count("unroll.pushed-stores", counts.pushed_stores);
    }
}

#[derive(Default)]
struct Counts {
    loops: u64,
    known: u64,
    full: u64,
    not_counted: u64,
    declined_size: u64,
    declined_short: u64,
    declined_sink: u64,
    declined_branches: u64,
    nests: u64,
    peeled: u64,
    pushed_stores: u64,
}

/// Loop nests (`rvsdg-unroll-nests`): a θ whose body holds innermost θs and whose
/// own trip count is known and at most [`NEST_TRIPS`] is unrolled completely when its
/// copies fit [`NEST_BUDGET`] nodes (`fully_unroll`: copy `j` reads the constant
/// `iv0 + j·c`). Folding then makes the inner loops' bounds constants where they
/// derive from the outer counter (`for j in i + 1..N`), and each innermost loop of
/// the nest's region (the copies of its inner loops, and those beside it) whose trip
/// count is now known is unrolled completely too, within the same budget
/// (`unroll.nests`, `unroll.full`). The pairs of `nbody`'s five bodies, each a chain
/// of a square root and a division, then stand side by side in one block for the
/// scheduler instead of one after the other in a loop of one to four iterations.
fn unroll_nests(g: &mut Rvsdg, peel: bool, counts: &mut Counts) {
    // the regions the nests were in
    let mut unrolled_in: Vec<Region> = Vec::new();
    for outer in nest_thetas(g) {
        if !g.is_alive(outer) {
            continue;
        }
        let Some((lp, t)) = completely_unrollable(g, outer, NEST_TRIPS) else {
            continue;
        };
        let region = g.node(outer).region;
        fully_unroll(g, outer, &lp, t);
        unrolled_in.push(region);
        counts.nests += 1;
        counts.full += 1;
        counts.loops += 1;
    }
    if unrolled_in.is_empty() {
        return;
    }
    let mut lambdas: Vec<Node> = unrolled_in
        .iter()
        .filter_map(|&r| g.enclosing_lambda(r))
        .collect();
    lambdas.sort_unstable();
    lambdas.dedup();
    super::fold::fold_lambdas(g, &lambdas, &mut Report::default());
    // the copies of the nests' inner loops, and the other innermost loops beside the
    // nests (`nbody`'s position update after its pairs, whose copies then join the
    // same block) (a nest's region outlives it: no nest is inside another)
    let below: rustc_hash::FxHashSet<Region> = unrolled_in
        .iter()
        .flat_map(|&r| g.regions_below(r))
        .collect();
    for inner in innermost_thetas(g) {
        if !below.contains(&g.node(inner).region) {
            continue;
        }
        if let Some((lp, t)) = completely_unrollable(g, inner, FULL_UNROLL_TRIPS as u128) {
            fully_unroll(g, inner, &lp, t);
            counts.full += 1;
            counts.loops += 1;
        } else if peel
            && counted(g, inner).is_none()
            && let Some(t) = super::peel::bound(g, inner)
            && t * g.count_nodes(g.theta_body(inner)).max(1) <= super::peel::BUDGET
        {
            // a loop whose data-dependent test a constant start bounds
            super::peel::peel(g, inner, t);
            counts.peeled += 1;
            counts.loops += 1;
        }
    }
    // the copies' indices are constants now: their bounds checks fold, and the γs
    // whose arm is then known give way to it
    super::fold::fold_lambdas(g, &lambdas, &mut Report::default());
    for &l in &lambdas {
        let body = g.lambda_body(l);
        super::gamma::inline_known_arms(g, body);
    }
    // the stores at the peeled loops' counters, into the arms where they are constants
    if counts.peeled > 0 {
        for &l in &lambdas {
            let body = g.lambda_body(l);
            counts.pushed_stores += super::peel::push_stores(g, body) as u64;
        }
        // their addresses' constants, and the γs then known
        super::fold::fold_lambdas(g, &lambdas, &mut Report::default());
        for &l in &lambdas {
            let body = g.lambda_body(l);
            super::gamma::inline_known_arms(g, body);
        }
    }
}

/// θ `theta`'s shape and trip count when a nest may unroll it completely: counted,
/// without a lead or a sink, a known trip count of at most `max_trips`, copies within
/// [`NEST_BUDGET`] nodes.
fn completely_unrollable(g: &Rvsdg, theta: Node, max_trips: u128) -> Option<(Counted, usize)> {
    let lp = counted(g, theta)?;
    let body = g.theta_body(theta);
    if lp.lead != 0 || has_sink(g, body) {
        return None;
    }
    let x0 = const_of(g, g.input(theta, lp.iv))?;
    let Bound::Const(b) = lp.bound else {
        return None;
    };
    let t = trip_count(&lp, x0, b)?;
    (t <= max_trips && t as usize * g.count_nodes(body).max(1) <= NEST_BUDGET)
        .then_some((lp, t as usize))
}

/// The θs whose body holds θs, none of which holds a θ in turn (nests of two
/// levels), found before any is changed.
fn nest_thetas(g: &Rvsdg) -> Vec<Node> {
    let inner: rustc_hash::FxHashSet<Node> = innermost_thetas(g).into_iter().collect();
    thetas_with_inner(g)
        .into_iter()
        .filter(|(_, thetas)| thetas.iter().all(|m| inner.contains(m)))
        .map(|(n, _)| n)
        .collect()
}

/// Every θ of every λ whose body holds θs (at any depth), with those θs.
pub(super) fn thetas_with_inner(g: &Rvsdg) -> Vec<(Node, Vec<Node>)> {
    let mut out = Vec::new();
    for l in g.lambdas() {
        for r in g.regions_below(g.lambda_body(l)) {
            for &n in g.nodes(r) {
                let NodeKind::Theta { body } = *g.kind(n) else {
                    continue;
                };
                let thetas: Vec<Node> = g
                    .regions_below(body)
                    .iter()
                    .flat_map(|&q| g.nodes(q).iter().copied())
                    .filter(|&m| matches!(g.kind(m), NodeKind::Theta { .. }))
                    .collect();
                if !thetas.is_empty() {
                    out.push((n, thetas));
                }
            }
        }
    }
    out
}

/// The θs of every λ with no θ inside their body, found before any is changed (the
/// loops this pass makes are not considered again).
pub(super) fn innermost_thetas(g: &Rvsdg) -> Vec<Node> {
    let mut out = Vec::new();
    for l in g.lambdas() {
        for r in g.regions_below(g.lambda_body(l)) {
            for &n in g.nodes(r) {
                if let NodeKind::Theta { body } = *g.kind(n)
                    && !g.regions_below(body).iter().any(|&q| {
                        g.nodes(q)
                            .iter()
                            .any(|&m| matches!(g.kind(m), NodeKind::Theta { .. }))
                    })
                {
                    out.push(n);
                }
            }
        }
    }
    out
}

/// The bound of a counted loop: an invariant loop variable or a constant of the body.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Bound {
    Var(usize),
    Const(u128),
}

/// A counted θ: repeats iff `iv + step + lead <(signed) bound`, `iv + step` being
/// `iv`'s next value (the test computes `iv + (step + lead)`, as folding leaves
/// `while i + 1 < n` of a loop counting by 1). Unrolling takes `lead = 0` only.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Counted {
    pub iv: usize,
    pub step: u128,
    pub lead: u128,
    pub ty: Type,
    pub bound: Bound,
    pub signed: bool,
    /// The test is `iv + step != bound` (`counted_until`), unsigned, without a lead.
    pub ne: bool,
    /// `iv` is a pointer advanced by `ptradd`; the test compares its address as a
    /// `ty` integer (`bitcast`), `bound` is an integer (only with `ne`).
    pub pointer: bool,
}

impl Counted {
    /// `<` in the loop's order.
    fn lt(&self) -> IntCC {
        if self.signed { IntCC::Slt } else { IntCC::Ult }
    }

    /// `<=` in the loop's order.
    fn le(&self) -> IntCC {
        if self.signed { IntCC::Sle } else { IntCC::Ule }
    }

    /// `d + lead` when it is representable as `multiple` requires.
    fn lead_plus(&self, d: u128) -> Option<u128> {
        let m = d.checked_add(self.lead)?;
        let max = if self.signed {
            self.ty.mask() >> 1
        } else {
            self.ty.mask()
        };
        (m <= max).then_some(m)
    }

    /// `j * step` when it is representable as a non-negative number of the type (below
    /// `2^w`, or `2^(w-1)` for a signed loop): what the no-wrap argument needs.
    fn multiple(&self, j: usize) -> Option<u128> {
        let m = (j as u128).checked_mul(self.step)?;
        let max = if self.signed {
            self.ty.mask() >> 1
        } else {
            self.ty.mask()
        };
        (m <= max).then_some(m)
    }
}

/// The alternatives a two-way `match` node `m` chooses for the values 0 and 1 of
/// its input; `None` when `m` is not a two-way `match`.
pub(super) fn match2_alternatives(g: &Rvsdg, m: Node) -> Option<[u32; 2]> {
    let Some(Op::Match {
        cases,
        default,
        alts: 2,
    }) = g.op(m)
    else {
        return None;
    };
    let alt = |v: u128| cases.iter().find(|c| c.0 == v).map_or(*default, |c| c.1);
    Some([alt(0), alt(1)])
}

/// The compare that θ body `body`'s predicate tests, and the condition under which
/// the θ repeats: the predicate is a two-way `match` of it, directly or through
/// `bnot c` and `bxor c, true` (how the construction negates a branch's condition).
fn loop_compare(g: &Rvsdg, body: Region) -> Option<(Node, IntCC)> {
    let m = g.producer(g.results(body)[0])?;
    let [on_false, on_true] = match2_alternatives(g, m)?;
    let mut cond = g.input(m, 0);
    if g.ty(cond) != Ty::Val(Type::I1) {
        return None;
    }
    let mut negated = match (on_true, on_false) {
        (1, 0) => false,
        (0, 1) => true,
        _ => return None,
    };
    let cmp = loop {
        let n = g.producer(cond)?;
        match g.op(n)? {
            Op::Inst(InstructionData::Unary {
                opcode: Opcode::Bnot,
                ..
            }) => cond = g.input(n, 0),
            Op::Inst(InstructionData::Binary {
                opcode: Opcode::Bxor,
                ..
            }) => {
                cond = match (g.input(n, 0), g.input(n, 1)) {
                    (c, t) | (t, c) if const_of(g, t) == Some(1) => c,
                    _ => return None,
                }
            }
            _ => break n,
        }
        negated = !negated;
    };
    let Some(Op::Inst(InstructionData::IntCompare { cond: cc, .. })) = g.op(cmp) else {
        return None;
    };
    Some((cmp, if negated { cc.inverse() } else { *cc }))
}

/// Whether θ `theta` is counted, and how.
pub(super) fn counted(g: &Rvsdg, theta: Node) -> Option<Counted> {
    let body = g.theta_body(theta);
    let results = g.results(body);
    let (cmp, mut cc) = loop_compare(g, body)?;
    let (mut next, mut bound) = (g.input(cmp, 0), g.input(cmp, 1));
    if matches!(cc, IntCC::Ugt | IntCC::Sgt) {
        std::mem::swap(&mut next, &mut bound);
        cc = cc.swap_args();
    }
    let signed = match cc {
        IntCC::Ult => false,
        IntCC::Slt => true,
        _ => return None,
    };
    // next = iadd iv, c: the next value of loop variable iv
    let add = g.producer(next)?;
    let Some(Op::Inst(InstructionData::Binary {
        opcode: Opcode::Iadd,
        ..
    })) = g.op(add)
    else {
        return None;
    };
    let (iv, step) = match (g.input(add, 0), g.input(add, 1)) {
        (Origin::Arg(_, i), c) | (c, Origin::Arg(_, i)) => (i as usize, const_of(g, c)?),
        _ => return None,
    };
    // the next value: the tested sum itself, or `iv + c` with `0 < c <= step`
    let (step, lead) = if results[1 + iv] == next {
        (step, 0)
    } else {
        let n = g.producer(results[1 + iv])?;
        let Some(Op::Inst(InstructionData::Binary {
            opcode: Opcode::Iadd,
            ..
        })) = g.op(n)
        else {
            return None;
        };
        let c = match (g.input(n, 0), g.input(n, 1)) {
            (Origin::Arg(_, i), c) | (c, Origin::Arg(_, i)) if i as usize == iv => const_of(g, c)?,
            _ => return None,
        };
        if signed || c == 0 || c > step {
            return None;
        }
        (c, step - c)
    };
    let ty = g.ty(next).value()?;
    let positive = if signed {
        ty.bits() > 1 && sext(ty, step) > 0
    } else {
        step != 0
    };
    if !ty.is_int() || !positive {
        return None;
    }
    let bound = bound_of(g, results, bound)?;
    Some(Counted {
        iv,
        step,
        lead,
        ty,
        bound,
        signed,
        ne: false,
        pointer: false,
    })
}

/// Whether θ `theta` counts up to a bound it tests for equality: it repeats iff
/// `iv + c != b`, `iv + c` (`iadd`, or `ptradd` of a pointer compared as an integer
/// through a `bitcast`: how a slice iterator's `ptr != end` reaches the RVSDG) being
/// `iv`'s next value, `c` a positive constant and `b` invariant. Unsigned, without a
/// lead. (`counted` covers `<`; only the unroller takes this form.)
pub(super) fn counted_until(g: &Rvsdg, theta: Node) -> Option<Counted> {
    let body = g.theta_body(theta);
    let results = g.results(body);
    let (cmp, cc) = loop_compare(g, body)?;
    if cc != IntCC::Ne {
        return None;
    }
    // which operand is the next value
    let next_of = |o: Origin| -> Option<(usize, u128, bool)> {
        let (next, pointer) = match producer_opcode(g, o) {
            Some(Opcode::Bitcast) => (g.input(g.producer(o)?, 0), true),
            _ => (o, false),
        };
        let add = g.producer(next)?;
        let want = if pointer {
            Opcode::Ptradd
        } else {
            Opcode::Iadd
        };
        if producer_opcode(g, next) != Some(want) {
            return None;
        }
        let (iv, c) = match (g.input(add, 0), g.input(add, 1)) {
            (Origin::Arg(_, i), c) if pointer => (i as usize, c),
            (Origin::Arg(_, i), c) | (c, Origin::Arg(_, i)) if !pointer => (i as usize, c),
            _ => return None,
        };
        (results[1 + iv] == next).then_some((iv, const_of(g, c)?, pointer))
    };
    let (a, b) = (g.input(cmp, 0), g.input(cmp, 1));
    let ((iv, step, pointer), bound) = match next_of(a) {
        Some(x) => (x, b),
        None => (next_of(b)?, a),
    };
    let ty = g.ty(bound).value()?;
    if !ty.is_int() || ty.bits() > 64 || step == 0 || step > ty.mask() {
        return None;
    }
    let bound = bound_of(g, results, bound)?;
    Some(Counted {
        iv,
        step,
        lead: 0,
        ty,
        bound,
        signed: false,
        ne: true,
        pointer,
    })
}

/// The loop's bound `b` (of a θ body whose results are `results`): an argument whose
/// next value is itself, or a constant.
fn bound_of(g: &Rvsdg, results: &[Origin], b: Origin) -> Option<Bound> {
    match b {
        Origin::Arg(_, p) if results[1 + p as usize] == b => Some(Bound::Var(p as usize)),
        _ => Some(Bound::Const(const_of(g, b)?)),
    }
}

/// The opcode of the simple node that makes `o`.
fn producer_opcode(g: &Rvsdg, o: Origin) -> Option<Opcode> {
    match g.op(g.producer(o)?)? {
        Op::Inst(d) => Some(d.opcode()),
        _ => None,
    }
}

/// Whether a node at the top level of `body` reads a state and gives none back.
pub(super) fn has_sink(g: &Rvsdg, body: Region) -> bool {
    g.nodes(body).iter().any(|&n| {
        g.inputs(n).iter().any(|&o| g.ty(o).is_state()) && !g.outputs(n).any(|o| g.ty(o).is_state())
    })
}

/// The number of iterations of a loop from constant `x0` to constant `b`, when no
/// increment wraps (types up to 64 bits).
pub(super) fn trip_count(lp: &Counted, x0: u128, b: u128) -> Option<u128> {
    if lp.ty.bits() > 64 || lp.ne {
        return None;
    }
    let (x0, b, c, hi) = if lp.signed {
        let hi = (lp.ty.mask() >> 1) as i128;
        (sext(lp.ty, x0), sext(lp.ty, b), lp.step as i128, hi)
    } else {
        (x0 as i128, b as i128, lp.step as i128, lp.ty.mask() as i128)
    };
    if x0 + c > hi {
        return None;
    }
    if x0 + c >= b {
        return Some(1);
    }
    // the first n with x0 + n*c >= b: the test after iteration n fails
    let t = (b - x0 + c - 1) / c;
    (x0 + t * c <= hi).then_some(t as u128)
}

/// The limit `b - (k-1)*c` of a constant bound, if `b - (k-1)*c` does not wrap (else
/// no block of `k` iterations is ever certain).
fn const_limit(lp: &Counted, b: u128, d: u128) -> Option<u128> {
    if lp.signed {
        let min = -((lp.ty.mask() >> 1) as i128) - 1;
        let limit = sext(lp.ty, b).checked_sub(d as i128)?;
        (limit >= min).then_some(limit as u128 & lp.ty.mask())
    } else {
        b.checked_sub(d)
    }
}

/// Unrolls θ `theta` if it is counted and fits.
fn unroll(g: &mut Rvsdg, theta: Node, options: &UnrollOptions, counts: &mut Counts) {
    let until = || options.until.then(|| counted_until(g, theta)).flatten();
    let Some(lp) = counted(g, theta).or_else(until) else {
        counts.not_counted += 1;
        return;
    };
    let body = g.theta_body(theta);
    if has_sink(g, body) {
        counts.declined_sink += 1;
        return;
    }
    // a loop to a pointer's end whose body branches is a chain of decisions on the
    // values it carries (`branchy_hash`): one body becomes branch-free predicated
    // code, k copies of it do not, and the chain stays as long
    if lp.ne
        && g.nodes(body)
            .iter()
            .any(|&n| matches!(g.kind(n), NodeKind::Gamma { .. }))
    {
        counts.declined_branches += 1;
        return;
    }
    let size = g.count_nodes(body).max(1);
    let mut k = options
        .factor
        .min(budget_for(g, body, options.budget) / size);
    if k < 2 {
        counts.declined_size += 1;
        return;
    }
    while k >= 2 && lp.multiple(k).is_none() {
        k -= 1;
    }
    if k < 2 {
        counts.not_counted += 1;
        return;
    }
    let inits = g.inputs(theta).to_vec();
    let known = match (const_of(g, inits[lp.iv]), lp.bound) {
        (Some(x0), Bound::Const(b)) if lp.lead == 0 => trip_count(&lp, x0, b),
        _ => None,
    };
    if let Some(t) = known
        && t <= FULL_UNROLL_TRIPS as u128
        && t as usize * size <= options.budget
    {
        fully_unroll(g, theta, &lp, t as usize);
        counts.full += 1;
        counts.loops += 1;
        return;
    }
    if let Some(t) = known {
        if t < k as u128 {
            counts.declined_short += 1;
            return;
        }
        if t % k as u128 != 0
            && let Some(d) = ((k / 2 + 1).max(2)..k).rev().find(|&d| t % d as u128 == 0)
        {
            k = d;
        }
    }
    // the limit is `b - d` with `d = (k-1)c + lead`
    let Some(d) = lp.multiple(k - 1).and_then(|d| lp.lead_plus(d)) else {
        counts.not_counted += 1;
        return;
    };
    let limit = match lp.bound {
        // `until`: θ_main tests the distance to the bound itself
        Bound::Const(b) if lp.ne => Some(b),
        Bound::Const(b) => match const_limit(&lp, b, d) {
            Some(l) => Some(l),
            None => {
                counts.declined_short += 1;
                return;
            }
        },
        Bound::Var(_) => None,
    };
    match (known, limit) {
        (Some(t), Some(limit)) => {
            known_trip_count(g, theta, &lp, k, limit, t % k as u128 == 0);
            counts.known += 1;
        }
        _ => {
            guarded(g, theta, &lp, k, limit);
        }
    }
    counts.loops += 1;
}

/// Unrolls counted θ `theta` (without a sink) by exactly `k`, never completely:
/// θ_main with `k` copies of the body per iteration, the original θ for what
/// remains (`jam.rs` then fuses the copies of an inner loop). Returns θ_main, or
/// `None` (and changes nothing) when [`unrollable_by`] says no.
pub(super) fn unroll_by(g: &mut Rvsdg, theta: Node, k: usize) -> Option<Node> {
    let (lp, known, limit) = plan_by(g, theta, k)?;
    Some(match (known, limit) {
        (Some(t), Some(limit)) => known_trip_count(g, theta, &lp, k, limit, t % k as u128 == 0),
        _ => guarded(g, theta, &lp, k, limit),
    })
}

/// Whether [`unroll_by`] can unroll `theta` by `k`: counted, without a sink, `k * c`
/// representable, and `k` iterations certainly run when its trip count is known.
pub(super) fn unrollable_by(g: &Rvsdg, theta: Node, k: usize) -> bool {
    plan_by(g, theta, k).is_some()
}

/// The shape, known trip count and constant limit of unrolling `theta` by `k`.
fn plan_by(g: &Rvsdg, theta: Node, k: usize) -> Option<(Counted, Option<u128>, Option<u128>)> {
    let lp = counted(g, theta).or_else(|| counted_until(g, theta))?;
    if k < 2 || has_sink(g, g.theta_body(theta)) {
        return None;
    }
    lp.multiple(k)?;
    let d = lp.multiple(k - 1).and_then(|d| lp.lead_plus(d))?;
    let known = match (const_of(g, g.input(theta, lp.iv)), lp.bound) {
        (Some(x0), Bound::Const(b)) if lp.lead == 0 => trip_count(&lp, x0, b),
        _ => None,
    };
    if known.is_some_and(|t| t < k as u128) {
        return None;
    }
    let limit = match lp.bound {
        Bound::Const(b) if lp.ne => Some(b),
        Bound::Const(b) => Some(const_limit(&lp, b, d)?),
        Bound::Var(_) => None,
    };
    Some((lp, known, limit))
}

/// The budget for the copies of θ body `body`: `budget`, twice that when the body
/// divides (a division, float division or square root at its top level, 16 to 20
/// cycles): one iteration's division then overlaps the next ones' only when they
/// are copies in the same block, and more copies keep more divisions in flight
/// (`classify`'s data loop, a remainder per element, with a call that may grow the
/// vector between elements: 4 copies instead of 2, 0.913x).
fn budget_for(g: &Rvsdg, body: Region, budget: usize) -> usize {
    let divides = g.nodes(body).iter().any(|&n| {
        g.op(n).is_some_and(|op| {
            op.is_long_pure()
                || matches!(
                    op.opcode(),
                    Some(Opcode::Udiv | Opcode::Urem | Opcode::Sdiv | Opcode::Srem)
                )
        })
    });
    if divides { 2 * budget } else { budget }
}

/// The trip count is known (`t`, at most [`FULL_UNROLL_TRIPS`]): `t` copies of the
/// body chained in the θ's region, copy `j` reading the constant `iv0 + j*c`, replace
/// the θ.
fn fully_unroll(g: &mut Rvsdg, theta: Node, lp: &Counted, t: usize) {
    let r = g.node(theta).region;
    let body = g.theta_body(theta);
    let inits = g.inputs(theta).to_vec();
    let x0 = const_of(g, inits[lp.iv]).expect("a known trip count has a constant start");
    let ivs: Vec<Origin> = (0..=t)
        .map(|j| {
            // j*c + x0 modulo 2^w (j <= 16 and c < 2^64: no overflow of u128)
            let x = x0.wrapping_add(j as u128 * lp.step) & lp.ty.mask();
            iconst(g, r, lp.ty, x)
        })
        .collect();
    let (next, dead) = interleaved_copies(g, body, r, lp, &inits, &ivs);
    for (i, &o) in next.iter().enumerate() {
        g.divert_users(Origin::Out(theta, i as u32), o);
    }
    g.remove_node(theta);
    let mut rw = Rewriter::new(g);
    for o in dead {
        if let Origin::Out(m, _) = o {
            rw.remove_if_dead(m);
        }
    }
    merge_constants(g, r);
}

/// Where θ_main reads its limit: a constant, or a value of the region it is made in.
#[derive(Copy, Clone)]
enum Limit {
    Const(u128),
    In(Origin),
}

/// θ_main in region `r` on `inits` (one per loop variable of `theta`): `k` copies of
/// `theta`'s body per iteration, repeating while `iv + k*c < limit`. Returns its
/// outputs (the loop variables after its last iteration).
fn main_loop(
    g: &mut Rvsdg,
    theta: Node,
    lp: &Counted,
    k: usize,
    r: Region,
    inits: &[Origin],
    limit: Limit,
) -> Vec<Origin> {
    let body = g.theta_body(theta);
    let n = inits.len();
    let mut all = inits.to_vec();
    if let Limit::In(o) = limit {
        all.push(o);
    }
    let main = g.add_theta(r, &all);
    g.set_loc(main, g.node(theta).loc);
    let mb = g.theta_body(main);
    let margs: Vec<Origin> = g.arg_origins(mb).collect();
    let limit = match limit {
        Limit::Const(l) => iconst(g, mb, lp.ty, l),
        Limit::In(_) => margs[n],
    };
    // iv + j*c for j = 0..=k, each from the argument (independent additions)
    let ivs: Vec<Origin> = (0..=k)
        .map(|j| match j {
            0 => margs[lp.iv],
            _ => {
                let c = lp.multiple(j).expect("multiples up to k*c fit");
                let c = iconst(g, mb, lp.ty, c);
                let add = if lp.pointer {
                    Opcode::Ptradd
                } else {
                    Opcode::Iadd
                };
                binary(g, mb, add, margs[lp.iv], c)
            }
        })
        .collect();
    let (next, dead) = interleaved_copies(g, body, mb, lp, &margs[..n], &ivs);
    let more = if lp.ne {
        // more than d = (k-1)c to go: the next k tests pass
        let x = as_int(g, mb, lp, ivs[k]);
        let left = binary(g, mb, Opcode::Isub, limit, x);
        let d = lp.multiple(k - 1).expect("checked by unroll");
        let d = iconst(g, mb, lp.ty, d);
        icmp(g, mb, IntCC::Ugt, left, d)
    } else {
        icmp(g, mb, lp.lt(), ivs[k], limit)
    };
    let p = predicate(g, mb, more);
    g.set_theta_predicate(main, p);
    for (i, &o) in next.iter().enumerate() {
        g.set_result(mb, 1 + i, o);
    }
    // now that everything that stays has its users: the copies' own increments and
    // predicates
    let mut rw = Rewriter::new(g);
    for o in dead {
        if let Origin::Out(m, _) = o {
            rw.remove_if_dead(m);
        }
    }
    merge_constants(g, mb);
    (0..n as u32).map(|i| Origin::Out(main, i)).collect()
}

/// `ivs.len() - 1` copies of θ body `body` chained in region `mb`: copy 0 reads
/// `args`, copy `j` reads copy `j - 1`'s next values, except that the induction
/// variable of copy `j` is `ivs[j]`. Returns the last copy's next values (`iv`'s is
/// `ivs[k]`) and what the copies made that nothing may need (their own increments of
/// the induction variable, whose users read `ivs[j + 1]` instead, and their
/// predicates), for the caller to remove once everything has its users.
///
/// The copies are made node by node, each node of the body copied `k` times in a
/// row, not copy by copy: sequentialization breaks ties between ready nodes by node
/// number, so the copies' independent work (addresses, loads, their arithmetic) comes
/// out closer together, more of each copy's values get registers of their own, and
/// the scheduler (after register allocation, one block at a time) can overlap them;
/// copy by copy, the allocator reuses one copy's registers for the next and the
/// anti-dependences serialize them (an `i32` dot product, `k = 4`: 26 bundles per
/// iteration of θ_main instead of 32). An input that reads a body argument is
/// connected when every copy exists (copy `j`'s argument is copy `j - 1`'s result,
/// which may come later).
fn interleaved_copies(
    g: &mut Rvsdg,
    body: Region,
    mb: Region,
    lp: &Counted,
    args: &[Origin],
    ivs: &[Origin],
) -> (Vec<Origin>, Vec<Origin>) {
    let k = ivs.len() - 1;
    let results = g.results(body).to_vec();
    let mut maps: Vec<FxHashMap<Origin, Origin>> = vec![FxHashMap::default(); k];
    // (node, input, copy, argument): inputs to connect once every copy exists
    let mut pending: Vec<(Node, usize, usize, usize)> = Vec::new();
    for n in g.topological_order(body) {
        for (j, map) in maps.iter_mut().enumerate() {
            let inputs: Vec<Origin> = g
                .inputs(n)
                .iter()
                .map(|&o| match o {
                    // a placeholder of the right type until connected
                    Origin::Arg(_, i) => args[i as usize],
                    _ => map[&o],
                })
                .collect();
            let copy = g.copy_node(n, mb, &inputs);
            for (x, &o) in g.inputs(n).iter().enumerate() {
                if let Origin::Arg(_, i) = o {
                    pending.push((copy, x, j, i as usize));
                }
            }
            map.extend(g.outputs(n).zip(g.outputs(copy)));
        }
    }
    // what copy j reads as argument i (copy k: the next values)
    let iv_next = results[1 + lp.iv];
    let arg = |j: usize, i: usize| -> Origin {
        let (mut j, mut i) = (j, i);
        loop {
            if i == lp.iv {
                return ivs[j];
            }
            if j == 0 {
                return args[i];
            }
            match results[1 + i] {
                Origin::Arg(_, a) => (j, i) = (j - 1, a as usize),
                o if o == iv_next => return ivs[j],
                o => return maps[j - 1][&o],
            }
        }
    };
    for &(copy, x, j, i) in &pending {
        let o = arg(j, i);
        g.set_input(copy, x, o);
    }
    let mut dead = Vec::with_capacity(2 * k);
    for (j, map) in maps.iter().enumerate() {
        let own = map[&iv_next];
        g.divert_users(own, ivs[j + 1]);
        dead.extend([own, map[&results[0]]]);
    }
    let next = (0..args.len()).map(|i| arg(k, i)).collect();
    (next, dead)
}

/// The trip count is known and at least `k`: θ_main in the θ's region, then the
/// original θ for the `t mod k` remaining iterations, or nothing when `divides`.
fn known_trip_count(
    g: &mut Rvsdg,
    theta: Node,
    lp: &Counted,
    k: usize,
    limit: u128,
    divides: bool,
) -> Node {
    let r = g.node(theta).region;
    let inits = g.inputs(theta).to_vec();
    let outs = main_loop(g, theta, lp, k, r, &inits, Limit::Const(limit));
    let main = g.producer(outs[0]).expect("θ_main's output");
    if divides {
        for (i, &o) in outs.iter().enumerate() {
            g.divert_users(Origin::Out(theta, i as u32), o);
        }
        g.remove_node(theta);
    } else {
        for (i, &o) in outs.iter().enumerate() {
            g.set_input(theta, i, o);
        }
    }
    main
}

/// The general case: θ_main behind the guard γ1, the original θ as the remainder
/// behind γ2 (module documentation). `limit` is the constant limit of a constant
/// bound.
fn guarded(g: &mut Rvsdg, theta: Node, lp: &Counted, k: usize, limit: Option<u128>) -> Node {
    let r = g.node(theta).region;
    let loc = g.node(theta).loc;
    let inits = g.inputs(theta).to_vec();
    let n = inits.len();
    let iv0 = inits[lp.iv];
    // the guard c0: k iterations certainly run from iv0
    let (limit, guard) = match lp.bound {
        _ if lp.ne => {
            // `until`: more than d = (k-1)c between iv0 and the bound
            let b = match lp.bound {
                Bound::Var(p) => inits[p],
                Bound::Const(b) => iconst(g, r, lp.ty, b),
            };
            let x = as_int(g, r, lp, iv0);
            let left = binary(g, r, Opcode::Isub, b, x);
            let d = lp.multiple(k - 1).expect("checked by unroll");
            let d = iconst(g, r, lp.ty, d);
            let room = icmp(g, r, IntCC::Ugt, left, d);
            let limit = match lp.bound {
                Bound::Const(b) => Limit::Const(b),
                Bound::Var(_) => Limit::In(b),
            };
            (limit, room)
        }
        Bound::Const(_) => {
            let l = limit.expect("a constant bound has a constant limit");
            let lc = iconst(g, r, lp.ty, l);
            (Limit::Const(l), icmp(g, r, lp.lt(), iv0, lc))
        }
        Bound::Var(p) => {
            let b = inits[p];
            let d = lp
                .multiple(k - 1)
                .and_then(|d| lp.lead_plus(d))
                .expect("checked by unroll");
            let d = iconst(g, r, lp.ty, d);
            let l = binary(g, r, Opcode::Isub, b, d);
            let no_wrap = icmp(g, r, lp.le(), l, b);
            // when b - d wraps, the least value of the order as the limit, which no
            // iv0 is below: one compare and a `select` rather than the conjunction of
            // two compares (a predicate pair would go through general registers)
            let least = if lp.signed {
                1u128 << (lp.ty.bits() - 1)
            } else {
                0
            };
            let least = iconst(g, r, lp.ty, least);
            let l = select(g, r, no_wrap, l, least);
            let room = icmp(g, r, lp.lt(), iv0, l);
            (Limit::In(l), room)
        }
    };
    let p1 = predicate(g, r, guard);
    let mut entries = inits.clone();
    if let Limit::In(o) = limit {
        entries.push(o);
    }
    let g1 = g.add_gamma(r, p1, &entries, 2);
    g.set_loc(g1, loc);
    let arms = g.kind(g1).subregions().to_vec();
    let (skip, run) = (arms[0], arms[1]);
    let skip_args: Vec<Origin> = g.arg_origins(skip).collect();
    let run_args: Vec<Origin> = g.arg_origins(run).collect();
    let run_limit = match limit {
        Limit::Const(l) => Limit::Const(l),
        Limit::In(_) => Limit::In(run_args[n]),
    };
    let outs = main_loop(g, theta, lp, k, run, &run_args[..n], run_limit);
    let main = g.producer(outs[0]).expect("θ_main's output");
    // would the original go on after θ_main's last block?
    let b = match lp.bound {
        Bound::Var(p) => run_args[p],
        Bound::Const(b) => iconst(g, run, lp.ty, b),
    };
    // (the original's own test: `iv + lead <u b`)
    let tested = match lp.lead {
        0 => outs[lp.iv],
        lead => {
            let l = iconst(g, run, lp.ty, lead);
            binary(g, run, Opcode::Iadd, outs[lp.iv], l)
        }
    };
    let go_on = if lp.ne {
        let x = as_int(g, run, lp, tested);
        icmp(g, run, IntCC::Ne, x, b)
    } else {
        icmp(g, run, lp.lt(), tested, b)
    };
    let yes = iconst(g, skip, Type::I1, 1);
    let mid: Vec<Origin> = (0..n)
        .map(|i| g.add_gamma_exit(g1, &[skip_args[i], outs[i]]))
        .collect();
    let more = g.add_gamma_exit(g1, &[yes, go_on]);
    // γ2: the original θ, moved into its true arm, runs the remainder
    let p2 = predicate(g, r, more);
    let users: Vec<Vec<User>> = g.outputs(theta).map(|o| g.users(o).to_vec()).collect();
    let g2 = g.add_gamma(r, p2, &mid, 2);
    g.set_loc(g2, loc);
    let arms = g.kind(g2).subregions().to_vec();
    let (done, rest) = (arms[0], arms[1]);
    let done_args: Vec<Origin> = g.arg_origins(done).collect();
    let rest_args: Vec<Origin> = g.arg_origins(rest).collect();
    g.move_node(theta, rest, &rest_args);
    for (i, users) in users.into_iter().enumerate() {
        let out = g.add_gamma_exit(g2, &[done_args[i], Origin::Out(theta, i as u32)]);
        for u in users {
            g.set_origin(u, out);
        }
    }
    main
}

/// Merges the equal constants of region `r` (the copies bring one each).
fn merge_constants(g: &mut Rvsdg, r: Region) {
    let mut first: FxHashMap<(Op, Ty), Origin> = FxHashMap::default();
    let mut nodes = g.nodes(r).to_vec();
    nodes.sort_unstable();
    for c in nodes {
        let Some(key) = constant(g, c) else {
            continue;
        };
        match first.get(&key) {
            Some(&o) => {
                g.divert_users(Origin::Out(c, 0), o);
                g.remove_node(c);
            }
            None => {
                first.insert(key, Origin::Out(c, 0));
            }
        }
    }
}

fn v0() -> Value {
    Value::from_u32(0)
}

/// `x` (a value of the loop's induction variable) as the integer its test compares:
/// a pointer's address through a `bitcast`.
fn as_int(g: &mut Rvsdg, r: Region, lp: &Counted, x: Origin) -> Origin {
    if !lp.pointer {
        return x;
    }
    unary(g, r, Opcode::Bitcast, x, lp.ty)
}

/// `opcode a` of type `ty` in region `r`.
pub(super) fn unary(g: &mut Rvsdg, r: Region, opcode: Opcode, a: Origin, ty: Type) -> Origin {
    let op = Op::Inst(InstructionData::Unary { opcode, arg: v0() });
    Origin::Out(g.add_simple(r, op, &[a], &[Ty::Val(ty)]), 0)
}

pub(super) fn iconst(g: &mut Rvsdg, r: Region, ty: Type, bits: u128) -> Origin {
    let op = Op::Inst(InstructionData::UnaryImm {
        opcode: Opcode::Iconst,
        imm: bits & ty.mask(),
    });
    Origin::Out(g.add_simple(r, op, &[], &[Ty::Val(ty)]), 0)
}

/// `opcode a, b` of the type of `a` (no state).
pub(super) fn binary(g: &mut Rvsdg, r: Region, opcode: Opcode, a: Origin, b: Origin) -> Origin {
    let ty = g.ty(a);
    let op = Op::Inst(InstructionData::Binary {
        opcode,
        args: [v0(), v0()],
    });
    Origin::Out(g.add_simple(r, op, &[a, b], &[ty]), 0)
}

pub(super) fn icmp(g: &mut Rvsdg, r: Region, cond: IntCC, a: Origin, b: Origin) -> Origin {
    let op = Op::Inst(InstructionData::IntCompare {
        opcode: Opcode::Icmp,
        cond,
        args: [v0(), v0()],
    });
    Origin::Out(g.add_simple(r, op, &[a, b], &[Ty::Val(Type::I1)]), 0)
}

/// `c ? a : b`.
pub(super) fn select(g: &mut Rvsdg, r: Region, c: Origin, a: Origin, b: Origin) -> Origin {
    let ty = g.ty(a);
    let op = Op::Inst(InstructionData::Ternary {
        opcode: Opcode::Select,
        args: [v0(), v0(), v0()],
    });
    Origin::Out(g.add_simple(r, op, &[c, a, b], &[ty]), 0)
}

/// The predicate of a two-way γ or a θ: alternative 1 when `cond` is true.
pub(super) fn predicate(g: &mut Rvsdg, r: Region, cond: Origin) -> Origin {
    let op = Op::Match {
        cases: Box::new([(1, 1)]),
        default: 0,
        alts: 2,
    };
    Origin::Out(g.add_simple(r, op, &[cond], &[Ty::Ctl(2)]), 0)
}

#[cfg(test)]
mod tests {
    use vliw_ir::{DataValue, Module};

    use super::*;
    use crate::{Evaluator, parse_graph, verify};

    /// `@f(x0, b)`: from `i = x0`, `acc = 0`, `acc = acc * 3 + i` while `i + 2 <u b`
    /// (`i` counted by 2); returns `acc` and the final `i`. `extra` is more of the body
    /// (`n0`..`n10` are taken), whose memory and I/O results are `states`; `nested`
    /// puts the θ in another θ's body.
    fn counted_loop(extra: &str, states: [&str; 2], nested: bool) -> Rvsdg {
        let [mem, io] = states;
        let inner = format!(
            "n1 = theta [a0, n0, a1, a2, a3] : i64, i64, i64, mem, io {{
      (a0: i64, a1: i64, a2: i64, a3: mem, a4: io):
        n2 = iconst 3 : i64
        n3 = imul a1, n2 : i64
        n4 = iadd n3, a0 : i64
        {extra}
        n7 = iconst 2 : i64
        n8 = iadd a0, n7 : i64
        n9 = icmp ult n8, a2 : i1
        n10 = match2 [1 -> 1, _ -> 0] n9 : ctl2
        -> (n10, n8, n4, a2, {mem}, {io})
    }}"
        );
        let body = if nested {
            // the same loop, run until its i reaches b (an outer loop of one iteration
            // at most when x0 + 2 >= b)
            format!(
                "n20 = theta [a0, a1, a2, a3] : i64, i64, mem, io {{
      (a0: i64, a1: i64, a2: mem, a3: io):
        n0 = iconst 0 : i64
        {inner}
        n11 = icmp ult n1.0, a1 : i1
        n12 = match2 [1 -> 1, _ -> 0] n11 : ctl2
        -> (n12, n1.0, a1, n1.3, n1.4)
    }}
    n21 = iconst 0 : i64
    -> (n21, n20.0, n20.2, n20.3)"
            )
        } else {
            format!(
                "n0 = iconst 0 : i64
    {inner}
    -> (n1.1, n1.0, n1.3, n1.4)"
            )
        };
        let text = format!(
            "
lambda @f(i64, i64) -> i64, i64 export {{
  (a0: i64, a1: i64, a2: mem, a3: io):
    {body}
}}
"
        );
        let g = parse_graph(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        verify(&g).unwrap_or_else(|e| panic!("{}\n{g}", e[0]));
        g
    }

    fn unrolled(g: &mut Rvsdg, factor: usize, budget: usize) -> Report {
        let mut report = Report::default();
        unroll_loops(
            g,
            &UnrollOptions {
                factor,
                budget,
                nests: false,
                until: true,
                peel: false,
            },
            &mut report,
        );
        verify(g).unwrap_or_else(|e| panic!("{}\n{g}", e[0]));
        report
    }

    /// `@f(x0, b)`'s results, or the kind of its trap.
    fn run(g: &Rvsdg, x0: u64, b: u64) -> Result<Vec<DataValue>, String> {
        let m = Module::default();
        let mut ev = Evaluator::new(g, &m);
        ev.set_step_limit(1_000_000);
        let args = [DataValue::I64(x0 as i64), DataValue::I64(b as i64)];
        ev.call("f", &args).map_err(|t| format!("{:?}", t.kind))
    }

    /// How many nodes below the λ print as `what` (`imul`, `theta`...).
    fn count(g: &Rvsdg, what: &str) -> usize {
        let l = g.lambdas()[0];
        g.regions_below(g.lambda_body(l))
            .into_iter()
            .flat_map(|r| g.nodes(r).to_vec())
            .filter(|&n| g.kind(n).label() == what)
            .count()
    }

    /// Starts and bounds around the wrap points and small trip counts.
    fn cases() -> Vec<(u64, u64)> {
        let mut v = Vec::new();
        for x0 in [0, 1, 5, u64::MAX, u64::MAX - 1, u64::MAX - 20, 1 << 63] {
            for d in [0u64, 1, 2, 3, 5, 6, 7, 8, 9, 13, 17, 40] {
                v.push((x0, x0.wrapping_add(d)));
                v.push((x0, d));
            }
            v.push((x0, u64::MAX));
        }
        v.retain(|&(x0, b)| {
            // runs that wrap around go on for 2^63 iterations: not those
            let mut i = x0;
            for _ in 0..10_000 {
                i = i.wrapping_add(2);
                if i >= b {
                    return true;
                }
            }
            false
        });
        v
    }

    #[test]
    fn the_body_is_copied_k_times_into_a_guarded_loop_and_keeps_its_results() {
        let original = counted_loop("", ["a3", "a4"], false);
        for k in 2..=5 {
            let mut g = original.clone();
            let report = unrolled(&mut g, k, 1000);
            assert_eq!(report.get("unroll.loops"), 1);
            // θ_main and the remainder, the body k + 1 times
            assert_eq!(count(&g, "theta"), 2, "{g}");
            assert_eq!(count(&g, "imul"), k + 1, "{g}");
            assert_eq!(count(&g, "gamma"), 2, "{g}");
            for (x0, b) in cases() {
                assert_eq!(
                    run(&g, x0, b),
                    run(&original, x0, b),
                    "k = {k}: @f({x0}, {b})"
                );
            }
        }
    }

    #[test]
    fn a_test_ahead_of_the_next_value_is_unrolled_with_the_lead_in_the_limit() {
        // repeat iff i + 3 <u b, the next i being i + 2: the lead is 1
        for lead_const in [3u64, 4, 7] {
            let text = format!(
                "
lambda @f(i64, i64) -> i64, i64 export {{
  (a0: i64, a1: i64, a2: mem, a3: io):
    n0 = iconst 0 : i64
    n1 = theta [a0, n0, a1, a2, a3] : i64, i64, i64, mem, io {{
      (a0: i64, a1: i64, a2: i64, a3: mem, a4: io):
        n2 = iconst 3 : i64
        n3 = imul a1, n2 : i64
        n4 = iadd n3, a0 : i64
        n7 = iconst 2 : i64
        n8 = iadd a0, n7 : i64
        n30 = iconst {lead_const} : i64
        n31 = iadd a0, n30 : i64
        n9 = icmp ult n31, a2 : i1
        n10 = match2 [1 -> 1, _ -> 0] n9 : ctl2
        -> (n10, n8, n4, a2, a3, a4)
    }}
    -> (n1.1, n1.0, n1.3, n1.4)
}}
"
            );
            let original = parse_graph(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            verify(&original).unwrap_or_else(|e| panic!("{}\n{original}", e[0]));
            let lp = {
                let l = original.lambdas()[0];
                let theta = original
                    .nodes(original.lambda_body(l))
                    .iter()
                    .copied()
                    .find(|&n| matches!(original.kind(n), NodeKind::Theta { .. }))
                    .expect("the θ");
                counted(&original, theta).expect("counted with a lead")
            };
            assert_eq!((lp.step, lp.lead), (2, u128::from(lead_const) - 2));
            for k in 2..=5 {
                let mut g = original.clone();
                let report = unrolled(&mut g, k, 1000);
                assert_eq!(report.get("unroll.loops"), 1, "{g}");
                for (x0, b) in cases() {
                    assert_eq!(
                        run(&g, x0, b),
                        run(&original, x0, b),
                        "lead {}, k = {k}: @f({x0}, {b})",
                        lead_const - 2
                    );
                }
            }
        }
    }

    /// The size of the θ at the top of `g`'s λ, nested regions included.
    fn theta_size(g: &Rvsdg) -> usize {
        let l = g.lambdas()[0];
        let theta = g
            .nodes(g.lambda_body(l))
            .iter()
            .copied()
            .find(|&n| matches!(g.kind(n), NodeKind::Theta { .. }))
            .expect("the θ");
        g.count_nodes_inside(theta)
    }

    #[test]
    fn a_dividing_body_has_twice_the_budget() {
        let original = counted_loop("n11 = udiv safe n4, n2 : i64", ["a3", "a4"], false);
        let body = theta_size(&original);
        // a budget below 2 copies, doubled: 3 copies (and the remainder's original)
        let mut g = original.clone();
        let report = unrolled(&mut g, 4, 2 * body - 1);
        assert_eq!(report.get("unroll.loops"), 1);
        assert_eq!(count(&g, "udiv safe"), 4);
        for (x0, b) in [(0, 0), (0, 7), (1, 20), (5, 6)] {
            assert_eq!(run(&g, x0, b), run(&original, x0, b), "@f({x0}, {b})");
        }
    }

    #[test]
    fn the_factor_fits_the_budget() {
        let original = counted_loop("", ["a3", "a4"], false);
        let body = theta_size(&original);
        // a budget for 3 copies, for 2, for 1 (declined)
        for (budget, k) in [(3 * body + 1, 3), (3 * body - 1, 2), (2 * body - 1, 0)] {
            let mut g = original.clone();
            let report = unrolled(&mut g, 4, budget);
            if k == 0 {
                assert_eq!(report.get("unroll.declined-size"), 1);
                assert_eq!(count(&g, "theta"), 1);
            } else {
                assert_eq!(count(&g, "imul"), k + 1, "budget {budget}");
            }
        }
        // factor 1: nothing, not even counted
        let mut g = original.clone();
        let report = unrolled(&mut g, 1, 1000);
        assert!(report.counters().is_empty());
        assert_eq!(g.to_string(), original.to_string());
    }

    #[test]
    fn a_body_that_may_trap_at_its_top_level_stays() {
        // a trap when acc is 10 (the third iteration from 0): a γ whose arm traps is fine (its outputs give
        // the states back), a trap at the body's top level is not
        let in_gamma = "n5 = iconst 10 : i64
        n6 = icmp eq n4, n5 : i1
        n12 = match2 [1 -> 1, _ -> 0] n6 : ctl2
        n11 = gamma n12 [a3, a4] : mem, io {
          (a0: mem, a1: io):
            -> (a0, a1)
          (a0: mem, a1: io):
            trap 9 a0, a1
            -> (a0, a1)
        }";
        let original = counted_loop(in_gamma, ["n11.0", "n11.1"], false);
        let mut g = original.clone();
        let report = unrolled(&mut g, 4, 1000);
        assert_eq!(report.get("unroll.loops"), 1);
        let mut traps = 0;
        for (x0, b) in cases() {
            let want = run(&original, x0, b);
            traps += usize::from(want.is_err());
            assert_eq!(run(&g, x0, b), want, "@f({x0}, {b})");
        }
        assert!(traps > 0);

        let top = "trap 9 a3, a4";
        let mut g = counted_loop(top, ["a3", "a4"], false);
        let report = unrolled(&mut g, 4, 1000);
        assert_eq!(report.get("unroll.declined-sink"), 1);
        assert_eq!(count(&g, "theta"), 1);
    }

    #[test]
    fn only_innermost_loops_unroll() {
        let original = counted_loop("", ["a3", "a4"], true);
        let mut g = original.clone();
        let report = unrolled(&mut g, 4, 1000);
        assert_eq!(report.get("unroll.loops"), 1);
        // the outer θ, the inner one's θ_main and remainder
        assert_eq!(count(&g, "theta"), 3, "{g}");
        for (x0, b) in cases() {
            assert_eq!(run(&g, x0, b), run(&original, x0, b), "@f({x0}, {b})");
        }
    }
}
