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

    /// Checks the shape against the flat graph: every edge leads to an existing node,
    /// groups lead to statements, predicates and groups, a predicate has one group
    /// per arm of its γ, statements compute simple nodes and θs, the graph is acyclic
    /// and everything is reachable from the root, and every flat node has exactly one
    /// statement or predicate.
    pub fn verify(&self, flat: &Flat) -> Result<(), String> {
        let n = self.nodes.len();
        let mut computed = vec![0usize; flat.nodes.len()];
        for (id, node) in self.nodes.iter().enumerate() {
            for &s in self.successors(id as PdgId) {
                if s as usize >= n {
                    return Err(format!("p{id} leads to p{s}, which does not exist"));
                }
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
                    computed[*f as usize] += 1;
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
                    computed[*gamma as usize] += 1;
                }
            }
        }
        if let Some(f) = computed.iter().position(|&c| c != 1) {
            return Err(format!("f{f} is computed by {} PDG nodes", computed[f]));
        }
        // acyclic and reachable: a depth-first search from the root
        let (mut state, mut stack) = (vec![0u8; n], vec![(self.root, 0usize)]);
        state[self.root as usize] = 1;
        while let Some((id, i)) = stack.pop() {
            match self.successors(id).get(i) {
                None => state[id as usize] = 2,
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
        if let Some(id) = state.iter().position(|&s| s == 0) {
            return Err(format!("p{id} is not reachable from the root"));
        }
        Ok(())
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
