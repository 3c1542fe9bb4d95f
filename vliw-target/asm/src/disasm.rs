//! The disassembler: objects and executables printed objdump style, bundle by bundle
//! (`docs/assembly.md`, "The disassembler").

use crate::code::{CodeItem, walk_code};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use vliw_elf::{
    Binding, Executable, LineTable, Object, Reloc, SectionId, SectionKind, SourceLine,
    SymbolDefinition, SymbolKind,
};
use vliw_isa::{FieldKind, ImmExpr, MachineConfig, RelocKind, format_inst};

/// What to print, as the `vliw-objdump` options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DisasmOptions {
    /// `-d`: code, bundle by bundle.
    pub disassemble: bool,
    /// `-r`: the relocation list of each section.
    pub relocs: bool,
    /// `-t` / `--syms`: the symbol table.
    pub syms: bool,
    /// `-h`: section headers (and segments of an executable).
    pub headers: bool,
    /// `-s` / `--full-contents`: hex dump of every section with contents.
    pub full_contents: bool,
    /// `--show-raw-insn`: the syllables of each bundle in hex after its address.
    pub show_raw: bool,
    /// `--no-line-numbers`: no `# FILE:LINE` lines in the code. By default, when the
    /// file has DWARF line tables (`.debug_line`), each bundle that starts a new
    /// source line (or a function) is preceded by one.
    pub no_line_numbers: bool,
    /// `--dwarf=frames`: the call-frame information (`.eh_frame`).
    pub frames: bool,
    /// `--reassemble`: source text that `assemble` turns back into the same object
    /// (objects only; every other option is ignored).
    pub reassemble: bool,
    /// The machine the reassembly is for (`--machine`): bundles it would reject are
    /// kept as raw words.
    pub machine: MachineConfig,
}

/// Prints an object according to `options`.
pub fn disassemble_object(object: &Object, options: &DisasmOptions) -> String {
    if options.reassemble {
        return crate::reassemble::reassemble(object, &options.machine);
    }
    let mut out = String::new();
    if options.headers {
        object_headers(object, &mut out);
    }
    if options.syms {
        object_symbols(object, &mut out);
    }
    if options.relocs {
        object_relocs(object, &mut out);
    }
    if options.full_contents {
        for s in &object.sections {
            if s.kind.is_nobits() {
                let _ = writeln!(
                    out,
                    "Contents of section {}: (bss, {:#x} bytes of zeros)",
                    s.name,
                    s.size()
                );
            } else {
                let _ = writeln!(out, "Contents of section {}:", s.name);
                hex_dump(&s.data, 0, &mut out);
            }
        }
        out.push('\n');
    }
    if options.frames {
        crate::frames::object_frames(object, &mut out);
    }
    if options.disassemble {
        let lines = if options.no_line_numbers {
            LineTable::default()
        } else {
            LineTable::from_object(object)
        };
        let all_labels = object_labels(object);
        for (index, s) in object.sections.iter().enumerate() {
            if s.kind != SectionKind::Text {
                continue;
            }
            let _ = writeln!(out, "Disassembly of section {}:", s.name);
            let labels = &all_labels[index];
            let mut relocs: Vec<(u64, RelocKind, ImmExpr)> = s
                .relocs
                .iter()
                .map(|r| (r.offset, r.kind, reloc_expr(object, r)))
                .collect();
            relocs.sort_by_key(|r| r.0);
            let describe = |offset: u64| describe_in(labels, offset);
            let source = |offset: u64| lines.lookup_in_section(SectionId(index), offset);
            print_code(
                &s.data,
                0,
                labels,
                &relocs,
                &describe,
                &source,
                options.show_raw,
                &mut out,
            );
            out.push('\n');
        }
    }
    out
}

/// Prints an executable according to `options` (`--reassemble` does not apply).
pub fn disassemble_executable(exe: &Executable, options: &DisasmOptions) -> String {
    let mut out = String::new();
    if options.headers {
        let _ = writeln!(out, "start address {:#018x}\n", exe.entry);
        let _ = writeln!(out, "Program headers:");
        for seg in &exe.segments {
            let f = seg.flags;
            let _ = writeln!(
                out,
                "    LOAD vaddr {:#018x} memsz {:#010x} filesz {:#010x} flags {}{}{}",
                seg.vaddr,
                seg.mem_size,
                seg.data.len(),
                if f.read { 'r' } else { '-' },
                if f.write { 'w' } else { '-' },
                if f.execute { 'x' } else { '-' }
            );
        }
        if let Some(tls) = exe.tls {
            let _ = writeln!(
                out,
                "     TLS vaddr {:#018x} memsz {:#010x} filesz {:#010x} align {:#x}",
                tls.vaddr, tls.mem_size, tls.file_size, tls.align
            );
        }
        let _ = writeln!(
            out,
            "\nSections:\nIdx Name                 Address          Size     Kind"
        );
        for (i, s) in exe.sections.iter().enumerate() {
            let _ = writeln!(
                out,
                "{i:>3} {:<20} {:016x} {:08x} {}",
                s.name,
                s.addr,
                s.size,
                kind_name(s.kind)
            );
        }
        for (i, s) in exe.non_alloc_sections.iter().enumerate() {
            let _ = writeln!(
                out,
                "{:>3} {:<20} {:<16} {:08x} {} (not loaded)",
                i + exe.sections.len(),
                s.name,
                "",
                s.data.len(),
                kind_name(s.kind)
            );
        }
        out.push('\n');
    }
    if options.syms {
        let _ = writeln!(out, "SYMBOL TABLE:");
        for sym in &exe.symbols {
            let section = exe
                .sections
                .iter()
                .find(|s| s.addr <= sym.addr && sym.addr < s.addr + s.size.max(1))
                .map_or("*ABS*", |s| s.name.as_str());
            let _ = writeln!(
                out,
                "{:016x} {} {} {:<16} {:016x} {}",
                sym.addr,
                binding_char(sym.binding),
                kind_char(sym.kind),
                section,
                sym.size,
                sym.name
            );
        }
        out.push('\n');
    }
    if options.relocs {
        let _ = writeln!(out, "(an executable has no relocations)\n");
    }
    if options.frames {
        crate::frames::executable_frames(exe, &mut out);
    }
    if options.full_contents {
        for s in &exe.sections {
            match exe.bytes_at(s.addr, s.size) {
                Some(bytes) if !s.kind.is_nobits() => {
                    let _ = writeln!(out, "Contents of section {}:", s.name);
                    hex_dump(bytes, s.addr, &mut out);
                }
                _ => {
                    let _ = writeln!(
                        out,
                        "Contents of section {}: (no file contents, {:#x} bytes of zeros)",
                        s.name, s.size
                    );
                }
            }
        }
        for s in &exe.non_alloc_sections {
            let _ = writeln!(out, "Contents of section {}:", s.name);
            hex_dump(&s.data, 0, &mut out);
        }
        out.push('\n');
    }
    if options.disassemble {
        let mut labels: BTreeMap<u64, Vec<String>> = BTreeMap::new();
        for sym in &exe.symbols {
            if !sym.name.is_empty()
                && matches!(
                    sym.kind,
                    SymbolKind::Func | SymbolKind::Object | SymbolKind::NoType
                )
            {
                labels.entry(sym.addr).or_default().push(sym.name.clone());
            }
        }
        for names in labels.values_mut() {
            names.sort();
            names.dedup();
        }
        let describe = |addr: u64| {
            exe.symbol_at(addr)
                .map(|s| symbol_plus(&s.name, addr.wrapping_sub(s.addr)))
        };
        let lines = if options.no_line_numbers {
            LineTable::default()
        } else {
            LineTable::from_executable(exe)
        };
        let source = |addr: u64| lines.lookup(addr);
        for s in exe.sections.iter().filter(|s| s.kind == SectionKind::Text) {
            let _ = writeln!(out, "Disassembly of section {}:", s.name);
            match exe.bytes_at(s.addr, s.size) {
                Some(bytes) => print_code(
                    bytes,
                    s.addr,
                    &labels,
                    &[],
                    &describe,
                    &source,
                    options.show_raw,
                    &mut out,
                ),
                None => {
                    let _ = writeln!(out, "    (contents not in any segment)");
                }
            }
            out.push('\n');
        }
    }
    out
}

/// `<name>` or `<name+0x10>`.
fn symbol_plus(name: &str, delta: u64) -> String {
    if delta == 0 {
        format!("<{name}>")
    } else {
        format!("<{name}+{delta:#x}>")
    }
}

/// The nearest label at or before `offset`.
fn describe_in(labels: &BTreeMap<u64, Vec<String>>, offset: u64) -> Option<String> {
    let (&at, names) = labels.range(..=offset).next_back()?;
    Some(symbol_plus(&names[0], offset - at))
}

/// Named symbols defined in each section, by offset (indexed like the sections).
pub(crate) fn object_labels(object: &Object) -> Vec<BTreeMap<u64, Vec<String>>> {
    let mut labels: Vec<BTreeMap<u64, Vec<String>>> = vec![BTreeMap::new(); object.sections.len()];
    for sym in &object.symbols {
        if matches!(sym.kind, SymbolKind::Section | SymbolKind::File) || sym.name.is_empty() {
            continue;
        }
        if let SymbolDefinition::Defined { section, value } = sym.definition
            && let Some(map) = labels.get_mut(section.0)
        {
            map.entry(value).or_default().push(sym.name.clone());
        }
    }
    for names in labels.iter_mut().flat_map(|m| m.values_mut()) {
        names.sort();
        names.dedup();
    }
    labels
}

/// How a relocation's symbol is written: a section symbol by its section's name.
pub(crate) fn reloc_symbol_name(object: &Object, reloc: &Reloc) -> String {
    match object.symbols.get(reloc.symbol.0) {
        Some(sym) if sym.kind == SymbolKind::Section || sym.name.is_empty() => match sym.definition
        {
            SymbolDefinition::Defined { section, .. } if section.0 < object.sections.len() => {
                object.sections[section.0].name.clone()
            }
            _ => format!("<symbol {}>", reloc.symbol.0),
        },
        Some(sym) => sym.name.clone(),
        None => format!("<symbol {}>", reloc.symbol.0),
    }
}

/// The operand a relocation stands for: `symbol+addend`, or `symbol@tprel+addend`.
pub(crate) fn reloc_expr(object: &Object, reloc: &Reloc) -> ImmExpr {
    let (name, addend) = (reloc_symbol_name(object, reloc), reloc.addend);
    if reloc.kind.is_tls() {
        ImmExpr::Tprel { name, addend }
    } else {
        ImmExpr::Sym { name, addend }
    }
}

/// Prints code: labels, then one bundle per line with its address, operations joined
/// by ` ; ` and ending in ` ;;`, and comments for relocations and pc-relative targets.
/// `relocs` are sorted by offset. A bundle whose source line (`source`) differs from
/// the previous bundle's, or that follows a label, is preceded by `# FILE:LINE`.
#[allow(clippy::too_many_arguments)]
fn print_code<'l>(
    bytes: &[u8],
    base: u64,
    labels: &BTreeMap<u64, Vec<String>>,
    relocs: &[(u64, RelocKind, ImmExpr)],
    describe: &dyn Fn(u64) -> Option<String>,
    source: &dyn Fn(u64) -> Option<SourceLine<'l>>,
    show_raw: bool,
    out: &mut String,
) {
    let mut label_iter = labels.iter().peekable();
    let mut last_line: Option<(&str, u64)> = None;
    for item in walk_code(bytes) {
        let start = base + item.offset();
        let end = start + item.len();
        while let Some(&(&at, names)) = label_iter.peek() {
            if at >= end {
                break;
            }
            out.push('\n');
            for name in names.iter() {
                let _ = writeln!(out, "{at:016x} <{name}>:");
            }
            label_iter.next();
            last_line = None;
        }
        let line = source(start);
        let key = line.map(|l| (l.file, l.line));
        if let Some(l) = line
            && key != last_line
        {
            let _ = writeln!(out, "{:11}# {}:{}", "", l.file, l.line);
        }
        last_line = key;
        let _ = write!(out, "{start:>8x}:  ");
        match item {
            CodeItem::Bundle { offset, words, ops } => {
                if show_raw {
                    for w in &words {
                        let _ = write!(out, "{w:016x} ");
                    }
                    out.push(' ');
                }
                let mut comments = Vec::new();
                let mut attached = Vec::new();
                // This bundle's relocations, by index in `relocs`.
                let end_offset = offset + 8 * words.len() as u64;
                let first = relocs.partition_point(|r| r.0 < offset);
                let last = relocs.partition_point(|r| r.0 < end_offset);
                let texts: Vec<String> = ops
                    .iter()
                    .map(|(syllable, inst)| {
                        let reloc_at = if inst.needs_limm() {
                            syllable - 8
                        } else {
                            *syllable
                        };
                        let reloc = (first..last).find(|&i| relocs[i].0 == reloc_at);
                        match reloc {
                            Some(r) if inst.format().has(FieldKind::Imm) => {
                                attached.push(r);
                                let (_, kind, expr) = &relocs[r];
                                comments.push(format!("{} {expr}", kind.name()));
                                format_inst(inst, Some(expr))
                            }
                            _ => {
                                if inst.format().is_pc_relative() {
                                    let target = (base + syllable).wrapping_add(inst.imm as u64);
                                    let name =
                                        describe(target).map_or(String::new(), |n| format!(" {n}"));
                                    comments.push(format!("{target:#x}{name}"));
                                }
                                format_inst(inst, None)
                            }
                        }
                    })
                    .collect();
                for (i, (o, kind, expr)) in relocs.iter().enumerate().take(last).skip(first) {
                    if !attached.contains(&i) {
                        comments.push(format!("{} {expr} at {:#x}", kind.name(), base + o));
                    }
                }
                out.push_str(&texts.join(" ; "));
                out.push_str(" ;;");
                for c in comments {
                    let _ = write!(out, "  # {c}");
                }
            }
            CodeItem::Illegal {
                offset,
                word,
                reason,
            } => {
                let _ = write!(out, ".quad {word:#018x}  # illegal: {reason}");
                let first = relocs.partition_point(|r| r.0 < offset);
                for (_, kind, expr) in relocs[first..].iter().take_while(|r| r.0 < offset + 8) {
                    let _ = write!(out, "  # {} {expr}", kind.name());
                }
            }
            CodeItem::Tail { bytes, .. } => {
                let list: Vec<String> = bytes.iter().map(|b| format!("{b:#04x}")).collect();
                let _ = write!(out, ".byte {}  # not a whole syllable", list.join(", "));
            }
        }
        out.push('\n');
    }
    for (&at, names) in label_iter {
        out.push('\n');
        for name in names {
            let _ = writeln!(out, "{at:016x} <{name}>:");
        }
    }
}

/// objdump's `-s` format: offset, four groups of four bytes, ASCII.
fn hex_dump(bytes: &[u8], base: u64, out: &mut String) {
    let width = format!("{:x}", base + bytes.len() as u64).len().max(4);
    for (i, chunk) in bytes.chunks(16).enumerate() {
        let _ = write!(out, " {:0width$x} ", base + 16 * i as u64);
        for g in 0..4 {
            for b in 0..4 {
                match chunk.get(g * 4 + b) {
                    Some(byte) => {
                        let _ = write!(out, "{byte:02x}");
                    }
                    None => out.push_str("  "),
                }
            }
            out.push(' ');
        }
        out.push(' ');
        for &b in chunk {
            out.push(if (0x20..0x7f).contains(&b) {
                b as char
            } else {
                '.'
            });
        }
        out.push('\n');
    }
}

fn kind_name(kind: SectionKind) -> &'static str {
    match kind {
        SectionKind::Text => "text",
        SectionKind::Data => "data",
        SectionKind::ReadOnlyData => "rodata",
        SectionKind::Bss => "bss",
        SectionKind::InitArray => "init_array",
        SectionKind::FiniArray => "fini_array",
        SectionKind::Note => "note",
        SectionKind::Other => "other",
        SectionKind::TlsData => "tdata",
        SectionKind::TlsBss => "tbss",
    }
}

fn binding_char(b: Binding) -> char {
    match b {
        Binding::Local => 'l',
        Binding::Global => 'g',
        Binding::Weak => 'w',
    }
}

fn kind_char(k: SymbolKind) -> char {
    match k {
        SymbolKind::NoType => ' ',
        SymbolKind::Func => 'F',
        SymbolKind::Object => 'O',
        SymbolKind::Section => 'd',
        SymbolKind::File => 'f',
        SymbolKind::Tls => 'T',
    }
}

fn object_headers(object: &Object, out: &mut String) {
    let _ = writeln!(
        out,
        "Sections:\nIdx Name                 Size     Align  Kind        Flags"
    );
    for (i, s) in object.sections.iter().enumerate() {
        let mut flags = Vec::new();
        if s.kind.is_alloc() {
            flags.push("alloc");
        }
        if s.kind.is_writable() {
            flags.push("write");
        }
        if s.kind == SectionKind::Text {
            flags.push("exec");
        }
        if s.kind.is_tls() {
            flags.push("tls");
        }
        if !s.kind.is_nobits() {
            flags.push("contents");
        }
        if !s.relocs.is_empty() {
            flags.push("relocs");
        }
        if s.retain {
            flags.push("retain");
        }
        let _ = writeln!(
            out,
            "{i:>3} {:<20} {:08x} {:<6} {:<11} {}",
            s.name,
            s.size(),
            s.align,
            kind_name(s.kind),
            flags.join(", ")
        );
    }
    out.push('\n');
}

fn object_symbols(object: &Object, out: &mut String) {
    let _ = writeln!(out, "SYMBOL TABLE:");
    for sym in &object.symbols {
        let (value, section) = match sym.definition {
            SymbolDefinition::Undefined => (0, "*UND*".to_string()),
            SymbolDefinition::Absolute(v) => (v, "*ABS*".to_string()),
            SymbolDefinition::Defined { section, value } => (
                value,
                object
                    .sections
                    .get(section.0)
                    .map_or("?".to_string(), |s| s.name.clone()),
            ),
        };
        let name = if sym.kind == SymbolKind::Section && sym.name.is_empty() {
            section.clone()
        } else {
            sym.name.clone()
        };
        let _ = writeln!(
            out,
            "{value:016x} {} {} {section:<16} {:016x} {name}",
            binding_char(sym.binding),
            kind_char(sym.kind),
            sym.size
        );
    }
    out.push('\n');
}

fn object_relocs(object: &Object, out: &mut String) {
    for s in &object.sections {
        if s.relocs.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "RELOCATION RECORDS FOR [{}]:\nOFFSET           TYPE                 VALUE",
            s.name
        );
        for r in &s.relocs {
            let name = reloc_symbol_name(object, r);
            let addend = match r.addend {
                0 => String::new(),
                a if a < 0 => format!("-{:#x}", a.unsigned_abs()),
                a => format!("+{a:#x}"),
            };
            let _ = writeln!(
                out,
                "{:016x} {:<20} {name}{addend}",
                r.offset,
                r.kind.name()
            );
        }
        out.push('\n');
    }
}
