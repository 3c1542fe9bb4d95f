//! Addresses: where each output section and each input section goes.
//!
//! ```text
//! 0x10000   text segment (R+X)   .text          all Text sections
//! page      rodata segment (R)   .rodata        all ReadOnlyData sections
//! page      data segment (RW)    .init_array, .fini_array, .data, .tdata | .tbss, .bss
//! ```
//! `.tdata` and `.tbss` form the TLS image (the `PT_TLS` template): its start is
//! aligned to the largest alignment of both, `.tdata` ends the file-backed part of the
//! data segment, and `.tbss` is laid out (and zero-filled in memory) right after it.
//! Nothing is mapped below 0x10000, so that a null pointer access faults. Within an
//! output section, input sections follow in link order (command line, then archive
//! member order), each at its own alignment. Non-allocated sections with the same name
//! are concatenated into one output section that has no address: their input sections
//! are "placed" at their offset in it, which is what relocations against them (DWARF
//! section offsets) must produce.

use vliw_elf::{PAGE_SIZE, SectionKind};

use crate::args::Strip;
use crate::eh_frame;
use crate::error::LinkError;
use crate::resolve::{Input, LinkerSymbol, sections_where};

/// Address of the first byte of text. Below it nothing is mapped (a null guard).
pub const TEXT_BASE: u64 = 0x10000;

/// Largest file-backed segment (and non-allocated section) this linker builds: the
/// bytes are held in memory, and a huge alignment in a bad input must not exhaust it.
const MAX_SEGMENT_FILE_SIZE: u64 = 1 << 28;

/// An input section at its place in an output section.
#[derive(Clone, Debug)]
pub(crate) struct Placed {
    pub object: usize,
    pub section: usize,
    /// Address (allocated) or offset in the output section (non-allocated).
    pub addr: u64,
    pub size: u64,
}

#[derive(Clone, Debug)]
pub(crate) struct OutputSection {
    pub name: String,
    pub kind: SectionKind,
    pub addr: u64,
    pub size: u64,
    pub align: u64,
    pub inputs: Vec<Placed>,
}

impl OutputSection {
    pub fn end(&self) -> u64 {
        self.addr + self.size
    }
}

pub(crate) struct Layout {
    /// `.text`, `.rodata`, `.init_array`, `.fini_array`, `.data`, `.tdata`, `.tbss`,
    /// `.bss`, in this (address) order; some may be empty.
    pub alloc: Vec<OutputSection>,
    /// Non-allocated output sections, in order of first appearance.
    pub non_alloc: Vec<OutputSection>,
    /// `addr[object][section]`: the address (or non-allocated offset) of each input
    /// section that is in the output.
    pub addr: Vec<Vec<Option<u64>>>,
    pub rodata_start: u64,
    pub data_start: u64,
    /// End of `.bss` rounded up to 16: where the heap starts.
    pub end: u64,
    /// Alignment of the TLS image (`.tdata` then `.tbss`), 1 if there is none.
    pub tls_align: u64,
}

/// The allocated output sections, in address order. Input sections go to the output
/// of their kind, except `.eh_frame` sections (`crate::eh_frame`) to `.eh_frame`;
/// `.eh_frame_hdr` has no inputs, the linker writes it.
const ALLOC_OUTPUTS: [(&str, SectionKind); 10] = [
    (".text", SectionKind::Text),
    (".rodata", SectionKind::ReadOnlyData),
    (eh_frame::NAME, SectionKind::ReadOnlyData),
    (eh_frame::HDR_NAME, SectionKind::ReadOnlyData),
    (".init_array", SectionKind::InitArray),
    (".fini_array", SectionKind::FiniArray),
    (".data", SectionKind::Data),
    (".tdata", SectionKind::TlsData),
    (".tbss", SectionKind::TlsBss),
    (".bss", SectionKind::Bss),
];

/// Index in [`ALLOC_OUTPUTS`] of the last output section of the rodata segment.
const LAST_READ_ONLY: usize = 3;
/// Index in [`ALLOC_OUTPUTS`] of the last output section with file contents.
const LAST_FILE_BACKED: usize = 7;

/// The allocated output section an input section goes to.
fn output_name(s: &vliw_elf::Section) -> &'static str {
    if eh_frame::is_eh_frame(s) {
        return eh_frame::NAME;
    }
    ALLOC_OUTPUTS
        .iter()
        .find(|(_, kind)| *kind == s.kind)
        .map_or("", |(name, _)| name)
}

fn align_up(value: u64, align: u64) -> Result<u64, LinkError> {
    value.checked_next_multiple_of(align.max(1)).ok_or_else(|| {
        LinkError::Layout(format!(
            "address overflow: cannot align {value:#x} to {align:#x}"
        ))
    })
}

fn add(a: u64, b: u64) -> Result<u64, LinkError> {
    a.checked_add(b).ok_or_else(|| {
        LinkError::Layout(format!(
            "address overflow: {a:#x} + {b:#x}: the program does not fit in memory"
        ))
    })
}

/// Whether a non-allocated section is dropped by `-S`/`-s`.
pub(crate) fn is_debug_section(name: &str) -> bool {
    name.starts_with(".debug") || name.starts_with(".zdebug")
}

impl Layout {
    /// `frame_entries`: the number of FDEs `.eh_frame_hdr` lists.
    pub fn compute(
        inputs: &[Input],
        live: &[Vec<bool>],
        strip: Strip,
        frame_entries: usize,
    ) -> Result<Layout, LinkError> {
        let mut addr: Vec<Vec<Option<u64>>> = inputs
            .iter()
            .map(|i| vec![None; i.object.sections.len()])
            .collect();
        let mut alloc = Vec::new();
        let mut cur = TEXT_BASE;
        let mut rodata_start = 0;
        let mut data_start = 0;
        let members_of = |name: &str, kind: SectionKind| -> Vec<(usize, usize)> {
            sections_where(inputs, |s| s.kind == kind && output_name(s) == name)
                .into_iter()
                .filter(|&(oi, si)| live[oi][si])
                .collect()
        };
        let max_align = |members: &[(usize, usize)]| {
            members
                .iter()
                .map(|&(oi, si)| inputs[oi].object.sections[si].align.max(1))
                .max()
                .unwrap_or(1)
        };
        let tls_align = max_align(&members_of(".tdata", SectionKind::TlsData))
            .max(max_align(&members_of(".tbss", SectionKind::TlsBss)));
        for (name, kind) in ALLOC_OUTPUTS {
            match kind {
                SectionKind::ReadOnlyData if name == ".rodata" => {
                    cur = align_up(cur, PAGE_SIZE)?;
                    rodata_start = cur;
                }
                SectionKind::InitArray => {
                    cur = align_up(cur, PAGE_SIZE)?;
                    data_start = cur;
                }
                // The TLS image starts at its alignment (that of .tbss included), so
                // that a thread's copy at an address so aligned keeps every offset.
                SectionKind::TlsData => cur = align_up(cur, tls_align)?,
                _ => {}
            }
            let members = members_of(name, kind);
            let mut out = place(inputs, name, kind, cur, &members, &mut addr)?;
            if kind == SectionKind::TlsData {
                out.align = tls_align;
            }
            if name == eh_frame::NAME && out.size > 0 {
                out.size += 4; // the terminator
            }
            if name == eh_frame::HDR_NAME {
                let has_frames = alloc
                    .last()
                    .is_some_and(|o: &OutputSection| o.name == eh_frame::NAME && o.size > 0);
                out.align = 4;
                out.addr = align_up(cur, 4)?;
                out.size = eh_frame::hdr_size(has_frames, frame_entries);
            }
            cur = out.end();
            alloc.push(out);
        }
        let end = align_up(cur, 16)?;
        for (start, last) in [
            (TEXT_BASE, 0),
            (rodata_start, LAST_READ_ONLY),
            (data_start, LAST_FILE_BACKED),
        ] {
            if alloc[last].end() - start > MAX_SEGMENT_FILE_SIZE {
                return Err(LinkError::Layout(format!(
                    "segment at {start:#x} is larger than {MAX_SEGMENT_FILE_SIZE:#x} bytes"
                )));
            }
        }

        // Non-allocated sections, grouped by name in order of first appearance.
        let mut names: Vec<(String, SectionKind)> = Vec::new();
        for input in inputs {
            for s in &input.object.sections {
                let dropped = strip != Strip::None && is_debug_section(&s.name);
                if !s.kind.is_alloc() && !dropped && !names.iter().any(|(n, _)| *n == s.name) {
                    names.push((s.name.clone(), s.kind));
                }
            }
        }
        let mut non_alloc = Vec::new();
        for (name, kind) in names {
            let members = sections_where(inputs, |s| !s.kind.is_alloc() && s.name == name);
            let out = place(inputs, &name, kind, 0, &members, &mut addr)?;
            if out.size > MAX_SEGMENT_FILE_SIZE {
                return Err(LinkError::Layout(format!(
                    "section {name} is larger than {MAX_SEGMENT_FILE_SIZE:#x} bytes"
                )));
            }
            non_alloc.push(out);
        }
        Ok(Layout {
            alloc,
            non_alloc,
            addr,
            rodata_start,
            data_start,
            end,
            tls_align,
        })
    }

    /// The allocated output section of this name.
    pub fn output_named(&self, name: &str) -> &OutputSection {
        self.alloc
            .iter()
            .find(|o| o.name == name)
            .expect("every allocated output section exists")
    }

    /// The first allocated output section of this kind.
    pub fn output(&self, kind: SectionKind) -> &OutputSection {
        self.alloc
            .iter()
            .find(|o| o.kind == kind)
            .expect("every allocated kind has an output section")
    }

    /// The value of a symbol the linker defines.
    pub fn linker_symbol(&self, symbol: LinkerSymbol) -> u64 {
        let out = |kind| self.output(kind);
        match symbol {
            LinkerSymbol::ExecutableStart => TEXT_BASE,
            LinkerSymbol::Etext => out(SectionKind::Text).end(),
            LinkerSymbol::RodataStart => self.rodata_start,
            LinkerSymbol::DataStart => self.data_start,
            LinkerSymbol::InitArrayStart => out(SectionKind::InitArray).addr,
            LinkerSymbol::InitArrayEnd => out(SectionKind::InitArray).end(),
            LinkerSymbol::FiniArrayStart => out(SectionKind::FiniArray).addr,
            LinkerSymbol::FiniArrayEnd => out(SectionKind::FiniArray).end(),
            LinkerSymbol::Edata => out(SectionKind::TlsData).end(),
            LinkerSymbol::BssStart => out(SectionKind::Bss).addr,
            LinkerSymbol::End => self.end,
            LinkerSymbol::TlsStart => self.tls_start(),
            LinkerSymbol::TlsDataEnd => out(SectionKind::TlsData).end(),
            LinkerSymbol::TlsEnd => self.tls_end(),
            LinkerSymbol::TlsAlign => self.tls_align,
            LinkerSymbol::EhFrameStart => self.output_named(eh_frame::NAME).addr,
            LinkerSymbol::EhFrameEnd => self.output_named(eh_frame::NAME).end(),
            LinkerSymbol::EhFrameHdrStart => self.output_named(eh_frame::HDR_NAME).addr,
            LinkerSymbol::EhFrameHdrEnd => self.output_named(eh_frame::HDR_NAME).end(),
        }
    }

    /// Start of the TLS image: the address of `.tdata` (empty or not).
    pub fn tls_start(&self) -> u64 {
        self.output(SectionKind::TlsData).addr
    }

    /// End of the TLS image: the end of `.tbss` (or of `.tdata` when `.tbss` is empty).
    pub fn tls_end(&self) -> u64 {
        self.output(SectionKind::TlsBss)
            .end()
            .max(self.output(SectionKind::TlsData).end())
    }
}

/// Lays out `members` one after the other from `start`, each at its alignment.
fn place(
    inputs: &[Input],
    name: &str,
    kind: SectionKind,
    start: u64,
    members: &[(usize, usize)],
    addr: &mut [Vec<Option<u64>>],
) -> Result<OutputSection, LinkError> {
    let align = members
        .iter()
        .map(|&(oi, si)| inputs[oi].object.sections[si].align)
        .max()
        .unwrap_or(1)
        .max(1);
    let base = align_up(start, align)?;
    let mut cur = base;
    let mut placed = Vec::with_capacity(members.len());
    for &(oi, si) in members {
        let s = &inputs[oi].object.sections[si];
        let at = align_up(cur, s.align)?;
        let size = s.size();
        cur = add(at, size)?;
        addr[oi][si] = Some(at);
        placed.push(Placed {
            object: oi,
            section: si,
            addr: at,
            size,
        });
    }
    Ok(OutputSection {
        name: name.to_string(),
        kind,
        addr: base,
        size: cur - base,
        align,
        inputs: placed,
    })
}
