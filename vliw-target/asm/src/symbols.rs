//! The assembler's symbol table: labels, `.set` values, declared bindings, types and
//! sizes, and which names are referenced.

use crate::error::Pos;
use crate::expr::{Expr, SymValue};
use std::collections::HashMap;
use vliw_elf::SymbolKind;

/// How a name got its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SymDef {
    /// A label, or a `.set` to a section-relative value.
    InSection { section: usize, offset: u64 },
    /// `.set NAME, constant`.
    Absolute(i64),
    /// `.set` whose value needs symbols defined later: evaluated at the end.
    Deferred { expr: Expr, here: (usize, u64) },
}

/// A binding requested by a directive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Declared {
    Global,
    Weak,
    Local,
}

#[derive(Clone, Debug)]
pub struct SymInfo {
    pub name: String,
    pub def: Option<SymDef>,
    /// Where it was defined (for `duplicate label` errors and late `.set` errors).
    pub def_pos: Pos,
    /// A label (not a `.set`): labels cannot be redefined.
    pub is_label: bool,
    pub declared: Option<Declared>,
    pub kind: Option<SymbolKind>,
    /// `.size NAME, EXPR`, evaluated at the end.
    pub size: Option<(Expr, (usize, u64), Pos)>,
    /// Named by an operand, a data directive or an expression.
    pub referenced: bool,
    /// The first place that mentions it, for errors about it as a whole.
    pub first_pos: Pos,
}

#[derive(Debug, Default)]
pub struct SymbolTable {
    pub symbols: Vec<SymInfo>,
    index: HashMap<String, usize>,
    /// Section names: a name that no symbol defines but a section has stands for the
    /// start of that section (`.quad .text`), as in GNU as.
    sections: HashMap<String, usize>,
}

impl SymbolTable {
    /// The entry of `name`, created on first mention.
    pub fn entry(&mut self, name: &str, pos: Pos) -> &mut SymInfo {
        let i = match self.index.get(name) {
            Some(&i) => i,
            None => {
                self.symbols.push(SymInfo {
                    name: name.to_string(),
                    def: None,
                    def_pos: pos,
                    is_label: false,
                    declared: None,
                    kind: None,
                    size: None,
                    referenced: false,
                    first_pos: pos,
                });
                self.index.insert(name.to_string(), self.symbols.len() - 1);
                self.symbols.len() - 1
            }
        };
        &mut self.symbols[i]
    }

    pub fn get(&self, name: &str) -> Option<&SymInfo> {
        self.index.get(name).map(|&i| &self.symbols[i])
    }

    /// Marks `name` referenced.
    pub fn reference(&mut self, name: &str, pos: Pos) {
        self.entry(name, pos).referenced = true;
    }

    pub fn add_section_name(&mut self, name: &str, section: usize) {
        self.sections.insert(name.to_string(), section);
    }

    /// The section called `name`, if there is one.
    pub fn section_index(&self, name: &str) -> Option<usize> {
        self.sections.get(name).copied()
    }

    /// The section `name` stands for, if no symbol defines it.
    pub fn as_section(&self, name: &str) -> Option<usize> {
        if self.get(name).is_some_and(|s| s.def.is_some()) {
            return None;
        }
        self.sections.get(name).copied()
    }

    /// The value of `name` while assembling: only what is known so far.
    pub fn early_value(&self, name: &str) -> Option<SymValue> {
        if let Some(section) = self.as_section(name) {
            return Some(SymValue::InSection {
                section,
                offset: 0,
                global: false,
            });
        }
        match &self.get(name)?.def {
            Some(SymDef::InSection { section, offset }) => Some(SymValue::InSection {
                section: *section,
                offset: *offset,
                global: false,
            }),
            Some(SymDef::Absolute(v)) => Some(SymValue::Absolute(*v)),
            Some(SymDef::Deferred { .. }) | None => None,
        }
    }

    /// The value of `name` at the end of the file, after deferred `.set`s are
    /// resolved. Weak and undefined symbols are external: a relocation names them.
    pub fn final_value(&self, name: &str) -> SymValue {
        if let Some(section) = self.as_section(name) {
            return SymValue::InSection {
                section,
                offset: 0,
                global: false,
            };
        }
        let Some(sym) = self.get(name) else {
            return SymValue::External;
        };
        if sym.declared == Some(Declared::Weak) {
            return SymValue::External;
        }
        match &sym.def {
            Some(SymDef::InSection { section, offset }) => SymValue::InSection {
                section: *section,
                offset: *offset,
                global: sym.declared == Some(Declared::Global),
            },
            Some(SymDef::Absolute(v)) => SymValue::Absolute(*v),
            Some(SymDef::Deferred { .. }) | None => SymValue::External,
        }
    }
}

/// Whether GNU as would keep `name` out of the symbol table when it is local: the
/// assembler-internal `.L` labels.
pub fn is_internal(name: &str) -> bool {
    name.starts_with(".L")
}
