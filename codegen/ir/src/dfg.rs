//! The data-flow graph: instructions, values, blocks and their parameters.

use crate::entities::{Block, Inst, Value};
use crate::instructions::{BlockCall, InstructionData, Opcode};
use crate::types::Type;
use core::ops::{Index, IndexMut};
use cranelift_entity::{PrimaryMap, SecondaryMap};

/// Where a value comes from.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ValueDef {
    /// Result number `n` of an instruction.
    Result(Inst, usize),
    /// Parameter number `n` of a block.
    Param(Block, usize),
    /// Not attached to anything (created with `make_value`, or detached from its
    /// instruction or block). Using it is a verifier error.
    Detached,
}

impl ValueDef {
    pub fn inst(self) -> Option<Inst> {
        match self {
            ValueDef::Result(i, _) => Some(i),
            _ => None,
        }
    }

    pub fn block(self) -> Option<Block> {
        match self {
            ValueDef::Param(b, _) => Some(b),
            _ => None,
        }
    }
}

/// A value's type and definition.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct ValueData {
    pub ty: Type,
    pub def: ValueDef,
}

/// A block's parameters (its layout position is in `Layout`).
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct BlockData {
    pub params: Vec<Value>,
}

/// Instructions, values and blocks of one function, independent of their order (which is
/// the `Layout`'s). Entities are never freed: a removed instruction or value stays in its
/// arena, unused.
#[derive(Clone, Debug, Default)]
pub struct DataFlowGraph {
    insts: PrimaryMap<Inst, InstructionData>,
    results: SecondaryMap<Inst, Vec<Value>>,
    values: PrimaryMap<Value, ValueData>,
    blocks: PrimaryMap<Block, BlockData>,
}

impl DataFlowGraph {
    pub fn new() -> Self {
        Self::default()
    }

    // ---- instructions ----

    /// Create an instruction with no results (`make_inst_results` adds them). It is not
    /// in the layout yet.
    pub fn make_inst(&mut self, data: InstructionData) -> Inst {
        self.insts.push(data)
    }

    /// Number of instructions ever created.
    pub fn num_insts(&self) -> usize {
        self.insts.len()
    }

    /// Every instruction ever created, in or out of the layout.
    pub fn insts(&self) -> impl Iterator<Item = Inst> + use<> {
        self.insts.keys()
    }

    pub fn inst_is_valid(&self, inst: Inst) -> bool {
        self.insts.is_valid(inst)
    }

    pub fn inst_data(&self, inst: Inst) -> &InstructionData {
        &self.insts[inst]
    }

    pub fn inst_data_mut(&mut self, inst: Inst) -> &mut InstructionData {
        &mut self.insts[inst]
    }

    pub fn opcode(&self, inst: Inst) -> Opcode {
        self.insts[inst].opcode()
    }

    /// The value operands (not branch arguments).
    pub fn inst_args(&self, inst: Inst) -> &[Value] {
        self.insts[inst].arguments()
    }

    pub fn inst_args_mut(&mut self, inst: Inst) -> &mut [Value] {
        self.insts[inst].arguments_mut()
    }

    /// Branch targets with their arguments (empty unless `jump`/`brif`/`switch`).
    pub fn branch_destinations(&self, inst: Inst) -> &[BlockCall] {
        self.insts[inst].branch_destinations()
    }

    /// Every value an instruction reads, branch arguments included.
    pub fn inst_values(&self, inst: Inst) -> impl Iterator<Item = Value> + '_ {
        self.insts[inst].all_values()
    }

    /// Append a result of type `ty` to an instruction.
    pub fn append_result(&mut self, inst: Inst, ty: Type) -> Value {
        let n = self.results[inst].len();
        let v = self.values.push(ValueData {
            ty,
            def: ValueDef::Result(inst, n),
        });
        self.results[inst].push(v);
        v
    }

    /// Append results with the given types.
    pub fn make_inst_results(&mut self, inst: Inst, types: &[Type]) {
        for &ty in types {
            self.append_result(inst, ty);
        }
    }

    /// Make a detached value the next result of `inst` (keeps its type).
    pub fn attach_result(&mut self, inst: Inst, v: Value) {
        debug_assert_eq!(self.values[v].def, ValueDef::Detached);
        let n = self.results[inst].len();
        self.values[v].def = ValueDef::Result(inst, n);
        self.results[inst].push(v);
    }

    /// Detach all results of `inst`; they become `ValueDef::Detached`.
    pub fn detach_results(&mut self, inst: Inst) -> Vec<Value> {
        let rs = core::mem::take(&mut self.results[inst]);
        for &v in &rs {
            self.values[v].def = ValueDef::Detached;
        }
        rs
    }

    pub fn inst_results(&self, inst: Inst) -> &[Value] {
        &self.results[inst]
    }

    /// The first result; panics if there is none.
    pub fn first_result(&self, inst: Inst) -> Value {
        self.results[inst][0]
    }

    pub fn has_results(&self, inst: Inst) -> bool {
        !self.results[inst].is_empty()
    }

    /// Replace an instruction's data (opcode and operands), keeping its results.
    pub fn replace_inst(&mut self, inst: Inst, data: InstructionData) {
        self.insts[inst] = data;
    }

    // ---- values ----

    /// Create a detached value of type `ty`.
    pub fn make_value(&mut self, ty: Type) -> Value {
        self.values.push(ValueData {
            ty,
            def: ValueDef::Detached,
        })
    }

    pub fn num_values(&self) -> usize {
        self.values.len()
    }

    /// Every value ever created.
    pub fn values(&self) -> impl Iterator<Item = Value> + use<> {
        self.values.keys()
    }

    pub fn value_is_valid(&self, v: Value) -> bool {
        self.values.is_valid(v)
    }

    pub fn value_type(&self, v: Value) -> Type {
        self.values[v].ty
    }

    pub fn set_value_type(&mut self, v: Value, ty: Type) {
        self.values[v].ty = ty;
    }

    pub fn value_def(&self, v: Value) -> ValueDef {
        self.values[v].def
    }

    pub fn value_data(&self, v: Value) -> ValueData {
        self.values[v]
    }

    /// Replace every use of `old` by `new` in every instruction (arguments and branch
    /// arguments). Linear in the size of the function.
    pub fn replace_uses(&mut self, old: Value, new: Value) {
        for data in self.insts.values_mut() {
            data.map_values(|v| if v == old { new } else { v });
        }
    }

    /// Replace the uses of values in one instruction through `f`.
    pub fn map_inst_values(&mut self, inst: Inst, f: impl FnMut(Value) -> Value) {
        self.insts[inst].map_values(f)
    }

    // ---- blocks ----

    /// Create a block with no parameters. It is not in the layout yet.
    pub fn make_block(&mut self) -> Block {
        self.blocks.push(BlockData::default())
    }

    pub fn num_blocks(&self) -> usize {
        self.blocks.len()
    }

    /// Every block ever created.
    pub fn blocks(&self) -> impl Iterator<Item = Block> + use<> {
        self.blocks.keys()
    }

    pub fn block_is_valid(&self, b: Block) -> bool {
        self.blocks.is_valid(b)
    }

    pub fn block_params(&self, block: Block) -> &[Value] {
        &self.blocks[block].params
    }

    /// Append a parameter of type `ty`.
    pub fn append_block_param(&mut self, block: Block, ty: Type) -> Value {
        let n = self.blocks[block].params.len();
        let v = self.values.push(ValueData {
            ty,
            def: ValueDef::Param(block, n),
        });
        self.blocks[block].params.push(v);
        v
    }

    /// Make a detached value the next parameter of `block`.
    pub fn attach_block_param(&mut self, block: Block, v: Value) {
        debug_assert_eq!(self.values[v].def, ValueDef::Detached);
        let n = self.blocks[block].params.len();
        self.values[v].def = ValueDef::Param(block, n);
        self.blocks[block].params.push(v);
    }

    /// Insert a new parameter at position `index` (later parameters shift up).
    pub fn insert_block_param(&mut self, block: Block, index: usize, ty: Type) -> Value {
        let v = self.values.push(ValueData {
            ty,
            def: ValueDef::Param(block, index),
        });
        self.blocks[block].params.insert(index, v);
        self.renumber_params(block, index + 1);
        v
    }

    /// Remove parameter number `index`; the value becomes detached. Branches to the
    /// block must drop the corresponding argument (see `remove_branch_arg`).
    pub fn remove_block_param(&mut self, block: Block, index: usize) -> Value {
        let v = self.blocks[block].params.remove(index);
        self.values[v].def = ValueDef::Detached;
        self.renumber_params(block, index);
        v
    }

    /// Remove all parameters of `block` and return them (detached).
    pub fn detach_block_params(&mut self, block: Block) -> Vec<Value> {
        let ps = core::mem::take(&mut self.blocks[block].params);
        for &v in &ps {
            self.values[v].def = ValueDef::Detached;
        }
        ps
    }

    fn renumber_params(&mut self, block: Block, from: usize) {
        for i in from..self.blocks[block].params.len() {
            let v = self.blocks[block].params[i];
            self.values[v].def = ValueDef::Param(block, i);
        }
    }

    /// In every branch of `inst` to `block`, remove argument number `index`.
    pub fn remove_branch_arg(&mut self, inst: Inst, block: Block, index: usize) {
        for d in self.insts[inst].branch_destinations_mut() {
            if d.block == block {
                d.args.remove(index);
            }
        }
    }

    /// In every branch of `inst` to `old`, retarget to `new` (arguments kept).
    pub fn retarget_branch(&mut self, inst: Inst, old: Block, new: Block) {
        for d in self.insts[inst].branch_destinations_mut() {
            if d.block == old {
                d.block = new;
            }
        }
    }
}

impl Index<Inst> for DataFlowGraph {
    type Output = InstructionData;
    fn index(&self, inst: Inst) -> &InstructionData {
        &self.insts[inst]
    }
}

impl IndexMut<Inst> for DataFlowGraph {
    fn index_mut(&mut self, inst: Inst) -> &mut InstructionData {
        &mut self.insts[inst]
    }
}
