//! The `programs` suite (tests/programs/README.md): std programs (and the newcomer's
//! `examples/`), each built at every level of `OPT_LEVELS` twice:
//!
//! - **host**: by the pinned nightly's rustc (LLVM) for the host, run natively (twice:
//!   the program must be deterministic). Its stdout, stderr and exit code are the
//!   expectation; they must meet the program's `// expect-...` headers (default: exit
//!   code 0) and print something, and be the same at every opt level.
//! - **vliw**: by `dist/rustc-vliw` (our backend and the std sysroot), run on
//!   `dist/vliw-run` with a cycle limit, `--strict` (a latency stall is a fault:
//!   the schedules must need none) and `--check-unwind` (at every call the caller's
//!   call-frame information must unwind it to its entry state). Stdout and exit code must equal the host's;
//!   stderr too, once the thread id of panic messages is masked on both sides.
//!
//! Both sides run with the same arguments, stdin and environment (only the `env:`
//! headers' variables: no `RUST_BACKTRACE`). With `--host-only` only the host half
//! runs, which needs nothing of dist/.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::differential::{
    Commands, Outcome, Rustc, check_host, compare, mkdir, prefix, report, run_parallel,
};
use crate::headers::{self, Headers};
use crate::paths::Paths;
use crate::process::{self, Output};
use crate::report::diff_excerpt;
use crate::test_no_sysroot::OPT_LEVELS;
use crate::test_target::Failure;
use crate::toolchain::Toolchain;

/// The wrapper that compiles a std program for VLIW-64, in dist/.
pub const RUSTC_VLIW: &str = "rustc-vliw";
/// Flags of both compilers; the opt level is added per build.
const RUSTC_FLAGS: [&str; 1] = ["--edition=2024"];
/// The simulator's cycle limit: a hang becomes a failure (exit 143), not a stuck suite.
const MAX_CYCLES: &str = "2000000000";
const THREADS: usize = 2;
const HOST_RUN_TIMEOUT: Duration = Duration::from_secs(30);
/// One simulated run; MAX_CYCLES normally ends a runaway program first.
const VLIW_RUN_TIMEOUT: Duration = Duration::from_secs(300);

pub struct Options {
    /// Only the host half: build with LLVM, run twice, check the headers.
    pub host_only: bool,
}

struct Program {
    /// The file stem, also the crate name.
    name: String,
    /// Relative to the repository root, as both compilers are given it (panic messages
    /// name it).
    source: String,
    /// The headers and the program's stdin, or why they are unusable.
    setup: Result<(Headers, Vec<u8>), String>,
}

struct Suite<'a> {
    paths: &'a Paths,
    cmds: Commands,
    /// `build/test/programs`.
    work: PathBuf,
    /// `dist/rustc-vliw`; None with --host-only.
    rustc_vliw: Option<PathBuf>,
}

/// What one test (a program at one opt level) leaves for the cross-level check.
struct Done {
    name: String,
    opt: &'static str,
    /// The host run, masked, when it succeeded.
    host: Option<Output>,
}

/// Runs the suite, printing `ok NAME (O0)` / `FAILED NAME (O0): REASON` per test and
/// the closing `N passed, N failed` on stdout. Without --host-only, expects dist/ built.
pub fn run(paths: &Paths, toolchain: &Toolchain, options: &Options) -> Result<Outcome, String> {
    let source_dir = paths.tests.join("programs");
    let mut programs = discover(paths, &source_dir)?;
    if programs.is_empty() {
        return Err(format!(
            "no test programs (*.rs) found in {}",
            paths.show(&source_dir)
        ));
    }
    // The newcomer's examples are tested as the programs are, under their own names.
    for example in discover(paths, &paths.root.join("examples"))? {
        if programs.iter().any(|p| p.name == example.name) {
            return Err(format!(
                "{} has the name of a test program: rename one of them",
                example.source
            ));
        }
        programs.push(example);
    }
    let rustc_vliw = if options.host_only {
        None
    } else {
        let path = paths.tool(RUSTC_VLIW);
        if !path.is_file() {
            return Err(format!(
                "{} does not exist: run ./y.sh build (it builds the std sysroot and the \
                 wrapper), or ./y.sh test programs --host-only for the host half",
                paths.show(&path)
            ));
        }
        Some(path)
    };
    let suite = Suite {
        paths,
        cmds: Commands {
            root: paths.root.clone(),
            rustc: Rustc::locate(toolchain)?,
        },
        work: paths.build.join("test").join("programs"),
        rustc_vliw,
    };
    // The host outputs are a cache (Commands::cached); the VLIW ones are of this run only.
    let names: Vec<&str> = programs.iter().map(|p| p.name.as_str()).collect();
    for opt in OPT_LEVELS {
        Commands::prune(&suite.work.join("host").join(format!("O{opt}")), &names);
    }
    if suite.rustc_vliw.is_some() {
        let _ = fs::remove_dir_all(suite.work.join("vliw"));
    }

    let mut outcome = Outcome {
        passed: 0,
        failed: 0,
    };
    let jobs: Vec<(&Program, &'static str)> = programs
        .iter()
        .flat_map(|p| OPT_LEVELS.iter().map(move |opt| (p, *opt)))
        .collect();
    let only = if suite.rustc_vliw.is_none() {
        ", host only"
    } else {
        ""
    };
    let mut done = Vec::new();
    run_parallel(
        &jobs,
        THREADS,
        |&(program, opt)| {
            let (result, host) = suite.test(program, opt);
            let label = format!("{} (O{opt}{only})", program.name);
            let name = program.name.clone();
            (label, result, Done { name, opt, host })
        },
        |(label, result, d)| {
            report(&label, result, &mut outcome);
            done.push(d);
        },
    );
    // The expectation must not depend on the opt level: a program whose output does
    // (overflow checks, debug assertions) is a broken test.
    let mut by_name: BTreeMap<&str, Vec<&Done>> = BTreeMap::new();
    for d in &done {
        by_name.entry(&d.name).or_default().push(d);
    }
    for (name, mut runs) in by_name {
        runs.sort_by_key(|d| d.opt);
        let hosts: Vec<(&str, &Output)> = runs
            .iter()
            .filter_map(|d| d.host.as_ref().map(|h| (d.opt, h)))
            .collect();
        for pair in hosts.windows(2) {
            let ((a, x), (b, y)) = (pair[0], pair[1]);
            let label = format!("{name} (host O{a} = O{b})");
            let result = same_run(x, y).map_err(|f| Failure {
                reason: format!(
                    "the host runs at O{a} and O{b} differ: {} (the output must not \
                     depend on the opt level)",
                    f.reason
                ),
                details: f.details,
            });
            report(&label, result, &mut outcome);
        }
    }
    println!("{} passed, {} failed", outcome.passed, outcome.failed);
    Ok(outcome)
}

/// The programs: `*.rs` directly in `dir`, with their headers and stdin.
fn discover(paths: &Paths, dir: &Path) -> Result<Vec<Program>, String> {
    let mut programs = Vec::new();
    for (name, path) in crate::differential::rust_programs(dir)? {
        let setup = fs::read_to_string(&path)
            .map_err(|e| format!("cannot read the program: {e}"))
            .and_then(|text| parse_headers(&name, &text))
            .and_then(|h| {
                let stdin = match &h.stdin_file {
                    Some(file) => fs::read(dir.join(file))
                        .map_err(|e| format!("stdin-file: cannot read {file}: {e}"))?,
                    None => h.stdin.clone().unwrap_or_default(),
                };
                Ok((h, stdin))
            });
        programs.push(Program {
            source: paths.show(&path),
            name,
            setup,
        });
    }
    Ok(programs)
}

/// The `// key: value` headers of a program (headers.rs): `args`, `stdin` or
/// `stdin-file`, `env`, and the author's intent `expect-exit` and
/// `expect-stderr-contains`, checked against the host run. The output itself is never
/// written down: it comes from the host build.
fn parse_headers(name: &str, text: &str) -> Result<Headers, String> {
    crate::differential::check_crate_name(name)?;
    let h = headers::parse_with(text, "//").map_err(|e| format!("bad test headers: {e}"))?;
    let unsupported = h.expect_stdout.is_some()
        || !h.run_flags.is_empty()
        || !h.link_flags.is_empty()
        || !h.extra_sources.is_empty()
        || !h.expects_run();
    if unsupported {
        return Err(
            "bad test headers: programs take args, stdin, stdin-file, env, \
                    compile-flags, scratch-dir, expect-exit and expect-stderr-contains \
                    (their output is compared with the host build's)"
                .into(),
        );
    }
    Ok(h)
}

/// `dir/scratch`, new and empty: the current directory of a run of a program with
/// `// scratch-dir: yes` (the simulator maps it at `/`, its guest's current
/// directory).
fn scratch_dir(dir: &Path) -> Result<PathBuf, Failure> {
    let scratch = dir.join("scratch");
    if scratch.exists() {
        fs::remove_dir_all(&scratch)
            .map_err(|e| Failure::new(format!("cannot remove {}: {e}", scratch.display())))?;
    }
    mkdir(&scratch)?;
    Ok(scratch)
}

/// Replaces the thread id in panic messages, `thread 'main' (12345) panicked`, by
/// `(N)`: it is the OS thread id on the host and whatever the VLIW runtime numbers its
/// threads on ours.
pub fn mask_thread_ids(text: &[u8]) -> Vec<u8> {
    const THREAD: &[u8] = b"thread '";
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if !text[i..].starts_with(THREAD) {
            out.push(text[i]);
            i += 1;
            continue;
        }
        let name_start = i + THREAD.len();
        // The name ends at the next quote on the same line.
        let name_end = text[name_start..]
            .iter()
            .position(|&b| b == b'\'' || b == b'\n')
            .map(|n| name_start + n)
            .filter(|&e| text[e] == b'\'');
        let Some(name_end) = name_end else {
            out.extend_from_slice(&text[i..name_start]);
            i = name_start;
            continue;
        };
        out.extend_from_slice(&text[i..=name_end]);
        i = name_end + 1;
        let rest = &text[i..];
        let digits = rest
            .strip_prefix(b" (")
            .map(|r| r.iter().take_while(|b| b.is_ascii_digit()).count())
            .unwrap_or(0);
        if digits > 0 && rest.get(2 + digits) == Some(&b')') {
            out.extend_from_slice(b" (N)");
            i += 2 + digits + 1;
        }
    }
    out
}

fn masked(out: Output) -> Output {
    Output {
        stderr: mask_thread_ids(&out.stderr),
        ..out
    }
}

/// Two runs of the same program agree in exit status, stdout and (masked) stderr.
fn same_run(a: &Output, b: &Output) -> Result<(), Failure> {
    let mut reasons = Vec::new();
    let mut details = Vec::new();
    if a.status != b.status {
        reasons.push(format!("{} vs {}", a.describe(), b.describe()));
    }
    for (name, x, y) in [
        ("stdout", &a.stdout, &b.stdout),
        ("stderr", &a.stderr, &b.stderr),
    ] {
        if x != y {
            reasons.push(format!("{name} differs"));
            details.push(format!("{name}: first (-), second (+)"));
            details.extend(diff_excerpt(x, y).into_iter().map(|l| format!("  {l}")));
        }
    }
    if reasons.is_empty() {
        Ok(())
    } else {
        Err(Failure::new(reasons.join("; ")).with(details))
    }
}

impl Suite<'_> {
    /// One test: the host build and two runs, checked against the headers, then the
    /// VLIW build and run, compared with the host's. Also returns the masked host run.
    fn test(&self, program: &Program, opt: &'static str) -> (Result<(), Failure>, Option<Output>) {
        let (h, stdin) = match &program.setup {
            Ok(setup) => setup,
            Err(e) => return (Err(Failure::new(e.clone())), None),
        };
        let host = match self.host(program, opt, h, stdin) {
            Ok(out) => out,
            Err(f) => return (Err(prefix("host", f)), None),
        };
        if let Err(f) = check_host(h, &host, HOST_RUN_TIMEOUT) {
            return (Err(f), None);
        }
        let result = (|| {
            let Some(rustc_vliw) = &self.rustc_vliw else {
                return Ok(());
            };
            let vliw = self
                .vliw(program, opt, rustc_vliw, h, stdin)
                .map_err(|f| prefix("vliw", f))?;
            compare(&host, &masked(vliw), VLIW_RUN_TIMEOUT)
        })();
        (result, Some(host))
    }

    fn dir(&self, side: &str, opt: &str, program: &Program) -> Result<PathBuf, Failure> {
        let dir = self
            .work
            .join(side)
            .join(format!("O{opt}"))
            .join(format!("{}.d", program.name));
        mkdir(&dir)?;
        Ok(dir)
    }

    /// The common part of both compilers' command lines.
    fn compile(
        &self,
        compiler: &Path,
        opt: &str,
        program: &Program,
        h: &Headers,
        exe: &Path,
        work: &Path,
    ) -> Command {
        let mut cmd = Command::new(compiler);
        // Relative source paths name the same file in panic messages on both sides;
        // ICE reports land with the outputs, not in the root.
        cmd.current_dir(&self.paths.root).env("RUSTC_ICE", work);
        cmd.args(RUSTC_FLAGS)
            .arg(format!("-Copt-level={opt}"))
            .args(&h.compile_flags)
            .arg(&program.source)
            .arg("-o")
            .arg(exe);
        cmd
    }

    /// Builds (unless up to date) and runs the host executable twice; the runs must
    /// agree. Returns the masked run.
    fn host(
        &self,
        program: &Program,
        opt: &str,
        h: &Headers,
        stdin: &[u8],
    ) -> Result<Output, Failure> {
        let dir = self.dir("host", opt, program)?;
        let exe = dir.join(&program.name);
        let cmd = self.compile(&self.cmds.rustc.path, opt, program, h, &exe, &dir);
        let inputs = [
            self.paths.root.join(&program.source),
            self.cmds.rustc.path.clone(),
        ];
        self.cmds
            .cached(&[cmd], &[&exe], &inputs, &dir.join("build.stamp"))?;
        let run_once = || -> Result<Output, Failure> {
            let cwd = if h.scratch_dir {
                scratch_dir(&dir)?
            } else {
                dir.clone()
            };
            let mut run = Command::new(&exe);
            run.args(&h.args)
                .current_dir(&cwd)
                .env_clear()
                .envs(h.env.iter().map(|(k, v)| (k, v)));
            let out = process::run(&mut run, stdin, Instant::now() + HOST_RUN_TIMEOUT)
                .map_err(Failure::new)?;
            Ok(masked(out))
        };
        let first = run_once()?;
        let second = run_once()?;
        same_run(&first, &second).map_err(|f| Failure {
            reason: format!("two runs differ (not deterministic): {}", f.reason),
            details: f.details,
        })?;
        Ok(first)
    }

    /// Builds `program` with dist/rustc-vliw and runs it on the simulator.
    fn vliw(
        &self,
        program: &Program,
        opt: &str,
        rustc_vliw: &Path,
        h: &Headers,
        stdin: &[u8],
    ) -> Result<Output, Failure> {
        let dir = self.dir("vliw", opt, program)?;
        let exe = dir.join(&program.name);
        let mut cmd = self.compile(rustc_vliw, opt, program, h, &exe, &dir);
        // the IR is verified after every pass of the pipeline
        cmd.arg(crate::differential::VERIFY_EACH);
        let mut run = Command::new(self.paths.tool("vliw-run"));
        // `--strict`: a latency stall is a fault, so every program also checks that
        // the schedulers' bundles never read a value before its latency is over;
        // `--check-unwind`: the call-frame information unwinds every caller right
        run.args([
            "--max-cycles",
            MAX_CYCLES,
            "--clear-env",
            "--strict",
            "--check-unwind",
        ]);
        for (k, v) in &h.env {
            run.arg("--env").arg(format!("{k}={v}"));
        }
        if h.scratch_dir {
            let scratch = scratch_dir(&dir)?;
            run.arg("--dir").arg(format!("{}::/", scratch.display()));
        }
        run.arg(&exe).args(&h.args).current_dir(&dir);
        self.cmds.record(&dir.join("commands.txt"), &[&cmd, &run]);
        self.cmds.build_step(RUSTC_VLIW, &mut cmd, &exe)?;
        process::run(&mut run, stdin, Instant::now() + VLIW_RUN_TIMEOUT).map_err(Failure::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::differential::tests::output;

    #[test]
    fn takes_run_headers_only() {
        let h = parse_headers(
            "p",
            "// A program.\n// args: a  b\n// env: K=v w\n// stdin: x\n// stdin: y\n\
             // expect-exit: 101\n// expect-stderr-contains: boom\nfn main() {}\n",
        )
        .unwrap();
        assert_eq!(h.args, ["a", "b"]);
        assert_eq!(h.env, [("K".to_string(), "v w".to_string())]);
        assert_eq!(h.stdin.as_deref(), Some(&b"x\ny"[..]));
        assert_eq!(h.exit_code(), 101);
        let h = parse_headers("p", "// stdin-file: p.txt\n").unwrap();
        assert_eq!(h.stdin_file.as_deref(), Some("p.txt"));
        assert!(
            parse_headers("p", "// scratch-dir: yes\n")
                .unwrap()
                .scratch_dir
        );
        assert!(
            parse_headers("p", "// scratch-dir: no\n")
                .unwrap_err()
                .contains("scratch-dir")
        );
        for bad in [
            "// expect-stdout: 1\n",
            "// run-flags: --strict\n",
            "// link-flags: -x\n",
        ] {
            assert!(
                parse_headers("p", bad)
                    .unwrap_err()
                    .contains("programs take")
            );
        }
        assert!(
            parse_headers("p", "// stdin: a\n// stdin-file: b\n")
                .unwrap_err()
                .contains("together")
        );
        assert!(
            parse_headers("p", "// stdin-fle: x\n")
                .unwrap_err()
                .contains("unknown header")
        );
        assert!(parse_headers("P-1", "").unwrap_err().contains("crate name"));
        assert_eq!(parse_headers("ok_2", "").unwrap(), Headers::default());
    }

    #[test]
    fn masks_thread_ids_of_panics() {
        let host = b"thread 'main' (12345) panicked at tests/programs/p.rs:3:5:\nboom\n";
        let ours = b"thread 'main' (1) panicked at tests/programs/p.rs:3:5:\nboom\n";
        let want = b"thread 'main' (N) panicked at tests/programs/p.rs:3:5:\nboom\n";
        assert_eq!(mask_thread_ids(host), want);
        assert_eq!(mask_thread_ids(ours), want);
        // Other names, several panics, and text that only looks similar.
        assert_eq!(
            mask_thread_ids(b"x thread 'a b' (7) panicked\nthread '<unnamed>' (42) panicked"),
            b"x thread 'a b' (N) panicked\nthread '<unnamed>' (N) panicked"
        );
        for same in [
            &b"thread 'main' panicked at x"[..],
            b"thread 'main' () panicked",
            b"thread 'main' (12a) panicked",
            b"thread 'main' (12",
            b"thread 'unterminated\n(1)",
            b"thread '",
            b"",
        ] {
            assert_eq!(mask_thread_ids(same), same);
        }
    }

    #[test]
    fn compares_runs_after_masking() {
        let a = masked(output(
            101,
            b"1\n",
            b"thread 'main' (99) panicked at a.rs:1:1:\n",
        ));
        let b = masked(output(
            101,
            b"1\n",
            b"thread 'main' (3) panicked at a.rs:1:1:\n",
        ));
        assert!(same_run(&a, &b).is_ok());
        let c = output(0, b"2\n", b"");
        let f = same_run(&a, &c).unwrap_err();
        assert_eq!(
            f.reason,
            "exit code 101 vs exit code 0; stdout differs; stderr differs"
        );
    }
}
