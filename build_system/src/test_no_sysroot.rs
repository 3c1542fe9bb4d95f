//! The `no_sysroot` suite (tests/no_sysroot/README.md), in the style of
//! rustc_codegen_cranelift's mini_core tests: `#![no_core]` programs on top of
//! `tests/no_sysroot/mini_core.rs`, each built at every level of `OPT_LEVELS` twice:
//!
//! - **host**: by rustc's LLVM backend for the host, the program and mini_core as one
//!   static library, linked with the std program `rt/host_shim.rs` that provides the
//!   two runtime functions; run natively. Its stdout, stderr and exit code are the
//!   expectation, and must themselves satisfy the program's `// expect-...` headers
//!   (default: exit code 0) and print something.
//! - **vliw**: by rustc with our backend (`-Zcodegen-backend`) for
//!   `sysroot/vliw64-unknown-none.json`, linked by rustc through `dist/vliw-ld` with
//!   the runtime `rt/vliw_start.s` and `rt/vliw_mem.s`; run on `dist/vliw-run`. Its
//!   stdout, stderr and exit code must equal the host's.
//!
//! Expected values come only from the host build. With `--host-only` the VLIW half is
//! left out (nothing of dist/ is needed); otherwise a missing or failing backend fails
//! the VLIW half of every test. Before the programs, the runtime's self-test
//! (`rt/selftest.s`, hand-written assembly) checks the VLIW runtime without the backend.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

pub(crate) use crate::differential::Rustc;
use crate::differential::{
    Commands, Outcome, check_host, compare, mkdir, prefix, report, run_parallel,
};
use crate::headers::{self, Headers};
use crate::paths::Paths;
use crate::process::{self, Output};
use crate::test_target::{Failure, check_run, expect_success};
use crate::toolchain::Toolchain;

/// Every program is built and compared at each of these `-Copt-level`s.
pub const OPT_LEVELS: [&str; 2] = ["0", "3"];
/// The target specification, relative to the repository root.
pub const TARGET_SPEC: &str = "sysroot/vliw64-unknown-none.json";
/// The backend's file name; where it is looked for: `backend_candidates`.
const BACKEND_FILE: &str = "librustc_codegen_vliw.so";
/// Overrides the backend's location (e.g. a debug build of it).
const BACKEND_ENV: &str = "VLIW_CODEGEN_BACKEND";
/// Flags of every rustc invocation of the suite, host and VLIW alike. Overflow checks
/// are on at every opt level, so that the panicking programs panic at -O3 too.
pub(crate) const RUSTC_FLAGS: [&str; 3] =
    ["--edition=2024", "-Cpanic=abort", "-Coverflow-checks=on"];

const THREADS: usize = 2;
/// One run of a program, native or simulated.
const RUN_TIMEOUT: Duration = Duration::from_secs(60);
/// Tools of dist/ on the runtime's small sources.
const TOOL_TIMEOUT: Duration = Duration::from_secs(60);

pub struct Options {
    /// Only the host half: build with LLVM, run, check the headers.
    pub host_only: bool,
}

struct Program {
    /// The file stem, also the crate name.
    name: String,
    /// Relative to the repository root, as rustc is given it (panic messages name it).
    source: String,
    headers: Result<Headers, String>,
}

/// What every test of one opt level shares: mini_core built for each side.
struct Level {
    opt: &'static str,
    host_core: Result<PathBuf, String>,
    vliw_core: Result<PathBuf, String>,
}

/// The VLIW runtime's objects, assembled once.
struct Runtime {
    start: PathBuf,
    mem: PathBuf,
}

struct Suite<'a> {
    paths: &'a Paths,
    cmds: Commands,
    /// `build/test/no_sysroot`.
    work: PathBuf,
    /// None with --host-only; else the runtime objects and the backend, or why not.
    vliw: Option<(Result<Runtime, String>, Result<PathBuf, String>)>,
}

/// Runs the suite, printing `ok NAME (O0)` / `FAILED NAME (O0): REASON` per test and
/// the closing `N passed, N failed` on stdout. Without --host-only, expects dist/ built.
pub fn run(paths: &Paths, toolchain: &Toolchain, options: &Options) -> Result<Outcome, String> {
    let source_dir = paths.tests.join("no_sysroot");
    let programs = discover(paths, &source_dir)?;
    if programs.is_empty() {
        return Err(format!(
            "no test programs (*.rs) found in {}",
            paths.show(&source_dir)
        ));
    }
    let rustc = Rustc::locate(toolchain)?;
    let work = paths.build.join("test").join("no_sysroot");
    let mut outcome = Outcome {
        passed: 0,
        failed: 0,
    };

    let mut suite = Suite {
        paths,
        cmds: Commands {
            root: paths.root.clone(),
            rustc,
        },
        work,
        vliw: None,
    };
    // The host outputs are a cache (see `Suite::fresh`); the VLIW ones are of this run only.
    suite.prune_host(&programs);
    if !options.host_only {
        let _ = fs::remove_dir_all(suite.work.join("vliw"));
        let _ = fs::remove_dir_all(suite.work.join("rt"));
        let (runtime, selftest) = suite.runtime();
        report("rt/selftest", selftest, &mut outcome);
        let backend = backend(paths);
        if let Err(why) = &backend {
            println!("[no_sysroot] no backend: {why}");
        }
        suite.vliw = Some((runtime, backend));
    }

    let levels = suite.levels();
    let jobs: Vec<(&Program, &Level)> = programs
        .iter()
        .flat_map(|p| levels.iter().map(move |l| (p, l)))
        .collect();
    let suite = &suite;
    run_parallel(
        &jobs,
        THREADS,
        |&(program, level)| {
            let mut label = format!("{} (O{}", program.name, level.opt);
            label.push_str(if suite.vliw.is_none() {
                ", host only)"
            } else {
                ")"
            });
            (label, suite.test(program, level))
        },
        |(label, result)| report(&label, result, &mut outcome),
    );
    println!("{} passed, {} failed", outcome.passed, outcome.failed);
    Ok(outcome)
}

/// The programs: `*.rs` directly in `dir` except mini_core.rs (rt/ holds the runtime).
fn discover(paths: &Paths, dir: &Path) -> Result<Vec<Program>, String> {
    let mut programs = Vec::new();
    for (name, path) in crate::differential::rust_programs(dir)? {
        if name == "mini_core" {
            continue;
        }
        let headers = fs::read_to_string(&path)
            .map_err(|e| format!("cannot read the program: {e}"))
            .and_then(|text| parse_headers(&name, &text));
        programs.push(Program {
            source: paths.show(&path),
            name,
            headers,
        });
    }
    Ok(programs)
}

/// The `// key: value` headers of a program (headers.rs): only `expect-exit` and
/// `expect-stderr-contains` mean something here; the output itself comes from the host.
fn parse_headers(name: &str, text: &str) -> Result<Headers, String> {
    crate::differential::check_crate_name(name)?;
    let h = headers::parse_with(text, "//").map_err(|e| format!("bad test headers: {e}"))?;
    let unsupported = h.expect_stdout.is_some()
        || h.stdin.is_some()
        || h.stdin_file.is_some()
        || !h.env.is_empty()
        || !h.args.is_empty()
        || !h.run_flags.is_empty()
        || !h.link_flags.is_empty()
        || !h.extra_sources.is_empty()
        || !h.compile_flags.is_empty()
        || !h.expects_run();
    if unsupported {
        return Err(
            "bad test headers: no_sysroot programs take only expect-exit and \
                    expect-stderr-contains (their output is compared with the host build's)"
                .into(),
        );
    }
    Ok(h)
}

/// Where the backend dylib is looked for, in order: `$VLIW_CODEGEN_BACKEND`, then
/// dist/lib/, dist/ and cargo's target/release/.
fn backend_candidates(paths: &Paths) -> Vec<PathBuf> {
    vec![
        paths.dist.join("lib").join(BACKEND_FILE),
        paths.dist.join(BACKEND_FILE),
        paths.target.join("release").join(BACKEND_FILE),
    ]
}

pub(crate) fn backend(paths: &Paths) -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os(BACKEND_ENV).filter(|p| !p.is_empty()) {
        let path = paths.user_path(&path.to_string_lossy());
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!(
                "${BACKEND_ENV} names {}, which does not exist",
                path.display()
            ))
        };
    }
    let candidates = backend_candidates(paths);
    if let Some(found) = candidates.iter().find(|p| p.is_file()) {
        return Ok(found.clone());
    }
    let names: Vec<String> = candidates.iter().map(|p| paths.show(p)).collect();
    Err(format!(
        "the rustc backend is not built: none of {} exists (codegen/rustc_codegen_vliw, \
         built by ./y.sh build; or set ${BACKEND_ENV})",
        names.join(", ")
    ))
}

impl Suite<'_> {
    /// mini_core for the host and (unless --host-only) for the VLIW target at every opt
    /// level; failures are printed once here and named by every test they affect.
    fn levels(&self) -> Vec<Level> {
        let build = |opt: &'static str| {
            let host_core = self
                .host_mini_core(opt)
                .map_err(|f| shared_failure(opt, "host", f));
            let vliw_core = match &self.vliw {
                None => Err("not built (--host-only)".to_string()),
                Some((_, Err(why))) => Err(format!("no backend: {why}")),
                Some((_, Ok(backend))) => self
                    .vliw_mini_core(opt, backend)
                    .map_err(|f| shared_failure(opt, "vliw", f)),
            };
            Level {
                opt,
                host_core,
                vliw_core,
            }
        };
        thread::scope(|scope| {
            let handles: Vec<_> = OPT_LEVELS
                .iter()
                .map(|opt| scope.spawn(move || build(opt)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("mini_core build thread"))
                .collect()
        })
    }

    /// The common part of every rustc command line.
    fn rustc(&self, opt: &str, work: &Path) -> Command {
        let mut cmd = Command::new(&self.cmds.rustc.path);
        // Relative source paths (tests/no_sysroot/x.rs) name the same file in panic
        // messages on both sides; ICE reports land with the outputs, not in the root.
        cmd.current_dir(&self.paths.root).env("RUSTC_ICE", work);
        cmd.args(RUSTC_FLAGS).arg(format!("-Copt-level={opt}"));
        cmd
    }

    fn vliw_target(&self, cmd: &mut Command, backend: &Path) {
        cmd.arg("-Zunstable-options")
            .arg("--target")
            .arg(self.paths.root.join(TARGET_SPEC))
            .arg(format!("-Zcodegen-backend={}", backend.display()))
            // the IR is verified after every pass of the pipeline
            .arg(crate::differential::VERIFY_EACH);
    }

    fn mini_core_args(&self, cmd: &mut Command, output: &Path) {
        cmd.args([
            "--crate-type=rlib",
            "--crate-name=mini_core",
            "tests/no_sysroot/mini_core.rs",
            "-o",
        ])
        .arg(output);
    }

    fn host_mini_core(&self, opt: &str) -> Result<PathBuf, Failure> {
        let dir = self.work.join("host").join(format!("O{opt}"));
        mkdir(&dir)?;
        let rlib = dir.join("libmini_core.rlib");
        let mut cmd = self.rustc(opt, &dir);
        cmd.args(["--target", &self.cmds.rustc.host]);
        self.mini_core_args(&mut cmd, &rlib);
        let inputs = [
            self.paths.tests.join("no_sysroot/mini_core.rs"),
            self.cmds.rustc.path.clone(),
        ];
        self.cmds
            .cached(&[cmd], &[&rlib], &inputs, &dir.join("mini_core.stamp"))?;
        Ok(rlib)
    }

    fn vliw_mini_core(&self, opt: &str, backend: &Path) -> Result<PathBuf, Failure> {
        let dir = self.work.join("vliw").join(format!("O{opt}"));
        mkdir(&dir)?;
        let rlib = dir.join("libmini_core.rlib");
        let mut cmd = self.rustc(opt, &dir);
        self.vliw_target(&mut cmd, backend);
        self.mini_core_args(&mut cmd, &rlib);
        self.cmds
            .record(&dir.join("mini_core.commands.txt"), &[&cmd]);
        self.cmds.build_step("rustc (mini_core)", &mut cmd, &rlib)?;
        Ok(rlib)
    }

    /// One test: the host build and run, checked against the headers, then the VLIW
    /// build and run, compared with the host's.
    fn test(&self, program: &Program, level: &Level) -> Result<(), Failure> {
        let h = program
            .headers
            .as_ref()
            .map_err(|e| Failure::new(e.clone()))?;
        let host_core = level
            .host_core
            .as_ref()
            .map_err(|e| Failure::new(format!("host: {e}")))?;
        let host = self
            .host(program, level.opt, host_core)
            .map_err(|f| prefix("host", f))?;
        check_host(h, &host, RUN_TIMEOUT)?;
        let Some((runtime, _)) = &self.vliw else {
            return Ok(());
        };
        let runtime = runtime
            .as_ref()
            .map_err(|e| Failure::new(format!("vliw: {e}")))?;
        // A missing backend is in vliw_core's error.
        let vliw_core = level
            .vliw_core
            .as_ref()
            .map_err(|e| Failure::new(format!("vliw: {e}")))?;
        let Some((_, Ok(backend))) = &self.vliw else {
            return Err(Failure::new("vliw: no backend"));
        };
        let vliw = self
            .vliw(program, level.opt, backend, vliw_core, runtime)
            .map_err(|f| prefix("vliw", f))?;
        compare(&host, &vliw, RUN_TIMEOUT)
    }

    /// Builds (unless up to date) and runs the host executable of `program`.
    fn host(&self, program: &Program, opt: &str, mini_core: &Path) -> Result<Output, Failure> {
        let dir = self
            .work
            .join("host")
            .join(format!("O{opt}"))
            .join(format!("{}.d", program.name));
        mkdir(&dir)?;
        let lib = dir.join(format!("lib{}.a", program.name));
        let exe = dir.join(&program.name);
        let mut staticlib = self.rustc(opt, &dir);
        staticlib
            .args(["--target", &self.cmds.rustc.host, "--crate-type=staticlib"])
            .arg(format!("--crate-name={}", program.name))
            .arg(&program.source)
            .arg("--extern")
            .arg(format!("mini_core={}", mini_core.display()))
            .arg("-o")
            .arg(&lib);
        // The shim is an ordinary std program; the static library is a native library
        // to it, so the two `core`s (std's and mini_core) never meet in one crate graph.
        let mut shim = Command::new(&self.cmds.rustc.path);
        shim.current_dir(&self.paths.root)
            .env("RUSTC_ICE", &dir)
            .args([
                "--edition=2024",
                "-Copt-level=0",
                "--crate-type=bin",
                "--crate-name=host_shim",
            ])
            .arg("tests/no_sysroot/rt/host_shim.rs")
            .arg("-L")
            .arg(format!("native={}", dir.display()))
            .arg(format!("-lstatic={}", program.name))
            .arg("-o")
            .arg(&exe);
        let inputs = [
            self.paths.root.join(&program.source),
            self.paths.tests.join("no_sysroot/rt/host_shim.rs"),
            mini_core.to_path_buf(),
            self.cmds.rustc.path.clone(),
        ];
        self.cmds.cached(
            &[staticlib, shim],
            &[&lib, &exe],
            &inputs,
            &dir.join("build.stamp"),
        )?;
        let mut run = Command::new(&exe);
        run.current_dir(&dir);
        process::run(&mut run, b"", Instant::now() + RUN_TIMEOUT).map_err(Failure::new)
    }

    /// Builds `program` with the backend, links it through rustc and vliw-ld, runs it.
    fn vliw(
        &self,
        program: &Program,
        opt: &str,
        backend: &Path,
        mini_core: &Path,
        rt: &Runtime,
    ) -> Result<Output, Failure> {
        let dir = self
            .work
            .join("vliw")
            .join(format!("O{opt}"))
            .join(format!("{}.d", program.name));
        mkdir(&dir)?;
        let exe = dir.join(&program.name);
        let mut cmd = self.rustc(opt, &dir);
        self.vliw_target(&mut cmd, backend);
        cmd.arg("--crate-type=bin")
            .arg(format!("--crate-name={}", program.name))
            .arg(&program.source)
            .arg("--extern")
            .arg(format!("mini_core={}", mini_core.display()))
            .arg(format!("-Clinker={}", self.paths.tool("vliw-ld").display()))
            .arg(format!("-Clink-arg={}", rt.start.display()))
            .arg(format!("-Clink-arg={}", rt.mem.display()))
            .arg("-o")
            .arg(&exe);
        let mut run = Command::new(self.paths.tool("vliw-run"));
        run.arg(&exe).current_dir(&dir);
        self.cmds.record(&dir.join("commands.txt"), &[&cmd, &run]);
        self.cmds.build_step("rustc", &mut cmd, &exe)?;
        let out =
            process::run(&mut run, b"", Instant::now() + RUN_TIMEOUT).map_err(Failure::new)?;
        Ok(out)
    }

    /// Assembles the runtime and runs its self-test (rt/selftest.s, checked against its
    /// `#` headers like the target suite's programs).
    fn runtime(&self) -> (Result<Runtime, String>, Result<(), Failure>) {
        let rt_src = self.paths.tests.join("no_sysroot").join("rt");
        let dir = self.work.join("rt");
        let assemble = |name: &str| -> Result<PathBuf, Failure> {
            mkdir(&dir)?;
            let object = dir.join(format!("{name}.o"));
            let mut cmd = Command::new(self.paths.tool("vliw-as"));
            cmd.arg(rt_src.join(format!("{name}.s")))
                .arg("-o")
                .arg(&object);
            let out = self.tool(&mut cmd)?;
            expect_success("vliw-as", &out, &object)?;
            Ok(object)
        };
        let runtime = match (assemble("vliw_start"), assemble("vliw_mem")) {
            (Ok(start), Ok(mem)) => Runtime { start, mem },
            (Err(f), _) | (_, Err(f)) => {
                let why = format!("the runtime does not assemble: {}", f.reason);
                return (Err(why.clone()), Err(Failure::new(why).with(f.details)));
            }
        };
        let selftest = (|| {
            let text = fs::read_to_string(rt_src.join("selftest.s"))
                .map_err(|e| Failure::new(format!("cannot read rt/selftest.s: {e}")))?;
            let h = headers::parse(&text)
                .map_err(|e| Failure::new(format!("bad test headers: {e}")))?;
            let object = assemble("selftest")?;
            let exe = dir.join("selftest");
            let mut link = Command::new(self.paths.tool("vliw-ld"));
            link.args([&runtime.start, &runtime.mem, &object])
                .arg("-o")
                .arg(&exe)
                .arg("--gc-sections");
            let out = self.tool(&mut link)?;
            expect_success("vliw-ld", &out, &exe)?;
            let mut run = Command::new(self.paths.tool("vliw-run"));
            run.arg(&exe);
            let out = self.tool(&mut run)?;
            check_run(&h, &out)
        })();
        (Ok(runtime), selftest)
    }

    fn tool(&self, cmd: &mut Command) -> Result<Output, Failure> {
        cmd.current_dir(&self.work);
        let out = process::run(cmd, b"", Instant::now() + TOOL_TIMEOUT).map_err(Failure::new)?;
        if out.timed_out() {
            return Err(Failure::new(format!("timed out: {}", self.cmds.show(cmd))));
        }
        Ok(out)
    }

    /// Removes host outputs of programs that no longer exist.
    fn prune_host(&self, programs: &[Program]) {
        let names: Vec<&str> = programs.iter().map(|p| p.name.as_str()).collect();
        for opt in OPT_LEVELS {
            Commands::prune(&self.work.join("host").join(format!("O{opt}")), &names);
        }
    }
}

/// A failure of a build that many tests share: printed once in full, and named by
/// each test with the compiler's first error.
fn shared_failure(opt: &str, side: &str, f: Failure) -> String {
    println!(
        "[no_sysroot] mini_core (O{opt}, {side}) failed: {}",
        f.reason
    );
    for line in &f.details {
        println!("    {line}");
    }
    // The compiler's first error says most (e.g. what the backend does not support yet).
    let first_error = f.details.iter().find(|l| l.starts_with("error"));
    format!(
        "mini_core (O{opt}) did not build: {}",
        first_error.unwrap_or(&f.reason)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_exit_and_stderr_headers_only() {
        let h = parse_headers(
            "p",
            "// expect-exit: 101\n// expect-stderr-contains: overflow\n#![no_core]\n",
        )
        .unwrap();
        assert_eq!(h.exit_code(), 101);
        assert!(
            parse_headers("p", "// expect-stdout: 1\n")
                .unwrap_err()
                .contains("only expect-exit")
        );
        assert!(parse_headers("p", "// link-flags: -x\n").is_err());
        assert!(
            parse_headers("p", "// expect-exot: 1\n")
                .unwrap_err()
                .contains("unknown header")
        );
        assert!(
            parse_headers("Bad-Name", "")
                .unwrap_err()
                .contains("crate name")
        );
        assert_eq!(
            parse_headers("ok_2", "fn main() {}\n").unwrap().exit_code(),
            0
        );
    }
}
