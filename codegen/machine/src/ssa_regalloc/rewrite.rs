//! After colouring: every virtual register becomes its colour, copies between equal
//! colours disappear, the other copies become `mov` (`por` for predicates), and the
//! block arguments of each `br` become one parallel copy from the arguments' colours
//! to the parameters' colours just before it, sequentialized with the minimum number
//! of copies (`vliw_ssa::sequentialize`; a cycle goes through [`super::regs::GPR_TEMP`]
//! or [`super::regs::PRED_TEMP`]). This is correct without splitting the edge because
//! a block that passes arguments ends in an unconditional `br` to one target: the
//! values live at its end are live into the target, whose parameters' colours differ
//! from theirs.

use cranelift_entity::SecondaryMap;
use vliw_isa::Opcode;

use super::colour::NONE;
use super::regs::{GPR_TEMP, PRED_TEMP, preg};
use crate::mir::{Imm, InstId, MGuard, MInst, MOp, MachFunction, Reg, RegClass, VReg};

/// Copies left after colouring.
#[derive(Copy, Clone, Default, Debug)]
pub struct CopyStats {
    /// Copies (of instruction selection) and block arguments before colouring.
    pub before: usize,
    /// Copies emitted (parallel-copy temporaries included).
    pub after: usize,
}

/// A register-to-register move.
pub fn mov(class: RegClass, d: Reg, s: Reg, guard: MGuard, loc: vliw_ir::SourceLoc) -> MInst {
    let mut i = match class {
        RegClass::Gpr => MInst::op(Opcode::Mov, &[d], &[s], Imm::None),
        RegClass::Pred => MInst::op(Opcode::Por, &[d], &[s, s], Imm::None),
    };
    i.guard = guard;
    i.loc = loc;
    i
}

/// Rewrites `mf` with `colour` (see the module documentation). Nothing is changed
/// when it fails.
pub fn rewrite(
    mf: &mut MachFunction,
    colour: &SecondaryMap<VReg, u8>,
    stats: &mut CopyStats,
) -> Result<(), String> {
    let phys = |mf: &MachFunction, r: Reg| -> Result<Reg, String> {
        match r {
            Reg::Virtual(v) if colour[v] == NONE => Err(format!("{v} has no colour")),
            Reg::Virtual(v) => Ok(Reg::Physical(preg(mf.vregs[v], colour[v]))),
            p => Ok(p),
        }
    };
    let mut new_blocks = Vec::with_capacity(mf.layout.len());
    for &b in &mf.layout {
        // (the id an operation keeps, or none for a new move; the operation)
        let mut out: Vec<(Option<InstId>, MInst)> = Vec::with_capacity(mf.block_len(b));
        for (id, inst) in mf.block_insts_with_ids(b) {
            let mut inst = inst.clone();
            inst.guard.pred = phys(mf, inst.guard.pred)?;
            for g in inst.psi_guards.iter_mut() {
                g.pred = phys(mf, g.pred)?;
            }
            for r in inst.defs.iter_mut().chain(inst.uses.iter_mut()) {
                *r = phys(mf, *r)?;
            }
            if let Some(k) = inst.keep.take()
                && Some(phys(mf, k)?) != inst.defs.first().copied()
            {
                return Err(format!("{b}: a kept value in another register"));
            }
            if inst.op == MOp::Copy {
                stats.before += 1;
                let (d, s) = (inst.defs[0], inst.uses[0]);
                if d != s {
                    out.push((Some(id), mov(mf.class_of(d), d, s, inst.guard, inst.loc)));
                    stats.after += 1;
                }
                continue;
            }
            if let (false, Imm::Block(t)) = (inst.args.is_empty(), &inst.imm) {
                stats.before += inst.args.len();
                for class in [RegClass::Gpr, RegClass::Pred] {
                    let mut pairs = Vec::new();
                    for (&p, &a) in mf.blocks[*t].params.iter().zip(&inst.args) {
                        if mf.vregs[p] == class && colour[p] != NONE {
                            pairs.push((phys(mf, Reg::Virtual(p))?, phys(mf, a)?));
                        }
                    }
                    let temp = match class {
                        RegClass::Gpr => Reg::gpr(GPR_TEMP),
                        RegClass::Pred => Reg::pred(PRED_TEMP),
                    };
                    let seq = vliw_ssa::sequentialize(&pairs, |_| temp, |x, y| x == y)
                        .map_err(|e| format!("block arguments of {b}: {e:?}"))?;
                    for (d, s) in seq {
                        out.push((None, mov(class, d, s, MGuard::ALWAYS, inst.loc)));
                        stats.after += 1;
                    }
                }
                inst.args.clear();
            }
            if inst.op != MOp::Copy && !matches!(inst.op, MOp::Op(_)) {
                return Err(format!("{b}: `{:?}` left after colouring", inst.op));
            }
            out.push((Some(id), inst));
        }
        new_blocks.push(out);
    }
    // nothing changes before every block is rewritten: on an error the function is
    // still the allocator's input
    for (&b, insts) in mf.layout.clone().iter().zip(new_blocks) {
        let order = insts
            .into_iter()
            .map(|(id, inst)| match id {
                Some(id) => {
                    *mf.inst_mut(id) = inst;
                    id
                }
                None => mf.make_inst(inst),
            })
            .collect();
        mf.set_block_insts(b, order);
        mf.blocks[b].params.clear();
    }
    Ok(())
}
