//! The Predicate Partition Graph of a region (Gindraud, Brandner, Darte, §3–4; built
//! by `vliw_ssa::ppg`, Alg. 5 with its reverse pass): the region's blocks as a CFG from
//! `E` (START) to `X` (END), its edges split where critical, and the partitions of the
//! blocks' and edges' predicates. If-conversion asks it whether a ψ argument's guard
//! may be promoted (003 §3.1, condition 2: is the join's predicate covered by the
//! candidate and the guards to its right?).

use rustc_hash::FxHashMap as HashMap;

use vliw_ssa::ppg::{Construction, Ppg, PpgError, PpgForest, PredId, SplitCfg, StartEndEdge};
use vliw_ssa::{Block, Cfg};

use super::region::Region;
use crate::mir::{MBlock, MachFunction};
use crate::ssa_view::cfg_of;

/// A region's PPG, with the region's blocks numbered in their topological order and
/// `X` last.
pub struct RegionPpg {
    split: SplitCfg,
    ppg: Ppg,
    node: HashMap<MBlock, Block>,
    /// Each block's targets, in the order of the CFG's successor lists.
    targets: HashMap<MBlock, Vec<MBlock>>,
}

impl RegionPpg {
    /// The PPG of `region` (`None` if the graph library refuses it, which a region
    /// that qualified for if-conversion never gives).
    pub fn build(region: &Region) -> Option<RegionPpg> {
        let mut node: HashMap<MBlock, Block> = HashMap::default();
        for (i, &b) in region.blocks.iter().chain([&region.exit]).enumerate() {
            node.insert(b, Block::new(i));
        }
        let mut targets = HashMap::default();
        let mut succs: Vec<Vec<Block>> = Vec::new();
        for &b in &region.blocks {
            let t: Vec<MBlock> = region.exits[&b].targets().collect();
            succs.push(t.iter().map(|x| node[x]).collect());
            targets.insert(b, t);
        }
        succs.push(Vec::new());
        let cfg = Cfg::from_successors(Block::new(0), succs);
        let end = node[&region.exit];
        let split = SplitCfg::new(&cfg, end, StartEndEdge::Virtual).ok()?;
        let ppg = Ppg::from_cdg(&split);
        Some(RegionPpg {
            split,
            ppg,
            node,
            targets,
        })
    }

    /// The predicate of block `b`.
    pub fn block(&self, b: MBlock) -> Option<PredId> {
        self.ppg.predicate_of(*self.node.get(&b)?)
    }

    /// The predicate of the edge `from → to`.
    pub fn edge(&self, from: MBlock, to: MBlock) -> Option<PredId> {
        let i = self.targets.get(&from)?.iter().position(|&t| t == to)?;
        let n = self.split.node_of_edge(*self.node.get(&from)?, i)?;
        self.ppg.predicate_of(n)
    }

    /// Whether `p`'s domain is inside the union of `qs`' (sound: `false` when the
    /// graph cannot tell).
    pub fn covers(&self, p: PredId, qs: &[PredId]) -> bool {
        self.ppg.covers(p, qs)
    }

    /// The graph, for dumps.
    pub fn to_dot(&self) -> String {
        self.ppg.to_dot()
    }
}

/// The Predicate Partition Graphs of a whole function (machine SSA): its CFG with a
/// virtual END after every block that returns or traps, one PPG per level of its
/// loop-nesting forest (000 §4.2). `Err` when the CFG is irreducible or a block never
/// reaches an exit (an endless loop).
pub fn function_ppg(mf: &MachFunction) -> Result<PpgForest, PpgError> {
    let cfg = cfg_of(mf);
    let end = Block::new(cfg.num_blocks());
    let mut succs: Vec<Vec<Block>> = Vec::with_capacity(cfg.num_blocks() + 1);
    for i in 0..cfg.num_blocks() {
        let b = Block::new(i);
        let s = cfg.succs(b).to_vec();
        let in_layout = mf.layout.contains(&crate::ssa_view::mblock(b));
        succs.push(if s.is_empty() && in_layout && cfg.is_reachable(b) {
            vec![end]
        } else {
            s
        });
    }
    succs.push(Vec::new());
    let with_end = Cfg::from_successors(cfg.entry(), succs);
    PpgForest::build(&with_end, end, StartEndEdge::Virtual, Construction::Cdg)
}
