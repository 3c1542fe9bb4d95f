//! Operations and bundles: parsing an operation with `vliw_isa::parse_inst`,
//! collecting a bundle until `;;`, checking it against the machine configuration,
//! encoding it, and recording fixups for symbolic immediates.

use crate::assemble::{Assembler, FixTarget, Fixup, FixupKind, OpenBundle, PendingOp};
use crate::error::Pos;
use crate::expr::SymValue;
use vliw_isa::{EncodeError, Format, ImmExpr, Opcode, RelocKind, check_bundle, parse_inst};

impl Assembler<'_> {
    /// One operation of the open bundle (opening one if needed).
    pub(crate) fn op(&mut self, text: &str, pos: Pos) {
        let section = self.current_section();
        let bundle = self.bundle.get_or_insert_with(|| OpenBundle {
            pos,
            ops: Vec::new(),
            failed: false,
        });
        if bundle.failed {
            // One error per bundle: later operations are still checked for syntax.
            if let Err(e) = parse_inst(text) {
                self.diag.error(pos, e.to_string());
            }
            return;
        }
        match self.parse_op(text, pos, section) {
            Ok(op) => self.bundle.as_mut().expect("open").ops.push(op),
            Err(message) => {
                self.diag.error(pos, message);
                self.bundle.as_mut().expect("open").failed = true;
            }
        }
    }

    fn parse_op(&mut self, text: &str, pos: Pos, section: usize) -> Result<PendingOp, String> {
        let parsed = parse_inst(text).map_err(|e| e.to_string())?;
        let sec = &self.sections[section];
        if !sec.is_code() {
            return Err(format!(
                "operation in section `{}`, which is not a code section (use `.text` or `.section NAME, \"ax\"`)",
                sec.name
            ));
        }
        let mut inst = parsed.inst;
        let format = inst.format();
        if inst.long && !format.is_extendable() {
            return Err(format!(
                "`long` is only allowed on operations with an extendable immediate (formats RImm, Imm, Load, Store, CmpImm), not `{}`",
                inst.opcode.mnemonic()
            ));
        }
        let mut sym = None;
        match parsed.imm {
            None | Some(ImmExpr::Num(_)) => {}
            Some(ImmExpr::Here(_)) if format.is_pc_relative() => {}
            Some(ImmExpr::Here(_)) => {
                return Err("`.` is only meaningful in pc-relative operands (branches, calls, `addpc`) and data".to_string());
            }
            Some(ImmExpr::Sym { name, addend }) => {
                if inst.opcode == Opcode::Limm {
                    return Err("`limm` takes a number; write `long` on the operation to use a symbol's full address".to_string());
                }
                self.symbols.reference(&name, pos);
                match self.symbols.early_value(&name) {
                    // A constant known now is a number like any other (and may need a `limm`).
                    Some(SymValue::Absolute(v)) if !format.is_pc_relative() => {
                        inst.imm = v.wrapping_add(addend)
                    }
                    _ => {
                        inst.imm = 0;
                        sym = Some((name, addend, false));
                    }
                }
            }
            Some(ImmExpr::Tprel { name, addend }) => {
                if inst.opcode == Opcode::Limm || format.is_pc_relative() {
                    return Err(format!(
                        "`{name}@tprel` cannot be the operand of `{}`: a thread-pointer offset goes in the immediate of an operation such as `add rd = tp, {name}@tprel`",
                        inst.opcode.mnemonic()
                    ));
                }
                if inst.long {
                    return Err(format!(
                        "`long {name}@tprel`: a thread-pointer offset is a 32-bit immediate (R_VLIW_TPREL32); there is no 64-bit form"
                    ));
                }
                self.symbols.reference(&name, pos);
                inst.imm = 0;
                sym = Some((name, addend, true));
            }
        }
        Ok(PendingOp { inst, sym, pos })
    }

    /// `;;`: checks, encodes and emits the open bundle.
    pub(crate) fn end_bundle(&mut self, pos: Pos) {
        let Some(bundle) = self.bundle.take() else {
            self.diag
                .error(pos, "empty bundle: `;;` without operations before it");
            return;
        };
        if bundle.failed {
            return;
        }
        let Some(ops) = self.merge_limms(bundle.ops) else {
            return;
        };
        let insts: Vec<_> = ops.iter().map(|op| op.inst).collect();
        if let Err(e) = check_bundle(&insts, self.config) {
            self.diag.error(
                bundle.pos,
                format!("{e} (machine: {})", short_config(self.config)),
            );
            return;
        }
        let section = self.current_section();
        let start = self.sections[section].offset();
        if start % 8 != 0 {
            self.diag.error(
                bundle.pos,
                format!("bundle at offset {start:#x} of `{}` is not on an 8-byte boundary (data before it?)", self.sections[section].name),
            );
            return;
        }
        let mut words = Vec::with_capacity(insts.len() + 1);
        let mut fixups = Vec::new();
        let mut ok = true;
        for (i, op) in ops.iter().enumerate() {
            let offset = start + 8 * words.len() as u64;
            match op.inst.encode(i + 1 == ops.len()) {
                Ok(encoded) => words.extend_from_slice(encoded.words()),
                Err(e) => {
                    self.diag.error(op.pos, encode_error_message(&e));
                    ok = false;
                    continue;
                }
            }
            if let Some((name, addend, tprel)) = &op.sym {
                let kind = FixupKind::Code(if *tprel {
                    RelocKind::Tprel32
                } else {
                    RelocKind::for_operand(&op.inst).expect("symbolic operands are immediates")
                });
                // Imm64 patches the `limm` syllable and the one after it: both start here.
                fixups.push(Fixup {
                    section,
                    offset,
                    kind,
                    target: FixTarget::Sym {
                        name: name.clone(),
                        addend: *addend,
                    },
                    pos: op.pos,
                });
            }
        }
        if !ok {
            return;
        }
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        if let Err(e) = self.sections[section].push_bytes(&bytes) {
            self.diag.error(bundle.pos, e);
            return;
        }
        self.fixups.extend(fixups);
    }

    /// Folds explicit `limm N` operations into the operation after them (which then
    /// takes the long form with `N` as its high half).
    fn merge_limms(&mut self, ops: Vec<PendingOp>) -> Option<Vec<PendingOp>> {
        let mut out: Vec<PendingOp> = Vec::with_capacity(ops.len());
        let mut pending: Option<PendingOp> = None;
        for mut op in ops {
            if let Some(limm) = pending.take() {
                if !op.inst.format().is_extendable() || op.inst.long || op.sym.is_some() {
                    self.diag.error(
                        limm.pos,
                        "`limm` must be followed, in its bundle, by an operation with an extendable numeric immediate and no `long`",
                    );
                    return None;
                }
                let hi = limm.inst.imm as u64;
                op.inst.imm = ((hi << 32) | (op.inst.imm as u64 & 0xffff_ffff)) as i64;
                op.inst.long = true;
            }
            if op.inst.opcode == Opcode::Limm {
                if !op.inst.guard.is_always() {
                    self.diag.error(op.pos, "`limm` cannot be guarded");
                    return None;
                }
                if u32::try_from(op.inst.imm).is_err() {
                    self.diag.error(
                        op.pos,
                        format!(
                            "`limm` value {} does not fit in 32 bits (0..=0xffffffff)",
                            op.inst.imm
                        ),
                    );
                    return None;
                }
                pending = Some(op);
                continue;
            }
            out.push(op);
        }
        if let Some(limm) = pending {
            self.diag.error(
                limm.pos,
                "`limm` at the end of its bundle: it must be followed by the operation it extends",
            );
            return None;
        }
        Some(out)
    }
}

fn encode_error_message(e: &EncodeError) -> String {
    match e {
        EncodeError::MisalignedTarget(op, offset) if op.format() == Format::Branch => {
            format!(
                "misaligned branch target: `{}` offset {offset} is not a multiple of 8",
                op.mnemonic()
            )
        }
        EncodeError::MisalignedTarget(op, offset) => {
            format!(
                "misaligned pc-relative target: `{}` offset {offset} is not a multiple of 8",
                op.mnemonic()
            )
        }
        EncodeError::ImmediateOutOfRange(op, imm)
            if op.format() == Format::Branch || op.format() == Format::PcRel =>
        {
            format!(
                "`{}` target offset {imm} is out of the signed 32-bit range",
                op.mnemonic()
            )
        }
        other => other.to_string(),
    }
}

/// The parts of a configuration that bundle checks depend on.
fn short_config(config: &vliw_isa::MachineConfig) -> String {
    let units: Vec<String> = vliw_isa::Unit::ALL
        .iter()
        .map(|u| format!("{}={}", u.name(), config.unit_count(*u)))
        .collect();
    format!("width={}, {}", config.width, units.join(", "))
}
