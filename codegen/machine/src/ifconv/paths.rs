//! The paths of a region, as sets: the domains of its predicates (000 Def. 13: the
//! domain of a block's predicate is the set of traces through it), exact for the
//! small regions if-conversion takes.
//!
//! Every path from `E` to `X` is numbered (at most [`MAX_PATHS`]); a block's and an
//! edge's domains are the sets of paths through them, as bit masks. Inclusion and
//! disjointness of domains are then mask operations; promotion (003 §3.1) asks them.

use rustc_hash::FxHashMap as HashMap;

use super::region::Region;
use crate::mir::MBlock;

/// Paths of a region beyond which its domains are not enumerated (promotion then does
/// not apply).
pub const MAX_PATHS: usize = 128;

/// A set of paths.
pub type Domain = u128;

/// The domains of a region's blocks and edges.
#[derive(Clone, Debug)]
pub struct Paths {
    /// Every path.
    pub all: Domain,
    pub block: HashMap<MBlock, Domain>,
    pub edge: HashMap<(MBlock, MBlock), Domain>,
}

impl Paths {
    /// The paths of `region`, or `None` when there are more than [`MAX_PATHS`].
    pub fn enumerate(region: &Region) -> Option<Paths> {
        let mut paths = Paths {
            all: 0,
            block: HashMap::default(),
            edge: HashMap::default(),
        };
        // depth-first over the acyclic region; each stack entry is a block and the
        // path's edges so far
        let mut stack: Vec<(MBlock, Vec<(MBlock, MBlock)>)> = vec![(region.entry(), Vec::new())];
        let mut count = 0usize;
        while let Some((b, edges)) = stack.pop() {
            if b == region.exit {
                if count == MAX_PATHS {
                    return None;
                }
                let bit: Domain = 1 << count;
                count += 1;
                paths.all |= bit;
                for &(from, to) in &edges {
                    *paths.edge.entry((from, to)).or_default() |= bit;
                    *paths.block.entry(from).or_default() |= bit;
                }
                *paths.block.entry(region.exit).or_default() |= bit;
                continue;
            }
            for t in region.exits[&b].targets() {
                let mut e = edges.clone();
                e.push((b, t));
                stack.push((t, e));
            }
        }
        Some(paths)
    }

    pub fn of_block(&self, b: MBlock) -> Domain {
        self.block.get(&b).copied().unwrap_or(0)
    }

    pub fn of_edge(&self, from: MBlock, to: MBlock) -> Domain {
        self.edge.get(&(from, to)).copied().unwrap_or(0)
    }
}
