//! Bundles: after bundling (`crate::sched` or one operation per bundle), the groups of
//! operations each block issues together, in order. They are part of the function
//! ([`MachFunction::bundles`](super::MachFunction::bundles)): the encoder and the
//! text form read them.

use cranelift_entity::SecondaryMap;

use super::{InstId, MBlock};

/// The bundles of each block of the layout: every operation of the block in exactly
/// one bundle, the bundles in block order (the concatenation of a block's bundles is
/// its order); an empty cycle is a bundle holding a `nop`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bundles {
    blocks: SecondaryMap<MBlock, Vec<Vec<InstId>>>,
}

impl Bundles {
    pub fn new() -> Bundles {
        Bundles::default()
    }

    /// The bundles of block `b` (none for a block that is not laid out).
    pub fn block(&self, b: MBlock) -> &[Vec<InstId>] {
        &self.blocks[b]
    }

    /// Sets the bundles of block `b`.
    pub fn set_block(&mut self, b: MBlock, bundles: Vec<Vec<InstId>>) {
        self.blocks[b] = bundles;
    }

    /// The number of operations of each bundle of block `b`.
    pub fn lens(&self, b: MBlock) -> Vec<usize> {
        self.blocks[b].iter().map(Vec::len).collect()
    }
}
