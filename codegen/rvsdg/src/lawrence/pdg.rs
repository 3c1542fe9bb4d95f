//! The program dependence graph that proceduralization builds (thesis §2.3, §3.3):
//! group nodes, whose children run when the group does; statement nodes, each
//! computing one flat node; and predicate nodes, each testing a γ's predicate and
//! running the group of the arm it takes. A node may have several parents (it runs
//! when any of them reaches it; duplication-freedom, §4.1, is what makes that one
//! static copy). The order of a group's children is not part of the graph: it is
//! what the data dependences allow, chosen when the PDG is sequentialized.

use std::fmt::{self, Write};

use super::flatten::{Flat, FlatId, FlatKind};

/// A node of the PDG (its index).
pub type PdgId = u32;

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum PdgNode {
    /// Runs its children.
    Group(Vec<PdgId>),
    /// Computes flat node `0` (a simple node or a θ).
    Statement(FlatId),
    /// Tests the predicate of γ `gamma` (a flat node) and runs the group of the arm
    /// it takes; after it, the γ's results are those of that arm.
    Predicate { gamma: FlatId, arms: Vec<PdgId> },
}

#[derive(Clone, Debug, Default)]
pub struct Pdg {
    pub nodes: Vec<PdgNode>,
    /// The group that runs the unit.
    pub root: PdgId,
}

impl Pdg {
    pub fn add(&mut self, node: PdgNode) -> PdgId {
        self.nodes.push(node);
        self.nodes.len() as PdgId - 1
    }

    pub fn node(&self, id: PdgId) -> &PdgNode {
        &self.nodes[id as usize]
    }

    /// The children of a group, the arm groups of a predicate.
    pub fn successors(&self, id: PdgId) -> &[PdgId] {
        match self.node(id) {
            PdgNode::Group(children) => children,
            PdgNode::Statement(_) => &[],
            PdgNode::Predicate { arms, .. } => arms,
        }
    }

    /// Each node's number of parents.
    pub fn parent_counts(&self) -> Vec<u32> {
        let mut counts = vec![0u32; self.nodes.len()];
        for id in 0..self.nodes.len() as PdgId {
            for &s in self.successors(id) {
                counts[s as usize] += 1;
            }
        }
        counts
    }

    /// Makes `child` a child of group `group` (once).
    pub fn add_child(&mut self, group: PdgId, child: PdgId) {
        match &mut self.nodes[group as usize] {
            PdgNode::Group(children) => {
                if !children.contains(&child) {
                    children.push(child);
                }
            }
            other => panic!("p{group} is not a group: {other:?}"),
        }
    }

    /// Each node's parents.
    pub fn parents(&self) -> Vec<Vec<PdgId>> {
        let mut parents = vec![Vec::new(); self.nodes.len()];
        for id in 0..self.nodes.len() as PdgId {
            for &s in self.successors(id) {
                parents[s as usize].push(id);
            }
        }
        parents
    }

    /// Checks the shape against the flat graph, over what the root reaches (γ-ordering
    /// leaves what it replaced behind, unreached): every edge leads to an existing
    /// node, a predicate has one group per arm of its γ, statements compute simple
    /// nodes and θs, the graph is acyclic, and every flat node has exactly one
    /// statement or at least one predicate (γ-ordering clones them, each on its own
    /// paths).
    pub fn verify(&self, flat: &Flat) -> Result<(), String> {
        let n = self.nodes.len();
        if self.root as usize >= n {
            return Err(format!("the root p{} does not exist", self.root));
        }
        // acyclic: a depth-first search from the root
        let (mut state, mut stack) = (vec![0u8; n], vec![(self.root, 0usize)]);
        state[self.root as usize] = 1;
        while let Some((id, i)) = stack.pop() {
            match self.successors(id).get(i) {
                None => state[id as usize] = 2,
                Some(&s) if s as usize >= n => {
                    return Err(format!("p{id} leads to p{s}, which does not exist"));
                }
                Some(&s) => {
                    stack.push((id, i + 1));
                    match state[s as usize] {
                        0 => {
                            state[s as usize] = 1;
                            stack.push((s, 0));
                        }
                        1 => return Err(format!("a cycle through p{s}")),
                        _ => {}
                    }
                }
            }
        }
        let mut statements = vec![0usize; flat.nodes.len()];
        let mut predicates = vec![0usize; flat.nodes.len()];
        for (id, node) in self.nodes.iter().enumerate() {
            if state[id] == 0 {
                continue;
            }
            match node {
                PdgNode::Group(_) => {}
                PdgNode::Statement(f) => {
                    let kind = flat.nodes.get(*f as usize).map(|x| x.kind);
                    if !matches!(kind, Some(FlatKind::Simple(_) | FlatKind::Theta(_))) {
                        return Err(format!(
                            "p{id} computes f{f}, which is not a simple node or θ"
                        ));
                    }
                    statements[*f as usize] += 1;
                }
                PdgNode::Predicate { gamma, arms } => {
                    let Some(FlatKind::Gamma { arms: want, .. }) =
                        flat.nodes.get(*gamma as usize).map(|x| x.kind)
                    else {
                        return Err(format!("p{id} tests f{gamma}, which is not a γ"));
                    };
                    if arms.len() != want as usize {
                        return Err(format!("p{id} has {} arms, its γ {want}", arms.len()));
                    }
                    if let Some(a) = arms
                        .iter()
                        .find(|&&a| !matches!(self.node(a), PdgNode::Group(_)))
                    {
                        return Err(format!("p{id}: arm p{a} is not a group"));
                    }
                    predicates[*gamma as usize] += 1;
                }
            }
        }
        for (f, node) in flat.nodes.iter().enumerate() {
            let ok = match node.kind {
                FlatKind::Gamma { .. } => statements[f] == 0 && predicates[f] >= 1,
                _ => statements[f] == 1 && predicates[f] == 0,
            };
            if !ok {
                return Err(format!(
                    "f{f} is computed by {} statements and {} predicates",
                    statements[f], predicates[f]
                ));
            }
        }
        Ok(())
    }
}

impl Pdg {
    /// Ferrante's sequentializability on one path (thesis §4.1), the verifier's
    /// dynamic half: runs the PDG, each group's children in their [`Pdg::sequence`]
    /// order, with γ `g` taking arm `outcome(g)`, and checks that every node's
    /// operands were computed before it on that path (every data dependence is met
    /// by the order of siblings, or by an ancestor's earlier sibling); the first
    /// violation. Tests run it under every outcome of small units.
    pub fn check_path(
        &self,
        flat: &Flat,
        outcome: &impl Fn(FlatId) -> usize,
    ) -> Result<(), String> {
        let mut done = vec![false; flat.nodes.len()];
        self.walk_path(flat, self.root, outcome, &mut done)
    }

    fn walk_path(
        &self,
        flat: &Flat,
        id: PdgId,
        outcome: &impl Fn(FlatId) -> usize,
        done: &mut Vec<bool>,
    ) -> Result<(), String> {
        let need = |done: &Vec<bool>, f: FlatId, ops: &[super::flatten::Operand]| {
            for o in ops {
                if let Some(p) = Flat::producer(o.source)
                    && !done[p as usize]
                {
                    return Err(format!("f{f} reads f{p}, not computed on this path"));
                }
            }
            Ok(())
        };
        match self.node(id) {
            PdgNode::Group(_) => {
                let parents = self.parent_counts();
                for c in self.sequence(flat, id, &|id| parents[id as usize])? {
                    self.walk_path(flat, c, outcome, done)?;
                }
            }
            PdgNode::Statement(f) => {
                need(done, *f, &flat.nodes[*f as usize].operands)?;
                done[*f as usize] = true;
            }
            PdgNode::Predicate { gamma, arms } => {
                let ops = &flat.nodes[*gamma as usize].operands;
                need(done, *gamma, &ops[..1])?;
                let k = outcome(*gamma);
                self.walk_path(flat, arms[k], outcome, done)?;
                let exits: Vec<_> = (ops.iter())
                    .filter(|o| matches!(o.role, super::flatten::Role::Exit { arm, .. } if arm as usize == k))
                    .copied()
                    .collect();
                need(done, *gamma, &exits)?;
                done[*gamma as usize] = true;
            }
        }
        Ok(())
    }

    /// Ferrante's sequentializability, the verifier's static half: every group
    /// reached from the root has an order of its children that its data dependences
    /// allow (no two children each need something of the other).
    pub fn verify_sequentializable(&self, flat: &Flat) -> Result<(), String> {
        let parents = self.parent_counts();
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = vec![self.root];
        while let Some(id) = stack.pop() {
            if std::mem::replace(&mut seen[id as usize], true) {
                continue;
            }
            if let PdgNode::Group(_) = self.node(id) {
                self.sequence(flat, id, &|c| parents[c as usize])
                    .map_err(|e| format!("p{id}: {e}"))?;
            }
            stack.extend(self.successors(id));
        }
        Ok(())
    }
}

impl Pdg {
    /// The PDG with every group that has one parent, itself a group, merged into that
    /// parent (the last step of Fig. 3.7), renumbered from the root; and where each
    /// node went (`None` for the merged groups and what the root does not reach).
    /// Merging lets the children of a node's PDG mix with their new siblings, which
    /// the order of a group needs: a node's own statement may have to run after a
    /// sibling that needs something else of its subtree.
    pub fn normalized(&self) -> (Pdg, Vec<Option<PdgId>>) {
        let parents = self.parents();
        let merged = |id: PdgId| {
            matches!(self.node(id), PdgNode::Group(_))
                && parents[id as usize].len() == 1
                && matches!(self.node(parents[id as usize][0]), PdgNode::Group(_))
        };
        let mut map: Vec<Option<PdgId>> = vec![None; self.nodes.len()];
        let mut out = Pdg::default();
        // first number every kept node reachable from the root, then fill them in
        let mut stack = vec![self.root];
        let mut kept = Vec::new();
        while let Some(id) = stack.pop() {
            if map[id as usize].is_some() {
                continue;
            }
            map[id as usize] = Some(kept.len() as PdgId);
            kept.push(id);
            for &c in self.successors(id).iter().rev() {
                for k in self.expand(c, &merged) {
                    if map[k as usize].is_none() {
                        stack.push(k);
                    }
                }
            }
        }
        for &id in &kept {
            let new = |x: PdgId| map[x as usize].expect("numbered");
            out.nodes.push(match self.node(id) {
                PdgNode::Group(children) => {
                    let mut list: Vec<PdgId> = Vec::new();
                    let mut seen = rustc_hash::FxHashSet::default();
                    for &c in children {
                        for k in self.expand(c, &merged) {
                            if seen.insert(new(k)) {
                                list.push(new(k));
                            }
                        }
                    }
                    PdgNode::Group(list)
                }
                PdgNode::Statement(f) => PdgNode::Statement(*f),
                PdgNode::Predicate { gamma, arms } => PdgNode::Predicate {
                    gamma: *gamma,
                    arms: arms.iter().map(|&a| new(a)).collect(),
                },
            });
        }
        out.root = 0;
        (out, map)
    }

    /// `id`, or what a merged group `id` stands for: its children, expanded.
    fn expand(&self, id: PdgId, merged: &impl Fn(PdgId) -> bool) -> Vec<PdgId> {
        if !merged(id) {
            return vec![id];
        }
        (self.successors(id).iter())
            .flat_map(|&c| self.expand(c, merged))
            .collect()
    }

    /// The flat nodes a PDG node computes, its own and those below it.
    pub fn contents(&self, id: PdgId) -> Vec<FlatId> {
        let mut out = Vec::new();
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = vec![id];
        while let Some(x) = stack.pop() {
            if !seen.insert(x) {
                continue;
            }
            match self.node(x) {
                PdgNode::Statement(f) => out.push(*f),
                PdgNode::Predicate { gamma, .. } => out.push(*gamma),
                PdgNode::Group(_) => {}
            }
            stack.extend(self.successors(x));
        }
        out
    }

    /// The children of group `group` in an order their data dependences allow (a
    /// child that computes what another child's subtree reads comes first), each as
    /// late as its readers allow (chosen from the end: a value is computed just
    /// before what reads it, so that few values cross the joins of the predicates in
    /// between), the ones with more parents later (`parents`, each child's number of
    /// parents, or 1 where it is copied for this group: Ferrante's condition for
    /// duplication-freedom, thesis §4.1, wants the children's parent sets to grow
    /// along the order, so a shared child goes last where it can), ties in the order
    /// of the flat nodes they compute (the unit's own order).
    /// An error names a cycle: children that each need something of the other (the
    /// PDG is not sequentializable as it is).
    pub fn sequence(
        &self,
        flat: &Flat,
        group: PdgId,
        parents: &dyn Fn(PdgId) -> u32,
    ) -> Result<Vec<PdgId>, String> {
        let children = self.successors(group);
        let contents: Vec<Vec<FlatId>> = children.iter().map(|&c| self.contents(c)).collect();
        let mut home: rustc_hash::FxHashMap<FlatId, usize> = rustc_hash::FxHashMap::default();
        for (i, list) in contents.iter().enumerate() {
            for &f in list {
                home.insert(f, i);
            }
        }
        let k = children.len();
        // before[j]: the children that compute what child j reads
        let mut before: Vec<Vec<usize>> = vec![Vec::new(); k];
        let mut later = vec![0usize; k];
        for (j, list) in contents.iter().enumerate() {
            for &x in list {
                for o in &flat.nodes[x as usize].operands {
                    if let Some(&i) = Flat::producer(o.source).and_then(|w| home.get(&w))
                        && i != j
                        && !before[j].contains(&i)
                    {
                        before[j].push(i);
                        later[i] += 1;
                    }
                }
            }
        }
        // from the last child back: each child as late as its readers allow, so that
        // what a predicate tests is computed just before it and little crosses a join;
        // but a division that τ reads early (`Flat::early`) as early as its operands
        // allow, taken last going back, so that its latency overlaps what follows
        let key = |i: usize| {
            let last = contents[i].iter().copied().max().unwrap_or(0);
            let early = matches!(contents[i][..], [x] if flat.early.binary_search(&x).is_ok());
            (!early, parents(children[i]), last)
        };
        let mut ready: std::collections::BinaryHeap<((bool, u32, FlatId), usize)> = (0..k)
            .filter(|&i| later[i] == 0)
            .map(|i| (key(i), i))
            .collect();
        let mut order = Vec::with_capacity(k);
        while let Some((_, j)) = ready.pop() {
            order.push(children[j]);
            for &i in &before[j] {
                later[i] -= 1;
                if later[i] == 0 {
                    ready.push((key(i), i));
                }
            }
        }
        if order.len() < k {
            let stuck: Vec<String> = (0..k)
                .filter(|&i| later[i] > 0)
                .map(|i| format!("p{}", children[i]))
                .collect();
            return Err(format!(
                "p{group}: its children {} need each other",
                stuck.join(", ")
            ));
        }
        order.reverse();
        Ok(order)
    }
}

impl fmt::Display for Pdg {
    /// `root p0`, then one line per node: `p3 = group [p4, p5]`, `p4 = f2`,
    /// `p5 = test f6 [p7, p8]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "root p{}", self.root)?;
        let list = |ids: &[PdgId]| {
            let mut s = String::new();
            for (i, id) in ids.iter().enumerate() {
                let _ = write!(s, "{}p{id}", if i > 0 { ", " } else { "" });
            }
            s
        };
        for (id, node) in self.nodes.iter().enumerate() {
            match node {
                PdgNode::Group(children) => writeln!(f, "p{id} = group [{}]", list(children))?,
                PdgNode::Statement(x) => writeln!(f, "p{id} = f{x}")?,
                PdgNode::Predicate { gamma, arms } => {
                    writeln!(f, "p{id} = test f{gamma} [{}]", list(arms))?
                }
            }
        }
        Ok(())
    }
}
