//! Archives: what write_archive writes, read_archive and GNU ar read back.

mod common;

use vliw_elf::*;

fn object_defining(name: &str) -> Vec<u8> {
    let mut o = Object::new();
    let s = o.add_section(Section::new(
        &format!(".text.{name}"),
        SectionKind::Text,
        8,
        common::nops(1),
    ));
    o.add_symbol(Symbol {
        name: name.into(),
        binding: Binding::Global,
        kind: SymbolKind::Func,
        definition: SymbolDefinition::Defined {
            section: s,
            value: 0,
        },
        size: 8,
    });
    o.add_symbol(Symbol {
        name: "local".into(),
        binding: Binding::Local,
        kind: SymbolKind::Func,
        definition: SymbolDefinition::Defined {
            section: s,
            value: 0,
        },
        size: 8,
    });
    o.add_symbol(Symbol {
        name: "undef".into(),
        binding: Binding::Global,
        kind: SymbolKind::NoType,
        definition: SymbolDefinition::Undefined,
        size: 0,
    });
    write_object(&o)
}

fn members() -> Vec<ArchiveMember> {
    vec![
        ArchiveMember {
            name: "foo.o".into(),
            data: object_defining("foo"),
        },
        ArchiveMember {
            name: "a-member-with-a-long-name.o".into(),
            data: object_defining("bar"),
        },
        ArchiveMember {
            name: "lib.rmeta".into(),
            data: b"rust metadata, odd length".to_vec(),
        },
        ArchiveMember {
            name: "another-long-member-name.o".into(),
            data: object_defining("baz"),
        },
    ]
}

#[test]
fn archive_round_trip_with_symbol_index() {
    let bytes = write_archive(&members());
    assert!(is_archive(&bytes));
    let archive = read_archive(&bytes, "libx.a").unwrap();
    assert_eq!(archive.members, members());
    assert_eq!(
        archive.symbols,
        Some(vec![
            ("foo".to_string(), 0),
            ("bar".to_string(), 1),
            ("baz".to_string(), 3)
        ])
    );
}

#[test]
fn archive_without_objects_indexes_no_symbols() {
    let m = vec![ArchiveMember {
        name: "x.txt".into(),
        data: b"x".to_vec(),
    }];
    let archive = read_archive(&write_archive(&m), "x.a").unwrap();
    assert_eq!(archive.members, m);
    assert!(
        archive.symbols.as_ref().is_none_or(|s| s.is_empty()),
        "{:?}",
        archive.symbols
    );
}

#[test]
fn gnu_ar_reads_our_archives() {
    let dir = std::env::temp_dir().join(format!("vliw-elf-ar-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("libx.a");
    std::fs::write(&path, write_archive(&members())).unwrap();
    let Ok(out) = std::process::Command::new("ar")
        .arg("t")
        .arg(&path)
        .output()
    else {
        std::fs::remove_dir_all(&dir).ok();
        return;
    };
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "foo.o\na-member-with-a-long-name.o\nlib.rmeta\nanother-long-member-name.o\n"
    );
}

#[test]
fn reads_archives_written_by_gnu_ar_and_bsd_ar() {
    let dir = std::env::temp_dir().join(format!("vliw-elf-ar2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("foo.o"), object_defining("foo")).unwrap();
    std::fs::write(
        dir.join("a-member-with-a-long-name.o"),
        object_defining("bar"),
    )
    .unwrap();
    for (tool, format, archive) in [
        ("ar", None, "gnu.a"),
        ("llvm-ar", Some("--format=bsd"), "bsd.a"),
    ] {
        let mut cmd = std::process::Command::new(tool);
        cmd.current_dir(&dir);
        if let Some(f) = format {
            cmd.arg(f);
        }
        // `ar` builds its own symbol index only for objects it understands, so our
        // objects come without one: `S` asks for none either way.
        let Ok(out) = cmd
            .arg("rcS")
            .arg(archive)
            .arg("foo.o")
            .arg("a-member-with-a-long-name.o")
            .output()
        else {
            continue;
        };
        assert!(
            out.status.success(),
            "{tool}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bytes = std::fs::read(dir.join(archive)).unwrap();
        let read = read_archive(&bytes, archive).unwrap();
        let names: Vec<&str> = read.members.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["foo.o", "a-member-with-a-long-name.o"], "{tool}");
        assert_eq!(read.members[0].data, object_defining("foo"));
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn archive_errors() {
    assert_eq!(
        read_archive(b"\x7fELF", "x.a").unwrap_err().to_string(),
        "x.a: not an archive (no `!<arch>` magic)"
    );
    assert_eq!(
        read_archive(b"!<thin>\n", "x.a").unwrap_err().to_string(),
        "x.a: thin archives are not supported"
    );
    let bytes = write_archive(&members());
    let message = read_archive(&bytes[..100], "x.a").unwrap_err().to_string();
    assert!(message.starts_with("x.a: malformed archive:"), "{message}");
}
