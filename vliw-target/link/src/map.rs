//! The link map (`-Map FILE`), in the layout lld uses: one line per output section,
//! input section and symbol, with address, size and alignment; then the symbols the
//! linker defined and the input sections that `--gc-sections` discarded.

use std::fmt::Write;

use vliw_elf::{Binding, SymbolDefinition, SymbolId, SymbolKind};

use crate::layout::{Layout, OutputSection};
use crate::resolve::{Input, Resolution};

pub(crate) fn write_map(
    inputs: &[Input],
    resolution: &Resolution,
    layout: &Layout,
    live: &[Vec<bool>],
    entry: u64,
) -> String {
    let mut m = String::new();
    let _ = writeln!(m, "Entry point: {entry:#x}");
    let _ = writeln!(m);
    let _ = writeln!(
        m,
        "{:>16} {:>8} {:>5} Out     In      Symbol",
        "VMA", "Size", "Align"
    );
    for out in layout.alloc.iter().chain(&layout.non_alloc) {
        if out.size == 0 && out.inputs.is_empty() {
            continue;
        }
        output_section(&mut m, inputs, resolution, out);
    }

    let provided = resolution.provided_linker_symbols();
    if !provided.is_empty() {
        let _ = writeln!(m);
        let _ = writeln!(m, "Linker-defined symbols:");
        for l in provided {
            let _ = writeln!(m, "{:>16x} {}", layout.linker_symbol(l), l.name());
        }
    }

    let mut discarded = String::new();
    for (oi, input) in inputs.iter().enumerate() {
        for (si, s) in input.object.sections.iter().enumerate() {
            if s.kind.is_alloc() && !live[oi][si] {
                let _ = writeln!(
                    discarded,
                    "{:>16} {:>8x} {:>5} {}:({})",
                    "",
                    s.size(),
                    s.align,
                    input.name,
                    s.name
                );
            }
        }
    }
    if !discarded.is_empty() {
        let _ = writeln!(m);
        let _ = writeln!(m, "Discarded input sections (--gc-sections):");
        m.push_str(&discarded);
    }
    m
}

fn output_section(m: &mut String, inputs: &[Input], resolution: &Resolution, out: &OutputSection) {
    let _ = writeln!(
        m,
        "{:>16x} {:>8x} {:>5} {}",
        out.addr, out.size, out.align, out.name
    );
    for p in &out.inputs {
        let input = &inputs[p.object];
        let section = &input.object.sections[p.section];
        let _ = writeln!(
            m,
            "{:>16x} {:>8x} {:>5}         {}:({})",
            p.addr, p.size, section.align, input.name, section.name
        );
        // The symbols defined in this input section that made it into the output.
        let mut symbols: Vec<(u64, &str)> = input
            .object
            .symbols
            .iter()
            .enumerate()
            .filter(|(si, s)| {
                !s.name.is_empty()
                    && !matches!(s.kind, SymbolKind::Section | SymbolKind::File)
                    && (s.binding == Binding::Local
                        || resolution
                            .globals
                            .get(&s.name)
                            .is_some_and(|d| d.object == p.object && d.symbol == SymbolId(*si)))
            })
            .filter_map(|(_, s)| match s.definition {
                SymbolDefinition::Defined { section, value } if section.0 == p.section => {
                    Some((p.addr + value, s.name.as_str()))
                }
                _ => None,
            })
            .collect();
        symbols.sort();
        for (addr, name) in symbols {
            let _ = writeln!(m, "{addr:>16x} {:>8} {:>5}                 {name}", 0, 0);
        }
    }
}
