//! The `sysroot` suite: Rust's own library tests (`coretests`, `alloctests` from
//! rust-src, and std's unit and integration tests) built with our backend and run on
//! the simulator with libtest, beside the same tests built by LLVM for the host and
//! run natively. As rustc_codegen_cranelift proves itself. coretests and alloctests
//! build against `dist/sysroot`; std's tests need sysroots of their own
//! (test_sysroot_std.rs).
//!
//! Both sides are built by cargo in the patched library copy of `./y.sh build`
//! (`build/sysroot/library`), with the release profile (opt-level 3) and with the
//! dev profile (opt-level 0, debug assertions), each side the same. The host's results are the
//! expectation: the suite fails if a test that passes on the host does not pass on
//! ours, unless `tests/sysroot/skip.txt` lists it with a reason.
//!
//! Running on the simulator: each test binary gets a fresh host directory as its
//! guest's `/` (`vliw-run --dir`), with an empty `/tmp` for the tests' files.
//! libtest cannot fork, so tests run inside the test
//! binary (`--force-run-in-process`); panics unwind, so a failing or `should_panic`
//! test does not end the run. The runner lists the tests (`--list`), runs them in
//! batches of exact names, and when a run dies in a test anyway (a fault, the cycle
//! limit, an abort), records that test as failed and runs the rest of the batch
//! again.
//! Batches run in parallel, one simulator per core.
//!
//! The pieces that run any libtest binary this way (the skip file, the host run,
//! the batched simulator run, the comparison) are shared with the `extended` suite
//! (test_extended.rs).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::paths::Paths;
use crate::process;
use crate::sysroot::{Layout, TARGET, json_string, json_strings};
use crate::test_sysroot_std;
use crate::toolchain::Toolchain;

/// The test crates of the library workspace that the suite runs.
pub const CRATES: [&str; 2] = ["coretests", "alloctests"];

const SKIP_FILE: &str = "tests/sysroot/skip.txt";
/// Tests per simulator run.
const BATCH: usize = 64;
/// Simulators running at once.
const JOBS: usize = 2;
/// One simulator run of a batch: cycles, then wall time. About a minute and a half of
/// simulation: a test that needs more fails, and is listed as slow in the skip file.
const MAX_CYCLES: u64 = 10_000_000_000;
/// vliw-run's exit status when the run reached `--max-cycles`.
const CYCLE_LIMIT_STATUS: i32 = 143;
const RUN_TIMEOUT: Duration = Duration::from_secs(1800);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Passed,
    Failed,
    Ignored,
}

/// The cargo profiles the test suites are built with: both optimization levels.
pub(crate) const PROFILES: [Profile; 2] = [Profile::Release, Profile::Debug];

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Profile {
    /// `--release`: opt-level 3.
    Release,
    /// cargo's default `dev` profile: opt-level 0, debug assertions.
    Debug,
}

impl Profile {
    /// The profile named `name` (as `name` gives it).
    pub(crate) fn parse(name: &str) -> Result<Profile, String> {
        PROFILES
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| format!("unknown profile `{name}` (release or debug)"))
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Profile::Release => "release",
            Profile::Debug => "debug",
        }
    }

    /// Adds the profile's argument to a `cargo` command.
    pub(crate) fn apply(self, cargo: &mut Command) {
        if self == Profile::Release {
            cargo.arg("--release");
        }
    }
}

/// One listed test of the skip file. `binary` is the first word of the line: a test
/// binary here, a crate in the `extended` suite's file.
#[derive(Debug, PartialEq)]
pub struct Skip {
    pub binary: String,
    /// `BINARY@PROFILE`: the line holds for that build profile only, and the test is
    /// not run on the host either at that profile. For tests that do not end without
    /// optimization, on any machine (coretests' `usize::MAX`-element slices).
    pub profile: Option<Profile>,
    pub test: String,
    pub reason: String,
}

pub struct Options {
    /// Only these test binaries (`coretests`, `alloctests`, `alloctests-lib`...);
    /// empty: all.
    pub binaries: Vec<String>,
    /// The build profiles to test, in order.
    pub profiles: Vec<Profile>,
    /// Run one test in `sample` (those whose name hashes to 0 modulo `sample`), on
    /// both sides: CI's deterministic subset. 1: every test.
    pub sample: u64,
    /// The profiles std's own tests are built and run at (test_sysroot_std.rs); each
    /// needs two sysroots and two test builds of its own, so CI's sample takes one.
    pub std_profiles: Vec<Profile>,
}

/// Whether `test` is in the deterministic one-in-`sample` subset: by a hash of its
/// name, so that the subset does not change when other tests are added.
pub(crate) fn sampled(test: &str, sample: u64) -> bool {
    sample <= 1 || crate::sysroot::fnv1a(test.as_bytes()) % sample == 0
}

/// Per binary: (binary, tests on the host, tests on ours).
pub struct Outcome {
    pub lines: Vec<String>,
    pub regressions: usize,
}

pub fn run(paths: &Paths, toolchain: &Toolchain, options: &Options) -> Result<Outcome, String> {
    let layout = Layout::new(paths);
    let library = paths.build.join("sysroot").join("library");
    if !layout.is_installed() || !library.is_dir() {
        return Err("the sysroot is not built: run ./y.sh build".into());
    }
    let skips = load_skips(&paths.root.join(SKIP_FILE))?;
    // std's tests need sysroots of their own (test_sysroot_std.rs): built only when
    // asked for, as are the other crates.
    let wants_std = options.binaries.is_empty()
        || options
            .binaries
            .iter()
            .any(|b| test_sysroot_std::is_std_binary(b));
    let wants_crates = options.binaries.is_empty()
        || options
            .binaries
            .iter()
            .any(|b| !test_sysroot_std::is_std_binary(b));
    let scratch = paths.build.join("sysroot").join("tests-tmp");

    let mut lines = Vec::new();
    let mut regressions = 0;
    for &profile in &options.profiles {
        let p = profile.name();
        let mut host = BTreeMap::new();
        let mut ours = BTreeMap::new();
        let sides = || {
            [
                (None, "the host with LLVM"),
                (Some(&layout), "VLIW-64 with our backend"),
            ]
        };
        if wants_crates {
            for ((vliw, side), map) in sides().into_iter().zip([&mut host, &mut ours]) {
                eprintln!("[sysroot] building {} for {side} ({p})", CRATES.join(", "));
                map.extend(build_tests(paths, toolchain, &library, vliw, profile)?);
            }
        }
        if wants_std && options.std_profiles.contains(&profile) {
            for ((vliw, _), map) in sides().into_iter().zip([&mut host, &mut ours]) {
                map.extend(test_sysroot_std::build(
                    paths, toolchain, &library, vliw, profile,
                )?);
            }
        }
        if let Some(unknown) = options
            .binaries
            .iter()
            .find(|b| !host.contains_key(*b) && *b != test_sysroot_std::ALL)
        {
            let known: Vec<&str> = host.keys().map(String::as_str).collect();
            return Err(format!(
                "no test binary `{unknown}`; the library tests are {}",
                known.join(", ")
            ));
        }

        for (name, host_exe) in &host {
            let selected = options.binaries.is_empty()
                || options.binaries.contains(name)
                || (test_sysroot_std::is_std_binary(name)
                    && options.binaries.iter().any(|b| b == test_sysroot_std::ALL));
            if !selected {
                continue;
            }
            let Some(our_exe) = ours.get(name) else {
                return Err(format!(
                    "{name} ({p}) was built for the host but not for {TARGET}"
                ));
            };
            eprintln!("[sysroot] {name} ({p}): running on the host");
            let mut host_results = run_host(host_exe, &host_skipped_for(&skips, name, profile))?;
            host_results.retain(|test, _| sampled(test, options.sample));
            if host_results.is_empty() {
                // coretests' library target: `test = false` in its manifest, no tests.
                continue;
            }
            let skipped = skipped_for(&skips, name, profile);
            eprintln!("[sysroot] {name} ({p}): running on the simulator");
            let started = Instant::now();
            let runner = Simulator {
                paths,
                jobs: JOBS,
                max_cycles: MAX_CYCLES,
                suite: "sysroot",
                sample: options.sample,
                dirs: vec![guest_root(&scratch)?],
            };
            let (our_results, cycles) = runner.run_tests(our_exe, &skipped)?;
            let report = compare(&host_results, &our_results, &skipped);
            for line in &report.regressions {
                println!("REGRESSION {name} ({p}) {line}");
            }
            regressions += report.regressions.len();
            let line = format!(
                "{name} ({p}): {}",
                report.describe(cycles, started.elapsed())
            );
            println!("{line}");
            lines.push(line);
        }
    }
    Ok(Outcome { lines, regressions })
}

/// The tests of the skip file: `BINARY TEST REASON...` per line, `#` comments.
pub fn parse_skips(text: &str) -> Result<Vec<Skip>, String> {
    let mut skips = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.splitn(3, char::is_whitespace);
        let (Some(binary), Some(test), Some(reason)) = (words.next(), words.next(), words.next())
        else {
            return Err(format!(
                "line {}: expected `BINARY TEST REASON`, got `{line}`",
                i + 1
            ));
        };
        if reason.trim().is_empty() {
            return Err(format!("line {}: {test} needs a reason", i + 1));
        }
        let (binary, profile) = match binary.split_once('@') {
            Some((binary, profile)) => (
                binary,
                Some(Profile::parse(profile).map_err(|e| format!("line {}: {e}", i + 1))?),
            ),
            None => (binary, None),
        };
        skips.push(Skip {
            binary: binary.to_string(),
            profile,
            test: test.to_string(),
            reason: reason.trim().to_string(),
        });
    }
    Ok(skips)
}

/// The tests that the skip file lists for `binary` (its lines' first word) built
/// with `profile`.
pub(crate) fn skipped_for<'a>(
    skips: &'a [Skip],
    binary: &str,
    profile: Profile,
) -> BTreeSet<&'a str> {
    tests_where(skips, binary, |s| s.profile.is_none_or(|p| p == profile))
}

/// The tests of the skip lines for `binary` that `keep` accepts.
fn tests_where<'a>(
    skips: &'a [Skip],
    binary: &str,
    keep: impl Fn(&Skip) -> bool,
) -> BTreeSet<&'a str> {
    skips
        .iter()
        .filter(|s| s.binary == binary && keep(s))
        .map(|s| s.test.as_str())
        .collect()
}

/// The tests of `binary` not to run on the host either at `profile`: the lines
/// qualified by that profile (`BINARY@PROFILE`).
pub(crate) fn host_skipped_for<'a>(
    skips: &'a [Skip],
    binary: &str,
    profile: Profile,
) -> BTreeSet<&'a str> {
    tests_where(skips, binary, |s| s.profile == Some(profile))
}

pub(crate) fn load_skips(path: &Path) -> Result<Vec<Skip>, String> {
    let text =
        fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse_skips(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// `cargo test --no-run` of the test crates; returns the test executables by binary
/// name (`coretests`, `alloctests`, and `alloctests-lib` for the unit tests of
/// alloctests' library target).
fn build_tests(
    paths: &Paths,
    toolchain: &Toolchain,
    library: &Path,
    vliw: Option<&Layout>,
    profile: Profile,
) -> Result<BTreeMap<String, PathBuf>, String> {
    let mut cmd = toolchain.cargo(library);
    cmd.args(["test", "--no-run"]);
    profile.apply(&mut cmd);
    cmd.args(["--locked", "--offline"])
        .args(["--message-format", "json-render-diagnostics"])
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS");
    for krate in CRATES {
        cmd.args(["-p", krate]);
    }
    // The unit tests of the libraries and the integration tests; not the benches,
    // which `cargo test` would build too (they have `test = true`).
    cmd.args(["--lib", "--test", "*"]);
    match vliw {
        None => {
            cmd.env(
                "CARGO_TARGET_DIR",
                paths.build.join("sysroot").join("tests-host"),
            );
        }
        Some(layout) => {
            cmd.arg("--target")
                .arg(&layout.spec)
                .arg("-Zjson-target-spec")
                .env(
                    "CARGO_TARGET_DIR",
                    paths.build.join("sysroot").join("tests-vliw"),
                )
                .env(
                    "RUSTFLAGS",
                    format!(
                        "-Zcodegen-backend={} --sysroot {} -Clinker={} {}",
                        layout.backend.display(),
                        layout.sysroot.display(),
                        paths.tool("vliw-ld").display(),
                        crate::sysroot::backend_cfg(&layout.backend)?
                    ),
                );
        }
    }
    let messages = crate::sysroot::cargo_messages(&mut cmd, "the library tests")?;
    let exes = test_executables(&messages);
    if exes.is_empty() {
        return Err("cargo built the library tests but reported no test executable".into());
    }
    Ok(exes)
}

/// The test executables of `cargo test --no-run --message-format json...`'s messages
/// by binary name: the target's name, with `-lib` for a library's unit tests.
pub(crate) fn test_executables(messages: &str) -> BTreeMap<String, PathBuf> {
    let mut exes = BTreeMap::new();
    for line in messages.lines() {
        let kinds = json_strings(line, "kind");
        let Some(exe) = json_string(line, "executable") else {
            continue;
        };
        if kinds.is_empty() {
            continue;
        }
        // std is a `["dylib", "rlib"]`.
        let library = kinds.iter().any(|k| {
            matches!(
                k.as_str(),
                "lib" | "rlib" | "dylib" | "cdylib" | "staticlib" | "proc-macro"
            )
        });
        let target = json_string(line, "name").unwrap_or_default();
        let name = if library {
            format!("{target}-lib")
        } else {
            target
        };
        exes.insert(name, PathBuf::from(exe));
    }
    exes
}

/// Runs a host test binary (all tests, in parallel, as cargo test would) and reads
/// its verdicts.
pub(crate) fn run_host(
    exe: &Path,
    skip: &BTreeSet<&str>,
) -> Result<BTreeMap<String, Verdict>, String> {
    let mut cmd = Command::new(exe);
    cmd.env_remove("RUST_BACKTRACE");
    with_default_sigint(&mut cmd);
    if !skip.is_empty() {
        cmd.arg("--exact");
        for test in skip {
            cmd.args(["--skip", test]);
        }
    }
    let out = process::run(&mut cmd, b"", Instant::now() + RUN_TIMEOUT)?;
    if out.timed_out() {
        return Err(format!("{} timed out on the host", exe.display()));
    }
    let (results, _) = parse_results(&String::from_utf8_lossy(&out.stdout));
    if results.is_empty() && !out.success() {
        return Err(format!(
            "{} ran no test on the host ({}):\n{}",
            exe.display(),
            out.describe(),
            out.stderr_text()
        ));
    }
    Ok(results)
}

/// Runs `cmd` with SIGINT's default action. A suite started in the background by a
/// shell (`./y.sh test &`) inherits SIGINT ignored, and so would the test binaries
/// and their children: std's process tests end a child `cat` by sending its process
/// group SIGINT, and would wait for it forever.
fn with_default_sigint(cmd: &mut Command) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        unsafe extern "C" {
            fn signal(signum: i32, handler: usize) -> usize;
        }
        const SIGINT: i32 = 2;
        const SIG_DFL: usize = 0;
        // SAFETY: between fork and exec only `signal` runs, which is async-signal-safe
        // (it is `sigaction`).
        unsafe {
            cmd.pre_exec(|| {
                signal(SIGINT, SIG_DFL);
                Ok(())
            });
        }
    }
}

/// The verdicts of libtest's pretty output (`test NAME ... ok|FAILED|ignored`) and
/// the test that was running when the output ends (`test NAME ... ` with no
/// verdict), if any.
pub(crate) fn parse_results(stdout: &str) -> (BTreeMap<String, Verdict>, Option<String>) {
    let mut results = BTreeMap::new();
    let mut running = None;
    for line in stdout.lines() {
        let Some(rest) = line.strip_prefix("test ") else {
            continue;
        };
        let Some((name, verdict)) = rest.split_once(" ... ") else {
            if let Some(name) = rest.strip_suffix(" ...") {
                running = Some(strip_should_panic(name).to_string());
            }
            continue;
        };
        let name = strip_should_panic(name).to_string();
        let verdict = verdict.trim();
        let verdict = if verdict == "ok" {
            Verdict::Passed
        } else if verdict.starts_with("ignored") {
            Verdict::Ignored
        } else if verdict.is_empty() {
            running = Some(name);
            continue;
        } else {
            Verdict::Failed
        };
        running = None;
        results.insert(name, verdict);
    }
    (results, running)
}

fn strip_should_panic(name: &str) -> &str {
    name.strip_suffix(" - should panic").unwrap_or(name)
}

/// How test binaries run on the simulator (see the module documentation).
pub(crate) struct Simulator<'a> {
    pub(crate) paths: &'a Paths,
    /// Simulators at once.
    pub(crate) jobs: usize,
    /// The cycle limit of one run of a batch (`vliw-run --max-cycles`): a test
    /// that loops forever fails after that.
    pub(crate) max_cycles: u64,
    /// The suite's name, in progress lines.
    pub(crate) suite: &'a str,
    /// Only the tests `sampled` keeps (1: all).
    pub(crate) sample: u64,
    /// Host directories the guest sees (`vliw-run --dir HOST[::GUEST]`).
    pub(crate) dirs: Vec<String>,
}

impl Simulator<'_> {
    /// Lists the binary's tests on the simulator, then runs all that are not
    /// skipped in batches on `jobs` simulators. Returns the verdicts and the
    /// simulated cycles of all runs.
    pub(crate) fn run_tests(
        &self,
        exe: &Path,
        skipped: &BTreeSet<&str>,
    ) -> Result<(BTreeMap<String, Verdict>, u64), String> {
        let list = self.simulate(exe, &["--list".to_string()])?;
        if !list.0.success() {
            return Err(format!(
                "{} --list failed on the simulator ({}):\n{}",
                exe.display(),
                list.0.describe(),
                tail(&list.0.stderr_text(), 20)
            ));
        }
        let names: Vec<String> = String::from_utf8_lossy(&list.0.stdout)
            .lines()
            .filter_map(|l| l.strip_suffix(": test"))
            .filter(|n| !skipped.contains(n) && sampled(n, self.sample))
            .map(str::to_string)
            .collect();
        let batches: Vec<Vec<String>> = names.chunks(BATCH).map(<[String]>::to_vec).collect();
        let total = batches.len();
        let next = Mutex::new(0usize);
        let results = Mutex::new((BTreeMap::new(), list.1, Vec::<String>::new()));
        std::thread::scope(|scope| {
            for _ in 0..self.jobs.max(1) {
                scope.spawn(|| {
                    loop {
                        let index = {
                            let mut n = next.lock().unwrap();
                            let i = *n;
                            *n += 1;
                            i
                        };
                        let Some(batch) = batches.get(index) else {
                            break;
                        };
                        let outcome = self.run_batch(exe, batch);
                        let mut r = results.lock().unwrap();
                        match outcome {
                            Ok((verdicts, cycles)) => {
                                r.0.extend(verdicts);
                                r.1 += cycles;
                            }
                            Err(e) => r.2.push(e),
                        }
                        eprintln!("[{}]   batch {}/{total} done", self.suite, index + 1);
                    }
                });
            }
        });
        let (verdicts, cycles, errors) = results.into_inner().unwrap();
        if let Some(e) = errors.first() {
            return Err(e.clone());
        }
        Ok((verdicts, cycles))
    }

    /// Runs one batch until every test in it has a verdict: a run that ends inside a
    /// test fails that test, and the tests after it run again; a run that reaches
    /// the cycle limit after other tests passed runs the test again first, alone at
    /// the head of the batch.
    fn run_batch(
        &self,
        exe: &Path,
        batch: &[String],
    ) -> Result<(BTreeMap<String, Verdict>, u64), String> {
        let mut verdicts = BTreeMap::new();
        let mut cycles = 0;
        let mut pending: Vec<String> = batch.to_vec();
        while !pending.is_empty() {
            let mut args: Vec<String> = [
                "-Zunstable-options",
                "--force-run-in-process",
                "--test-threads=1",
                "--exact",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect();
            args.extend(pending.iter().cloned());
            let (out, used) = self.simulate(exe, &args)?;
            cycles += used;
            let (results, running) = parse_results(&String::from_utf8_lossy(&out.stdout));
            let progressed = !results.is_empty() || running.is_some();
            // The cycle limit is the run's: when tests before it used part of it, the
            // test that was running gets a run of its own before it is blamed.
            let retry = out.code() == Some(CYCLE_LIMIT_STATUS) && !results.is_empty();
            for (name, verdict) in results {
                verdicts.insert(name, verdict);
            }
            if retry {
                // It is the first pending test now.
            } else if let Some(name) = running {
                eprintln!(
                    "[{}]   {} died in `{name}` ({}): {}",
                    self.suite,
                    exe.file_name().unwrap_or_default().to_string_lossy(),
                    out.describe(),
                    tail(&without_stats(&out.stderr_text()), 3).replace('\n', " | ")
                );
                verdicts.insert(name, Verdict::Failed);
            } else if !out.success() && !progressed {
                return Err(format!(
                    "{} failed on the simulator before running a test ({}):\n{}",
                    exe.display(),
                    out.describe(),
                    tail(&out.stderr_text(), 20)
                ));
            }
            pending.retain(|n| !verdicts.contains_key(n));
            if out.success() || !progressed {
                // Whatever libtest did not report (filtered out) stays without verdict.
                break;
            }
        }
        Ok((verdicts, cycles))
    }

    /// One simulator run with `--stats`; returns the output and the cycles.
    fn simulate(&self, exe: &Path, args: &[String]) -> Result<(process::Output, u64), String> {
        let out = process::run(
            Command::new(self.paths.tool("vliw-run"))
                .arg("--stats")
                .args(self.dirs.iter().flat_map(|d| ["--dir", d]))
                .args(["--max-cycles", &self.max_cycles.to_string()])
                .arg(exe)
                .args(args)
                .env_remove("RUST_BACKTRACE"),
            b"",
            Instant::now() + RUN_TIMEOUT,
        )?;
        let cycles = stats_cycles(&out.stderr_text()).unwrap_or(0);
        Ok((out, cycles))
    }
}

/// Makes `dir` the fresh file system of a test binary's guest and returns its
/// `vliw-run --dir` argument: `dir` at `/` (std's tests use the current directory,
/// which is `/` on hermit), with an empty `tmp` (`env::temp_dir()`), what the
/// binaries before left there removed.
fn guest_root(dir: &Path) -> Result<String, String> {
    if dir.exists() {
        fs::remove_dir_all(dir).map_err(|e| format!("cannot remove {}: {e}", dir.display()))?;
    }
    let tmp = dir.join("tmp");
    fs::create_dir_all(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
    Ok(format!("{}::/", dir.display()))
}

/// A simulated run's stderr without vliw-run's `stats:` line.
fn without_stats(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("stats:"))
        .collect();
    lines.join("\n")
}

/// `cycles=N` of vliw-run's `stats:` line.
fn stats_cycles(stderr: &str) -> Option<u64> {
    let line = stderr.lines().rev().find(|l| l.starts_with("stats:"))?;
    let field = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix("cycles="))?;
    field.parse().ok()
}

/// One binary's (or, summed, one crate's) verdicts on both sides.
#[derive(Clone, Default)]
pub(crate) struct Comparison {
    /// (passed, failed, ignored)
    pub(crate) host: (usize, usize, usize),
    pub(crate) ours: (usize, usize, usize),
    /// Host tests that the skip file lists.
    pub(crate) listed: usize,
    /// Host tests that do not exist in our build (cfg'd out for the target).
    pub(crate) missing: usize,
    /// Host passes that our build ignores: the test itself asks for it on this
    /// target (e.g. `#[cfg_attr(not(panic = "unwind"), ignore)]`).
    pub(crate) ignored_here: usize,
    pub(crate) regressions: Vec<String>,
}

impl Comparison {
    pub(crate) fn add(&mut self, other: Comparison) {
        let sum = |a: &mut (usize, usize, usize), b: (usize, usize, usize)| {
            a.0 += b.0;
            a.1 += b.1;
            a.2 += b.2;
        };
        sum(&mut self.host, other.host);
        sum(&mut self.ours, other.ours);
        self.listed += other.listed;
        self.missing += other.missing;
        self.ignored_here += other.ignored_here;
        self.regressions.extend(other.regressions);
    }

    /// `host P passed/F failed/I ignored; vliw ...; R regressions; cycles, time`.
    pub(crate) fn describe(&self, cycles: u64, elapsed: Duration) -> String {
        format!(
            "host {} passed/{} failed/{} ignored; vliw {} passed/{} failed/{} ignored, \
             {} skipped (listed), {} not built for the target, {} ignored by the tests on \
             the target; {} regressions; {:.1} G simulated cycles, {:.0} s",
            self.host.0,
            self.host.1,
            self.host.2,
            self.ours.0,
            self.ours.1,
            self.ours.2,
            self.listed,
            self.missing,
            self.ignored_here,
            self.regressions.len(),
            cycles as f64 / 1e9,
            elapsed.as_secs_f64()
        )
    }
}

pub(crate) fn compare(
    host: &BTreeMap<String, Verdict>,
    ours: &BTreeMap<String, Verdict>,
    skipped: &BTreeSet<&str>,
) -> Comparison {
    let count = |m: &BTreeMap<String, Verdict>, v: Verdict| m.values().filter(|&&x| x == v).count();
    let mut regressions = Vec::new();
    let mut missing = 0;
    let mut ignored_here = 0;
    for (test, verdict) in host {
        if *verdict != Verdict::Passed || skipped.contains(test.as_str()) {
            continue;
        }
        match ours.get(test) {
            Some(Verdict::Passed) => {}
            Some(Verdict::Ignored) => ignored_here += 1,
            Some(v) => regressions.push(format!("{test}: passes on the host, {v:?} on vliw")),
            None => missing += 1,
        }
    }
    Comparison {
        host: (
            count(host, Verdict::Passed),
            count(host, Verdict::Failed),
            count(host, Verdict::Ignored),
        ),
        ours: (
            count(ours, Verdict::Passed),
            count(ours, Verdict::Failed),
            count(ours, Verdict::Ignored),
        ),
        listed: host.keys().filter(|t| skipped.contains(t.as_str())).count(),
        missing,
        ignored_here,
        regressions,
    }
}

pub(crate) fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_verdicts_and_the_test_that_died() {
        let out = "running 4 tests\n\
                   test a::b ... ok\n\
                   test a::c - should panic ... ok\n\
                   test d ... ignored, slow\n\
                   test e ... FAILED\n\
                   test f ... ";
        let (r, running) = parse_results(out);
        assert_eq!(r["a::b"], Verdict::Passed);
        assert_eq!(r["a::c"], Verdict::Passed);
        assert_eq!(r["d"], Verdict::Ignored);
        assert_eq!(r["e"], Verdict::Failed);
        assert_eq!(running.as_deref(), Some("f"));
        let (_, running) = parse_results("test a ... ok\n\ntest result: ok.");
        assert_eq!(running, None);
    }

    #[test]
    fn the_sample_is_a_stable_fraction() {
        let names: Vec<String> = (0..4000)
            .map(|i| format!("mod{}::test_{i}", i % 7))
            .collect();
        let kept = names.iter().filter(|n| sampled(n, 16)).count();
        assert!((150..350).contains(&kept), "about one in 16: {kept}");
        assert!(names.iter().all(|n| sampled(n, 1)));
        assert_eq!(sampled("a::b", 16), sampled("a::b", 16));
    }

    #[test]
    fn skip_file_needs_a_reason_per_test() {
        let s = parse_skips("# c\ncoretests a::b should_panic: needs unwinding\n").unwrap();
        assert_eq!(
            s,
            vec![Skip {
                binary: "coretests".into(),
                profile: None,
                test: "a::b".into(),
                reason: "should_panic: needs unwinding".into()
            }]
        );
        assert!(parse_skips("coretests a::b\n").is_err());
    }

    #[test]
    fn a_skip_line_may_hold_for_one_profile_and_the_host_too() {
        let s = parse_skips("coretests@debug a::slow forever at opt-level 0\ncoretests a::b x\n")
            .unwrap();
        assert_eq!(s[0].profile, Some(Profile::Debug));
        let ours = |p| {
            skipped_for(&s, "coretests", p)
                .into_iter()
                .collect::<Vec<_>>()
        };
        assert_eq!(ours(Profile::Debug), ["a::b", "a::slow"]);
        assert_eq!(ours(Profile::Release), ["a::b"]);
        let host = |p| {
            host_skipped_for(&s, "coretests", p)
                .into_iter()
                .collect::<Vec<_>>()
        };
        assert_eq!(host(Profile::Debug), ["a::slow"]);
        assert!(host(Profile::Release).is_empty());
        assert!(parse_skips("coretests@fast a::b x\n").is_err());
    }

    #[test]
    fn reads_cargo_json() {
        let line = r#"{"reason":"compiler-artifact","target":{"kind":["test"],"name":"coretests"},"executable":"/x/coretests-12"}"#;
        assert_eq!(
            json_string(line, "executable").as_deref(),
            Some("/x/coretests-12")
        );
        assert_eq!(json_strings(line, "kind"), vec!["test".to_string()]);
        assert_eq!(json_string(line, "name").as_deref(), Some("coretests"));
        let std = r#"{"reason":"compiler-artifact","target":{"kind":["dylib","rlib"],"name":"std"},"executable":"/x/std-3"}"#;
        let exes = test_executables(&format!("{line}\n{std}"));
        assert_eq!(exes.keys().collect::<Vec<_>>(), ["coretests", "std-lib"]);
    }

    #[test]
    fn regressions_are_host_passes_that_do_not_pass_here() {
        let host: BTreeMap<String, Verdict> = [
            ("a".to_string(), Verdict::Passed),
            ("b".to_string(), Verdict::Passed),
            ("c".to_string(), Verdict::Failed),
            ("d".to_string(), Verdict::Passed),
            ("e".to_string(), Verdict::Passed),
            ("f".to_string(), Verdict::Passed),
        ]
        .into();
        let ours: BTreeMap<String, Verdict> = [
            ("a".to_string(), Verdict::Passed),
            ("b".to_string(), Verdict::Failed),
            ("c".to_string(), Verdict::Failed),
            ("f".to_string(), Verdict::Ignored),
        ]
        .into();
        let skipped: BTreeSet<&str> = ["d"].into();
        let c = compare(&host, &ours, &skipped);
        assert_eq!(c.regressions.len(), 1);
        assert!(c.regressions[0].starts_with("b:"));
        assert_eq!(c.missing, 1, "e is not in our build");
        assert_eq!(c.ignored_here, 1, "f ignores itself on the target");
        assert_eq!(c.listed, 1);
    }
}
