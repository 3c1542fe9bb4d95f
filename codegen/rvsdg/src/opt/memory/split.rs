//! Memory state splitting (`rvsdg-mem-split`): one memory state per disjoint location
//! instead of one for the whole λ, so that accesses to unrelated objects no longer
//! order each other (jlm's memory state encoder, `MemoryStateEncoder`, with its
//! region-aware mod/ref summaries; Reissmann et al. §5 on state edges).
//!
//! **Locations.** Each private stack slot (it does not escape, `escape.rs`, and the
//! stack slot rules hold, `access.rs`): only accesses whose address is derived from
//! its `stack_addr`s reach it. Each `noalias` pointer parameter whose pointers do not
//! escape either (only used as addresses, or to derive addresses): while the λ runs,
//! the memory it accesses through the parameter is accessed through no other pointer
//! (the attribute's contract; rustc gives it to `&mut T` and to `&T` without interior
//! mutability), and no callee receives a pointer derived from it. One location,
//! *other*, is everything else: calls, atomics, fences, accesses through any other
//! pointer — and every escaping slot or parameter. Only locations that some access
//! uses are made, at most [`MAX_LOCATIONS`].
//!
//! **Accesses.** Each access touches the location of its address's base; a copy
//! between two locations touches both (their states are joined before it and split
//! after). What may trap stays ordered with everything that may trap or do I/O: a
//! volatile access, an access to a slot that may be misaligned (an unknown offset with
//! an alignment promise, or a known one the slot's alignment does not give) and a
//! `memcpy` within one location (it traps on overlap) also touch *other*. Accesses
//! through a `noalias` parameter are taken not to fault: Rust's references are
//! dereferenceable and aligned for what the program accesses through them (a fault
//! is undefined behaviour). `trap` and `unreachable` (sinks) at the λ's top level read
//! every location, joined (the λ's memory result shares it); elsewhere, below.
//!
//! **Regions.** A γ or θ takes as variables the states of the locations its contents
//! touch (its mod/ref summary); the others go around it (`mem-split.regions-bypassed`
//! counts the γs and θs that at least one location bypasses). A γ or θ with a sink at
//! the top level of one of its regions (a Rust bounds check's arm that calls the panic
//! function, then `unreachable`), or an unexpected shape, is *opaque*: it gets the join
//! of the states of the locations it touches and its contents keep one state, split
//! again after it. It also takes the locations accessed anywhere in the λ at an offset
//! that is not known (a stack array's or a slice's element by index): such an access
//! is within its object only where the program's checks say so, and out of it may
//! fault, so what comes after a check stays after it. A sink so reached may end the
//! program before accesses to private
//! slots and `noalias` memory that came before it on other states: nothing can tell
//! (a slot dies with the activation; `noalias` memory is not accessed by anyone else
//! while the λ runs, the panic function included), while what can be seen — calls,
//! volatile and atomic accesses, whatever may fault — is on *other* and the I/O
//! state, which the sink reads. A call, though, may unwind (`panic=unwind`), and
//! the caller's cleanup code then reads the `noalias` memory as the λ left it: a
//! call that may unwind (`crate::unwind::MayUnwind`: not a direct call of a
//! `nounwind` function or of a λ without such calls) touches the locations of the
//! `noalias` parameters too.
//!
//! **Form.** The λ keeps one memory argument and result: its body starts with a
//! `mem_split` and ends with a `mem_join` (or the join that a sink at its top level
//! reads, which the result shares). A λ is encoded once: one that already holds a
//! `mem_split` or `mem_join` (a second run, an inlined encoded callee), or whose
//! memory is not one chain per region, is left as it is.
//!
//! Counters: `mem-split.lambdas` (λs split), `mem-split.locations` (locations besides
//! *other*), `mem-split.noalias-params` (those of them that are parameters),
//! `mem-split.regions-bypassed`.

use rustc_hash::FxHashMap;
use vliw_ir::{AliasScope, InstructionData, Opcode};

use super::access::{Access, Analysis};
use super::address::Base;
use super::escape::{escaping_noalias_params, noalias_params};
use crate::graph::{Node, NodeKind, Origin, Region};
use crate::ops::{Op, Rvsdg, Ty};
use crate::report::Report;
use crate::unwind::MayUnwind;

/// At most this many locations per λ, *other* included (a bit each); the accesses to
/// further slots or parameters stay with *other*.
pub const MAX_LOCATIONS: usize = 32;

/// A set of locations: bit `k` is location `k`, bit 0 *other*.
type Locs = u64;

const OTHER: Locs = 1;

/// A location: *other*, a private stack slot, a `noalias` parameter.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
enum Loc {
    Other,
    Base(Base),
}

#[derive(Default)]
struct Counts {
    lambdas: u64,
    locations: u64,
    params: u64,
    escaping: u64,
    scoped: u64,
    bypassed: u64,
}

/// What memory state splitting does beyond the split itself.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SplitOptions {
    /// Give loads and stores the alias scope of their location, for the machine
    /// schedulers (`mem-scopes=on|off`, on by default).
    pub scopes: bool,
    /// A location for each `noalias` parameter that escapes too, shadowed by *other*
    /// (`rvsdg-mem-split-escaping=on|off`, off by default: on `benches/programs` it
    /// gains on `classify` and `state_machine` what it loses on `sort` and `tree`).
    pub escaping: bool,
}

impl Default for SplitOptions {
    fn default() -> Self {
        SplitOptions {
            scopes: true,
            escaping: false,
        }
    }
}

/// Splits the memory state of every λ by disjoint locations.
pub fn split_memory_states(g: &mut Rvsdg, options: SplitOptions, report: &mut Report) {
    let mut counts = Counts::default();
    // once: splitting changes the λs' memory states, never their calls
    let may_unwind = MayUnwind::of(g);
    for l in g.lambdas() {
        split_lambda(g, l, &may_unwind, options, &mut counts);
    }
    report.count("mem-split.lambdas", counts.lambdas);
    report.count("mem-split.locations", counts.locations);
    report.count("mem-split.noalias-params", counts.params);
    report.count("mem-split.escaping-params", counts.escaping);
    report.count("mem-split.scoped-accesses", counts.scoped);
    report.count("mem-split.regions-bypassed", counts.bypassed);
}

/// What the encoder knows of one λ.
struct Encoder<'a> {
    a: &'a Analysis,
    /// The λ being split.
    lambda: Node,
    may_unwind: &'a MayUnwind,
    /// The `noalias` parameters, by their base: those that do not escape, then those
    /// that do.
    params: Vec<Base>,
    /// The locations of the `noalias` parameters that escape: whatever touches *other*
    /// touches them too (`escape::escaping_noalias_params`).
    shadowed: Locs,
    /// The locations made so far, by index (0: *other*).
    locs: Vec<Loc>,
    index: FxHashMap<Loc, usize>,
    /// The locations each node touches (simple nodes with a memory input, γs, θs), and
    /// whether a structural node is opaque.
    touches: FxHashMap<Node, (Locs, bool)>,
    /// The locations accessed somewhere at an offset that is not known: such an
    /// access is within its object only where the program's checks say so (a slice
    /// index, a stack array's), and out of it may fault, so it must not move above a
    /// sink; opaque γs and θs touch these locations too. (Not an access to a slot by
    /// indices whose ranges keep it inside: `Analysis::indexed_in_bounds`.)
    guarded: Locs,
    bypassed: u64,
}

fn split_lambda(
    g: &mut Rvsdg,
    l: Node,
    may_unwind: &MayUnwind,
    options: SplitOptions,
    counts: &mut Counts,
) {
    let body = g.lambda_body(l);
    if !one_chain_per_region(g, body) {
        return;
    }
    let a = Analysis::of_lambda(g, l);
    if !a.slots_trusted() {
        // an access out of its slot's bounds at a known offset: provenance, on which
        // every location rests, does not hold (the interpreter's stack is one region)
        return;
    }
    let mut params = noalias_params(g, l, &a.addrs);
    let escaping = if options.escaping {
        escaping_noalias_params(g, l, &a.addrs)
    } else {
        Vec::new()
    };
    params.extend(&escaping);
    let mut e = Encoder {
        a: &a,
        lambda: l,
        may_unwind,
        params,
        shadowed: 0,
        locs: vec![Loc::Other],
        index: FxHashMap::from_iter([(Loc::Other, 0)]),
        touches: FxHashMap::default(),
        guarded: 0,
        bypassed: 0,
    };
    // every call may unwind, and its caller's cleanup code then reads `noalias`
    // memory: a call touches the parameters' locations (made first, so that a call
    // before the first access sees them)
    for b in e.params.clone() {
        e.location(Loc::Base(b));
    }
    for b in escaping {
        if let Some(k) = e.location(Loc::Base(b)) {
            e.shadowed |= 1 << k;
        }
    }
    e.guarded = e.guarded_locations(g, body);
    // the locations some access touches (*other* too, unless nothing does)
    let (all, _) = e.summarize(g, body);
    if all.count_ones() < 2 {
        return;
    }
    let Some(mem) = g.arg_origins(body).find(|&o| g.ty(o) == Ty::Mem) else {
        return;
    };
    let n = all.count_ones() as usize;
    let split = g.add_simple(body, Op::MemSplit(n as u32), &[mem], &vec![Ty::Mem; n]);
    let mut cur: FxHashMap<usize, Origin> = bits(all).zip(g.outputs(split)).collect();
    // `region` gives every access its memory input anew: the λ's state, which the
    // first one reads now, ends with the split alone
    let ends = e.region(g, body, all, &mut cur, true);
    let res = g
        .results(body)
        .iter()
        .position(|&o| g.ty(o) == Ty::Mem)
        .expect("a λ body gives back its memory state");
    let end = match ends {
        End::Sink(j) => j,
        End::States => join(g, body, all, &cur),
    };
    g.set_result(body, res, end);
    if options.scopes {
        counts.scoped += e.scope_accesses(g, body);
    }
    counts.lambdas += 1;
    counts.locations += u64::from((all & !OTHER).count_ones());
    counts.bypassed += e.bypassed;
    counts.escaping += u64::from((all & e.shadowed).count_ones());
    counts.params += bits(all)
        .filter(|&k| matches!(e.locs[k], Loc::Base(Base::Value(_))))
        .count() as u64;
}

/// How a region's chain ended.
enum End {
    /// At a sink (at the λ's top level), which reads this joined state.
    Sink(Origin),
    /// With the states of the locations (`cur`).
    States,
}

impl Encoder<'_> {
    /// Whether node `n` is a call that may unwind (`crate::unwind::MayUnwind`).
    fn a_call_may_unwind(&self, g: &Rvsdg, n: Node) -> bool {
        matches!(g.op(n), Some(Op::Inst(d)) if d.opcode().is_call())
            && self.may_unwind.call(g, self.lambda, n)
    }

    /// The location of the bytes `acc` accesses, made if new (`None`: *other*).
    fn loc_of(&mut self, acc: &Access) -> Option<usize> {
        let loc = match acc.addr.base {
            Base::Slot(_) if self.a.private_slot(acc).is_some() => Loc::Base(acc.addr.base),
            b @ Base::Value(_) if self.params.contains(&b) => Loc::Base(b),
            _ => return None,
        };
        self.location(loc)
    }

    /// The index of location `loc`, made if new (`None`: too many).
    fn location(&mut self, loc: Loc) -> Option<usize> {
        if let Some(&k) = self.index.get(&loc) {
            return Some(k);
        }
        if self.locs.len() >= MAX_LOCATIONS {
            return None;
        }
        self.locs.push(loc);
        self.index.insert(loc, self.locs.len() - 1);
        Some(self.locs.len() - 1)
    }

    /// The locations simple node `n` (which has a memory input) touches.
    fn simple(&mut self, g: &Rvsdg, n: Node) -> Locs {
        let effects = self.a.effects(g, n);
        let mut m = if effects.anything || effects.escaping {
            OTHER
        } else {
            0
        };
        let align = match g.op(n) {
            Some(Op::Inst(
                InstructionData::Load { flags, .. } | InstructionData::Store { flags, .. },
            )) => flags.align,
            _ => 1,
        };
        let memcpy = matches!(g.op(n), Some(Op::Inst(d)) if d.opcode() == Opcode::Memcpy);
        // a call may unwind to a caller whose cleanup reads the `noalias` parameters'
        // memory: it touches their locations (not the private slots: they die with
        // the activation)
        if self.a_call_may_unwind(g, n) {
            for (k, loc) in self.locs.iter().enumerate() {
                if matches!(loc, Loc::Base(Base::Value(_))) {
                    m |= 1 << k;
                }
            }
        }
        let mut seen = Vec::new();
        for acc in effects.reads.iter().chain(&effects.writes) {
            let Some(k) = self.loc_of(acc) else {
                m |= OTHER;
                continue;
            };
            m |= 1 << k;
            if matches!(acc.addr.base, Base::Slot(_)) && self.a.may_misalign(g, acc, align) {
                m |= OTHER;
            }
            if memcpy && seen.contains(&k) {
                // within one location a `memcpy` may overlap, and trap
                m |= OTHER;
            }
            seen.push(k);
        }
        let m = if m == 0 { OTHER } else { m };
        if m & OTHER != 0 { m | self.shadowed } else { m }
    }

    /// Gives each load and store below `body` (the λ's) that touches one location
    /// besides *other* the alias scope of that location: group `G`, fresh in the λ,
    /// and class `k` for location `k`. Two accesses of different locations never
    /// touch a common byte while the λ runs, in any iteration of any loop, so the
    /// machine schedulers may reorder them (`vliw_ir::AliasScope::apart`); an access
    /// that touches *other* (or several locations) gets none, and is ordered with
    /// everything. An access that loop versioning already scoped keeps its scope.
    /// Returns how many were scoped.
    fn scope_accesses(&self, g: &mut Rvsdg, body: Region) -> u64 {
        let group = crate::opt::version::first_free_group(g, body);
        let mut scoped = 0;
        for r in g.regions_below(body) {
            for n in g.nodes(r).to_vec() {
                let Some(&(t, _)) = self.touches.get(&n) else {
                    continue;
                };
                if t.count_ones() != 1 || t == OTHER {
                    continue;
                }
                if let NodeKind::Simple(Op::Inst(
                    InstructionData::Load { flags, .. } | InstructionData::Store { flags, .. },
                )) = g.kind_mut(n)
                    && flags.scope.is_none()
                {
                    flags.scope = Some(AliasScope {
                        group,
                        class: t.trailing_zeros(),
                    });
                    scoped += 1;
                }
            }
        }
        scoped
    }

    /// The locations of the accesses below `r` at an offset that is not known
    /// ([`Encoder::guarded`]), made if new.
    fn guarded_locations(&mut self, g: &Rvsdg, r: Region) -> Locs {
        let mut m = 0;
        for q in g.regions_below(r) {
            for &n in g.nodes(q) {
                if !matches!(g.kind(n), NodeKind::Simple(_))
                    || !g.inputs(n).iter().any(|&o| g.ty(o) == Ty::Mem)
                {
                    continue;
                }
                let effects = self.a.effects(g, n);
                for acc in effects.reads.iter().chain(&effects.writes) {
                    if acc.addr.offset.is_none()
                        && !self.a.indexed_in_bounds(g, acc)
                        && let Some(k) = self.loc_of(acc)
                    {
                        m |= 1 << k;
                    }
                }
            }
        }
        m
    }

    /// The locations region `r` touches (at any depth), and whether a sink is at its
    /// top level; the summaries of its nodes.
    fn summarize(&mut self, g: &Rvsdg, r: Region) -> (Locs, bool) {
        let mut all = (0, false);
        for &n in g.nodes(r) {
            let (t, opaque) = match g.kind(n) {
                _ if !g.inputs(n).iter().any(|&o| g.ty(o) == Ty::Mem) => continue,
                NodeKind::Simple(_) if is_sink(g, n) => (0, true),
                NodeKind::Simple(_) => (self.simple(g, n), false),
                kind => {
                    // opaque: a subregion with a sink at its top level (whose results
                    // could not each have a state), or an unexpected shape
                    let mut inner = (0, false);
                    for &s in kind.subregions() {
                        let (m, sink) = self.summarize(g, s);
                        inner = (inner.0 | m, inner.1 | sink);
                    }
                    let opaque = inner.1 || mem_shape(g, n).is_none();
                    // what comes after a sink stays after it (`guarded`)
                    (
                        if opaque {
                            inner.0 | self.guarded
                        } else {
                            inner.0
                        },
                        opaque,
                    )
                }
            };
            self.touches.insert(n, (t, opaque));
            all = (all.0 | t, all.1 | is_sink(g, n));
        }
        all
    }

    /// Rewires the chain of region `r`, whose locations in scope are `scope` and whose
    /// current states are `cur` (updated to the states at its end). `top`: the λ's
    /// body, where a sink may be.
    fn region(
        &mut self,
        g: &mut Rvsdg,
        r: Region,
        scope: Locs,
        cur: &mut FxHashMap<usize, Origin>,
        top: bool,
    ) -> End {
        for n in g.topological_order(r) {
            let Some(i) = g.inputs(n).iter().position(|&o| g.ty(o) == Ty::Mem) else {
                continue;
            };
            if g.op(n).is_some_and(Op::is_mem_plumbing) {
                continue; // the λ's first split
            }
            let (t, opaque) = self
                .touches
                .get(&n)
                .copied()
                .unwrap_or((OTHER | self.shadowed, true));
            if is_sink(g, n) {
                // only at the λ's top level: elsewhere its region is opaque
                debug_assert!(top, "a sink in a region that is split");
                let j = join(g, r, scope, cur);
                g.set_input(n, i, j);
                return End::Sink(j);
            }
            let out = g
                .outputs(n)
                .find(|&o| g.ty(o) == Ty::Mem)
                .expect("not a sink: gives its memory state back");
            match g.kind(n) {
                // one state for what it touches, split again after it
                _ if opaque => {
                    let t = narrow(t, scope);
                    if t != scope {
                        self.bypassed += 1;
                    }
                    let j = join(g, r, t, cur);
                    g.set_input(n, i, j);
                    split_into(g, r, t, out, cur);
                }
                NodeKind::Simple(_) => {
                    let t = narrow(t, scope);
                    let j = join(g, r, t, cur);
                    g.set_input(n, i, j);
                    split_into(g, r, t, out, cur);
                }
                NodeKind::Gamma { .. } | NodeKind::Theta { .. } => {
                    let t = narrow(t, scope);
                    if t != scope {
                        self.bypassed += 1;
                    }
                    self.structural(g, n, i, out, t, cur);
                }
                NodeKind::Lambda { .. } => {}
            }
        }
        End::States
    }

    /// γ or θ `n`, whose memory input is input `i` and output `out`, takes the states
    /// of locations `t` as variables (the first through its memory variable).
    fn structural(
        &mut self,
        g: &mut Rvsdg,
        n: Node,
        i: usize,
        out: Origin,
        t: Locs,
        cur: &mut FxHashMap<usize, Origin>,
    ) {
        let locs: Vec<usize> = bits(t).collect();
        let Origin::Out(_, x) = out else {
            unreachable!("a node's output")
        };
        let x = x as usize;
        let first = locs[0];
        g.set_input(n, i, cur[&first]);
        match g.kind(n).clone() {
            NodeKind::Gamma { arms } => {
                // each location's argument in each arm
                let mut args: Vec<FxHashMap<usize, Origin>> = arms
                    .iter()
                    .map(|&arm| FxHashMap::from_iter([(first, Origin::Arg(arm, i as u32 - 1))]))
                    .collect();
                for &k in &locs[1..] {
                    for (arm_args, a) in args.iter_mut().zip(g.add_gamma_entry(n, cur[&k])) {
                        arm_args.insert(k, a);
                    }
                }
                for (&arm, arm_cur) in arms.iter().zip(args.iter_mut()) {
                    self.region(g, arm, t, arm_cur, false);
                    g.set_result(arm, x, arm_cur[&first]);
                }
                cur.insert(first, out);
                for &k in &locs[1..] {
                    let per_arm: Vec<Origin> = args.iter().map(|c| c[&k]).collect();
                    let o = g.add_gamma_exit(n, &per_arm);
                    cur.insert(k, o);
                }
            }
            NodeKind::Theta { body } => {
                let mut body_cur = FxHashMap::from_iter([(first, Origin::Arg(body, i as u32))]);
                let mut results = vec![(first, i + 1)];
                for &k in &locs[1..] {
                    let (a, o) = g.add_theta_var(n, cur[&k]);
                    let Origin::Arg(_, v) = a else {
                        unreachable!("a loop variable's argument")
                    };
                    body_cur.insert(k, a);
                    results.push((k, v as usize + 1));
                    cur.insert(k, o);
                }
                self.region(g, body, t, &mut body_cur, false);
                for (k, res) in results {
                    g.set_result(body, res, body_cur[&k]);
                }
                cur.insert(first, out);
            }
            _ => unreachable!("a γ or θ"),
        }
    }
}

/// Locations `t` of those in `scope`; the first in scope if none (a γ or θ that
/// passes the memory state through without touching it).
fn narrow(t: Locs, scope: Locs) -> Locs {
    match t & scope {
        0 => scope.isolate_lowest_one(),
        m => m,
    }
}

/// The locations of a set, in order.
fn bits(m: Locs) -> impl Iterator<Item = usize> {
    (0..64).filter(move |k| m & (1 << k) != 0)
}

/// One state for the locations `m` of `cur` (their join, when several), in region `r`.
fn join(g: &mut Rvsdg, r: Region, m: Locs, cur: &FxHashMap<usize, Origin>) -> Origin {
    let states: Vec<Origin> = bits(m).map(|k| cur[&k]).collect();
    match states[..] {
        [one] => one,
        _ => {
            let j = g.add_simple(r, Op::MemJoin(states.len() as u32), &states, &[Ty::Mem]);
            Origin::Out(j, 0)
        }
    }
}

/// State `out` as the states of the locations `m` (split, when several) in `cur`.
fn split_into(g: &mut Rvsdg, r: Region, m: Locs, out: Origin, cur: &mut FxHashMap<usize, Origin>) {
    let locs: Vec<usize> = bits(m).collect();
    if let [k] = locs[..] {
        cur.insert(k, out);
        return;
    }
    let s = g.add_simple(
        r,
        Op::MemSplit(locs.len() as u32),
        &[out],
        &vec![Ty::Mem; locs.len()],
    );
    for (k, o) in locs.into_iter().zip(g.outputs(s).collect::<Vec<_>>()) {
        cur.insert(k, o);
    }
}

/// A node that reads the memory state and gives none back (`trap`, `unreachable`, a
/// γ all of whose arms end in one).
fn is_sink(g: &Rvsdg, n: Node) -> bool {
    g.inputs(n).iter().any(|&o| g.ty(o) == Ty::Mem) && !g.outputs(n).any(|o| g.ty(o) == Ty::Mem)
}

/// A γ's or θ's memory variable, when it has one state in and one out (as built):
/// (input, output).
fn mem_shape(g: &Rvsdg, n: Node) -> Option<(usize, usize)> {
    let ins: Vec<usize> = (0..g.inputs(n).len())
        .filter(|&i| g.ty(g.input(n, i)) == Ty::Mem)
        .collect();
    let outs: Vec<usize> = (0..g.num_outputs(n))
        .filter(|&i| g.ty(Origin::Out(n, i as u32)) == Ty::Mem)
        .collect();
    match (g.kind(n), &ins[..], &outs[..]) {
        (NodeKind::Gamma { .. }, &[i], &[o]) => Some((i, o)),
        (NodeKind::Theta { .. }, &[i], &[o]) if i == o => Some((i, o)),
        _ => None,
    }
}

/// Whether the memory state of λ body `body` is one chain per region, as the
/// construction makes it: no `mem_split` or `mem_join` yet, at most one memory input
/// and output per node, one memory argument and result per region (a γ arm that ends
/// in a sink has none).
pub(super) fn one_chain_per_region(g: &Rvsdg, body: Region) -> bool {
    g.regions_below(body).into_iter().all(|r| {
        let mem = |o: &Origin| g.ty(*o) == Ty::Mem;
        g.arg_origins(r).filter(mem).count() <= 1
            && g.results(r).iter().filter(|o| mem(o)).count() <= 1
            && g.nodes(r).iter().all(|&n| {
                !g.op(n).is_some_and(Op::is_mem_plumbing)
                    && g.inputs(n).iter().filter(|o| mem(o)).count() <= 1
                    && g.outputs(n).filter(mem).count() <= 1
            })
    })
}

#[cfg(test)]
mod tests {
    use super::split_memory_states;
    use crate::graph::{NodeKind, Origin, User};
    use crate::ops::{Op, Rvsdg, Ty};
    use crate::report::Report;
    use crate::text::parse_graph;
    use crate::verify;

    fn split(text: &str) -> (Rvsdg, Report) {
        let mut g = parse_graph(text).expect("parses");
        verify(&g).expect("verifies before");
        let mut report = Report::default();
        split_memory_states(&mut g, super::SplitOptions::default(), &mut report);
        if let Err(e) = verify(&g) {
            panic!("{e:?}\n{g}");
        }
        (g, report)
    }

    /// The operation of the node that makes `o`.
    fn op_of(g: &Rvsdg, o: Origin) -> Option<Op> {
        g.producer(o).and_then(|n| g.op(n).cloned())
    }

    /// The call at the top level of region `body`.
    fn the_call(g: &Rvsdg, body: crate::graph::Region) -> crate::graph::Node {
        g.nodes(body)
            .iter()
            .copied()
            .find(|&n| {
                g.op(n)
                    .is_some_and(|op| op.opcode() == Some(vliw_ir::Opcode::Call))
            })
            .expect("the call")
    }

    /// The scopes of the accesses of λ `f`'s body, in node order.
    fn scopes(g: &Rvsdg) -> Vec<Option<vliw_ir::AliasScope>> {
        let body = g.lambda_body(g.lambdas()[0]);
        g.nodes(body)
            .iter()
            .filter_map(|&n| match g.op(n) {
                Some(Op::Inst(d)) => d.mem_flags().map(|f| f.scope),
                _ => None,
            })
            .collect()
    }

    /// Two `noalias` parameters, one of which escapes into a call: with the default
    /// options only the other one is a location, and its accesses are scoped; the
    /// escaping one's accesses (on *other*) are not. With `escaping`, both are
    /// locations with scopes of one group and different classes, and the call (on
    /// *other*) still touches the escaping one's.
    #[test]
    fn accesses_of_a_location_are_scoped_and_escaping_parameters_are_shadowed() {
        let text = "lambda @f(ptr noalias, ptr noalias, i64) {\n\
                 fn0 = @g(ptr)\n\
               (a0: ptr, a1: ptr, a2: i64, a3: mem, a4: io):\n\
                 n0 = store a2, a0, a3 : mem\n\
                 n1 = load a1, n0 : i64, mem\n\
                 n2 = store n1.0, a0, n1.1 : mem\n\
                 n3 = call fn0 a1, n2, a4 : mem, io\n\
                 -> (n3.0, n3.1)\n\
             }\n";
        let (g, report) = split(text);
        assert_eq!(report.get("mem-split.noalias-params"), 1);
        assert_eq!(report.get("mem-split.escaping-params"), 0);
        let s = scopes(&g);
        assert_eq!(s.len(), 3, "{g}");
        assert!(s[0].is_some() && s[0] == s[2], "{g}");
        assert_eq!(s[1], None, "{g}");

        let mut g = parse_graph(text).expect("parses");
        let mut report = Report::default();
        let options = super::SplitOptions {
            scopes: true,
            escaping: true,
        };
        split_memory_states(&mut g, options, &mut report);
        verify(&g).expect("verifies after");
        assert_eq!(report.get("mem-split.escaping-params"), 1);
        let s = scopes(&g);
        let (Some(store), Some(load)) = (s[0], s[1]) else {
            panic!("both scoped: {g}")
        };
        assert_eq!(store.group, load.group);
        assert_ne!(store.class, load.class);
        assert!(vliw_ir::AliasScope::apart(Some(store), Some(load)));
        // the call reads the escaping parameter's state: a join of two states or more
        let body = g.lambda_body(g.lambdas()[0]);
        let call = the_call(&g, body);
        assert!(
            matches!(op_of(&g, g.inputs(call)[1]), Some(Op::MemJoin(_))),
            "{g}"
        );
    }

    /// A call may unwind to a caller whose cleanup reads the `noalias` memory: the
    /// store before the call stays on the call's chain (with the parameter's location
    /// bypassing the call, the first store was dead and removed: `catch_unwind`
    /// around a sort then saw a slice that had lost elements).
    #[test]
    fn a_call_touches_the_noalias_parameters() {
        let (g, report) = split(
            "lambda @f(ptr noalias, i64) {\n\
                 fn0 = @g()\n\
               (a0: ptr, a1: i64, a2: mem, a3: io):\n\
                 n0 = store a1, a0, a2 : mem\n\
                 n1 = call fn0 n0, a3 : mem, io\n\
                 n2 = store a1, a0, n1.0 : mem\n\
                 -> (n2, n1.1)\n\
             }\n",
        );
        assert_eq!(report.get("mem-split.noalias-params"), 1);
        let body = g.lambda_body(g.lambdas()[0]);
        let stores: Vec<_> = g
            .nodes(body)
            .iter()
            .copied()
            .filter(|&n| {
                g.op(n)
                    .is_some_and(|op| op.opcode() == Some(vliw_ir::Opcode::Store))
            })
            .collect();
        let call = the_call(&g, body);
        assert_eq!(stores.len(), 2);
        // the second store's state comes from the call, not straight from the first
        let second_state = g.inputs(stores[1])[2];
        assert_ne!(g.producer(second_state), Some(stores[0]), "{g}");
        // and the call's state comes from the first store (through the join)
        let mut work = vec![g.inputs(call)[0]];
        let mut seen_first = false;
        while let Some(o) = work.pop() {
            match g.producer(o) {
                Some(n) if n == stores[0] => seen_first = true,
                Some(n) => work.extend(g.inputs(n).iter().filter(|&&i| g.ty(i) == Ty::Mem)),
                None => {}
            }
        }
        assert!(seen_first, "{g}");
    }

    #[test]
    fn a_trap_at_the_top_level_reads_every_location_joined() {
        let (g, report) = split(
            "lambda @f(ptr noalias, i64) -> i64 {\n\
                 ss0 = stack_slot 8, align 8\n\
               (a0: ptr, a1: i64, a2: mem, a3: io):\n\
                 n0 = stack_addr ss0 : ptr\n\
                 n1 = store a1, n0, a2 : mem\n\
                 n2 = store a1, a0, n1 : mem\n\
                 n3 = load n0, n2 : i64, mem\n\
                 trap 1 n3.1, a3\n\
                 -> (n3.0, n3.1, a3)\n\
             }\n",
        );
        assert_eq!(report.get("mem-split.lambdas"), 1);
        // the slot and the parameter; nothing touches other memory
        assert_eq!(report.get("mem-split.locations"), 2);
        assert_eq!(report.get("mem-split.noalias-params"), 1);
        let l = g.lambdas()[0];
        let body = g.lambda_body(l);
        let mem = g.results(body)[1];
        assert_eq!(op_of(&g, mem), Some(Op::MemJoin(2)));
        // the join's state: the trap and the λ's result
        assert_eq!(g.users(mem).len(), 2);
        assert!(g.users(mem).iter().any(|&u| matches!(u, User::In(n, _)
            if g.op(n).is_some_and(|op| op.opcode() == Some(vliw_ir::Opcode::Trap)))));
    }

    #[test]
    fn a_gamma_with_a_trapping_arm_is_opaque_and_a_second_run_changes_nothing() {
        let text = "lambda @g(i64) -> i64 {\n\
                 ss0 = stack_slot 8, align 8\n\
                 ss1 = stack_slot 8, align 8\n\
               (a0: i64, a1: mem, a2: io):\n\
                 n0 = stack_addr ss0 : ptr\n\
                 n1 = stack_addr ss1 : ptr\n\
                 n2 = store a0, n0, a1 : mem\n\
                 n3 = store a0, n1, n2 : mem\n\
                 n4 = match2 [0 -> 0, _ -> 1] a0 : ctl2\n\
                 n5 = gamma n4 [n0, n3, a2] : mem, io {\n\
                   (a0: ptr, a1: mem, a2: io):\n\
                     trap 7 a1, a2\n\
                     -> (a1, a2)\n\
                   (a0: ptr, a1: mem, a2: io):\n\
                     n6 = load a0, a1 : i64, mem\n\
                     -> (n6.1, a2)\n\
                 }\n\
                 n7 = load n1, n5.0 : i64, mem\n\
                 -> (n7.0, n7.1, n5.1)\n\
             }\n";
        let (mut g, report) = split(text);
        assert_eq!(report.get("mem-split.locations"), 2);
        let body = g.lambda_body(g.lambdas()[0]);
        let gamma = g
            .nodes(body)
            .iter()
            .copied()
            .find(|&n| matches!(g.kind(n), NodeKind::Gamma { .. }))
            .expect("the γ");
        // one memory state in and out, ss0's (what it touches), its arms as they were
        assert_eq!(g.inputs(gamma).len(), 4);
        assert!(
            matches!(op_of(&g, g.input(gamma, 2)), Some(Op::Inst(d)) if d.opcode() == vliw_ir::Opcode::Store)
        );
        assert_eq!(report.get("mem-split.regions-bypassed"), 1);
        // the load of ss1 does not wait for the γ
        let load = g
            .nodes(body)
            .iter()
            .copied()
            .find(|&n| g.op(n).is_some_and(Op::is_plain_load))
            .expect("the load of ss1");
        assert!(!matches!(g.input(load, 1), Origin::Out(n, _) if n == gamma));
        let once = g.to_string();
        let mut report = Report::default();
        split_memory_states(&mut g, super::SplitOptions::default(), &mut report);
        assert_eq!(report.get("mem-split.lambdas"), 0);
        assert_eq!(g.to_string(), once);
    }

    #[test]
    fn a_theta_takes_only_the_locations_it_touches() {
        let (g, report) = split(
            "lambda @h(i64) -> i64 {\n\
                 ss0 = stack_slot 8, align 8\n\
                 ss1 = stack_slot 8, align 8\n\
               (a0: i64, a1: mem, a2: io):\n\
                 n0 = stack_addr ss0 : ptr\n\
                 n1 = stack_addr ss1 : ptr\n\
                 n2 = store a0, n0, a1 : mem\n\
                 n3 = store a0, n1, n2 : mem\n\
                 n4 = theta [n0, n3, a2] : ptr, mem, io {\n\
                   (a0: ptr, a1: mem, a2: io):\n\
                     n5 = load a0, a1 : i64, mem\n\
                     n6 = store n5.0, a0, n5.1 : mem\n\
                     n7 = ctl2 0 : ctl2\n\
                     -> (n7, a0, n6, a2)\n\
                 }\n\
                 n8 = load n1, n4.1 : i64, mem\n\
                 -> (n8.0, n8.1, n4.2)\n\
             }\n",
        );
        assert_eq!(report.get("mem-split.regions-bypassed"), 1);
        let body = g.lambda_body(g.lambdas()[0]);
        let theta = g
            .nodes(body)
            .iter()
            .copied()
            .find(|&n| matches!(g.kind(n), NodeKind::Theta { .. }))
            .expect("the θ");
        // ss0's state alone goes through the θ: its variables are as before
        assert_eq!(g.inputs(theta).len(), 3);
        // ss1's load does not wait for the loop
        let load = g
            .nodes(body)
            .iter()
            .copied()
            .find(|&n| g.op(n).is_some_and(Op::is_plain_load))
            .expect("the load of ss1");
        assert!(!matches!(g.input(load, 1), Origin::Out(n, _) if n == theta));
    }
}
