//! Writing DWARF into objects with `gimli::write`, shared by the back end and the
//! assembler: a writer that records relocations, and `.eh_frame` in the target's
//! layout (`docs/isa.md` §6): one CIE (version 1, code alignment 8, data alignment
//! −8, return address `lr`, CFA = `sp + 0` at entry) for the FDEs of a table, whose
//! addresses are `R_VLIW_ABS64` relocations against symbols of the object.

use gimli::write::{
    CallFrameInstruction, CommonInformationEntry, EhFrame, EndianVec, FrameTable, RelocateWriter,
    Relocation, RelocationTarget,
};
use gimli::{Encoding, Format, LittleEndian, Register};
use vliw_isa::RelocKind;
use vliw_isa::abi::dwarf;

use crate::{Reloc, Section, SectionKind, SymbolId};

/// A section writer that records relocations.
#[derive(Clone)]
pub struct RelocWriter {
    pub data: EndianVec<LittleEndian>,
    pub relocs: Vec<Relocation>,
}

impl RelocWriter {
    pub fn new() -> RelocWriter {
        RelocWriter {
            data: EndianVec::new(LittleEndian),
            relocs: Vec::new(),
        }
    }
}

impl Default for RelocWriter {
    fn default() -> Self {
        RelocWriter::new()
    }
}

impl RelocateWriter for RelocWriter {
    type Writer = EndianVec<LittleEndian>;
    fn writer(&self) -> &Self::Writer {
        &self.data
    }
    fn writer_mut(&mut self) -> &mut Self::Writer {
        &mut self.data
    }
    fn relocate(&mut self, relocation: Relocation) {
        self.relocs.push(relocation);
    }
}

/// The name of the call-frame section.
pub const EH_FRAME: &str = ".eh_frame";

/// The CIE every FDE of the target uses.
pub fn common_frame_entry() -> CommonInformationEntry {
    let encoding = Encoding {
        format: Format::Dwarf32,
        version: 1,
        address_size: 8,
    };
    let mut cie = CommonInformationEntry::new(encoding, 8, -8, Register(dwarf::RETURN_ADDRESS));
    cie.add_instruction(CallFrameInstruction::Cfa(
        Register(dwarf::gpr(vliw_isa::Gpr::SP)),
        0,
    ));
    cie
}

/// The table as an `.eh_frame` section; its FDE addresses are `Address::Symbol`s
/// whose `symbol` is a `SymbolId` of the object.
pub fn eh_frame_section(table: &FrameTable) -> Result<Section, String> {
    let mut w = EhFrame(RelocWriter::new());
    table.write_eh_frame(&mut w).map_err(|e| e.to_string())?;
    let w = w.0;
    let mut section = Section::new(EH_FRAME, SectionKind::ReadOnlyData, 8, w.data.into_vec());
    for r in w.relocs {
        let RelocationTarget::Symbol(symbol) = r.target else {
            return Err("a relocation against a DWARF section".to_string());
        };
        let absolute = r.eh_pe.is_none_or(|e| e == gimli::DW_EH_PE_absptr);
        if r.size != 8 || !absolute {
            return Err(format!("a {}-byte relocation", r.size));
        }
        section.relocs.push(Reloc {
            offset: r.offset as u64,
            kind: RelocKind::Abs64,
            symbol: SymbolId(symbol),
            addend: r.addend,
        });
    }
    Ok(section)
}
