//! The machine operation (`vliw_isa::Inst`) an allocated operation is encoded as: what
//! the encoder emits and what the verifier checks bundles with.

use vliw_isa::{FieldKind, Gpr, Guard, Inst, Pred};

use super::{Imm, MInst, MOp, MachFunction, PReg, Reg, operand_fields};
use crate::error::CompileError;

fn gpr(func: &MachFunction, r: Reg) -> Result<Gpr, CompileError> {
    match r {
        Reg::Physical(PReg::Gpr(g)) => Ok(g),
        _ => Err(CompileError::new(
            &func.name,
            format!("operand {r:?} is not an allocated general register"),
        )),
    }
}

fn pred(func: &MachFunction, r: Reg) -> Result<Pred, CompileError> {
    match r {
        Reg::Physical(PReg::Pred(p)) => Ok(p),
        _ => Err(CompileError::new(
            &func.name,
            format!("operand {r:?} is not an allocated predicate"),
        )),
    }
}

/// The machine operation of an allocated `MInst`, with the immediate left at 0 when it
/// is symbolic (a block, symbol or jump table).
pub fn to_inst(func: &MachFunction, mi: &MInst) -> Result<Inst, CompileError> {
    let MOp::Op(opcode) = mi.op else {
        return Err(CompileError::new(
            &func.name,
            format!("pseudo operation {:?} left at emission", mi.op),
        ));
    };
    let mut inst = Inst::new(opcode);
    inst.guard = Guard::new(pred(func, mi.guard.pred)?, mi.guard.negated);
    inst.ctype = mi.ctype;
    inst.long = mi.long;
    let (dk, uk) = operand_fields(opcode.format());
    for (k, r) in dk.iter().zip(&mi.defs).chain(uk.iter().zip(&mi.uses)) {
        match k {
            FieldKind::Rd => inst.rd = gpr(func, *r)?,
            FieldKind::Rs1 => inst.rs1 = gpr(func, *r)?,
            FieldKind::Rs2 => inst.rs2 = gpr(func, *r)?,
            FieldKind::Rs3 => inst.rs3 = gpr(func, *r)?,
            FieldKind::Pd1 => inst.pd1 = pred(func, *r)?,
            FieldKind::Pd2 => inst.pd2 = pred(func, *r)?,
            FieldKind::Ps1 => inst.ps1 = pred(func, *r)?,
            FieldKind::Ps2 => inst.ps2 = pred(func, *r)?,
            _ => {}
        }
    }
    if opcode.format().has(FieldKind::Imm)
        && let Imm::Const(c) = mi.imm
    {
        inst.imm = c;
    }
    Ok(inst)
}

/// The machine operation an allocated `MInst` is encoded as, before branch offsets
/// are known: a symbolic immediate is 0, or stays long when the operation asks for
/// the `limm` form, so that its size (`Inst::syllables`) is final.
pub fn encoding_of(func: &MachFunction, mi: &MInst) -> Result<Inst, CompileError> {
    let mut inst = to_inst(func, mi)?;
    if matches!(mi.imm, Imm::Symbol { .. } | Imm::TpRel { .. })
        && inst.format().is_extendable()
        && !mi.long
    {
        inst.imm = 0; // R_VLIW_IMM32: one syllable
    }
    Ok(inst)
}
