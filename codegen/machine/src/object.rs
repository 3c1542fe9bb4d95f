//! The relocatable object: one section per function (`.text.NAME`) and per data
//! object (`.rodata.NAME`, `.data.NAME`, `.bss.NAME`; thread-local ones in
//! `.tdata.NAME`, `.tbss.NAME` with `STT_TLS` symbols), so that `--gc-sections` can
//! drop what is unused; jump tables in `.rodata.jt.NAME` (`R_VLIW_ABS64` entries
//! against the function's section); symbols with the IR's linkage (export → global,
//! local → local, weak → weak; referenced but not defined → undefined global).

use rustc_hash::FxHashMap as HashMap;
use vliw_elf::{
    Binding, Object, Reloc, Section, SectionId, SectionKind, Symbol, SymbolDefinition, SymbolId,
    SymbolKind,
};
use vliw_ir::{DataKind, Linkage, Module};
use vliw_isa::RelocKind;

use crate::emit::{FunctionCode, RelocTarget};
use crate::error::CompileError;

fn binding(linkage: Linkage) -> Binding {
    match linkage {
        Linkage::Export | Linkage::Import => Binding::Global,
        Linkage::Local => Binding::Local,
        Linkage::Weak => Binding::Weak,
    }
}

/// Builds objects symbol by symbol: named symbols are unique, and a name that is
/// referenced before (or without) its definition starts as undefined.
pub struct ObjectBuilder {
    pub object: Object,
    names: HashMap<String, SymbolId>,
}

impl Default for ObjectBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl ObjectBuilder {
    pub fn new() -> ObjectBuilder {
        ObjectBuilder {
            object: Object::new(),
            names: HashMap::default(),
        }
    }

    /// The symbol named `name`, undefined until something defines it.
    pub fn symbol(&mut self, name: &str) -> SymbolId {
        if let Some(&id) = self.names.get(name) {
            return id;
        }
        let id = self.object.add_symbol(Symbol {
            name: name.to_string(),
            binding: Binding::Global,
            kind: SymbolKind::NoType,
            definition: SymbolDefinition::Undefined,
            size: 0,
        });
        self.names.insert(name.to_string(), id);
        id
    }

    /// Defines `name` at the start of `section`.
    pub fn define(
        &mut self,
        name: &str,
        linkage: Linkage,
        kind: SymbolKind,
        section: SectionId,
        size: u64,
    ) -> SymbolId {
        let id = self.symbol(name);
        let s = &mut self.object.symbols[id.0];
        s.binding = binding(linkage);
        s.kind = kind;
        s.definition = SymbolDefinition::Defined { section, value: 0 };
        s.size = size;
        id
    }

    /// A nameless local section symbol.
    pub fn section_symbol(&mut self, section: SectionId) -> SymbolId {
        self.object.add_symbol(Symbol {
            name: String::new(),
            binding: Binding::Local,
            kind: SymbolKind::Section,
            definition: SymbolDefinition::Defined { section, value: 0 },
            size: 0,
        })
    }

    pub fn add_function(&mut self, name: &str, linkage: Linkage, code: &FunctionCode) -> SectionId {
        let mut bytes = Vec::with_capacity(code.words.len() * 8);
        for w in &code.words {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        let size = bytes.len() as u64;
        let text = self.object.add_section(Section::new(
            &format!(".text.{name}"),
            SectionKind::Text,
            8,
            bytes,
        ));
        self.define(name, linkage, SymbolKind::Func, text, size);
        let mut jt_section_sym = None;
        if !code.jump_tables.is_empty() {
            let text_sym = self.section_symbol(text);
            let n: usize = code.jump_tables.iter().map(Vec::len).sum();
            let mut jt = Section::new(
                &format!(".rodata.jt.{name}"),
                SectionKind::ReadOnlyData,
                8,
                vec![0; 8 * n],
            );
            let mut off = 0u64;
            for table in &code.jump_tables {
                for &target in table {
                    jt.relocs.push(Reloc {
                        offset: off,
                        kind: RelocKind::Abs64,
                        symbol: text_sym,
                        addend: target as i64,
                    });
                    off += 8;
                }
            }
            let jt_id = self.object.add_section(jt);
            jt_section_sym = Some(self.section_symbol(jt_id));
        }
        let mut relocs = Vec::with_capacity(code.relocs.len());
        for r in &code.relocs {
            let symbol = match &r.target {
                RelocTarget::Symbol(s) => self.symbol(s),
                RelocTarget::JumpTables => jt_section_sym.expect("a function with jump tables"),
            };
            relocs.push(Reloc {
                offset: r.offset,
                kind: r.kind,
                symbol,
                addend: r.addend,
            });
        }
        self.object.sections[text.0].relocs = relocs;
        text
    }

    pub fn add_data(&mut self, d: &vliw_ir::DataObject) -> Result<SectionId, CompileError> {
        let (prefix, kind) = match (d.kind, d.thread_local) {
            (DataKind::ReadOnly, false) => ("rodata", SectionKind::ReadOnlyData),
            (DataKind::Data, false) => ("data", SectionKind::Data),
            (DataKind::Bss, false) => ("bss", SectionKind::Bss),
            (DataKind::Data, true) => ("tdata", SectionKind::TlsData),
            (DataKind::Bss, true) => ("tbss", SectionKind::TlsBss),
            (DataKind::ReadOnly, true) => {
                return Err(CompileError::new(
                    "",
                    format!("thread-local data `{}` is read-only", d.name),
                ));
            }
        };
        let name = format!(".{prefix}.{}", d.name);
        let align = d.align.max(1);
        let mut section = if kind.is_nobits() {
            Section {
                kind,
                ..Section::bss(&name, align, d.bytes.len() as u64)
            }
        } else {
            Section::new(&name, kind, align, d.bytes.clone())
        };
        for r in &d.relocs {
            if kind.is_nobits() {
                return Err(CompileError::new(
                    "",
                    format!("bss data `{}` has a relocation", d.name),
                ));
            }
            let symbol = self.symbol(&r.symbol);
            section.relocs.push(Reloc {
                offset: r.offset,
                kind: RelocKind::Abs64,
                symbol,
                addend: r.addend,
            });
        }
        let id = self.object.add_section(section);
        let symbol_kind = if d.thread_local {
            SymbolKind::Tls
        } else {
            SymbolKind::Object
        };
        self.define(&d.name, d.linkage, symbol_kind, id, d.bytes.len() as u64);
        Ok(id)
    }
}

/// The object of a module whose functions are encoded (`codes` in module order), with
/// call-frame information if `options.unwind_tables` and DWARF line tables if
/// `options.debug_info`.
pub fn build_object(
    module: &Module,
    codes: &[FunctionCode],
    options: &crate::options::Options,
) -> Result<Object, CompileError> {
    let debug_info = options.debug_info;
    let mut b = ObjectBuilder::new();
    let mut texts = Vec::with_capacity(codes.len());
    for (f, code) in module.functions.iter().zip(codes) {
        let text = b.add_function(&f.name, f.linkage, code);
        let size = code.words.len() as u64 * 8;
        let landing = if code.call_sites.is_empty() {
            None
        } else {
            let Some(personality) = &f.personality else {
                return Err(CompileError::new(
                    &f.name,
                    "a function with landing pads has no personality routine",
                ));
            };
            if !options.unwind_tables {
                return Err(CompileError::new(
                    &f.name,
                    "landing pads need the call-frame information (unwind-tables=off)",
                ));
            }
            let lsda = b.object.add_section(Section::new(
                &vliw_elf::lsda::section_name(&f.name),
                SectionKind::ReadOnlyData,
                8,
                vliw_elf::lsda::lsda_bytes(&code.call_sites, size),
            ));
            Some(crate::eh_frame::Landing {
                personality: personality.as_str(),
                lsda,
            })
        };
        if options.unwind_tables {
            crate::eh_frame::add_function_frame(
                &mut b,
                &f.name,
                text,
                size,
                &code.frame_rows,
                landing,
            )?;
        }
        texts.push(text);
    }
    for d in &module.data {
        b.add_data(d)?;
    }
    if debug_info {
        let functions: Vec<crate::dwarf::DebugFunction<'_>> = module
            .functions
            .iter()
            .zip(codes)
            .zip(&texts)
            .map(|((f, code), &text)| crate::dwarf::DebugFunction {
                text,
                code,
                files: &f.files,
            })
            .collect();
        crate::dwarf::add_line_tables(&mut b, &functions)?;
    }
    b.object
        .check()
        .map_err(|e| CompileError::new("", format!("invalid object: {e}")))?;
    Ok(b.object)
}
