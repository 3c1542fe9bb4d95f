//! The linker never panics, whatever the objects hold: random sections (kinds, huge
//! alignments and sizes), symbols and relocations, and corrupted files.

mod common;

use common::*;
use proptest::prelude::*;
use vliw_elf::*;
use vliw_isa::RelocKind;
use vliw_link::{InputFile, LinkConfig, link};

#[derive(Debug, Clone)]
struct RandomSection {
    kind: usize,
    align_log2: u32,
    size: u64,
}

#[derive(Debug, Clone)]
struct RandomReloc {
    section: usize,
    offset: u64,
    kind: usize,
    symbol: usize,
    addend: i64,
}

fn section_strategy() -> impl Strategy<Value = RandomSection> {
    (
        0..SectionKind::ALL.len(),
        prop_oneof![0u32..6, 12u32..16, 40u32..64],
        prop_oneof![0u64..64, Just(u64::MAX / 2), any::<u64>()],
    )
        .prop_map(|(kind, align_log2, size)| RandomSection {
            kind,
            align_log2,
            size,
        })
}

fn reloc_strategy() -> impl Strategy<Value = RandomReloc> {
    (
        any::<usize>(),
        0u64..64,
        0..RelocKind::ALL.len(),
        any::<usize>(),
        prop_oneof![any::<i64>(), -64i64..64],
    )
        .prop_map(|(section, offset, kind, symbol, addend)| RandomReloc {
            section,
            offset,
            kind,
            symbol,
            addend,
        })
}

fn build(
    sections: &[RandomSection],
    symbols: &[(usize, u64, u8)],
    relocs: &[RandomReloc],
) -> Object {
    let mut o = Object::new();
    o.add_section(Section::new(".text._start", SectionKind::Text, 8, nops(2)));
    for (i, s) in sections.iter().enumerate() {
        let kind = SectionKind::ALL[s.kind];
        let align = 1u64 << s.align_log2;
        let section = match kind {
            SectionKind::Bss => Section::bss(&format!(".bss.{i}"), align, s.size),
            SectionKind::TlsBss => Section::tbss(&format!(".tbss.{i}"), align, s.size),
            SectionKind::Text => Section::new(
                &format!(".text.{i}"),
                kind,
                align.max(8),
                nops((s.size % 8) as usize),
            ),
            _ => Section::new(
                &format!(".s{i}"),
                kind,
                align,
                vec![0; (s.size % 64) as usize],
            ),
        };
        o.add_section(section);
    }
    o.add_symbol(Symbol {
        name: "_start".into(),
        binding: Binding::Global,
        kind: SymbolKind::Func,
        definition: SymbolDefinition::Defined {
            section: SectionId(0),
            value: 0,
        },
        size: 16,
    });
    for (i, &(section, value, flavour)) in symbols.iter().enumerate() {
        let section = SectionId(section % o.sections.len());
        let size = o.sections[section.0].size();
        let definition = match flavour % 4 {
            0 => SymbolDefinition::Undefined,
            1 => SymbolDefinition::Absolute(value),
            _ => SymbolDefinition::Defined {
                section,
                value: value % (size.saturating_add(1)),
            },
        };
        let binding = [Binding::Local, Binding::Global, Binding::Weak][(flavour / 4 % 3) as usize];
        o.add_symbol(Symbol {
            name: format!("s{}", i % 5),
            binding,
            kind: SymbolKind::NoType,
            definition,
            size: 0,
        });
    }
    for r in relocs {
        let section = r.section % o.sections.len();
        let kind = RelocKind::ALL[r.kind];
        let len = o.sections[section].data.len() as u64;
        if len < kind.size() as u64 {
            continue;
        }
        let offset = r.offset % (len - kind.size() as u64 + 1);
        let symbol = SymbolId(r.symbol % o.symbols.len());
        o.sections[section].relocs.push(Reloc {
            offset,
            kind,
            symbol,
            addend: r.addend,
        });
    }
    o
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn random_objects(
        sections in proptest::collection::vec(section_strategy(), 0..6),
        symbols in proptest::collection::vec((any::<usize>(), any::<u64>(), any::<u8>()), 0..8),
        relocs in proptest::collection::vec(reloc_strategy(), 0..10),
        gc in any::<bool>(),
        map in any::<bool>(),
    ) {
        let object = build(&sections, &symbols, &relocs);
        let file = InputFile { name: "r.o".into(), data: write_object(&object), whole_archive: false };
        let config = LinkConfig { gc_sections: gc, want_map: map, ..LinkConfig::default() };
        if let Ok(out) = link(&[file], &config) {
            let bytes = write_executable(&out.executable);
            prop_assert!(read_executable(&bytes, "a.out").is_ok());
        }
    }

    #[test]
    fn corrupted_inputs(at in any::<prop::sample::Index>(), value in any::<u8>(), whole in any::<bool>()) {
        let mut helper = Obj::new();
        helper.func("helper", 2);
        let mut lib = archive("libh.a", &[("helper.o", &helper)]);
        lib.whole_archive = whole;
        let main = start_calling(&["helper"]).file("main.o");
        let mut files = [main, lib];
        let which = at.index(2);
        let at = at.index(files[which].data.len());
        files[which].data[at] = value;
        let _ = link(&files, &LinkConfig { want_map: true, ..LinkConfig::default() });
    }
}
