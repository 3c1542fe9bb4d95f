//! Block parameters that are one constant: every branch into the block passes a
//! constant of one type and value for it (or `undef`, or the parameter itself around
//! a loop). The parameter's readers read a fresh copy of the constant made at the top
//! of the block, and the parameter and its arguments go.
//!
//! This is the trivial φ of SSA construction (Braun et al., "Simple and Efficient
//! Construction of Static Single Assignment Form", §3.1) and LLVM's
//! `SimplifyInstruction` on a `phi`, restricted to constants, which the IR makes an
//! instruction each and so compares by value. The sequentialization of the RVSDG
//! makes such parameters wherever a γ's exit routes a flag that every arm reaching a
//! join sets to the same constant (`classify`'s decision tree: three flags, each `1`
//! on both edges into the block that updates `counts[class]`, then tested by three
//! branches in a row that could never go the other way). Once the parameter is a
//! constant, jump threading and `implied-conditions` take the branches on it.
//!
//! A parameter that is one value other than a constant is left alone: its readers
//! would read a value of another block, and jump threading, which runs next, may
//! send a branch past the block that defines it (a forwarding block's parameter).

use cranelift_entity::EntityRef;
use vliw_ir::{Block, Function, Inst, InstructionData, Opcode, Type, Value, ValueDef};

/// A constant: its opcode (`iconst`, `f32const`, `f64const`), type and bits.
type Constant = (Opcode, Type, u128);

/// Replaces every block parameter that is one constant (module documentation) by it,
/// repeatedly (a parameter replaced by a constant can make one of a later block a
/// constant too); returns how many.
pub fn fold_constant_params(func: &mut Function) -> usize {
    let Some(entry) = func.entry_block() else {
        return 0;
    };
    let mut folded = 0;
    // each round removes a parameter; a bound keeps a bad function finite
    let bound = func.dfg.num_values() + 1;
    for _ in 0..bound {
        let branches = branches_into(func);
        let mut changed = false;
        for block in func.layout.blocks().collect::<Vec<_>>() {
            if block == entry || branches[block.index()].is_empty() {
                continue;
            }
            let mut index = 0;
            while index < func.dfg.block_params(block).len() {
                let param = func.dfg.block_params(block)[index];
                match one_constant(func, &branches[block.index()], block, index, param) {
                    Some(constant) => {
                        let new = materialize(func, block, constant);
                        func.dfg.replace_uses(param, new);
                        func.dfg.remove_block_param(block, index);
                        for &inst in &branches[block.index()] {
                            func.dfg.remove_branch_arg(inst, block, index);
                        }
                        folded += 1;
                        changed = true;
                    }
                    None => index += 1,
                }
            }
        }
        if !changed {
            break;
        }
    }
    folded
}

/// Per block (by index), the branch instructions that go to it, each once.
fn branches_into(func: &Function) -> Vec<Vec<Inst>> {
    let mut into: Vec<Vec<Inst>> = vec![Vec::new(); func.dfg.num_blocks()];
    for b in func.layout.blocks() {
        for inst in func.layout.block_insts(b) {
            for call in func.dfg.branch_destinations(inst) {
                // (an instruction's destinations come together: only the last
                // entry can be it)
                let list = &mut into[call.block.index()];
                if list.last() != Some(&inst) {
                    list.push(inst);
                }
            }
        }
    }
    into
}

/// The one constant parameter number `index` of `block` always has, if it has one.
fn one_constant(
    func: &Function,
    branches: &[Inst],
    block: Block,
    index: usize,
    param: Value,
) -> Option<Constant> {
    // an invoke's edges keep their arguments (the landing pad's are fixed by the
    // unwinder), and a block entered by one keeps its parameters
    if branches.iter().any(|&i| func.dfg.opcode(i).is_invoke()) {
        return None;
    }
    let mut seen: Option<Constant> = None;
    for &inst in branches {
        for call in func.dfg.branch_destinations(inst) {
            if call.block != block {
                continue;
            }
            let arg = *call.args.get(index)?;
            if arg == param || is_undef(func, arg) {
                continue;
            }
            let this = constant(func, arg)?;
            if seen.is_some_and(|s| s != this) {
                return None;
            }
            seen = Some(this);
        }
    }
    // (only `undef`s or the parameter itself: left alone, the block reads whatever
    // it reads)
    seen
}

fn is_undef(func: &Function, v: Value) -> bool {
    matches!(func.dfg.value_def(v), ValueDef::Result(i, _) if func.dfg.opcode(i) == Opcode::Undef)
}

/// `v` as a constant, if it is one.
fn constant(func: &Function, v: Value) -> Option<Constant> {
    let ValueDef::Result(inst, _) = func.dfg.value_def(v) else {
        return None;
    };
    let InstructionData::UnaryImm { opcode, imm } = *func.dfg.inst_data(inst) else {
        return None;
    };
    if !matches!(opcode, Opcode::Iconst | Opcode::F32const | Opcode::F64const) {
        return None;
    }
    let ty = func.dfg.value_type(v);
    let bits = ty.bits();
    let mask = if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    };
    Some((opcode, ty, imm & mask))
}

/// A new copy of `constant` at the top of `block`.
fn materialize(func: &mut Function, block: Block, constant: Constant) -> Value {
    let (opcode, ty, imm) = constant;
    let inst = func
        .dfg
        .make_inst(InstructionData::UnaryImm { opcode, imm });
    let v = func.dfg.append_result(inst, ty);
    match func.layout.first_inst(block) {
        Some(first) => func.layout.insert_inst_before(inst, first),
        None => func.layout.append_inst(inst, block),
    }
    v
}
