//! The assembler's driver: reads the source line by line, dispatches statements to
//! labels, directives (`directives.rs`) and operations (`bundles.rs`), then resolves
//! what had to wait for the end of the file and builds the object (`finish.rs`).
//!
//! One pass: every operation's size is known when it is read (a symbolic immediate
//! takes the 32-bit form unless `long` is written; a number gets a `limm` when it
//! needs one), so labels get their final offsets at once, and references to them
//! are patched or turned into relocations at the end.

use crate::error::{AsmError, Diagnostics, Pos};
use crate::expr::Expr;
use crate::lines::{Stmt, StmtKind, split_line};
use crate::sections::{SectionState, kind_from_name};
use crate::symbols::{SymDef, SymbolTable};
use vliw_elf::Object;
use vliw_isa::{Inst, MachineConfig, RelocKind};

/// Assembles `source` (named `file_name` in messages) for `config`. Returns the object,
/// or every error found.
pub fn assemble(
    source: &str,
    file_name: &str,
    config: &MachineConfig,
) -> Result<Object, Vec<AsmError>> {
    let mut asm = Assembler::new(config, file_name);
    let mut last_line = 0;
    for (index, line) in source.lines().enumerate() {
        last_line = index + 1;
        match split_line(line, index + 1) {
            Ok(stmts) => {
                for stmt in stmts {
                    asm.statement(stmt);
                }
            }
            Err((pos, message)) => asm.diag.error(pos, message),
        }
    }
    if let Some(bundle) = asm.bundle.take() {
        let pos = Pos::new(
            last_line.max(1),
            source.lines().last().map_or(1, |l| l.chars().count() + 1),
        );
        asm.diag.error(
            pos,
            format!(
                "bundle not closed with ';;' before end of file (bundle starts at line {})",
                bundle.pos.line
            ),
        );
    }
    let object = asm.finish();
    if asm.diag.errors.is_empty() {
        Ok(object)
    } else {
        Err(asm.diag.errors)
    }
}

/// How a fixup's value is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FixupKind {
    /// An operation's immediate, filled by this relocation kind
    /// (`RelocKind::for_operand`): Imm32, Imm64 (at the `limm`), Branch32 or Pcrel32;
    /// or Tprel32 for `sym@tprel`.
    Code(RelocKind),
    /// A data item of 1, 2, 4 or 8 bytes.
    Data(u8),
}

#[derive(Clone, Debug)]
pub enum FixTarget {
    /// An operand `sym+addend`.
    Sym { name: String, addend: i64 },
    /// A data directive's expression, with `.` at the item.
    Expr(Expr),
}

/// A value that is written once the symbols are known.
#[derive(Clone, Debug)]
pub struct Fixup {
    pub section: usize,
    pub offset: u64,
    pub kind: FixupKind,
    pub target: FixTarget,
    pub pos: Pos,
}

/// A relocation written with `.reloc`, kept as is.
#[derive(Clone, Debug)]
pub struct RawReloc {
    pub section: usize,
    pub offset: u64,
    pub kind: RelocKind,
    pub expr: Expr,
    pub pos: Pos,
}

/// One operation of the open bundle.
#[derive(Clone, Debug)]
pub struct PendingOp {
    pub inst: Inst,
    /// A symbolic immediate, resolved at the end: name, addend and whether it is a
    /// thread-pointer offset (`sym@tprel`).
    pub sym: Option<(String, i64, bool)>,
    pub pos: Pos,
}

/// The bundle being read (operations since the last `;;`).
#[derive(Clone, Debug)]
pub struct OpenBundle {
    pub pos: Pos,
    pub ops: Vec<PendingOp>,
    /// An operation failed: the bundle is dropped at `;;` without further errors.
    pub failed: bool,
}

pub(crate) struct Assembler<'c> {
    pub config: &'c MachineConfig,
    pub diag: Diagnostics,
    pub sections: Vec<SectionState>,
    pub current: Option<usize>,
    pub symbols: SymbolTable,
    pub bundle: Option<OpenBundle>,
    pub fixups: Vec<Fixup>,
    pub raw_relocs: Vec<RawReloc>,
    pub cfi: crate::cfi::CfiState,
}

impl<'c> Assembler<'c> {
    fn new(config: &'c MachineConfig, file_name: &str) -> Assembler<'c> {
        Assembler {
            config,
            diag: Diagnostics::new(file_name),
            sections: Vec::new(),
            current: None,
            symbols: SymbolTable::default(),
            bundle: None,
            fixups: Vec::new(),
            raw_relocs: Vec::new(),
            cfi: crate::cfi::CfiState::default(),
        }
    }

    fn statement(&mut self, stmt: Stmt) {
        match stmt.kind {
            StmtKind::Label(name) => self.label(&name, stmt.pos),
            StmtKind::Directive {
                name,
                args,
                args_col,
            } => self.directive(&name, &args, stmt.pos, args_col),
            StmtKind::Op(text) => self.op(&text, stmt.pos),
            StmtKind::EndBundle => self.end_bundle(stmt.pos),
        }
    }

    /// The current section, `.text` if none was selected yet (as GNU as does).
    pub fn current_section(&mut self) -> usize {
        match self.current {
            Some(s) => s,
            None => {
                let s = self.section_named(".text", kind_from_name(".text"), false);
                self.current = Some(s);
                s
            }
        }
    }

    /// The section called `name`, created with `kind` if it does not exist yet.
    pub fn section_named(
        &mut self,
        name: &str,
        kind: vliw_elf::SectionKind,
        retain: bool,
    ) -> usize {
        match self.symbols.section_index(name) {
            Some(i) => i,
            None => {
                self.sections.push(SectionState::new(name, kind, retain));
                self.symbols.add_section_name(name, self.sections.len() - 1);
                self.sections.len() - 1
            }
        }
    }

    /// Reports a bundle still open before `what` and drops it (its operations cannot
    /// be placed correctly).
    pub fn close_bundle_before(&mut self, what: &str, pos: Pos) {
        if let Some(bundle) = self.bundle.take() {
            self.diag.error(
                pos,
                format!(
                    "bundle not closed with ';;' before {what} (bundle starts at line {})",
                    bundle.pos.line
                ),
            );
        }
    }

    fn label(&mut self, name: &str, pos: Pos) {
        self.close_bundle_before(&format!("label `{name}`"), pos);
        if name.is_empty() || name == "." {
            self.diag.error(pos, format!("`{name}` cannot be a label"));
            return;
        }
        let section = self.current_section();
        let offset = self.sections[section].offset();
        let sym = self.symbols.entry(name, pos);
        if let Some(def) = &sym.def {
            let what = if sym.is_label {
                "label"
            } else if matches!(def, SymDef::InSection { .. }) {
                "symbol"
            } else {
                "`.set` symbol"
            };
            let line = sym.def_pos.line;
            self.diag.error(
                pos,
                format!("duplicate label `{name}` (already defined as a {what} at line {line})"),
            );
            return;
        }
        sym.def = Some(SymDef::InSection { section, offset });
        sym.def_pos = pos;
        sym.is_label = true;
    }
}
