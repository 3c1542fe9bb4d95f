//! The end of the file: deferred `.set` values, the symbol table, fixups resolved or
//! turned into relocations, and the object.
//!
//! Which references become relocations (as GNU as does): an operand or data word
//! naming a symbol defined in this file is patched only if its value does not depend
//! on where the linker puts sections: a constant (`.set`), a difference of two places
//! in one section, or a pc-relative reference to the section it is in (branches to
//! local labels, `sym - .`). A weak symbol is never resolved (a definition elsewhere
//! may win). A relocation against a local symbol names its section's symbol with the
//! symbol's offset in the addend; one against a global, weak or undefined symbol names
//! the symbol.

use crate::assemble::{Assembler, FixTarget, FixupKind};
use crate::directives::{check_data_range, value_to_def};
use crate::error::Pos;
use crate::expr::{Base, BinOp, Expr, SymValue, Value, eval};
use crate::symbols::{Declared, SymDef, is_internal};
use std::collections::HashMap;
use vliw_elf::{
    Binding, Object, Reloc, Section, SectionId, SectionKind, Symbol, SymbolDefinition, SymbolId,
    SymbolKind,
};
use vliw_isa::{RelocError, RelocKind, apply_reloc};

/// What a relocation points at before symbol ids exist.
#[derive(Clone)]
enum Target {
    Section(usize),
    Named(String),
}

impl Assembler<'_> {
    pub(crate) fn finish(&mut self) -> Object {
        self.resolve_deferred_sets();
        for section in &mut self.sections {
            if section.kind == SectionKind::Text && section.data.len() % 8 != 0 {
                let pos = section.last_data.unwrap_or(Pos::new(1, 1));
                self.diag.error(
                    pos,
                    format!(
                        "code section `{}` ends at offset {:#x}, not a multiple of 8 (the syllable size): pad the data",
                        section.name,
                        section.data.len()
                    ),
                );
            }
        }
        let mut relocs: Vec<Vec<(u64, RelocKind, Target, i64)>> =
            vec![Vec::new(); self.sections.len()];
        self.resolve_fixups(&mut relocs);
        self.resolve_raw_relocs(&mut relocs);
        let (mut symbols, mut ids) = self.symbol_table();

        let mut object = Object::new();
        for (i, s) in self.sections.iter().enumerate() {
            let mut section = if s.kind.is_nobits() {
                Section {
                    kind: s.kind,
                    ..Section::bss(&s.name, s.align, s.bss_size)
                }
            } else {
                Section::new(&s.name, s.kind, s.align, s.data.clone())
            };
            section.retain = s.retain;
            let mut list = std::mem::take(&mut relocs[i]);
            list.sort_by_key(|r| r.0);
            for (offset, kind, target, addend) in list {
                let symbol = match target {
                    Target::Section(s) => SymbolId(s),
                    Target::Named(name) => match ids.get(&name) {
                        Some(&id) => id,
                        None => {
                            // A name left out of the table (e.g. a `.L` constant) that a
                            // relocation needs after all.
                            let id = SymbolId(symbols.len());
                            symbols.push(self.object_symbol(&name));
                            ids.insert(name, id);
                            id
                        }
                    },
                };
                section.relocs.push(Reloc {
                    offset,
                    kind,
                    symbol,
                    addend,
                });
            }
            object.add_section(section);
        }
        if let Some(eh_frame) = self.eh_frame_section() {
            object.add_section(eh_frame);
        }
        object.symbols = symbols;
        debug_assert!(
            !self.diag.errors.is_empty() || object.check().is_ok(),
            "{:?}",
            object.check()
        );
        object
    }

    /// Evaluates the `.set`s that referred to later symbols, repeating while progress
    /// is made (a `.set` may use another one).
    fn resolve_deferred_sets(&mut self) {
        loop {
            let mut progress = false;
            for i in 0..self.symbols.symbols.len() {
                let Some(SymDef::Deferred { expr, here }) = self.symbols.symbols[i].def.clone()
                else {
                    continue;
                };
                let table = &self.symbols;
                let mut waiting = false;
                let value = eval(&expr, here, &mut |name| match table
                    .get(name)
                    .and_then(|s| s.def.as_ref())
                {
                    Some(SymDef::Deferred { .. }) => {
                        waiting = true;
                        None
                    }
                    Some(_) => table.early_value(name),
                    None => Some(table.final_value(name)),
                });
                if waiting {
                    continue;
                }
                let pos = self.symbols.symbols[i].def_pos;
                match value.and_then(|v| value_to_def(&v)) {
                    Ok(def) => self.symbols.symbols[i].def = Some(def),
                    Err(e) => {
                        self.diag
                            .error(pos, format!("`.set {}`: {e}", self.symbols.symbols[i].name));
                        self.symbols.symbols[i].def = Some(SymDef::Absolute(0));
                    }
                }
                progress = true;
            }
            if !progress {
                break;
            }
        }
        for sym in &mut self.symbols.symbols {
            if matches!(sym.def, Some(SymDef::Deferred { .. })) {
                self.diag.error(
                    sym.def_pos,
                    format!("`.set {}`: the value depends on itself", sym.name),
                );
                sym.def = Some(SymDef::Absolute(0));
            }
        }
    }

    /// Evaluates with the final symbol values.
    fn eval_final(&self, expr: &Expr, here: (usize, u64)) -> Result<Value, String> {
        eval(expr, here, &mut |name| Some(self.symbols.final_value(name)))
    }

    fn resolve_fixups(&mut self, relocs: &mut [Vec<(u64, RelocKind, Target, i64)>]) {
        let fixups = std::mem::take(&mut self.fixups);
        for f in fixups {
            let place = f.offset;
            let result: Result<Option<(RelocKind, Target, i64)>, String> = match (&f.target, f.kind)
            {
                (FixTarget::Sym { name, addend }, FixupKind::Code(reloc_kind)) => {
                    let value = self.symbols.final_value(name);
                    match value {
                        // A thread-pointer offset is known only to the linker, and only
                        // for a thread-local variable.
                        SymValue::Absolute(_) if reloc_kind.is_tls() => Err(format!(
                            "`{name}@tprel`: `{name}` is a constant, not a thread-local variable"
                        )),
                        SymValue::InSection { section, .. }
                            if reloc_kind.is_tls() && !self.sections[section].kind.is_tls() =>
                        {
                            Err(format!(
                                "`{name}@tprel`: `{name}` is in section `{}`, which is not thread-local (.tdata/.tbss, flag `T`)",
                                self.sections[section].name
                            ))
                        }
                        SymValue::InSection {
                            section, offset, ..
                        } if reloc_kind.is_pc_relative() && section == f.section => {
                            let v = (offset as i64)
                                .wrapping_add(*addend)
                                .wrapping_sub(place as i64);
                            self.patch(f.section, reloc_kind, place, v, name)
                                .map(|_| None)
                        }
                        SymValue::Absolute(v) if !reloc_kind.is_pc_relative() => self
                            .patch(f.section, reloc_kind, place, v.wrapping_add(*addend), name)
                            .map(|_| None),
                        SymValue::InSection {
                            section,
                            offset,
                            global: false,
                        } => Ok(Some((
                            reloc_kind,
                            Target::Section(section),
                            addend.wrapping_add(offset as i64),
                        ))),
                        _ => Ok(Some((reloc_kind, Target::Named(name.clone()), *addend))),
                    }
                }
                (FixTarget::Expr(expr), FixupKind::Data(size)) => {
                    match self.eval_final(expr, (f.section, place)) {
                        Err(e) => Err(e),
                        Ok(v) => self.data_value(&v, size, f.section, place),
                    }
                }
                (FixTarget::Expr(_), FixupKind::Code(_))
                | (FixTarget::Sym { .. }, FixupKind::Data(_)) => {
                    Err("internal error: fixup target and kind disagree".to_string())
                }
            };
            match result {
                Ok(None) => {}
                Ok(Some((kind, target, addend))) => {
                    relocs[f.section].push((place, kind, target, addend))
                }
                Err(e) => self.diag.error(f.pos, e),
            }
        }
    }

    /// A data item's value: written now (`Ok(None)` after patching) or a relocation.
    fn data_value(
        &mut self,
        v: &Value,
        size: u8,
        section: usize,
        place: u64,
    ) -> Result<Option<(RelocKind, Target, i64)>, String> {
        if v.is_absolute() {
            check_data_range(v.constant, size)?;
            let bytes = v.constant.to_le_bytes();
            let at = place as usize;
            self.sections[section].data[at..at + size as usize]
                .copy_from_slice(&bytes[..size as usize]);
            return Ok(None);
        }
        let (kind, base) = match v.terms.as_slice() {
            [(b, 1)] => {
                let kind = match size {
                    8 => RelocKind::Abs64,
                    4 => RelocKind::Abs32,
                    _ => {
                        return Err(format!(
                            "a {size}-byte value cannot hold an address (use `.word` or `.quad`)"
                        ));
                    }
                };
                (kind, b)
            }
            [(b, 1), (Base::Section(s), -1)] | [(Base::Section(s), -1), (b, 1)]
                if *s == section =>
            {
                if size != 4 {
                    return Err(format!(
                        "a pc-relative value (`sym - .`) needs 4 bytes (`.word`), not {size}: there is no {}-bit pc-relative data relocation",
                        size * 8
                    ));
                }
                (RelocKind::Pcrel32Data, b)
            }
            _ => {
                return Err(
                    "the value is neither a constant, `symbol + constant`, nor `symbol - .` (the linker cannot compute it)"
                        .to_string(),
                );
            }
        };
        let pc_adjust = if kind == RelocKind::Pcrel32Data {
            place as i64
        } else {
            0
        };
        let (target, addend) = reloc_target(v, base);
        Ok(Some((kind, target, addend.wrapping_add(pc_adjust))))
    }

    fn resolve_raw_relocs(&mut self, relocs: &mut [Vec<(u64, RelocKind, Target, i64)>]) {
        let raw = std::mem::take(&mut self.raw_relocs);
        for r in raw {
            // `sym`, `sym + N`, `sym - N` name the symbol itself (even a constant);
            // other expressions must come to one relocatable base.
            let named = match &r.expr {
                Expr::Sym(name) => Some((name, 0)),
                Expr::Bin(BinOp::Add, a, b) => match (&**a, &**b) {
                    (Expr::Sym(name), Expr::Num(n)) => Some((name, *n)),
                    _ => None,
                },
                Expr::Bin(BinOp::Sub, a, b) => match (&**a, &**b) {
                    (Expr::Sym(name), Expr::Num(n)) => Some((name, n.wrapping_neg())),
                    _ => None,
                },
                _ => None,
            };
            let result = match named {
                Some((name, addend)) => Ok(match self.symbols.final_value(name) {
                    SymValue::InSection {
                        section,
                        offset,
                        global: false,
                    } => (Target::Section(section), addend.wrapping_add(offset as i64)),
                    _ => (Target::Named(name.clone()), addend),
                }),
                None => self
                    .eval_final(&r.expr, (r.section, r.offset))
                    .and_then(|v| match v.terms.as_slice() {
                        [(b, 1)] => Ok(reloc_target(&v, b)),
                        _ => Err("`.reloc` needs `symbol` or `symbol + constant`".to_string()),
                    }),
            };
            let end = r.offset.checked_add(r.kind.size() as u64);
            let size = self.sections[r.section].data.len() as u64;
            match result {
                Err(e) => self.diag.error(r.pos, e),
                Ok(_) if end.is_none_or(|e| e > size) => self.diag.error(
                    r.pos,
                    format!("`.reloc` {} at offset {:#x} reaches past the end of the section ({size:#x} bytes)", r.kind.name(), r.offset),
                ),
                Ok((target, addend)) => relocs[r.section].push((r.offset, r.kind, target, addend)),
            }
        }
    }

    /// Writes a resolved value into its place, with the relocation's checks.
    fn patch(
        &mut self,
        section: usize,
        kind: RelocKind,
        place: u64,
        value: i64,
        name: &str,
    ) -> Result<(), String> {
        apply_reloc(kind, &mut self.sections[section].data, place, value).map_err(|e| match e {
            RelocError::Misaligned { value, .. } => format!(
                "misaligned {} target `{name}`: offset {value} from the operation is not a multiple of 8",
                if self.is_branch_at(section, place) { "branch" } else { "pc-relative" }
            ),
            RelocError::Overflow { value, .. } if kind == RelocKind::Imm32 => {
                format!("value {value:#x} of `{name}` does not fit in 32 bits: write `long` before it")
            }
            RelocError::Overflow { value, .. } => format!("offset {value:#x} to `{name}` does not fit in 32 bits"),
            other => other.to_string(),
        })
    }

    /// Whether the syllable at `place` is a branch or call (not `addpc`).
    fn is_branch_at(&self, section: usize, place: u64) -> bool {
        let data = &self.sections[section].data;
        let word = data
            .get(place as usize..place as usize + 8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes);
        word.and_then(|w| vliw_isa::Inst::decode(w).ok())
            .is_some_and(|(i, _)| i.format() == vliw_isa::Format::Branch)
    }

    /// The object's symbols: one per section, then the named symbols that belong in
    /// the table, and the map from name to id.
    fn symbol_table(&mut self) -> (Vec<Symbol>, HashMap<String, SymbolId>) {
        let mut symbols: Vec<Symbol> = (0..self.sections.len())
            .map(|s| Symbol {
                name: String::new(),
                binding: Binding::Local,
                kind: SymbolKind::Section,
                definition: SymbolDefinition::Defined {
                    section: SectionId(s),
                    value: 0,
                },
                size: 0,
            })
            .collect();
        let mut ids = HashMap::new();
        for i in 0..self.symbols.symbols.len() {
            let sym = &self.symbols.symbols[i];
            let defined = sym.def.is_some();
            let declared_visible = matches!(sym.declared, Some(Declared::Global | Declared::Weak));
            if sym.declared == Some(Declared::Local) && !defined && sym.referenced {
                let (pos, name) = (sym.first_pos, sym.name.clone());
                self.diag.error(
                    pos,
                    format!("`{name}` is declared `.local` but never defined"),
                );
                continue;
            }
            if !defined && self.symbols.as_section(&sym.name).is_some() {
                // A section name used as a symbol: relocations name the section.
                continue;
            }
            if let Some(SymDef::InSection { section, offset }) = sym.def {
                let size = self.sections[section].offset();
                if offset > size {
                    let (pos, name, sec) = (
                        sym.def_pos,
                        sym.name.clone(),
                        self.sections[section].name.clone(),
                    );
                    self.diag.error(pos, format!("`{name}` is at offset {offset:#x}, past the end of `{sec}` ({size:#x} bytes)"));
                    continue;
                }
            }
            let keep = if defined {
                !is_internal(&sym.name) || declared_visible
            } else {
                sym.referenced || declared_visible
            };
            if let Some((expr, here, pos)) = sym.size.clone() {
                let name = sym.name.clone();
                if !defined {
                    self.diag.error(
                        pos,
                        format!("`.size` of `{name}`, which is not defined in this file"),
                    );
                } else {
                    match self.eval_final(&expr, here) {
                        Ok(v) if v.is_absolute() && v.constant >= 0 => {}
                        Ok(_) => self.diag.error(
                            pos,
                            format!("`.size {name}` must be a non-negative constant"),
                        ),
                        Err(e) => self.diag.error(pos, format!("`.size {name}`: {e}")),
                    }
                }
            }
            if keep {
                let name = self.symbols.symbols[i].name.clone();
                ids.insert(name.clone(), SymbolId(symbols.len()));
                symbols.push(self.object_symbol(&name));
            }
        }
        (symbols, ids)
    }

    /// The object symbol for `name` (which is in the assembler's table).
    fn object_symbol(&self, name: &str) -> Symbol {
        let sym = self.symbols.get(name).expect("symbol in the table");
        let definition = match &sym.def {
            Some(SymDef::InSection { section, offset }) => SymbolDefinition::Defined {
                section: SectionId(*section),
                value: *offset,
            },
            Some(SymDef::Absolute(v)) => SymbolDefinition::Absolute(*v as u64),
            Some(SymDef::Deferred { .. }) | None => SymbolDefinition::Undefined,
        };
        let binding = match sym.declared {
            Some(Declared::Global) => Binding::Global,
            Some(Declared::Weak) => Binding::Weak,
            Some(Declared::Local) => Binding::Local,
            None if definition == SymbolDefinition::Undefined => Binding::Global,
            None => Binding::Local,
        };
        let size = sym
            .size
            .as_ref()
            .and_then(|(expr, here, _)| self.eval_final(expr, *here).ok())
            .filter(|v| v.is_absolute() && v.constant >= 0)
            .map_or(0, |v| v.constant as u64);
        Symbol {
            name: name.to_string(),
            binding,
            kind: sym.kind.unwrap_or(SymbolKind::NoType),
            definition,
            size,
        }
    }
}

/// The symbol and addend of a relocatable value with base `base` (coefficient 1): a
/// global symbol that the expression named is kept; otherwise the section's symbol.
fn reloc_target(v: &Value, base: &Base) -> (Target, i64) {
    match base {
        Base::Symbol(name) => (Target::Named(name.clone()), v.constant),
        Base::Section(s) => {
            let named: Vec<_> = v
                .named
                .iter()
                .filter(|(_, sec, _, c)| sec == s && *c != 0)
                .collect();
            match named.as_slice() {
                [(name, _, offset, 1)] => (
                    Target::Named(name.clone()),
                    v.constant.wrapping_sub(*offset as i64),
                ),
                _ => (Target::Section(*s), v.constant),
            }
        }
    }
}
