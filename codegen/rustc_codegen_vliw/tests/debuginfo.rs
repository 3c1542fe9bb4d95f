//! `-g` end to end: a `#![no_core]` program that reads through a null pointer
//! (`fixtures/null_read.rs`) is compiled by rustc with our backend and `-g`, linked
//! (`vliw-ld`'s command line, in process), and run on the simulator: the fault message
//! must name the source line of the read, found in the source by its marker, never
//! taken from our output; the trace and `vliw-objdump`'s listings of the object and
//! the executable must show it too. Without `-g` there is no line anywhere.
//!
//! The tools run in process through the functions their binaries call
//! (`vliw_link::main_with_args`, `vliw_asm::objdump_file`, and the simulator whose
//! `Fault` is the line `vliw-run` prints after `vliw-run: `); the command lines
//! themselves are tested in `vliw-target/tools/tests/lines.rs`.

use std::path::{Path, PathBuf};
use std::process::Command;

use vliw_sim::{CaptureIo, Options, Outcome, Simulator};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The backend dylib cargo built for this test run (see tests/shim.rs).
fn backend() -> PathBuf {
    if let Some(p) = std::env::var_os("VLIW_CODEGEN_BACKEND") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().unwrap();
    for dir in exe.ancestors().skip(1) {
        let p = dir.join("librustc_codegen_vliw.so");
        if p.exists() {
            return p;
        }
    }
    panic!("librustc_codegen_vliw.so not found above {}", exe.display());
}

/// The fixture as rustc is given it: relative to the repository root, where rustc
/// runs, as the no_sysroot suite does, so that the line tables name it so.
const SOURCE: &str = "codegen/rustc_codegen_vliw/tests/fixtures/null_read.rs";

/// `FILE:LINE:COLUMN` of the read, from the source: the line with the marker, the
/// column of the call (rustc's columns count characters from 1).
fn expected_location() -> (String, usize, usize) {
    let text = std::fs::read_to_string(repo_root().join(SOURCE)).unwrap();
    let (index, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("// FAULT HERE"))
        .expect("the marker");
    let column = line.find("volatile_load(").expect("the read") + 1;
    (SOURCE.to_string(), index + 1, column)
}

/// Compiles the fixture to an object with `flags`, returns its bytes.
fn compile(dir: &Path, flags: &[&str]) -> Vec<u8> {
    let obj = dir.join("null_read.o");
    let mut c = Command::new("rustc");
    c.current_dir(repo_root())
        .env("RUSTC_ICE", "0")
        .arg("-Zunstable-options")
        .arg(format!("-Zcodegen-backend={}", backend().display()))
        .arg("--target")
        .arg(repo_root().join("sysroot/vliw64-unknown-none.json"))
        .args([
            "-Cpanic=abort",
            "--edition=2024",
            "--crate-type=bin",
            "--crate-name=null_read",
            "--emit=obj",
            "-Ccodegen-units=1",
        ])
        .args(flags)
        .arg(SOURCE)
        .arg("-o")
        .arg(&obj);
    let out = c
        .output()
        .unwrap_or_else(|e| panic!("cannot run {c:?}: {e}"));
    assert!(
        out.status.success(),
        "{c:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read(&obj).unwrap()
}

const START: &str = "
    .globl _start
    .type _start, @function
_start:
    call test_main ;;
    syscall 0 ;;
    trap 1 ;;
";

/// Links the object with a `_start` as `vliw-ld OBJ start.o -o EXE --gc-sections`.
fn link(dir: &Path, object: &[u8]) -> Vec<u8> {
    let start = vliw_asm::assemble(START, "start.s", &Default::default()).unwrap();
    let paths = [dir.join("null_read.o"), dir.join("start.o")];
    std::fs::write(&paths[0], object).unwrap();
    std::fs::write(&paths[1], vliw_elf::write_object(&start)).unwrap();
    let exe = dir.join("null_read");
    let mut args: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    args.extend([
        "-o".into(),
        exe.display().to_string(),
        "--gc-sections".into(),
    ]);
    vliw_link::main_with_args(&args).unwrap_or_else(|e| panic!("vliw-ld: {e}"));
    std::fs::read(&exe).unwrap()
}

/// Runs the executable with a trace: the fault and the trace's lines.
fn run(exe: &[u8]) -> (vliw_sim::Fault, Vec<String>) {
    let program = vliw_sim::read_program(exe, "null_read").unwrap();
    let options = Options {
        max_cycles: Some(100_000),
        ..Options::default()
    };
    let mut sim = Simulator::new(
        &program,
        &options,
        &[b"null_read".to_vec()],
        &[],
        Box::new(CaptureIo::default()),
    )
    .unwrap();
    let trace = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
    impl std::io::Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    sim.set_trace(Box::new(Shared(trace.clone())));
    let fault = match sim.run() {
        Outcome::Fault(f) => f,
        other => panic!("expected a fault, got {other:?}"),
    };
    let text = String::from_utf8(trace.lock().unwrap().clone()).unwrap();
    (fault, text.lines().map(str::to_string).collect())
}

fn objdump(bytes: &[u8], name: &str) -> String {
    let options = vliw_asm::DisasmOptions {
        disassemble: true,
        ..Default::default()
    };
    vliw_asm::objdump_file(bytes, name, &options).unwrap()
}

/// The last `# FILE:LINE` line before the bundle at `addr` in a listing.
fn listed_line_of(listing: &str, addr: u64) -> Option<String> {
    let prefix = format!("{addr:>8x}:  ");
    let mut current = None;
    for l in listing.lines() {
        if let Some(loc) = l.trim_start().strip_prefix("# ") {
            current = Some(loc.to_string());
        } else if l.ends_with(">:") {
            current = None;
        } else if l.starts_with(&prefix) {
            return current;
        }
    }
    panic!("no bundle at {addr:#x} in:\n{listing}");
}

#[test]
fn faults_name_the_source_line_with_g() {
    let (file, line, column) = expected_location();
    let want = format!("{file}:{line}:{column}");
    let dir = tempfile::tempdir().unwrap();
    for opt in ["0", "3"] {
        let object = compile(dir.path(), &["-g", &format!("-Copt-level={opt}")]);
        let exe = link(dir.path(), &object);
        let (fault, trace) = run(&exe);
        let message = fault.to_string();
        // vliw-run prints `vliw-run: ` and this line
        assert!(
            message.starts_with("fault: unmapped 8-byte load at 0x0 in bundle 0x"),
            "-O{opt}: {message}"
        );
        let (function, _) = fault.function.clone().expect("a function");
        assert!(function.contains("read_at"), "-O{opt}: {message}");
        assert!(
            message.ends_with(&format!(", {want})")),
            "-O{opt}: the fault must name {want}: {message}"
        );
        assert_eq!(
            fault
                .source
                .as_ref()
                .map(|s| (s.file.as_str(), s.line, s.column)),
            Some((file.as_str(), line as u64, column as u64))
        );
        // the trace's last line is the faulting bundle, with its line
        let last = trace.last().expect("a trace");
        assert!(
            last.contains(&format!(" {:#x} <", fault.bundle_address))
                && last.contains(&format!("> {want}  ")),
            "-O{opt}: {last}"
        );

        // vliw-objdump: the faulting bundle is listed under its line, in the
        // executable and in the object
        let listing = objdump(&exe, "null_read");
        assert!(listing.contains(&format!("# {file}:{line}\n")), "{listing}");
        assert_eq!(
            listed_line_of(&listing, fault.bundle_address).as_deref(),
            Some(format!("{file}:{line}").as_str()),
            "-O{opt}:\n{listing}"
        );
        let listing = objdump(&object, "null_read.o");
        assert!(
            listing.contains(&format!("# {file}:{line}\n")),
            "-O{opt}:\n{listing}"
        );
    }
}

#[test]
fn no_lines_without_g() {
    let dir = tempfile::tempdir().unwrap();
    let object = compile(dir.path(), &[]);
    let obj = vliw_elf::read_object(&object, "null_read.o").unwrap();
    assert!(
        obj.sections.iter().all(|s| !s.name.starts_with(".debug")),
        "no DWARF without -g"
    );
    let exe = link(dir.path(), &object);
    let (fault, trace) = run(&exe);
    assert_eq!(fault.source, None);
    let message = fault.to_string();
    assert!(!message.contains(".rs"), "{message}");
    assert!(trace.iter().all(|l| !l.contains(".rs")));
    let listing = objdump(&exe, "null_read");
    assert!(
        listing.lines().all(|l| !l.trim_start().starts_with("# ")),
        "{listing}"
    );
}
