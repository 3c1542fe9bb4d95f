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
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant, SystemTime};

use crate::headers::{self, Headers};
use crate::paths::Paths;
use crate::process::{self, Output};
use crate::report::{diff_excerpt, tail};
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
/// One rustc invocation; the first builds with a new backend may be slow.
const COMPILE_TIMEOUT: Duration = Duration::from_secs(300);
/// One run of a program, native or simulated.
const RUN_TIMEOUT: Duration = Duration::from_secs(60);
/// Tools of dist/ on the runtime's small sources.
const TOOL_TIMEOUT: Duration = Duration::from_secs(60);
const STDERR_TAIL: usize = 12;

pub struct Options {
    /// Only the host half: build with LLVM, run, check the headers.
    pub host_only: bool,
}

pub struct Outcome {
    pub passed: usize,
    pub failed: usize,
}

struct Program {
    /// The file stem, also the crate name.
    name: String,
    /// Relative to the repository root, as rustc is given it (panic messages name it).
    source: String,
    headers: Result<Headers, String>,
}

/// The pinned toolchain's rustc, called directly (not through rustup's proxy).
pub(crate) struct Rustc {
    pub(crate) path: PathBuf,
    pub(crate) channel: String,
    pub(crate) host: String,
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
    rustc: Rustc,
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
        rustc,
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
    let next = AtomicUsize::new(0);
    let (send, receive) = mpsc::channel();
    thread::scope(|scope| {
        for _ in 0..THREADS.min(jobs.len()) {
            let send = send.clone();
            let (jobs, next, suite) = (&jobs, &next, &suite);
            scope.spawn(move || {
                while let Some((program, level)) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let mut label = format!("{} (O{}", program.name, level.opt);
                    label.push_str(if suite.vliw.is_none() {
                        ", host only)"
                    } else {
                        ")"
                    });
                    let result = suite.test(program, level);
                    if send.send((label, result)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(send);
        for (label, result) in receive {
            report(&label, result, &mut outcome);
        }
    });
    println!("{} passed, {} failed", outcome.passed, outcome.failed);
    Ok(outcome)
}

fn report(label: &str, result: Result<(), Failure>, outcome: &mut Outcome) {
    match result {
        Ok(()) => {
            outcome.passed += 1;
            println!("ok {label}");
        }
        Err(failure) => {
            outcome.failed += 1;
            println!("FAILED {label}: {}", failure.reason);
            for line in &failure.details {
                println!("    {line}");
            }
        }
    }
}

/// The programs: `*.rs` directly in `dir` except mini_core.rs (rt/ holds the runtime).
fn discover(paths: &Paths, dir: &Path) -> Result<Vec<Program>, String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut programs = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
            .path();
        if !path.is_file() || path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let name = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
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
    programs.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(programs)
}

/// The `// key: value` headers of a program (headers.rs): only `expect-exit` and
/// `expect-stderr-contains` mean something here; the output itself comes from the host.
fn parse_headers(name: &str, text: &str) -> Result<Headers, String> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    {
        return Err(format!(
            "`{name}` is not a crate name: use lowercase letters, digits and `_`"
        ));
    }
    let h = headers::parse_with(text, "//").map_err(|e| format!("bad test headers: {e}"))?;
    let unsupported = h.expect_stdout.is_some()
        || h.stdin.is_some()
        || !h.args.is_empty()
        || !h.run_flags.is_empty()
        || !h.link_flags.is_empty()
        || !h.extra_sources.is_empty()
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

impl Rustc {
    pub(crate) fn locate(toolchain: &Toolchain) -> Result<Rustc, String> {
        let print = |args: &[&str]| -> Result<String, String> {
            let out = Command::new("rustc")
                .env("RUSTUP_TOOLCHAIN", &toolchain.channel)
                .args(args)
                .output()
                .map_err(|e| format!("cannot run rustc: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "rustc {} failed: {}",
                    args.join(" "),
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
            }
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        };
        let sysroot = print(&["--print", "sysroot"])?;
        let path = Path::new(sysroot.trim()).join("bin").join("rustc");
        let version = print(&["-vV"])?;
        let host = version
            .lines()
            .find_map(|l| l.strip_prefix("host: "))
            .ok_or("rustc -vV names no host triple")?
            .trim()
            .to_string();
        Ok(Rustc {
            path,
            channel: toolchain.channel.clone(),
            host,
        })
    }
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
        let mut cmd = Command::new(&self.rustc.path);
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
            .arg(format!("-Zcodegen-backend={}", backend.display()));
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
        cmd.args(["--target", &self.rustc.host]);
        self.mini_core_args(&mut cmd, &rlib);
        let inputs = [
            self.paths.tests.join("no_sysroot/mini_core.rs"),
            self.rustc.path.clone(),
        ];
        self.cached(&[cmd], &[&rlib], &inputs, &dir.join("mini_core.stamp"))?;
        Ok(rlib)
    }

    fn vliw_mini_core(&self, opt: &str, backend: &Path) -> Result<PathBuf, Failure> {
        let dir = self.work.join("vliw").join(format!("O{opt}"));
        mkdir(&dir)?;
        let rlib = dir.join("libmini_core.rlib");
        let mut cmd = self.rustc(opt, &dir);
        self.vliw_target(&mut cmd, backend);
        self.mini_core_args(&mut cmd, &rlib);
        self.record(&dir.join("mini_core.commands.txt"), &[&cmd]);
        self.build_step("rustc (mini_core)", &mut cmd, &rlib)?;
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
        check_host(h, &host)?;
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
        compare(&host, &vliw)
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
            .args(["--target", &self.rustc.host, "--crate-type=staticlib"])
            .arg(format!("--crate-name={}", program.name))
            .arg(&program.source)
            .arg("--extern")
            .arg(format!("mini_core={}", mini_core.display()))
            .arg("-o")
            .arg(&lib);
        // The shim is an ordinary std program; the static library is a native library
        // to it, so the two `core`s (std's and mini_core) never meet in one crate graph.
        let mut shim = Command::new(&self.rustc.path);
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
            self.rustc.path.clone(),
        ];
        self.cached(
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
        self.record(&dir.join("commands.txt"), &[&cmd, &run]);
        self.build_step("rustc", &mut cmd, &exe)?;
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
            return Err(Failure::new(format!("timed out: {}", self.show(cmd))));
        }
        Ok(out)
    }

    /// Runs a rustc that must write `output`; a failure names the command.
    fn build_step(&self, what: &str, cmd: &mut Command, output: &Path) -> Result<(), Failure> {
        let _ = fs::remove_file(output);
        let out = process::run(cmd, b"", Instant::now() + COMPILE_TIMEOUT).map_err(Failure::new)?;
        let result = if out.timed_out() {
            Err(Failure::new(format!(
                "{what} timed out after {} s",
                COMPILE_TIMEOUT.as_secs()
            ))
            .with(tail(&out.stderr, STDERR_TAIL)))
        } else {
            expect_success(what, &out, output)
        };
        result.map_err(|f| {
            f.with([format!(
                "command (from the repository root): {}",
                self.show(cmd)
            )])
        })
    }

    /// Runs the build commands unless their outputs are newer than every input and
    /// were made by the same commands (kept in `stamp`). Host builds only: they are
    /// the expectations, and the same compiler on the same sources gives the same ones.
    fn cached(
        &self,
        cmds: &[Command],
        outputs: &[&Path],
        inputs: &[PathBuf],
        stamp: &Path,
    ) -> Result<(), Failure> {
        let key: Vec<String> = cmds.iter().map(|c| self.show(c)).collect();
        let key = key.join("\n") + "\n";
        let mtime = |p: &Path| fs::metadata(p).and_then(|m| m.modified()).ok();
        let newest_input = inputs
            .iter()
            .map(|p| mtime(p))
            .collect::<Option<Vec<SystemTime>>>()
            .and_then(|t| t.into_iter().max());
        let oldest_output = outputs
            .iter()
            .map(|p| mtime(p))
            .collect::<Option<Vec<SystemTime>>>()
            .and_then(|t| t.into_iter().min());
        let fresh = matches!((newest_input, oldest_output), (Some(i), Some(o)) if o >= i)
            && fs::read_to_string(stamp).is_ok_and(|s| s == key);
        if fresh {
            return Ok(());
        }
        let _ = fs::remove_file(stamp);
        for (cmd, output) in cmds.iter().zip(outputs) {
            // Command is not Clone: rebuild it from its parts.
            let mut again = Command::new(cmd.get_program());
            again.args(cmd.get_args());
            if let Some(dir) = cmd.get_current_dir() {
                again.current_dir(dir);
            }
            for (k, v) in cmd.get_envs() {
                match v {
                    Some(v) => again.env(k, v),
                    None => again.env_remove(k),
                };
            }
            self.build_step("rustc", &mut again, output)?;
        }
        fs::write(stamp, key)
            .map_err(|e| Failure::new(format!("cannot write {}: {e}", stamp.display())))
    }

    /// Removes host outputs of programs that no longer exist.
    fn prune_host(&self, programs: &[Program]) {
        for opt in OPT_LEVELS {
            let Ok(entries) = fs::read_dir(self.work.join("host").join(format!("O{opt}"))) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if let Some(stem) = name.strip_suffix(".d")
                    && !programs.iter().any(|p| p.name == stem)
                {
                    let _ = fs::remove_dir_all(entry.path());
                }
            }
        }
    }

    /// The build commands of a test, for reproducing it by hand.
    fn record(&self, file: &Path, cmds: &[&Command]) {
        let mut text = String::from("# Run from the repository root.\n");
        for cmd in cmds {
            text.push_str(&self.show(cmd));
            text.push('\n');
        }
        let _ = fs::write(file, text);
    }

    /// A command line as it can be typed in the repository root: rustc through rustup
    /// with the pinned channel, paths inside the repository relative to it.
    fn show(&self, cmd: &Command) -> String {
        let root = format!("{}/", self.paths.root.display());
        let program = cmd.get_program().to_string_lossy().into_owned();
        let mut words = vec![if Path::new(&program) == self.rustc.path {
            format!("rustc +{}", self.rustc.channel)
        } else {
            program.replace(&root, "")
        }];
        for arg in cmd.get_args() {
            let arg = arg.to_string_lossy().replace(&root, "");
            if arg.is_empty()
                || arg.contains(|c: char| c.is_whitespace() || "'\"$\\;&|<>()*?".contains(c))
            {
                words.push(format!("'{}'", arg.replace('\'', r"'\''")));
            } else {
                words.push(arg);
            }
        }
        words.join(" ")
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

fn prefix(side: &str, f: Failure) -> Failure {
    Failure {
        reason: format!("{side}: {}", f.reason),
        details: f.details,
    }
}

fn mkdir(dir: &Path) -> Result<(), Failure> {
    fs::create_dir_all(dir)
        .map_err(|e| Failure::new(format!("cannot create {}: {e}", dir.display())))
}

/// The host run is the expectation: it must meet the program's headers (its author's
/// intent: exit code, panic message) and print something, or the test is broken.
fn check_host(h: &Headers, out: &Output) -> Result<(), Failure> {
    let mut reasons = Vec::new();
    if out.timed_out() {
        reasons.push(format!("killed after {} s", RUN_TIMEOUT.as_secs()));
    } else if out.code() != Some(h.exit_code()) {
        reasons.push(format!(
            "{}, the program's headers expect exit code {}",
            out.describe(),
            h.exit_code()
        ));
    }
    if out.stdout.is_empty() {
        reasons.push("printed nothing on stdout (a program must print what it computes)".into());
    }
    for text in &h.expect_stderr_contains {
        if !process::contains(&out.stderr, text) {
            reasons.push(format!("stderr lacks {}", crate::report::quote(text)));
        }
    }
    if reasons.is_empty() {
        return Ok(());
    }
    let mut details = Vec::new();
    if !out.stderr.is_empty() {
        details.push("host stderr:".to_string());
        details.extend(
            tail(&out.stderr, STDERR_TAIL)
                .into_iter()
                .map(|l| format!("  {l}")),
        );
    }
    Err(Failure::new(format!("host run: {}", reasons.join("; "))).with(details))
}

/// The VLIW run must reproduce the host run: exit code, stdout and stderr.
fn compare(host: &Output, vliw: &Output) -> Result<(), Failure> {
    let mut reasons = Vec::new();
    let mut details = Vec::new();
    if vliw.timed_out() {
        reasons.push(format!("vliw-run killed after {} s", RUN_TIMEOUT.as_secs()));
    } else if vliw.code() != host.code() {
        reasons.push(format!(
            "vliw: {}, host: {}",
            vliw.describe(),
            host.describe()
        ));
    }
    for (name, h, v) in [
        ("stdout", &host.stdout, &vliw.stdout),
        ("stderr", &host.stderr, &vliw.stderr),
    ] {
        if h != v {
            reasons.push(format!("{name} differs"));
            details.push(format!("{name}: host (-), vliw (+)"));
            details.extend(diff_excerpt(h, v).into_iter().map(|l| format!("  {l}")));
        }
    }
    if reasons.is_empty() {
        Ok(())
    } else {
        Err(Failure::new(reasons.join("; ")).with(details))
    }
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

    fn output(code: i32, stdout: &[u8], stderr: &[u8]) -> Output {
        use std::os::unix::process::ExitStatusExt;
        Output {
            status: Some(std::process::ExitStatus::from_raw(code << 8)),
            stdout: stdout.to_vec(),
            stderr: stderr.to_vec(),
        }
    }

    #[test]
    fn the_host_run_must_meet_the_headers_and_print() {
        let h = parse_headers(
            "p",
            "// expect-exit: 101\n// expect-stderr-contains: boom\n",
        )
        .unwrap();
        assert!(check_host(&h, &output(101, b"x\n", b"panicked: boom\n")).is_ok());
        let f = check_host(&h, &output(0, b"x\n", b"")).unwrap_err();
        assert!(
            f.reason.contains("expect exit code 101") && f.reason.contains("lacks"),
            "{}",
            f.reason
        );
        let h = parse_headers("p", "").unwrap();
        assert!(
            check_host(&h, &output(0, b"", b""))
                .unwrap_err()
                .reason
                .contains("printed nothing")
        );
    }

    #[test]
    fn compares_code_stdout_and_stderr() {
        let host = output(0, b"a\nb\n", b"");
        assert!(compare(&host, &output(0, b"a\nb\n", b"")).is_ok());
        let f = compare(&host, &output(3, b"a\nc\n", b"fault\n")).unwrap_err();
        assert_eq!(
            f.reason,
            "vliw: exit code 3, host: exit code 0; stdout differs; stderr differs"
        );
        assert!(f.details.iter().any(|l| l.contains("+ \"c\"")));
    }
}
