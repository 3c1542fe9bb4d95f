//! Dominance, post-dominance and the equivalence of Def 8 on a split CFG, each test
//! O(1) through the preorder intervals of the dominator and post-dominator trees
//! (§4.1.2), and the equivalence classes.
//!
//! `a ~ b` iff (`a` dominates `b` and `b` post-dominates `a`) or the reverse. On a
//! reachable acyclic CFG, `a ~ b` iff `a` and `b` lie on the same traces (Prop 4), so
//! one predicate serves a whole class.
//!
//! **Why a class is a segment of a dominator-tree path.** The members of a class are
//! pairwise related by dominance, and if `a` dominates `b`, `b` dominates `c` and
//! `a ~ c`, then `Domain(a) ⊇ Domain(b) ⊇ Domain(c) = Domain(a)` (Prop 2), so `b` is in
//! the class too. Hence `b` joins the class of its immediate dominator exactly when
//! `b ~ idom(b)`, i.e. when `b` post-dominates `idom(b)`: one walk of the dominator
//! tree in preorder finds every class, topmost member first.
//!
//! **Post-dominance and the virtual exit.** [`PostDomTree`] roots its tree at a
//! virtual exit joined to every reachable block without successors. On a split CFG
//! (every block reaches END, END has no successors) END is the only such block, so the
//! virtual exit has the single child END and post-dominance is the report's.

use std::fmt;

use crate::cfg::Block;
use crate::dominators::DomTree;
use crate::postdominators::PostDomTree;
use crate::ppg::split::SplitCfg;

/// An equivalence class of nodes of a split CFG, numbered in preorder of the
/// dominator tree of its topmost member (START's class is 0).
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClassId(pub u32);

impl ClassId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Debug for ClassId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "class{}", self.0)
    }
}

const NONE: u32 = u32::MAX;

/// The dominator and post-dominator trees of a split CFG and its `~`-classes.
#[derive(Clone, Debug)]
pub struct Classes {
    dom: DomTree,
    pdom: PostDomTree,
    class_of: Vec<u32>,
    /// Members of each class, topmost first (a chain of the dominator tree).
    members: Vec<Block>,
    class_start: Vec<u32>,
}

impl Classes {
    pub fn compute(split: &SplitCfg) -> Classes {
        let cfg = split.cfg();
        let dom = DomTree::compute(cfg);
        let pdom = PostDomTree::compute(cfg);
        let n = cfg.num_blocks();
        let mut class_of = vec![NONE; n];
        let mut num_classes = 0u32;
        for &b in dom.preorder() {
            class_of[b.index()] = match dom.idom(b) {
                Some(up) if pdom.post_dominates(b, up) => class_of[up.index()],
                _ => {
                    num_classes += 1;
                    num_classes - 1
                }
            };
        }
        // Members grouped by class (counting sort), each group in dominator preorder.
        let mut class_start = vec![0u32; num_classes as usize + 1];
        for &b in dom.preorder() {
            class_start[class_of[b.index()] as usize + 1] += 1;
        }
        for c in 0..num_classes as usize {
            class_start[c + 1] += class_start[c];
        }
        let mut fill = class_start.clone();
        let mut members = vec![Block(0); dom.preorder().len()];
        for &b in dom.preorder() {
            let c = class_of[b.index()] as usize;
            members[fill[c] as usize] = b;
            fill[c] += 1;
        }
        Classes {
            dom,
            pdom,
            class_of,
            members,
            class_start,
        }
    }

    pub fn dom_tree(&self) -> &DomTree {
        &self.dom
    }

    pub fn post_dom_tree(&self) -> &PostDomTree {
        &self.pdom
    }

    /// Whether `a` dominates `b` (reflexive). O(1).
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        self.dom.dominates(a, b)
    }

    /// Whether `a` post-dominates `b` (reflexive). O(1).
    pub fn post_dominates(&self, a: Block, b: Block) -> bool {
        self.pdom.post_dominates(a, b)
    }

    /// Def 8: `a ~ b`. O(1). `false` if either is unreachable.
    pub fn equivalent(&self, a: Block, b: Block) -> bool {
        (self.dominates(a, b) && self.post_dominates(b, a))
            || (self.dominates(b, a) && self.post_dominates(a, b))
    }

    /// Prop 3: whether every trace through `b` passes `a` (`a` dominates or
    /// post-dominates `b`). O(1).
    pub fn includes(&self, a: Block, b: Block) -> bool {
        self.dominates(a, b) || self.post_dominates(a, b)
    }

    pub fn num_classes(&self) -> usize {
        self.class_start.len() - 1
    }

    pub fn classes(&self) -> impl ExactSizeIterator<Item = ClassId> {
        (0..self.num_classes() as u32).map(ClassId)
    }

    /// The class of `b`; `None` if START does not reach `b`.
    pub fn class_of(&self, b: Block) -> Option<ClassId> {
        self.class_of
            .get(b.index())
            .copied()
            .filter(|&c| c != NONE)
            .map(ClassId)
    }

    /// The members of `c`, topmost (dominating the others) first.
    pub fn members(&self, c: ClassId) -> &[Block] {
        &self.members
            [self.class_start[c.index()] as usize..self.class_start[c.index() + 1] as usize]
    }

    /// The member of `c` that dominates the others. Its immediate dominator is in
    /// another class (the pitfall of Alg 1's completion: any other member's may be in
    /// `c` itself).
    pub fn top(&self, c: ClassId) -> Block {
        self.members(c)[0]
    }
}
