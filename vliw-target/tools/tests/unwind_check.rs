//! Call-frame information through the binaries: an assembled program given an
//! `.eh_frame` for `main` (written by hand as the back end writes it: a CIE and an
//! FDE whose address is relocated against `main`), linked by `vliw-ld`, printed by
//! `vliw-objdump --dwarf=frames`, and checked by `vliw-run --check-unwind`, which
//! accepts the right description and faults on a wrong one.

mod support;

use support::{AS, LD, OBJDUMP, RUN, run};

/// `main` saves `lr` and `r32`, changes `r32`, calls `leaf`, and restores them.
const PROGRAM: &str = "
    .section .text._start, \"ax\"
    .globl _start
_start:
    call main ;;
    syscall 0 ;;
    .section .text.main, \"ax\"
    .globl main
    .type main, @function
main:
    add r1 = r1, -16 ;;
    st.d [r1 + 8] = r63 ;;
    st.d [r1] = r32 ; movi r32 = 7 ;;
    call leaf ;;
    ld.d r32 = [r1] ;;
    ld.d r63 = [r1 + 8] ;;
    add r1 = r1, 16 ; movi r3 = 0 ;;
    ret ;;
    .size main, . - main
    .section .text.leaf, \"ax\"
    .globl leaf
leaf:
    ret ;;
";

/// The CIE and FDE of `main` (64 bytes), with `r32` saved at `cfa + r32_at`.
fn eh_frame(r32_at: i8) -> Vec<u8> {
    let mut d = Vec::new();
    // CIE: version 1, no augmentation, code alignment 8, data alignment -8, return
    // address r63, CFA = r1 + 0
    d.extend_from_slice(&20u32.to_le_bytes());
    d.extend_from_slice(&0u32.to_le_bytes());
    d.extend_from_slice(&[1, 0, 8, 0x78, 63, 0x0c, 1, 0]);
    d.extend_from_slice(&[0; 8]);
    // FDE: CFA = r1 + 16 from the first bundle, lr at cfa-8 from the second, r32
    // from the third
    let instructions = [
        0x0c,
        1,
        16,
        0x41,
        0x80 | 63,
        1,
        0x41,
        0x80 | 32,
        (r32_at / -8) as u8,
    ];
    let mut body = Vec::new();
    body.extend_from_slice(&28u32.to_le_bytes()); // CIE pointer: back to offset 0
    body.extend_from_slice(&[0; 8]); // pc_begin: relocated
    body.extend_from_slice(&80u64.to_le_bytes()); // pc_range: main's 10 syllables
    body.extend_from_slice(&instructions);
    while (body.len() + 4) % 8 != 0 {
        body.push(0); // DW_CFA_nop
    }
    d.extend_from_slice(&(body.len() as u32).to_le_bytes());
    d.extend_from_slice(&body);
    d
}

fn build(dir: &std::path::Path, name: &str, r32_at: i8) -> String {
    let path = |n: &str| dir.join(n).display().to_string();
    std::fs::write(path("p.s"), PROGRAM).unwrap();
    let out = run(AS, &[&path("p.s"), "-o", &path("bare.o")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut object =
        vliw_elf::read_object(&std::fs::read(path("bare.o")).unwrap(), "bare.o").unwrap();
    let main = object.symbol_by_name("main").unwrap();
    let mut section = vliw_elf::Section::new(
        ".eh_frame",
        vliw_elf::SectionKind::ReadOnlyData,
        8,
        eh_frame(r32_at),
    );
    section.relocs.push(vliw_elf::Reloc {
        offset: 32,
        kind: vliw_isa::RelocKind::Abs64,
        symbol: main,
        addend: 0,
    });
    object.add_section(section);
    std::fs::write(path("p.o"), vliw_elf::write_object(&object)).unwrap();
    let out = run(LD, &[&path("p.o"), "-o", &path(name), "--gc-sections"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    path(name)
}

#[test]
fn right_frames_pass_and_wrong_ones_fault() {
    let dir = tempfile::tempdir().unwrap();
    let good = build(dir.path(), "good", -16);
    let out = run(RUN, &["--check-unwind", "--stats", &good]);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // main's call is checked; _start's (no FDE) is counted
    assert!(
        stderr.contains("unwind-check: checked=1 without-fde=1"),
        "{stderr}"
    );

    let listing = String::from_utf8(run(OBJDUMP, &["--dwarf=frames", &good]).stdout).unwrap();
    for line in [
        "DW_CFA_def_cfa: r1 ofs 16",
        "DW_CFA_offset: r63 at cfa-8",
        "DW_CFA_offset: r32 at cfa-16",
        "<main>",
    ] {
        assert!(listing.contains(line), "{line}:\n{listing}");
    }

    let bad = build(dir.path(), "bad", -8);
    let out = run(RUN, &["--check-unwind", &bad]);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(145), "{stderr}");
    assert!(
        stderr.contains("fault: bad unwind information at the call in bundle")
            && stderr.contains("(main+0x20)")
            && stderr.contains("r32 unwinds to"),
        "{stderr}"
    );
    // without the check the program runs
    assert_eq!(run(RUN, &[&bad]).status.code(), Some(0));
}

#[test]
fn a_program_without_frames_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = |n: &str| dir.path().join(n).display().to_string();
    std::fs::write(path("p.s"), PROGRAM).unwrap();
    assert!(
        run(AS, &[&path("p.s"), "-o", &path("p.o")])
            .status
            .success()
    );
    assert!(run(LD, &[&path("p.o"), "-o", &path("p")]).status.success());
    let out = run(RUN, &["--check-unwind", &path("p")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no .eh_frame"));
}
