//! `.eh_frame` and `.eh_frame_hdr`: the call-frame information of the functions the
//! program keeps, and the sorted table the unwinder searches it by.
//!
//! Input sections named `.eh_frame` (allocated) hold CIEs and FDEs. They are not
//! collected like other sections: an `.eh_frame` section is live when one of its FDEs
//! describes a live function (the FDE's `pc_begin` relocation points into a live
//! section), and nothing it refers to keeps a function alive on its own; once live,
//! its other relocations (a personality routine, a language-specific data area) are
//! followed as usual. The output `.eh_frame` is the live input sections in link order
//! followed by a zero terminator (relative offsets between an FDE and its CIE stay
//! right since each input section keeps both).
//!
//! `.eh_frame_hdr` is built by the linker in the format GNU ld and lld write (version
//! 1; `eh_frame_ptr` pc-relative `sdata4`; `fde_count` `udata4`; the table as
//! `datarel sdata4` pairs of initial location and FDE address, relative to the
//! header, sorted by initial location), with one entry per FDE of a live function.
//! The runtime finds both through `__eh_frame_start`, `__eh_frame_end`,
//! `__eh_frame_hdr_start` and `__eh_frame_hdr_end`.

use vliw_elf::Section;

use crate::error::LinkError;
use crate::layout::Layout;
use crate::relocate::symbol_value;
use crate::resolve::{Input, Resolution, Target, sections_where};

/// The section name the linker gives this treatment.
pub(crate) const NAME: &str = ".eh_frame";
/// The name of the search table the linker builds.
pub(crate) const HDR_NAME: &str = ".eh_frame_hdr";
/// Bytes of `.eh_frame_hdr` before its table.
const HDR_HEADER: u64 = 12;
/// Bytes of a table entry.
const HDR_ENTRY: u64 = 8;

const DW_EH_PE_UDATA4: u8 = 0x03;
const DW_EH_PE_SDATA4: u8 = 0x0b;
const DW_EH_PE_PCREL: u8 = 0x10;
const DW_EH_PE_DATAREL: u8 = 0x30;

pub(crate) fn is_eh_frame(s: &Section) -> bool {
    s.name == NAME && s.kind.is_alloc()
}

/// An FDE of an input `.eh_frame` section.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fde {
    /// Offset of the FDE in its section.
    pub offset: u64,
    /// The function: the target of the relocation of its `pc_begin` field.
    pub symbol: Option<vliw_elf::SymbolId>,
    pub addend: i64,
}

fn malformed(input: &Input, message: String) -> LinkError {
    LinkError::Frame {
        object: input.name.clone(),
        message,
    }
}

/// The FDEs of an input `.eh_frame` section, in order.
pub(crate) fn fdes(input: &Input, section: &Section) -> Result<Vec<Fde>, LinkError> {
    let data = &section.data;
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < data.len() {
        let word = |o: usize| -> Result<u32, LinkError> {
            data.get(o..o + 4)
                .map(|b| u32::from_le_bytes(b.try_into().expect("four bytes")))
                .ok_or_else(|| {
                    malformed(
                        input,
                        format!("{NAME}: the record at {at:#x} is cut off at the section end"),
                    )
                })
        };
        let length = word(at)?;
        if length == 0 {
            break; // a terminator
        }
        if length == 0xffff_ffff {
            return Err(malformed(
                input,
                format!("{NAME}: the record at {at:#x} has a 64-bit length (unsupported)"),
            ));
        }
        let end = at
            .checked_add(4 + length as usize)
            .filter(|&e| e <= data.len() && length >= 4)
            .ok_or_else(|| {
                malformed(
                    input,
                    format!(
                        "{NAME}: the record at {at:#x} ({length} bytes) does not fit in the section ({} bytes)",
                        data.len()
                    ),
                )
            })?;
        let id = word(at + 4)?;
        if id != 0 {
            // an FDE: its CIE pointer is the distance back from this field to the CIE
            let cie = (at + 4).checked_sub(id as usize);
            if cie.is_none() {
                return Err(malformed(
                    input,
                    format!("{NAME}: the FDE at {at:#x} points before the section"),
                ));
            }
            let pc_begin = (at + 8) as u64;
            let reloc = section.relocs.iter().find(|r| r.offset == pc_begin);
            out.push(Fde {
                offset: at as u64,
                symbol: reloc.map(|r| r.symbol),
                addend: reloc.map_or(0, |r| r.addend),
            });
        }
        at = end;
    }
    Ok(out)
}

/// An FDE of an input `.eh_frame` section and the function it describes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LiveFde {
    pub object: usize,
    pub section: usize,
    pub fde: Fde,
    pub target: Target,
}

/// Every input `.eh_frame` section with its FDEs (those whose `pc_begin` has a
/// relocation), parsed once for the collection and the search table.
pub(crate) struct FrameSection {
    pub object: usize,
    pub section: usize,
    pub fdes: Vec<LiveFde>,
}

pub(crate) fn parse_all(
    inputs: &[Input],
    resolution: &Resolution,
) -> Result<Vec<FrameSection>, LinkError> {
    let mut out = Vec::new();
    for (object, section) in sections_where(inputs, is_eh_frame) {
        let input = &inputs[object];
        let mut described = Vec::new();
        for fde in fdes(input, &input.object.sections[section])? {
            if let Some(symbol) = fde.symbol {
                described.push(LiveFde {
                    object,
                    section,
                    fde,
                    target: resolution.target(inputs, object, symbol),
                });
            }
        }
        out.push(FrameSection {
            object,
            section,
            fdes: described,
        });
    }
    Ok(out)
}

/// Whether an FDE describes a function in a live section.
fn describes_live_function(f: &LiveFde, live: &[Vec<bool>]) -> bool {
    matches!(f.target, Target::Section { object, section, .. } if live[object][section.0])
}

impl FrameSection {
    /// Whether the section describes a function in a live section.
    pub(crate) fn describes_live(&self, live: &[Vec<bool>]) -> bool {
        self.fdes.iter().any(|f| describes_live_function(f, live))
    }
}

/// The FDEs of the live `.eh_frame` sections that describe live functions: the
/// entries of `.eh_frame_hdr`.
pub(crate) fn live_fdes(frames: &[FrameSection], live: &[Vec<bool>]) -> Vec<LiveFde> {
    frames
        .iter()
        .filter(|f| live[f.object][f.section])
        .flat_map(|f| f.fdes.iter().copied())
        .filter(|f| describes_live_function(f, live))
        .collect()
}

/// The size of `.eh_frame_hdr` for `n` FDEs (nothing without an `.eh_frame`).
pub(crate) fn hdr_size(has_eh_frame: bool, n: usize) -> u64 {
    if has_eh_frame {
        HDR_HEADER + HDR_ENTRY * n as u64
    } else {
        0
    }
}

/// The contents of `.eh_frame_hdr` at its place in the layout.
pub(crate) fn build_hdr(fdes: &[LiveFde], layout: &Layout) -> Result<Vec<u8>, LinkError> {
    let hdr = layout.output_named(HDR_NAME);
    let eh = layout.output_named(NAME);
    if hdr.size == 0 {
        return Ok(Vec::new());
    }
    let relative = |addr: u64, base: u64, what: &str| -> Result<[u8; 4], LinkError> {
        i32::try_from(addr.wrapping_sub(base) as i64)
            .map(i32::to_le_bytes)
            .map_err(|_| {
                LinkError::Layout(format!(
                    "{HDR_NAME}: {what} at {addr:#x} is too far from {base:#x} for a 32-bit offset"
                ))
            })
    };
    let mut entries: Vec<(u64, u64)> = Vec::with_capacity(fdes.len());
    for f in fdes {
        let section = layout.addr[f.object][f.section].expect("a live section has an address");
        let start = symbol_value(f.target, layout).wrapping_add(f.fde.addend as u64);
        entries.push((start, section + f.fde.offset));
    }
    entries.sort_unstable();
    let mut out = Vec::with_capacity(hdr.size as usize);
    out.extend_from_slice(&[
        1,
        DW_EH_PE_PCREL | DW_EH_PE_SDATA4,
        DW_EH_PE_UDATA4,
        DW_EH_PE_DATAREL | DW_EH_PE_SDATA4,
    ]);
    out.extend_from_slice(&relative(eh.addr, hdr.addr + 4, "`.eh_frame`")?);
    let count = u32::try_from(entries.len())
        .map_err(|_| LinkError::Layout(format!("{HDR_NAME}: more than 2^32 FDEs")))?;
    out.extend_from_slice(&count.to_le_bytes());
    for (start, fde) in entries {
        out.extend_from_slice(&relative(start, hdr.addr, "a function")?);
        out.extend_from_slice(&relative(fde, hdr.addr, "an FDE")?);
    }
    debug_assert_eq!(out.len() as u64, hdr.size);
    Ok(out)
}
