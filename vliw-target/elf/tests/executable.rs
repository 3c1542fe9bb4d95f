//! Executables round-trip, and their segments sit at file offsets a loader can map.

mod common;

use vliw_elf::*;

fn sample() -> Executable {
    Executable {
        entry: 0x10008,
        segments: vec![
            Segment {
                vaddr: 0x10000,
                mem_size: 24,
                data: common::nops(3),
                flags: SegmentFlags::RX,
            },
            Segment {
                vaddr: 0x11000,
                mem_size: 5,
                data: b"abcde".to_vec(),
                flags: SegmentFlags::R,
            },
            Segment {
                vaddr: 0x12000,
                mem_size: 0x100,
                data: vec![9; 16],
                flags: SegmentFlags::RW,
            },
        ],
        sections: vec![
            ExecSection {
                name: ".text".into(),
                addr: 0x10000,
                size: 24,
                kind: SectionKind::Text,
            },
            ExecSection {
                name: ".rodata".into(),
                addr: 0x11000,
                size: 5,
                kind: SectionKind::ReadOnlyData,
            },
            ExecSection {
                name: ".data".into(),
                addr: 0x12000,
                size: 16,
                kind: SectionKind::Data,
            },
            ExecSection {
                name: ".bss".into(),
                addr: 0x12010,
                size: 0xf0,
                kind: SectionKind::Bss,
            },
        ],
        symbols: vec![
            ExecSymbol {
                name: "local_fn".into(),
                addr: 0x10000,
                size: 8,
                kind: SymbolKind::Func,
                binding: Binding::Local,
            },
            ExecSymbol {
                name: "_start".into(),
                addr: 0x10008,
                size: 16,
                kind: SymbolKind::Func,
                binding: Binding::Global,
            },
            ExecSymbol {
                name: "_end".into(),
                addr: 0x12100,
                size: 0,
                kind: SymbolKind::NoType,
                binding: Binding::Global,
            },
        ],
        non_alloc_sections: vec![
            NonAllocSection {
                name: ".debug_line".into(),
                kind: SectionKind::Other,
                data: vec![1, 2, 3],
            },
            NonAllocSection {
                name: ".comment".into(),
                kind: SectionKind::Other,
                data: b"vliw\0".to_vec(),
            },
        ],
        tls: None,
    }
}

#[test]
fn executable_round_trip() {
    let exe = sample();
    let bytes = write_executable(&exe);
    let back = read_executable(&bytes, "a.out").unwrap();
    assert_eq!(back, exe);
    assert_eq!(
        back.non_alloc_section(".debug_line"),
        Some(&[1u8, 2, 3][..])
    );
    assert_eq!(back.symbol_at(0x10010).unwrap().name, "_start");
    assert_eq!(back.bytes_at(0x11001, 2), Some(&b"bc"[..]));
}

/// The sample with a TLS image: 8 bytes of `.tdata` at the end of the data
/// segment's file part, then 24 bytes of `.tbss`.
fn sample_with_tls() -> Executable {
    let mut exe = sample();
    exe.segments[2].data.extend([1, 2, 3, 4, 5, 6, 7, 8]);
    exe.sections.insert(
        3,
        ExecSection {
            name: ".tdata".into(),
            addr: 0x12010,
            size: 8,
            kind: SectionKind::TlsData,
        },
    );
    exe.sections.insert(
        4,
        ExecSection {
            name: ".tbss".into(),
            addr: 0x12018,
            size: 24,
            kind: SectionKind::TlsBss,
        },
    );
    exe.sections[5].addr = 0x12030;
    exe.sections[5].size = 0xd0;
    exe.symbols.push(ExecSymbol {
        name: "counter".into(),
        addr: 0x12010,
        size: 8,
        kind: SymbolKind::Tls,
        binding: Binding::Global,
    });
    exe.tls = Some(TlsTemplate {
        vaddr: 0x12010,
        file_size: 8,
        mem_size: 32,
        align: 16,
    });
    exe
}

#[test]
fn executable_with_tls_round_trips() {
    use object::read::elf::{FileHeader as _, ProgramHeader as _};
    let exe = sample_with_tls();
    let bytes = write_executable(&exe);
    assert_eq!(read_executable(&bytes, "a.out").unwrap(), exe);

    let e = object::LittleEndian;
    let header = object::elf::FileHeader64::<object::LittleEndian>::parse(&*bytes).unwrap();
    let phdrs = header.program_headers(e, &*bytes).unwrap();
    let tls: Vec<_> = phdrs
        .iter()
        .filter(|ph| ph.p_type(e) == object::elf::PT_TLS)
        .collect();
    assert_eq!(tls.len(), 1);
    let (tls, data) = (tls[0], &phdrs[2]);
    assert_eq!(data.p_type(e), object::elf::PT_LOAD);
    assert_eq!(
        (
            tls.p_vaddr(e),
            tls.p_filesz(e),
            tls.p_memsz(e),
            tls.p_align(e)
        ),
        (0x12010, 8, 32, 16)
    );
    // The image's bytes are where p_offset says, inside the data segment.
    let at = tls.p_offset(e) as usize;
    assert_eq!(at, data.p_offset(e) as usize + 0x10);
    assert_eq!(&bytes[at..at + 8], &[1, 2, 3, 4, 5, 6, 7, 8]);
}

#[test]
fn tls_image_outside_the_segments_is_rejected() {
    let mut exe = sample_with_tls();
    exe.tls.as_mut().unwrap().vaddr = 0x40000;
    let message = read_executable(&write_executable(&exe), "a.out")
        .unwrap_err()
        .to_string();
    assert!(message.contains("TLS image at 0x40000"), "{message}");
}

#[test]
fn stripped_executable_has_no_symtab() {
    let mut exe = sample();
    exe.symbols.clear();
    let bytes = write_executable(&exe);
    assert_eq!(read_executable(&bytes, "a.out").unwrap(), exe);
}

#[test]
fn segment_offsets_are_congruent_to_addresses() {
    use object::read::elf::{FileHeader as _, ProgramHeader as _};
    let bytes = write_executable(&sample());
    let e = object::LittleEndian;
    let header = object::elf::FileHeader64::<object::LittleEndian>::parse(&*bytes).unwrap();
    let phdrs = header.program_headers(e, &*bytes).unwrap();
    assert_eq!(phdrs.len(), 3);
    for ph in phdrs {
        assert_eq!(ph.p_offset(e) % 4096, ph.p_vaddr(e) % 4096);
        assert_eq!(ph.p_align(e), 4096);
    }
    assert_eq!(
        phdrs[0].p_flags(e).0,
        object::elf::PF_R.0 | object::elf::PF_X.0
    );
    assert_eq!(phdrs[2].p_memsz(e), 0x100);
    assert_eq!(phdrs[2].p_filesz(e), 16);
}

#[test]
fn executable_errors() {
    let bytes = write_executable(&sample());
    assert_eq!(
        read_object(&bytes, "a.out").unwrap_err().to_string(),
        "a.out: wrong file type: found a executable (ET_EXEC), expected a relocatable object (ET_REL)"
    );
    let mut b = bytes.clone();
    // First program header's p_filesz beyond the file.
    let phoff = u64::from_le_bytes(b[0x20..0x28].try_into().unwrap()) as usize;
    b[phoff + 0x20..phoff + 0x28].copy_from_slice(&0x10_0000u64.to_le_bytes());
    b[phoff + 0x28..phoff + 0x30].copy_from_slice(&0x10_0000u64.to_le_bytes());
    let message = read_executable(&b, "a.out").unwrap_err().to_string();
    assert!(
        message.starts_with(
            "a.out: truncated file: contents of segment 0 at offset 0x1000 needs 0x100000 bytes"
        ),
        "{message}"
    );
}

#[test]
fn readelf_accepts_our_executables() {
    let dir = std::env::temp_dir().join(format!("vliw-elf-exe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("a.out");
    std::fs::write(&path, write_executable(&sample_with_tls())).unwrap();
    let Ok(out) = std::process::Command::new("readelf")
        .arg("-a")
        .arg("-W")
        .arg(&path)
        .output()
    else {
        std::fs::remove_dir_all(&dir).ok();
        return;
    };
    std::fs::remove_dir_all(&dir).ok();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !stderr.contains("Error") && !stderr.contains("Warning"),
        "{stderr}"
    );
    assert!(stdout.contains("EXEC (Executable file)"), "{stdout}");
    assert!(stdout.contains("TLS "), "{stdout}");
    assert!(
        stdout.contains("Entry point address:               0x10008"),
        "{stdout}"
    );
}
