//! Symbol resolution: which objects take part in the link, and what every symbol
//! reference stands for.
//!
//! Two steps. First the set of objects: every object named on the command line, every
//! member of a `--whole-archive` archive, and archive members pulled in because they
//! define a symbol that an object already in the link references (strongly). Archives
//! are searched until nothing changes, whatever their position on the command line
//! (as lld does), so `--start-group` is never needed. Then the objects, sorted by
//! command-line position and member order, are resolved in that order: a strong
//! definition beats a weak one, the first of two weak ones wins, two strong ones are an
//! error. Local symbols never leave their object.

use std::collections::{HashMap, HashSet, VecDeque};

use vliw_elf::{
    Binding, Object, SectionId, SymbolDefinition, SymbolId, SymbolKind, is_archive, is_elf,
    read_archive, read_object,
};

use crate::error::{DuplicateSymbol, LinkError};
use crate::input::InputFile;

/// An object taking part in the link.
pub(crate) struct Input {
    /// `file.o`, or `lib.a(member.o)` for an archive member.
    pub name: String,
    pub object: Object,
}

/// `(object, section)` of every input section that `keep` accepts, in link order.
pub(crate) fn sections_where(
    inputs: &[Input],
    keep: impl Fn(&vliw_elf::Section) -> bool,
) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (oi, input) in inputs.iter().enumerate() {
        for (si, s) in input.object.sections.iter().enumerate() {
            if keep(s) {
                out.push((oi, si));
            }
        }
    }
    out
}

/// Symbols the linker defines when no input defines them (see `docs/linking.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum LinkerSymbol {
    ExecutableStart,
    Etext,
    RodataStart,
    DataStart,
    Edata,
    BssStart,
    End,
    InitArrayStart,
    InitArrayEnd,
    FiniArrayStart,
    FiniArrayEnd,
    TlsStart,
    TlsDataEnd,
    TlsEnd,
    /// An absolute symbol: the alignment of the TLS image (1 without TLS).
    TlsAlign,
    EhFrameStart,
    EhFrameEnd,
    EhFrameHdrStart,
    EhFrameHdrEnd,
}

impl LinkerSymbol {
    pub const ALL: [LinkerSymbol; 19] = [
        LinkerSymbol::ExecutableStart,
        LinkerSymbol::Etext,
        LinkerSymbol::RodataStart,
        LinkerSymbol::DataStart,
        LinkerSymbol::InitArrayStart,
        LinkerSymbol::InitArrayEnd,
        LinkerSymbol::FiniArrayStart,
        LinkerSymbol::FiniArrayEnd,
        LinkerSymbol::Edata,
        LinkerSymbol::BssStart,
        LinkerSymbol::End,
        LinkerSymbol::TlsStart,
        LinkerSymbol::TlsDataEnd,
        LinkerSymbol::TlsEnd,
        LinkerSymbol::TlsAlign,
        LinkerSymbol::EhFrameStart,
        LinkerSymbol::EhFrameEnd,
        LinkerSymbol::EhFrameHdrStart,
        LinkerSymbol::EhFrameHdrEnd,
    ];

    pub fn name(self) -> &'static str {
        match self {
            LinkerSymbol::ExecutableStart => "__executable_start",
            LinkerSymbol::Etext => "_etext",
            LinkerSymbol::RodataStart => "__rodata_start",
            LinkerSymbol::DataStart => "__data_start",
            LinkerSymbol::Edata => "_edata",
            LinkerSymbol::BssStart => "__bss_start",
            LinkerSymbol::End => "_end",
            LinkerSymbol::InitArrayStart => "__init_array_start",
            LinkerSymbol::InitArrayEnd => "__init_array_end",
            LinkerSymbol::FiniArrayStart => "__fini_array_start",
            LinkerSymbol::FiniArrayEnd => "__fini_array_end",
            LinkerSymbol::TlsStart => "__tls_start",
            LinkerSymbol::TlsDataEnd => "__tls_data_end",
            LinkerSymbol::TlsEnd => "__tls_end",
            LinkerSymbol::TlsAlign => "__tls_align",
            LinkerSymbol::EhFrameStart => "__eh_frame_start",
            LinkerSymbol::EhFrameEnd => "__eh_frame_end",
            LinkerSymbol::EhFrameHdrStart => "__eh_frame_hdr_start",
            LinkerSymbol::EhFrameHdrEnd => "__eh_frame_hdr_end",
        }
    }

    pub fn from_name(name: &str) -> Option<LinkerSymbol> {
        LinkerSymbol::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// What a symbol reference stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// `value` bytes into a section of an object.
    Section {
        object: usize,
        section: SectionId,
        value: u64,
    },
    Absolute(u64),
    Linker(LinkerSymbol),
    /// Defined nowhere; a weak reference is 0, a strong one an error if it is used.
    Undefined {
        weak: bool,
    },
}

/// The winning definition of a global symbol.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GlobalDef {
    pub object: usize,
    pub symbol: SymbolId,
    pub weak: bool,
}

pub(crate) struct Resolution {
    pub globals: HashMap<String, GlobalDef>,
}

/// Where a symbol is defined, for messages: `a.o (section .text.f+0x10)`.
pub(crate) fn describe_definition(inputs: &[Input], object: usize, symbol: SymbolId) -> String {
    let input = &inputs[object];
    match input.object.symbols[symbol.0].definition {
        SymbolDefinition::Defined { section, value } => {
            format!(
                "{} (section {}+{value:#x})",
                input.name, input.object.sections[section.0].name
            )
        }
        SymbolDefinition::Absolute(v) => format!("{} (absolute {v:#x})", input.name),
        SymbolDefinition::Undefined => input.name.clone(),
    }
}

/// A printable name of a symbol: section symbols have none in ELF, so they are named
/// after their section.
pub(crate) fn symbol_display_name(object: &Object, symbol: SymbolId) -> String {
    let sym = &object.symbols[symbol.0];
    match (sym.name.is_empty(), sym.kind, sym.definition) {
        (true, SymbolKind::Section, SymbolDefinition::Defined { section, .. }) => {
            object.sections[section.0].name.clone()
        }
        (true, _, _) => format!("<symbol {}>", symbol.0),
        _ => sym.name.clone(),
    }
}

/// Chooses the objects of the link: command-line objects, whole archives, and archive
/// members that define symbols referenced by objects already chosen, or named in
/// `roots` (the entry symbol and `-u` symbols). Returns them in link order: by
/// command-line position, then member order.
pub(crate) fn select_objects(
    files: &[InputFile],
    roots: &[String],
) -> Result<Vec<Input>, LinkError> {
    struct Lazy {
        file: usize,
        /// (member name, data), all members.
        members: Vec<(String, Vec<u8>)>,
        /// Global symbol -> first member that defines it.
        index: HashMap<String, usize>,
        extracted: HashSet<usize>,
    }

    let mut chosen: Vec<((usize, usize), Input)> = Vec::new();
    let mut defined: HashSet<String> = HashSet::new();
    let mut wanted: VecDeque<String> = roots.iter().cloned().collect();
    let mut include = |key: (usize, usize),
                       input: Input,
                       defined: &mut HashSet<String>,
                       wanted: &mut VecDeque<String>| {
        for sym in &input.object.symbols {
            if sym.binding == Binding::Local || sym.name.is_empty() {
                continue;
            }
            if sym.is_defined() {
                defined.insert(sym.name.clone());
            } else if sym.binding == Binding::Global {
                wanted.push_back(sym.name.clone());
            }
        }
        chosen.push((key, input));
    };

    let mut lazies = Vec::new();
    for (fi, file) in files.iter().enumerate() {
        if is_elf(&file.data) {
            let object = read_object(&file.data, &file.name)?;
            include(
                (fi, 0),
                Input {
                    name: file.name.clone(),
                    object,
                },
                &mut defined,
                &mut wanted,
            );
        } else if is_archive(&file.data) {
            let archive = read_archive(&file.data, &file.name)?;
            let members: Vec<(String, Vec<u8>)> = archive
                .members
                .into_iter()
                .map(|m| (m.name, m.data))
                .collect();
            let member_name = |m: usize| format!("{}({})", file.name, members[m].0);
            if file.whole_archive {
                for (m, (_, data)) in members.iter().enumerate() {
                    if is_elf(data) {
                        let object = read_object(data, &member_name(m))?;
                        include(
                            (fi, m + 1),
                            Input {
                                name: member_name(m),
                                object,
                            },
                            &mut defined,
                            &mut wanted,
                        );
                    }
                }
                continue;
            }
            let mut index = HashMap::new();
            match archive.symbols {
                Some(symbols) => {
                    for (name, m) in symbols {
                        index.entry(name).or_insert(m);
                    }
                }
                None => {
                    // No symbol index (e.g. `ar rcS`): read the members to make one.
                    for (m, (_, data)) in members.iter().enumerate() {
                        if !is_elf(data) {
                            continue;
                        }
                        let object = read_object(data, &member_name(m))?;
                        for sym in object.symbols {
                            if sym.binding != Binding::Local
                                && sym.is_defined()
                                && !sym.name.is_empty()
                            {
                                index.entry(sym.name).or_insert(m);
                            }
                        }
                    }
                }
            }
            lazies.push(Lazy {
                file: fi,
                members,
                index,
                extracted: HashSet::new(),
            });
        } else {
            return Err(LinkError::UnknownFileType(file.name.clone()));
        }
    }

    while let Some(name) = wanted.pop_front() {
        if defined.contains(&name) {
            continue;
        }
        for lazy in &mut lazies {
            let Some(&m) = lazy.index.get(&name) else {
                continue;
            };
            if m >= lazy.members.len() || !lazy.extracted.insert(m) {
                continue;
            }
            let member = format!("{}({})", files[lazy.file].name, lazy.members[m].0);
            let object = read_object(&lazy.members[m].1, &member)?;
            include(
                (lazy.file, m + 1),
                Input {
                    name: member,
                    object,
                },
                &mut defined,
                &mut wanted,
            );
            break;
        }
    }

    chosen.sort_by_key(|(key, _)| *key);
    Ok(chosen.into_iter().map(|(_, input)| input).collect())
}

impl Resolution {
    /// Resolves the global symbols of `inputs`, in order. Two strong definitions of one
    /// name are an error that names both places.
    pub fn build(inputs: &[Input]) -> Result<Resolution, LinkError> {
        let mut globals: HashMap<String, GlobalDef> = HashMap::new();
        let mut duplicates = Vec::new();
        for (oi, input) in inputs.iter().enumerate() {
            for (si, sym) in input.object.symbols.iter().enumerate() {
                if sym.binding == Binding::Local || !sym.is_defined() || sym.name.is_empty() {
                    continue;
                }
                let new = GlobalDef {
                    object: oi,
                    symbol: SymbolId(si),
                    weak: sym.binding == Binding::Weak,
                };
                match globals.get_mut(&sym.name) {
                    None => {
                        globals.insert(sym.name.clone(), new);
                    }
                    Some(old) if old.weak && !new.weak => *old = new,
                    Some(old) if !old.weak && !new.weak => duplicates.push(DuplicateSymbol {
                        name: sym.name.clone(),
                        first: describe_definition(inputs, old.object, old.symbol),
                        second: describe_definition(inputs, oi, SymbolId(si)),
                    }),
                    Some(_) => {}
                }
            }
        }
        if !duplicates.is_empty() {
            return Err(LinkError::Duplicate(duplicates));
        }
        Ok(Resolution { globals })
    }

    /// What symbol `symbol` of object `object` stands for.
    pub fn target(&self, inputs: &[Input], object: usize, symbol: SymbolId) -> Target {
        let sym = &inputs[object].object.symbols[symbol.0];
        if sym.binding == Binding::Local {
            return definition_target(object, sym.definition, false);
        }
        match self.globals.get(&sym.name) {
            Some(def) => definition_target(
                def.object,
                inputs[def.object].object.symbols[def.symbol.0].definition,
                false,
            ),
            None => match LinkerSymbol::from_name(&sym.name) {
                Some(l) => Target::Linker(l),
                None => Target::Undefined {
                    weak: sym.binding == Binding::Weak,
                },
            },
        }
    }

    /// What a global name stands for (the entry symbol, `-u` symbols).
    pub fn target_of_name(&self, inputs: &[Input], name: &str) -> Target {
        match self.globals.get(name) {
            Some(def) => definition_target(
                def.object,
                inputs[def.object].object.symbols[def.symbol.0].definition,
                false,
            ),
            None => match LinkerSymbol::from_name(name) {
                Some(l) => Target::Linker(l),
                None => Target::Undefined { weak: false },
            },
        }
    }

    /// The linker symbols that no input defines: the linker provides them.
    pub fn provided_linker_symbols(&self) -> Vec<LinkerSymbol> {
        LinkerSymbol::ALL
            .into_iter()
            .filter(|l| !self.globals.contains_key(l.name()))
            .collect()
    }
}

fn definition_target(object: usize, definition: SymbolDefinition, weak: bool) -> Target {
    match definition {
        SymbolDefinition::Defined { section, value } => Target::Section {
            object,
            section,
            value,
        },
        SymbolDefinition::Absolute(v) => Target::Absolute(v),
        SymbolDefinition::Undefined => Target::Undefined { weak },
    }
}
