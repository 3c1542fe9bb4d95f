//! Every tool, run as a process, on malformed input: a clear message naming the
//! problem, a non-zero exit status, and never a panic.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use tempfile::TempDir;

const AS: &str = env!("CARGO_BIN_EXE_vliw-as");
const OBJDUMP: &str = env!("CARGO_BIN_EXE_vliw-objdump");
const LD: &str = env!("CARGO_BIN_EXE_vliw-ld");
const RUN: &str = env!("CARGO_BIN_EXE_vliw-run");

const PROGRAM: &str = "
    .text
    .globl _start
_start:
    movi r3 = 1 ; addpc r4 = message ; movi r5 = 3 ;;
    syscall 1 ;;
    movi r3 = long counter ;;
    movi r3 = 5 ;;
    syscall 0 ;;
    .rodata
message:
    .ascii \"ok\\n\"
    .data
counter:
    .quad message
";

fn run(tool: &str, args: &[&str], stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(tool)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tool starts");
    let _ = child.stdin.take().expect("stdin").write_all(stdin);
    child.wait_with_output().expect("the tool finishes")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn name(tool: &str) -> String {
    Path::new(tool)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// The tool failed cleanly: non-zero exit, no panic, and every `wanted` text in stderr.
fn assert_clean_failure(tool: &str, args: &[&str], out: &Output, wanted: &[&str]) {
    let stderr = text(&out.stderr);
    let what = format!("{} {}", name(tool), args.join(" "));
    assert!(
        !out.status.success(),
        "{what}: succeeded on bad input; stderr:\n{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{what}: panicked:\n{stderr}");
    assert_ne!(
        out.status.code(),
        Some(101),
        "{what}: exit status 101 (a panic?)\n{stderr}"
    );
    assert!(
        out.status.code().is_some(),
        "{what}: killed by a signal\n{stderr}"
    );
    for w in wanted {
        assert!(stderr.contains(w), "{what}: stderr lacks `{w}`:\n{stderr}");
    }
}

struct Fixture {
    dir: TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture {
            dir: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn write(&self, name: &str, bytes: &[u8]) -> String {
        let p = self.path(name);
        std::fs::write(&p, bytes).expect("write");
        p.to_string_lossy().into_owned()
    }

    /// A valid object of `PROGRAM`.
    fn object(&self) -> Vec<u8> {
        let src = self.write("prog.s", PROGRAM.as_bytes());
        let obj = self.path("prog.o").to_string_lossy().into_owned();
        let out = run(AS, &[&src, "-o", &obj], b"");
        assert!(out.status.success(), "vliw-as: {}", text(&out.stderr));
        std::fs::read(&obj).expect("the object")
    }

    /// Runs the three readers of binary files on `bytes`: each must fail cleanly,
    /// naming the file; `vliw-objdump` must say `objdump_wants` and `vliw-ld`
    /// `ld_wants` (the simulator refuses anything that is not an executable first).
    fn readers_reject(&self, file: &str, bytes: &[u8], objdump_wants: &[&str], ld_wants: &[&str]) {
        let path = self.write(file, bytes);
        let exe = self.path("out.exe").to_string_lossy().into_owned();
        let with = |wants: &[&str]| -> Vec<String> {
            let mut v: Vec<String> = wants.iter().map(|w| w.to_string()).collect();
            v.push(file.to_string());
            v
        };
        for (tool, args, wants) in [
            (
                OBJDUMP,
                vec!["-d", "-r", "-t", "-h", "-s", path.as_str()],
                with(objdump_wants),
            ),
            (
                OBJDUMP,
                vec!["--reassemble", path.as_str()],
                with(objdump_wants),
            ),
            (LD, vec![path.as_str(), "-o", exe.as_str()], with(ld_wants)),
            (RUN, vec![path.as_str()], with(&[])),
        ] {
            let out = run(tool, &args, b"");
            let wants: Vec<&str> = wants.iter().map(String::as_str).collect();
            assert_clean_failure(tool, &args, &out, &wants);
        }
        let out = run(OBJDUMP, &[&path], b"");
        assert!(
            text(&out.stderr).starts_with(&format!("vliw-objdump: {path}: ")),
            "{}",
            text(&out.stderr)
        );
        let out = run(LD, &[&path, "-o", &exe], b"");
        assert!(
            text(&out.stderr).contains("vliw-ld: error: "),
            "{}",
            text(&out.stderr)
        );
        assert!(!Path::new(&exe).exists(), "vliw-ld left an output behind");
    }
}

/// ELF section headers of a file: (sh_type, sh_offset, sh_size, header offset).
fn section_headers(elf: &[u8]) -> Vec<(u32, u64, u64, usize)> {
    let u16_at = |o: usize| u16::from_le_bytes(elf[o..o + 2].try_into().unwrap());
    let u32_at = |o: usize| u32::from_le_bytes(elf[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap());
    let shoff = u64_at(0x28) as usize;
    let shentsize = u16_at(0x3a) as usize;
    let shnum = u16_at(0x3c) as usize;
    (0..shnum)
        .map(|i| {
            let h = shoff + i * shentsize;
            (u32_at(h + 4), u64_at(h + 0x18), u64_at(h + 0x20), h)
        })
        .collect()
}

#[test]
fn a_valid_program_goes_through_every_tool() {
    let f = Fixture::new();
    f.object();
    let obj = f.path("prog.o").to_string_lossy().into_owned();
    let exe = f.path("prog").to_string_lossy().into_owned();
    let out = run(LD, &[&obj, "-o", &exe], b"");
    assert!(out.status.success(), "vliw-ld: {}", text(&out.stderr));
    let out = run(RUN, &[&exe], b"");
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(5), "ok\n".to_string()),
        "{}",
        text(&out.stderr)
    );
    let out = run(OBJDUMP, &["-d", &exe], b"");
    let listing = text(&out.stdout);
    assert!(out.status.success());
    assert!(
        listing.contains("<_start>:") && listing.contains("   10000:  movi r3 = 1 ; addpc r4 = "),
        "{listing}"
    );
    let out = run(OBJDUMP, &["-drt", &obj], b"");
    let listing = text(&out.stdout);
    assert!(
        listing.contains("R_VLIW_IMM64") && listing.contains("SYMBOL TABLE:"),
        "{listing}"
    );
    // Standard input, and the reassembly assembles.
    let rt = f.path("rt.o").to_string_lossy().into_owned();
    let out = run(OBJDUMP, &["--reassemble", &obj], b"");
    let out = run(AS, &["-", "-o", &rt], &out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn malformed_assembly_is_reported_with_file_and_line() {
    let f = Fixture::new();
    let src = f.write(
        "bad.s",
        b"nop ;;\n  frob r1 = r2 ;;\n.byte 300\nadd r1 = r2, r3\n",
    );
    let obj = f.path("bad.o");
    std::fs::write(&obj, b"stale").unwrap();
    let obj = obj.to_string_lossy().into_owned();
    let args = [src.as_str(), "-o", obj.as_str()];
    let out = run(AS, &args, b"");
    assert_clean_failure(
        AS,
        &args,
        &out,
        &[
            &format!("{src}:2:3: error: unknown mnemonic `frob`"),
            &format!("{src}:3:7: error: value 300 is out of range"),
            &format!("{src}:4:"),
            "bundle not closed",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        !Path::new(&obj).exists(),
        "a failed assembly must not leave an object behind"
    );
    // From standard input, the name is <stdin>.
    let out = run(AS, &["-", "-o", &obj], b"movi r1 = 1 ; movi r1 = ;;\n");
    assert_clean_failure(
        AS,
        &["-"],
        &out,
        &["<stdin>:1:15: error: expected an immediate"],
    );
    // Binary garbage as source.
    let garbage: Vec<u8> = (0..2000u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let src = f.write("garbage.s", &garbage);
    let out = run(AS, &[&src, "-o", &obj], b"");
    assert_clean_failure(AS, &[&src], &out, &["garbage.s:"]);
}

#[test]
fn bad_command_lines_are_explained() {
    for (tool, args, wanted) in [
        (AS, vec![], "no input file"),
        (AS, vec!["--frob"], "unknown option"),
        (AS, vec!["x.s", "--machine", "width=0"], "width"),
        (AS, vec!["/nonexistent/x.s"], "cannot read"),
        (OBJDUMP, vec![], "no input files"),
        (OBJDUMP, vec!["-q", "x"], "unknown option"),
        (OBJDUMP, vec!["/nonexistent/x.o"], "cannot read"),
        (LD, vec![], "vliw-ld: error:"),
        (RUN, vec![], "vliw-run:"),
        (RUN, vec!["/nonexistent/exe"], "vliw-run:"),
    ] {
        let out = run(tool, &args, b"");
        assert_clean_failure(tool, &args, &out, &[wanted]);
    }
}

#[test]
fn a_file_that_is_not_elf() {
    let f = Fixture::new();
    f.readers_reject(
        "notes.txt",
        b"this is not an object file\n",
        &["not an ELF file"],
        &[],
    );
    f.readers_reject("empty.o", b"", &[], &[]);
}

#[test]
fn truncated_objects() {
    let f = Fixture::new();
    let object = f.object();
    for cut in [
        4,
        16,
        63,
        64,
        100,
        object.len() / 2,
        object.len() - 8,
        object.len() - 1,
    ] {
        f.readers_reject(&format!("cut{cut}.o"), &object[..cut], &[], &[]);
    }
    let out = run(OBJDUMP, &[&f.write("cut100.o", &object[..100])], b"");
    assert!(
        text(&out.stderr).contains("truncated"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn foreign_machine_elf() {
    let f = Fixture::new();
    let mut object = f.object();
    object[0x12..0x14].copy_from_slice(&62u16.to_le_bytes()); // EM_X86_64
    f.readers_reject("x86.o", &object, &["foreign machine"], &["foreign machine"]);
    if let Ok(host) = std::fs::read("/bin/true") {
        f.readers_reject("true", &host, &[], &[]);
    }
}

#[test]
fn corrupted_section_headers() {
    let f = Fixture::new();
    let object = f.object();
    let headers = section_headers(&object);
    // A section whose contents lie past the end of the file.
    let (_, _, _, h) = headers
        .iter()
        .copied()
        .find(|&(t, ..)| t == 1)
        .expect("a PROGBITS section");
    let mut bad = object.clone();
    bad[h + 0x18..h + 0x20].copy_from_slice(&(1u64 << 40).to_le_bytes());
    f.readers_reject("far.o", &bad, &[], &[]);
    // Section headers past the end of the file.
    let mut bad = object.clone();
    bad[0x28..0x30].copy_from_slice(&(object.len() as u64 + 4096).to_le_bytes());
    f.readers_reject("shoff.o", &bad, &["truncated"], &["truncated"]);
    // A section name index past the string table.
    let mut bad = object.clone();
    bad[h..h + 4].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
    f.readers_reject("name.o", &bad, &[], &[]);
}

#[test]
fn unknown_relocation_type() {
    let f = Fixture::new();
    let object = f.object();
    let (_, offset, size, _) = section_headers(&object)
        .into_iter()
        .find(|&(t, ..)| t == 4)
        .expect("a RELA section");
    assert!(size >= 24);
    let mut bad = object.clone();
    // r_info: symbol in the high 32 bits, type in the low 32 bits.
    let at = offset as usize + 8;
    bad[at..at + 4].copy_from_slice(&99u32.to_le_bytes());
    f.readers_reject(
        "reloc.o",
        &bad,
        &["unknown relocation type 99"],
        &["unknown relocation type 99"],
    );
}

#[test]
fn an_object_is_not_an_executable() {
    let f = Fixture::new();
    let object = f.object();
    let path = f.write("prog.o", &object);
    let out = run(RUN, &[&path], b"");
    assert_clean_failure(RUN, &[&path], &out, &["prog.o"]);
    // And an executable cannot be reassembled.
    let exe = f.path("prog").to_string_lossy().into_owned();
    assert!(run(LD, &[&path, "-o", &exe], b"").status.success());
    let out = run(OBJDUMP, &["--reassemble", &exe], b"");
    assert_clean_failure(OBJDUMP, &["--reassemble"], &out, &["relocatable object"]);
}

#[test]
fn random_bytes_never_panic() {
    let f = Fixture::new();
    let object = f.object();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..12 {
        // Mutate a few bytes of a valid object, or write pure noise with an ELF header.
        let mut bytes = object.clone();
        if round % 3 == 2 {
            bytes = (0..512).map(|_| next() as u8).collect();
            bytes[..4].copy_from_slice(b"\x7fELF");
        } else {
            for _ in 0..1 + round {
                let at = (next() as usize) % bytes.len();
                bytes[at] = next() as u8;
            }
        }
        let path = f.write(&format!("mut{round}.o"), &bytes);
        let exe = f.path("mut.exe").to_string_lossy().into_owned();
        for (tool, args) in [
            (OBJDUMP, vec!["-drths", path.as_str()]),
            (OBJDUMP, vec!["--reassemble", path.as_str()]),
            (LD, vec![path.as_str(), "-o", exe.as_str()]),
            (RUN, vec!["--max-cycles", "1000", path.as_str()]),
        ] {
            let out = run(tool, &args, b"");
            let stderr = text(&out.stderr);
            assert!(
                !stderr.contains("panicked"),
                "{} {args:?} panicked:\n{stderr}",
                name(tool)
            );
            assert!(
                out.status.code().is_some(),
                "{} {args:?} was killed by a signal",
                name(tool)
            );
        }
    }
}

#[test]
fn archives_are_disassembled_member_by_member() {
    let f = Fixture::new();
    let object = f.object();
    let archive = vliw_elf::write_archive(&[
        vliw_elf::ArchiveMember {
            name: "prog.o".into(),
            data: object,
        },
        vliw_elf::ArchiveMember {
            name: "lib.rmeta".into(),
            data: b"not an object".to_vec(),
        },
    ]);
    let path = f.write("libprog.a", &archive);
    let out = run(OBJDUMP, &["-d", &path], b"");
    let listing = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        listing.contains("libprog.a(prog.o):") && listing.contains("<_start>:"),
        "{listing}"
    );
    assert!(
        listing.contains("lib.rmeta): not an object file"),
        "{listing}"
    );
}
