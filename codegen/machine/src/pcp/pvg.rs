//! The predicated value graph of a hyperblock (004 §4.3).
//!
//! The nodes are the registers the hyperblock defines or reads, the edges the
//! operands and guards of the operations defining them; the block's order is a
//! topological order of the graph (machine SSA, straight-line code), which is why
//! the local pass visits every node once, in that order.
//!
//! A node's value is not one lattice element but a set of **components**, each a set
//! of paths with the element the register has on them ([`Valued`]). This is PSSA's
//! duplication (004 §3) without the duplicated code: a value computed the same way
//! on every path is an elementary node (one component); a ψ is a super node whose
//! components are its arguments, each on the paths where its guard is the rightmost
//! true one; an operation reading super nodes is evaluated on every pair of
//! *matching* components, those whose paths meet (rule 1 of §4.3.1, with the match
//! of footnote 7: indices are sets of paths, two match when they share one), which
//! is [`Valued::combine`]. A path on which a register has no component is one where
//! it is undefined (⊤). The element the paper writes `dfi[n]` is the meet of the
//! components ([`Valued::dfi`], rule 2).

use rustc_hash::FxHashMap as HashMap;

use super::lattice::Lat;
use super::paths::{PathSet, Paths, TooManyPaths};
use crate::mir::Reg;

/// A set of paths and the element a register has on them (never ⊤).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Component {
    pub paths: PathSet,
    pub value: Lat,
}

/// A node's value: components on disjoint sets of paths; ⊤ elsewhere.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Valued {
    components: Vec<Component>,
}

impl Valued {
    /// `value` on every path of `paths`.
    pub fn uniform(paths: &PathSet, value: Lat) -> Valued {
        let mut v = Valued::default();
        v.add(paths.clone(), value);
        v
    }

    pub fn components(&self) -> &[Component] {
        &self.components
    }

    /// Adds `value` on `paths`: where a component is there already, the meet of both
    /// (a path where either could be the value); components of equal elements merge.
    pub fn add(&mut self, mut paths: PathSet, value: Lat) {
        if value == Lat::Top || paths.is_empty() {
            return;
        }
        let mut added: Vec<Component> = Vec::new();
        for c in &mut self.components {
            if !c.paths.intersects(&paths) || c.value == value {
                continue;
            }
            let both = c.paths.intersection(&paths);
            c.paths.subtract(&both);
            paths.subtract(&both);
            added.push(Component {
                paths: both,
                value: c.value.meet(value),
            });
        }
        added.push(Component { paths, value });
        for a in added {
            self.merge(a);
        }
        self.components.retain(|c| !c.paths.is_empty());
    }

    /// Adds a component over paths no other component holds (or holding `value`).
    fn merge(&mut self, a: Component) {
        if a.paths.is_empty() {
            return;
        }
        match self.components.iter_mut().find(|c| c.value == a.value) {
            Some(c) => c.paths.union_with(&a.paths),
            None => self.components.push(a),
        }
    }

    /// The components on the paths of `to` only.
    pub fn restrict(&self, to: &PathSet) -> Valued {
        let mut v = Valued::default();
        for c in &self.components {
            v.merge(Component {
                paths: c.paths.intersection(to),
                value: c.value,
            });
        }
        v
    }

    /// The element on `path` (⊤ where the register is undefined).
    pub fn on(&self, path: usize) -> Lat {
        self.components
            .iter()
            .find(|c| c.paths.contains(path))
            .map_or(Lat::Top, |c| c.value)
    }

    /// The paths where the register has a value.
    pub fn defined_on(&self) -> PathSet {
        let mut s = PathSet::new();
        for c in &self.components {
            s.union_with(&c.paths);
        }
        s
    }

    /// The meet of the components (`dfi[n]`, 004 §4.3.1 rule 2).
    pub fn dfi(&self) -> Lat {
        self.components
            .iter()
            .fold(Lat::Top, |acc, c| acc.meet(c.value))
    }

    /// The paths of `within` where the element is `value` (⊤: no component there).
    pub fn paths_where(&self, within: &PathSet, value: Lat) -> PathSet {
        match value {
            Lat::Top => within.minus(&self.defined_on()),
            _ => self
                .components
                .iter()
                .filter(|c| c.value == value)
                .fold(PathSet::new(), |acc, c| {
                    acc.union(&c.paths.intersection(within))
                }),
        }
    }

    /// Path `to`, split off path `from`, has the value `from` has.
    pub fn fork(&mut self, from: usize, to: usize) {
        for c in &mut self.components {
            if c.paths.contains(from) {
                c.paths.insert(to);
            }
        }
    }

    /// The components over `within`, with the paths where there is none as one ⊤
    /// component: the operand as a total function over `within`.
    pub fn cells(&self, within: &PathSet) -> Vec<(PathSet, Lat)> {
        let mut parts: Vec<(PathSet, Lat)> = self
            .components
            .iter()
            .map(|c| (c.paths.intersection(within), c.value))
            .filter(|(p, _)| !p.is_empty())
            .collect();
        let undefined = within.minus(&self.defined_on());
        if !undefined.is_empty() {
            parts.push((undefined, Lat::Top));
        }
        parts
    }

    /// `f` of the operands on every tuple of matching components over the paths of
    /// `within` (004 §4.3.1 rule 1, the match of footnote 7: components match when
    /// their paths meet, and the result holds on the paths they share). `f` sees ⊤
    /// where an operand is undefined, so that operations that need not read every
    /// operand are evaluated as the machine runs them.
    pub fn combine(operands: &[&Valued], within: &PathSet, f: impl Fn(&[Lat]) -> Lat) -> Valued {
        let mut cells: Vec<(PathSet, Vec<Lat>)> = vec![(within.clone(), Vec::new())];
        for op in operands {
            let parts = op.cells(within);
            let mut next = Vec::with_capacity(cells.len());
            for (paths, lats) in &cells {
                for (p, l) in &parts {
                    let both = paths.intersection(p);
                    if !both.is_empty() {
                        let mut ls = lats.clone();
                        ls.push(*l);
                        next.push((both, ls));
                    }
                }
            }
            cells = next;
        }
        let mut out = Valued::default();
        for (paths, lats) in cells {
            let value = f(&lats);
            if value != Lat::Top {
                out.merge(Component { paths, value });
            }
        }
        out
    }
}

/// The graph being evaluated: each node's value, and the paths so far.
pub struct Pvg {
    values: HashMap<Reg, Valued>,
    paths: Paths,
}

impl Pvg {
    /// One path, at most `cap`.
    pub fn new(cap: usize) -> Pvg {
        Pvg {
            values: HashMap::default(),
            paths: Paths::new(cap),
        }
    }

    pub fn num_paths(&self) -> usize {
        self.paths.count()
    }

    pub fn has(&self, r: Reg) -> bool {
        self.values.contains_key(&r)
    }

    /// The value of node `r` (nothing: undefined everywhere).
    pub fn value(&self, r: Reg) -> Valued {
        self.values.get(&r).cloned().unwrap_or_default()
    }

    pub fn value_ref(&self, r: Reg) -> Option<&Valued> {
        self.values.get(&r)
    }

    pub fn set(&mut self, r: Reg, v: Valued) {
        self.values.insert(r, v);
    }

    /// Splits path `from`: the new path has every value `from` has; the caller then
    /// gives the two their different values of the condition that split them.
    pub fn fork(&mut self, from: usize) -> Result<usize, TooManyPaths> {
        let to = self.paths.fork()?;
        for v in self.values.values_mut() {
            v.fork(from, to);
        }
        Ok(to)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(ps: &[usize]) -> PathSet {
        ps.iter().copied().collect()
    }

    #[test]
    fn components_meet_where_they_overlap() {
        let mut v = Valued::uniform(&set(&[0, 1]), Lat::Const(3));
        v.add(set(&[1, 2]), Lat::Const(4));
        assert_eq!(v.on(0), Lat::Const(3));
        assert_eq!(v.on(1), Lat::Bottom);
        assert_eq!(v.on(2), Lat::Const(4));
        assert_eq!(v.on(3), Lat::Top);
        assert_eq!(v.dfi(), Lat::Bottom);
        assert_eq!(v.restrict(&set(&[0, 3])).dfi(), Lat::Const(3));
        v.fork(2, 5);
        assert_eq!(v.on(5), Lat::Const(4));
    }

    #[test]
    fn matching_components_combine_on_shared_paths() {
        // s = {p0: 7, p1: 8, p2: 11}, t = {p0: 10, p1: 9, p2: 6}: s + t = 17 on each
        let mut s = Valued::default();
        let mut t = Valued::default();
        for (p, (a, b)) in [(7, 10), (8, 9), (11, 6)].into_iter().enumerate() {
            s.add(set(&[p]), Lat::Const(a));
            t.add(set(&[p]), Lat::Const(b));
        }
        let all = set(&[0, 1, 2]);
        let z = Valued::combine(&[&s, &t], &all, |l| {
            super::super::lattice::strict(l, |w| w[0] + w[1])
        });
        assert_eq!(z.components().len(), 1);
        assert_eq!(z.dfi(), Lat::Const(17));
        // an operand undefined on a path leaves the result undefined there
        let part = s.restrict(&set(&[0]));
        let w = Valued::combine(&[&part, &t], &all, |l| {
            super::super::lattice::strict(l, |w| w[0] + w[1])
        });
        assert_eq!(w.defined_on(), set(&[0]));
    }
}
