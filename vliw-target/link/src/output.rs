//! The executable: segments from the image, section list, symbol table.

use vliw_elf::{
    Binding, ExecSection, ExecSymbol, Executable, NonAllocSection, SectionKind, Segment,
    SegmentFlags, SymbolDefinition, SymbolId, SymbolKind, TlsTemplate,
};

use crate::args::Strip;
use crate::layout::{Layout, TEXT_BASE};
use crate::relocate::Image;
use crate::resolve::{Input, Resolution};

pub(crate) fn build_executable(
    inputs: &[Input],
    resolution: &Resolution,
    layout: &Layout,
    image: Image,
    entry: u64,
    strip: Strip,
) -> Executable {
    let mut exe = Executable {
        entry,
        ..Executable::default()
    };

    let data_mem = layout.output(SectionKind::Bss).end() - layout.data_start;
    let segments = [
        (
            TEXT_BASE,
            image.text.len() as u64,
            image.text,
            SegmentFlags::RX,
        ),
        (
            layout.rodata_start,
            image.rodata.len() as u64,
            image.rodata,
            SegmentFlags::R,
        ),
        (layout.data_start, data_mem, image.data, SegmentFlags::RW),
    ];
    for (vaddr, mem_size, data, flags) in segments {
        if mem_size > 0 {
            exe.segments.push(Segment {
                vaddr,
                mem_size,
                data,
                flags,
            });
        }
    }
    let (tls_start, tls_end) = (layout.tls_start(), layout.tls_end());
    if tls_end > tls_start {
        exe.tls = Some(TlsTemplate {
            vaddr: tls_start,
            file_size: layout.output(SectionKind::TlsData).end() - tls_start,
            mem_size: tls_end - tls_start,
            align: layout.tls_align,
        });
    }
    for out in &layout.alloc {
        if out.size > 0 {
            exe.sections.push(ExecSection {
                name: out.name.clone(),
                addr: out.addr,
                size: out.size,
                kind: out.kind,
            });
        }
    }
    for (out, data) in layout.non_alloc.iter().zip(image.non_alloc) {
        if !data.is_empty() {
            exe.non_alloc_sections.push(NonAllocSection {
                name: out.name.clone(),
                kind: out.kind,
                data,
            });
        }
    }
    if strip != Strip::All {
        exe.symbols = symbols(inputs, resolution, layout);
    }
    exe
}

/// The output symbol table: named local functions and objects of the sections that
/// were kept, the winning definition of every global symbol, and the linker-defined
/// symbols that no input defined.
fn symbols(inputs: &[Input], resolution: &Resolution, layout: &Layout) -> Vec<ExecSymbol> {
    let mut out = Vec::new();
    for (oi, input) in inputs.iter().enumerate() {
        for (si, sym) in input.object.symbols.iter().enumerate() {
            if sym.name.is_empty() || matches!(sym.kind, SymbolKind::Section | SymbolKind::File) {
                continue;
            }
            let wins = match sym.binding {
                Binding::Local => !sym.name.starts_with(".L"),
                _ => resolution
                    .globals
                    .get(&sym.name)
                    .is_some_and(|d| d.object == oi && d.symbol == SymbolId(si)),
            };
            if !wins {
                continue;
            }
            let addr = match sym.definition {
                SymbolDefinition::Defined { section, value } => {
                    let placed = input.object.sections[section.0].kind.is_alloc();
                    match layout.addr[oi][section.0] {
                        Some(a) if placed => a + value,
                        _ => continue,
                    }
                }
                SymbolDefinition::Absolute(v) => v,
                SymbolDefinition::Undefined => continue,
            };
            out.push(ExecSymbol {
                name: sym.name.clone(),
                addr,
                size: sym.size,
                kind: sym.kind,
                binding: sym.binding,
            });
        }
    }
    for l in resolution.provided_linker_symbols() {
        out.push(ExecSymbol {
            name: l.name().to_string(),
            addr: layout.linker_symbol(l),
            size: 0,
            kind: SymbolKind::NoType,
            binding: Binding::Global,
        });
    }
    out
}
