//! Call-frame information directives (`.cfi_startproc` ... `.cfi_endproc`), written
//! as an `.eh_frame` section in the layout the back end uses (`docs/isa.md` §6): one
//! CIE (version 1, code alignment 8, data alignment −8, return address `lr`, CFA =
//! `sp` at entry) and an FDE per procedure whose address is an `R_VLIW_ABS64`
//! relocation against its section's symbol plus its start offset.
//!
//! A directive takes effect at the location where it is written, which must be
//! between bundles. Registers are written as in operations (`r1`, `sp`, `lr`, `p12`)
//! or as DWARF numbers; offsets are constants, multiples of 8 where the format
//! factors them. `.cfi_sections` is accepted and ignored; the personality and LSDA
//! directives are not supported.

use gimli::Register;
use gimli::write::{Address, CallFrameInstruction, FrameDescriptionEntry, FrameTable};
use vliw_elf::Section;
use vliw_elf::dwarf_write;
use vliw_isa::abi::dwarf;
use vliw_isa::{Gpr, Pred};

use crate::assemble::Assembler;
use crate::error::Pos;
use crate::expr::{Tok, Token};

/// A directive's error: column and message.
type DResult<T> = Result<T, (usize, String)>;

/// A procedure between `.cfi_startproc` and `.cfi_endproc`.
#[derive(Clone, Debug)]
pub struct Proc {
    pub section: usize,
    pub start: u64,
    pub end: u64,
    /// Instructions at offsets from `start`.
    pub rows: Vec<(u32, CallFrameInstruction)>,
    pub pos: Pos,
    /// The CFA offset as the directives left it (`.cfi_adjust_cfa_offset`).
    cfa_offset: i64,
    /// The saved CFA offsets of `.cfi_remember_state`.
    remembered: Vec<i64>,
}

#[derive(Clone, Debug, Default)]
pub struct CfiState {
    pub open: Option<Proc>,
    pub done: Vec<Proc>,
}

/// A register operand: an assembly name or a DWARF number.
fn register(arg: &[Token], col: usize) -> DResult<Register> {
    let bad = || {
        (
            arg.first().map_or(col, |t| t.col),
            "expected a register (r0..r63, sp, lr, fp, p0..p15, or a DWARF number)".to_string(),
        )
    };
    match arg {
        [
            Token {
                tok: Tok::Ident(name),
                ..
            },
        ] => {
            if let Some(g) = Gpr::parse(name) {
                Ok(Register(dwarf::gpr(g)))
            } else if let Some(p) = Pred::parse(name) {
                Ok(Register(dwarf::pred(p)))
            } else {
                Err(bad())
            }
        }
        [
            Token {
                tok: Tok::Num(n), ..
            },
        ] if *n >= 0 && *n < i64::from(dwarf::COUNT) => Ok(Register(*n as u16)),
        _ => Err(bad()),
    }
}

impl Assembler<'_> {
    /// A `.cfi_*` directive.
    pub(crate) fn cfi_directive(
        &mut self,
        name: &str,
        list: &[&[Token]],
        pos: Pos,
        args_col: usize,
        end_col: usize,
    ) -> DResult<()> {
        if name == ".cfi_sections" {
            return Ok(());
        }
        self.close_bundle_before(&format!("`{name}`"), pos);
        let section = self.current_section();
        let offset = self.sections[section].offset();
        let arg_count = |n: usize| -> DResult<()> {
            if list.len() == n {
                Ok(())
            } else {
                Err((
                    args_col,
                    format!(
                        "`{name}` takes {n} argument{}, found {}",
                        if n == 1 { "" } else { "s" },
                        list.len()
                    ),
                ))
            }
        };
        if name == ".cfi_startproc" {
            // `.cfi_startproc simple` (no initial instructions) is the same here: the
            // CIE's only instruction is the entry rule
            if let Some(open) = &self.cfi.open {
                return Err((
                    pos.col,
                    format!(
                        "`.cfi_startproc` inside the procedure started at line {}",
                        open.pos.line
                    ),
                ));
            }
            self.cfi.open = Some(Proc {
                section,
                start: offset,
                end: offset,
                rows: Vec::new(),
                pos,
                cfa_offset: 0,
                remembered: Vec::new(),
            });
            return Ok(());
        }
        // the offset of `.cfi_def_cfa REG, OFF` and `.cfi_offset REG, OFF`
        let mut constants = Vec::with_capacity(1);
        if matches!(name, ".cfi_def_cfa" | ".cfi_offset") && list.len() == 2 {
            constants.push(self.absolute_now(list[1], end_col, "a CFI offset")?);
        }
        let Some(open) = self.cfi.open.as_mut() else {
            return Err((pos.col, format!("`{name}` outside `.cfi_startproc`")));
        };
        if open.section != section {
            return Err((
                pos.col,
                format!(
                    "`{name}` in another section than its `.cfi_startproc` (line {})",
                    open.pos.line
                ),
            ));
        }
        let at = u32::try_from(offset - open.start)
            .map_err(|_| (pos.col, "the procedure is over 4 GiB".to_string()))?;
        let factored = |v: i64, col: usize| -> DResult<i32> {
            if v % 8 != 0 {
                return Err((col, format!("{v} is not a multiple of 8")));
            }
            i32::try_from(v).map_err(|_| (col, format!("{v} is out of range")))
        };
        let second_col = list
            .get(1)
            .and_then(|a| a.first())
            .map_or(args_col, |t| t.col);
        let instruction = match name {
            ".cfi_endproc" => {
                arg_count(0)?;
                let mut done = self.cfi.open.take().expect("open");
                done.end = offset;
                self.cfi.done.push(done);
                return Ok(());
            }
            ".cfi_def_cfa" => {
                arg_count(2)?;
                let reg = register(list[0], args_col)?;
                let off = i32::try_from(constants[0])
                    .ok()
                    .filter(|&o| o >= 0)
                    .ok_or((second_col, "the CFA offset must be 0 or more".to_string()))?;
                open.cfa_offset = i64::from(off);
                CallFrameInstruction::Cfa(reg, off)
            }
            ".cfi_def_cfa_register" => {
                arg_count(1)?;
                CallFrameInstruction::CfaRegister(register(list[0], args_col)?)
            }
            ".cfi_def_cfa_offset" | ".cfi_adjust_cfa_offset" => {
                arg_count(1)?;
                let c = self.absolute_now(list[0], end_col, "a CFI offset")?;
                let open = self.cfi.open.as_mut().expect("open");
                let off = if name == ".cfi_def_cfa_offset" {
                    c
                } else {
                    open.cfa_offset + c
                };
                let off = i32::try_from(off)
                    .ok()
                    .filter(|&o| o >= 0)
                    .ok_or((args_col, "the CFA offset must be 0 or more".to_string()))?;
                open.cfa_offset = i64::from(off);
                CallFrameInstruction::CfaOffset(off)
            }
            ".cfi_offset" => {
                arg_count(2)?;
                CallFrameInstruction::Offset(
                    register(list[0], args_col)?,
                    factored(constants[0], second_col)?,
                )
            }
            ".cfi_restore" => {
                arg_count(1)?;
                CallFrameInstruction::Restore(register(list[0], args_col)?)
            }
            ".cfi_undefined" => {
                arg_count(1)?;
                CallFrameInstruction::Undefined(register(list[0], args_col)?)
            }
            ".cfi_same_value" => {
                arg_count(1)?;
                CallFrameInstruction::SameValue(register(list[0], args_col)?)
            }
            ".cfi_register" => {
                arg_count(2)?;
                CallFrameInstruction::Register(
                    register(list[0], args_col)?,
                    register(list[1], second_col)?,
                )
            }
            ".cfi_remember_state" => {
                arg_count(0)?;
                open.remembered.push(open.cfa_offset);
                CallFrameInstruction::RememberState
            }
            ".cfi_restore_state" => {
                arg_count(0)?;
                open.cfa_offset = open.remembered.pop().ok_or((
                    pos.col,
                    "`.cfi_restore_state` without a remembered state".to_string(),
                ))?;
                CallFrameInstruction::RestoreState
            }
            _ => return Err((pos.col, format!("unsupported CFI directive `{name}`"))),
        };
        let open = self.cfi.open.as_mut().expect("open");
        open.rows.push((at, instruction));
        Ok(())
    }

    /// The `.eh_frame` of the finished procedures, with its relocations against the
    /// section symbols (section `i`'s symbol is `SymbolId(i)`); `None` without any.
    pub(crate) fn eh_frame_section(&mut self) -> Option<Section> {
        if let Some(open) = self.cfi.open.take() {
            self.diag.error(
                open.pos,
                "`.cfi_startproc` without `.cfi_endproc` before the end of the file".to_string(),
            );
        }
        if self.cfi.done.is_empty() {
            return None;
        }
        let mut table = FrameTable::default();
        let cie = table.add_cie(dwarf_write::common_frame_entry());
        for p in &self.cfi.done {
            let length = u32::try_from(p.end - p.start).unwrap_or(u32::MAX);
            let mut fde = FrameDescriptionEntry::new(
                Address::Symbol {
                    symbol: p.section,
                    addend: p.start as i64,
                },
                length,
            );
            for (at, i) in &p.rows {
                fde.add_instruction(*at, i.clone());
            }
            table.add_fde(cie, fde);
        }
        match dwarf_write::eh_frame_section(&table) {
            Ok(section) => Some(section),
            Err(e) => {
                let pos = self.cfi.done[0].pos;
                self.diag
                    .error(pos, format!("cannot write the call-frame information: {e}"));
                None
            }
        }
    }
}
