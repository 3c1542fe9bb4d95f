//! Alg 1 (§4.1.2, after Gillies et al.): the PPG from the split acyclic CFG.
//!
//! 1. One predicate per `~`-class (`get_predicate`, Prop 4), in class order.
//! 2. For each node `v`: a branch partitions `p_v` by its successors, a merge by its
//!    predecessors (Prop 5; exact because critical edges are split).
//! 3. Completion: each class without a partition above it gets
//!    `p_idom = p_class | p★`, with a fresh dummy `p★` (correct because `idom`
//!    dominates, Prop 2, but `p★` has no block: it carries inclusion only).
//!
//! **Pitfall (reading guide).** The printed loop of step 3 runs over nodes and takes
//! `Idom(v)`. A node equivalent to START (END, or a chain START→A→…) then asks for
//! `p_START = p_START | p★`, a cycle (Prop 8 fails); and a lower member of any class
//! has its immediate dominator in its own class. So the loop runs over classes, skips
//! START's, and uses the immediate dominator of the class's topmost member, which is
//! in another class.
//!
//! O(V + E) after the dominator trees.

use crate::cfg::Block;
use crate::ppg::classes::Classes;
use crate::ppg::partition_graph::{Construction, Ppg, PpgBuilder, PredId};
use crate::ppg::split::SplitCfg;

/// Alg 1 on `split`, whose classes are `classes`.
pub fn build(split: &SplitCfg, classes: &Classes) -> Ppg {
    let cfg = split.cfg();
    let mut ppg = PpgBuilder::new(Construction::Cfg, split);
    for c in classes.classes() {
        ppg.class_predicate(classes.members(c).to_vec());
    }
    let root = ppg.predicate_of(split.start());

    let pred = |ppg: &PpgBuilder, x: &Block| ppg.predicate_of(*x);
    for &v in classes.dom_tree().reverse_postorder() {
        let pv = ppg.predicate_of(v);
        if cfg.succs(v).len() > 1 {
            let parts: Vec<PredId> = cfg.succs(v).iter().map(|x| pred(&ppg, x)).collect();
            ppg.make_partition(pv, parts);
        }
        if cfg.preds(v).len() > 1 {
            let parts: Vec<PredId> = cfg.preds(v).iter().map(|x| pred(&ppg, x)).collect();
            ppg.make_partition(pv, parts);
        }
    }

    for c in classes.classes() {
        let p = ppg.predicate_of(classes.top(c));
        if p == root || ppg.has_parent(p) {
            continue;
        }
        let Some(up) = classes.dom_tree().idom(classes.top(c)) else {
            continue;
        };
        let star = ppg.dummy_predicate();
        let parent = ppg.predicate_of(up);
        ppg.make_partition(parent, [p, star]);
    }
    ppg.finish(root)
}
