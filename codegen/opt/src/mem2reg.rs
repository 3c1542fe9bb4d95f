//! mem2reg with scalar replacement: stack slots whose address never escapes become SSA
//! values.
//!
//! rustc_codegen_ssa keeps in stack slots every local it cannot prove to be an SSA value:
//! loop counters that are reassigned, iterators, aggregates (a slice iterator is two
//! pointers in a 16-byte slot). Without this pass each of them costs a store and a load
//! per access. Here a slot is promoted when every use of its address is
//!
//! - a non-volatile `load` or `store` through it (as the address, not the stored value),
//!   at a constant offset inside the slot, or
//! - a `ptradd` of a constant, whose result is again such an address.
//!
//! Any other use (a call argument, a stored value, a `bitcast`, a compare, `memcpy`,
//! atomics, a branch argument) lets the address escape and the slot stays in memory.
//! The accessed byte ranges of a promoted slot become its *fields* (scalar replacement
//! of aggregates); ranges must be equal or disjoint. Each field is one variable; a field
//! read with several types of its size (`i64` and `ptr`, say) keeps the type of its first
//! access and the others `bitcast`.
//!
//! SSA construction is Cytron et al.'s: block parameters at the iterated dominance
//! frontier of the blocks that store a field, pruned to the blocks where the field is
//! live-in (pruned SSA), then one renaming walk over the dominator tree. A load before
//! any store reads `undef`. In a function that takes a slot address, unreachable blocks
//! are removed first (they may load from slots, and nothing reachable uses their
//! values). A function whose entry block is a branch target is left alone: the entry's
//! parameters are the function's arguments.

use rustc_hash::FxHashMap as HashMap;

use cranelift_entity::SecondaryMap;
use vliw_ir::{
    Block, ControlFlowGraph, DominatorTree, Function, Inst, InstructionData, Opcode, StackSlot,
    StackSlotData, Type, Value, ValueDef,
};

use crate::dominance_frontier::{DominanceFrontiers, IdfScratch};

/// What [`mem2reg`] did to one function.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Mem2RegStats {
    /// Stack slots of the function.
    pub slots: usize,
    /// Slots promoted (no longer in memory).
    pub promoted: usize,
    /// SSA variables they were split into.
    pub fields: usize,
    /// Loads and stores removed.
    pub loads: usize,
    pub stores: usize,
    /// Block parameters added where definitions meet.
    pub params: usize,
    /// Unreachable blocks removed.
    pub unreachable_blocks: usize,
}

impl std::ops::AddAssign for Mem2RegStats {
    fn add_assign(&mut self, o: Self) {
        self.slots += o.slots;
        self.promoted += o.promoted;
        self.fields += o.fields;
        self.loads += o.loads;
        self.stores += o.stores;
        self.params += o.params;
        self.unreachable_blocks += o.unreachable_blocks;
    }
}

/// One access to a candidate slot.
#[derive(Copy, Clone)]
struct Access {
    inst: Inst,
    offset: i64,
    ty: Type,
    /// The alignment the access promises (the IR traps when the address lacks it).
    align: u32,
}

/// What the uses of one slot's address are.
#[derive(Default)]
struct SlotUses {
    /// `stack_addr`s and the `ptradd`s derived from them.
    address_insts: Vec<Inst>,
    accesses: Vec<Access>,
    escapes: bool,
}

/// Promotes the function's non-escaping stack slots; the result verifies when the input
/// did.
pub fn mem2reg(func: &mut Function) -> Mem2RegStats {
    let mut stats = Mem2RegStats {
        slots: func.stack_slots.len(),
        ..Mem2RegStats::default()
    };
    let Some(entry) = func.layout.entry_block() else {
        return stats;
    };
    // Most functions have no slot: nothing to analyze then.
    let has_slot_address = func.layout.blocks().any(|b| {
        func.layout
            .block_insts(b)
            .any(|i| func.dfg.opcode(i) == Opcode::StackAddr)
    });
    if !has_slot_address {
        return stats;
    }
    let mut cfg = ControlFlowGraph::compute(func);
    let mut domtree = DominatorTree::with_cfg(func, &cfg);
    stats.unreachable_blocks = remove_unreachable_blocks(func, &domtree);
    if stats.unreachable_blocks > 0 {
        cfg = ControlFlowGraph::compute(func);
        domtree = DominatorTree::with_cfg(func, &cfg);
    }
    if !cfg.preds(entry).is_empty() {
        return stats;
    }
    let slots = analyze_slots(func);

    // The variables: the fields of every promotable slot.
    let mut var_types: Vec<Type> = Vec::new();
    let mut access_var: HashMap<Inst, usize> = HashMap::default();
    let mut promoted: Vec<(StackSlot, Vec<Inst>)> = Vec::new();
    for (slot, uses) in slots {
        let Some(fields) = fields_of(func.stack_slots[slot], &uses) else {
            continue;
        };
        let first_var = var_types.len();
        for (field, ty) in fields.types.iter().enumerate() {
            var_types.push(*ty);
            debug_assert_eq!(var_types.len() - 1, first_var + field);
        }
        for (access, field) in uses.accesses.iter().zip(&fields.of_access) {
            access_var.insert(access.inst, first_var + field);
        }
        promoted.push((slot, uses.address_insts));
    }
    if promoted.is_empty() {
        return stats;
    }
    stats.promoted = promoted.len();
    stats.fields = var_types.len();

    let params = place_parameters(func, &cfg, &domtree, &var_types, &access_var);
    stats.params = params.values().map(Vec::len).sum();
    let (loads, stores) = rename(func, &domtree, &var_types, &access_var, &params);
    stats.loads = loads;
    stats.stores = stores;

    for (slot, address_insts) in promoted {
        for inst in address_insts {
            func.layout.remove_inst(inst);
        }
        // The slot stays in the table (entities are never freed) but takes no space.
        func.stack_slots[slot].size = 0;
        func.stack_slots[slot].align = 1;
    }
    stats
}

/// Removes the blocks the entry does not reach (by `domtree`, computed before); returns
/// how many.
fn remove_unreachable_blocks(func: &mut Function, domtree: &DominatorTree) -> usize {
    let dead: Vec<Block> = func
        .layout
        .blocks()
        .filter(|&b| !domtree.is_reachable(b))
        .collect();
    for &block in &dead {
        let insts: Vec<Inst> = func.layout.block_insts(block).collect();
        for inst in insts {
            func.layout.remove_inst(inst);
        }
        func.layout.remove_block(block);
    }
    dead.len()
}

/// Follows every `stack_addr` to the uses of the address.
fn analyze_slots(func: &Function) -> Vec<(StackSlot, SlotUses)> {
    let dfg = &func.dfg;
    let mut users: SecondaryMap<Value, Vec<Inst>> = SecondaryMap::new();
    let mut roots: Vec<(Inst, StackSlot, i64)> = Vec::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            let data = dfg.inst_data(inst);
            if let InstructionData::StackAddr { slot, offset, .. } = *data {
                roots.push((inst, slot, offset));
            }
            for v in data.all_values() {
                if users[v].last() != Some(&inst) {
                    users[v].push(inst);
                }
            }
        }
    }
    let mut by_slot: HashMap<StackSlot, SlotUses> = HashMap::default();
    for (root, slot, offset) in roots {
        let uses = by_slot.entry(slot).or_default();
        uses.address_insts.push(root);
        let mut work = vec![(dfg.first_result(root), offset)];
        while let Some((address, base)) = work.pop() {
            for &user in &users[address] {
                match *dfg.inst_data(user) {
                    InstructionData::Load {
                        opcode: Opcode::Load,
                        flags,
                        arg,
                        offset,
                    } if !flags.volatile && arg == address => uses.accesses.push(Access {
                        inst: user,
                        offset: base.wrapping_add(i64::from(offset)),
                        ty: dfg.value_type(dfg.first_result(user)),
                        align: flags.align,
                    }),
                    InstructionData::Store {
                        opcode: Opcode::Store,
                        flags,
                        args: [value, addr],
                        offset,
                    } if !flags.volatile && addr == address && value != address => {
                        uses.accesses.push(Access {
                            inst: user,
                            offset: base.wrapping_add(i64::from(offset)),
                            ty: dfg.value_type(value),
                            align: flags.align,
                        })
                    }
                    InstructionData::Binary {
                        opcode: Opcode::Ptradd,
                        args: [p, off],
                    } if p == address && off != address => match constant(func, off) {
                        Some(c) => {
                            uses.address_insts.push(user);
                            work.push((dfg.first_result(user), base.wrapping_add(c)));
                        }
                        None => uses.escapes = true,
                    },
                    _ => uses.escapes = true,
                }
            }
        }
    }
    let mut slots: Vec<(StackSlot, SlotUses)> = by_slot
        .into_iter()
        .filter(|(_, uses)| !uses.escapes)
        .collect();
    slots.sort_by_key(|(slot, _)| *slot);
    slots
}

/// The value of an `iconst` (as a signed 64-bit offset), if `v` is one.
fn constant(func: &Function, v: Value) -> Option<i64> {
    match func.dfg.value_def(v) {
        ValueDef::Result(inst, 0) => match *func.dfg.inst_data(inst) {
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm,
            } => Some(imm as u64 as i64),
            _ => None,
        },
        _ => None,
    }
}

/// The fields of a slot: the distinct byte ranges accessed, each with the type of its
/// first access, and for each access its field.
struct Fields {
    types: Vec<Type>,
    of_access: Vec<usize>,
}

/// `None` when the slot cannot be split: an access outside it or promising more
/// alignment than it has (both trap, and must keep trapping), or two ranges that
/// overlap without being equal.
fn fields_of(slot: StackSlotData, uses: &SlotUses) -> Option<Fields> {
    let mut ranges: Vec<(i64, i64)> = Vec::new();
    for a in &uses.accesses {
        let end = a.offset.checked_add(i64::from(a.ty.bytes()))?;
        if a.offset < 0 || end > i64::from(slot.size) {
            return None;
        }
        let align = i64::from(a.align.max(1));
        if a.align > slot.align || a.offset % align != 0 {
            return None;
        }
        ranges.push((a.offset, end));
    }
    ranges.sort_unstable();
    ranges.dedup();
    if ranges.windows(2).any(|w| w[0].1 > w[1].0) {
        return None;
    }
    let mut types: Vec<Option<Type>> = vec![None; ranges.len()];
    let mut of_access = Vec::with_capacity(uses.accesses.len());
    for a in &uses.accesses {
        let range = (a.offset, a.offset + i64::from(a.ty.bytes()));
        let field = ranges
            .binary_search(&range)
            .expect("every access has its range");
        types[field].get_or_insert(a.ty);
        of_access.push(field);
    }
    Some(Fields {
        types: types
            .into_iter()
            .map(|t| t.expect("a range per access"))
            .collect(),
        of_access,
    })
}

/// Adds the block parameters of pruned SSA: at the iterated dominance frontier of each
/// variable's stores, where the variable is live-in. Returns per block the variables of
/// its new parameters, in parameter order.
fn place_parameters(
    func: &mut Function,
    cfg: &ControlFlowGraph,
    domtree: &DominatorTree,
    var_types: &[Type],
    access_var: &HashMap<Inst, usize>,
) -> SecondaryMap<Block, Vec<(usize, Value)>> {
    let vars = var_types.len();
    // Per variable: blocks that store it, blocks that load it before any store there.
    let mut def_blocks: Vec<Vec<Block>> = vec![Vec::new(); vars];
    let mut exposed_blocks: Vec<Vec<Block>> = vec![Vec::new(); vars];
    let mut stored_in: Vec<Option<Block>> = vec![None; vars];
    let mut loaded_in: Vec<Option<Block>> = vec![None; vars];
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            let Some(&var) = access_var.get(&inst) else {
                continue;
            };
            let is_store = func.dfg.opcode(inst) == Opcode::Store;
            if is_store {
                if stored_in[var] != Some(block) {
                    stored_in[var] = Some(block);
                    def_blocks[var].push(block);
                }
            } else if stored_in[var] != Some(block) && loaded_in[var] != Some(block) {
                loaded_in[var] = Some(block);
                exposed_blocks[var].push(block);
            }
        }
    }

    let frontiers = DominanceFrontiers::compute(cfg, domtree);
    let mut scratch = IdfScratch::default();
    let mut live_in: SecondaryMap<Block, bool> = SecondaryMap::new();
    let mut defines: SecondaryMap<Block, bool> = SecondaryMap::new();
    let mut params: SecondaryMap<Block, Vec<(usize, Value)>> = SecondaryMap::new();
    for var in 0..vars {
        if def_blocks[var].is_empty() || exposed_blocks[var].is_empty() {
            continue; // never stored (every load is undef) or never loaded
        }
        // Live-in blocks: up from the exposed loads, not past a block that stores.
        for &b in &def_blocks[var] {
            defines[b] = true;
        }
        let mut marked: Vec<Block> = Vec::new();
        let mut work: Vec<Block> = Vec::new();
        for &b in &exposed_blocks[var] {
            if !live_in[b] {
                live_in[b] = true;
                marked.push(b);
                work.push(b);
            }
        }
        while let Some(b) = work.pop() {
            for &p in cfg.preds(b) {
                if !defines[p] && !live_in[p] {
                    live_in[p] = true;
                    marked.push(p);
                    work.push(p);
                }
            }
        }
        for block in frontiers.iterated(&def_blocks[var], |b| live_in[b], &mut scratch) {
            let param = func.dfg.append_block_param(block, var_types[var]);
            params[block].push((var, param));
        }
        for b in marked {
            live_in[b] = false;
        }
        for &b in &def_blocks[var] {
            defines[b] = false;
        }
    }
    params
}

/// The renaming walk over the dominator tree: loads become the variable's current
/// value, stores set it, branches pass it to the new parameters. Returns the number of
/// loads and stores removed.
fn rename(
    func: &mut Function,
    domtree: &DominatorTree,
    var_types: &[Type],
    access_var: &HashMap<Inst, usize>,
    params: &SecondaryMap<Block, Vec<(usize, Value)>>,
) -> (usize, usize) {
    let entry = func.layout.entry_block().expect("checked by the caller");
    let mut current: Vec<Option<Value>> = vec![None; var_types.len()];
    let mut undo: Vec<(usize, Option<Value>)> = Vec::new();
    let mut undefs: HashMap<Type, Value> = HashMap::default();
    let mut alias: HashMap<Value, Value> = HashMap::default();
    let (mut loads, mut stores) = (0, 0);

    enum Step {
        Enter(Block),
        Exit(usize),
    }
    let mut steps = vec![Step::Enter(entry)];
    while let Some(step) = steps.pop() {
        let block = match step {
            Step::Exit(mark) => {
                for (var, old) in undo.drain(mark..).rev() {
                    current[var] = old;
                }
                continue;
            }
            Step::Enter(block) => block,
        };
        steps.push(Step::Exit(undo.len()));
        for &(var, param) in &params[block] {
            undo.push((var, current[var].replace(param)));
        }
        let insts: Vec<Inst> = func.layout.block_insts(block).collect();
        for inst in insts {
            if let Some(&var) = access_var.get(&inst) {
                let ty = var_types[var];
                if func.dfg.opcode(inst) == Opcode::Store {
                    let mut value = func.dfg.inst_args(inst)[0];
                    if func.dfg.value_type(value) != ty {
                        value = insert_bitcast(func, value, ty, inst);
                    }
                    undo.push((var, current[var].replace(value)));
                    func.layout.remove_inst(inst);
                    stores += 1;
                } else {
                    let value = match current[var] {
                        Some(v) => v,
                        None => undef(func, &mut undefs, ty),
                    };
                    let result = func.dfg.first_result(inst);
                    if func.dfg.value_type(result) == ty {
                        alias.insert(result, value);
                        func.layout.remove_inst(inst);
                    } else {
                        // Keep the result value; the load becomes a bitcast of the field.
                        func.dfg.replace_inst(
                            inst,
                            InstructionData::Unary {
                                opcode: Opcode::Bitcast,
                                arg: value,
                            },
                        );
                    }
                    loads += 1;
                }
            } else if func.dfg.opcode(inst).is_terminator() {
                // The arguments for the targets' new parameters.
                let mut extra: Vec<Vec<Value>> = Vec::new();
                let targets: Vec<Block> = func
                    .dfg
                    .inst_data(inst)
                    .branch_destinations()
                    .iter()
                    .map(|call| call.block)
                    .collect();
                for target in targets {
                    let call_block = target;
                    let mut args = Vec::new();
                    for &(var, _) in &params[call_block] {
                        args.push(match current[var] {
                            Some(v) => v,
                            None => undef(func, &mut undefs, var_types[var]),
                        });
                    }
                    extra.push(args);
                }
                let data = func.dfg.inst_data_mut(inst);
                for (call, args) in data.branch_destinations_mut().iter_mut().zip(extra) {
                    call.args.extend(args);
                }
            }
        }
        for &child in domtree.children(block).iter().rev() {
            steps.push(Step::Enter(child));
        }
    }

    if !alias.is_empty() {
        let resolve = |mut v: Value| {
            while let Some(&next) = alias.get(&v) {
                v = next;
            }
            v
        };
        let blocks: Vec<Block> = func.layout.blocks().collect();
        for block in blocks {
            let insts: Vec<Inst> = func.layout.block_insts(block).collect();
            for inst in insts {
                func.dfg.map_inst_values(inst, resolve);
            }
        }
    }
    (loads, stores)
}

/// `bitcast.ty value`, inserted before `before`.
fn insert_bitcast(func: &mut Function, value: Value, ty: Type, before: Inst) -> Value {
    let inst = func.dfg.make_inst(InstructionData::Unary {
        opcode: Opcode::Bitcast,
        arg: value,
    });
    func.dfg.make_inst_results(inst, &[ty]);
    func.layout.insert_inst_before(inst, before);
    func.dfg.first_result(inst)
}

/// The function's `undef.ty`, made at the top of the entry block on first use (the
/// entry dominates every block).
fn undef(func: &mut Function, undefs: &mut HashMap<Type, Value>, ty: Type) -> Value {
    *undefs.entry(ty).or_insert_with(|| {
        let entry = func
            .layout
            .entry_block()
            .expect("the function has an entry");
        let inst = func.dfg.make_inst(InstructionData::Nullary {
            opcode: Opcode::Undef,
        });
        func.dfg.make_inst_results(inst, &[ty]);
        match func.layout.first_inst(entry) {
            Some(first) => func.layout.insert_inst_before(inst, first),
            None => func.layout.append_inst(inst, entry),
        }
        func.dfg.first_result(inst)
    })
}
