//! Alg 5 (§4.1.3): the PPG from the control dependence graph, merging equivalent
//! nodes as it goes, with exact completions instead of dummy predicates; and its
//! mirror on the reversed CFG, which makes implication exact.
//!
//! **The report's algorithm** ([`Construction::CdgReport`]):
//! - `get_predicate_of_cdg_node(u)`: nodes with the same `PDF_succ` have the same
//!   domain (Prop 7) and share a representative, kept in a map from the set of
//!   labels to a node: the single label when there is one, otherwise the first node
//!   with that set. Nodes are visited in reverse postorder, so that first node is the
//!   class's topmost member. Nodes without control dependence (START's class, when
//!   the START→END edge is virtual) share the empty set, hence START's predicate.
//! - Main loop (missing from the text; reconstructed as in the reading guide), for
//!   each CDG node `u`:
//!   - a branch: `make_partition(p_u, preds_of_edges(Out(u)))`, one part per
//!     distinct label (a successor of `u`);
//!   - a CDG merge (`|In(u)| > 1`): `make_partition(p_u, preds_of_edges(In(u)))`,
//!     the parts of Prop 6, then `complete(u, p_u, Idom(u))`.
//! - `complete(v, p_v, idom)`: the CDG nodes on paths `idom →* x →+ v` are
//!   `reached`; the labels on those paths are `visited`; the labels of all edges out
//!   of `reached` nodes are `reachable`; then `p_idom = p_v | (reachable \ visited)`.
//!
//! As in Alg 1's pitfall, the merge partition and the completion are made once per
//! class, for its topmost member: a lower member's immediate dominator may be in the
//! class itself (then `reached` is empty and the completion would read `p_v = p_v`),
//! and the other members would only repeat the same partitions. Every class gets a
//! partition above it: a label is a part of its branch's partition, a CDG merge's
//! class is completed, and a class with one label is that label's. The oracle
//! (`tests/ppg_oracle.rs`) finds every partition exact and no dummy on random
//! unstructured DAGs.
//!
//! **The fix: the mirror** ([`Construction::Cdg`], the default). §5.1 says that
//! `Domain(p) ⊆ Domain(q)` "is equivalent to" a path `q →* p`. With the report's
//! algorithm it is not: inclusion is dominance or post-dominance (Prop 3), and every
//! class is joined to its immediate dominator's (by a branch partition or a
//! completion), but not to its immediate post-dominator's. Example: START branches to
//! `d` and `w`; `d` to `x`, `y`, `z`; `x` and `y` join at `s`; `s` and `w` join at `u`;
//! `z` and `u` go to END. `u` post-dominates `s`, but the only partition above `p_s`
//! is `p_d = p_s | p_z` and `Domain(d) ⊄ Domain(u)`: no path `p_u →* p_s`. (The oracle
//! found such graphs among the first few random ones.) So the same algorithm also
//! runs on the reversed CFG (END as START, dominance and post-dominance swapped,
//! traces reversed, so every partition it finds is exact by the same argument), with
//! the predicates of the forward run. It adds the merge partitions (by predecessors),
//! the partitions of Prop 6's mirror (by the last nodes each node dominates), and a
//! completion of each class's bottom member into its immediate post-dominator. Then
//! every class is below its immediate dominator's and its immediate
//! post-dominator's, so along the chains of both trees a path `q →* p` exists
//! whenever `q` dominates or post-dominates `p`: implication is exact. Still no
//! dummy; at most twice the partitions.
//!
//! Complexity: each completion walks part of the CDG, O(V · E_CDG) in all.

use rustc_hash::FxHashMap as HashMap;

use crate::cfg::{Block, Cfg};
use crate::postdominators::PostDomTree;
use crate::ppg::cdg::Cdg;
use crate::ppg::classes::Classes;
use crate::ppg::partition_graph::{Construction, Ppg, PpgBuilder, PredId};
use crate::ppg::split::SplitCfg;

/// Alg 5 on `split`, with its dominator trees from `classes` and its CDG `cdg`;
/// with the mirror run unless `construction` is [`Construction::CdgReport`].
pub fn build(split: &SplitCfg, classes: &Classes, cdg: &Cdg, construction: Construction) -> Ppg {
    let construction = match construction {
        Construction::CdgReport => Construction::CdgReport,
        _ => Construction::Cdg,
    };
    let n = split.num_nodes();
    let rpo = classes.dom_tree().reverse_postorder();
    let mut ppg = PpgBuilder::new(construction, split);
    merge_equivalent_nodes(&mut ppg, rpo, cdg);
    let root = ppg.predicate_of(split.start());

    let mut walk = CdgWalk::new(n);
    let forward = Direction {
        order: rpo,
        idom: &|x| classes.dom_tree().idom(x),
        cdg,
        leader: |members| members.first().copied(),
    };
    add_partitions(&mut ppg, &forward, &mut walk);

    if construction == Construction::Cdg {
        let reversed = reverse(split);
        let reversed_cdg = Cdg::compute(&reversed, &PostDomTree::compute(&reversed));
        // Any topological order of the reversed graph will do: the leaders are
        // chosen by dominance, not by the order.
        let order: Vec<Block> = rpo.iter().rev().copied().collect();
        let backward = Direction {
            order: &order,
            idom: &|x| classes.post_dom_tree().ipdom(x),
            cdg: &reversed_cdg,
            leader: |members| members.last().copied(),
        };
        add_partitions(&mut ppg, &backward, &mut walk);
    }
    ppg.finish(root)
}

/// `get_predicate_of_cdg_node` for every node: one predicate per set of labels into
/// it, created in reverse postorder (START's first). A single label is its own
/// representative without a look-up (its node has that one label), so only the sets of
/// several labels, the CDG merges, go through the map.
fn merge_equivalent_nodes(ppg: &mut PpgBuilder, rpo: &[Block], cdg: &Cdg) {
    const NONE: u32 = u32::MAX;
    let mut representative_of_labels: HashMap<Vec<Block>, Block> = HashMap::default();
    let mut without_labels: Option<Block> = None;
    // The class (index into `members`) of each representative.
    let mut class_of = vec![NONE; cdg.num_nodes()];
    let mut members: Vec<Vec<Block>> = Vec::new();
    for &u in rpo {
        let r = match cdg.in_edges(u) {
            [] => *without_labels.get_or_insert(u),
            [(_, label)] => *label,
            _ => *representative_of_labels.entry(cdg.pdf_succ(u)).or_insert(u),
        };
        if class_of[r.index()] == NONE {
            class_of[r.index()] = members.len() as u32;
            members.push(Vec::new());
        }
        members[class_of[r.index()] as usize].push(u);
    }
    for m in members {
        ppg.class_predicate(m);
    }
}

/// The CFG seen forwards or backwards.
struct Direction<'a> {
    /// A reverse postorder of the graph: dominators first.
    order: &'a [Block],
    /// The immediate dominator in the graph.
    idom: &'a dyn Fn(Block) -> Option<Block>,
    cdg: &'a Cdg,
    /// The member of a class (given topmost first in the forward graph) that
    /// dominates the others in the graph.
    leader: fn(&[Block]) -> Option<Block>,
}

/// The main loop of Alg 5 in direction `dir`.
fn add_partitions(ppg: &mut PpgBuilder, dir: &Direction<'_>, walk: &mut CdgWalk) {
    for &u in dir.order {
        let pu = ppg.predicate_of(u);
        let out = dir.cdg.out_edges(u);
        if !out.is_empty() {
            let parts: Vec<PredId> = out.iter().map(|&(_, b)| ppg.predicate_of(b)).collect();
            ppg.make_partition(pu, parts);
        }
        let into = dir.cdg.in_edges(u);
        if into.len() < 2 || (dir.leader)(ppg.members_of(pu)) != Some(u) {
            continue;
        }
        let parts: Vec<PredId> = into.iter().map(|&(_, b)| ppg.predicate_of(b)).collect();
        ppg.make_partition(pu, parts);
        if let Some(idom) = (dir.idom)(u) {
            let rest = walk.complement(dir.cdg, u, idom);
            let parent = ppg.predicate_of(idom);
            let parts: Vec<PredId> = std::iter::once(pu)
                .chain(rest.iter().map(|&b| ppg.predicate_of(b)))
                .collect();
            ppg.make_partition(parent, parts);
        }
    }
}

/// The reversed split graph: entry END, an edge `w → v` per edge `v → w` between
/// nodes START reaches.
fn reverse(split: &SplitCfg) -> Cfg {
    let g = split.cfg();
    Cfg::from_successors(
        split.end(),
        g.blocks().map(|x| {
            if g.is_reachable(x) {
                g.preds(x).to_vec()
            } else {
                Vec::new()
            }
        }),
    )
}

/// The traversals of `complete()`, with marks reused from one call to the next.
struct CdgWalk {
    stamp: u32,
    /// `reaches[x] == stamp`: `x →+ v` in the CDG.
    reaches: Vec<u32>,
    /// `reached[x] == stamp`: `idom →* x →+ v`.
    reached: Vec<u32>,
    /// `visited[b] == stamp`: label `b` is on a path `idom →* v` (or already taken).
    visited: Vec<u32>,
}

impl CdgWalk {
    fn new(n: usize) -> Self {
        CdgWalk {
            stamp: 0,
            reaches: vec![0; n],
            reached: vec![0; n],
            visited: vec![0; n],
        }
    }

    /// The labels `predicatesReachable \ predicatesVisited` of `complete(v, _, idom)`,
    /// in the order found.
    fn complement(&mut self, cdg: &Cdg, v: Block, idom: Block) -> Vec<Block> {
        self.stamp += 1;
        let s = self.stamp;
        // x →+ v: backwards from v.
        let mut stack = vec![v];
        while let Some(y) = stack.pop() {
            for &(a, _) in cdg.in_edges(y) {
                if self.reaches[a.index()] != s {
                    self.reaches[a.index()] = s;
                    stack.push(a);
                }
            }
        }
        // idom →* x →+ v: forwards from idom, staying among the nodes that reach v
        // (every node of such a path reaches v).
        let mut reached = Vec::new();
        if self.reaches[idom.index()] == s {
            self.reached[idom.index()] = s;
            stack.push(idom);
        }
        while let Some(x) = stack.pop() {
            reached.push(x);
            for &(y, b) in cdg.out_edges(x) {
                if y == v || self.reaches[y.index()] == s {
                    self.visited[b.index()] = s;
                }
                if self.reaches[y.index()] == s && self.reached[y.index()] != s {
                    self.reached[y.index()] = s;
                    stack.push(y);
                }
            }
        }
        let mut rest = Vec::new();
        for x in reached {
            for &(_, b) in cdg.out_edges(x) {
                if self.visited[b.index()] != s {
                    // marked, so that a label out of several reached nodes counts once
                    self.visited[b.index()] = s;
                    rest.push(b);
                }
            }
        }
        rest
    }
}
