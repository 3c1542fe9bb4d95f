//! The fast liveness check of thesis §3.3 (Alg 10–11) with the §3.4 edge redirection:
//! "is v live-in (live-out) at block q?" answered from data that depends only on the
//! CFG, so the answers stay right while instructions and variables are added or
//! removed, as long as the CFG does not change (§3.6).
//!
//! Precomputed: the dominator tree, the loop forest, and for every block `B` the set
//! `Reachable(B)` of blocks reachable from `B` in the reduced graph (redirected edges,
//! loop edges removed; reflexive). A query takes the definition block `D` of the
//! variable and its use sites, read from the code at query time:
//!
//! - **Dominance precondition** (missing from the printed Alg 10, checked first by
//!   libFirm): `v` can only be live-in at `q` if `D` strictly dominates `q`. Without it,
//!   a block above the definition that reaches a use *through* `D` would be reported.
//! - `v` is live-in at `q` iff a use block lies in `Reachable(t)`, where `t` is the
//!   header of the largest loop containing `q` but not `D` (Alg 11), or `q` itself.
//!   Because `D` strictly dominates `t` and the reduced graph's topological orders
//!   respect dominance (Thm 1), a reduced path from `t` never goes back through `D`.
//! - Live-out at `q ≠ D` is the same test when such a loop exists (inside it, live-out
//!   and live-in at the header coincide); otherwise no cycle through `q` avoids `D`, so
//!   a use in `q` itself counts only if it is a φ-use at the end of `q`, and other use
//!   blocks must be reduced-reachable from `q`. Live-out at `D` itself holds iff some
//!   use is not an ordinary use inside `D` (every other use is reached from `D`'s end
//!   without passing `D` again, by dominance).
//!
//! Complexity: precomputation O(V · E / 64) time and V² bits of memory (as in the
//! thesis); a query O(loop depth) to find the loop plus one bit test per use.

use crate::bitset::BitSet;
use crate::cfg::{Block, Cfg};
use crate::dfs::DfsOrder;
use crate::dominators::DomTree;
use crate::loops::LoopForest;
use crate::program::UseSite;
use crate::reduced::{reduced_postorder, reduced_succs};

/// The CFG-only data of the liveness check.
#[derive(Clone, Debug)]
pub struct LivenessChecker {
    dom: DomTree,
    loops: LoopForest,
    reachable: Vec<BitSet>,
}

impl LivenessChecker {
    /// Computes the dominator tree, the loop forest and the reachability sets.
    pub fn new(cfg: &Cfg) -> Self {
        let dfs = DfsOrder::compute(cfg);
        let dom = DomTree::from_dfs(cfg, &dfs);
        let loops = LoopForest::from_dfs(cfg, &dfs);
        LivenessChecker::from_analyses(cfg, dom, loops)
    }

    /// Reuses a dominator tree and a loop forest already computed for `cfg`.
    pub fn from_analyses(cfg: &Cfg, dom: DomTree, loops: LoopForest) -> Self {
        let n = cfg.num_blocks();
        let mut reachable = vec![BitSet::new(0); n];
        // Postorder: every reduced successor is finished before its predecessors.
        for b in reduced_postorder(cfg, &loops) {
            let mut r = BitSet::new(n);
            r.insert(b.index());
            for s in reduced_succs(cfg, &loops, b) {
                r.union_with(&reachable[s.index()]);
            }
            reachable[b.index()] = r;
        }
        LivenessChecker {
            dom,
            loops,
            reachable,
        }
    }

    pub fn dominators(&self) -> &DomTree {
        &self.dom
    }

    pub fn loops(&self) -> &LoopForest {
        &self.loops
    }

    /// Whether `to` is reachable from `from` in the reduced graph (reflexive).
    pub fn reduced_reachable(&self, from: Block, to: Block) -> bool {
        self.reachable[from.index()].contains(to.index())
    }

    /// Is a variable defined in block `def` and used at `uses` live at the entry of
    /// `block`? A φ-definition of `block` is not live-in at `block` (§3.1, Def 1). Uses
    /// in unreachable blocks are ignored.
    pub fn is_live_in(
        &self,
        def: Block,
        uses: impl IntoIterator<Item = UseSite>,
        block: Block,
    ) -> bool {
        if !self.dom.strictly_dominates(def, block) {
            return false;
        }
        let t = self.query_block(def, block);
        let reach = &self.reachable[t.index()];
        uses.into_iter().any(|u| reach.contains(u.block().index()))
    }

    /// Is a variable defined in block `def` and used at `uses` live at the end of
    /// `block` (after its last instruction, where its φ-uses sit)?
    pub fn is_live_out(
        &self,
        def: Block,
        uses: impl IntoIterator<Item = UseSite>,
        block: Block,
    ) -> bool {
        if def == block {
            if !self.dom.is_reachable(def) {
                return false;
            }
            return uses
                .into_iter()
                .any(|u| self.dom.is_reachable(u.block()) && u != UseSite::Instruction(def));
        }
        if !self.dom.strictly_dominates(def, block) {
            return false;
        }
        match self.loops.outermost_loop_excluding(block, def) {
            Some(m) => {
                let reach = &self.reachable[self.loops.header(m).index()];
                uses.into_iter().any(|u| reach.contains(u.block().index()))
            }
            None => {
                let reach = &self.reachable[block.index()];
                uses.into_iter().any(|u| match u {
                    UseSite::BlockEnd(b) if b == block => true,
                    _ => u.block() != block && reach.contains(u.block().index()),
                })
            }
        }
    }

    /// The block whose reduced reachability decides liveness at `block` (Alg 10 line
    /// 8): the header of the largest loop containing `block` but not `def`, or `block`.
    fn query_block(&self, def: Block, block: Block) -> Block {
        self.loops
            .outermost_loop_excluding(block, def)
            .map_or(block, |m| self.loops.header(m))
    }

    /// Bytes held by the reachability sets (the V² bits of the thesis's Fig 5.5).
    pub fn heap_bytes(&self) -> usize {
        self.reachable.iter().map(BitSet::heap_bytes).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liveness::tests::cfg;

    #[test]
    fn a_block_above_the_definition_is_not_live_even_if_it_reaches_a_use() {
        // 0 -> 1 -> 2: v defined in 1, used in 2. Block 0 reaches the use (through the
        // definition); the printed Alg 10 would answer "live-in at 0".
        let g = cfg(&[&[1], &[2], &[]]);
        let c = LivenessChecker::new(&g);
        let uses = [UseSite::Instruction(Block(2))];
        assert!(c.reduced_reachable(Block(0), Block(2)));
        assert!(!c.is_live_in(Block(1), uses, Block(0)));
        assert!(!c.is_live_out(Block(1), uses, Block(0)));
        assert!(!c.is_live_in(Block(1), uses, Block(1)));
        assert!(c.is_live_out(Block(1), uses, Block(1)));
        assert!(c.is_live_in(Block(1), uses, Block(2)));
        assert!(!c.is_live_out(Block(1), uses, Block(2)));
    }

    #[test]
    fn loops_phi_uses_and_uses_in_the_defining_block() {
        // 0 -> 1; 1 -> 2, 3; 2 -> 1 (loop {1, 2}); v defined in 0, used in 1.
        let g = cfg(&[&[1], &[2, 3], &[1], &[]]);
        let c = LivenessChecker::new(&g);
        let uses = [UseSite::Instruction(Block(1))];
        // Live around the loop, including its latch which does not reach the use in
        // the reduced graph: the query goes to the header.
        assert!(c.is_live_in(Block(0), uses, Block(2)));
        assert!(c.is_live_out(Block(0), uses, Block(2)));
        assert!(c.is_live_out(Block(0), uses, Block(1)));
        assert!(!c.is_live_in(Block(0), uses, Block(3)));
        // w defined in 1 and only passed on the back edge from 2: live out of 1 and 2,
        // not live-in at 1 (it is defined there).
        let w_uses = [UseSite::BlockEnd(Block(2))];
        assert!(c.is_live_out(Block(1), w_uses, Block(1)));
        assert!(c.is_live_in(Block(1), w_uses, Block(2)));
        assert!(c.is_live_out(Block(1), w_uses, Block(2)));
        assert!(!c.is_live_in(Block(1), w_uses, Block(1)));
        // An ordinary use in the defining block does not make it live-out, even in a
        // loop; a φ-use at its end does.
        assert!(!c.is_live_out(Block(1), [UseSite::Instruction(Block(1))], Block(1)));
        assert!(c.is_live_out(Block(1), [UseSite::BlockEnd(Block(1))], Block(1)));
    }
}
