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
//! Not yet: independent redundancy (a condition with `⊕`, which needs γ-ordering,
//! §3.4.1) is reported as unsupported, and the labels (tail registers, §3.4.2) are
//! computed and kept but not yet used to share tails.

use rustc_hash::FxHashMap;

use super::dests::{Dest, Dests, Gc};
use super::flatten::{Flat, FlatId, FlatKind, Role, Source};
use super::gating::Cond;
use super::pdg::{Pdg, PdgId, PdgNode};
use super::pdom::PostDomTree;
use crate::graph::Origin;
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
}

/// Why a unit could not be proceduralized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// Flat node `node` is demanded under a disjunction of different γs' outcomes
    /// (independent redundancy), which needs γ-ordering.
    IndependentRedundancy { node: FlatId, condition: String },
    /// A node nothing demands (the flat graph has dead nodes).
    Dead(FlatId),
}

/// Proceduralizes `flat` (a unit of `g`).
pub fn build_pdg(g: &Rvsdg, flat: &Flat) -> Result<Proceduralized, BuildError> {
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
    };
    // the conditions of each processed node's external producers, relative to it
    let mut external: Vec<Option<FxHashMap<FlatId, Gc>>> = vec![None; n + 1];
    for u in 0..=n {
        let mut c = b.direct_conditions(u);
        let mut kids = children[u].clone();
        kids.sort_unstable_by(|a, b| b.cmp(a)); // consumers first
        for ui in kids {
            let gc_ui = c
                .remove(&(ui as FlatId))
                .ok_or(BuildError::Dead(ui as FlatId))?;
            b.link(b.fragments[u], &gc_ui, b.fragments[ui], ui as FlatId)?;
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
    })
}

struct Builder<'a> {
    g: &'a Rvsdg,
    flat: &'a Flat,
    pdg: Pdg,
    fragments: Vec<PdgId>,
    conditions: Vec<Gc>,
}

impl Builder<'_> {
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
                let test = self.predicate_under(group, *gamma).unwrap_or_else(|| {
                    panic!(
                        "γ f{gamma} is not linked under p{group}, though f{v}'s condition tests it"
                    )
                });
                let groups = match self.pdg.node(test) {
                    PdgNode::Predicate { arms, .. } => arms.clone(),
                    _ => unreachable!(),
                };
                for (arm, c) in groups.into_iter().zip(arms) {
                    self.link(arm, c, fragment, v)?;
                }
                Ok(())
            }
            Cond::Or(_) => Err(BuildError::IndependentRedundancy {
                node: v,
                condition: c.to_string(),
            }),
        }
    }

    /// The predicate node of γ `gamma`, if it runs from `group` (through groups only).
    fn predicate_under(&self, group: PdgId, gamma: FlatId) -> Option<PdgId> {
        let mut stack = vec![group];
        while let Some(id) = stack.pop() {
            match self.pdg.node(id) {
                PdgNode::Group(children) => stack.extend(children),
                PdgNode::Predicate { gamma: g, .. } if *g == gamma => return Some(id),
                _ => {}
            }
        }
        None
    }
}

#[cfg(test)]
mod tests;
