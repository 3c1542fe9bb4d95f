//! `--dwarf=frames`: the call-frame information (`.eh_frame`) of an object or an
//! executable, CIE by CIE and FDE by FDE with their instructions, in the layout of
//! GNU objdump's `--dwarf=frames` (register names are the machine's: `r1`, `p12`).
//!
//! In an object every function has its own `.eh_frame` section whose FDE address is a
//! relocation, printed as the symbol it names; in an executable the sections are one
//! and the addresses final. A malformed record is reported in the output and ends the
//! section's listing; it never stops the tool.

use std::fmt::Write as _;

use gimli::{
    BaseAddresses, CallFrameInstruction, CieOrFde, CommonInformationEntry, EhFrame, EndianSlice,
    LittleEndian, Register, UnwindSection,
};
use vliw_elf::{Executable, Object};
use vliw_isa::abi::dwarf;

type Reader<'a> = EndianSlice<'a, LittleEndian>;

fn reg(r: Register) -> String {
    dwarf::name(r.0).unwrap_or_else(|| format!("reg{}", r.0))
}

/// How an FDE's range is printed from its section offset, start address and length:
/// the addresses, or in an object the relocation's symbol.
type Describe<'a> = dyn Fn(u64, u64, u64) -> String + 'a;

/// The bytes of a language-specific data area at an address (in an executable).
type LsdaBytes<'a> = dyn Fn(u64) -> Option<&'a [u8]> + 'a;

/// A language-specific data area (`.gcc_except_table`, `vliw_elf::lsda`) as text:
/// its call sites, each a range of the function (offsets, or addresses from
/// `function`) with its landing pad and action.
pub fn lsda_text(bytes: &[u8], function: u64, out: &mut String) {
    let table = match vliw_elf::lsda::parse(bytes) {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(out, "  (malformed language-specific data area: {e})\n");
            return;
        }
    };
    let _ = writeln!(
        out,
        "  Language-specific data area: {} call sites, type table {}",
        table.sites.len(),
        if table.type_encoding == 0xff {
            "omitted".to_string()
        } else {
            format!("{} entries {:x?}", table.types.len(), table.types)
        }
    );
    for s in &table.sites {
        let action = match s.action {
            None => "cleanup".to_string(),
            Some(a) if a.catches => format!("catch (type {})", a.type_index),
            Some(a) => format!("filter (type {})", a.type_index),
        };
        let (start, end) = (function + s.start, function + s.start + s.len);
        if s.landing == 0 {
            let _ = writeln!(out, "    {start:016x}..{end:016x} no landing pad");
        } else {
            let _ = writeln!(
                out,
                "    {start:016x}..{end:016x} landing pad {:016x} {action}",
                function + s.landing
            );
        }
    }
    out.push('\n');
}

/// Prints one `.eh_frame` section at `address`; `pc` names the FDE starting at a
/// section offset with a given length; the FDEs' language-specific data areas are
/// printed from `lsda` where it has their bytes.
fn print_section(
    name: &str,
    data: &[u8],
    address: u64,
    pc: &Describe<'_>,
    lsda: &LsdaBytes<'_>,
    out: &mut String,
) {
    let _ = writeln!(out, "Contents of the {name} section:\n");
    let eh = EhFrame::new(data, LittleEndian);
    let bases = BaseAddresses::default().set_eh_frame(address);
    let mut entries = eh.entries(&bases);
    loop {
        let entry = match entries.next() {
            Ok(Some(e)) => e,
            Ok(None) => break,
            Err(e) => {
                let _ = writeln!(out, "  (malformed record: {e})\n");
                break;
            }
        };
        match entry {
            CieOrFde::Cie(cie) => print_cie(&cie, &eh, &bases, out),
            CieOrFde::Fde(partial) => {
                let offset = partial.offset();
                let fde = match partial.parse(EhFrame::cie_from_offset) {
                    Ok(f) => f,
                    Err(e) => {
                        let _ = writeln!(out, "{offset:08x} (malformed FDE: {e})\n");
                        continue;
                    }
                };
                let _ = writeln!(
                    out,
                    "{offset:08x} {:016x} {:08x} FDE cie={:08x} pc={}",
                    fde.entry_len(),
                    offset.wrapping_sub(fde.cie().offset()).wrapping_add(4),
                    fde.cie().offset(),
                    pc(offset as u64, fde.initial_address(), fde.len())
                );
                let cie = fde.cie();
                if let Some(gimli::Pointer::Direct(p)) = cie.personality() {
                    let _ = writeln!(out, "  Personality routine: {p:016x}");
                }
                let area = match fde.lsda() {
                    Some(gimli::Pointer::Direct(a)) => {
                        let _ = writeln!(out, "  Language-specific data area at {a:016x}");
                        lsda(a)
                    }
                    _ => None,
                };
                let mut loc = fde.initial_address();
                let mut it = fde.instructions(&eh, &bases);
                print_instructions(&mut it, cie, &mut loc, out);
                if let Some(bytes) = area {
                    lsda_text(bytes, fde.initial_address(), out);
                }
            }
        }
    }
}

fn print_cie<'a>(
    cie: &CommonInformationEntry<Reader<'a>>,
    eh: &EhFrame<Reader<'a>>,
    bases: &BaseAddresses,
    out: &mut String,
) {
    let augmentation = match cie.augmentation() {
        Some(_) => {
            let mut s = String::from("z");
            if cie.has_lsda() {
                s.push('L');
            }
            if cie.personality().is_some() {
                s.push('P');
            }
            if cie.fde_address_encoding().is_some() {
                s.push('R');
            }
            s
        }
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "{:08x} {:016x} {:08x} CIE\n  Version:               {}\n  Augmentation:          \"{augmentation}\"\n  Code alignment factor: {}\n  Data alignment factor: {}\n  Return address column: {}\n",
        cie.offset(),
        cie.entry_len(),
        0,
        cie.version(),
        cie.code_alignment_factor(),
        cie.data_alignment_factor(),
        cie.return_address_register().0
    );
    let mut loc = 0;
    let mut it = cie.instructions(eh, bases);
    print_instructions(&mut it, cie, &mut loc, out);
}

fn print_instructions(
    it: &mut gimli::CallFrameInstructionIter<'_, Reader<'_>>,
    cie: &CommonInformationEntry<Reader<'_>>,
    loc: &mut u64,
    out: &mut String,
) {
    let data_align = cie.data_alignment_factor();
    loop {
        let i = match it.next() {
            Ok(Some(i)) => i,
            Ok(None) => break,
            Err(e) => {
                let _ = writeln!(out, "  (malformed instruction: {e})");
                break;
            }
        };
        let text = match i {
            CallFrameInstruction::AdvanceLoc { delta } => {
                let by = u64::from(delta) * cie.code_alignment_factor();
                *loc += by;
                format!("DW_CFA_advance_loc: {by} to {:016x}", *loc)
            }
            CallFrameInstruction::DefCfa { register, offset } => {
                format!("DW_CFA_def_cfa: {} ofs {offset}", reg(register))
            }
            CallFrameInstruction::DefCfaSf {
                register,
                factored_offset,
            } => format!(
                "DW_CFA_def_cfa_sf: {} ofs {}",
                reg(register),
                factored_offset * data_align
            ),
            CallFrameInstruction::DefCfaRegister { register } => {
                format!("DW_CFA_def_cfa_register: {}", reg(register))
            }
            CallFrameInstruction::DefCfaOffset { offset } => {
                format!("DW_CFA_def_cfa_offset: {offset}")
            }
            CallFrameInstruction::Offset {
                register,
                factored_offset,
            } => {
                let at = factored_offset as i64 * data_align;
                format!("DW_CFA_offset: {} at cfa{at:+}", reg(register))
            }
            CallFrameInstruction::OffsetExtendedSf {
                register,
                factored_offset,
            } => {
                let at = factored_offset * data_align;
                format!("DW_CFA_offset_extended_sf: {} at cfa{at:+}", reg(register))
            }
            CallFrameInstruction::Expression {
                register,
                expression,
            } => format!(
                "DW_CFA_expression: {} ({})",
                reg(register),
                expression_text(expression.get(&EhFrame::new(&[], LittleEndian)).ok())
            ),
            CallFrameInstruction::Restore { register } => {
                format!("DW_CFA_restore: {}", reg(register))
            }
            CallFrameInstruction::Undefined { register } => {
                format!("DW_CFA_undefined: {}", reg(register))
            }
            CallFrameInstruction::SameValue { register } => {
                format!("DW_CFA_same_value: {}", reg(register))
            }
            CallFrameInstruction::RememberState => "DW_CFA_remember_state".into(),
            CallFrameInstruction::RestoreState => "DW_CFA_restore_state".into(),
            CallFrameInstruction::Nop => "DW_CFA_nop".into(),
            other => format!("{other:?}"),
        };
        let _ = writeln!(out, "  {text}");
    }
    out.push('\n');
}

/// A DWARF expression in words (`DW_OP_drop; DW_OP_breg1 (r1): 8`).
fn expression_text(e: Option<gimli::Expression<Reader<'_>>>) -> String {
    let Some(e) = e else {
        return "?".into();
    };
    let encoding = gimli::Encoding {
        format: gimli::Format::Dwarf32,
        version: 4,
        address_size: 8,
    };
    let mut ops = e.operations(encoding);
    let mut parts = Vec::new();
    loop {
        match ops.next() {
            Ok(Some(gimli::Operation::Drop)) => parts.push("DW_OP_drop".to_string()),
            Ok(Some(gimli::Operation::RegisterOffset {
                register, offset, ..
            })) => parts.push(format!(
                "DW_OP_breg{} ({}): {offset}",
                register.0,
                reg(register)
            )),
            Ok(Some(other)) => parts.push(format!("{other:?}")),
            Ok(None) => break,
            Err(err) => {
                parts.push(format!("(malformed: {err})"));
                break;
            }
        }
    }
    parts.join("; ")
}

/// `--dwarf=frames` of an object: every `.eh_frame` section.
pub fn object_frames(object: &Object, out: &mut String) {
    for s in &object.sections {
        if s.name != ".eh_frame" {
            continue;
        }
        let pc = |offset: u64, _start: u64, len: u64| {
            // the FDE's pc_begin field is 8 bytes into it
            match s.relocs.iter().find(|r| r.offset == offset + 8) {
                Some(r) => {
                    let sym = &object.symbols[r.symbol.0];
                    let name = if sym.name.is_empty() {
                        match sym.definition {
                            vliw_elf::SymbolDefinition::Defined { section, .. } => {
                                object.sections[section.0].name.clone()
                            }
                            _ => "?".into(),
                        }
                    } else {
                        sym.name.clone()
                    };
                    format!(
                        "<{name}{:+#x}>..<{name}{:+#x}>",
                        r.addend,
                        r.addend + len as i64
                    )
                }
                None => format!("(no relocation)..+{len:#x}"),
            }
        };
        print_section(&s.name, &s.data, 0, &pc, &|_| None, out);
    }
    // the areas are sections of their own, found by the FDEs' relocations
    for s in &object.sections {
        if let Some(function) = s.name.strip_prefix(".gcc_except_table.") {
            let _ = writeln!(
                out,
                "Contents of the {} section (offsets in {function}):\n",
                s.name
            );
            lsda_text(&s.data, 0, out);
        }
    }
}

/// `--dwarf=frames` of an executable: its `.eh_frame`.
pub fn executable_frames(exe: &Executable, out: &mut String) {
    let Some(s) = exe.section(".eh_frame") else {
        let _ = writeln!(out, "(no .eh_frame section)\n");
        return;
    };
    let Some(data) = exe.bytes_at(s.addr, s.size) else {
        let _ = writeln!(out, "(.eh_frame has no file contents)\n");
        return;
    };
    let pc = |_offset: u64, start: u64, len: u64| {
        let name = exe
            .symbol_at(start)
            .filter(|sym| sym.addr == start)
            .map_or(String::new(), |sym| format!(" <{}>", sym.name));
        format!("{start:016x}..{:016x}{name}", start + len)
    };
    // an area runs to its end, somewhere in the read-only data after it
    let lsda = |at: u64| {
        exe.sections
            .iter()
            .find(|s| s.addr <= at && at < s.addr + s.size)
            .and_then(|s| exe.bytes_at(at, s.addr + s.size - at))
    };
    print_section(".eh_frame", data, s.addr, &pc, &lsda, out);
}
