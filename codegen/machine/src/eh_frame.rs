//! `.eh_frame`: the call-frame information of each function (its rows from
//! `crate::cfi`) as a CIE and an FDE, written with `gimli::write`.
//!
//! Each function gets a section `.eh_frame` of its own holding its CIE and FDE, so
//! that the linker keeps it exactly when it keeps the function (`docs/linking.md`
//! §4.3) and concatenates the kept ones into the output `.eh_frame`. The CIE: version
//! 1, augmentation none (the FDE's address is absolute, `DW_EH_PE_absptr`, relocated
//! by `R_VLIW_ABS64` against the function's section), code alignment 8 (a syllable),
//! data alignment −8, return address in `lr` (DWARF register 63, `docs/isa.md` §6);
//! at entry the CFA is `sp` and every register holds its own value.

use gimli::Register;
use gimli::write::{Address, CallFrameInstruction, Expression, FrameDescriptionEntry, FrameTable};
use vliw_elf::dwarf_write;
use vliw_isa::abi::dwarf;

use crate::cfi::{FrameRow, FrameRule};
use crate::error::CompileError;
use crate::object::ObjectBuilder;

/// The name of the section (every function's has this name).
pub const SECTION: &str = dwarf_write::EH_FRAME;

fn err(function: &str, e: impl core::fmt::Display) -> CompileError {
    CompileError::new(
        function,
        format!("cannot write the call-frame information: {e}"),
    )
}

/// The CFA rows as DWARF instructions.
fn instruction(rule: FrameRule) -> CallFrameInstruction {
    match rule {
        FrameRule::Cfa { reg, offset } => {
            CallFrameInstruction::Cfa(Register(dwarf::gpr(reg)), offset as i32)
        }
        FrameRule::SavedAtCfa { reg, offset } => {
            CallFrameInstruction::Offset(Register(reg), offset as i32)
        }
        FrameRule::SavedAtSp { reg, offset } => {
            // the expression starts with the CFA on its stack
            let mut e = Expression::new();
            e.op(gimli::DW_OP_drop);
            e.op_breg(Register(dwarf::gpr(vliw_isa::Gpr::SP)), offset as i64);
            CallFrameInstruction::Expression(Register(reg), e)
        }
    }
}

/// What the frame of a function with landing pads adds: the personality routine (in
/// its CIE) and the language-specific data area (its FDE's LSDA pointer).
#[derive(Copy, Clone, Debug)]
pub struct Landing<'a> {
    pub personality: &'a str,
    /// The function's `.gcc_except_table` section (`crate::lsda`).
    pub lsda: vliw_elf::SectionId,
}

/// Adds the `.eh_frame` section of a function whose code is in section `text` (of
/// `size` bytes) to the object. A function with landing pads gets a CIE with
/// augmentation `zLP` (both pointers absolute, `R_VLIW_ABS64`).
pub fn add_function_frame(
    b: &mut ObjectBuilder,
    function: &str,
    text: vliw_elf::SectionId,
    size: u64,
    rows: &[FrameRow],
    landing: Option<Landing<'_>>,
) -> Result<(), CompileError> {
    let mut table = FrameTable::default();
    let mut entry = dwarf_write::common_frame_entry();
    let mut lsda = None;
    if let Some(l) = landing {
        let personality = b.symbol(l.personality);
        entry.personality = Some((
            gimli::DW_EH_PE_absptr,
            Address::Symbol {
                symbol: personality.0,
                addend: 0,
            },
        ));
        entry.lsda_encoding = Some(gimli::DW_EH_PE_absptr);
        lsda = Some(Address::Symbol {
            symbol: b.section_symbol(l.lsda).0,
            addend: 0,
        });
    }
    let cie = table.add_cie(entry);
    let section_symbol = b.section_symbol(text);
    let length = u32::try_from(size).map_err(|_| err(function, "the function is over 4 GiB"))?;
    let mut fde = FrameDescriptionEntry::new(
        Address::Symbol {
            symbol: section_symbol.0,
            addend: 0,
        },
        length,
    );
    fde.lsda = lsda;
    for row in rows {
        let offset = u32::try_from(row.offset).map_err(|e| err(function, e))?;
        fde.add_instruction(offset, instruction(row.rule));
    }
    table.add_fde(cie, fde);
    let section = dwarf_write::eh_frame_section(&table).map_err(|e| err(function, e))?;
    b.object.add_section(section);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::FunctionCode;
    use gimli::{BaseAddresses, CfaRule, RegisterRule, UnwindContext, UnwindSection};
    use vliw_ir::Linkage;
    use vliw_isa::RelocKind;

    #[test]
    fn rows_read_back_with_gimli_at_each_address() {
        let mut b = ObjectBuilder::new();
        let code = FunctionCode {
            words: vec![0; 6],
            ..FunctionCode::default()
        };
        let text = b.add_function("f", Linkage::Export, &code);
        let rows = [
            FrameRow {
                offset: 8,
                rule: FrameRule::Cfa {
                    reg: vliw_isa::Gpr::SP,
                    offset: 32,
                },
            },
            FrameRow {
                offset: 16,
                rule: FrameRule::SavedAtCfa {
                    reg: 63,
                    offset: -8,
                },
            },
            FrameRow {
                offset: 24,
                rule: FrameRule::SavedAtSp { reg: 76, offset: 8 },
            },
        ];
        add_function_frame(&mut b, "f", text, 48, &rows, None).unwrap();
        let s = b.object.sections.last().unwrap();
        assert_eq!((s.name.as_str(), s.relocs.len()), (SECTION, 1));
        assert_eq!(s.relocs[0].kind, RelocKind::Abs64);
        // as the linker would place the function at 0x10000
        let mut bytes = s.data.clone();
        let at = s.relocs[0].offset as usize;
        bytes[at..at + 8].copy_from_slice(&0x10000u64.to_le_bytes());
        let eh = gimli::EhFrame::new(&bytes, gimli::LittleEndian);
        let bases = BaseAddresses::default();
        let mut ctx = UnwindContext::new();
        let row_at = |ctx: &mut UnwindContext<usize>, pc: u64| {
            eh.unwind_info_for_address(&bases, ctx, pc, gimli::EhFrame::cie_from_offset)
                .cloned()
                .unwrap()
        };
        let r = row_at(&mut ctx, 0x10000);
        assert_eq!(
            *r.cfa(),
            CfaRule::RegisterAndOffset {
                register: Register(1),
                offset: 0
            }
        );
        let r = row_at(&mut ctx, 0x10010);
        assert_eq!(
            *r.cfa(),
            CfaRule::RegisterAndOffset {
                register: Register(1),
                offset: 32
            }
        );
        assert_eq!(r.register(Register(63)), Some(RegisterRule::Offset(-8)));
        assert_eq!(r.register(Register(76)), None, "no rule: the same value");
        let r = row_at(&mut ctx, 0x10028);
        assert!(matches!(
            r.register(Register(76)),
            Some(RegisterRule::Expression(_))
        ));
        let past: Result<_, _> =
            eh.unwind_info_for_address(&bases, &mut ctx, 0x10030, gimli::EhFrame::cie_from_offset);
        assert!(past.is_err(), "the FDE covers the function's 48 bytes only");
    }
}
