//! Readers never panic: random bytes, and valid files with one byte changed or cut.

mod common;

use proptest::prelude::*;
use vliw_elf::*;

fn read_everything(bytes: &[u8]) {
    let _ = read_object(bytes, "fuzz.o");
    let _ = read_executable(bytes, "fuzz");
    let _ = read_archive(bytes, "fuzz.a");
}

fn sample_executable() -> Vec<u8> {
    let exe = Executable {
        entry: 0x10000,
        segments: vec![
            Segment {
                vaddr: 0x10000,
                mem_size: 16,
                data: common::nops(2),
                flags: SegmentFlags::RX,
            },
            Segment {
                vaddr: 0x11000,
                mem_size: 64,
                data: vec![7; 8],
                flags: SegmentFlags::RW,
            },
        ],
        sections: vec![
            ExecSection {
                name: ".text".into(),
                addr: 0x10000,
                size: 16,
                kind: SectionKind::Text,
            },
            ExecSection {
                name: ".data".into(),
                addr: 0x11000,
                size: 8,
                kind: SectionKind::Data,
            },
            ExecSection {
                name: ".bss".into(),
                addr: 0x11008,
                size: 56,
                kind: SectionKind::Bss,
            },
        ],
        symbols: vec![ExecSymbol {
            name: "_start".into(),
            addr: 0x10000,
            size: 16,
            kind: SymbolKind::Func,
            binding: Binding::Global,
        }],
        non_alloc_sections: vec![NonAllocSection {
            name: ".debug_line".into(),
            kind: SectionKind::Other,
            data: vec![1, 2, 3],
        }],
        tls: Some(TlsTemplate {
            vaddr: 0x11000,
            file_size: 8,
            mem_size: 24,
            align: 8,
        }),
    };
    write_executable(&exe)
}

fn sample_archive() -> Vec<u8> {
    write_archive(&[
        ArchiveMember {
            name: "a.o".into(),
            data: write_object(&common::sample_object()),
        },
        ArchiveMember {
            name: "a-rather-long-member-name.o".into(),
            data: vec![1, 2, 3],
        },
    ])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        read_everything(&bytes);
    }

    #[test]
    fn random_bytes_after_a_valid_header(tail in proptest::collection::vec(any::<u8>(), 0..512)) {
        let mut bytes = write_object(&Object::new())[..64].to_vec();
        bytes.extend(&tail);
        read_everything(&bytes);
        let mut bytes = b"!<arch>\n".to_vec();
        bytes.extend(&tail);
        read_everything(&bytes);
    }

    #[test]
    fn corrupted_object(at in any::<prop::sample::Index>(), value in any::<u8>()) {
        let mut bytes = write_object(&common::sample_object());
        let at = at.index(bytes.len());
        bytes[at] = value;
        read_everything(&bytes);
    }

    #[test]
    fn corrupted_executable(at in any::<prop::sample::Index>(), value in any::<u8>()) {
        let mut bytes = sample_executable();
        let at = at.index(bytes.len());
        bytes[at] = value;
        read_everything(&bytes);
    }

    #[test]
    fn corrupted_archive(at in any::<prop::sample::Index>(), value in any::<u8>()) {
        let mut bytes = sample_archive();
        let at = at.index(bytes.len());
        bytes[at] = value;
        read_everything(&bytes);
    }

    #[test]
    fn truncated_files(cut in any::<prop::sample::Index>()) {
        for bytes in [write_object(&common::sample_object()), sample_executable(), sample_archive()] {
            let cut = cut.index(bytes.len());
            read_everything(&bytes[..cut]);
        }
    }

    #[test]
    fn corrupted_word(at in any::<prop::sample::Index>(), value in prop_oneof![Just(u64::MAX), Just(0u64), Just(1u64 << 63), any::<u64>()]) {
        // Large values in size and offset fields reach the overflow checks.
        let mut bytes = write_object(&common::sample_object());
        let at = at.index(bytes.len() - 8);
        bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
        read_everything(&bytes);
    }
}
