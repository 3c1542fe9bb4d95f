//! `--gc-sections`: keep only the allocated sections that the program can reach.
//!
//! Roots: the section of the entry symbol and of `-u` symbols, every `.init_array` and
//! `.fini_array` section (nothing refers to them, the runtime walks them), every
//! section marked `SHF_GNU_RETAIN`, and sections whose names a GNU linker script would
//! `KEEP` (`.init`, `.fini`, `.ctors*`, `.dtors*`, `.note*`). From the roots, every
//! relocation of a live section makes the section it points to live. An `.eh_frame`
//! section is live when it describes a live function (`crate::eh_frame`), and its
//! relocations are then followed too. Non-allocated sections (debug information) are
//! not subject to collection and do not keep anything alive.

use vliw_elf::SectionKind;

use crate::eh_frame;
use crate::resolve::{Input, Resolution, Target};

/// Whether a section is a root because of its kind, flags or name.
fn is_root(kind: SectionKind, retain: bool, name: &str) -> bool {
    const KEEP_PREFIXES: [&str; 3] = [".ctors", ".dtors", ".note"];
    matches!(kind, SectionKind::InitArray | SectionKind::FiniArray)
        || retain
        || name == ".init"
        || name == ".fini"
        || KEEP_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// `live[object][section]`: whether an allocated section goes into the output. With
/// `gc` false every allocated section is live. Non-allocated sections are never live
/// here (they are handled apart).
pub(crate) fn live_sections(
    inputs: &[Input],
    resolution: &Resolution,
    roots: &[Target],
    frames: &[eh_frame::FrameSection],
    gc: bool,
) -> Vec<Vec<bool>> {
    let mut live: Vec<Vec<bool>> = inputs
        .iter()
        .map(|i| vec![false; i.object.sections.len()])
        .collect();
    let mut work = Vec::new();
    let mark = |object: usize,
                section: usize,
                live: &mut Vec<Vec<bool>>,
                work: &mut Vec<(usize, usize)>| {
        if inputs[object].object.sections[section].kind.is_alloc() && !live[object][section] {
            live[object][section] = true;
            work.push((object, section));
        }
    };
    for (oi, input) in inputs.iter().enumerate() {
        for (si, s) in input.object.sections.iter().enumerate() {
            if !gc || is_root(s.kind, s.retain, &s.name) {
                mark(oi, si, &mut live, &mut work);
            }
        }
    }
    if !gc {
        return live;
    }
    for root in roots {
        if let Target::Section {
            object, section, ..
        } = *root
        {
            mark(object, section.0, &mut live, &mut work);
        }
    }
    loop {
        while let Some((oi, si)) = work.pop() {
            for r in &inputs[oi].object.sections[si].relocs {
                if let Target::Section {
                    object, section, ..
                } = resolution.target(inputs, oi, r.symbol)
                    && !eh_frame::is_eh_frame(&inputs[object].object.sections[section.0])
                {
                    mark(object, section.0, &mut live, &mut work);
                }
            }
        }
        // the frames of the functions found live (which may pull in more, their
        // personality routines)
        for f in frames {
            if !live[f.object][f.section] && f.describes_live(&live) {
                mark(f.object, f.section, &mut live, &mut work);
            }
        }
        if work.is_empty() {
            return live;
        }
    }
}
