//! The text form: printing. `parse.rs` reads it back; printing, parsing and printing
//! again gives the same text (`docs/machine.md` §2 has the grammar).
//!
//! ```text
//! machine function @f export {
//!     file0 = "src/lib.rs"
//!     outgoing 2 words
//!     fs0 = 8 bytes, align 8 (ir ss0)
//!     jt0 = [block2, block3]
//! block0:
//!     [0:3:9] v1 = ld.d [r1 + fs0+8]
//!     (pv2) br block1(v1)
//! }
//! ```

use core::fmt::{self, Write};

use cranelift_entity::EntityRef;
use vliw_isa::Format;

use super::parse::resolve_opname;
use super::{FrameSlotKind, Imm, MInst, MOp, MachFunction, PReg, Reg, RegClass};

/// A register as the text names it: `v3` (general) or `pv3` (predicate) when virtual,
/// `r3` or `p3` when physical.
pub(crate) struct RegDisplay<'a>(pub &'a MachFunction, pub Reg);

impl fmt::Display for RegDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            Reg::Physical(p) => write!(f, "{p}"),
            Reg::Virtual(v) => match self.0.vregs.get(v) {
                Some(RegClass::Pred) => write!(f, "pv{}", v.index()),
                _ => write!(f, "{v}"),
            },
        }
    }
}

/// Whether an operation prints in the memory form `[base + imm]`: a memory format with
/// its number of sources, no ψ guards.
pub(crate) fn memory_form(inst: &MInst) -> Option<Format> {
    let MOp::Op(o) = inst.op else { return None };
    let want = match o.format() {
        Format::Load => 1,
        Format::Store | Format::Amo => 2,
        Format::Cas => 3,
        _ => return None,
    };
    (inst.uses.len() == want && inst.psi_guards.is_empty()).then_some(o.format())
}

/// The name of an operation: its mnemonic and compare-type suffix when they read back
/// as this operation (with its number of sources and immediate), else the opcode's
/// name (`AddI`, `Copy`, ...) with the suffix.
fn opname(inst: &MInst) -> String {
    let plain = match inst.op {
        MOp::Op(o) => format!("{}{}", o.mnemonic(), inst.ctype.suffix()),
        MOp::Copy => "copy".to_string(),
        MOp::ParallelCopy => "parallel_copy".to_string(),
        MOp::Psi => "psi".to_string(),
    };
    let has_imm = inst.imm != Imm::None;
    if resolve_opname(&plain, inst.uses.len(), has_imm) == Some((inst.op, inst.ctype)) {
        return plain;
    }
    let name = match inst.op {
        MOp::Op(o) => format!("{o:?}"),
        other => format!("{other:?}"),
    };
    format!("{name}{}", inst.ctype.suffix())
}

fn write_offset(f: &mut dyn Write, offset: i64) -> fmt::Result {
    if offset != 0 {
        write!(f, "{offset:+}")?;
    }
    Ok(())
}

/// Physical registers separated by spaces, runs of three or more consecutive
/// registers of one class as `r3-r10`.
fn write_preg_list(f: &mut dyn Write, regs: &[PReg]) -> fmt::Result {
    let num = |p: PReg| match p {
        PReg::Gpr(g) => (RegClass::Gpr as u8, usize::from(g.num())),
        PReg::Pred(q) => (RegClass::Pred as u8, usize::from(q.num())),
    };
    let mut i = 0;
    let mut first = true;
    while i < regs.len() {
        let (class, n) = num(regs[i]);
        let mut j = i + 1;
        while j < regs.len() && num(regs[j]) == (class, n + (j - i)) {
            j += 1;
        }
        if !first {
            f.write_char(' ')?;
        }
        first = false;
        if j - i >= 3 {
            write!(f, "{}-{}", regs[i], regs[j - 1])?;
            i = j;
        } else {
            write!(f, "{}", regs[i])?;
            i += 1;
        }
    }
    Ok(())
}

impl MachFunction {
    pub(crate) fn reg(&self, r: Reg) -> RegDisplay<'_> {
        RegDisplay(self, r)
    }

    /// An immediate as the text writes it: `-8`, `@sym+8`, `@x@tprel`, `block3`, `jt0`,
    /// `fs2+8`, `incoming+16`.
    pub(crate) fn write_imm(&self, f: &mut dyn Write, imm: &Imm) -> fmt::Result {
        match imm {
            Imm::None => Ok(()),
            Imm::Const(c) => write!(f, "{c}"),
            Imm::Symbol { name, addend } => {
                vliw_ir::write::write_symbol(f, name)?;
                write_offset(f, *addend)
            }
            Imm::TpRel { name, addend } => {
                vliw_ir::write::write_symbol(f, name)?;
                f.write_str("@tprel")?;
                write_offset(f, *addend)
            }
            Imm::Block(b) => write!(f, "{b}"),
            Imm::JumpTable(jt) => write!(f, "{jt}"),
            Imm::Slot { slot, offset } => {
                write!(f, "{slot}")?;
                write_offset(f, *offset)
            }
            Imm::IncomingArg(o) => write!(f, "incoming{o:+}"),
        }
    }

    /// The immediate operand with its `long` marker: `long @sym`, or `long` alone.
    fn write_imm_operand(&self, f: &mut dyn Write, inst: &MInst) -> fmt::Result {
        if inst.long {
            f.write_str("long")?;
            if inst.imm != Imm::None {
                f.write_char(' ')?;
            }
        }
        self.write_imm(f, &inst.imm)
    }

    /// One operation as text, without its source location: `(pv3) v4 = add v1, v2`.
    pub fn display_inst(&self, inst: &MInst) -> String {
        let mut s = String::new();
        let _ = self.write_inst(&mut s, inst);
        s
    }

    pub(crate) fn write_inst(&self, f: &mut dyn Write, inst: &MInst) -> fmt::Result {
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
        f.write_str(&opname(inst))?;
        if let Some(format) = memory_form(inst) {
            // memory operations read like the assembly: `ld.d [base + imm]`
            write!(f, " [{}", self.reg(inst.uses[0]))?;
            if inst.imm != Imm::None || inst.long {
                f.write_str(" + ")?;
                self.write_imm_operand(f, inst)?;
            }
            f.write_str("]")?;
            if format == Format::Store {
                write!(f, " = {}", self.reg(inst.uses[1]))?;
            } else {
                for u in &inst.uses[1..] {
                    write!(f, ", {}", self.reg(*u))?;
                }
            }
        } else {
            let mut first = true;
            let mut sep = |f: &mut dyn Write| -> fmt::Result {
                let s = if first { " " } else { ", " };
                first = false;
                f.write_str(s)
            };
            for (i, u) in inst.uses.iter().enumerate() {
                sep(f)?;
                if let Some(g) = inst.psi_guards.get(i) {
                    write!(
                        f,
                        "{}{}: ",
                        if g.negated { "!" } else { "" },
                        self.reg(g.pred)
                    )?;
                }
                write!(f, "{}", self.reg(*u))?;
            }
            if inst.imm != Imm::None || inst.long {
                sep(f)?;
                self.write_imm_operand(f, inst)?;
            }
        }
        if !inst.args.is_empty() {
            f.write_str("(")?;
            for (i, a) in inst.args.iter().enumerate() {
                write!(f, "{}{}", if i > 0 { ", " } else { "" }, self.reg(*a))?;
            }
            f.write_str(")")?;
        }
        if let Some(k) = inst.keep {
            write!(f, " keeps {}", self.reg(k))?;
        }
        if let Some(s) = inst.scope {
            write!(f, " scope {} {}", s.group, s.class)?;
        }
        if !inst.implicit_uses.is_empty() {
            f.write_str(" uses[")?;
            write_preg_list(f, &inst.implicit_uses)?;
            f.write_str("]")?;
        }
        if !inst.implicit_defs.is_empty() {
            f.write_str(" clobbers[")?;
            write_preg_list(f, &inst.implicit_defs)?;
            f.write_str("]")?;
        }
        if let Some(u) = inst.unwind {
            let catch = if u.catch { "catch " } else { "" };
            write!(f, " unwind {catch}{}", u.pad)?;
        }
        Ok(())
    }

    /// The operation with its source location first: `[0:12:5] v1 = movi 1`.
    fn write_inst_line(&self, f: &mut dyn Write, inst: &MInst) -> fmt::Result {
        if !inst.loc.is_default() {
            write!(f, "[{}:{}:{}] ", inst.loc.file, inst.loc.line, inst.loc.col)?;
        }
        self.write_inst(f, inst)
    }
}

impl fmt::Display for MachFunction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("machine function ")?;
        vliw_ir::write::write_symbol(f, &self.name)?;
        if self.linkage != vliw_ir::Linkage::Local {
            write!(f, " {}", self.linkage)?;
        }
        if let Some(p) = &self.personality {
            f.write_str(" personality ")?;
            vliw_ir::write::write_symbol(f, p)?;
        }
        f.write_str(" {\n")?;
        for (i, name) in self.files.iter().enumerate() {
            write!(f, "    file{i} = ")?;
            vliw_ir::write::write_string(f, name.as_bytes())?;
            f.write_char('\n')?;
        }
        if self.outgoing_words != 0 {
            writeln!(f, "    outgoing {} words", self.outgoing_words)?;
        }
        for (slot, d) in self.slots.iter() {
            write!(f, "    {slot} = {} bytes, align {} (", d.size, d.align)?;
            match d.kind {
                FrameSlotKind::Ir(ss) => write!(f, "ir {ss}")?,
                FrameSlotKind::Spill(v) => write!(f, "spill {}", self.reg(Reg::Virtual(v)))?,
                FrameSlotKind::Temp => f.write_str("temp")?,
            }
            f.write_str(")\n")?;
        }
        for (jt, targets) in self.jump_tables.iter() {
            write!(f, "    {jt} = [")?;
            for (i, t) in targets.iter().enumerate() {
                write!(f, "{}{t}", if i > 0 { ", " } else { "" })?;
            }
            f.write_str("]\n")?;
        }
        if let Some(frame) = &self.frame {
            writeln!(f, "    {frame}")?;
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
            f.write_str(":\n")?;
            let bundles = self.bundles.as_ref().map(|bs| bs.block(b));
            match bundles {
                // a bundle per line: `op ; op ;;`
                Some(bundles)
                    if bundles
                        .iter()
                        .flatten()
                        .copied()
                        .eq(data.insts.iter().copied()) =>
                {
                    for bundle in bundles {
                        f.write_str("   ")?;
                        for (i, &id) in bundle.iter().enumerate() {
                            f.write_str(if i > 0 { " ; " } else { " " })?;
                            self.write_inst_line(f, &self.insts[id])?;
                        }
                        f.write_str(" ;;\n")?;
                    }
                }
                other => {
                    if other.is_some() {
                        f.write_str("    ; the bundles of this block are not its operations\n")?;
                    }
                    for inst in self.block_insts(b) {
                        f.write_str("    ")?;
                        self.write_inst_line(f, inst)?;
                        f.write_char('\n')?;
                    }
                }
            }
        }
        f.write_str("}\n")
    }
}
