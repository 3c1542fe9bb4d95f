//! Operations: what they do ([`MOp`]), their guard, operands and immediate.

use vliw_ir::SourceLoc;
use vliw_isa::{CmpType, FieldKind, Format, Opcode};

use super::{FrameSlot, JumpTable, PReg};
use super::{MBlock, MachFunction, Reg, RegClass};

/// The guard of an operation: it takes effect when `pred` (negated if `negated`) is
/// true. `p0` (the default) always executes.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct MGuard {
    pub pred: Reg,
    pub negated: bool,
}

impl MGuard {
    pub const ALWAYS: MGuard = MGuard {
        pred: Reg::P0,
        negated: false,
    };

    pub fn new(pred: Reg, negated: bool) -> MGuard {
        MGuard { pred, negated }
    }

    pub fn is_always(self) -> bool {
        self == MGuard::ALWAYS
    }
}

impl Default for MGuard {
    fn default() -> Self {
        MGuard::ALWAYS
    }
}

/// What an operation does: a machine opcode or a pseudo operation.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum MOp {
    /// A machine operation; its operands follow its format (see [`operand_fields`]).
    Op(Opcode),
    /// `defs[0] = uses[0]` (same class).
    Copy,
    /// `defs[i] = uses[i]` for all i at once (every use is read before any def is
    /// written): block arguments after leaving SSA.
    ParallelCopy,
    /// `defs[0] = psi(g0: uses[0], g1: uses[1], ...)`: the value of the last argument
    /// whose guard (`psi_guards[i]`) is true (Psi-SSA; made by if-conversion).
    Psi,
}

/// An immediate operand.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Imm {
    #[default]
    None,
    Const(i64),
    /// The address of a symbol plus an addend (a relocation at emission).
    Symbol {
        name: String,
        addend: i64,
    },
    /// The offset of thread-local `name` plus `addend` from the thread pointer
    /// (`R_VLIW_TPREL32` at emission; always the 32-bit form).
    TpRel {
        name: String,
        addend: i64,
    },
    /// A block of this function: the target of a branch.
    Block(MBlock),
    /// The address of a jump table (in `.rodata`).
    JumpTable(JumpTable),
    /// The offset of a frame slot from `sp`, plus `offset` (known after frame layout).
    Slot {
        slot: FrameSlot,
        offset: i64,
    },
    /// The offset from `sp` of the word `offset` bytes above the stack pointer at the
    /// function's entry (incoming stack arguments, the return area).
    IncomingArg(i64),
}

/// A machine operation.
#[derive(Clone, PartialEq, Debug)]
pub struct MInst {
    pub op: MOp,
    pub guard: MGuard,
    /// Registers written, in the order of the format's destination fields.
    pub defs: Vec<Reg>,
    /// Registers read, in the order of the format's source fields.
    pub uses: Vec<Reg>,
    pub imm: Imm,
    /// Compare type of compares.
    pub ctype: CmpType,
    /// Force the 64-bit (`limm`) form of the immediate.
    pub long: bool,
    /// Block arguments of an unconditional `br` (before leaving SSA).
    pub args: Vec<Reg>,
    /// The guard of each argument of a `Psi`.
    pub psi_guards: Vec<MGuard>,
    /// Machine SSA only: the value the definition keeps where the guard is false
    /// (`(p) v2 = add v0, v1 keeps v3`: `v2` is `v0 + v1` where `p` holds, `v3`
    /// elsewhere). Out of Psi-SSA by predicated copies (`psi::copies`) writes a ψ's
    /// arguments into one register this way; the allocator gives the definition and
    /// the kept value one colour and drops the operand.
    pub keep: Option<Reg>,
    /// Registers written besides `defs` (calls: the caller-saved registers).
    pub implicit_defs: Vec<PReg>,
    /// Registers read besides `uses` (calls: argument registers; `ret`: results).
    pub implicit_uses: Vec<PReg>,
    /// Source location of the IR instruction this came from.
    pub loc: SourceLoc,
    /// Loads and stores: the alias scope of the IR access (`vliw_ir::AliasScope`):
    /// the dependence graphs do not order two accesses it proves apart.
    pub scope: Option<vliw_ir::AliasScope>,
    /// Calls of an `invoke`: where the callee may unwind to.
    pub unwind: Option<Unwind>,
}

/// The unwind edge of a call (text: `unwind blockN` or `unwind catch blockN`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Unwind {
    /// The landing block: a successor of the call's block whose edge leaves from the
    /// call, entered by unwind edges only.
    pub pad: MBlock,
    /// Whether the landing pad catches every exception (the search phase of
    /// unwinding stops at it: `catch_landing_pad`), or is a cleanup.
    pub catch: bool,
}

impl MInst {
    /// An operation with no operands, guard `p0`.
    pub fn new(op: MOp) -> MInst {
        MInst {
            op,
            guard: MGuard::ALWAYS,
            defs: Vec::new(),
            uses: Vec::new(),
            imm: Imm::None,
            ctype: CmpType::Normal,
            long: false,
            args: Vec::new(),
            psi_guards: Vec::new(),
            keep: None,
            implicit_defs: Vec::new(),
            implicit_uses: Vec::new(),
            loc: SourceLoc::default(),
            scope: None,
            unwind: None,
        }
    }

    /// A machine operation with the given defs, uses and immediate.
    pub fn op(opcode: Opcode, defs: &[Reg], uses: &[Reg], imm: Imm) -> MInst {
        let mut i = MInst::new(MOp::Op(opcode));
        i.defs = defs.to_vec();
        i.uses = uses.to_vec();
        i.imm = imm;
        i
    }

    pub fn copy(dst: Reg, src: Reg) -> MInst {
        let mut i = MInst::new(MOp::Copy);
        i.defs = vec![dst];
        i.uses = vec![src];
        i
    }

    pub fn with_guard(mut self, guard: MGuard) -> MInst {
        self.guard = guard;
        self
    }

    pub fn opcode(&self) -> Option<Opcode> {
        match self.op {
            MOp::Op(o) => Some(o),
            _ => None,
        }
    }

    pub fn is(&self, opcode: Opcode) -> bool {
        self.op == MOp::Op(opcode)
    }

    /// A load or store (speculative loads included): what an alias scope describes.
    pub fn is_memory_access(&self) -> bool {
        self.opcode()
            .is_some_and(|o| matches!(o.format(), Format::Load | Format::Store))
    }

    /// Ends straight-line flow unconditionally: an unguarded `br`, `jr`, `ret` or `trap`.
    pub fn is_unconditional_exit(&self) -> bool {
        self.guard.is_always()
            && matches!(
                self.op,
                MOp::Op(Opcode::Br | Opcode::Jr | Opcode::Ret | Opcode::Trap)
            )
    }

    /// Every register the operation reads: guard, uses, block arguments, implicit uses.
    pub fn all_uses(&self) -> impl Iterator<Item = Reg> + '_ {
        core::iter::once(self.guard.pred)
            .chain(self.psi_guards.iter().map(|g| g.pred))
            .chain(self.uses.iter().copied())
            .chain(self.args.iter().copied())
            .chain(self.keep)
            .chain(self.implicit_uses.iter().map(|&p| Reg::Physical(p)))
    }

    /// Replaces every read of `old` (guard, operands, ψ guards, block arguments, kept
    /// value) by `new`.
    pub fn replace_use(&mut self, old: Reg, new: Reg) {
        self.rename_uses(|r| if r == old { new } else { r });
    }

    /// Replaces every read `r` (guard, operands, ψ guards, block arguments, kept
    /// value) by `rename(r)`: one pass over the operation for any number of renamings.
    pub fn rename_uses(&mut self, mut rename: impl FnMut(Reg) -> Reg) {
        let mut swap = |r: &mut Reg| *r = rename(*r);
        swap(&mut self.guard.pred);
        self.psi_guards.iter_mut().for_each(|g| swap(&mut g.pred));
        self.uses.iter_mut().for_each(&mut swap);
        self.args.iter_mut().for_each(&mut swap);
        if let Some(k) = self.keep.as_mut() {
            swap(k);
        }
    }

    /// Every register the operation writes.
    pub fn all_defs(&self) -> impl Iterator<Item = Reg> + '_ {
        self.defs
            .iter()
            .copied()
            .chain(self.implicit_defs.iter().map(|&p| Reg::Physical(p)))
    }

    /// The blocks this operation may branch to (a `br` target or a jump table's, or
    /// the landing pad of a call that may unwind).
    pub fn branch_targets<'a>(&'a self, func: &'a MachFunction) -> Vec<MBlock> {
        if let Some(u) = self.unwind {
            return vec![u.pad];
        }
        match (&self.op, &self.imm) {
            (MOp::Op(Opcode::Br), Imm::Block(b)) => vec![*b],
            (MOp::Op(Opcode::Jr), _) | (MOp::Op(Opcode::Addpc), Imm::JumpTable(_)) => {
                match self.imm {
                    Imm::JumpTable(jt) => func.jump_tables[jt].clone(),
                    _ => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }
}

/// The destination and source fields of a format, in the order of `MInst::defs` and
/// `MInst::uses`. Stores list the address first: `st [uses[0] + imm] = uses[1]`;
/// `sel rd = ps1, rs1, rs2` has `uses = [ps1, rs1, rs2]`.
pub fn operand_fields(format: Format) -> (&'static [FieldKind], &'static [FieldKind]) {
    use FieldKind::*;
    match format {
        Format::None | Format::Limm | Format::Branch | Format::Sys => (&[], &[]),
        Format::R1 => (&[Rd], &[Rs1]),
        Format::R2 | Format::Amo => (&[Rd], &[Rs1, Rs2]),
        Format::R3 | Format::Cas => (&[Rd], &[Rs1, Rs2, Rs3]),
        Format::RImm | Format::Load => (&[Rd], &[Rs1]),
        Format::Imm | Format::PcRel => (&[Rd], &[]),
        Format::Sel => (&[Rd], &[Ps1, Rs1, Rs2]),
        Format::Cmp => (&[Pd1, Pd2], &[Rs1, Rs2]),
        Format::CmpImm => (&[Pd1, Pd2], &[Rs1]),
        Format::PLogic => (&[Pd1], &[Ps1, Ps2]),
        Format::PUnary => (&[Pd1], &[Ps1]),
        Format::P2R => (&[Rd], &[Ps1]),
        Format::R2P => (&[Pd1], &[Rs1]),
        Format::Store => (&[], &[Rs1, Rs2]),
        Format::Jump => (&[], &[Rs1]),
    }
}

/// The register class of an operand field.
pub fn field_class(kind: FieldKind) -> RegClass {
    match kind {
        FieldKind::Pd1 | FieldKind::Pd2 | FieldKind::Ps1 | FieldKind::Ps2 => RegClass::Pred,
        _ => RegClass::Gpr,
    }
}
