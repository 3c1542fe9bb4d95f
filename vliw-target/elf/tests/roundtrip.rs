//! write_object -> read_object gives back the same object, and other ELF readers agree.

mod common;

use common::*;
use vliw_elf::*;
use vliw_isa::RelocKind;

#[test]
fn object_round_trip_keeps_every_kind() {
    let o = sample_object();
    let bytes = write_object(&o);
    let back = read_object(&bytes, "sample.o").unwrap();
    assert_eq!(back, locals_first(&o));

    // Everything the sample promises is really in it.
    for kind in SectionKind::ALL {
        assert!(o.sections.iter().any(|s| s.kind == kind), "{kind:?}");
    }
    for kind in RelocKind::ALL {
        assert!(
            o.sections
                .iter()
                .flat_map(|s| &s.relocs)
                .any(|r| r.kind == kind),
            "{kind:?}"
        );
    }
    for kind in [
        SymbolKind::NoType,
        SymbolKind::Func,
        SymbolKind::Object,
        SymbolKind::Section,
        SymbolKind::File,
        SymbolKind::Tls,
    ] {
        assert!(o.symbols.iter().any(|s| s.kind == kind), "{kind:?}");
    }
    // Reading is a fixpoint.
    assert_eq!(write_object(&back), bytes);
}

#[test]
fn empty_object_round_trips() {
    let o = Object::new();
    assert_eq!(read_object(&write_object(&o), "empty.o").unwrap(), o);
}

#[test]
fn object_crate_reads_our_objects() {
    use object::{Object as _, ObjectSection as _, ObjectSymbol as _};
    let bytes = write_object(&sample_object());
    let file = object::read::elf::ElfFile64::<object::LittleEndian>::parse(&*bytes).unwrap();
    assert_eq!(
        file.elf_header().e_machine.get(object::LittleEndian).0,
        vliw_isa::EM_VLIW
    );
    let text = file.section_by_name(".text.main").unwrap();
    assert_eq!(text.align(), 16);
    assert_eq!(text.relocations().count(), 7);
    assert!(file.section_by_name(".rela.text.main").is_some());
    assert!(
        file.symbols()
            .any(|s| s.name() == Ok("main") && s.is_global())
    );
    // Locals come first, and sh_info of .symtab counts them.
    let locals = file.symbols().take_while(|s| s.is_local()).count();
    assert_eq!(locals, 4); // file, section, helper, slot (the iterator skips the null symbol)
}

#[test]
fn readelf_accepts_our_objects() {
    let Ok(out) = std::process::Command::new("readelf")
        .arg("-a")
        .arg("-W")
        .arg("/dev/null")
        .output()
    else {
        return;
    };
    let _ = out;
    let dir = std::env::temp_dir().join(format!("vliw-elf-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sample.o");
    std::fs::write(&path, write_object(&sample_object())).unwrap();
    let out = std::process::Command::new("readelf")
        .arg("-a")
        .arg("-W")
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        !stderr.contains("Error") && !stderr.contains("Warning"),
        "{stderr}"
    );
    assert!(stdout.contains(".rela.text.main"), "{stdout}");
    assert!(stdout.contains("REL (Relocatable file)"), "{stdout}");
}

#[test]
fn section_kinds_map_to_elf_types_and_flags() {
    use object::read::elf::SectionHeader as _;
    let bytes = write_object(&sample_object());
    let file = object::read::elf::ElfFile64::<object::LittleEndian>::parse(&*bytes).unwrap();
    let e = object::LittleEndian;
    let table = file.elf_section_table();
    let get = |name: &str| {
        let (_, s) = table.section_by_name(e, name.as_bytes()).unwrap();
        (s.sh_type(e).0, s.sh_flags(e).0)
    };
    use object::elf::*;
    assert_eq!(
        get(".text.main"),
        (SHT_PROGBITS.0, SHF_ALLOC.0 | SHF_EXECINSTR.0)
    );
    assert_eq!(
        get(".text.kept"),
        (
            SHT_PROGBITS.0,
            SHF_ALLOC.0 | SHF_EXECINSTR.0 | SHF_GNU_RETAIN.0
        )
    );
    assert_eq!(get(".data"), (SHT_PROGBITS.0, SHF_ALLOC.0 | SHF_WRITE.0));
    assert_eq!(get(".rodata.str"), (SHT_PROGBITS.0, SHF_ALLOC.0));
    assert_eq!(get(".bss.buf"), (SHT_NOBITS.0, SHF_ALLOC.0 | SHF_WRITE.0));
    assert_eq!(
        get(".init_array"),
        (SHT_INIT_ARRAY.0, SHF_ALLOC.0 | SHF_WRITE.0)
    );
    assert_eq!(
        get(".fini_array"),
        (SHT_FINI_ARRAY.0, SHF_ALLOC.0 | SHF_WRITE.0)
    );
    assert_eq!(get(".note.vliw"), (SHT_NOTE.0, 0));
    assert_eq!(get(".debug_info"), (SHT_PROGBITS.0, 0));
}

#[test]
fn many_sections_use_extended_indices() {
    // More than 0xff00 sections: e_shnum, e_shstrndx and symbol section indices
    // overflow into section 0 and .symtab_shndx.
    let mut o = Object::new();
    for i in 0..0xff10 {
        let s = o.add_section(Section::new(
            &format!(".text.f{i}"),
            SectionKind::Text,
            8,
            common::nops(1),
        ));
        o.add_symbol(Symbol {
            name: format!("f{i}"),
            binding: Binding::Global,
            kind: SymbolKind::Func,
            definition: SymbolDefinition::Defined {
                section: s,
                value: 0,
            },
            size: 8,
        });
    }
    let bytes = write_object(&o);
    let back = read_object(&bytes, "big.o").unwrap();
    assert_eq!(back, o);
}
