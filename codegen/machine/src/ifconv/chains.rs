//! Multi-way branches as chains of blocks, for the time of if-conversion.
//!
//! Instruction selection lowers a `switch` on a few values to one block holding a chain
//! of guarded branches (`(p1) br A; (p2) br B; ...; br D`): the machine takes the first
//! whose guard holds, and the scheduler works on one block. A region of if-conversion
//! is made of blocks that end in one two-way branch, so such a block could be neither a
//! region's entry nor one of its members, and a loop body around a `match` (a state
//! machine) stayed branches. Before the rounds, [`split`] cuts each such block after
//! every guarded branch but the last, into a chain of blocks that each end in a two-way
//! branch and fall through to the next; after them, [`merge_back`] joins again what no
//! region took, so that code if-conversion leaves alone is the code it was given.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use vliw_isa::Opcode;

use cranelift_entity::EntityRef;

use crate::mir::{Imm, MBlock, MInst, MachFunction};
use crate::ssa_view::{block_preds, cfg_of};

/// One cut: `tail` holds what followed a guarded branch of `head` (which now ends in
/// that branch and `br tail`).
#[derive(Copy, Clone, Debug)]
pub struct Cut {
    pub head: MBlock,
    pub tail: MBlock,
}

/// Whether operation `inst` is a guarded branch to a block for which `keep` does not
/// hold (a side exit to a panic stays in the middle of its block).
fn chain_branch(inst: &MInst, keep: &dyn Fn(MBlock) -> bool) -> bool {
    inst.is(Opcode::Br) && !inst.guard.is_always() && matches!(inst.imm, Imm::Block(t) if !keep(t))
}

/// Cuts every block of the layout with more than one guarded branch (to blocks other
/// than the `cold` ones) before its final jump; returns the cuts in the order made
/// (a head's tail may be the head of the next cut).
pub fn split(mf: &mut MachFunction, cold: &HashSet<MBlock>) -> Vec<Cut> {
    let keep = |t: MBlock| cold.contains(&t);
    let mut cuts = Vec::new();
    let mut layout = Vec::with_capacity(mf.layout.len());
    for b in std::mem::take(&mut mf.layout) {
        layout.push(b);
        let mut head = b;
        loop {
            let ids = mf.block_inst_ids(head);
            // a guarded branch followed by more than the final jump
            let Some(at) = ids
                .iter()
                .take(ids.len().saturating_sub(2))
                .position(|&i| chain_branch(mf.inst(i), &keep))
            else {
                break;
            };
            let mut insts = mf.take_block_insts(head);
            let rest = insts.split_off(at + 1);
            let tail = mf.new_block();
            mf.set_block_insts(head, insts);
            mf.push_inst(head, MInst::op(Opcode::Br, &[], &[], Imm::Block(tail)));
            mf.set_block_insts(tail, rest);
            layout.push(tail);
            cuts.push(Cut { head, tail });
            head = tail;
        }
    }
    mf.layout = layout;
    cuts
}

/// Joins each tail of `cuts` that is still in the layout to its only predecessor when
/// that ends in a plain jump to it (no region took the two apart); returns how many
/// were joined.
pub fn merge_back(mf: &mut MachFunction, cuts: &[Cut]) -> usize {
    if cuts.is_empty() {
        return 0;
    }
    let preds = block_preds(mf, &cfg_of(mf));
    let in_layout: HashSet<MBlock> = mf.layout.iter().copied().collect();
    // where a block's operations went when it was joined to its predecessor
    let mut joined_into: HashMap<MBlock, MBlock> = HashMap::default();
    let resolve = |joined_into: &HashMap<MBlock, MBlock>, mut b: MBlock| {
        while let Some(&into) = joined_into.get(&b) {
            b = into;
        }
        b
    };
    let mut merged = 0;
    // the last cut of a chain first: its head is then still a block of its own
    for cut in cuts.iter().rev() {
        let tail = cut.tail;
        if !in_layout.contains(&tail) || preds[tail.index()].len() != 1 {
            continue;
        }
        let pred = resolve(&joined_into, preds[tail.index()][0]);
        let jumps_here = mf.last_inst(pred).is_some_and(|i| {
            i.is(Opcode::Br)
                && i.guard.is_always()
                && i.args.is_empty()
                && i.imm == Imm::Block(tail)
        });
        if pred == tail || !jumps_here || !mf.blocks[tail].params.is_empty() {
            continue;
        }
        mf.pop_inst(pred);
        let rest = mf.take_block_insts(tail);
        let mut insts = mf.take_block_insts(pred);
        insts.extend(rest);
        mf.set_block_insts(pred, insts);
        joined_into.insert(tail, pred);
        merged += 1;
    }
    let gone: HashSet<MBlock> = joined_into.keys().copied().collect();
    mf.layout.retain(|b| !gone.contains(b));
    merged
}
