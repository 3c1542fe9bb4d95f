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
//! Destination registers. `Λ^r` comes from an edge into arm `k` of a γ whose `k`-th
//! result is `r` ([`Cond::arm`]): the node computes that result directly (a tail).
//! Catenation passes tails on: `Λ^rt · c = c[rt/rv]`, where `rv` is the register of
//! the node that `c` is relative to, so a tail of a γ that is itself a tail of an
//! outer γ writes the outer γ's result (γ-coalescing). Union keeps a tail only when
//! both sides agree (`Λ^r ∪ Λ^r = Λ^r`); otherwise `Λ^r ∪ c = Λ` for `c ≠ ∅`: the node
//! is computed into its own register, and the place that wanted it in `r` needs a
//! move there (which [`Cond::lost_tails`] lets the caller find before it unites).

use std::collections::BTreeMap;
use std::fmt;

/// A gating condition over γs `G` and destination registers `R` (normal form).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Cond<G, R> {
    /// ∅: never demanded.
    Never,
    /// Λ (`None`) or Λ^r: always demanded; with `r`, as the tail value written into
    /// register `r`.
    Always(Option<R>),
    /// ⟨?⟩(g, c_0 .. c_n-1): by the outcome of γ `g` (arm `k`), `c_k` applies.
    Switch(G, Vec<Cond<G, R>>),
    /// c_1 ⊕ c_2 ⊕ ..: switches on distinct γs, in order.
    Or(Vec<Cond<G, R>>),
}

impl<G: Copy + Ord, R: Copy + Ord> Cond<G, R> {
    /// Λ.
    pub fn always() -> Self {
        Cond::Always(None)
    }

    /// The condition of an edge into arm `arm` of γ `g` of `arms` arms (`cond(e)`,
    /// §3.3.2 and §3.4.2): demanded when `g` takes that arm, as its tail value in
    /// register `tail` if given.
    pub fn arm(g: G, arms: usize, arm: usize, tail: Option<R>) -> Self {
        assert!(arm < arms, "arm {arm} of {arms}");
        let conds = (0..arms)
            .map(|k| {
                if k == arm {
                    Cond::Always(tail)
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

    /// The γs tested at the top (those a ⊕ joins, or the one switch), in order.
    pub fn top_gammas(&self) -> Vec<G> {
        match self {
            Cond::Switch(g, _) => vec![*g],
            Cond::Or(terms) => terms.iter().flat_map(|t| t.top_gammas()).collect(),
            _ => Vec::new(),
        }
    }

    /// Union `c1 ∪ c2`: demanded where either is (OR), in normal form.
    pub fn union(&self, other: &Self) -> Self {
        match (self, other) {
            (Cond::Never, c) | (c, Cond::Never) => c.clone(),
            (Cond::Always(a), Cond::Always(b)) => Cond::Always(if a == b { *a } else { None }),
            (Cond::Always(_), _) | (_, Cond::Always(_)) => Cond::always(),
            _ => {
                let mut terms: BTreeMap<G, Self> = BTreeMap::new();
                let mut always: Option<Option<R>> = None;
                for t in self.terms().chain(other.terms()) {
                    add_term(&mut terms, &mut always, t.clone());
                }
                match always {
                    Some(tail) if terms.is_empty() => Cond::Always(tail),
                    Some(_) => Cond::always(),
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

    /// The switches a ⊕ joins, or the condition itself.
    fn terms(&self) -> impl Iterator<Item = &Self> {
        match self {
            Cond::Or(terms) => terms.iter(),
            other => std::slice::from_ref(other).iter(),
        }
    }

    /// Catenation `self · inner`: `inner` is the condition of a node relative to the
    /// node `self` is the condition of (whose result register is `reg`); the result is
    /// the condition of that node relative to what `self` is relative to (AND). A
    /// tail of `inner` writing `reg` writes, where `self` is a tail `Λ^rt`, `rt`.
    pub fn cat(&self, inner: &Self, reg: R) -> Self {
        match self {
            Cond::Never => Cond::Never,
            Cond::Always(None) => inner.clone(),
            Cond::Always(Some(rt)) => inner.retarget(reg, *rt),
            Cond::Switch(g, arms) => {
                Cond::switch(*g, arms.iter().map(|c| c.cat(inner, reg)).collect())
            }
            Cond::Or(terms) => terms
                .iter()
                .fold(Cond::Never, |acc, t| acc.union(&t.cat(inner, reg))),
        }
    }

    /// The condition with tails into `from` written into `to` instead (`c[to/from]`).
    fn retarget(&self, from: R, to: R) -> Self {
        match self {
            Cond::Always(Some(r)) if *r == from => Cond::Always(Some(to)),
            Cond::Never | Cond::Always(_) => self.clone(),
            Cond::Switch(g, arms) => {
                Cond::switch(*g, arms.iter().map(|c| c.retarget(from, to)).collect())
            }
            Cond::Or(terms) => terms
                .iter()
                .fold(Cond::Never, |acc, t| acc.union(&t.retarget(from, to))),
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

    /// Every tail register the condition names.
    pub fn tails(&self) -> Vec<R> {
        let mut out = Vec::new();
        self.collect_tails(&mut out);
        out.sort_unstable();
        out.dedup();
        out
    }

    fn collect_tails(&self, out: &mut Vec<R>) {
        match self {
            Cond::Always(Some(r)) => out.push(*r),
            Cond::Never | Cond::Always(None) => {}
            Cond::Switch(_, cs) | Cond::Or(cs) => cs.iter().for_each(|c| c.collect_tails(out)),
        }
    }

    /// The tails of `self` that `self ∪ other` loses (each needs a move where `self`
    /// has it, since the node is then computed into its own register).
    pub fn lost_tails(&self, other: &Self) -> Vec<R> {
        let kept = self.union(other).tails();
        self.tails()
            .into_iter()
            .filter(|r| kept.binary_search(r).is_err())
            .collect()
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
fn add_term<G: Copy + Ord, R: Copy + Ord>(
    terms: &mut BTreeMap<G, Cond<G, R>>,
    always: &mut Option<Option<R>>,
    term: Cond<G, R>,
) {
    match term {
        Cond::Never => {}
        Cond::Always(tail) => {
            *always = Some(match *always {
                Some(t) if t != tail => None,
                _ => tail,
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

impl<G: fmt::Display, R: fmt::Display> fmt::Display for Cond<G, R> {
    /// `∅`, `Λ`, `Λ^r1`, `⟨?⟩(g1, Λ, ∅)`, `⟨?⟩(g1, Λ, ∅) ⊕ ⟨?⟩(g2, ∅, Λ)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cond::Never => f.write_str("∅"),
            Cond::Always(None) => f.write_str("Λ"),
            Cond::Always(Some(r)) => write!(f, "Λ^{r}"),
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
