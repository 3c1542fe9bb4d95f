//! The output bytes: input sections copied to their places, text gaps filled with
//! nops, and every relocation applied with `vliw_isa::apply_reloc`.

use std::collections::BTreeMap;

use vliw_isa::{NOP_BUNDLE, RelocKind, apply_reloc, reloc_value};

use crate::error::{LinkError, UndefinedSymbol};
use crate::layout::{Layout, OutputSection, TEXT_BASE};
use crate::resolve::{Input, Resolution, Target, symbol_display_name};

/// At most this many references are listed under one undefined symbol.
const MAX_REFERENCES: usize = 10;

/// The contents of the file-backed output: one buffer per segment and one per
/// non-allocated output section.
pub(crate) struct Image {
    /// `TEXT_BASE..end of .text`.
    pub text: Vec<u8>,
    /// `rodata_start..end of .rodata`.
    pub rodata: Vec<u8>,
    /// `data_start..end of .tdata` (`.init_array`, `.fini_array`, `.data`, `.tdata`).
    pub data: Vec<u8>,
    pub non_alloc: Vec<Vec<u8>>,
}

/// Every strong reference from a live section to a symbol defined nowhere, as lld
/// reports them. References from non-allocated sections (debug information) resolve to
/// 0 instead.
pub(crate) fn check_undefined(
    inputs: &[Input],
    resolution: &Resolution,
    layout: &Layout,
) -> Result<(), LinkError> {
    let mut undefined: BTreeMap<String, (usize, Vec<String>)> = BTreeMap::new();
    let mut order = 0;
    for out in &layout.alloc {
        for p in &out.inputs {
            let object = &inputs[p.object].object;
            let section = &object.sections[p.section];
            for r in &section.relocs {
                if resolution.target(inputs, p.object, r.symbol)
                    == (Target::Undefined { weak: false })
                {
                    let name = symbol_display_name(object, r.symbol);
                    let entry = undefined.entry(name).or_insert_with(|| {
                        order += 1;
                        (order, Vec::new())
                    });
                    entry.1.push(format!(
                        "{} (section {}+{:#x})",
                        inputs[p.object].name, section.name, r.offset
                    ));
                }
            }
        }
    }
    if undefined.is_empty() {
        return Ok(());
    }
    let mut symbols: Vec<(usize, UndefinedSymbol)> = undefined
        .into_iter()
        .map(|(name, (order, mut references))| {
            if references.len() > MAX_REFERENCES {
                let more = references.len() - MAX_REFERENCES;
                references.truncate(MAX_REFERENCES);
                references.push(format!("{more} more references"));
            }
            (order, UndefinedSymbol { name, references })
        })
        .collect();
    symbols.sort_by_key(|(order, _)| *order);
    Err(LinkError::Undefined(
        symbols.into_iter().map(|(_, s)| s).collect(),
    ))
}

/// The value `S` of a resolved symbol.
pub(crate) fn symbol_value(target: Target, layout: &Layout) -> u64 {
    match target {
        // A section that is not in the output (collected by --gc-sections, or
        // debug information that was stripped) has address 0.
        Target::Section {
            object,
            section,
            value,
        } => layout.addr[object][section.0].map_or(0, |a| a.wrapping_add(value)),
        Target::Absolute(v) => v,
        Target::Linker(l) => layout.linker_symbol(l),
        Target::Undefined { .. } => 0,
    }
}

/// Whether a resolved symbol is a thread-local variable: defined in a `.tdata` or
/// `.tbss` section (whatever its symbol type says).
fn is_tls_target(inputs: &[Input], target: Target) -> bool {
    match target {
        Target::Section {
            object, section, ..
        } => inputs[object].object.sections[section.0].kind.is_tls(),
        _ => false,
    }
}

/// Copies the input sections into place and applies their relocations.
pub(crate) fn build_image(
    inputs: &[Input],
    resolution: &Resolution,
    layout: &Layout,
) -> Result<Image, LinkError> {
    use vliw_elf::SectionKind::*;
    let text_out = layout.output(Text);
    let nop = NOP_BUNDLE.to_le_bytes();
    let text_len = (text_out.end() - TEXT_BASE) as usize;
    let mut text: Vec<u8> = nop.iter().copied().cycle().take(text_len).collect();
    fill(inputs, resolution, layout, text_out, TEXT_BASE, &mut text)?;

    let rodata_end = layout.output_named(crate::eh_frame::HDR_NAME).end();
    let mut rodata = vec![0; (rodata_end - layout.rodata_start) as usize];
    for name in [".rodata", crate::eh_frame::NAME] {
        fill(
            inputs,
            resolution,
            layout,
            layout.output_named(name),
            layout.rodata_start,
            &mut rodata,
        )?;
    }

    let mut data = vec![0; (layout.output(TlsData).end() - layout.data_start) as usize];
    for kind in [InitArray, FiniArray, Data, TlsData] {
        fill(
            inputs,
            resolution,
            layout,
            layout.output(kind),
            layout.data_start,
            &mut data,
        )?;
    }

    let mut non_alloc = Vec::with_capacity(layout.non_alloc.len());
    for out in &layout.non_alloc {
        let mut bytes = vec![0; out.size as usize];
        fill(inputs, resolution, layout, out, 0, &mut bytes)?;
        non_alloc.push(bytes);
    }
    Ok(Image {
        text,
        rodata,
        data,
        non_alloc,
    })
}

/// Copies the inputs of `out` into `buffer` (which starts at address `base`) and
/// relocates them.
fn fill(
    inputs: &[Input],
    resolution: &Resolution,
    layout: &Layout,
    out: &OutputSection,
    base: u64,
    buffer: &mut [u8],
) -> Result<(), LinkError> {
    for p in &out.inputs {
        let input = &inputs[p.object];
        let section = &input.object.sections[p.section];
        let start = (p.addr - base) as usize;
        let bytes = &mut buffer[start..start + section.data.len()];
        bytes.copy_from_slice(&section.data);
        for r in &section.relocs {
            let target = resolution.target(inputs, p.object, r.symbol);
            let mut s = symbol_value(target, layout);
            let tls_target = is_tls_target(inputs, target);
            // Debug information may name a thread-local variable by its address; code
            // and data must use a TLS relocation for it.
            let mismatch = if r.kind.is_tls() {
                !tls_target
            } else {
                tls_target && section.kind.is_alloc() && r.kind != RelocKind::None
            };
            if mismatch {
                return Err(LinkError::Tls {
                    object: input.name.clone(),
                    section: section.name.clone(),
                    offset: r.offset,
                    symbol: symbol_display_name(&input.object, r.symbol),
                    kind: r.kind,
                });
            }
            if r.kind.is_tls() {
                s = s.wrapping_sub(layout.tls_start());
            }
            let value = reloc_value(r.kind, s, r.addend, p.addr.wrapping_add(r.offset));
            apply_reloc(r.kind, bytes, r.offset, value).map_err(|error| LinkError::Relocation {
                object: input.name.clone(),
                section: section.name.clone(),
                offset: r.offset,
                symbol: symbol_display_name(&input.object, r.symbol),
                kind: r.kind,
                error,
            })?;
        }
    }
    Ok(())
}
