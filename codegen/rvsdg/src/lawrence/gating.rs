//! Gating conditions (Lawrence, thesis §3.3.2, with the destination registers of
//! §3.4.2): under which outcomes of which γs a node's value is demanded, and where it
//! goes.
//!
//! ```text
//! c ::= ∅                      never demanded
//!     | Λ  | Λ^r               always demanded (Λ^r: as the tail value of a γ, written
//!                              straight into that γ's result r)
//!     | ⟨?⟩(g, c_0 .. c_n-1)   "switch": by the outcome of γ g, c_k applies
//!     | c ⊕ c                  demanded if either says so
//! ```
//!
//! Our γs have any number of arms, so a switch has one condition per arm (the thesis's
//! `⟨?⟩(g, c_t, c_f)` is the case of two). Every value is kept in normal form, which
//! the constructors and operations maintain:
//! - a switch has at least two arms, not all equal (`⟨?⟩(g, c, .., c) = c`), and
//!   tests no γ its own arms already decided (inside arm `k` of `g`, `⟨?⟩(g, ..)` is
//!   its arm `k`: a path tests each γ at most once);
//! - `⊕` joins at least two switches on distinct γs, in the order of the γs
//!   (`c ⊕ Λ = Λ`, `c ⊕ ∅ = c`, and switches on one γ merge arm by arm).
//!
//! Under [`Cond::eval`] (Fig. 3.9: a condition as a boolean function of the γs'
//! outcomes), [`Cond::union`] is OR and [`Cond::cat`] (catenation: the condition of a
//! node relative to another, composed with that other's own) is AND; the property
//! tests check both on random conditions.
//!
//! Destination registers. The thesis labels Λ with the register a node's value goes
//! to: `Λ^r` comes from an edge into an arm of a γ whose result is `r` (the node
//! computes that result directly: a tail), catenation passes tails on
//! (`Λ^rt · c = c[rt/rv]`: a tail of a γ that is itself a tail of an outer γ writes
//! the outer γ's result: γ-coalescing), and a union keeps a tail only where both
//! sides agree (`Λ^r ∪ c = Λ` otherwise: the node is computed into its own register
//! and the place that wanted it in `r` gets a move). Our nodes have several outputs
//! (a γ gives its values and its states), so the label is a type of the caller's,
//! a [`Label`]: how two labels of one node join, and how catenation retargets an inner
//! label through the outer one, are its methods. `Option<R>` is the thesis's single
//! register.

use std::collections::BTreeMap;
use std::fmt;

/// Where a demanded node's results go, as a gating condition's Λ carries it.
pub trait Label: Clone + Eq + fmt::Debug {
    /// The label of a node demanded with both `self` and `other` (`Λ^a ∪ Λ^b`).
    fn join(&self, other: &Self) -> Self;

    /// The label of a node demanded with `inner` relative to a node that is itself
    /// demanded with `self` (`Λ^outer · Λ^inner`): a tail of the inner node into the
    /// outer node's result goes where `self` sends that result.
    fn retarget(&self, inner: &Self) -> Self;
}

/// The thesis's labels: Λ (`None`) or Λ^r, one register per node. Two different
/// labels join to Λ. Catenation retargets a tail into the register that stands for
/// the result of the node the inner condition is relative to ([`ReturnRegister`]).
impl<R: Copy + Eq + fmt::Debug + ReturnRegister> Label for Option<R> {
    fn join(&self, other: &Self) -> Self {
        if self == other { *self } else { None }
    }

    fn retarget(&self, inner: &Self) -> Self {
        match (self, inner) {
            (Some(rt), Some(rv)) if rv.is_return() => Some(*rt),
            _ => *inner,
        }
    }
}

/// For the single-register labels: which register stands for "the result of the node
/// the inner condition is relative to" (`rv` in `c[rt/rv]`).
pub trait ReturnRegister {
    fn is_return(&self) -> bool;
}

/// A gating condition over γs `G` with labels `L` (normal form).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Cond<G, L> {
    /// ∅: never demanded.
    Never,
    /// Λ: always demanded, its results going where the label says.
    Always(L),
    /// ⟨?⟩(g, c_0 .. c_n-1): by the outcome of γ `g` (arm `k`), `c_k` applies.
    Switch(G, Vec<Cond<G, L>>),
    /// c_1 ⊕ c_2 ⊕ ..: switches on distinct γs, in order.
    Or(Vec<Cond<G, L>>),
}

impl<G: Copy + Ord, L: Label> Cond<G, L> {
    /// The condition of an edge into arm `arm` of γ `g` of `arms` arms (`cond(e)`,
    /// §3.3.2 and §3.4.2): demanded, with `label`, when `g` takes that arm.
    pub fn arm(g: G, arms: usize, arm: usize, label: L) -> Self {
        assert!(arm < arms, "arm {arm} of {arms}");
        let conds = (0..arms)
            .map(|k| {
                if k == arm {
                    Cond::Always(label.clone())
                } else {
                    Cond::Never
                }
            })
            .collect();
        Cond::switch(g, conds)
    }

    /// ⟨?⟩(g, arms), normalised: the arms restricted to their own outcome of `g`, and
    /// the switch dropped when every arm is the same.
    pub fn switch(g: G, arms: Vec<Self>) -> Self {
        let arms: Vec<Self> = (arms.into_iter().enumerate())
            .map(|(k, c)| c.cofactor(g, k))
            .collect();
        if arms.windows(2).all(|w| w[0] == w[1]) {
            return arms.into_iter().next().unwrap_or(Cond::Never);
        }
        Cond::Switch(g, arms)
    }

    pub fn is_never(&self) -> bool {
        matches!(self, Cond::Never)
    }

    /// The condition once γ `g` is known to take arm `k` (Shannon's cofactor: what
    /// γ-ordering hangs under arm `k` of a dominant `g`).
    pub fn cofactor(&self, g: G, k: usize) -> Self {
        if !self.tests(g) {
            return self.clone();
        }
        match self {
            Cond::Never | Cond::Always(_) => self.clone(),
            Cond::Switch(h, arms) if *h == g => arms[k].clone(),
            Cond::Switch(h, arms) => {
                Cond::switch(*h, arms.iter().map(|c| c.cofactor(g, k)).collect())
            }
            Cond::Or(terms) => terms
                .iter()
                .fold(Cond::Never, |acc, t| acc.union(&t.cofactor(g, k))),
        }
    }

    /// Whether `g` is tested anywhere in the condition.
    pub fn tests(&self, g: G) -> bool {
        match self {
            Cond::Never | Cond::Always(_) => false,
            Cond::Switch(h, arms) => *h == g || arms.iter().any(|c| c.tests(g)),
            Cond::Or(terms) => terms.iter().any(|c| c.tests(g)),
        }
    }

    /// Whether a ⊕ is anywhere in the condition (independent redundancy).
    pub fn has_or(&self) -> bool {
        match self {
            Cond::Never | Cond::Always(_) => false,
            Cond::Switch(_, arms) => arms.iter().any(Cond::has_or),
            Cond::Or(_) => true,
        }
    }

    /// The γs tested at the top (those a ⊕ joins, or the one switch), in order.
    pub fn top_gammas(&self) -> Vec<G> {
        match self {
            Cond::Switch(g, _) => vec![*g],
            Cond::Or(terms) => terms.iter().flat_map(|t| t.top_gammas()).collect(),
            _ => Vec::new(),
        }
    }

    /// Union `c1 ∪ c2`: demanded where either is (OR), in normal form. Where one side
    /// is Λ, the other side's labels join into it (`Λ^r ∪ c = Λ` in the thesis).
    pub fn union(&self, other: &Self) -> Self {
        match (self, other) {
            (Cond::Never, c) | (c, Cond::Never) => c.clone(),
            (Cond::Always(a), c) | (c, Cond::Always(a)) => Cond::Always(c.joined_labels(a)),
            _ => {
                let mut terms: BTreeMap<G, Self> = BTreeMap::new();
                let mut always: Option<L> = None;
                for t in self.terms().chain(other.terms()) {
                    add_term(&mut terms, &mut always, t.clone());
                }
                match always {
                    Some(label) => {
                        let all = terms.values().fold(label, |l, t| t.joined_labels(&l));
                        Cond::Always(all)
                    }
                    None => {
                        let mut terms: Vec<Self> = terms.into_values().collect();
                        if terms.len() == 1 {
                            terms.pop().unwrap()
                        } else {
                            Cond::Or(terms)
                        }
                    }
                }
            }
        }
    }

    /// `label` joined with every label of the condition.
    fn joined_labels(&self, label: &L) -> L {
        match self {
            Cond::Never => label.clone(),
            Cond::Always(l) => label.join(l),
            Cond::Switch(_, cs) | Cond::Or(cs) => {
                cs.iter().fold(label.clone(), |l, c| c.joined_labels(&l))
            }
        }
    }

    /// The switches a ⊕ joins, or the condition itself.
    fn terms(&self) -> impl Iterator<Item = &Self> {
        match self {
            Cond::Or(terms) => terms.iter(),
            other => std::slice::from_ref(other).iter(),
        }
    }

    /// Catenation `self · inner`: `inner` is the condition of a node relative to the
    /// node `self` is the condition of; the result is the condition of that node
    /// relative to what `self` is relative to (AND), its labels retargeted through
    /// `self`'s ([`Label::retarget`]).
    pub fn cat(&self, inner: &Self) -> Self {
        match self {
            Cond::Never => Cond::Never,
            Cond::Always(outer) => inner.relabel(&|l: &L| outer.retarget(l)),
            Cond::Switch(g, arms) => Cond::switch(*g, arms.iter().map(|c| c.cat(inner)).collect()),
            Cond::Or(terms) => terms
                .iter()
                .fold(Cond::Never, |acc, t| acc.union(&t.cat(inner))),
        }
    }

    /// The condition with every label mapped by `f`.
    pub fn relabel(&self, f: &impl Fn(&L) -> L) -> Self {
        match self {
            Cond::Never => Cond::Never,
            Cond::Always(l) => Cond::Always(f(l)),
            Cond::Switch(g, arms) => Cond::switch(*g, arms.iter().map(|c| c.relabel(f)).collect()),
            Cond::Or(terms) => terms
                .iter()
                .fold(Cond::Never, |acc, t| acc.union(&t.relabel(f))),
        }
    }

    /// Whether the condition holds under the γs' outcomes (Fig. 3.9): `outcome(g)` is
    /// the arm γ `g` takes.
    pub fn eval(&self, outcome: &impl Fn(G) -> usize) -> bool {
        match self {
            Cond::Never => false,
            Cond::Always(_) => true,
            Cond::Switch(g, arms) => arms[outcome(*g)].eval(outcome),
            Cond::Or(terms) => terms.iter().any(|t| t.eval(outcome)),
        }
    }

    /// Every label of the condition, in order of appearance.
    pub fn labels(&self) -> Vec<&L> {
        let mut out = Vec::new();
        self.collect_labels(&mut out);
        out
    }

    fn collect_labels<'a>(&'a self, out: &mut Vec<&'a L>) {
        match self {
            Cond::Always(l) => out.push(l),
            Cond::Never => {}
            Cond::Switch(_, cs) | Cond::Or(cs) => cs.iter().for_each(|c| c.collect_labels(out)),
        }
    }

    /// Whether the condition is in normal form (what every operation returns).
    pub fn is_normal(&self) -> bool {
        self.is_normal_under(&mut Vec::new())
    }

    fn is_normal_under(&self, decided: &mut Vec<G>) -> bool {
        match self {
            Cond::Never | Cond::Always(_) => true,
            Cond::Switch(g, arms) => {
                if arms.len() < 2 || arms.windows(2).all(|w| w[0] == w[1]) || decided.contains(g) {
                    return false;
                }
                decided.push(*g);
                let ok = arms.iter().all(|c| c.is_normal_under(decided));
                decided.pop();
                ok
            }
            Cond::Or(terms) => {
                terms.len() >= 2
                    && terms.iter().all(|t| matches!(t, Cond::Switch(..)))
                    && terms
                        .windows(2)
                        .all(|w| w[0].top_gammas() < w[1].top_gammas())
                    && terms.iter().all(|t| t.is_normal_under(decided))
            }
        }
    }
}

/// Adds a term (a switch, an or or an always) to the terms of a union being built:
/// switches on one γ merge arm by arm, and a merge that normalises into something
/// else is added again (it may meet another term).
fn add_term<G: Copy + Ord, L: Label>(
    terms: &mut BTreeMap<G, Cond<G, L>>,
    always: &mut Option<L>,
    term: Cond<G, L>,
) {
    match term {
        Cond::Never => {}
        Cond::Always(label) => {
            *always = Some(match always.take() {
                Some(l) => l.join(&label),
                None => label,
            })
        }
        Cond::Or(ts) => {
            for t in ts {
                add_term(terms, always, t);
            }
        }
        Cond::Switch(g, arms) => match terms.remove(&g) {
            None => {
                terms.insert(g, Cond::Switch(g, arms));
            }
            Some(Cond::Switch(_, old)) => {
                assert_eq!(old.len(), arms.len(), "a γ with one number of arms");
                let merged = old.iter().zip(&arms).map(|(a, b)| a.union(b)).collect();
                add_term(terms, always, Cond::switch(g, merged));
            }
            Some(_) => unreachable!("the terms are switches on their γ"),
        },
    }
}

impl<G: fmt::Display, L: fmt::Debug> fmt::Display for Cond<G, L> {
    /// `∅`, `Λ{label:?}`, `⟨?⟩(g1, Λ.., ∅)`, `⟨?⟩(g1, ..) ⊕ ⟨?⟩(g2, ..)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cond::Never => f.write_str("∅"),
            Cond::Always(l) => write!(f, "Λ{l:?}"),
            Cond::Switch(g, arms) => {
                write!(f, "⟨?⟩({g}")?;
                for c in arms {
                    write!(f, ", {c}")?;
                }
                f.write_str(")")
            }
            Cond::Or(terms) => {
                for (i, t) in terms.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ⊕ ")?;
                    }
                    write!(f, "{t}")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests;
