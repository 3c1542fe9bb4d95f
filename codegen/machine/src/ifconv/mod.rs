//! If-conversion into Psi-SSA on machine SSA (before register allocation): acyclic
//! single-entry regions (hammocks, nested if-then-else chains, the bodies of inner
//! loops) become one block whose operations run under predicates, the joins' block
//! parameters becoming ψ operations (de Ferrière, "Improvements to the Psi-SSA
//! representation", SCOPES'07, §2–3; `docs/predication.md`).
//!
//! - `region`: the regions that can be converted (between a branching block and its
//!   immediate post-dominator);
//! - `cost`: whether one is faster predicated, from the machine description;
//! - `convert`: the conversion (block and edge predicates, `.unc` compares, guards and
//!   speculation, ψs).
//!
//! The pass works in rounds: each round computes the dominator and post-dominator
//! trees once and walks the blocks in reverse post-order, so that an enclosing region
//! is tried before the ones nested in it; regions converted in a round are disjoint
//! (a block changed in a round starts no region and joins none until the next).
//! Merging a region's exit block into it can make the merged block the start of a new
//! region (a chain of ifs), which the next round converts; rounds stop when nothing
//! changes or after [`MAX_ROUNDS`].

pub mod chains;
pub mod cost;
pub mod paths;
pub mod ppg;
pub mod region;

mod convert;
#[cfg(test)]
mod tests;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use vliw_isa::MachineConfig;
use vliw_ssa::{Block, Cfg, DomTree, LoopForest, LoopId, PostDomTree};

use crate::mir::{MBlock, MachFunction, Reg};
use crate::ssa_view::{cfg_of, mblock};
pub use convert::Promotion;
pub use cost::{Estimate, Limits};
pub use region::{Exit, NoRegion, Region, exit_of, find_region};

/// The most rounds of the pass (each linear in the function).
pub const MAX_ROUNDS: usize = 8;

/// What the pass did (the `stats` counters `ifconv.*`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IfConvertStats {
    /// Regions converted.
    pub regions: usize,
    /// Blocks removed (merged into their region's entry).
    pub blocks: usize,
    /// Regions the cost model or the limits turned down.
    pub rejected: usize,
    /// Predicates created (block, edge, combined guards).
    pub predicates: usize,
    /// Compares rewritten as `.unc` under their block's predicate.
    pub unc_compares: usize,
    /// `pand`/`pandn`/`por`/`porn` created.
    pub logic_ops: usize,
    /// ψ operations created.
    pub psis: usize,
    /// Operations run unguarded under a predicate (speculated).
    pub speculated: usize,
    /// Of those, loads made `lds` (`speculate-loads=on`).
    pub speculated_loads: usize,
    /// Operations given a guard.
    pub guarded: usize,
    /// Branches to cold blocks (panics) left in the middle of a converted block.
    pub side_exits: usize,
    /// Multi-way branches cut into chains of blocks that regions took apart
    /// (`chains`).
    pub chain_cuts: usize,
}

/// If-converts `mf` (machine SSA) for `machine`, within `limits`.
pub fn if_convert(
    mf: &mut MachFunction,
    machine: &MachineConfig,
    limits: &Limits,
) -> IfConvertStats {
    let mut stats = IfConvertStats::default();
    let cuts = {
        let cfg = cfg_of(mf);
        let preds = preds_of(mf, &cfg);
        chains::split(mf, &cold_blocks(mf, &cfg, &preds))
    };
    for _ in 0..MAX_ROUNDS {
        if !round(mf, machine, limits, &mut stats) {
            break;
        }
    }
    let joined = chains::merge_back(mf, &cuts);
    stats.chain_cuts += cuts.len() - joined;
    stats
}

/// Each block's predecessors in `cfg`; every block of the layout counts, reachable or
/// not (a block that stays must not branch to one merged away).
fn preds_of(mf: &MachFunction, cfg: &Cfg) -> HashMap<MBlock, Vec<MBlock>> {
    let mut preds: HashMap<MBlock, Vec<MBlock>> =
        mf.layout.iter().map(|&b| (b, Vec::new())).collect();
    for &b in &mf.layout {
        for t in cfg.succs(crate::ssa_view::block(b)) {
            preds.entry(mblock(*t)).or_default().push(b);
        }
    }
    preds
}

/// The blocks of the layout that the entry reaches and from which no `ret` can be
/// reached: every run through them ends in a trap (a panic) or never ends.
fn cold_blocks(
    mf: &MachFunction,
    cfg: &Cfg,
    preds: &HashMap<MBlock, Vec<MBlock>>,
) -> HashSet<MBlock> {
    let mut work: Vec<MBlock> = mf
        .layout
        .iter()
        .copied()
        .filter(|&b| mf.last_inst(b).is_some_and(|i| i.is(vliw_isa::Opcode::Ret)))
        .collect();
    let mut returns: HashSet<MBlock> = HashSet::default();
    while let Some(b) = work.pop() {
        if returns.insert(b) {
            work.extend(preds.get(&b).into_iter().flatten().copied());
        }
    }
    mf.layout
        .iter()
        .copied()
        .filter(|&b| cfg.is_reachable(crate::ssa_view::block(b)) && !returns.contains(&b))
        .collect()
}

/// The uses of every register (guards included).
fn use_counts(mf: &MachFunction) -> HashMap<Reg, u32> {
    let mut uses = HashMap::default();
    for inst in mf.layout_insts() {
        for r in inst.all_uses() {
            *uses.entry(r).or_default() += 1;
        }
    }
    uses
}

/// Whether `region` is the whole body of the innermost loop `l` headed by its entry:
/// the loop's blocks are the region's, its exit block (the latch, which tests whether
/// to go on) and blocks that only jump (the back edge's, the exit's). Converted, the
/// loop is one block.
fn whole_loop_body(mf: &MachFunction, loops: &LoopForest, l: LoopId, region: &Region) -> bool {
    let inside: HashSet<MBlock> = region.blocks.iter().copied().chain([region.exit]).collect();
    loops.body(l).iter().all(|&b| {
        let b = mblock(b);
        let ids = mf.block_inst_ids(b);
        inside.contains(&b)
            || (ids.len() == 1 && {
                let only = mf.inst(ids[0]);
                only.is(vliw_isa::Opcode::Br) && only.guard.is_always()
            })
    })
}

/// One round (module documentation); whether it converted anything.
fn round(
    mf: &mut MachFunction,
    machine: &MachineConfig,
    limits: &Limits,
    stats: &mut IfConvertStats,
) -> bool {
    let cfg = cfg_of(mf);
    let dom = DomTree::compute(&cfg);
    let preds = preds_of(mf, &cfg);
    // cold blocks (they never return: panics) are left by side exits, so the join of
    // a region is found as if the edges into them were not there
    let cold = cold_blocks(mf, &cfg, &preds);
    let warm = Cfg::from_successors(
        cfg.entry(),
        (0..cfg.num_blocks()).map(|i| {
            cfg.succs(Block::new(i))
                .iter()
                .copied()
                .filter(|t| !cold.contains(&mblock(*t)))
                .collect::<Vec<_>>()
        }),
    );
    let pdom = PostDomTree::compute(&warm);
    let loops = LoopForest::compute(&cfg);
    let uses = use_counts(mf);
    let copy_of = convert::copies(mf);
    let trace = std::env::var_os("VLIW_IFCONV_TRACE").is_some();
    let mut touched: HashSet<MBlock> = HashSet::default();
    // the blocks of the layout, kept as conversions merge blocks away (asking the
    // layout itself costs its length per region)
    let mut in_layout: HashSet<MBlock> = mf.layout.iter().copied().collect();
    let mut changed = false;
    let order: Vec<MBlock> = dom.reverse_postorder().iter().map(|&b| mblock(b)).collect();
    for e in order {
        if touched.contains(&e) {
            continue;
        }
        // the body of an innermost loop may have twice the blocks (checked below)
        let innermost = loops
            .loop_headed_by(crate::ssa_view::block(e))
            .filter(|&l| limits.loop_bodies && loops.children(l).is_empty());
        let max_blocks = limits.max_blocks * if innermost.is_some() { 2 } else { 1 };
        let region = match find_region(mf, e, &dom, &pdom, &preds, &cold, &in_layout, max_blocks) {
            Ok(r) => r,
            Err(why) => {
                if trace && why != NoRegion::NotABranch {
                    eprintln!("if-convert: {}: {e}: no region ({why:?})", mf.name);
                }
                continue;
            }
        };
        if region
            .blocks
            .iter()
            .chain([&region.exit])
            .any(|b| touched.contains(b))
        {
            continue;
        }
        let mut region = region;
        region.speculate_loads = limits.speculate_loads;
        region.loop_body = innermost.is_some_and(|l| whole_loop_body(mf, &loops, l, &region));
        if !region.loop_body && region.blocks.len() > limits.max_blocks {
            continue;
        }
        let estimate = cost::estimate(mf, &region, machine);
        let accepted = estimate.profitable(limits);
        if trace {
            eprintln!(
                "if-convert: {}: {e} .. {} ({} blocks): {} (branches {:.2}, predicated {:.2} \
                 cycles, pipelined {:?}; {} operations, {} predicates)",
                mf.name,
                region.exit,
                region.blocks.len(),
                if accepted { "converted" } else { "declined" },
                estimate.branchy,
                estimate.predicated,
                estimate.pipelined,
                estimate.ops,
                estimate.predicates
            );
        }
        if !accepted {
            stats.rejected += 1;
            continue;
        }
        let merged = convert::convert(
            mf,
            &region,
            &dom,
            &pdom,
            &preds,
            &uses,
            &copy_of,
            limits.promotion,
            limits.psi_tree,
            stats,
        );
        stats.regions += 1;
        stats.blocks += region.blocks.len() - 1 + usize::from(merged);
        for b in region.blocks[1..]
            .iter()
            .chain(merged.then_some(&region.exit))
        {
            in_layout.remove(b);
        }
        touched.extend(region.blocks.iter().copied());
        touched.insert(region.exit);
        changed = true;
    }
    changed
}
