//! A function in machine form: blocks, the arena of operations and their order,
//! virtual registers, frame slots, jump tables; once laid out, its frame; once
//! bundled, its bundles.

use cranelift_entity::PrimaryMap;
use vliw_ir::Linkage;
use vliw_isa::Opcode;

use super::{
    Bundles, FrameLayout, FrameSlot, Imm, InstId, JumpTable, MBlock, MInst, Reg, RegClass, VReg,
};

/// A block: parameters (SSA) and the order of its operations (ids into
/// [`MachFunction::insts`]).
#[derive(Clone, Debug, Default)]
pub struct MBlockData {
    pub params: Vec<VReg>,
    pub insts: Vec<InstId>,
}

/// What a frame slot holds.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FrameSlotKind {
    /// An IR stack slot.
    Ir(vliw_ir::StackSlot),
    /// The home of a virtual register (naive allocation).
    Spill(VReg),
    /// A temporary of instruction selection (e.g. an out-parameter).
    Temp,
}

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct FrameSlotData {
    pub size: u32,
    pub align: u32,
    pub kind: FrameSlotKind,
}

/// A function in machine form.
#[derive(Clone, Debug)]
pub struct MachFunction {
    pub name: String,
    pub linkage: Linkage,
    pub blocks: PrimaryMap<MBlock, MBlockData>,
    /// The arena of operations; each block's order (`MBlockData::insts`) says which
    /// are in the function and where. An operation in no block is not part of it.
    pub insts: PrimaryMap<InstId, MInst>,
    /// Block order; the first is the entry.
    pub layout: Vec<MBlock>,
    pub vregs: PrimaryMap<VReg, RegClass>,
    pub slots: PrimaryMap<FrameSlot, FrameSlotData>,
    pub jump_tables: PrimaryMap<JumpTable, Vec<MBlock>>,
    /// Words of the largest outgoing area any call needs (return area and stack
    /// arguments), at `sp` during calls.
    pub outgoing_words: u64,
    /// Source file names (`SourceLoc::file` indexes them).
    pub files: Vec<String>,
    /// The frame, once laid out (`frame::lower_frame`).
    pub frame: Option<FrameLayout>,
    /// The bundles, once bundled (`sched::schedule_function`,
    /// `emit::bundle_one_per_op`); `None` before.
    pub bundles: Option<Bundles>,
    /// The personality routine of the landing pads (`vliw_ir::Function::personality`;
    /// text `personality @sym` after the linkage).
    pub personality: Option<String>,
    /// The loops software pipelining rewrote (`sched::modulo`), so that what the
    /// bundler makes of their kernels can be reported; not part of the text form.
    pub pipelined: Vec<PipelinedLoop>,
}

/// A software-pipelined loop: its kernel's blocks (one, or one per copy with
/// modulo variable expansion, in the order a trip runs them) and the interval the
/// modulo schedule gave one trip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelinedLoop {
    pub kernel: Vec<MBlock>,
    pub ii: i64,
}

impl MachFunction {
    pub fn new(name: &str, linkage: Linkage) -> MachFunction {
        MachFunction {
            name: name.to_string(),
            linkage,
            blocks: PrimaryMap::new(),
            insts: PrimaryMap::new(),
            layout: Vec::new(),
            vregs: PrimaryMap::new(),
            slots: PrimaryMap::new(),
            jump_tables: PrimaryMap::new(),
            outgoing_words: 0,
            files: Vec::new(),
            frame: None,
            bundles: None,
            personality: None,
            pipelined: Vec::new(),
        }
    }

    pub fn new_vreg(&mut self, class: RegClass) -> VReg {
        self.vregs.push(class)
    }

    pub fn new_block(&mut self) -> MBlock {
        self.blocks.push(MBlockData::default())
    }

    pub fn new_slot(&mut self, size: u32, align: u32, kind: FrameSlotKind) -> FrameSlot {
        self.slots.push(FrameSlotData { size, align, kind })
    }

    // ---- operations and their order ----

    /// The operation `id`.
    pub fn inst(&self, id: InstId) -> &MInst {
        &self.insts[id]
    }

    pub fn inst_mut(&mut self, id: InstId) -> &mut MInst {
        &mut self.insts[id]
    }

    /// Adds `inst` to the arena without placing it in a block (for a pass that builds
    /// a new order and installs it with [`MachFunction::set_block_insts`]).
    pub fn make_inst(&mut self, inst: MInst) -> InstId {
        self.insts.push(inst)
    }

    /// Appends `inst` to block `b`.
    pub fn push_inst(&mut self, b: MBlock, inst: MInst) -> InstId {
        let id = self.insts.push(inst);
        self.blocks[b].insts.push(id);
        id
    }

    /// Inserts `inst` at position `index` of block `b`.
    pub fn insert_inst(&mut self, b: MBlock, index: usize, inst: MInst) -> InstId {
        let id = self.insts.push(inst);
        self.blocks[b].insts.insert(index, id);
        id
    }

    /// The landing blocks: targets of the unwind edges of calls (`MInst::unwind`).
    pub fn landing_blocks(&self) -> Vec<MBlock> {
        let mut pads: Vec<MBlock> = self
            .layout
            .iter()
            .flat_map(|&b| self.block_insts(b).filter_map(|i| i.unwind.map(|u| u.pad)))
            .collect();
        pads.sort_unstable();
        pads.dedup();
        pads
    }

    /// Whether a call of block `b` has an unwind edge: then nothing but the copies of
    /// its results and the final branch may follow it in the block.
    pub fn unwinds_from(&self, b: MBlock) -> bool {
        self.block_insts(b).any(|i| i.unwind.is_some())
    }

    /// The block at whose end (before its final branch) a pass may put new operations
    /// that run on the way from `b` to its successor: `b` itself, or, when `b` has a
    /// call with an unwind edge, a new block laid out after `b` that takes over `b`'s
    /// final branch (with its arguments), `b` then jumping to it. `b` must end in an
    /// unguarded `br` and have no other branch.
    pub fn end_of_normal_path(&mut self, b: MBlock) -> MBlock {
        if !self.unwinds_from(b) {
            return b;
        }
        let tail = self.new_block();
        let at = self
            .layout
            .iter()
            .position(|&x| x == b)
            .map_or(self.layout.len(), |i| i + 1);
        self.layout.insert(at, tail);
        let branch = self
            .pop_inst(b)
            .expect("a block with a call ends in a branch");
        self.blocks[tail].insts.push(branch);
        let mut jump = MInst::op(Opcode::Br, &[], &[], Imm::Block(tail));
        jump.loc = self.insts[branch].loc;
        self.push_inst(b, jump);
        tail
    }

    /// The operations of block `b`, in order.
    pub fn block_insts(
        &self,
        b: MBlock,
    ) -> impl DoubleEndedIterator<Item = &MInst> + ExactSizeIterator + Clone + '_ {
        self.blocks[b].insts.iter().map(|&id| &self.insts[id])
    }

    /// The ids of the operations of block `b`, in order.
    pub fn block_inst_ids(&self, b: MBlock) -> &[InstId] {
        &self.blocks[b].insts
    }

    /// The operations of block `b` with their ids, in order.
    pub fn block_insts_with_ids(
        &self,
        b: MBlock,
    ) -> impl DoubleEndedIterator<Item = (InstId, &MInst)> + ExactSizeIterator + Clone + '_ {
        self.blocks[b].insts.iter().map(|&id| (id, &self.insts[id]))
    }

    /// The number of operations of block `b`.
    pub fn block_len(&self, b: MBlock) -> usize {
        self.blocks[b].insts.len()
    }

    /// Operation `index` of block `b`.
    pub fn inst_at(&self, b: MBlock, index: usize) -> &MInst {
        &self.insts[self.blocks[b].insts[index]]
    }

    pub fn inst_at_mut(&mut self, b: MBlock, index: usize) -> &mut MInst {
        let id = self.blocks[b].insts[index];
        &mut self.insts[id]
    }

    /// The last operation of block `b`.
    pub fn last_inst(&self, b: MBlock) -> Option<&MInst> {
        self.blocks[b].insts.last().map(|&id| &self.insts[id])
    }

    pub fn last_inst_mut(&mut self, b: MBlock) -> Option<&mut MInst> {
        let id = *self.blocks[b].insts.last()?;
        Some(&mut self.insts[id])
    }

    /// Removes the last operation of block `b` from its order (it stays in the arena).
    pub fn pop_inst(&mut self, b: MBlock) -> Option<InstId> {
        self.blocks[b].insts.pop()
    }

    /// Empties block `b`'s order and returns it: a pass rebuilding the block keeps the
    /// ids it reuses and installs the new order with [`MachFunction::set_block_insts`].
    pub fn take_block_insts(&mut self, b: MBlock) -> Vec<InstId> {
        core::mem::take(&mut self.blocks[b].insts)
    }

    /// Replaces block `b`'s order.
    pub fn set_block_insts(&mut self, b: MBlock, order: Vec<InstId>) {
        self.blocks[b].insts = order;
    }

    /// Replaces block `b`'s operations by new ones (the old ones stay in the arena,
    /// out of the function).
    pub fn set_block(&mut self, b: MBlock, insts: impl IntoIterator<Item = MInst>) {
        self.blocks[b].insts.clear();
        self.extend_block(b, insts);
    }

    /// Appends new operations to block `b`.
    pub fn extend_block(&mut self, b: MBlock, insts: impl IntoIterator<Item = MInst>) {
        for inst in insts {
            self.push_inst(b, inst);
        }
    }

    /// Every operation of the layout, block by block.
    pub fn layout_insts(&self) -> impl Iterator<Item = &MInst> + '_ {
        self.layout.iter().flat_map(move |&b| self.block_insts(b))
    }

    /// How many times each register is read by the operations of the layout (guards,
    /// operands, block arguments, kept values, implicit uses).
    pub fn read_counts(&self) -> rustc_hash::FxHashMap<Reg, usize> {
        let mut reads = rustc_hash::FxHashMap::default();
        for inst in self.layout_insts() {
            for r in inst.all_uses() {
                *reads.entry(r).or_insert(0) += 1;
            }
        }
        reads
    }

    /// Keeps counts of `read_counts` current across a change of one operation: called
    /// with `added == false` before the change and `true` after it (or once with
    /// `true` for a new operation), so that a pass need not count the whole function
    /// again per block.
    pub fn update_read_counts(
        reads: &mut rustc_hash::FxHashMap<Reg, usize>,
        inst: &MInst,
        added: bool,
    ) {
        for r in inst.all_uses() {
            let n = reads.entry(r).or_insert(0);
            *n = if added { *n + 1 } else { n.saturating_sub(1) };
        }
    }

    /// The constants that unguarded `movi`s of the layout put in virtual registers.
    pub fn movi_constants(&self) -> rustc_hash::FxHashMap<Reg, i64> {
        let mut constants = rustc_hash::FxHashMap::default();
        for inst in self.layout_insts() {
            if inst.op == super::MOp::Op(Opcode::Movi)
                && inst.guard.is_always()
                && let (Some(&d @ Reg::Virtual(_)), super::Imm::Const(c)) =
                    (inst.defs.first(), &inst.imm)
            {
                constants.insert(d, *c);
            }
        }
        constants
    }

    /// The class of any register.
    pub fn class_of(&self, r: Reg) -> RegClass {
        match r {
            Reg::Virtual(v) => self.vregs[v],
            Reg::Physical(p) => p.class(),
        }
    }

    /// Whether any operation calls (`call`, `callr`).
    pub fn has_calls(&self) -> bool {
        self.blocks.values().any(|b| {
            b.insts
                .iter()
                .any(|&i| self.insts[i].is(Opcode::Call) || self.insts[i].is(Opcode::Callr))
        })
    }

    /// The number of operations.
    pub fn num_insts(&self) -> usize {
        self.layout.iter().map(|&b| self.block_len(b)).sum()
    }
}
