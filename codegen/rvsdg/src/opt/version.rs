//! Loop versioning for memory disambiguation (`rvsdg-version`): a counted innermost
//! loop that stores through one pointer and loads or stores through another, which
//! nothing at compile time tells apart (two raw pointer parameters, `saxpy`'s `x` and
//! `y`), runs as a copy whose accesses carry alias scopes (`vliw_ir::AliasScope`)
//! when a check before the loop finds that the address ranges the pointers sweep do
//! not overlap, and as it was otherwise. The machine's schedulers then reorder and
//! overlap the copy's loads and stores across pointers: a store of iteration `j` no
//! longer holds back the loads of iteration `j + 1` (LLVM's `LoopVersioning` with the
//! run-time checks of `LoopAccessAnalysis`, which its vectorizer and LICM use; the
//! scopes are its `!alias.scope`/`!noalias` metadata).
//!
//! **Bounds checks** (inductive range check elimination, as LLVM's IRCE, by
//! versioning): a γ at the top level of the body on `s·iv + T + d <u len` (`len`
//! invariant, `s` a constant from 0 to [`MAX_SCALE`] or an invariant value, the
//! column stride `n` of `b[k·n + j]`, which the check requires to be at most
//! [`MAX_SCALE`] at run time; `d` one within
//! ±[`MAX_DISPLACEMENT`], `T` a sum of invariant loop variables or none), whose
//! failing arm never completes (a slice index's panic, or the landing pads that drop
//! what is live and resume unwinding: `completion.rs`) and whose passing arm holds
//! pure computations only, passes in every iteration when it
//! passes for the last index `s·hi + T + d` and the index grows with `iv` without
//! wrapping: so it does for no `T`, a constant `s` and `d >= 0` (`iv` stays below
//! 2^40); otherwise the first index must not be above the last (the indices span
//! less than 2^53: they wrap only if the last is below the first). Those comparisons join the
//! check (the copy loses exactly the checks they cover); in the copy
//! the γ gives way to its passing arm, so the copy is a counted
//! loop without side exits that unrolling and modulo scheduling take
//! (`version.range-checks`; `spectral_norm` 0.48x and `dot_saxpy` 0.59x the cycles).
//! A loop is versioned for its bounds checks alone, one base or none, when its body
//! has at most [`MAX_RANGE_CHECKED_NODES`] nodes besides the checks it loses (a larger one gains little against
//! the test and a second copy). Checks that constants decide (first value, bound
//! and length known) in a loop that unrolling unrolls completely (at most
//! `FULL_UNROLL_TRIPS` iterations within its budget) are left alone: each copy's
//! index is then a constant, and folding decides them (versioned, `nbody`'s short
//! pair loops ran 1.10x the cycles); those of longer loops are covered.
//!
//! **Loops taken.** An innermost θ that unrolling would call counted (`unroll.rs`:
//! repeats iff `iv + c + l <u b`, `iv + c` the next value, `c` and `l >= 0`
//! constants, `b` invariant), of `i64` with `c` and `l` at most [`MAX_STEP`], whose memory operations are plain loads and stores at the top level
//! of the body (traps and `unreachable` anywhere are fine; calls, atomics, volatile
//! accesses, copies and memory operations inside γs are not), each address being
//! `ptradd base, s·iv + T + d` or `base` itself, with `base` an invariant pointer (a
//! loop variable passed through), `s` a constant from 0 to [`MAX_SCALE`], `T` a sum of
//! invariant loop variables and `d` a constant (`induction.rs`'s affine forms); a
//! load may also have an invariant `s` (a column walk): it joins no group and takes
//! no scope, so the schedulers keep it in order with every store. The
//! accesses are grouped by base and `T`; the loop is versioned when there are two to
//! [`MAX_GROUPS`] groups and at least one stores. Two groups on two different
//! `noalias` parameters of the λ never overlap (the attribute's contract): they need
//! no check, and a loop with no other pair to check and no bounds check to lose is
//! not versioned but scoped in place (`version.noalias-scoped`).
//!
//! **The check** (in the θ's region, before it). The iterations run with `iv` from
//! `iv0` (the first always runs) while `iv + l <u b`, so every `iv` lies in `[iv0, hi]`
//! with `hi = iv0 + l <u b ? b - l - 1 : iv0`, provided the increments do not wrap
//! (when `iv0 + l >= b`, `iv0 + c + l` is larger still: one iteration): the check
//! requires `iv0 <u 2^40` and `b <u 2^40`, so that `iv + c` never wraps and `s·iv`
//! stays below `2^52`. A group of base `B` then touches only bytes of
//! `[B + s_min·iv0 + d_min, B + s_max·hi + e_max)`, `d_min` the least `d + offset` of
//! its accesses and `e_max` the greatest `d + offset + size` (all terms of the sum are
//! exact integers below `2^53`); computed with wrapping `ptradd`, the interval is the
//! real one when its ends do not wrap apart, which the check requires as `lo <=u hi`.
//! Two groups of which one stores are apart when `hi_1 <=u lo_2` or `hi_2 <=u lo_1`.
//! Every condition holds, or the original loop runs: the check is sufficient, never
//! needed for the result.
//!
//! **Form.** `γ(check) { false: the original θ; true: a copy of it }`, the copy's
//! loads and stores scoped: group `G` (fresh in the λ) and class `k + 1` for the
//! accesses of base `k`. The claim holds for the copy's one execution: each time the
//! γ runs, the check runs first.
//!
//! Counters: `version.loops` (loops versioned), `version.checks` (pairs of groups
//! checked), `version.range-checks` (bounds checks the copies lost),
//! `version.noalias-scoped` (loops scoped in place),
//! `version.not-counted`, `version.declined-memory` (an access or memory operation
//! of another kind), `version.one-base` (nothing to tell apart, or nothing
//! stored).

use rustc_hash::FxHashMap;
use vliw_ir::{AliasScope, InstructionData, IntCC, Opcode, Type};

use super::completion::Completion;
use super::gamma::inline_arm;
use super::induction::affine;
use super::rewrite::const_of;
use super::unroll::{
    Bound, DEFAULT_BUDGET, FULL_UNROLL_TRIPS, binary, counted, icmp, iconst, innermost_thetas,
    predicate, select, trip_count,
};
use crate::graph::{Node, NodeKind, Origin, Region, User};
use crate::ops::{Op, Rvsdg, Ty};
use crate::report::Report;

/// Loops with more nodes than this keep the bounds checks a run-time test would
/// remove.
const MAX_RANGE_CHECKED_NODES: usize = 48;

/// The largest step of the induction variable taken.
pub const MAX_STEP: u128 = 1 << 12;
/// The largest scale of the induction variable in an address.
pub const MAX_SCALE: u64 = 1 << 12;
/// The most bases one loop's check tells apart (pairs grow as its square).
pub const MAX_GROUPS: usize = 4;
/// `iv0` and `b` below this: no increment wraps and `s·iv` is exact.
const IV_LIMIT: u128 = 1 << 40;
/// The constant part of an address, `d + offset`, within ±this.
const MAX_DISPLACEMENT: i64 = 1 << 31;

/// Versions the counted innermost θs of `g` whose accesses through different
/// pointers a run-time check can tell apart.
pub fn version_loops(g: &mut Rvsdg, report: &mut Report) {
    let mut counts = Counts::default();
    let mut next_group: FxHashMap<Node, u32> = FxHashMap::default();
    for theta in innermost_thetas(g) {
        let Some(l) = g.enclosing_lambda(g.node(theta).region) else {
            continue;
        };
        let group = *next_group
            .entry(l)
            .or_insert_with(|| first_free_group(g, g.lambda_body(l)));
        if version(g, theta, group, &mut counts) {
            next_group.insert(l, group + 1);
        }
    }
    report.count("version.loops", counts.loops);
    report.count("version.checks", counts.checks);
    report.count("version.not-counted", counts.not_counted);
    report.count("version.declined-memory", counts.declined_memory);
    report.count("version.one-base", counts.one_base);
    report.count("version.range-checks", counts.range_checks);
    report.count("version.noalias-scoped", counts.noalias_scoped);
}

#[derive(Default)]
struct Counts {
    loops: u64,
    checks: u64,
    not_counted: u64,
    declined_memory: u64,
    one_base: u64,
    range_checks: u64,
    noalias_scoped: u64,
}

/// A group number no access below `r` uses yet.
pub(crate) fn first_free_group(g: &Rvsdg, r: Region) -> u32 {
    let mut max = 0;
    for q in g.regions_below(r) {
        for &n in g.nodes(q) {
            if let Some(Op::Inst(d)) = g.op(n)
                && let Some(s) = d.mem_flags().and_then(|f| f.scope)
            {
                max = max.max(s.group);
            }
        }
    }
    max + 1
}

/// What an address is based on: a loop variable passed through unchanged, or an
/// address constant of the body (`stack_addr`, `symbol_addr`: the same object
/// wherever it is computed).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
enum Base {
    Var(usize),
    Constant(Op),
}

/// One load or store of the loop: `base + scale·iv + terms + disp`, `size` bytes;
/// `terms` is a sum of the loop's invariant variables (`y·w` of `a[y·w + x]`), empty
/// for most.
struct Access {
    node: Node,
    base: Base,
    scale: u64,
    terms: Vec<(u32, u64)>,
    disp: i64,
    size: i64,
    store: bool,
    /// A load whose scale is an invariant value, not a constant (`b[k·n + j]`): in no
    /// group and given no scope (so it may overlap anything), but no reason to leave
    /// the loop alone.
    symbolic: bool,
}

/// The accesses through one base with one sum of invariant terms.
struct Group {
    base: Base,
    terms: Vec<(u32, u64)>,
    scale_min: u64,
    scale_max: u64,
    disp_min: i64,
    end_max: i64,
    stores: bool,
}

/// A bounds check at the top level of the body: γ `node` on `scale·iv + disp <u len`
/// (`len` invariant, `disp` of either sign: `a[i - 2]`), whose arm where the test
/// fails never completes (a call to a panic and `unreachable`, or landing pads that
/// resume unwinding: `completion.rs`) and whose other arm, `pass`, holds pure
/// computations only and gives the states back as they entered.
struct RangeCheck {
    node: Node,
    /// The constant part of the scale.
    scale: u64,
    /// The invariant part of the scale (`n` of `b[k·n + j]`), a sum of loop variables
    /// passed through; the check then also requires the scale to be at most
    /// [`MAX_SCALE`] at run time.
    scale_terms: Vec<(u32, u64)>,
    /// The invariant part of the index besides `disp` (`y·w - w` of `a[y·w + x - w]`).
    terms: Vec<(u32, u64)>,
    disp: i64,
    len: Base,
    /// The length, when it is a constant.
    len_value: Option<u128>,
    /// The arm taken when the index is in bounds.
    pass: usize,
}

/// The bounds checks of θ `theta`'s body (see [`RangeCheck`]).
fn range_checks(g: &Rvsdg, theta: Node, iv: u32, step: u64) -> Vec<RangeCheck> {
    let body = g.theta_body(theta);
    let results = g.results(body);
    let counters: FxHashMap<u32, u64> = [(iv, step)].into_iter().collect();
    let mut out = Vec::new();
    let mut completion = Completion::new();
    for &n in g.nodes(body) {
        let NodeKind::Gamma { .. } = g.kind(n) else {
            continue;
        };
        let arms = g.kind(n).subregions().to_vec();
        let Origin::Out(m, 0) = g.input(n, 0) else {
            continue;
        };
        let Some([_, on_true]) = super::unroll::match2_alternatives(g, m) else {
            continue;
        };
        let pass = on_true as usize;
        let fail = 1 - pass;
        let Origin::Out(c, 0) = g.input(m, 0) else {
            continue;
        };
        let Some(Op::Inst(InstructionData::IntCompare {
            cond: IntCC::Ult, ..
        })) = g.op(c)
        else {
            continue;
        };
        let (x, len) = (g.input(c, 0), g.input(c, 1));
        let len_value = const_of(g, len);
        let len = match len {
            Origin::Arg(r, k) if r == body && results[k as usize + 1] == len => {
                Base::Var(k as usize)
            }
            Origin::Out(k, _) if const_of(g, len).is_some() => match g.op(k) {
                Some(op) => Base::Constant(op.clone()),
                None => continue,
            },
            _ => continue,
        };
        let Some(f) = affine(g, body, &counters, x) else {
            continue;
        };
        let scale = f.scale.constant;
        let scale_terms = loop_terms(&f.scale.terms);
        let disp = f.offset.constant as i64;
        if (scale_terms.is_empty() && scale > MAX_SCALE) || disp.abs() > MAX_DISPLACEMENT {
            continue;
        }
        if !completion.never_completes(g, arms[fail]) || !pure_arm(g, arms[pass]) {
            continue;
        }
        out.push(RangeCheck {
            node: n,
            scale,
            scale_terms,
            terms: loop_terms(&f.offset.terms),
            disp,
            len,
            len_value,
            pass,
        });
    }
    out
}

/// The `noalias` pointer parameter of the enclosing λ that `base` (a variable of
/// θ `theta`) is, through the entries of the γs and θs around `theta` that pass it
/// unchanged; its index.
fn noalias_param(g: &Rvsdg, theta: Node, base: &Base) -> Option<u32> {
    let Base::Var(k) = base else { return None };
    let mut o = g.input(theta, *k);
    loop {
        let Origin::Arg(r, i) = o else { return None };
        let owner = g.owner(r)?;
        match g.kind(owner) {
            NodeKind::Lambda { .. } => {
                let info = g.lambda_info(owner);
                let i = i as usize;
                return (i < info.signature.params.len()
                    && info.param_attrs(i).noalias
                    && info.signature.params[i] == Type::Ptr)
                    .then_some(i as u32);
            }
            // an arm's argument is the γ's entry input (after the predicate)
            NodeKind::Gamma { .. } => o = g.input(owner, i as usize + 1),
            // a loop variable passed through unchanged is its initial value
            NodeKind::Theta { body } => {
                if g.results(*body)[i as usize + 1] != o {
                    return None;
                }
                o = g.input(owner, i as usize);
            }
            _ => return None,
        }
    }
}

/// Whether arm `r` holds pure computations only and gives every state back as it
/// entered (what the copy may run in the check's place).
fn pure_arm(g: &Rvsdg, r: Region) -> bool {
    g.nodes(r).iter().all(|&k| g.op(k).is_some_and(Op::is_pure))
        && g.results(r)
            .iter()
            .all(|&o| !g.ty(o).is_state() || matches!(o, Origin::Arg(..)))
}

/// Replaces bounds check `c`, which always passes, by its passing arm.
fn pass_check(g: &mut Rvsdg, c: &RangeCheck) {
    let inlined = inline_arm(g, c.node, c.pass);
    debug_assert!(inlined, "a pure arm shares no state with a sink");
    g.remove_node(c.node);
}

/// Versions θ `theta` if it qualifies; whether it did.
fn version(g: &mut Rvsdg, theta: Node, group: u32, counts: &mut Counts) -> bool {
    let Some(lp) = counted(g, theta) else {
        counts.not_counted += 1;
        return false;
    };
    if lp.signed || lp.ty != Type::I64 || lp.step > MAX_STEP || lp.lead > MAX_STEP {
        counts.not_counted += 1;
        return false;
    }
    if let Bound::Const(b) = lp.bound
        && b >= IV_LIMIT
    {
        counts.not_counted += 1;
        return false;
    }
    // which of the body's bounds checks the versioning condition covers; the copy
    // loses exactly those (its checks are found in the same order)
    let mut checks = range_checks(g, theta, lp.iv as u32, lp.step as u64);
    let mut covered = vec![true; checks.len()];
    // checks that constants decide (the first counter value, the bound and the
    // length known) in a loop that unrolling will unroll completely are left alone:
    // each copy's index is then a constant, and folding decides them (versioned,
    // `nbody`'s short pair loops ran 1.10x the cycles: a second copy that was not
    // unrolled completely); those of a longer loop are covered (`sha256`'s message
    // schedule, 48 iterations over a 64-word array: 0.82x)
    let inits = g.inputs(theta).to_vec();
    let bound = match lp.bound {
        Bound::Var(p) => const_of(g, inits[p]),
        Bound::Const(c) => Some(c),
    };
    let iv0_value = const_of(g, inits[lp.iv]);
    if let (Some(iv0), Some(b)) = (iv0_value, bound)
        && iv0 < IV_LIMIT
        && b < IV_LIMIT
        && (lp.lead != 0
            || trip_count(&lp, iv0, b).is_none_or(|t| {
                t <= FULL_UNROLL_TRIPS as u128
                    && t * g.count_nodes(g.theta_body(theta)).max(1) as u128
                        <= DEFAULT_BUDGET as u128
            }))
    {
        for (c, keep) in checks.iter().zip(covered.iter_mut()) {
            let len = match &c.len {
                Base::Var(k) => const_of(g, inits[*k]),
                Base::Constant(_) => c.len_value,
            };
            *keep &= len.is_none();
        }
    }
    // an index below its displacement's magnitude in the first iteration fails there
    // (`a[i - 2]` from `i = 0`): such a check stays
    if let Some(iv0) = iv0_value
        && iv0 < IV_LIMIT
    {
        for (c, keep) in checks.iter().zip(covered.iter_mut()) {
            *keep &= !c.terms.is_empty()
                || !c.scale_terms.is_empty()
                || (iv0 as i128) * i128::from(c.scale) + i128::from(c.disp) >= 0;
        }
    }
    // (a large body gains little from losing its checks, against the check before
    // the loop and a second copy of it; the size is the copy's, without the γ, the
    // `match` and the compare of each check it loses)
    let body_nodes = g.nodes(g.theta_body(theta)).len();
    let lost = 3 * covered.iter().filter(|&&k| k).count();
    if body_nodes.saturating_sub(lost) > MAX_RANGE_CHECKED_NODES {
        covered.iter_mut().for_each(|k| *k = false);
    }
    let mut kept = covered.iter();
    checks.retain(|_| *kept.next().unwrap());
    let skipped: Vec<Region> = checks
        .iter()
        .flat_map(|c| g.kind(c.node).subregions().to_vec())
        .flat_map(|r| g.regions_below(r))
        .collect();
    let Some(found) = accesses(g, theta, lp.iv as u32, lp.step as u64, &skipped) else {
        counts.declined_memory += 1;
        return false;
    };
    let mut groups: Vec<Group> = Vec::new();
    for a in found.iter().filter(|a| !a.symbolic) {
        let i = match groups
            .iter()
            .position(|x| x.base == a.base && x.terms == a.terms)
        {
            Some(i) => i,
            None => {
                groups.push(Group {
                    base: a.base.clone(),
                    terms: a.terms.clone(),
                    scale_min: a.scale,
                    scale_max: a.scale,
                    disp_min: a.disp,
                    end_max: a.disp + a.size,
                    stores: false,
                });
                groups.len() - 1
            }
        };
        let x = &mut groups[i];
        x.scale_min = x.scale_min.min(a.scale);
        x.scale_max = x.scale_max.max(a.scale);
        x.disp_min = x.disp_min.min(a.disp);
        x.end_max = x.end_max.max(a.disp + a.size);
        x.stores |= a.store;
    }
    // pairs that may overlap: one of them stores, and they are not based on two
    // different `noalias` parameters (whose memory, while the λ runs, nothing else
    // reaches: the attribute's contract)
    let noalias: Vec<Option<u32>> = groups
        .iter()
        .map(|x| noalias_param(g, theta, &x.base))
        .collect();
    let pairs: Vec<(usize, usize)> = (0..groups.len())
        .flat_map(|i| (i + 1..groups.len()).map(move |j| (i, j)))
        .filter(|&(i, j)| groups[i].stores || groups[j].stores)
        .filter(|&(i, j)| !matches!((noalias[i], noalias[j]), (Some(a), Some(b)) if a != b))
        .collect();
    let statically_apart = groups.len() >= 2
        && (0..groups.len())
            .flat_map(|i| (i + 1..groups.len()).map(move |j| (i, j)))
            .any(|(i, j)| {
                (groups[i].stores || groups[j].stores)
                    && matches!((noalias[i], noalias[j]), (Some(a), Some(b)) if a != b)
            });
    if groups.len() > MAX_GROUPS
        || (checks.is_empty() && (groups.len() < 2 || (pairs.is_empty() && !statically_apart)))
    {
        counts.one_base += 1;
        return false;
    }
    if checks.is_empty() && pairs.is_empty() {
        // nothing to check at run time: the groups that may overlap are apart by
        // their `noalias` bases, which the accesses' scopes say in place
        scope_accesses(g, theta, lp.iv as u32, lp.step as u64, &groups, group);
        counts.noalias_scoped += 1;
        return true;
    }
    let r = g.node(theta).region;
    let Some(check) = build_check(g, r, &inits, &lp, &groups, &pairs, &checks) else {
        counts.not_counted += 1;
        return false;
    };
    let p = predicate(g, r, check);
    // γ: the original θ in arm 0, the scoped copy in arm 1
    let users: Vec<Vec<User>> = g.outputs(theta).map(|o| g.users(o).to_vec()).collect();
    let gamma = g.add_gamma(r, p, &inits, 2);
    g.set_loc(gamma, g.node(theta).loc);
    let arms = g.kind(gamma).subregions().to_vec();
    let slow_args: Vec<Origin> = g.arg_origins(arms[0]).collect();
    let fast_args: Vec<Origin> = g.arg_origins(arms[1]).collect();
    let copy = g.copy_node(theta, arms[1], &fast_args);
    g.move_node(theta, arms[0], &slow_args);
    for (i, users) in users.into_iter().enumerate() {
        let out = g.add_gamma_exit(
            gamma,
            &[Origin::Out(theta, i as u32), Origin::Out(copy, i as u32)],
        );
        for u in users {
            g.set_origin(u, out);
        }
    }
    // the copy's covered bounds checks pass: their γs give way to what their passing
    // arm passes through (the copy has the same nodes in the same order; the others
    // stay, and a check the condition did not cover is never removed)
    let copied = range_checks(g, copy, lp.iv as u32, lp.step as u64);
    if copied.len() == covered.len() {
        for (c, _) in copied.iter().zip(&covered).filter(|(_, keep)| **keep) {
            pass_check(g, c);
        }
    }
    counts.range_checks += checks.len() as u64;
    if pairs.is_empty() && !statically_apart {
        counts.loops += 1;
        return true;
    }
    scope_accesses(g, copy, lp.iv as u32, lp.step as u64, &groups, group);
    counts.loops += 1;
    counts.checks += pairs.len() as u64;
    true
}

/// Gives the accesses of θ `theta` (the original or its copy, which has the same)
/// the scope of their group: group `group`, class `k + 1` for `groups[k]`.
fn scope_accesses(g: &mut Rvsdg, theta: Node, iv: u32, step: u64, groups: &[Group], group: u32) {
    let found = accesses(g, theta, iv, step, &[])
        .expect("the loop of a versioning has accesses versioning takes");
    for a in found.into_iter().filter(|a| !a.symbolic) {
        let k = groups
            .iter()
            .position(|x| x.base == a.base && x.terms == a.terms)
            .expect("every access is in a group");
        let scope = AliasScope {
            group,
            class: k as u32 + 1,
        };
        if let NodeKind::Simple(Op::Inst(
            InstructionData::Load { flags, .. } | InstructionData::Store { flags, .. },
        )) = g.kind_mut(a.node)
        {
            flags.scope = Some(scope);
        }
    }
}

/// The loads and stores of θ `theta`'s body as `base + scale·iv + disp`, if every
/// memory operation of the body is one versioning takes.
fn accesses(g: &Rvsdg, theta: Node, iv: u32, step: u64, skipped: &[Region]) -> Option<Vec<Access>> {
    let body = g.theta_body(theta);
    let results = g.results(body);
    let counters: FxHashMap<u32, u64> = [(iv, step)].into_iter().collect();
    let invariant_ptr = |o: Origin| {
        if g.ty(o) != Ty::Val(Type::Ptr) {
            return None;
        }
        match o {
            Origin::Arg(r, k) if r == body && results[k as usize + 1] == o => {
                Some(Base::Var(k as usize))
            }
            Origin::Out(n, _) if g.node(n).region == body => match g.op(n)? {
                op @ Op::Inst(
                    InstructionData::StackAddr { .. } | InstructionData::SymbolAddr { .. },
                ) if g.inputs(n).is_empty() => Some(Base::Constant(op.clone())),
                _ => None,
            },
            _ => None,
        }
    };
    let mut out = Vec::new();
    for q in g.regions_below(body) {
        if skipped.contains(&q) {
            continue;
        }
        for &n in g.nodes(q) {
            let Some(op) = g.op(n) else { continue };
            if !op.states().mem {
                continue;
            }
            let Op::Inst(d) = op else { return None };
            let (store, offset, addr, size_of) = match d {
                InstructionData::Load {
                    opcode: Opcode::Load,
                    flags,
                    offset,
                    ..
                } if !flags.volatile => (false, *offset, g.input(n, 0), Origin::Out(n, 0)),
                InstructionData::Store {
                    opcode: Opcode::Store,
                    flags,
                    offset,
                    ..
                } if !flags.volatile => (true, *offset, g.input(n, 1), g.input(n, 0)),
                _ if matches!(d.opcode(), Opcode::Trap | Opcode::Unreachable) => continue,
                _ => return None,
            };
            if q != body {
                return None;
            }
            let size = g.ty(size_of).value()?.bytes() as i64;
            let (base, scale, terms, disp, symbolic) = match invariant_ptr(addr) {
                Some(k) => (k, 0, Vec::new(), 0, false),
                None => {
                    let p = g.producer(addr)?;
                    if g.node(p).region != body
                        || !matches!(
                            g.op(p),
                            Some(Op::Inst(InstructionData::Binary {
                                opcode: Opcode::Ptradd,
                                ..
                            }))
                        )
                    {
                        return None;
                    }
                    let k = invariant_ptr(g.input(p, 0))?;
                    let f = affine(g, body, &counters, g.input(p, 1))?;
                    let (scale, symbolic) = match f.scale.as_constant() {
                        Some(scale) => (scale, false),
                        None if !store => (0, true),
                        None => return None,
                    };
                    (
                        k,
                        scale,
                        loop_terms(&f.offset.terms),
                        f.offset.constant as i64,
                        symbolic,
                    )
                }
            };
            let disp = disp.checked_add(i64::from(offset))?;
            if scale > MAX_SCALE || disp.abs() > MAX_DISPLACEMENT {
                return None;
            }
            out.push(Access {
                node: n,
                base,
                scale,
                terms,
                disp,
                size,
                store,
                symbolic,
            });
        }
    }
    Some(out)
}

/// The check, an `i1` of region `r`: the counter stays below 2^40, and the byte
/// ranges of the pairs of groups do not overlap. What constants decide is left out
/// (no `rvsdg-fold` runs after this pass); `None` when the check can never pass.
fn build_check(
    g: &mut Rvsdg,
    r: Region,
    inits: &[Origin],
    lp: &super::unroll::Counted,
    groups: &[Group],
    pairs: &[(usize, usize)],
    checks: &[RangeCheck],
) -> Option<Origin> {
    let mut consts = Constants {
        region: r,
        made: FxHashMap::default(),
    };
    let iv0 = inits[lp.iv];
    let b = match lp.bound {
        Bound::Var(p) => inits[p],
        Bound::Const(c) => consts.get(g, c as u64),
    };
    let mut all: Option<Origin> = None;
    let mut and = |g: &mut Rvsdg, c: Origin| {
        all = Some(match all {
            None => c,
            Some(a) => binary(g, r, Opcode::Band, a, c),
        })
    };
    for x in [iv0, b] {
        match const_of(g, x) {
            Some(c) if c < IV_LIMIT => {}
            Some(_) => return None,
            None => {
                let limit = consts.get(g, IV_LIMIT as u64);
                let below = icmp(g, r, IntCC::Ult, x, limit);
                and(g, below);
            }
        }
    }
    // the last iv: b - lead - 1 when iv0 + lead <u b, else iv0 (the one iteration)
    let lead1 = consts.get(g, lp.lead as u64 + 1);
    let b1 = binary(g, r, Opcode::Isub, b, lead1);
    let runs = match lp.lead {
        0 => icmp(g, r, IntCC::Ult, iv0, b),
        lead => {
            let lead = consts.get(g, lead as u64);
            let first = binary(g, r, Opcode::Iadd, iv0, lead);
            icmp(g, r, IntCC::Ult, first, b)
        }
    };
    let hi_iv = select(g, r, runs, b1, iv0);
    // each group's interval, for the groups some pair checks
    let checked: Vec<bool> = (0..groups.len())
        .map(|k| pairs.iter().any(|&(i, j)| i == k || j == k))
        .collect();
    let mut bounds = Vec::with_capacity(groups.len());
    for (x, &checked) in groups.iter().zip(&checked) {
        if !checked {
            bounds.push(None);
            continue;
        }
        let mut base = match &x.base {
            Base::Var(k) => inits[*k],
            Base::Constant(op) => {
                Origin::Out(g.add_simple(r, op.clone(), &[], &[Ty::Val(Type::Ptr)]), 0)
            }
        };
        if let Some(t) = invariant_sum(g, &mut consts, inits, &x.terms) {
            base = binary(g, r, Opcode::Ptradd, base, t);
        }
        let lo_off = scaled(g, &mut consts, iv0, x.scale_min, x.disp_min);
        let hi_off = scaled(g, &mut consts, hi_iv, x.scale_max, x.end_max);
        let lo = match lo_off {
            Some(o) => binary(g, r, Opcode::Ptradd, base, o),
            None => base,
        };
        let hi = match hi_off {
            Some(o) => binary(g, r, Opcode::Ptradd, base, o),
            None => base,
        };
        let ordered = icmp(g, r, IntCC::Ule, lo, hi);
        and(g, ordered);
        bounds.push(Some((lo, hi)));
    }
    // a bounds check passes in every iteration when it passes in the last, when its
    // index `scale·iv + terms + disp` grows with `iv` without wrapping: so it is for a
    // small displacement of 0 or more (`iv < 2^40`, small scale); otherwise (a
    // negative displacement, invariant terms) the first index must not be above the
    // last (the indices span less than 2^53, so they wrap only if the last is below
    // the first)
    //
    // an invariant scale (`n` of `b[k·n + j]`) must be at most `MAX_SCALE` at run
    // time, which the check requires, so that `s·iv` stays below 2^52 as for a
    // constant one; its indices are then told apart from wrapping by the first index
    // too
    for c in checks {
        let terms = invariant_sum(g, &mut consts, inits, &c.terms);
        let runtime_scale = if c.scale_terms.is_empty() {
            None
        } else {
            let s = match (
                invariant_sum(g, &mut consts, inits, &c.scale_terms),
                c.scale,
            ) {
                (Some(t), 0) => t,
                (Some(t), k) => {
                    let k = consts.get(g, k);
                    binary(g, r, Opcode::Iadd, t, k)
                }
                (None, k) => consts.get(g, k),
            };
            let max = consts.get(g, MAX_SCALE);
            let small = icmp(g, r, IntCC::Ule, s, max);
            and(g, small);
            Some(s)
        };
        let index_at = |g: &mut Rvsdg, consts: &mut Constants, iv: Origin| {
            let i = match runtime_scale {
                None => scaled(g, consts, iv, c.scale, c.disp),
                Some(s) => {
                    let product = binary(g, r, Opcode::Imul, iv, s);
                    scaled(g, consts, product, 1, c.disp)
                }
            };
            match (i, terms) {
                (Some(i), Some(t)) => binary(g, r, Opcode::Iadd, i, t),
                (i, t) => i.or(t).unwrap_or_else(|| consts.get(g, 0)),
            }
        };
        let index = index_at(g, &mut consts, hi_iv);
        if c.disp < 0 || terms.is_some() || runtime_scale.is_some() {
            let first = index_at(g, &mut consts, iv0);
            let grows = icmp(g, r, IntCC::Ule, first, index);
            and(g, grows);
        }
        let len = match &c.len {
            Base::Var(k) => inits[*k],
            Base::Constant(op) => {
                Origin::Out(g.add_simple(r, op.clone(), &[], &[Ty::Val(Type::I64)]), 0)
            }
        };
        let inside = icmp(g, r, IntCC::Ult, index, len);
        and(g, inside);
    }
    for &(i, j) in pairs {
        let (Some(bi), Some(bj)) = (bounds[i], bounds[j]) else {
            unreachable!("the groups of a pair have intervals")
        };
        let below = icmp(g, r, IntCC::Ule, bi.1, bj.0);
        let above = icmp(g, r, IntCC::Ule, bj.1, bi.0);
        let apart = binary(g, r, Opcode::Bor, below, above);
        and(g, apart);
    }
    all
}

/// `x·scale + disp` (`i64`), without the multiplication by 1 or the addition of 0,
/// folded when `x` is a constant; `None` for 0.
fn scaled(
    g: &mut Rvsdg,
    consts: &mut Constants,
    x: Origin,
    scale: u64,
    disp: i64,
) -> Option<Origin> {
    if let Some(c) = const_of(g, x) {
        let v = (c as u64).wrapping_mul(scale).wrapping_add(disp as u64);
        return (v != 0).then(|| consts.get(g, v));
    }
    let product = match scale {
        0 => None,
        1 => Some(x),
        s => {
            let c = consts.get(g, s);
            Some(binary(g, consts.region, Opcode::Imul, x, c))
        }
    };
    let d = (disp != 0).then(|| consts.get(g, disp as u64));
    match (product, d) {
        (Some(p), Some(d)) => Some(binary(g, consts.region, Opcode::Iadd, p, d)),
        (p, d) => p.or(d),
    }
}

/// Invariant terms (loop variables passed through) by the loop variable's index, so
/// that a copy of the θ has the same.
fn loop_terms(terms: &[(Origin, u64)]) -> Vec<(u32, u64)> {
    terms
        .iter()
        .map(|&(v, c)| match v {
            Origin::Arg(_, k) => (k, c),
            _ => unreachable!("an invariant term is a loop variable"),
        })
        .collect()
}

/// `Σ c·v` of invariant terms (loop variables of the θ, `v` their initial values
/// `inits`), folded where constant; `None` for no terms.
fn invariant_sum(
    g: &mut Rvsdg,
    consts: &mut Constants,
    inits: &[Origin],
    terms: &[(u32, u64)],
) -> Option<Origin> {
    let mut sum: Option<Origin> = None;
    for &(k, c) in terms {
        let Some(t) = scaled(g, consts, inits[k as usize], c, 0) else {
            continue;
        };
        sum = Some(match sum {
            None => t,
            Some(s) => binary(g, consts.region, Opcode::Iadd, s, t),
        });
    }
    sum
}

/// The `i64` constants of the check, one node each.
struct Constants {
    region: Region,
    made: FxHashMap<u64, Origin>,
}

impl Constants {
    fn get(&mut self, g: &mut Rvsdg, v: u64) -> Origin {
        *self
            .made
            .entry(v)
            .or_insert_with(|| iconst(g, self.region, Type::I64, u128::from(v)))
    }
}

#[cfg(test)]
mod tests {
    use vliw_ir::{DataValue, Module};

    use super::*;
    use crate::opt::{UnrollOptions, unroll_loops};
    use crate::{Evaluator, parse_graph, verify};

    /// `@f(d, n)`: a 1 KiB slot filled with `7i + 1`, then `y[i] = 3 x[i] + y[i]` for
    /// `i` from 0 while `i + 1 <u n` (`i64`s; `x` at byte 256 of the slot, `y = x +
    /// d`, so the two overlap for small `|d|`), then a hash of the whole slot.
    const SAXPY: &str = "
lambda @f(i64, i64) -> i64 {
  ss0 = stack_slot 1024, align 8
  (a0: i64, a1: i64, a2: mem, a3: io):
    n0 = stack_addr ss0 : ptr
    n1 = iconst 256 : i64
    n2 = ptradd n0, n1 : ptr
    n3 = ptradd n2, a0 : ptr
    n4 = iconst 0 : i64
    n5 = theta [n4, n0, a2] : i64, ptr, mem {
      (a0: i64, a1: ptr, a2: mem):
        n6 = iconst 3 : i64
        n7 = ishl a0, n6 : i64
        n8 = ptradd a1, n7 : ptr
        n9 = iconst 7 : i64
        n10 = imul a0, n9 : i64
        n11 = iconst 1 : i64
        n12 = iadd n10, n11 : i64
        n13 = store n12, n8, a2 : mem
        n14 = iadd a0, n11 : i64
        n15 = iconst 128 : i64
        n16 = icmp ult n14, n15 : i1
        n17 = match2 [1 -> 1, _ -> 0] n16 : ctl2
        -> (n17, n14, a1, n13)
    }
    n20 = theta [n4, n2, n3, a1, n5.2] : i64, ptr, ptr, i64, mem {
      (a0: i64, a1: ptr, a2: ptr, a3: i64, a4: mem):
        n21 = iconst 3 : i64
        n22 = ishl a0, n21 : i64
        n23 = ptradd a1, n22 : ptr
        n24 = ptradd a2, n22 : ptr
        n25 = load n23, a4 : i64, mem
        n26 = load n24, n25.1 : i64, mem
        n27 = imul n25.0, n21 : i64
        n28 = iadd n27, n26.0 : i64
        n29 = store n28, n24, n26.1 : mem
        n30 = iconst 1 : i64
        n31 = iadd a0, n30 : i64
        n32 = icmp ult n31, a3 : i1
        n33 = match2 [1 -> 1, _ -> 0] n32 : ctl2
        -> (n33, n31, a1, a2, a3, n29)
    }
    n40 = theta [n4, n4, n0, n20.4] : i64, i64, ptr, mem {
      (a0: i64, a1: i64, a2: ptr, a3: mem):
        n41 = iconst 3 : i64
        n42 = ishl a0, n41 : i64
        n43 = ptradd a2, n42 : ptr
        n44 = load n43, a3 : i64, mem
        n45 = iconst 31 : i64
        n46 = imul a1, n45 : i64
        n47 = iadd n46, n44.0 : i64
        n48 = iconst 1 : i64
        n49 = iadd a0, n48 : i64
        n50 = iconst 128 : i64
        n51 = icmp ult n49, n50 : i1
        n52 = match2 [1 -> 1, _ -> 0] n51 : ctl2
        -> (n52, n49, n47, a2, n44.1)
    }
    -> (n40.1, n40.3, a3)
}
";

    fn parse(text: &str) -> Rvsdg {
        let g = parse_graph(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        verify(&g).unwrap_or_else(|e| panic!("{}\n{g}", e[0]));
        g
    }

    fn versioned(g: &mut Rvsdg) -> Report {
        let mut report = Report::default();
        version_loops(g, &mut report);
        verify(g).unwrap_or_else(|e| panic!("{}\n{g}", e[0]));
        report
    }

    fn run(g: &Rvsdg, d: i64, n: u64) -> Result<Vec<DataValue>, String> {
        let m = Module::default();
        let mut ev = Evaluator::new(g, &m);
        ev.set_step_limit(1_000_000);
        let args = [DataValue::I64(d), DataValue::I64(n as i64)];
        ev.call("f", &args).map_err(|t| format!("{:?}", t.kind))
    }

    /// The scopes of the loads and stores below the λ, in no particular order.
    fn scopes(g: &Rvsdg) -> Vec<Option<AliasScope>> {
        let l = g.lambdas()[0];
        g.regions_below(g.lambda_body(l))
            .into_iter()
            .flat_map(|r| g.nodes(r).to_vec())
            .filter_map(|n| match g.op(n) {
                Some(Op::Inst(d)) => d.mem_flags().map(|f| f.scope),
                _ => None,
            })
            .collect()
    }

    /// Distances around every kind of overlap (ahead, behind, the same, unaligned,
    /// apart) and trip counts from the one iteration a do-while always runs.
    fn cases() -> Vec<(i64, u64)> {
        let mut v = Vec::new();
        for d in [
            -200, -64, -24, -16, -9, -8, -7, -1, 0, 1, 7, 8, 9, 16, 24, 64, 200,
        ] {
            for n in [0, 1, 2, 3, 4, 5, 8, 9, 17] {
                v.push((d, n));
            }
        }
        v
    }

    #[test]
    fn a_loop_through_two_pointers_runs_scoped_only_where_they_are_apart() {
        let original = parse(SAXPY);
        let mut g = original.clone();
        let report = versioned(&mut g);
        assert_eq!(report.get("version.loops"), 1, "{g}");
        assert_eq!(report.get("version.checks"), 1);
        // the fill and the hash go through one pointer each
        assert_eq!(report.get("version.one-base"), 2);
        // the copy's two loads and store: x in one class, y in another
        let mut scoped: Vec<AliasScope> = scopes(&g).into_iter().flatten().collect();
        scoped.sort();
        let (x, y) = (
            AliasScope { group: 1, class: 1 },
            AliasScope { group: 1, class: 2 },
        );
        assert_eq!(scoped, [x, y, y], "{g}");
        for (d, n) in cases() {
            assert_eq!(run(&g, d, n), run(&original, d, n), "@f({d}, {n})");
        }
        // and once unrolled (the pass runs before unrolling)
        let mut report = Report::default();
        unroll_loops(&mut g, &UnrollOptions::default(), &mut report);
        verify(&g).unwrap_or_else(|e| panic!("{}\n{g}", e[0]));
        assert!(report.get("unroll.loops") >= 2);
        for (d, n) in cases() {
            assert_eq!(
                run(&g, d, n),
                run(&original, d, n),
                "unrolled: @f({d}, {n})"
            );
        }
    }

    /// The check itself, on the versioned graph: which path runs is seen through a
    /// store the fast copy alone makes (the copy's store is given a different value).
    #[test]
    fn the_check_passes_exactly_when_the_ranges_are_apart() {
        check_is_exact(SAXPY, 0);
        // the test one ahead of the next value (`i + 2 <u n`, as folding leaves
        // `while i + 1 < n`): one iteration fewer
        let ahead = SAXPY.replace(
            "        n32 = icmp ult n31, a3 : i1\n",
            "        n36 = iconst 2 : i64\n        n37 = iadd a0, n36 : i64\n        n32 = icmp ult n37, a3 : i1\n",
        );
        assert_ne!(ahead, SAXPY);
        check_is_exact(&ahead, 1);
    }

    fn check_is_exact(text: &str, lead: u64) {
        let mut g = parse(text);
        versioned(&mut g);
        // the copy multiplies by 5 instead of 3: its runs show in the hash
        let l = g.lambdas()[0];
        let scoped_store = g
            .regions_below(g.lambda_body(l))
            .into_iter()
            .flat_map(|r| g.nodes(r).to_vec())
            .find(|&n| {
                matches!(g.op(n), Some(Op::Inst(InstructionData::Store { flags, .. }))
                    if flags.scope.is_some())
            })
            .expect("the scoped store");
        let body = g.node(scoped_store).region;
        let five = iconst(&mut g, body, Type::I64, 5);
        let value = g.input(scoped_store, 0);
        let mul = g.producer(g.input(g.producer(value).unwrap(), 0)).unwrap();
        g.set_input(mul, 1, five);
        verify(&g).unwrap_or_else(|e| panic!("{}\n{g}", e[0]));
        let original = parse(text);
        for (d, n) in cases() {
            // bytes [256, 256 + 8t) and [256 + d, 256 + d + 8t), t iterations
            let t = n.saturating_sub(lead).max(1) as i64;
            let apart = d >= 8 * t || -d >= 8 * t;
            let same = run(&g, d, n) == run(&original, d, n);
            assert_eq!(!same, apart, "@f({d}, {n}): fast path {}", !same);
        }
    }

    #[test]
    fn loops_with_calls_or_accesses_in_gammas_are_left_alone() {
        // the main loop's store moved into a γ arm
        let text = SAXPY.replace(
            "        n29 = store n28, n24, n26.1 : mem\n",
            "        n34 = match2 [0 -> 0, _ -> 1] n28 : ctl2
        n29 = gamma n34 [n28, n24, n26.1] : mem {
          (a0: i64, a1: ptr, a2: mem):
            -> (a2)
          (a0: i64, a1: ptr, a2: mem):
            n35 = store a0, a1, a2 : mem
            -> (n35)
        }
",
        );
        let text = text.replace(
            "-> (n33, n31, a1, a2, a3, n29)",
            "-> (n33, n31, a1, a2, a3, n29.0)",
        );
        let mut g = parse(&text);
        let report = versioned(&mut g);
        assert_eq!(report.get("version.loops"), 0);
        assert_eq!(report.get("version.declined-memory"), 1);
        assert!(scopes(&g).iter().all(Option::is_none));
    }
}
