//! The `cargo` suite: `dist/cargo-vliw` in a real crate (`tests/cargo/demo`: a
//! library with unit tests, a binary, a build script that runs on the host), against
//! plain cargo for the host. `cargo-vliw run` must print what `cargo run` prints and
//! exit with the same code, `cargo-vliw test` must report the same passed, failed
//! and ignored counts (with the `failing` feature too: a failing test unwinds and
//! the others still run, and the summary and exit status are the host's), a panic
//! that unwinds into a hand-written function without call-frame information
//! (`--bin nocfi`) or into one whose CFI does not describe its frame (`--bin badcfi`,
//! which would loop) must end with the runtime's fatal error naming it (status 70),
//! `RUST_BACKTRACE=1` must print the panicking frames' names (`--bin backtrace`),
//! threads that wait for each other must print the host's output at small quanta
//! under several seeds (`--bin threads`), a deadlock of every thread must be the
//! simulator's fault naming them (`--bin deadlock`, status 146), the
//! dev profile must unwind from opt-level 0 through a crate at opt-level 3 as the
//! release profile does the other way, a program that faults (`--bin fault`) must fail with the
//! simulator's message, and `./y.sh run` must pass a program's stdin, stdout and exit
//! code through untouched. An integration test reads the package's fixture files
//! (`tests/fixtures.rs`), and `./y.sh run --dir` gives a program a host directory.

use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::paths::Paths;
use crate::process::{self, Output};
use crate::toolchain::Toolchain;

const TIMEOUT: Duration = Duration::from_secs(600);
const ARGS: [&str; 2] = ["x", "y"];

pub struct Outcome {
    pub passed: usize,
    pub failed: usize,
}

pub fn run(paths: &Paths, toolchain: &Toolchain) -> Result<Outcome, String> {
    let wrapper = paths.dist.join("cargo-vliw");
    if !wrapper.is_file() {
        return Err(format!(
            "{} does not exist: run ./y.sh build",
            paths.show(&wrapper)
        ));
    }
    let demo = paths.tests.join("cargo").join("demo");
    let work = paths.build.join("test").join("cargo");
    let host = |args: &[&str]| -> Result<Output, String> {
        let mut cmd = toolchain.cargo(&demo);
        cmd.env("CARGO_TARGET_DIR", work.join("host")).args(args);
        cargo(&mut cmd)
    };
    let vliw_with = |env: &[(&str, &str)], args: &[&str]| -> Result<Output, String> {
        let mut cmd = Command::new(&wrapper);
        cmd.current_dir(&demo)
            .env("CARGO_TARGET_DIR", work.join("vliw"))
            .env_remove("RUSTUP_TOOLCHAIN")
            .env_remove("RUST_BACKTRACE")
            .args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = process::run(&mut cmd, b"", Instant::now() + TIMEOUT)?;
        if out.timed_out() {
            return Err(format!("{args:?} timed out"));
        }
        Ok(out)
    };
    let vliw = |args: &[&str]| vliw_with(&[], args);

    let mut outcome = Outcome {
        passed: 0,
        failed: 0,
    };
    let mut check = |name: &str, result: Result<(), String>| match result {
        Ok(()) => {
            println!("ok {name}");
            outcome.passed += 1;
        }
        Err(e) => {
            println!("FAILED {name}: {e}");
            outcome.failed += 1;
        }
    };

    let run_args: Vec<&str> = ["run", "-q", "--release", "--"]
        .into_iter()
        .chain(ARGS)
        .collect();
    check(
        "cargo-vliw run",
        (|| {
            let expected = host(&run_args)?;
            let got = vliw(&run_args)?;
            if got.stdout != expected.stdout {
                return Err(format!(
                    "stdout differs:\n--- host\n{}--- vliw\n{}",
                    String::from_utf8_lossy(&expected.stdout),
                    String::from_utf8_lossy(&got.stdout)
                ));
            }
            if got.code() != expected.code() {
                return Err(format!(
                    "exit code {:?} on vliw, {:?} on the host\n{}",
                    got.code(),
                    expected.code(),
                    got.stderr_text()
                ));
            }
            Ok(())
        })(),
    );

    // the dev profile: the binary at opt-level 0 unwinds through `guards` at 3
    let dev_run_args: Vec<&str> = ["run", "-q", "--"].into_iter().chain(ARGS).collect();
    check(
        "cargo-vliw run (dev profile)",
        (|| {
            let expected = host(&dev_run_args)?;
            let got = vliw(&dev_run_args)?;
            if got.stdout != expected.stdout || got.code() != expected.code() {
                return Err(format!(
                    "exit code {:?} on vliw, {:?} on the host; stdout:\n--- host\n{}--- vliw\n{}{}",
                    got.code(),
                    expected.code(),
                    String::from_utf8_lossy(&expected.stdout),
                    String::from_utf8_lossy(&got.stdout),
                    got.stderr_text()
                ));
            }
            Ok(())
        })(),
    );

    let test_args = ["test", "--release", "--tests"];
    check(
        "cargo-vliw test",
        (|| {
            let expected = test_counts(&host(&test_args)?, true)?;
            let got = test_counts(&vliw(&test_args)?, true)?;
            if got != expected {
                return Err(format!(
                    "(passed, failed, ignored) = {got:?} on vliw, {expected:?} on the host"
                ));
            }
            Ok(())
        })(),
    );
    // doctests: rustdoc compiles each with our backend and runs it on the simulator;
    // the demo has merged ones (edition 2024), a standalone one, `should_panic`,
    // `compile_fail`, `no_run` and `ignore`
    let doc_args = ["test", "--doc"];
    check(
        "cargo-vliw test --doc",
        (|| {
            let expected = test_counts(&host(&doc_args)?, true)?;
            let got = test_counts(&vliw(&doc_args)?, true)?;
            if got != expected || expected.0 < 8 || expected.2 < 1 {
                return Err(format!(
                    "(passed, failed, ignored) = {got:?} on vliw, {expected:?} on the host"
                ));
            }
            Ok(())
        })(),
    );
    check(
        "rustdoc-vliw --test (a merged doctest ends the process)",
        rustdoc_exit(paths, &work),
    );
    // a failing test unwinds: libtest runs the rest and prints its summary
    let failing_args = ["test", "--release", "--lib", "--features", "failing"];
    check(
        "cargo-vliw test (a failing test)",
        (|| {
            let host_out = host(&failing_args)?;
            let vliw_out = vliw(&failing_args)?;
            let expected = test_counts(&host_out, false)?;
            let got = test_counts(&vliw_out, false)?;
            if got != expected || expected.1 != 1 {
                return Err(format!(
                    "(passed, failed, ignored) = {got:?} on vliw, {expected:?} on the host\n{}",
                    String::from_utf8_lossy(&vliw_out.stdout)
                ));
            }
            if vliw_out.code() != host_out.code() {
                return Err(format!(
                    "exit code {:?} on vliw, {:?} on the host",
                    vliw_out.code(),
                    host_out.code()
                ));
            }
            let summary = "test result: FAILED.";
            if !String::from_utf8_lossy(&vliw_out.stdout).contains(summary) {
                return Err(format!("no `{summary}` line on vliw"));
            }
            Ok(())
        })(),
    );

    // fixture files load as on the host: the runner maps the package's directory
    let fixture_args = ["test", "--release", "--test", "fixtures"];
    check(
        "cargo-vliw test --test fixtures (files of the package)",
        (|| {
            let expected = test_counts(&host(&fixture_args)?, true)?;
            let got = test_counts(&vliw(&fixture_args)?, true)?;
            if got != expected || got.0 < 3 {
                return Err(format!(
                    "(passed, failed, ignored) = {got:?} on vliw, {expected:?} on the host"
                ));
            }
            Ok(())
        })(),
    );

    check(
        "cargo-vliw run --bin fault",
        (|| {
            let got = vliw(&["run", "-q", "--release", "--bin", "fault"])?;
            let stderr = got.stderr_text();
            if got.success() || !stderr.contains("vliw-run: ") || !stderr.contains("unmapped") {
                return Err(format!(
                    "expected a failure with the simulator's fault message, got {}:\n{stderr}",
                    got.describe()
                ));
            }
            Ok(())
        })(),
    );
    check(
        "cargo-vliw run --bin nocfi",
        (|| {
            let got = vliw(&["run", "-q", "--release", "--bin", "nocfi"])?;
            let stderr = got.stderr_text();
            let named = stderr
                .contains("fatal runtime error: cannot unwind through the code at 0x")
                && stderr.contains("(no_cfi_trampoline+0x")
                && stderr.contains("no call-frame information");
            if got.code() != Some(70) || !named {
                return Err(format!(
                    "expected the unwinder's fatal error naming no_cfi_trampoline and status 70, got {}:\n{stderr}",
                    got.describe()
                ));
            }
            Ok(())
        })(),
    );
    check(
        "cargo-vliw run --bin badcfi",
        (|| {
            let got = vliw(&["run", "-q", "--release", "--bin", "badcfi"])?;
            let stderr = got.stderr_text();
            let named = stderr
                .contains("fatal runtime error: cannot unwind through the code at 0x")
                && stderr.contains("(bad_cfi_trampoline+0x")
                && stderr.contains("gives a caller that is not above it on the stack");
            if got.code() != Some(70) || !named {
                return Err(format!(
                    "expected the unwinder's fatal error naming bad_cfi_trampoline and status 70, got {}:\n{stderr}",
                    got.describe()
                ));
            }
            Ok(())
        })(),
    );
    check(
        "RUST_BACKTRACE=1 cargo-vliw run --bin backtrace",
        (|| {
            let got = vliw_with(
                &[("RUST_BACKTRACE", "1")],
                &["run", "-q", "--release", "--bin", "backtrace"],
            )?;
            let stderr = got.stderr_text();
            // std's report, the frames named innermost first
            let frames = [
                "stack backtrace:",
                ": backtrace::inner_frame",
                ": backtrace::outer_frame",
                ": backtrace::main",
            ];
            let mut at = 0;
            let in_order = frames.iter().all(|f| match stderr[at..].find(f) {
                Some(i) => {
                    at += i + f.len();
                    true
                }
                None => false,
            });
            if got.code() != Some(101)
                || !in_order
                || !stderr.contains("a panic two frames below main")
            {
                return Err(format!(
                    "expected status 101 and a backtrace naming inner_frame, outer_frame and main in that order, got {}:\n{stderr}",
                    got.describe()
                ));
            }
            Ok(())
        })(),
    );
    // threads that wait for each other, switched at small quanta in an order each
    // seed chooses: the host's output every time, in different interleavings
    check(
        "cargo-vliw run --bin threads (--quantum 300, three seeds)",
        (|| {
            let args = ["run", "-q", "--release", "--bin", "threads"];
            let expected = host(&args)?;
            let mut switches = Vec::new();
            for seed in ["1", "2", "3"] {
                let flags = format!("--quantum 300 --seed {seed} --stats");
                let got = vliw_with(&[("VLIW_RUN_FLAGS", &flags)], &args)?;
                if got.stdout != expected.stdout || !got.success() {
                    return Err(format!(
                        "seed {seed}: {}; stdout:\n--- host\n{}--- vliw\n{}{}",
                        got.describe(),
                        String::from_utf8_lossy(&expected.stdout),
                        String::from_utf8_lossy(&got.stdout),
                        got.stderr_text()
                    ));
                }
                let stderr = got.stderr_text();
                let count = stderr
                    .lines()
                    .find_map(|l| {
                        l.strip_prefix("threads: ")?
                            .split_once(" switches=")?
                            .1
                            .split(' ')
                            .next()
                            .map(str::to_string)
                    })
                    .ok_or_else(|| {
                        format!("seed {seed}: no `threads:` line in --stats:\n{stderr}")
                    })?;
                switches.push(count);
            }
            switches.dedup();
            if switches.len() < 2 {
                return Err(format!(
                    "every seed switched threads the same number of times ({switches:?}): the seeds do not change the interleaving"
                ));
            }
            Ok(())
        })(),
    );
    check(
        "cargo-vliw run --bin deadlock",
        (|| {
            let got = vliw(&["run", "-q", "--release", "--bin", "deadlock"])?;
            let stderr = got.stderr_text();
            let named = stderr
                .contains("fault: deadlock: every thread waits: thread 1 joins thread 2")
                && stderr.contains("thread 2 waits on futex")
                && stderr.contains("(__vliw_sys_join)");
            if got.code() != Some(146) || !named {
                return Err(format!(
                    "expected the simulator's deadlock fault naming both threads and status 146, got {}:\n{stderr}",
                    got.describe()
                ));
            }
            Ok(())
        })(),
    );
    check(
        "./y.sh run --release --stats",
        y_run(paths, toolchain, &work),
    );
    check(
        "./y.sh run --edition 2021 --cfg -Copt-level",
        y_run_rustc_options(paths, toolchain, &work),
    );
    check("./y.sh run --dir", y_run_dir(paths, &work));
    println!("{} passed, {} failed", outcome.passed, outcome.failed);
    Ok(outcome)
}

/// `dist/rustdoc-vliw --test` on merged doctests (edition 2024), one of which calls
/// `std::process::exit(0)`: on the simulator they run in one process, so that
/// doctest ends the run before the others; the runner must make that a failure
/// that says so, not a quiet pass.
fn rustdoc_exit(paths: &Paths, work: &Path) -> Result<(), String> {
    let source = work.join("doctest_exit.rs");
    let text = "//! Merged doctests of the cargo suite's rustdoc-vliw check.\n\
                //!\n//! ```\n//! assert_eq!(1 + 1, 2);\n//! ```\n//!\n\
                //! ```\n//! std::process::exit(0);\n//! ```\n";
    fs::create_dir_all(work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    fs::write(&source, text).map_err(|e| format!("cannot write {}: {e}", source.display()))?;
    let mut cmd = Command::new(paths.dist.join("rustdoc-vliw"));
    cmd.env_remove("RUSTUP_TOOLCHAIN")
        .args([
            "--edition",
            "2024",
            "--test",
            "--crate-name",
            "doctest_exit",
        ])
        .arg(&source);
    let got = cargo(&mut cmd)?;
    let stderr = got.stderr_text();
    let stdout = String::from_utf8_lossy(&got.stdout);
    if got.success() || !stderr.contains("ended before libtest's summary") {
        return Err(format!(
            "expected a failure saying the merged doctests ended early, got {}:\n{stdout}{stderr}",
            got.describe()
        ));
    }
    Ok(())
}

/// `./y.sh run --release --stats -C llvm-args=verify=yes FILE -- ARGS` with a line on stdin:
/// its stdout must be exactly the host build's (all of y.sh's own messages on
/// stderr), its exit code the same, and its stderr must end with the `stats:` line.
fn y_run(paths: &Paths, toolchain: &Toolchain, work: &Path) -> Result<(), String> {
    let source = work.join("y_run.rs");
    let program = "// ./y.sh run check of the cargo suite: echo stdin, args, exit code.\n\
                   use std::io::BufRead;\n\
                   fn main() {\n\
                       let line = std::io::stdin().lock().lines().next().unwrap().unwrap();\n\
                       let args: Vec<String> = std::env::args().skip(1).collect();\n\
                       println!(\"{} {:?}\", line.to_uppercase(), args);\n\
                       std::process::exit(args.len() as i32);\n\
                   }\n";
    let host_exe = host_build(
        toolchain,
        work,
        &source,
        program,
        &["--edition=2024", "-Copt-level=3"],
    )?;
    let stdin = b"hello from stdin\n";
    let expected = process::run(
        Command::new(&host_exe).args(ARGS),
        stdin,
        Instant::now() + TIMEOUT,
    )?;
    let got = process::run(
        Command::new(paths.root.join("y.sh"))
            .current_dir(&paths.root)
            .args(["run", "--release", "--stats", "-C", "llvm-args=verify=yes"])
            .arg(&source)
            .arg("--")
            .args(ARGS),
        stdin,
        Instant::now() + TIMEOUT,
    )?;
    same_as_host(&expected, &got)?;
    let last = got
        .stderr_text()
        .lines()
        .last()
        .unwrap_or_default()
        .to_string();
    if !last.starts_with("stats: cycles=") {
        return Err(format!("stderr does not end with the stats line: {last:?}"));
    }
    Ok(())
}

/// `./y.sh run --edition 2021 --cfg=greeting -C opt-level=2 FILE`: a 2021 program
/// that takes a reference to a `static mut` (an error in edition 2024, a warning in
/// 2021) and prints under a `--cfg`; stdout and exit code must be the host build's
/// with the same options.
fn y_run_rustc_options(paths: &Paths, toolchain: &Toolchain, work: &Path) -> Result<(), String> {
    let source = work.join("y_run_2021.rs");
    let program = "// ./y.sh run check of the cargo suite: rustc's options pass through.\n\
                   static mut COUNTER: u32 = 0;\n\
                   fn bump() -> u32 {\n\
                       unsafe {\n\
                           let c = &mut COUNTER;\n\
                           *c += 1;\n\
                           *c\n\
                       }\n\
                   }\n\
                   fn main() {\n\
                       bump();\n\
                       #[cfg(greeting)]\n\
                       println!(\"hello from 2021: {}\", bump());\n\
                       std::process::exit(bump() as i32);\n\
                   }\n";
    let options = ["--edition", "2021", "--cfg=greeting", "-C", "opt-level=2"];
    let host_exe = host_build(toolchain, work, &source, program, &options)?;
    let expected = process::run(&mut Command::new(&host_exe), b"", Instant::now() + TIMEOUT)?;
    let got = process::run(
        Command::new(paths.root.join("y.sh"))
            .current_dir(&paths.root)
            .arg("run")
            .args(options)
            .arg(&source),
        b"",
        Instant::now() + TIMEOUT,
    )?;
    same_as_host(&expected, &got)?;
    if got.code() != Some(3) {
        return Err(format!("expected exit code 3, got {}", got.describe()));
    }
    Ok(())
}

/// Writes `program` to `source` and builds it for the host with the pinned nightly
/// and `options`; returns the executable (`source` without its extension, `_host`).
fn host_build(
    toolchain: &Toolchain,
    work: &Path,
    source: &Path,
    program: &str,
    options: &[&str],
) -> Result<std::path::PathBuf, String> {
    fs::create_dir_all(work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    fs::write(source, program).map_err(|e| format!("cannot write {}: {e}", source.display()))?;
    let stem = source.file_stem().unwrap_or_default().to_string_lossy();
    let host_exe = work.join(format!("{stem}_host"));
    let mut rustc = Command::new("rustc");
    rustc
        .env("RUSTUP_TOOLCHAIN", &toolchain.channel)
        .args(options)
        .arg(source)
        .arg("-o")
        .arg(&host_exe);
    let built = cargo(&mut rustc)?;
    if !built.success() {
        return Err(format!("host rustc failed: {}", built.stderr_text()));
    }
    Ok(host_exe)
}

/// `./y.sh run`'s stdout and exit code must be the host run's.
fn same_as_host(expected: &Output, got: &Output) -> Result<(), String> {
    if got.stdout != expected.stdout || got.code() != expected.code() {
        return Err(format!(
            "stdout/exit code differ: host {:?} {:?}, y.sh run {:?} {:?}\n{}",
            String::from_utf8_lossy(&expected.stdout),
            expected.code(),
            String::from_utf8_lossy(&got.stdout),
            got.code(),
            got.stderr_text()
        ));
    }
    Ok(())
}

/// `./y.sh run --dir DIR::/data FILE`: the program reads, writes and lists files of
/// the mapped directory `DIR` (relative to where y.sh runs), and nothing else.
fn y_run_dir(paths: &Paths, work: &Path) -> Result<(), String> {
    let dir = work.join("y_run_dir");
    let _ = fs::remove_dir_all(&dir);
    let files = dir.join("files");
    fs::create_dir_all(&files).map_err(|e| format!("cannot create {}: {e}", files.display()))?;
    fs::write(files.join("in.txt"), "mapped\n").map_err(|e| format!("cannot write: {e}"))?;
    let source = dir.join("y_run_dir.rs");
    let program = "// ./y.sh run --dir check of the cargo suite.\n\
                   use std::fs;\n\
                   fn main() {\n\
                       let text = fs::read_to_string(\"/data/in.txt\").unwrap();\n\
                       fs::write(\"/data/out.txt\", text.to_uppercase()).unwrap();\n\
                       let mut names: Vec<String> = fs::read_dir(\"/data\").unwrap()\n\
                           .map(|e| e.unwrap().file_name().into_string().unwrap()).collect();\n\
                       names.sort();\n\
                       println!(\"{} {:?} {}\", text.trim(), names, fs::read(\"/data/../y_run_dir.rs\").is_err());\n\
                   }\n";
    fs::write(&source, program).map_err(|e| format!("cannot write {}: {e}", source.display()))?;
    let got = process::run(
        Command::new(paths.root.join("y.sh"))
            .current_dir(&dir)
            .args(["run", "--dir", "files::/data", "y_run_dir.rs"]),
        b"",
        Instant::now() + TIMEOUT,
    )?;
    let expected = "mapped [\"in.txt\", \"out.txt\"] true\n";
    if got.stdout != expected.as_bytes() || !got.success() {
        return Err(format!(
            "expected {expected:?} and status 0, got {:?} ({})\n{}",
            String::from_utf8_lossy(&got.stdout),
            got.describe(),
            got.stderr_text()
        ));
    }
    match fs::read_to_string(files.join("out.txt")) {
        Ok(text) if text == "MAPPED\n" => Ok(()),
        other => Err(format!("files/out.txt on the host: {other:?}")),
    }
}

fn cargo(cmd: &mut Command) -> Result<Output, String> {
    let out = process::run(
        cmd.env_remove("RUST_BACKTRACE"),
        b"",
        Instant::now() + TIMEOUT,
    )?;
    if out.timed_out() {
        return Err(format!(
            "{:?} timed out",
            cmd.get_args().collect::<Vec<_>>()
        ));
    }
    Ok(out)
}

/// The sums of passed and ignored tests over cargo's `test result:` lines; an
/// error unless the run succeeded.
/// (passed, failed, ignored) of the `test result:` lines; with `must_pass`, an
/// error when cargo test failed.
fn test_counts(out: &Output, must_pass: bool) -> Result<(usize, usize, usize), String> {
    let text = String::from_utf8_lossy(&out.stdout);
    if must_pass && !out.success() || !text.contains("test result:") {
        return Err(format!(
            "cargo test failed ({}):\n{}",
            out.describe(),
            crate::test_sysroot::tail(&out.stderr_text(), 20)
        ));
    }
    let mut counts = (0, 0, 0);
    for line in text.lines().filter(|l| l.starts_with("test result:")) {
        counts.0 += count_before(line, " passed");
        counts.1 += count_before(line, " failed");
        counts.2 += count_before(line, " ignored");
    }
    Ok(counts)
}

/// The number just before `label` in a `test result:` line.
fn count_before(line: &str, label: &str) -> usize {
    let Some(end) = line.find(label) else {
        return 0;
    };
    line[..end]
        .rsplit(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_test_result_lines() {
        let line = "test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out";
        assert_eq!(count_before(line, " passed"), 3);
        assert_eq!(count_before(line, " ignored"), 1);
        assert_eq!(count_before("nothing", " passed"), 0);
    }
}
