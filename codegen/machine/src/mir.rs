//! The machine IR ("machine SSA"): functions of machine blocks holding target
//! operations on virtual or physical registers.
//!
//! - Every operation ([`MInst`]) is a `vliw_isa::Opcode` or a pseudo operation
//!   ([`MOp::Copy`], [`MOp::ParallelCopy`], [`MOp::Psi`]), and carries a guard
//!   ([`MGuard`]: a predicate register and its polarity). Instruction selection guards
//!   only branches and traps; if-conversion will guard the rest.
//! - Registers ([`Reg`]) are virtual ([`VReg`], of class [`RegClass::Gpr`] or
//!   [`RegClass::Pred`]) or physical ([`PReg`]). Before register allocation every
//!   virtual register has exactly one definition (SSA); blocks have parameters, and
//!   only the unconditional `br` that ends a block passes block arguments.
//! - Immediates ([`Imm`]) may be symbolic (symbols, blocks, jump tables, frame slots,
//!   incoming arguments) until frame layout and emission resolve them.
//!
//! `docs/machine.md` describes the conventions in full; [`MachFunction`]'s `Display`
//! is the text dump (`dump=isel`, `dump=regalloc`, `dump=final`).

use core::fmt;
use cranelift_entity::{PrimaryMap, entity_impl};
use vliw_ir::{Linkage, SourceLoc};
use vliw_isa::{CmpType, FieldKind, Format, Gpr, Opcode, Pred};

/// A machine block.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MBlock(u32);
entity_impl!(MBlock, "block");

/// An operation: its identity in the function's arena ([`MachFunction::insts`]). An
/// id stays valid while passes reorder, rebuild or bundle the block that holds it.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstId(u32);
entity_impl!(InstId, "inst");

/// A virtual register.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VReg(u32);
entity_impl!(VReg, "v");

/// A slot of the stack frame: an IR stack slot, a spill slot, or a temporary.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FrameSlot(u32);
entity_impl!(FrameSlot, "fs");

/// A jump table (`switch` lowered to an indexed branch).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JumpTable(u32);
entity_impl!(JumpTable, "jt");

/// Register classes: the general registers (integers, pointers, floats) and the
/// one-bit predicates.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum RegClass {
    Gpr,
    Pred,
}

/// A physical register.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum PReg {
    Gpr(Gpr),
    Pred(Pred),
}

impl PReg {
    pub fn class(self) -> RegClass {
        match self {
            PReg::Gpr(_) => RegClass::Gpr,
            PReg::Pred(_) => RegClass::Pred,
        }
    }

    /// `rN`.
    pub fn gpr(n: u8) -> PReg {
        PReg::Gpr(Gpr::new(n).expect("general register number"))
    }

    /// `pN`.
    pub fn pred(n: u8) -> PReg {
        PReg::Pred(Pred::new(n).expect("predicate number"))
    }
}

impl fmt::Display for PReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PReg::Gpr(r) => write!(f, "{r}"),
            PReg::Pred(p) => write!(f, "{p}"),
        }
    }
}

/// An operand register.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Reg {
    Virtual(VReg),
    Physical(PReg),
}

impl Reg {
    /// `r0`: reads as zero, writes are discarded.
    pub const ZERO: Reg = Reg::Physical(PReg::Gpr(Gpr::ZERO));
    /// `r1`: the stack pointer.
    pub const SP: Reg = Reg::Physical(PReg::Gpr(Gpr::SP));
    /// The thread pointer `tp` (r2): the start of this thread's TLS block.
    pub const TP: Reg = Reg::Physical(PReg::Gpr(Gpr::TP));
    /// `r63`: the link register.
    pub const LR: Reg = Reg::Physical(PReg::Gpr(Gpr::LR));
    /// `r62`: the frame pointer.
    pub const FP: Reg = Reg::Physical(PReg::Gpr(Gpr::FP));
    /// `p0`: reads as true, writes are discarded.
    pub const P0: Reg = Reg::Physical(PReg::Pred(Pred::TRUE));

    pub fn gpr(n: u8) -> Reg {
        Reg::Physical(PReg::gpr(n))
    }

    pub fn pred(n: u8) -> Reg {
        Reg::Physical(PReg::pred(n))
    }

    pub fn as_virtual(self) -> Option<VReg> {
        match self {
            Reg::Virtual(v) => Some(v),
            Reg::Physical(_) => None,
        }
    }

    pub fn as_physical(self) -> Option<PReg> {
        match self {
            Reg::Physical(p) => Some(p),
            Reg::Virtual(_) => None,
        }
    }
}

impl From<VReg> for Reg {
    fn from(v: VReg) -> Reg {
        Reg::Virtual(v)
    }
}

impl From<PReg> for Reg {
    fn from(p: PReg) -> Reg {
        Reg::Physical(p)
    }
}

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
    /// Registers written besides `defs` (calls: the caller-saved registers).
    pub implicit_defs: Vec<PReg>,
    /// Registers read besides `uses` (calls: argument registers; `ret`: results).
    pub implicit_uses: Vec<PReg>,
    /// Source location of the IR instruction this came from.
    pub loc: SourceLoc,
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
            implicit_defs: Vec::new(),
            implicit_uses: Vec::new(),
            loc: SourceLoc::default(),
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
            .chain(self.implicit_uses.iter().map(|&p| Reg::Physical(p)))
    }

    /// Every register the operation writes.
    pub fn all_defs(&self) -> impl Iterator<Item = Reg> + '_ {
        self.defs
            .iter()
            .copied()
            .chain(self.implicit_defs.iter().map(|&p| Reg::Physical(p)))
    }

    /// The blocks this operation may branch to (a `br` target or a jump table's).
    pub fn branch_targets<'a>(&'a self, func: &'a MachFunction) -> Vec<MBlock> {
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
    pub frame: Option<crate::frame::FrameLayout>,
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

    /// Checks the structural invariants of the machine IR; used by tests and after
    /// each pass in debug builds. `ssa`: every virtual register is defined once.
    pub fn check(&self, ssa: bool) -> Result<(), String> {
        let mut defined = cranelift_entity::SecondaryMap::<VReg, bool>::new();
        let mut def = |v: VReg, what: &str| -> Result<(), String> {
            if ssa && defined[v] {
                return Err(format!("{}: {v} is defined twice ({what})", self.name));
            }
            defined[v] = true;
            Ok(())
        };
        let in_layout: std::collections::HashSet<MBlock> = self.layout.iter().copied().collect();
        for &b in &self.layout {
            let data = &self.blocks[b];
            for &p in &data.params {
                def(p, "block parameter")?;
            }
            let Some(last) = self.last_inst(b) else {
                return Err(format!("{}: {b} is empty", self.name));
            };
            if !last.is_unconditional_exit() {
                return Err(format!(
                    "{}: {b} does not end in an unconditional branch, return or trap",
                    self.name
                ));
            }
            for (i, inst) in self.block_insts(b).enumerate() {
                if self.class_of(inst.guard.pred) != RegClass::Pred {
                    return Err(format!(
                        "{}: {b}: guard of a non-predicate class",
                        self.name
                    ));
                }
                if !inst.args.is_empty()
                    && (i + 1 != data.insts.len()
                        || !inst.is(Opcode::Br)
                        || !inst.guard.is_always())
                {
                    return Err(format!(
                        "{}: {b}: block arguments on an operation other than the final br",
                        self.name
                    ));
                }
                for t in inst.branch_targets(self) {
                    if !in_layout.contains(&t) {
                        return Err(format!(
                            "{}: {b}: branch to {t}, not in the layout",
                            self.name
                        ));
                    }
                }
                if let Imm::Block(t) = inst.imm {
                    let want = self.blocks[t].params.len();
                    if inst.args.len() != want {
                        return Err(format!(
                            "{}: {b}: branch to {t} passes {} argument(s), it takes {want}",
                            self.name,
                            inst.args.len()
                        ));
                    }
                    for (a, p) in inst.args.iter().zip(&self.blocks[t].params) {
                        if self.class_of(*a) != self.vregs[*p] {
                            return Err(format!(
                                "{}: {b}: argument class mismatch to {t}",
                                self.name
                            ));
                        }
                    }
                }
                if let MOp::Op(opcode) = inst.op {
                    let (dk, uk) = operand_fields(opcode.format());
                    if dk.len() != inst.defs.len() || uk.len() != inst.uses.len() {
                        return Err(format!(
                            "{}: {b}: `{}` has {} def(s) and {} use(s), its format has {} and {}",
                            self.name,
                            opcode.mnemonic(),
                            inst.defs.len(),
                            inst.uses.len(),
                            dk.len(),
                            uk.len()
                        ));
                    }
                    for (k, r) in dk.iter().zip(&inst.defs).chain(uk.iter().zip(&inst.uses)) {
                        if self.class_of(*r) != field_class(*k) {
                            return Err(format!(
                                "{}: {b}: `{}`: operand {k:?} of the wrong class",
                                self.name,
                                opcode.mnemonic()
                            ));
                        }
                    }
                } else if inst.defs.len() != inst.uses.len() && inst.op != MOp::Psi {
                    return Err(format!(
                        "{}: {b}: copy with {} defs and {} uses",
                        self.name,
                        inst.defs.len(),
                        inst.uses.len()
                    ));
                }
                for d in inst.defs.iter() {
                    if let Reg::Virtual(v) = d {
                        def(*v, "operation")?;
                    }
                }
            }
        }
        Ok(())
    }
}

// ---- text dump ----

struct RegDisplay<'a>(&'a MachFunction, Reg);

impl fmt::Display for RegDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            Reg::Physical(p) => write!(f, "{p}"),
            Reg::Virtual(v) => match self.0.vregs.get(v) {
                Some(RegClass::Pred) => write!(f, "pv{}", cranelift_entity::EntityRef::index(v)),
                _ => write!(f, "{v}"),
            },
        }
    }
}

impl MachFunction {
    fn reg(&self, r: Reg) -> RegDisplay<'_> {
        RegDisplay(self, r)
    }

    fn write_imm(&self, f: &mut dyn fmt::Write, imm: &Imm) -> fmt::Result {
        match imm {
            Imm::None => Ok(()),
            Imm::Const(c) => write!(f, "{c}"),
            Imm::Symbol { name, addend } => {
                write!(f, "@{name}")?;
                if *addend != 0 {
                    write!(f, "{addend:+}")?;
                }
                Ok(())
            }
            Imm::TpRel { name, addend } => {
                write!(f, "@{name}@tprel")?;
                if *addend != 0 {
                    write!(f, "{addend:+}")?;
                }
                Ok(())
            }
            Imm::Block(b) => write!(f, "{b}"),
            Imm::JumpTable(jt) => write!(f, "{jt}"),
            Imm::Slot { slot, offset } => {
                write!(f, "{slot}")?;
                if *offset != 0 {
                    write!(f, "{offset:+}")?;
                }
                Ok(())
            }
            Imm::IncomingArg(o) => write!(f, "incoming{o:+}"),
        }
    }

    /// One operation as text: `(pv3) v4 = add v1, v2`.
    pub fn display_inst(&self, inst: &MInst) -> String {
        let mut s = String::new();
        let _ = self.write_inst(&mut s, inst);
        s
    }

    fn write_inst(&self, f: &mut dyn fmt::Write, inst: &MInst) -> fmt::Result {
        if !inst.guard.is_always() {
            write!(
                f,
                "({}{}) ",
                if inst.guard.negated { "!" } else { "" },
                self.reg(inst.guard.pred)
            )?;
        }
        for (i, d) in inst.defs.iter().enumerate() {
            write!(f, "{}{}", if i > 0 { ", " } else { "" }, self.reg(*d))?;
        }
        if !inst.defs.is_empty() {
            f.write_str(" = ")?;
        }
        match inst.op {
            MOp::Op(o) => {
                f.write_str(o.mnemonic())?;
                f.write_str(inst.ctype.suffix())?;
            }
            MOp::Copy => f.write_str("copy")?,
            MOp::ParallelCopy => f.write_str("parallel_copy")?,
            MOp::Psi => f.write_str("psi")?,
        }
        // memory operations read like the assembly: `ld.d [base + imm]`
        if let MOp::Op(o) = inst.op
            && matches!(
                o.format(),
                Format::Load | Format::Store | Format::Amo | Format::Cas
            )
        {
            write!(f, " [{}", self.reg(inst.uses[0]))?;
            if inst.imm != Imm::None {
                f.write_str(" + ")?;
                self.write_imm(f, &inst.imm)?;
            }
            f.write_str("]")?;
            if o.format() == Format::Store {
                write!(f, " = {}", self.reg(inst.uses[1]))?;
            } else {
                for u in &inst.uses[1..] {
                    write!(f, ", {}", self.reg(*u))?;
                }
            }
            return self.write_implicit(f, inst);
        }
        let mut first = true;
        let mut sep = |f: &mut dyn fmt::Write| -> fmt::Result {
            let s = if first { " " } else { ", " };
            first = false;
            f.write_str(s)
        };
        for (i, u) in inst.uses.iter().enumerate() {
            sep(f)?;
            if inst.op == MOp::Psi
                && let Some(g) = inst.psi_guards.get(i)
            {
                write!(
                    f,
                    "{}{}: ",
                    if g.negated { "!" } else { "" },
                    self.reg(g.pred)
                )?;
            }
            write!(f, "{}", self.reg(*u))?;
        }
        if inst.imm != Imm::None {
            sep(f)?;
            if inst.long {
                f.write_str("long ")?;
            }
            self.write_imm(f, &inst.imm)?;
        }
        if !inst.args.is_empty() {
            f.write_str("(")?;
            for (i, a) in inst.args.iter().enumerate() {
                write!(f, "{}{}", if i > 0 { ", " } else { "" }, self.reg(*a))?;
            }
            f.write_str(")")?;
        }
        self.write_implicit(f, inst)
    }

    fn write_implicit(&self, f: &mut dyn fmt::Write, inst: &MInst) -> fmt::Result {
        if !inst.implicit_uses.is_empty() {
            f.write_str(" uses[")?;
            for (i, p) in inst.implicit_uses.iter().enumerate() {
                write!(f, "{}{p}", if i > 0 { " " } else { "" })?;
            }
            f.write_str("]")?;
        }
        if !inst.implicit_defs.is_empty() {
            write!(f, " clobbers[{} regs]", inst.implicit_defs.len())?;
        }
        Ok(())
    }
}

impl fmt::Display for MachFunction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "machine function @{} {{", self.name)?;
        for (slot, d) in self.slots.iter() {
            let what = match d.kind {
                FrameSlotKind::Ir(ss) => format!("ir {ss}"),
                FrameSlotKind::Spill(v) => format!("spill {}", self.reg(Reg::Virtual(v))),
                FrameSlotKind::Temp => "temp".to_string(),
            };
            writeln!(
                f,
                "    {slot} = {} bytes, align {} ({what})",
                d.size, d.align
            )?;
        }
        for (jt, targets) in self.jump_tables.iter() {
            write!(f, "    {jt} = [")?;
            for (i, t) in targets.iter().enumerate() {
                write!(f, "{}{t}", if i > 0 { ", " } else { "" })?;
            }
            writeln!(f, "]")?;
        }
        if let Some(frame) = &self.frame {
            writeln!(f, "    ; {frame}")?;
        }
        for &b in &self.layout {
            let data = &self.blocks[b];
            write!(f, "{b}")?;
            if !data.params.is_empty() {
                f.write_str("(")?;
                for (i, p) in data.params.iter().enumerate() {
                    write!(
                        f,
                        "{}{}",
                        if i > 0 { ", " } else { "" },
                        self.reg(Reg::Virtual(*p))
                    )?;
                }
                f.write_str(")")?;
            }
            writeln!(f, ":")?;
            for inst in self.block_insts(b) {
                f.write_str("    ")?;
                self.write_inst(f, inst)?;
                writeln!(f)?;
            }
        }
        writeln!(f, "}}")
    }
}
