//! The verifier: what must hold of a function at each phase of the pipeline
//! ([`Phase`]). Every error names the function, the block and the operation (as text).
//!
//! - every phase: the layout names existing blocks once each; every operation is in
//!   one block; registers, blocks, frame slots and jump tables exist; guards are
//!   predicates; operands match their format in number and class (copies: as many
//!   definitions as sources, class for class; ψ: one definition, a predicate guard per
//!   argument, arguments of the definition's class); branch targets are laid out;
//!   a format without an immediate has none (`jr` may name its jump table).
//! - [`Phase::Ssa`] (instruction selection to leaving SSA): every block ends in an
//!   unconditional `br`, `jr`, `ret` or `trap` and nothing follows one; only the final
//!   `br` passes block arguments, matching the target's parameters in number and
//!   class; each virtual register has one definition, which dominates its uses (a
//!   block argument is read at the end of its block).
//! - [`Phase::Virtual`] (after leaving SSA): the block ends as in SSA; no block
//!   parameters or arguments; a virtual register may have several definitions but
//!   every one used has one.
//! - [`Phase::Allocated`] (after register allocation, frame lowering and branch
//!   cleanup): no virtual register anywhere; only machine operations (what emission
//!   takes); a block may fall through to the next (not the last); once the frame is
//!   laid out no frame-slot or incoming-argument immediate is left.
//! - [`Phase::Bundled`] (after bundling): as allocated, frame immediates resolved,
//!   and the bundles cover each block exactly (every operation of the layout in one
//!   bundle, in block order), none empty, each legal for the machine
//!   (`vliw_isa::check_bundle`: issue width with `limm` syllables, units).

use core::fmt;
use rustc_hash::FxHashSet as HashSet;

use cranelift_entity::EntityRef;
use vliw_isa::{CmpType, FieldKind, MachineConfig, Opcode, check_bundle};

use super::{
    Imm, MBlock, MInst, MOp, MachFunction, Reg, RegClass, VReg, encoding_of, field_class,
    operand_fields,
};

/// The phases of the pipeline, each with its invariants (see the module documentation).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Phase {
    /// Machine SSA: after instruction selection, until leaving SSA.
    Ssa,
    /// After leaving SSA: no block arguments; virtual registers may have several
    /// definitions.
    Virtual,
    /// After register allocation (and frame lowering, branch cleanup).
    Allocated,
    /// After bundling.
    Bundled,
}

/// One violated invariant.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VerifyError {
    pub function: String,
    pub block: Option<MBlock>,
    /// The operation, as text.
    pub inst: Option<String>,
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.function)?;
        if let Some(b) = self.block {
            write!(f, ": {b}")?;
        }
        if let Some(i) = &self.inst {
            write!(f, ": `{i}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Every violated invariant of a function, in layout order.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct VerifyErrors(pub Vec<VerifyError>);

impl fmt::Display for VerifyErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifyErrors {}

impl MachFunction {
    /// Checks the invariants of `phase` (bundles against the default machine).
    pub fn verify(&self, phase: Phase) -> Result<(), VerifyErrors> {
        self.verify_for(phase, &MachineConfig::default())
    }

    /// Checks the invariants of `phase`; bundles against the machine `config`.
    pub fn verify_for(&self, phase: Phase, config: &MachineConfig) -> Result<(), VerifyErrors> {
        let mut v = Verifier {
            f: self,
            phase,
            errors: Vec::new(),
        };
        v.run(config);
        if v.errors.is_empty() {
            Ok(())
        } else {
            Err(VerifyErrors(v.errors))
        }
    }
}

struct Verifier<'a> {
    f: &'a MachFunction,
    phase: Phase,
    errors: Vec<VerifyError>,
}

/// Where a virtual register is defined or used: block and position (-1: a parameter;
/// the block's length: its end, where block arguments are read).
type Site = (MBlock, isize);

impl Verifier<'_> {
    fn error(&mut self, block: Option<MBlock>, inst: Option<&MInst>, message: String) {
        self.errors.push(VerifyError {
            function: self.f.name.clone(),
            block,
            inst: inst.map(|i| self.f.display_inst(i)),
            message,
        });
    }

    fn reg_ok(&self, r: Reg) -> bool {
        match r {
            Reg::Virtual(v) => v.index() < self.f.vregs.len(),
            Reg::Physical(_) => true,
        }
    }

    fn class(&self, r: Reg) -> Option<RegClass> {
        match r {
            Reg::Virtual(v) => self.f.vregs.get(v).copied(),
            Reg::Physical(p) => Some(p.class()),
        }
    }

    fn run(&mut self, config: &MachineConfig) {
        if !self.layout() {
            return;
        }
        let f = self.f;
        for (k, &b) in f.layout.iter().enumerate() {
            self.block(b, k + 1 == f.layout.len());
        }
        if !self.errors.is_empty() {
            return; // the analyses below need a well-formed function
        }
        self.unwind_edges();
        match self.phase {
            Phase::Ssa => self.ssa(),
            Phase::Virtual => self.defined_somewhere(),
            Phase::Allocated => {}
            Phase::Bundled => self.bundles(config),
        }
    }

    /// The layout: existing blocks, each once; each operation in one place.
    fn layout(&mut self) -> bool {
        let f = self.f;
        if f.layout.is_empty() {
            self.error(None, None, "no blocks in the layout".into());
            return false;
        }
        // dense marks, not hash sets: the layout of a large function is long
        let mut seen = vec![false; f.blocks.len()];
        let mut ids = vec![false; f.insts.len()];
        for &b in &f.layout {
            if b.index() >= f.blocks.len() {
                self.error(Some(b), None, "laid out but does not exist".into());
                continue;
            }
            if std::mem::replace(&mut seen[b.index()], true) {
                self.error(Some(b), None, "laid out twice".into());
                continue;
            }
            for &id in f.block_inst_ids(b) {
                if id.index() >= f.insts.len() {
                    self.error(Some(b), None, format!("{id} does not exist"));
                } else if std::mem::replace(&mut ids[id.index()], true) {
                    self.error(
                        Some(b),
                        Some(&f.insts[id]),
                        format!("{id} is in the layout twice"),
                    );
                }
            }
        }
        self.errors.is_empty()
    }

    fn block(&mut self, b: MBlock, last_block: bool) {
        let f = self.f;
        let ssa = self.phase == Phase::Ssa;
        for &p in &f.blocks[b].params {
            if !ssa {
                self.error(
                    Some(b),
                    None,
                    format!("block parameter {} after leaving SSA", f.reg(p.into())),
                );
            } else if !self.reg_ok(p.into()) {
                self.error(Some(b), None, format!("parameter {p} does not exist"));
            }
        }
        let n = f.block_len(b);
        match f.last_inst(b) {
            Some(last) if last.is_unconditional_exit() => {}
            _ if !matches!(self.phase, Phase::Ssa | Phase::Virtual) && !last_block => {}
            None => self.error(Some(b), None, "empty block".into()),
            Some(last) => self.error(
                Some(b),
                Some(last),
                "the block does not end in an unconditional branch, return or trap".into(),
            ),
        }
        for (i, inst) in f.block_insts(b).enumerate() {
            if inst.is_unconditional_exit() && i + 1 < n {
                self.error(
                    Some(b),
                    Some(inst),
                    "operations after an unconditional branch, return or trap".into(),
                );
            }
            self.inst(b, inst, i + 1 == n);
        }
    }

    /// Unwind edges (`MInst::unwind`): only calls have one; its target is a landing
    /// block, entered by unwind edges only; before allocation the call is followed in
    /// its block by nothing but the copies or loads of its results (from physical
    /// registers, or the stack pointer's outgoing area) and the final `br`, so that
    /// every other value of the block is defined before the edge leaves and a
    /// block-level dominance is true of the landing block's reads.
    fn unwind_edges(&mut self) {
        let f = self.f;
        let mut pads: HashSet<MBlock> = HashSet::default();
        for &b in &f.layout {
            for inst in f.block_insts(b) {
                if let Some(u) = inst.unwind {
                    pads.insert(u.pad);
                }
            }
        }
        if pads.is_empty() {
            return;
        }
        let before_allocation = matches!(self.phase, Phase::Ssa | Phase::Virtual);
        for &b in &f.layout {
            let mut after_unwinding_call = false;
            for inst in f.block_insts(b) {
                if let Some(crate::mir::Unwind { pad, .. }) = inst.unwind {
                    if !(inst.is(Opcode::Call) || inst.is(Opcode::Callr)) {
                        self.error(
                            Some(b),
                            Some(inst),
                            "an unwind edge on an operation that is no call".into(),
                        );
                    }
                    if !f.layout.contains(&pad) {
                        self.error(
                            Some(b),
                            Some(inst),
                            format!("the landing block {pad} is not laid out"),
                        );
                    }
                    after_unwinding_call = true;
                    continue;
                }
                for t in inst.branch_targets(f) {
                    if pads.contains(&t) {
                        self.error(
                            Some(b),
                            Some(inst),
                            format!(
                                "a branch to {t}, a landing block (entered by unwind edges only)"
                            ),
                        );
                    }
                }
                let result_copy = inst.op == MOp::Copy
                    && inst.uses.iter().all(|u| u.as_physical().is_some())
                    || inst.is(Opcode::LdD) && inst.uses.first() == Some(&Reg::SP);
                let final_br = inst.is(Opcode::Br) && inst.guard.is_always();
                if before_allocation && after_unwinding_call && !result_copy && !final_br {
                    self.error(
                        Some(b),
                        Some(inst),
                        "after a call with an unwind edge, an operation other than the copies of its results and the final branch".into(),
                    );
                }
            }
        }
    }

    /// `keeps k`: in machine SSA, on one virtual definition of `k`'s class, under a
    /// guard (the kept value is what the definition is where the guard is false).
    fn keep(&mut self, b: MBlock, inst: &MInst, k: Reg) {
        let f = self.f;
        let problem = if self.phase != Phase::Ssa {
            Some(format!("`keeps {}` after leaving SSA", f.reg(k)))
        } else if inst.defs.len() != 1 || inst.defs[0].as_virtual().is_none() {
            Some("`keeps` on an operation without exactly one virtual definition".into())
        } else if k.as_virtual().is_none() || self.class(k) != self.class(inst.defs[0]) {
            Some(format!(
                "`keeps {}`: not a virtual register of the definition's class",
                f.reg(k)
            ))
        } else if inst.guard.is_always() {
            Some("`keeps` on an operation without a guard".into())
        } else if !matches!(inst.ctype, CmpType::Normal) || !inst.implicit_defs.is_empty() {
            Some("`keeps` on an operation that writes where its guard is false".into())
        } else {
            None
        };
        if let Some(m) = problem {
            self.error(Some(b), Some(inst), m);
        }
    }

    fn inst(&mut self, b: MBlock, inst: &MInst, is_last: bool) {
        let f = self.f;
        let err = |v: &mut Self, m: String| v.error(Some(b), Some(inst), m);
        // registers exist
        let regs = inst.all_uses().chain(inst.all_defs()).collect::<Vec<_>>();
        if let Some(r) = regs.iter().find(|&&r| !self.reg_ok(r)) {
            err(self, format!("{r:?} does not exist"));
            return;
        }
        if self.class(inst.guard.pred) != Some(RegClass::Pred) {
            err(self, "the guard is not a predicate".into());
        }
        if matches!(self.phase, Phase::Allocated | Phase::Bundled) {
            if let Some(r) = regs.iter().find(|r| r.as_virtual().is_some()) {
                err(
                    self,
                    format!("virtual register {} after allocation", f.reg(*r)),
                );
            }
            if !matches!(inst.op, MOp::Op(_)) {
                err(
                    self,
                    "a pseudo operation after allocation (emission takes machine operations only)"
                        .into(),
                );
            }
        }
        if let Some(k) = inst.keep {
            self.keep(b, inst, k);
        }
        if inst.scope.is_some() && !inst.is_memory_access() {
            err(
                self,
                "an alias scope on an operation that is no load or store".into(),
            );
        }
        // operands
        match inst.op {
            MOp::Op(opcode) => {
                let (dk, uk) = operand_fields(opcode.format());
                if dk.len() != inst.defs.len() || uk.len() != inst.uses.len() {
                    err(
                        self,
                        format!(
                            "{} definition(s) and {} source(s), the format of `{}` has {} and {}",
                            inst.defs.len(),
                            inst.uses.len(),
                            opcode.mnemonic(),
                            dk.len(),
                            uk.len()
                        ),
                    );
                } else {
                    for (k, r) in dk.iter().zip(&inst.defs).chain(uk.iter().zip(&inst.uses)) {
                        if self.class(*r) != Some(field_class(*k)) {
                            err(
                                self,
                                format!("operand {} ({k:?}) of the wrong class", f.reg(*r)),
                            );
                        }
                    }
                }
                let annotation = opcode == Opcode::Jr && matches!(inst.imm, Imm::JumpTable(_));
                if !opcode.format().has(FieldKind::Imm) && inst.imm != Imm::None && !annotation {
                    err(self, "an immediate on a format without one".into());
                }
                if !inst.psi_guards.is_empty() {
                    err(self, "ψ guards on an operation other than `psi`".into());
                }
            }
            MOp::Copy | MOp::ParallelCopy => {
                if inst.op == MOp::Copy && (inst.defs.len() != 1 || inst.uses.len() != 1) {
                    err(self, "a copy has one definition and one source".into());
                } else if inst.defs.len() != inst.uses.len() {
                    err(
                        self,
                        format!(
                            "a parallel copy with {} definitions and {} sources",
                            inst.defs.len(),
                            inst.uses.len()
                        ),
                    );
                }
                for (d, s) in inst.defs.iter().zip(&inst.uses) {
                    if self.class(*d) != self.class(*s) {
                        err(
                            self,
                            format!("copy of {} into {} of another class", f.reg(*s), f.reg(*d)),
                        );
                    }
                }
                if inst.op == MOp::ParallelCopy {
                    let mut seen = HashSet::default();
                    for d in &inst.defs {
                        if *d != Reg::ZERO && *d != Reg::P0 && !seen.insert(*d) {
                            err(self, format!("{} is written twice", f.reg(*d)));
                        }
                    }
                }
                if !inst.psi_guards.is_empty() {
                    err(self, "ψ guards on an operation other than `psi`".into());
                }
                if inst.imm != Imm::None {
                    err(self, "an immediate on a copy".into());
                }
            }
            MOp::Psi => {
                if inst.defs.len() != 1 || inst.uses.is_empty() {
                    err(
                        self,
                        "a ψ has one definition and at least one argument".into(),
                    );
                }
                if inst.psi_guards.len() != inst.uses.len() {
                    err(
                        self,
                        format!(
                            "a ψ with {} argument(s) and {} guard(s)",
                            inst.uses.len(),
                            inst.psi_guards.len()
                        ),
                    );
                }
                for g in &inst.psi_guards {
                    if self.class(g.pred) != Some(RegClass::Pred) {
                        err(
                            self,
                            format!("ψ guard {} is not a predicate", f.reg(g.pred)),
                        );
                    }
                }
                if let Some(&d) = inst.defs.first() {
                    for u in &inst.uses {
                        if self.class(*u) != self.class(d) {
                            err(
                                self,
                                format!(
                                    "ψ argument {} of another class than {}",
                                    f.reg(*u),
                                    f.reg(d)
                                ),
                            );
                        }
                    }
                }
            }
        }
        // immediates
        match inst.imm {
            Imm::Block(t) => {
                if t.index() >= f.blocks.len() || !f.layout.contains(&t) {
                    err(self, format!("branch to {t}, which is not laid out"));
                }
            }
            Imm::JumpTable(jt) => match f.jump_tables.get(jt) {
                None => err(self, format!("{jt} does not exist")),
                Some(targets) => {
                    if let Some(t) = targets.iter().find(|t| !f.layout.contains(t)) {
                        err(self, format!("{jt} names {t}, which is not laid out"));
                    }
                }
            },
            Imm::Slot { slot, .. } => {
                if slot.index() >= f.slots.len() {
                    err(self, format!("{slot} does not exist"));
                } else if f.frame.is_some() || self.phase == Phase::Bundled {
                    err(self, format!("{slot} left after frame lowering"));
                }
            }
            Imm::IncomingArg(_) => {
                if f.frame.is_some() || self.phase == Phase::Bundled {
                    err(
                        self,
                        "an incoming-argument offset left after frame lowering".into(),
                    );
                }
            }
            _ => {}
        }
        // block arguments
        if !inst.args.is_empty() {
            if self.phase != Phase::Ssa {
                err(self, "block arguments after leaving SSA".into());
            } else if !is_last || !inst.is(Opcode::Br) || !inst.guard.is_always() {
                err(
                    self,
                    "block arguments on an operation other than the final unguarded `br`".into(),
                );
            }
        }
        if self.phase == Phase::Ssa
            && inst.is(Opcode::Br)
            && let Imm::Block(t) = inst.imm
            && t.index() < f.blocks.len()
        {
            let params = &f.blocks[t].params;
            if inst.args.len() != params.len() {
                err(
                    self,
                    format!(
                        "passes {} argument(s) to {t}, which takes {}",
                        inst.args.len(),
                        params.len()
                    ),
                );
            } else {
                for (a, p) in inst.args.iter().zip(params) {
                    if self.class(*a) != f.vregs.get(*p).copied() {
                        err(
                            self,
                            format!(
                                "argument {} of another class than parameter {} of {t}",
                                f.reg(*a),
                                f.reg((*p).into())
                            ),
                        );
                    }
                }
            }
        }
    }

    /// Single definitions that dominate their uses.
    fn ssa(&mut self) {
        let f = self.f;
        let mut def: Vec<Option<Site>> = vec![None; f.vregs.len()];
        for &b in &f.layout {
            for &p in &f.blocks[b].params {
                self.define(&mut def, p, (b, -1), None);
            }
            for (i, inst) in f.block_insts(b).enumerate() {
                for d in inst.defs.iter().filter_map(|r| r.as_virtual()) {
                    self.define(&mut def, d, (b, i as isize), Some(inst));
                }
            }
        }
        let cfg = crate::ssa_view::cfg_of(f);
        let dom = vliw_ssa::DomTree::compute(&cfg);
        let block = crate::ssa_view::block;
        for &b in &f.layout {
            if !dom.is_reachable(block(b)) {
                continue;
            }
            for (i, inst) in f.block_insts(b).enumerate() {
                let ordinary = core::iter::once(inst.guard.pred)
                    .chain(inst.psi_guards.iter().map(|g| g.pred))
                    .chain(inst.uses.iter().copied())
                    .chain(inst.keep)
                    .map(|r| (r, i as isize));
                let at_end = inst.args.iter().map(|&r| (r, f.block_len(b) as isize));
                for (r, at) in ordinary.chain(at_end) {
                    let Reg::Virtual(v) = r else { continue };
                    let ok = match def[v.index()] {
                        None => {
                            self.error(
                                Some(b),
                                Some(inst),
                                format!("{} is used but never defined", f.reg(r)),
                            );
                            continue;
                        }
                        Some((db, di)) if db == b => di < at,
                        Some((db, _)) => dom.dominates(block(db), block(b)),
                    };
                    if !ok {
                        self.error(
                            Some(b),
                            Some(inst),
                            format!("the definition of {} does not dominate this use", f.reg(r)),
                        );
                    }
                }
            }
        }
    }

    fn define(&mut self, def: &mut [Option<Site>], v: VReg, at: Site, inst: Option<&MInst>) {
        match def[v.index()] {
            Some((b, _)) => {
                let m = format!(
                    "{} is defined twice (also in {b})",
                    self.f.reg(Reg::Virtual(v))
                );
                self.error(Some(at.0), inst, m);
            }
            None => def[v.index()] = Some(at),
        }
    }

    /// After leaving SSA: every virtual register read is written somewhere.
    fn defined_somewhere(&mut self) {
        let f = self.f;
        let mut defined = vec![false; f.vregs.len()];
        for inst in f.layout_insts() {
            for d in inst.defs.iter().filter_map(|r| r.as_virtual()) {
                defined[d.index()] = true;
            }
        }
        for &b in &f.layout {
            for inst in f.block_insts(b) {
                for r in inst.all_uses() {
                    if let Reg::Virtual(v) = r
                        && !defined[v.index()]
                    {
                        self.error(
                            Some(b),
                            Some(inst),
                            format!("{} is used but never defined", f.reg(r)),
                        );
                    }
                }
            }
        }
    }

    /// The bundles cover the blocks and each fits the machine.
    fn bundles(&mut self, config: &MachineConfig) {
        let f = self.f;
        let Some(bundles) = &f.bundles else {
            self.error(None, None, "not bundled".into());
            return;
        };
        for &b in &f.layout {
            let bs = bundles.block(b);
            if !bs
                .iter()
                .flatten()
                .copied()
                .eq(f.block_inst_ids(b).iter().copied())
            {
                self.error(
                    Some(b),
                    None,
                    "the bundles are not the block's operations in order, each once".into(),
                );
                continue;
            }
            for bundle in bs {
                if bundle.is_empty() {
                    self.error(Some(b), None, "an empty bundle".into());
                    continue;
                }
                let mut insts = Vec::with_capacity(bundle.len());
                for &id in bundle {
                    match encoding_of(f, &f.insts[id]) {
                        Ok(i) => insts.push(i),
                        Err(e) => self.error(Some(b), Some(&f.insts[id]), e.message),
                    }
                }
                if insts.len() != bundle.len() {
                    continue;
                }
                if let Err(e) = check_bundle(&insts, config) {
                    let text: Vec<String> = bundle
                        .iter()
                        .map(|&id| f.display_inst(&f.insts[id]))
                        .collect();
                    self.errors.push(VerifyError {
                        function: f.name.clone(),
                        block: Some(b),
                        inst: Some(text.join(" ; ")),
                        message: format!("the bundle does not fit the machine: {e}"),
                    });
                }
            }
        }
    }
}
