//! Dead-code elimination: removes the instructions that have no side effects and whose
//! results nothing live uses.
//!
//! The shim emits computations that only feed assumptions LLVM would use (null checks of
//! references, alignment checks), and mem2reg leaves the constants of the address
//! arithmetic it removed. Marking starts from the instructions with side effects
//! (`Opcode::has_side_effects`: memory, control, traps, calls, division) and follows
//! operands, branch arguments included; block parameters are kept (a parameter used
//! only by a dead instruction still gets its argument: removing parameters would change
//! branches, and mem2reg's pruned SSA adds none that are dead). Loads are kept: the IR
//! says an access outside an object traps, and the tests compare traps.

use cranelift_entity::SecondaryMap;
use vliw_ir::{Function, Inst, ValueDef};

/// What [`dce`] did to one function.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct DceStats {
    pub removed: usize,
}

impl std::ops::AddAssign for DceStats {
    fn add_assign(&mut self, o: Self) {
        self.removed += o.removed;
    }
}

pub fn dce(func: &mut Function) -> DceStats {
    let mut live: SecondaryMap<Inst, bool> = SecondaryMap::new();
    let mut work: Vec<Inst> = Vec::new();
    let mut all: Vec<Inst> = Vec::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            all.push(inst);
            if func.dfg.opcode(inst).has_side_effects() {
                live[inst] = true;
                work.push(inst);
            }
        }
    }
    while let Some(inst) = work.pop() {
        for v in func.dfg.inst_data(inst).all_values() {
            if let ValueDef::Result(def, _) = func.dfg.value_def(v)
                && !live[def]
            {
                live[def] = true;
                work.push(def);
            }
        }
    }
    let mut stats = DceStats::default();
    for inst in all {
        if !live[inst] {
            func.layout.remove_inst(inst);
            stats.removed += 1;
        }
    }
    stats
}
