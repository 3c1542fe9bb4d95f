//! `--reassemble`: an object printed as source that `assemble` turns back into the
//! same section contents and relocations.
//!
//! Operations and data words get their relocations as symbolic operands
//! (`movi r3 = table+16`, `.quad handler`, `.4byte target - .`) whenever assembling
//! that text gives back exactly the same bytes and relocation: the field holds zero
//! (the assembler writes zero under a relocation), and the assembler would not resolve
//! the reference itself (a pc-relative reference to a non-weak symbol of the same
//! section, or any reference to an absolute symbol, would be resolved). Otherwise the
//! operation or bytes are printed as they are, and the relocation as a `.reloc`
//! directive. Section symbols are written as their section's name.
//!
//! What does not survive: a relocation against a local symbol names the symbol's
//! section after the round trip (as GNU as does), local `.L` symbols leave the symbol
//! table, and `STT_FILE` symbols are dropped. Everything that affects the linked
//! program is kept.

use crate::code::{CodeItem, walk_code};
use crate::disasm::object_labels;
use crate::lines::is_ident_continue;
use crate::sections::flags_for_kind;
use crate::strings::escape;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use vliw_elf::{Binding, Object, Reloc, SectionKind, SymbolDefinition, SymbolKind};
use vliw_isa::text::is_plain_symbol;
use vliw_isa::{
    FieldKind, ImmExpr, Inst, MachineConfig, RelocKind, check_bundle, encode_bundle, format_inst,
};

/// A symbol name as the assembler reads it: plain, or in double quotes.
fn name_text(name: &str) -> String {
    if is_plain_symbol(name) {
        name.to_string()
    } else {
        format!("\"{name}\"")
    }
}

/// A section name for `.section`: plain identifier characters, or quoted.
fn section_text(name: &str) -> String {
    if !name.is_empty() && name.chars().all(is_ident_continue) && !name.chars().all(|c| c == '.') {
        name.to_string()
    } else {
        format!("\"{name}\"")
    }
}

/// A relocation's target: a section and an offset in it, or a symbol by name.
enum Target {
    Section(usize, i64),
    Named(String, i64),
}

struct Printer<'a> {
    object: &'a Object,
    /// Named symbols of each section by offset (what gets a label).
    labels: Vec<BTreeMap<u64, Vec<String>>>,
    /// Per section, the local symbols usable as a base for `section + offset`
    /// (unique names, not a section's name), by offset: the first name at each.
    local_bases: Vec<BTreeMap<u64, String>>,
    /// How many symbols have each name.
    symbol_names: HashMap<&'a str, usize>,
    /// A symbol of each name (the one that matters for unique names).
    by_name: HashMap<&'a str, &'a vliw_elf::Symbol>,
    /// How many sections have each name.
    section_names: HashMap<&'a str, usize>,
    /// Bundles that this machine would reject are printed as raw words.
    config: &'a MachineConfig,
    /// Sections whose name can stand for their section symbol (unique name, no
    /// symbol of that name).
    section_names_usable: Vec<bool>,
    out: String,
}

/// Prints `object` as assembly source (see the module documentation) for an
/// assembler configured with `config`: a bundle that it would reject (too wide, too
/// many operations of a unit), or that does not encode back to the same words, is
/// printed as `.quad` words with its operations in a comment.
pub fn reassemble(object: &Object, config: &MachineConfig) -> String {
    let mut symbol_names: HashMap<&str, usize> = HashMap::new();
    for s in object
        .symbols
        .iter()
        .filter(|s| s.kind != SymbolKind::Section)
    {
        *symbol_names.entry(s.name.as_str()).or_default() += 1;
    }
    let mut section_names: HashMap<&str, usize> = HashMap::new();
    for s in &object.sections {
        *section_names.entry(s.name.as_str()).or_default() += 1;
    }
    let section_names_usable = object
        .sections
        .iter()
        .map(|s| !symbol_names.contains_key(s.name.as_str()) && section_names[s.name.as_str()] == 1)
        .collect();
    let mut local_bases: Vec<BTreeMap<u64, String>> = vec![BTreeMap::new(); object.sections.len()];
    for s in &object.symbols {
        let usable = s.binding == Binding::Local
            && !matches!(s.kind, SymbolKind::Section | SymbolKind::File)
            && !s.name.is_empty()
            && !s.name.contains('"')
            && symbol_names.get(s.name.as_str()) == Some(&1)
            && !section_names.contains_key(s.name.as_str());
        if let (true, SymbolDefinition::Defined { section, value }) = (usable, s.definition)
            && let Some(map) = local_bases.get_mut(section.0)
        {
            let entry = map.entry(value).or_insert_with(|| s.name.clone());
            if s.name < *entry {
                *entry = s.name.clone();
            }
        }
    }
    let labels = object_labels(object);
    let by_name = object
        .symbols
        .iter()
        .map(|s| (s.name.as_str(), s))
        .collect();
    let mut p = Printer {
        object,
        labels,
        by_name,
        local_bases,
        symbol_names,
        section_names,
        config,
        section_names_usable,
        out: String::new(),
    };
    p.out.push_str(
        "# Reassembled by vliw-objdump --reassemble: `vliw-as` turns this back into the same\n",
    );
    p.out.push_str("# section contents and relocations.\n");
    p.declarations();
    for index in 0..object.sections.len() {
        p.section(index);
    }
    p.out
}

impl Printer<'_> {
    fn declarations(&mut self) {
        let mut symbols: Vec<_> = self
            .object
            .symbols
            .iter()
            .filter(|s| {
                !matches!(s.kind, SymbolKind::Section | SymbolKind::File) && !s.name.is_empty()
            })
            .collect();
        symbols.sort_by(|a, b| a.name.cmp(&b.name));
        let mut seen = BTreeSet::new();
        let mut lines = Vec::new();
        for sym in symbols {
            let n = name_text(&sym.name);
            if !seen.insert(sym.name.clone()) {
                lines.push(format!("# a second symbol named {n} is not reproduced"));
                continue;
            }
            match sym.binding {
                Binding::Global => lines.push(format!("\t.globl {n}")),
                Binding::Weak => lines.push(format!("\t.weak {n}")),
                Binding::Local => {}
            }
            match sym.kind {
                SymbolKind::Func => lines.push(format!("\t.type {n}, @function")),
                SymbolKind::Object => lines.push(format!("\t.type {n}, @object")),
                SymbolKind::Tls => lines.push(format!("\t.type {n}, @tls_object")),
                _ => {}
            }
            if let SymbolDefinition::Absolute(v) = sym.definition {
                lines.push(format!("\t.set {n}, {v:#x}"));
            }
            if sym.size != 0 && sym.is_defined() {
                lines.push(format!("\t.size {n}, {}", sym.size));
            }
        }
        for line in lines {
            self.out.push_str(&line);
            self.out.push('\n');
        }
    }

    /// What a relocation points at, canonically: a reference to a local symbol is a
    /// reference to its section plus its offset (that is how the assembler writes it).
    fn canonical_target(&self, reloc: &Reloc) -> Option<Target> {
        let sym = self.object.symbols.get(reloc.symbol.0)?;
        Some(match (sym.kind, sym.binding, sym.definition) {
            (SymbolKind::File, ..) => return None,
            (SymbolKind::Section, _, SymbolDefinition::Defined { section, .. }) => {
                Target::Section(section.0, reloc.addend)
            }
            (_, Binding::Local, SymbolDefinition::Defined { section, value }) => {
                Target::Section(section.0, reloc.addend.wrapping_add(value as i64))
            }
            _ => Target::Named(sym.name.clone(), reloc.addend),
        })
    }

    /// `section + offset` as an operand: from the last local label at or before it
    /// (which reads better and assembles to the same relocation), or from the
    /// section's name.
    fn section_operand(&self, section: usize, offset: i64) -> Option<ImmExpr> {
        if let Some((name, at)) = self.local_label_before(section, offset) {
            return Some(ImmExpr::Sym {
                name,
                addend: offset.wrapping_sub(at as i64),
            });
        }
        if !self
            .section_names_usable
            .get(section)
            .copied()
            .unwrap_or(false)
        {
            return None;
        }
        Some(ImmExpr::Sym {
            name: self.object.sections.get(section)?.name.clone(),
            addend: offset,
        })
    }

    /// The symbolic operand for `reloc` in a reference from section `from`, if
    /// assembling it gives back exactly this relocation.
    fn nameable(&self, reloc: &Reloc, from: usize) -> Option<ImmExpr> {
        let pc_relative = reloc.kind.is_pc_relative();
        match self.canonical_target(reloc)? {
            Target::Section(section, offset) => {
                if pc_relative && section == from {
                    return None;
                }
                self.section_operand(section, offset)
            }
            Target::Named(name, addend) => {
                let sym = &self.object.symbols[reloc.symbol.0];
                let usable = match sym.definition {
                    SymbolDefinition::Absolute(_) => false,
                    // An undefined name that is also a section's name would mean the section.
                    SymbolDefinition::Undefined => !self.section_names.contains_key(name.as_str()),
                    SymbolDefinition::Defined { section, .. } => {
                        !(pc_relative && section.0 == from && sym.binding != Binding::Weak)
                    }
                };
                (usable && !name.is_empty() && !name.contains('"'))
                    .then_some(ImmExpr::Sym { name, addend })
            }
        }
    }

    /// The last local, uniquely named symbol of `section` at or before `offset`:
    /// a reference to it is a reference to the section plus its offset.
    fn local_label_before(&self, section: usize, offset: i64) -> Option<(String, u64)> {
        let offset = u64::try_from(offset).ok()?;
        let (&at, name) = self
            .local_bases
            .get(section)?
            .range(..=offset)
            .next_back()?;
        Some((name.clone(), at))
    }

    /// The target of a `.reloc` directive (any relocation can be written this way).
    fn raw_target(&self, reloc: &Reloc) -> String {
        match self.canonical_target(reloc) {
            Some(Target::Section(section, offset)) => match self.section_operand(section, offset) {
                Some(expr) => expr.to_string(),
                None => ImmExpr::Sym {
                    name: self.object.sections[section].name.clone(),
                    addend: offset,
                }
                .to_string(),
            },
            Some(Target::Named(name, addend)) => ImmExpr::Sym { name, addend }.to_string(),
            None => format!("<symbol {}>", reloc.symbol.0),
        }
    }

    fn raw_reloc(&mut self, reloc: &Reloc, here: u64) {
        let delta = reloc.offset - here;
        let at = if delta == 0 {
            ".".to_string()
        } else {
            format!(".+{delta}")
        };
        let target = self.raw_target(reloc);
        let _ = writeln!(self.out, "\t.reloc {at}, {}, {target}", reloc.kind.name());
    }

    fn section(&mut self, index: usize) {
        let object = self.object;
        let s = &object.sections[index];
        let (flags, section_type) = flags_for_kind(s.kind, s.retain);
        let _ = writeln!(
            self.out,
            "\n\t.section {}, \"{flags}\", @{section_type}",
            section_text(&s.name)
        );
        if s.align > 1 {
            let _ = writeln!(self.out, "\t.p2align {}", s.align.trailing_zeros());
        }
        if self
            .section_names
            .get(s.name.as_str())
            .copied()
            .unwrap_or(0)
            > 1
        {
            let _ = writeln!(
                self.out,
                "# another section is also named {}: the assembler merges them",
                s.name
            );
        }
        let labels = std::mem::take(&mut self.labels[index]);
        let mut relocs: Vec<&Reloc> = s.relocs.iter().collect();
        relocs.sort_by_key(|r| r.offset);
        let size = s.size();
        match s.kind {
            SectionKind::Text => self.code(index, &labels, &relocs),
            SectionKind::Bss | SectionKind::TlsBss => self.bss(size, &labels),
            _ => self.data(index, &labels, &relocs),
        }
        for (&at, names) in labels.range(size..) {
            for name in names {
                if at == size {
                    let _ = writeln!(self.out, "{}:", name_text(name));
                } else {
                    let _ = writeln!(
                        self.out,
                        "# symbol {} at {at:#x} lies past the end of the section",
                        name_text(name)
                    );
                }
            }
        }
    }

    fn labels_at(&mut self, labels: &BTreeMap<u64, Vec<String>>, at: u64) {
        if let Some(names) = labels.get(&at) {
            for name in names {
                let _ = writeln!(self.out, "{}:", name_text(name));
            }
        }
    }

    fn code(&mut self, index: usize, labels: &BTreeMap<u64, Vec<String>>, relocs: &[&Reloc]) {
        let data = &self.object.sections[index].data;
        for item in walk_code(data) {
            let (start, end) = (item.offset(), item.offset() + item.len());
            self.labels_at(labels, start);
            for (&at, names) in labels.range(start + 1..end) {
                for name in names {
                    let _ = writeln!(self.out, "\t.set {}, .+{}", name_text(name), at - start);
                }
            }
            let first = relocs.partition_point(|r| r.offset < start);
            let inside: Vec<&Reloc> = relocs[first..]
                .iter()
                .copied()
                .take_while(|r| r.offset < end)
                .collect();
            match item {
                CodeItem::Bundle { ops, words, .. } => {
                    let insts: Vec<Inst> = ops.iter().map(|(_, inst)| *inst).collect();
                    let mut encoded = Vec::with_capacity(words.len());
                    let problem = match (
                        encode_bundle(&insts, &mut encoded),
                        check_bundle(&insts, self.config),
                    ) {
                        (Err(e), _) => Some(e.to_string()),
                        (_, Err(e)) => Some(e.to_string()),
                        _ if encoded != words => {
                            Some("does not encode back to the same words".to_string())
                        }
                        _ => None,
                    };
                    if let Some(problem) = problem {
                        let texts: Vec<String> =
                            insts.iter().map(|i| format_inst(i, None)).collect();
                        let _ = writeln!(
                            self.out,
                            "# {} ;;  ({problem}: kept as words)",
                            texts.join(" ; ")
                        );
                        for r in &inside {
                            self.raw_reloc(r, start);
                        }
                        for w in &words {
                            let _ = writeln!(self.out, "\t.quad {w:#018x}");
                        }
                        continue;
                    }
                    let mut used = vec![false; inside.len()];
                    let mut texts = Vec::with_capacity(ops.len());
                    for (syllable, inst) in &ops {
                        let symbolic = self.op_reloc(index, *syllable, inst, &inside, &used);
                        match symbolic {
                            Some((i, expr)) => {
                                used[i] = true;
                                texts.push(format_inst(inst, Some(&expr)));
                            }
                            None => {
                                let target =
                                    self.local_target(index, *syllable, inst, labels, &inside);
                                texts.push(format_inst(inst, target.as_ref()));
                            }
                        }
                    }
                    for (i, r) in inside.iter().enumerate() {
                        if !used[i] {
                            self.raw_reloc(r, start);
                        }
                    }
                    let _ = writeln!(self.out, "\t{} ;;", texts.join(" ; "));
                }
                CodeItem::Illegal { word, reason, .. } => {
                    let natural = match inside.as_slice() {
                        [r] if r.kind == RelocKind::Abs64 && r.offset == start && word == 0 => {
                            self.nameable(r, index)
                        }
                        _ => None,
                    };
                    match natural {
                        Some(expr) => {
                            let _ = writeln!(self.out, "\t.quad {expr}");
                        }
                        None => {
                            for r in &inside {
                                self.raw_reloc(r, start);
                            }
                            let _ = writeln!(self.out, "\t.quad {word:#018x}  # illegal: {reason}");
                        }
                    }
                }
                CodeItem::Tail { bytes, .. } => {
                    for r in &inside {
                        self.raw_reloc(r, start);
                    }
                    let list: Vec<String> = bytes.iter().map(|b| format!("{b:#04x}")).collect();
                    let _ = writeln!(self.out, "\t.byte {}", list.join(", "));
                }
            }
        }
    }

    /// The relocation (index in `inside`) that an operation's symbolic operand
    /// reproduces, with the operand.
    fn op_reloc(
        &self,
        section: usize,
        syllable: u64,
        inst: &Inst,
        inside: &[&Reloc],
        used: &[bool],
    ) -> Option<(usize, ImmExpr)> {
        let format = inst.format();
        if !format.has(FieldKind::Imm) || inst.imm != 0 {
            return None;
        }
        let kind = RelocKind::for_operand(inst)?;
        let offset = if kind == RelocKind::Imm64 {
            syllable - 8
        } else {
            syllable
        };
        let mut at_offset = inside
            .iter()
            .enumerate()
            .filter(|(_, r)| r.offset == offset);
        let (i, r) = at_offset.next()?;
        // `sym@tprel` is written where a 32-bit immediate is, against a symbol the
        // assembler accepts for it (one in a thread-local section, or undefined).
        let tprel = r.kind == RelocKind::Tprel32 && kind == RelocKind::Imm32 && self.tls_target(r);
        if used[i] || (r.kind != kind && !tprel) || at_offset.next().is_some() {
            return None;
        }
        match self.nameable(r, section)? {
            ImmExpr::Sym { name, addend } if tprel => Some((i, ImmExpr::Tprel { name, addend })),
            expr => Some((i, expr)),
        }
    }

    /// Whether the assembler takes `sym@tprel` for the target of `reloc`: a symbol in
    /// a thread-local section, or an undefined one.
    fn tls_target(&self, reloc: &Reloc) -> bool {
        let tls_section = |s: usize| self.object.sections.get(s).is_some_and(|s| s.kind.is_tls());
        match self.canonical_target(reloc) {
            Some(Target::Section(section, _)) => tls_section(section),
            Some(Target::Named(..)) => match self.object.symbols[reloc.symbol.0].definition {
                SymbolDefinition::Undefined => true,
                SymbolDefinition::Defined { section, .. } => tls_section(section.0),
                SymbolDefinition::Absolute(_) => false,
            },
            None => false,
        }
    }

    /// A pc-relative operand without relocation whose target has a label: the label
    /// (the assembler resolves it to the same offset), unless the label is weak (the
    /// assembler would then emit a relocation).
    fn local_target(
        &self,
        section: usize,
        syllable: u64,
        inst: &Inst,
        labels: &BTreeMap<u64, Vec<String>>,
        inside: &[&Reloc],
    ) -> Option<ImmExpr> {
        if !inst.format().is_pc_relative() || inside.iter().any(|r| r.offset == syllable) {
            return None;
        }
        let target = syllable.checked_add_signed(inst.imm)?;
        let names = labels.get(&target)?;
        // A unique name (so that it means this symbol), not weak (or the assembler
        // would emit a relocation), not a section's name.
        let usable = names.iter().find(|name| {
            !name.contains('"')
                && self.symbol_names.get(name.as_str()) == Some(&1)
                && !self.section_names.contains_key(name.as_str())
                && self.by_name.get(name.as_str()).is_some_and(|s| {
                    s.binding != Binding::Weak
                        && s.definition
                            == SymbolDefinition::Defined {
                                section: vliw_elf::SectionId(section),
                                value: target,
                            }
                })
        })?;
        Some(ImmExpr::Sym {
            name: usable.clone(),
            addend: 0,
        })
    }

    fn data(&mut self, index: usize, labels: &BTreeMap<u64, Vec<String>>, relocs: &[&Reloc]) {
        let data = &self.object.sections[index].data;
        let len = data.len() as u64;
        // Where a run of `.byte` must stop: labels and relocations.
        let mut stops: BTreeSet<u64> = labels.keys().copied().filter(|&o| o < len).collect();
        stops.extend(relocs.iter().map(|r| r.offset).filter(|&o| o < len));
        let mut at = 0u64;
        let mut next_reloc = 0;
        while at < len {
            self.labels_at(labels, at);
            // Relocations at this offset: the first may be written as a value.
            let mut here = Vec::new();
            while next_reloc < relocs.len() && relocs[next_reloc].offset <= at {
                if relocs[next_reloc].offset == at {
                    here.push(relocs[next_reloc]);
                }
                next_reloc += 1;
            }
            if let Some((first, rest)) = here.split_first() {
                let width = first.kind.size() as u64;
                let end = at + width;
                let clean = end <= len
                    && data[at as usize..end as usize].iter().all(|&b| b == 0)
                    && labels.range(at + 1..end).next().is_none()
                    && !relocs.iter().any(|r| r.offset > at && r.offset < end);
                let written = match (first.kind, clean) {
                    (RelocKind::Abs64, true) => {
                        self.nameable(first, index).map(|e| format!("\t.quad {e}"))
                    }
                    (RelocKind::Abs32, true) => {
                        self.nameable(first, index).map(|e| format!("\t.4byte {e}"))
                    }
                    (RelocKind::Pcrel32Data, true) => self
                        .nameable(first, index)
                        .map(|e| format!("\t.4byte {e} - .")),
                    _ => None,
                };
                for r in rest {
                    self.raw_reloc(r, at);
                }
                if let Some(line) = written {
                    let _ = writeln!(self.out, "{line}");
                    at = end;
                    continue;
                }
                self.raw_reloc(first, at);
            }
            let stop = stops
                .range(at + 1..)
                .next()
                .copied()
                .unwrap_or(len)
                .min(len);
            self.bytes(&data[at as usize..stop as usize]);
            at = stop;
        }
    }

    /// Bytes as `.ascii` when they are mostly text, else `.byte` lines of 16.
    fn bytes(&mut self, bytes: &[u8]) {
        let printable = bytes
            .iter()
            .filter(|&&b| (0x20..0x7f).contains(&b) || b == b'\n' || b == b'\t')
            .count();
        if bytes.len() >= 4 && printable * 10 >= bytes.len() * 9 {
            for chunk in bytes.chunks(64) {
                let _ = writeln!(self.out, "\t.ascii \"{}\"", escape(chunk));
            }
            return;
        }
        for chunk in bytes.chunks(16) {
            let list: Vec<String> = chunk.iter().map(|b| format!("{b:#04x}")).collect();
            let _ = writeln!(self.out, "\t.byte {}", list.join(", "));
        }
    }

    fn bss(&mut self, size: u64, labels: &BTreeMap<u64, Vec<String>>) {
        let mut at = 0;
        while at < size {
            self.labels_at(labels, at);
            let stop = labels.range(at + 1..size).next().map_or(size, |(&o, _)| o);
            let _ = writeln!(self.out, "\t.zero {}", stop - at);
            at = stop;
        }
    }
}
