//! The order of blocks in a function and of instructions in each block: doubly linked
//! lists, so inserting and removing are O(1).

use crate::entities::{Block, Inst};
use cranelift_entity::SecondaryMap;
use cranelift_entity::packed_option::PackedOption;

#[derive(Clone, Debug, Default)]
struct BlockNode {
    inserted: bool,
    prev: PackedOption<Block>,
    next: PackedOption<Block>,
    first_inst: PackedOption<Inst>,
    last_inst: PackedOption<Inst>,
}

#[derive(Clone, Debug, Default)]
struct InstNode {
    block: PackedOption<Block>,
    prev: PackedOption<Inst>,
    next: PackedOption<Inst>,
}

/// Block order and instruction order. The first block is the entry block. A block or
/// instruction not in the layout is not part of the function (it may still exist in the
/// `DataFlowGraph`).
#[derive(Clone, Debug, Default)]
pub struct Layout {
    blocks: SecondaryMap<Block, BlockNode>,
    insts: SecondaryMap<Inst, InstNode>,
    first_block: PackedOption<Block>,
    last_block: PackedOption<Block>,
}

impl Layout {
    pub fn new() -> Self {
        Self::default()
    }

    // ---- blocks ----

    /// The entry block (the first one).
    pub fn entry_block(&self) -> Option<Block> {
        self.first_block.expand()
    }

    pub fn last_block(&self) -> Option<Block> {
        self.last_block.expand()
    }

    pub fn is_block_inserted(&self, block: Block) -> bool {
        self.blocks[block].inserted
    }

    /// Append a block at the end of the function.
    pub fn append_block(&mut self, block: Block) {
        assert!(
            !self.is_block_inserted(block),
            "{block} is already in the layout"
        );
        let last = self.last_block;
        {
            let n = &mut self.blocks[block];
            n.inserted = true;
            n.prev = last;
            n.next = None.into();
        }
        match last.expand() {
            Some(l) => self.blocks[l].next = block.into(),
            None => self.first_block = block.into(),
        }
        self.last_block = block.into();
    }

    /// Insert `block` just before `before`.
    pub fn insert_block_before(&mut self, block: Block, before: Block) {
        assert!(
            !self.is_block_inserted(block),
            "{block} is already in the layout"
        );
        assert!(
            self.is_block_inserted(before),
            "{before} is not in the layout"
        );
        let prev = self.blocks[before].prev;
        {
            let n = &mut self.blocks[block];
            n.inserted = true;
            n.prev = prev;
            n.next = before.into();
        }
        self.blocks[before].prev = block.into();
        match prev.expand() {
            Some(p) => self.blocks[p].next = block.into(),
            None => self.first_block = block.into(),
        }
    }

    /// Insert `block` just after `after`.
    pub fn insert_block_after(&mut self, block: Block, after: Block) {
        assert!(
            !self.is_block_inserted(block),
            "{block} is already in the layout"
        );
        assert!(
            self.is_block_inserted(after),
            "{after} is not in the layout"
        );
        let next = self.blocks[after].next;
        {
            let n = &mut self.blocks[block];
            n.inserted = true;
            n.prev = after.into();
            n.next = next;
        }
        self.blocks[after].next = block.into();
        match next.expand() {
            Some(n) => self.blocks[n].prev = block.into(),
            None => self.last_block = block.into(),
        }
    }

    /// Move `block`, with its instructions, to the end of the function.
    pub fn move_block_to_end(&mut self, block: Block) {
        assert!(
            self.is_block_inserted(block),
            "{block} is not in the layout"
        );
        self.unlink_block(block);
        self.blocks[block].inserted = false;
        self.append_block(block);
    }

    /// Takes `block` out of the list of blocks (its instructions stay with it).
    fn unlink_block(&mut self, block: Block) {
        let BlockNode { prev, next, .. } = self.blocks[block].clone();
        match prev.expand() {
            Some(p) => self.blocks[p].next = next,
            None => self.first_block = next,
        }
        match next.expand() {
            Some(n) => self.blocks[n].prev = prev,
            None => self.last_block = prev,
        }
    }

    /// Remove a block from the layout, with all its instructions.
    pub fn remove_block(&mut self, block: Block) {
        assert!(
            self.is_block_inserted(block),
            "{block} is not in the layout"
        );
        while let Some(inst) = self.first_inst(block) {
            self.remove_inst(inst);
        }
        self.unlink_block(block);
        self.blocks[block] = BlockNode::default();
    }

    pub fn next_block(&self, block: Block) -> Option<Block> {
        self.blocks[block].next.expand()
    }

    pub fn prev_block(&self, block: Block) -> Option<Block> {
        self.blocks[block].prev.expand()
    }

    /// The blocks in layout order.
    pub fn blocks(&self) -> Blocks<'_> {
        Blocks {
            layout: self,
            next: self.first_block.expand(),
        }
    }

    // ---- instructions ----

    pub fn first_inst(&self, block: Block) -> Option<Inst> {
        self.blocks[block].first_inst.expand()
    }

    pub fn last_inst(&self, block: Block) -> Option<Inst> {
        self.blocks[block].last_inst.expand()
    }

    pub fn next_inst(&self, inst: Inst) -> Option<Inst> {
        self.insts[inst].next.expand()
    }

    pub fn prev_inst(&self, inst: Inst) -> Option<Inst> {
        self.insts[inst].prev.expand()
    }

    /// The block holding `inst`, or `None` if it is not in the layout.
    pub fn inst_block(&self, inst: Inst) -> Option<Block> {
        self.insts[inst].block.expand()
    }

    pub fn is_inst_inserted(&self, inst: Inst) -> bool {
        self.inst_block(inst).is_some()
    }

    /// Append `inst` at the end of `block`.
    pub fn append_inst(&mut self, inst: Inst, block: Block) {
        assert!(
            !self.is_inst_inserted(inst),
            "{inst} is already in the layout"
        );
        assert!(
            self.is_block_inserted(block),
            "{block} is not in the layout"
        );
        let last = self.blocks[block].last_inst;
        self.insts[inst] = InstNode {
            block: block.into(),
            prev: last,
            next: None.into(),
        };
        match last.expand() {
            Some(l) => self.insts[l].next = inst.into(),
            None => self.blocks[block].first_inst = inst.into(),
        }
        self.blocks[block].last_inst = inst.into();
    }

    /// Insert `inst` just before `before`.
    pub fn insert_inst_before(&mut self, inst: Inst, before: Inst) {
        assert!(
            !self.is_inst_inserted(inst),
            "{inst} is already in the layout"
        );
        let block = self
            .inst_block(before)
            .expect("insert before an instruction not in the layout");
        let prev = self.insts[before].prev;
        self.insts[inst] = InstNode {
            block: block.into(),
            prev,
            next: before.into(),
        };
        self.insts[before].prev = inst.into();
        match prev.expand() {
            Some(p) => self.insts[p].next = inst.into(),
            None => self.blocks[block].first_inst = inst.into(),
        }
    }

    /// Insert `inst` just after `after`.
    pub fn insert_inst_after(&mut self, inst: Inst, after: Inst) {
        assert!(
            !self.is_inst_inserted(inst),
            "{inst} is already in the layout"
        );
        let block = self
            .inst_block(after)
            .expect("insert after an instruction not in the layout");
        let next = self.insts[after].next;
        self.insts[inst] = InstNode {
            block: block.into(),
            prev: after.into(),
            next,
        };
        self.insts[after].next = inst.into();
        match next.expand() {
            Some(n) => self.insts[n].prev = inst.into(),
            None => self.blocks[block].last_inst = inst.into(),
        }
    }

    /// Remove `inst` from the layout (it stays in the `DataFlowGraph`).
    pub fn remove_inst(&mut self, inst: Inst) {
        let block = self
            .inst_block(inst)
            .expect("remove an instruction not in the layout");
        let InstNode { prev, next, .. } = self.insts[inst].clone();
        match prev.expand() {
            Some(p) => self.insts[p].next = next,
            None => self.blocks[block].first_inst = next,
        }
        match next.expand() {
            Some(n) => self.insts[n].prev = prev,
            None => self.blocks[block].last_inst = prev,
        }
        self.insts[inst] = InstNode::default();
    }

    /// Move `inst` and every instruction after it in its block to the end of
    /// `new_block`, which must be in the layout (usually inserted just after).
    pub fn split_block(&mut self, new_block: Block, inst: Inst) {
        let mut cur = Some(inst);
        let mut moved = Vec::new();
        while let Some(i) = cur {
            cur = self.next_inst(i);
            moved.push(i);
        }
        for i in moved {
            self.remove_inst(i);
            self.append_inst(i, new_block);
        }
    }

    /// The instructions of `block` in order.
    pub fn block_insts(&self, block: Block) -> Insts<'_> {
        Insts {
            layout: self,
            next: self.blocks[block].first_inst.expand(),
        }
    }
}

/// Iterator over the blocks of a layout.
pub struct Blocks<'a> {
    layout: &'a Layout,
    next: Option<Block>,
}

impl Iterator for Blocks<'_> {
    type Item = Block;
    fn next(&mut self) -> Option<Block> {
        let b = self.next?;
        self.next = self.layout.next_block(b);
        Some(b)
    }
}

/// Iterator over the instructions of a block.
pub struct Insts<'a> {
    layout: &'a Layout,
    next: Option<Inst>,
}

impl Iterator for Insts<'_> {
    type Item = Inst;
    fn next(&mut self) -> Option<Inst> {
        let i = self.next?;
        self.next = self.layout.next_inst(i);
        Some(i)
    }
}
