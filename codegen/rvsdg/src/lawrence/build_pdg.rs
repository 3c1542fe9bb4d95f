//! `buildPDG` (thesis §3.3.3, Fig. 3.7) and `link` (Fig. 3.8): proceduralization of
//! a flat unit into a PDG with call-by-need semantics. Each node is placed, under the
//! PDG of its immediate post-dominator, at exactly the places its gating condition
//! relative to that post-dominator names: a node is computed on the paths that
//! demand it, and on no other.
//!
//! The post-dominator tree is walked bottom-up. For a node `u`, the conditions of the
//! producers it reads directly come from its edges (`cond(e)`); its children (the
//! nodes `u` immediately post-dominates) are then taken consumers first, so that when
//! a child is reached its condition relative to `u` is complete: it is linked into
//! `u`'s PDG by that condition, and the conditions of its own external producers,
//! relative to it, are caught up to `u` by catenation and united in.
//!
//! Independent redundancy (a condition with `⊕`) is resolved by γ-ordering (§3.4.1)
//! where the PDGs involved are run by the group alone; elsewhere it is reported. The
//! labels (tail registers, §3.4.2) are computed and kept but not yet used to share
//! tails.

use rustc_hash::FxHashMap;

use super::dests::{Dest, Dests, Gc};
use super::flatten::{Flat, FlatId, FlatKind, Role, Source};
use super::gating::Cond;
use super::pdg::{Pdg, PdgId, PdgNode};
use super::pdom::PostDomTree;
use crate::graph::{Origin, Region};
use crate::ops::Rvsdg;

/// A flat unit proceduralized.
#[derive(Clone, Debug)]
pub struct Proceduralized {
    pub pdg: Pdg,
    /// Each flat node's PDG (`P(v)`: a group holding its statement or predicate).
    pub fragments: Vec<PdgId>,
    /// Each flat node's gating condition relative to its immediate post-dominator,
    /// by which it was linked.
    pub conditions: Vec<Gc>,
    pub pdom: PostDomTree,
    /// How many nodes were computed speculatively (see [`BuildOptions::speculate`]).
    pub speculated: usize,
}

/// Why a unit could not be proceduralized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// Flat node `node` is demanded under a disjunction of different γs' outcomes
    /// (independent redundancy), which γ-ordering could not resolve, for `why`.
    IndependentRedundancy {
        node: FlatId,
        condition: String,
        why: Decline,
    },
    /// A node nothing demands (the flat graph has dead nodes).
    Dead(FlatId),
    /// Node `node`'s condition tests γ `gamma`, whose predicate is not linked under
    /// the group being linked into (a fault of proceduralization: the λ is
    /// destroyed structurally instead of the compiler stopping; the one found,
    /// compiling `compiler_builtins`, is fixed and has its filetest,
    /// `sequentialize-lawrence-shared-predicate.rvsdg`).
    Unlinked { node: FlatId, gamma: FlatId },
}

/// Why γ-ordering did not order a disjunction's γs (the last reason met, over the
/// candidates for the dominant γ tried).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Decline {
    /// γ-ordering is switched off.
    Off,
    /// No γ of the disjunction can be tested first: each one's predicate depends on
    /// another's results, or another depends on its results.
    NoDominant,
    /// The dominant γ's PDG is not run by the group alone (it has other parents, or
    /// is not a child of the group).
    DominantShared,
    /// Another γ's PDG is not run by the group alone.
    OtherShared,
    /// The dominant γ's PDG does not hold exactly one test of it.
    DominantTests,
}

impl Decline {
    /// Its `stats` counter.
    pub fn counter(self) -> &'static str {
        match self {
            Decline::Off => "lawrence.fallback.independent-redundancy.off",
            Decline::NoDominant => "lawrence.fallback.independent-redundancy.no-dominant",
            Decline::DominantShared => "lawrence.fallback.independent-redundancy.dominant-shared",
            Decline::OtherShared => "lawrence.fallback.independent-redundancy.other-shared",
            Decline::DominantTests => "lawrence.fallback.independent-redundancy.dominant-tests",
        }
    }
}

/// A condition made Λ: demanded whenever the place it is relative to runs, each value
/// result in its own register (the γ arms that wanted it as a tail get a move from it).
fn always(c: &Gc) -> Gc {
    let labels = c.labels();
    let mut label = labels[0].clone();
    for l in &labels[1..] {
        label = super::gating::Label::join(&label, l);
    }
    for (_, d) in &mut label.outputs {
        *d = Dest::Own;
    }
    Cond::Always(label)
}

/// The most nodes a speculated node may need computed with it (itself included).
const SPECULATION_CONE: usize = 8;

/// What `build_pdg` may do.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// γ-ordering for independent redundancy (§3.4.1); without it such a unit is
    /// reported. Off in the emitter until the random tests pass with it: the fault
    /// found on the random CFG of seed 111 (`tests/opt_random.rs`: a subsidiary γ
    /// that depends on the dominant one's results was moved inside its arms) is
    /// fixed, the full random run with it on not yet done.
    pub gamma_ordering: bool,
    /// A node whose independent redundancy γ-ordering cannot resolve is computed
    /// speculatively, where its post-dominator's group runs (our rule: the thesis
    /// leaves such nodes to duplication), when that is safe and small
    /// (`Builder::speculable`); else the unit is reported (`speculate=`).
    pub speculate: bool,
}

/// Proceduralizes `flat` (a unit of `g`).
pub fn build_pdg(
    g: &Rvsdg,
    flat: &Flat,
    options: BuildOptions,
) -> Result<Proceduralized, BuildError> {
    let n = flat.nodes.len();
    let consumers = flat.consumers();
    let order: Vec<usize> = (0..n).collect();
    let pdom = PostDomTree::compute(n, |v| &consumers[v], &order)
        .map_err(|e| BuildError::Dead(e.0 as FlatId))?;
    let children = pdom.children();
    let mut pdg = Pdg::default();
    let mut fragments = Vec::with_capacity(n + 1);
    for node in &flat.nodes {
        let inner = match node.kind {
            FlatKind::Simple(_) | FlatKind::Theta(_) => {
                PdgNode::Statement(fragments.len() as FlatId)
            }
            FlatKind::Gamma { arms, .. } => PdgNode::Predicate {
                gamma: fragments.len() as FlatId,
                arms: (0..arms)
                    .map(|_| pdg.add(PdgNode::Group(Vec::new())))
                    .collect(),
            },
        };
        let inner = pdg.add(inner);
        fragments.push(pdg.add(PdgNode::Group(vec![inner])));
    }
    pdg.root = pdg.add(PdgNode::Group(Vec::new()));
    fragments.push(pdg.root);

    let mut b = Builder {
        g,
        flat,
        pdg,
        fragments,
        conditions: vec![Cond::Never; n],
        speculated: 0,
        ordered: Default::default(),
        options,
    };
    // the conditions of each processed node's external producers, relative to it
    let mut external: Vec<Option<FxHashMap<FlatId, Gc>>> = vec![None; n + 1];
    for u in 0..=n {
        let mut c = b.direct_conditions(u);
        let mut kids = children[u].clone();
        kids.sort_unstable_by(|a, b| b.cmp(a)); // consumers first
        for ui in kids {
            let mut gc_ui = c
                .remove(&(ui as FlatId))
                .ok_or(BuildError::Dead(ui as FlatId))?;
            // a link that fails may have linked some arms already: undone from a copy
            let speculated = match gc_ui.has_or() && b.options.speculate {
                true => b.without_or(ui as FlatId, &gc_ui, b.region_of(u)),
                false => None,
            };
            let before = speculated.is_some().then(|| b.pdg.clone());
            match b.link(b.fragments[u], &gc_ui, b.fragments[ui], ui as FlatId) {
                Ok(()) => {}
                Err(BuildError::IndependentRedundancy { .. }) if before.is_some() => {
                    b.pdg = before.expect("a condition with ⊕");
                    gc_ui = speculated.expect("checked");
                    b.link(b.fragments[u], &gc_ui, b.fragments[ui], ui as FlatId)?;
                    b.speculated += 1;
                }
                Err(e) => return Err(e),
            }
            for (v, inner) in external[ui].take().expect("children come first") {
                let via = gc_ui.cat(&inner);
                let merged = match c.remove(&v) {
                    Some(old) => old.union(&via),
                    None => via,
                };
                c.insert(v, merged);
            }
            b.conditions[ui] = gc_ui;
        }
        external[u] = Some(c);
    }
    let left = external[n].take().unwrap_or_default();
    if let Some((&v, _)) = left.iter().next() {
        return Err(BuildError::Dead(v)); // not reached from τ
    }
    Ok(Proceduralized {
        pdg: b.pdg,
        fragments: b.fragments,
        conditions: b.conditions,
        pdom,
        speculated: b.speculated,
    })
}

struct Builder<'a> {
    g: &'a Rvsdg,
    flat: &'a Flat,
    pdg: Pdg,
    fragments: Vec<PdgId>,
    conditions: Vec<Gc>,
    /// (group, γ, dominant γ): at `group`, γ-ordering moved the γ's PDG under the
    /// arms of the dominant one's predicate.
    ordered: rustc_hash::FxHashSet<(PdgId, FlatId, FlatId)>,
    options: BuildOptions,
    /// The nodes computed speculatively.
    speculated: usize,
}

impl Builder<'_> {
    /// The region flat node `x` is in (τ's: the unit).
    fn region_of(&self, x: usize) -> Region {
        match self.flat.nodes.get(x).map(|n| n.kind) {
            Some(FlatKind::Simple(n) | FlatKind::Theta(n) | FlatKind::Gamma { node: n, .. }) => {
                self.g.node(n).region
            }
            None => self.flat.unit,
        }
    }

    /// Node `v`'s condition `c` (relative to a node in `region`) with each ⊕ that
    /// γ-ordering would have to resolve made Λ: `v` then runs whenever the arm the ⊕
    /// stands in runs (speculation, our rule where γ-ordering cannot order the γs:
    /// the thesis leaves such nodes to duplication), if that is safe and small there
    /// (`speculable`); `None` if it is not.
    fn without_or(&self, v: FlatId, c: &Gc, region: Region) -> Option<Gc> {
        match c {
            Cond::Never | Cond::Always(_) => Some(c.clone()),
            Cond::Or(_) => self.speculable(v, region).then(|| always(c)),
            Cond::Switch(gamma, arms) => {
                let FlatKind::Gamma { node, .. } = self.flat.nodes[*gamma as usize].kind else {
                    unreachable!("f{gamma} is not a γ")
                };
                let regions = self.g.kind(node).subregions().to_vec();
                let arms = (arms.iter().zip(regions))
                    .map(|(arm, r)| self.without_or(v, arm, r))
                    .collect::<Option<Vec<_>>>()?;
                Some(Cond::Switch(*gamma, arms))
            }
        }
    }

    /// Whether flat node `v` may be computed whenever `region` runs, on paths that do
    /// not need it: each node it then makes run on more paths (it, and transitively
    /// what it reads) either is a pure simple node (nothing that can fault, write or
    /// loop), or sits in `region` or a region around it, where the program as
    /// written runs it anyway (call-by-need runs a node only where its region runs,
    /// so this is what call-by-value, the structural destruction, does). What a γ
    /// reads in its arms stays under its arms. A node with a state output in such a
    /// region runs whenever that region does already, so the search stops there. At
    /// most [`SPECULATION_CONE`] nodes run on more paths.
    fn speculable(&self, v: FlatId, region: Region) -> bool {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = vec![v];
        let mut cone = 0;
        while let Some(x) = stack.pop() {
            if !seen.insert(x) {
                continue;
            }
            let node = &self.flat.nodes[x as usize];
            let around = self.g.region_within(region, self.region_of(x as usize));
            // a node with a state output runs whenever its region does (its state
            // goes on to the region's results): around `region`, nothing new runs
            if x != v && around && self.gives_state(x) {
                continue;
            }
            cone += 1;
            if cone > SPECULATION_CONE {
                return false;
            }
            let pure = match node.kind {
                FlatKind::Simple(n) => self.g.op(n).is_some_and(|op| op.is_pure()),
                _ => false,
            };
            if !pure && !around {
                return false;
            }
            stack.extend(
                (node.operands.iter())
                    .filter(|o| !matches!(o.role, Role::Exit { .. } | Role::Sink { .. }))
                    .filter_map(|o| Flat::producer(o.source)),
            );
        }
        true
    }

    /// Whether flat node `x` gives a state.
    fn gives_state(&self, x: FlatId) -> bool {
        let n = match self.flat.nodes[x as usize].kind {
            FlatKind::Simple(n) | FlatKind::Theta(n) | FlatKind::Gamma { node: n, .. } => n,
        };
        self.g.output_types(n).iter().any(|t| t.is_state())
    }

    /// The conditions of the producers `u` reads, by its own edges (`cond(e)`,
    /// united over the edges from one producer); `u` may be τ.
    fn direct_conditions(&self, u: usize) -> FxHashMap<FlatId, Gc> {
        let flat = self.flat;
        let operands = match flat.nodes.get(u) {
            Some(node) => &node.operands,
            None => &flat.results,
        };
        let arms = match flat.nodes.get(u).map(|x| x.kind) {
            Some(FlatKind::Gamma { arms, .. }) => arms as usize,
            _ => 0,
        };
        let mut c: FxHashMap<FlatId, Gc> = FxHashMap::default();
        for o in operands {
            let (v, label) = match o.source {
                Source::Arg(_) => continue,
                Source::Effect(v) => (v, Dests::effect(v)),
                Source::Out(v, k) if self.is_state(v, k) => (v, Dests::effect(v)),
                Source::Out(v, k) => {
                    let dest = match o.role {
                        Role::Exit { exit, .. } => Dest::Tail(u as FlatId, exit),
                        _ => Dest::Own,
                    };
                    (v, Dests::one(v, k, dest))
                }
            };
            let cond = match o.role {
                Role::Exit { arm, .. } | Role::Sink { arm } => {
                    Cond::arm(u as FlatId, arms, arm as usize, label)
                }
                Role::Plain | Role::Predicate => Cond::Always(label),
            };
            let merged = match c.remove(&v) {
                Some(old) => old.union(&cond),
                None => cond,
            };
            c.insert(v, merged);
        }
        c
    }

    /// Whether output `k` of flat node `v` is a state.
    fn is_state(&self, v: FlatId, k: u32) -> bool {
        let node = match self.flat.nodes[v as usize].kind {
            FlatKind::Simple(n) | FlatKind::Theta(n) | FlatKind::Gamma { node: n, .. } => n,
        };
        self.g.ty(Origin::Out(node, k)).is_state()
    }

    /// `link(group, c, fragment)` (Fig. 3.8): makes `fragment` (the PDG of flat node
    /// `v`) run from `group` where `c` says.
    fn link(&mut self, group: PdgId, c: &Gc, fragment: PdgId, v: FlatId) -> Result<(), BuildError> {
        match c {
            Cond::Never => Ok(()),
            Cond::Always(_) => {
                self.pdg.add_child(group, fragment);
                Ok(())
            }
            Cond::Switch(gamma, arms) => {
                let tests = self.predicates_under(group, *gamma);
                if tests.is_empty() {
                    return Err(BuildError::Unlinked {
                        node: v,
                        gamma: *gamma,
                    });
                }
                for test in tests {
                    let groups = match self.pdg.node(test) {
                        PdgNode::Predicate { arms, .. } => arms.clone(),
                        _ => unreachable!(),
                    };
                    for (arm, c) in groups.into_iter().zip(arms) {
                        self.link(arm, c, fragment, v)?;
                    }
                }
                Ok(())
            }
            Cond::Or(_) => {
                // independent redundancy: γ-ordering (§3.4.1)
                let (candidates, mut why) = if self.options.gamma_ordering {
                    (self.dominant_candidates(c), Decline::NoDominant)
                } else {
                    (Vec::new(), Decline::Off)
                };
                for dominant in candidates {
                    let ordered = self.order_under(group, dominant, &c.top_gammas());
                    if let Err(e) = ordered {
                        why = e;
                    } else {
                        let arms = self.arms_of(dominant);
                        let split = Cond::switch(
                            dominant,
                            (0..arms).map(|k| c.cofactor(dominant, k)).collect(),
                        );
                        return self.link(group, &split, fragment, v);
                    }
                }
                Err(BuildError::IndependentRedundancy {
                    node: v,
                    condition: c.to_string(),
                    why,
                })
            }
        }
    }

    fn arms_of(&self, gamma: FlatId) -> usize {
        match self.flat.nodes[gamma as usize].kind {
            FlatKind::Gamma { arms, .. } => arms as usize,
            _ => unreachable!("f{gamma} is not a γ"),
        }
    }

    /// The γs of a disjunction that may be tested first, best first: those whose
    /// predicate does not depend on the others' results (the thesis's restriction)
    /// and on whose results the others do not depend (their PDGs move inside its
    /// arms), the one whose predicate is computed earliest first (the flat order is the
    /// unit's order; ties by γ). A documented heuristic: the thesis gives none, and
    /// the best order is an OBDD variable ordering (NP-complete, §7.4).
    fn dominant_candidates(&self, c: &Gc) -> Vec<FlatId> {
        let tops = c.top_gammas();
        let mut candidates: Vec<(Option<FlatId>, FlatId)> = tops
            .iter()
            .copied()
            .filter(|&d| {
                // the dominant test runs first: its predicate needs nothing of the
                // others; and the others' PDGs go inside its arms, before its results
                // exist: they need nothing of it
                let p = self.predicate_producer(d);
                tops.iter().all(|&s| {
                    s == d || (p.is_none_or(|p| !self.reaches(s, p)) && !self.reaches(d, s))
                })
            })
            .map(|d| (self.predicate_producer(d), d))
            .collect();
        candidates.sort_unstable();
        candidates.into_iter().map(|(_, d)| d).collect()
    }

    fn predicate_producer(&self, gamma: FlatId) -> Option<FlatId> {
        Flat::producer(self.flat.nodes[gamma as usize].operands[0].source)
    }

    /// Whether a path of the flat graph leads from `from` to `to`.
    fn reaches(&self, from: FlatId, to: FlatId) -> bool {
        if from >= to {
            return from == to; // producers come before consumers
        }
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = vec![to];
        while let Some(x) = stack.pop() {
            if x == from {
                return true;
            }
            for o in &self.flat.nodes[x as usize].operands {
                if let Some(p) = Flat::producer(o.source)
                    && p >= from
                    && seen.insert(p)
                {
                    stack.push(p);
                }
            }
        }
        false
    }

    /// γ-ordering of `dominant` over the other γs of `tops` at `group` (§3.4.1): each
    /// other γ's PDG, run by `group` alone, is taken out of it and a clone hung under
    /// every arm of the dominant γ's predicate, so that it is still tested exactly
    /// when `group` runs, but after the dominant test. A clone is a new predicate
    /// with new arm groups holding the same children (nodes are shared, not copied),
    /// so that what is later linked under one clone's arm is not under the others'.
    /// Only where every PDG involved is a direct child of `group` with `group` its
    /// only parent, or was ordered under `dominant` before (else why not: the caller
    /// tries another γ, or gives up).
    fn order_under(
        &mut self,
        group: PdgId,
        dominant: FlatId,
        tops: &[FlatId],
    ) -> Result<(), Decline> {
        let parents = self.pdg.parents();
        // the PDG of γ `s` run by `group` alone (its own, or a copy that an earlier
        // γ-ordering hung there)
        let alone_under = |s: FlatId| {
            self.fragment_under(group, s)
                .filter(|&f| parents[f as usize] == [group])
        };
        let Some(fd) = alone_under(dominant) else {
            return Err(Decline::DominantShared);
        };
        // those already ordered under this dominant γ (for another node demanded by
        // the same γs) are under its arms already
        let mut others = Vec::new();
        for &s in tops {
            if s == dominant || self.ordered.contains(&(group, s, dominant)) {
                continue;
            }
            match alone_under(s) {
                Some(fs) => others.push((s, fs)),
                None => return Err(Decline::OtherShared),
            }
        }
        let [test] = self.predicates_under(fd, dominant)[..] else {
            return Err(Decline::DominantTests);
        };
        let PdgNode::Predicate { arms, .. } = self.pdg.node(test).clone() else {
            unreachable!()
        };
        for (s, fs) in others {
            if let PdgNode::Group(children) = &mut self.pdg.nodes[group as usize] {
                children.retain(|&c| c != fs);
            }
            for &arm in &arms {
                let clone = self.clone_fragment(fs, s);
                self.pdg.add_child(arm, clone);
            }
            self.ordered.insert((group, s, dominant));
        }
        Ok(())
    }

    /// The child of `group` that holds a predicate of γ `gamma`, if one does.
    fn fragment_under(&self, group: PdgId, gamma: FlatId) -> Option<PdgId> {
        self.pdg.successors(group).iter().copied().find(|&c| {
            matches!(self.pdg.node(c), PdgNode::Group(inner) if inner.iter().any(|&i|
                matches!(self.pdg.node(i), PdgNode::Predicate { gamma: g, .. } if *g == gamma)))
        })
    }

    /// A copy of γ `gamma`'s PDG `fragment` for one arm of the dominant predicate: a
    /// new group with a new predicate and new arm groups, and below them a new copy
    /// of every predicate (with its arm groups) and of every group on the way to one;
    /// the rest (statements, groups without predicates) shared. What is linked
    /// later under one copy's predicates (the cofactor of a condition for that arm)
    /// must not run on the other arm's paths, so no predicate or arm group is shared
    /// between the copies (sharing a nested γ's predicate made a node run twice on
    /// random program 363 of `tests/lawrence_counts.rs`).
    fn clone_fragment(&mut self, fragment: PdgId, gamma: FlatId) -> PdgId {
        debug_assert!(matches!(
            self.pdg.node(fragment),
            PdgNode::Group(children)
                if children.iter().any(|&c| matches!(self.pdg.node(c),
                    PdgNode::Predicate { gamma: g, .. } if *g == gamma))
        ));
        let mut memo = FxHashMap::default();
        let mut has_predicate = FxHashMap::default();
        self.clone_spine(fragment, &mut memo, &mut has_predicate)
    }

    /// `id`, or its copy when a predicate is at or below it (`memo` keeps the sharing
    /// inside one copy).
    fn clone_spine(
        &mut self,
        id: PdgId,
        memo: &mut FxHashMap<PdgId, PdgId>,
        has_predicate: &mut FxHashMap<PdgId, bool>,
    ) -> PdgId {
        if let Some(&c) = memo.get(&id) {
            return c;
        }
        if !self.has_predicate(id, has_predicate) {
            return id;
        }
        let copy = match self.pdg.node(id).clone() {
            PdgNode::Statement(_) => return id,
            PdgNode::Group(children) => PdgNode::Group(
                (children.into_iter())
                    .map(|c| self.clone_spine(c, memo, has_predicate))
                    .collect(),
            ),
            PdgNode::Predicate { gamma, arms } => PdgNode::Predicate {
                gamma,
                // every arm group new: later links go into them
                arms: (arms.into_iter())
                    .map(|a| {
                        let inside = (self.pdg.successors(a).to_vec().into_iter())
                            .map(|c| self.clone_spine(c, memo, has_predicate))
                            .collect();
                        self.pdg.add(PdgNode::Group(inside))
                    })
                    .collect(),
            },
        };
        let c = self.pdg.add(copy);
        memo.insert(id, c);
        c
    }

    /// Whether a predicate is at or below `id`.
    fn has_predicate(&self, id: PdgId, memo: &mut FxHashMap<PdgId, bool>) -> bool {
        if let Some(&b) = memo.get(&id) {
            return b;
        }
        let b = match self.pdg.node(id) {
            PdgNode::Predicate { .. } => true,
            PdgNode::Statement(_) => false,
            PdgNode::Group(children) => {
                let children = children.clone();
                children.into_iter().any(|c| self.has_predicate(c, memo))
            }
        };
        memo.insert(id, b);
        b
    }

    /// The predicate nodes of γ `gamma` that run from `group`: one, or the clones of
    /// one that γ-ordering hung under the arms of another γ's predicate. Searched
    /// through other predicates' arms too: a γ demanded on every arm of another (its
    /// outputs read as exits of each arm, with different tail labels) is linked into
    /// each arm group, one predicate node with several parents, and a node demanded
    /// by one of its arms is linked there (`compiler_builtins`' `__muldf3`: found
    /// through groups only, it was not found at all).
    fn predicates_under(&self, group: PdgId, gamma: FlatId) -> Vec<PdgId> {
        let mut found = Vec::new();
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = vec![group];
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            match self.pdg.node(id) {
                PdgNode::Group(children) => stack.extend(children),
                PdgNode::Predicate { gamma: g, .. } if *g == gamma => found.push(id),
                PdgNode::Predicate { arms, .. } => stack.extend(arms),
                PdgNode::Statement(_) => {}
            }
        }
        found
    }
}

#[cfg(test)]
mod tests;
