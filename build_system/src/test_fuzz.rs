//! The `fuzz` and `fuzz_sample` suites: the rustlantis corpus (random UB-free,
//! deterministic custom-MIR programs, each printing one line `hash: N`) in
//! `../shared/fuzz/rustlantis` beside the repository (its README.md), compiled by
//! `dist/rustc-vliw --edition 2021 -Cllvm-args=verify=each` (the IR verified after
//! every pass) at every level of `OPT_LEVELS` and run on the simulator with a cycle
//! limit. Stdout must equal the program's `.expected` file
//! (the LLVM host build's stdout, made when the corpus was generated: never our own
//! output) and the exit code must be 0.
//!
//! `fuzz` runs every program, `fuzz_sample` (CI) a fixed deterministic sample of
//! `CI_SAMPLE` of them (`sample`). `--all-configs` adds, per opt level, one build with
//! each optional pass switched from its default in turn (off, or on for a pass that
//! is off by default); the passes, their defaults and the options that switch them
//! come from `dist/rustc-vliw -Cllvm-args=passes`, so a new pass joins by itself.
//!
//! A program and configuration listed in `tests/fuzz/known-failures.txt` (with the
//! kind of failure and the reason) still runs: failing as listed, it counts as a
//! known failure, neither passed nor failed; failing otherwise or passing, it fails,
//! and a passing one asks for its line to be removed.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::bench_programs::{Pass, query_passes};
use crate::differential::{COMPILE_TIMEOUT, Commands, Rustc, mkdir, run_parallel};
use crate::paths::Paths;
use crate::process::{self, Output};
use crate::report::{quote, tail};
use crate::test_target::Failure;
use crate::toolchain::Toolchain;

/// The corpus, relative to the repository root (in CI: a fresh clone with `shared/`
/// beside it).
pub const CORPUS: &str = "../shared/fuzz/rustlantis";
/// Programs and configurations known to fail, with the reason.
pub const KNOWN_FAILURES: &str = "tests/fuzz/known-failures.txt";
/// The opt levels every program is built at.
const OPT_LEVELS: [&str; 2] = ["3", "0"];
/// Programs of CI's sample (`fuzz_sample`), two fifths of the corpus. Each build now
/// takes seconds (the RVSDG optimizer, `verify=each`: 3.7 s for rl_5003 at -O3 on
/// 2026-12-01, against about 0.4 s on 2026-11-23, when 150 programs at both levels
/// took 2 min 11 s on 2 idle cores), and 150 took 21 min beside other work: 80 keep
/// the suite near 10 minutes. `./y.sh test fuzz` runs all 200.
pub const CI_SAMPLE: usize = 80;
/// The simulator's cycle limit: a miscompiled infinite loop fails (exit 143) instead
/// of hanging the suite. The corpus's programs take at most 0.8 M cycles with every
/// pass (rl_5034 at O0, 2026-11-23; the suite prints the largest count seen).
const MAX_CYCLES: u64 = 100_000_000;
/// One simulated run; MAX_CYCLES normally ends a runaway program first.
const RUN_TIMEOUT: Duration = Duration::from_secs(300);
const THREADS: usize = 2;
const STDERR_TAIL: usize = 15;

/// What `./y.sh test fuzz ...` selects.
#[derive(Default, Clone, Debug)]
pub struct Options {
    /// `--sample N`: a sample of N programs instead of the suite's default.
    pub sample: Option<usize>,
    /// `--program NAME` (repeatable): only these programs.
    pub programs: Vec<String>,
    /// `--all-configs`: also each optional pass switched from its default in turn (off, or on when off by default).
    pub all_configs: bool,
    /// `--config KEY` (repeatable): only these configurations of the `--all-configs`
    /// list (`O0`, `O3,rvsdg-ivr=off`), so that the whole set can be run in parts.
    pub configs: Vec<String>,
}

/// One way to build a program: an opt level and the backend options switching passes
/// from their defaults.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Config {
    pub opt: String,
    /// `-Cllvm-args` words such as `mem2reg=off` (or `rvsdg-mem-split=on` for a pass
    /// that is off by default).
    pub switches: Vec<String>,
}

impl Config {
    /// `O3`, or `O3,mem2reg=off`: the configuration's name in reports and in the
    /// known-failure list.
    pub fn key(&self) -> String {
        let mut key = format!("O{}", self.opt);
        for o in &self.switches {
            key.push(',');
            key.push_str(o);
        }
        key
    }

    /// A name usable as a directory.
    fn slug(&self) -> String {
        self.key().replace([',', '='], "-")
    }

    /// The backend options switching this configuration's passes off, one
    /// `-Cllvm-args` value (words separated by spaces), if any.
    fn llvm_args(&self) -> Option<String> {
        (!self.switches.is_empty()).then(|| self.switches.join(" "))
    }
}

impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// The configurations: every opt level with all passes, then (with `all`) every opt
/// level with each optional pass switched from its default in turn.
pub fn configs(passes: &[Pass], all: bool) -> Vec<Config> {
    let mut configs: Vec<Config> = OPT_LEVELS
        .iter()
        .map(|opt| Config {
            opt: opt.to_string(),
            switches: Vec::new(),
        })
        .collect();
    if all {
        for opt in OPT_LEVELS {
            for (i, pass) in passes.iter().enumerate() {
                // Two passes behind one switch are one configuration.
                if passes[..i].iter().any(|p| p.flip() == pass.flip()) {
                    continue;
                }
                configs.push(Config {
                    opt: opt.to_string(),
                    switches: vec![pass.flip().to_string()],
                });
            }
        }
    }
    configs
}

/// The configurations named by `--config` (all of `all` when none is), in the order of
/// `all`, then the others named: an opt level and backend options (`O3,KEY=VALUE,...`,
/// options that are not switches, such as `speculate-loads=on`; the backend refuses an
/// unknown one). An error names a key that is neither.
pub fn select_configs(all: Vec<Config>, wanted: &[String]) -> Result<Vec<Config>, String> {
    if wanted.is_empty() {
        return Ok(all);
    }
    let mut extra = Vec::new();
    for key in wanted {
        if all.iter().any(|c| &c.key() == key) {
            continue;
        }
        let mut parts = key.split(',');
        let opt = parts.next().and_then(|o| o.strip_prefix('O'));
        let options: Vec<String> = parts.map(str::to_string).collect();
        match opt {
            Some(opt)
                if OPT_LEVELS.contains(&opt)
                    && !options.is_empty()
                    && options.iter().all(|o| o.contains('=') && !o.contains(' ')) =>
            {
                extra.push(Config {
                    opt: opt.to_string(),
                    switches: options,
                });
            }
            _ => {
                return Err(format!(
                    "--config {key}: no such configuration (known: {}; or                      O3|O0,KEY=VALUE,... with backend options)",
                    all.iter().map(Config::key).collect::<Vec<_>>().join(" ")
                ));
            }
        }
    }
    let mut chosen: Vec<Config> = all
        .into_iter()
        .filter(|c| wanted.contains(&c.key()))
        .collect();
    chosen.extend(extra);
    Ok(chosen)
}

/// The deterministic sample: the `n` names with the smallest FNV-1a hash, so that
/// adding programs to the corpus changes it little; returned in name order.
pub fn sample<'a>(names: &[&'a str], n: usize) -> Vec<&'a str> {
    let mut by_hash: Vec<&str> = names.to_vec();
    by_hash.sort_by_key(|name| (crate::sysroot::fnv1a(name.as_bytes()), *name));
    by_hash.truncate(n);
    by_hash.sort();
    by_hash
}

/// The first line where `got` differs from `expected`: (1-based line number, expected
/// line, actual line); a missing line is `None`. `None` when they are equal.
pub fn first_difference(
    expected: &[u8],
    got: &[u8],
) -> Option<(usize, Option<String>, Option<String>)> {
    if expected == got {
        return None;
    }
    let split = |text: &[u8]| -> Vec<String> {
        // Lines with their terminator, so that a missing final newline shows.
        let mut lines = Vec::new();
        let mut start = 0;
        for (i, &b) in text.iter().enumerate() {
            if b == b'\n' {
                lines.push(String::from_utf8_lossy(&text[start..=i]).into_owned());
                start = i + 1;
            }
        }
        if start < text.len() {
            lines.push(String::from_utf8_lossy(&text[start..]).into_owned());
        }
        lines
    };
    let (e, g) = (split(expected), split(got));
    let at = (0..e.len().max(g.len()))
        .find(|&i| e.get(i) != g.get(i))
        .expect("different texts differ in a line");
    Some((at + 1, e.get(at).cloned(), g.get(at).cloned()))
}

/// How a test failed; the known-failure list names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The compiler rejected the program (an unsupported feature: the error must name it).
    CompileError,
    /// The compiler panicked, crashed or timed out: a bug.
    CompilerCrash,
    /// The program exited with a code other than 0, faulted or hit the cycle limit.
    RunFault,
    /// It ran to its end but printed another hash: a miscompilation.
    WrongOutput,
}

impl Kind {
    const ALL: [Kind; 4] = [
        Kind::CompileError,
        Kind::CompilerCrash,
        Kind::RunFault,
        Kind::WrongOutput,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::CompileError => "compile-error",
            Kind::CompilerCrash => "compiler-crash",
            Kind::RunFault => "run-fault",
            Kind::WrongOutput => "wrong-output",
        }
    }
}

/// One line of the known-failure list: `PROGRAM CONFIG KIND REASON...`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Known {
    pub program: String,
    /// `Config::key`.
    pub config: String,
    pub kind: Kind,
    pub reason: String,
}

pub fn parse_known_failures(text: &str) -> Result<Vec<Known>, String> {
    let mut known: Vec<Known> = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.split_whitespace();
        let (Some(program), Some(config), Some(kind)) = (words.next(), words.next(), words.next())
        else {
            return Err(format!(
                "line {}: expected PROGRAM CONFIG KIND REASON",
                index + 1
            ));
        };
        let reason = words.collect::<Vec<_>>().join(" ");
        if reason.is_empty() {
            return Err(format!(
                "line {}: `{program} {config}` needs a reason",
                index + 1
            ));
        }
        let kind = Kind::ALL
            .into_iter()
            .find(|k| k.name() == kind)
            .ok_or_else(|| {
                let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
                format!(
                    "line {}: unknown kind `{kind}` (kinds: {})",
                    index + 1,
                    names.join(", ")
                )
            })?;
        if !config.starts_with('O') {
            return Err(format!(
                "line {}: `{config}` is not a configuration (O3, O0, O3,mem2reg=off, ...)",
                index + 1
            ));
        }
        if known
            .iter()
            .any(|k| k.program == program && k.config == config)
        {
            return Err(format!(
                "line {}: `{program} {config}` listed twice",
                index + 1
            ));
        }
        known.push(Known {
            program: program.into(),
            config: config.into(),
            kind,
            reason,
        });
    }
    Ok(known)
}

/// A test's failure: its kind, and the message with details.
struct Failed {
    kind: Kind,
    failure: Failure,
}

impl Failed {
    fn new(kind: Kind, failure: Failure) -> Failed {
        Failed { kind, failure }
    }
}

/// The result of one test, with its measurements.
struct Done {
    program: String,
    config: Config,
    result: Result<(), Failed>,
    compile: Option<Duration>,
    run: Option<Duration>,
    cycles: Option<u64>,
}

/// What the suite counts, per configuration and in all.
#[derive(Default, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    pub passed: usize,
    pub failed: usize,
    /// Failed as the known-failure list says.
    pub known: usize,
}

impl fmt::Display for Counts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} passed, {} failed", self.passed, self.failed)?;
        if self.known > 0 {
            write!(f, ", {} known failures", self.known)?;
        }
        Ok(())
    }
}

pub struct Outcome {
    pub total: Counts,
    /// One line per configuration and the timings, for the suite's summary.
    pub summary: String,
}

/// Names another corpus directory (same layout), for trying the suite on edited or
/// reduced programs.
pub const CORPUS_ENV: &str = "VLIW_FUZZ_CORPUS";

/// The corpus's directory, or a message saying where it should be.
pub fn corpus(paths: &Paths) -> Result<PathBuf, String> {
    let (dir, named) = match std::env::var_os(CORPUS_ENV) {
        Some(dir) if !dir.is_empty() => (paths.user_path(&dir.to_string_lossy()), CORPUS_ENV),
        _ => (paths.root.join(CORPUS), CORPUS),
    };
    if !dir.is_dir() {
        return Err(format!(
            "the rustlantis corpus is missing: expected {named} (rl_SEED.rs and \
             rl_SEED.expected, with MANIFEST.tsv and README.md) relative to the repository \
             root, i.e. {}; it lives in the shared directory beside the repository",
            dir.display()
        ));
    }
    Ok(dir)
}

/// The corpus's programs: `rl_*.rs`, by name.
fn discover(dir: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    let programs: Vec<(String, PathBuf)> = crate::differential::rust_programs(dir)?
        .into_iter()
        .filter(|(name, _)| name.starts_with("rl_"))
        .collect();
    if programs.is_empty() {
        return Err(format!("no rl_*.rs programs in {}", dir.display()));
    }
    Ok(programs)
}

/// The programs to run: those named by `--program`, else a sample of `--sample N`
/// or of `default_sample` (`None`: all).
fn select<'a>(
    names: &[&'a str],
    options: &Options,
    default_sample: Option<usize>,
) -> Result<Vec<&'a str>, String> {
    if !options.programs.is_empty() {
        let mut chosen = Vec::new();
        for wanted in &options.programs {
            let Some(name) = names.iter().find(|n| *n == wanted) else {
                return Err(format!(
                    "--program {wanted}: no such program in the corpus ({} to {})",
                    names.first().unwrap_or(&""),
                    names.last().unwrap_or(&"")
                ));
            };
            if !chosen.contains(name) {
                chosen.push(*name);
            }
        }
        return Ok(chosen);
    }
    Ok(match options.sample.or(default_sample) {
        Some(n) => sample(names, n),
        None => names.to_vec(),
    })
}

struct Suite<'a> {
    paths: &'a Paths,
    cmds: Commands,
    rustc_vliw: PathBuf,
    work: PathBuf,
}

/// Runs the suite: `default_sample` programs (`None`: all) unless the options say
/// otherwise. Prints `ok`/`FAILED`/`known failure` per test, the summary, and returns
/// the counts.
pub fn run(
    paths: &Paths,
    toolchain: &Toolchain,
    options: &Options,
    default_sample: Option<usize>,
) -> Result<Outcome, String> {
    let dir = corpus(paths)?;
    let programs = discover(&dir)?;
    let names: Vec<&str> = programs.iter().map(|(n, _)| n.as_str()).collect();
    let chosen = select(&names, options, default_sample)?;
    let known_path = paths.root.join(KNOWN_FAILURES);
    let known = fs::read_to_string(&known_path)
        .map_err(|e| format!("cannot read {KNOWN_FAILURES}: {e}"))
        .and_then(|t| parse_known_failures(&t).map_err(|e| format!("{KNOWN_FAILURES}: {e}")))?;
    // (Another corpus, VLIW_FUZZ_CORPUS, may hold a few programs only.)
    let default_corpus = std::env::var_os(CORPUS_ENV).is_none_or(|d| d.is_empty());
    if let Some(k) = known
        .iter()
        .find(|k| default_corpus && !names.contains(&k.program.as_str()))
    {
        return Err(format!(
            "{KNOWN_FAILURES} lists {} ({}), which is not in the corpus: remove its line",
            k.program, k.config
        ));
    }
    let rustc_vliw = paths.tool(crate::test_programs::RUSTC_VLIW);
    if !rustc_vliw.is_file() {
        return Err(format!(
            "{} does not exist: run ./y.sh build",
            paths.show(&rustc_vliw)
        ));
    }
    // a configuration named by --config may be any of the --all-configs list
    let all_configs = options.all_configs || !options.configs.is_empty();
    let passes = if all_configs {
        query_passes(paths)?
    } else {
        Vec::new()
    };
    let configs = select_configs(configs(&passes, all_configs), &options.configs)?;
    let suite = Suite {
        paths,
        cmds: Commands {
            root: paths.root.clone(),
            rustc: Rustc::locate(toolchain)?,
        },
        rustc_vliw,
        work: paths.build.join("test").join("fuzz"),
    };
    let _ = fs::remove_dir_all(&suite.work);
    eprintln!(
        "[test] fuzz: {} of {} programs of {}, {} configurations ({})",
        chosen.len(),
        names.len(),
        paths.show(&dir),
        configs.len(),
        configs
            .iter()
            .map(Config::key)
            .collect::<Vec<_>>()
            .join(" ")
    );

    let mut jobs: Vec<(&str, &Path, &Config)> = Vec::new();
    for config in &configs {
        for name in &chosen {
            let path = &programs.iter().find(|(n, _)| n == name).expect("chosen").1;
            jobs.push((name, path.as_path(), config));
        }
    }
    let started = Instant::now();
    let mut done: Vec<Done> = Vec::new();
    let mut per_config: BTreeMap<String, Counts> = BTreeMap::new();
    let mut total = Counts::default();
    let mut fixed = Vec::new();
    run_parallel(
        &jobs,
        THREADS,
        |&(name, source, config)| suite.test(name, source, config),
        |d| {
            let key = d.config.key();
            let listed = known
                .iter()
                .find(|k| k.program == d.program && k.config == key);
            let counts = per_config.entry(key.clone()).or_default();
            let label = format!("{} ({key})", d.program);
            match (&d.result, listed) {
                (Ok(()), None) => {
                    counts.passed += 1;
                    println!("ok {label}");
                }
                (Ok(()), Some(k)) => {
                    counts.failed += 1;
                    fixed.push(label.clone());
                    println!(
                        "FAILED {label}: passes, but {KNOWN_FAILURES} lists it as a known \
                         {} ({}): remove its line",
                        k.kind.name(),
                        k.reason
                    );
                }
                (Err(f), Some(k)) if f.kind == k.kind => {
                    counts.known += 1;
                    println!(
                        "known failure {label}: {} ({}): {}",
                        k.kind.name(),
                        k.reason,
                        f.failure.reason
                    );
                }
                (Err(f), listed) => {
                    counts.failed += 1;
                    let also = match listed {
                        Some(k) => format!(
                            " (listed as a known {}, but it is a {} now)",
                            k.kind.name(),
                            f.kind.name()
                        ),
                        None => String::new(),
                    };
                    println!(
                        "FAILED {label}: {}: {}{also}",
                        f.kind.name(),
                        f.failure.reason
                    );
                    for line in &f.failure.details {
                        println!("    {line}");
                    }
                }
            }
            done.push(d);
        },
    );
    for c in per_config.values() {
        total.passed += c.passed;
        total.failed += c.failed;
        total.known += c.known;
    }
    let elapsed = started.elapsed();

    let mut summary = Vec::new();
    for config in &configs {
        let c = per_config.get(&config.key()).copied().unwrap_or_default();
        summary.push(format!("{}: {c}", config.key()));
    }
    let timing = timings(&done, elapsed);
    println!("fuzz: {} programs; {}", chosen.len(), summary.join("; "));
    for line in &timing {
        println!("fuzz: {line}");
    }
    if !fixed.is_empty() {
        println!(
            "fuzz: {} known failures now pass, remove their lines from {KNOWN_FAILURES}: {}",
            fixed.len(),
            fixed.join(", ")
        );
    }
    println!("{total}");
    let _ = fs::write(suite.work.join("times.tsv"), times_tsv(&done));
    Ok(Outcome {
        total,
        summary: format!("{} programs; {}", chosen.len(), summary.join("; ")),
    })
}

/// The measurements of the run: mean and largest compile and run times per opt level,
/// the largest cycle count.
fn timings(done: &[Done], elapsed: Duration) -> Vec<String> {
    let mut lines = vec![format!(
        "{} tests in {:.0} s on {THREADS} threads (per test times below are wall times \
         while {THREADS} tests run at once)",
        done.len(),
        elapsed.as_secs_f64()
    )];
    for opt in OPT_LEVELS {
        let at: Vec<&Done> = done.iter().filter(|d| d.config.opt == opt).collect();
        let stat = |what: &str, f: &dyn Fn(&Done) -> Option<Duration>| -> Option<String> {
            let times: Vec<(Duration, &str)> = at
                .iter()
                .filter_map(|d| f(d).map(|t| (t, d.program.as_str())))
                .collect();
            let (max, which) = times.iter().max()?;
            let mean = times.iter().map(|(t, _)| t.as_secs_f64()).sum::<f64>() / times.len() as f64;
            Some(format!(
                "{what} mean {mean:.1} s, max {:.1} s ({which})",
                max.as_secs_f64()
            ))
        };
        let mut parts: Vec<String> = Vec::new();
        parts.extend(stat("compile", &|d| d.compile));
        parts.extend(stat("run", &|d| d.run));
        if let Some((cycles, which)) = at
            .iter()
            .filter_map(|d| d.cycles.map(|c| (c, d.program.as_str())))
            .max()
        {
            parts.push(format!("most cycles {cycles} ({which})"));
        }
        if !parts.is_empty() {
            let builds = if at.iter().any(|d| !d.config.switches.is_empty()) {
                " (every configuration)"
            } else {
                ""
            };
            lines.push(format!("O{opt}{builds}: {}", parts.join(", ")));
        }
    }
    lines
}

fn times_tsv(done: &[Done]) -> String {
    let mut text = String::from("program\tconfig\tcompile_s\trun_s\tcycles\tresult\n");
    let secs = |t: Option<Duration>| t.map_or("-".into(), |t| format!("{:.2}", t.as_secs_f64()));
    for d in done {
        text.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\n",
            d.program,
            d.config.key(),
            secs(d.compile),
            secs(d.run),
            d.cycles.map_or("-".into(), |c| c.to_string()),
            match &d.result {
                Ok(()) => "ok",
                Err(f) => f.kind.name(),
            }
        ));
    }
    text
}

/// The cycle count of `vliw-run --stats` (the last line of stderr).
fn cycles(stderr: &[u8]) -> Option<u64> {
    let text = String::from_utf8_lossy(stderr);
    let line = text.lines().rev().find(|l| l.starts_with("stats: "))?;
    line.split_whitespace()
        .find_map(|w| w.strip_prefix("cycles="))
        .and_then(|n| n.parse().ok())
}

/// Classifies a failed compilation: the compiler's own crash (panic, ICE, signal,
/// timeout) or an error it reported.
fn compile_failure(out: &Output) -> Kind {
    let ice = process::contains(&out.stderr, b"internal compiler error")
        || process::contains(&out.stderr, b"panicked");
    if out.timed_out() || out.code().is_none() || ice {
        Kind::CompilerCrash
    } else {
        Kind::CompileError
    }
}

impl Suite<'_> {
    fn test(&self, name: &str, source: &Path, config: &Config) -> Done {
        let mut done = Done {
            program: name.to_string(),
            config: config.clone(),
            result: Ok(()),
            compile: None,
            run: None,
            cycles: None,
        };
        done.result = self.test_inner(name, source, config, &mut done);
        done
    }

    fn test_inner(
        &self,
        name: &str,
        source: &Path,
        config: &Config,
        done: &mut Done,
    ) -> Result<(), Failed> {
        let setup = |e: String| Failed::new(Kind::CompileError, Failure::new(e));
        let expected_path = source.with_extension("expected");
        let expected = fs::read(&expected_path).map_err(|e| {
            setup(format!(
                "cannot read the expectation {}: {e}",
                expected_path.display()
            ))
        })?;
        let dir = self.work.join(config.slug()).join(name);
        mkdir(&dir).map_err(|f| Failed::new(Kind::CompileError, f))?;
        let exe = dir.join(name);

        let mut compile = Command::new(&self.rustc_vliw);
        compile
            .current_dir(&self.paths.root)
            .env("RUSTC_ICE", &dir)
            .args(["--edition", "2021"])
            // The programs warn about internal features and `static mut` references
            // by the dozen; without them the tail of a failure shows its error.
            .arg("-Awarnings")
            .arg(format!("-Copt-level={}", config.opt));
        // The IR verified after every pass, as in the other differential suites.
        compile.arg(crate::differential::VERIFY_EACH);
        if let Some(args) = config.llvm_args() {
            compile.arg(format!("-Cllvm-args={args}"));
        }
        compile
            .arg(self.paths.show(source))
            .arg("-o")
            .arg(self.paths.show(&exe));
        let mut run = Command::new(self.paths.tool("vliw-run"));
        run.args(["--stats", "--max-cycles", &MAX_CYCLES.to_string()])
            .arg(self.paths.show(&exe))
            .current_dir(&self.paths.root);
        self.cmds
            .record(&dir.join("commands.txt"), &[&compile, &run]);
        let commands = [
            format!(
                "commands (from the repository root): {}",
                self.cmds.show(&compile)
            ),
            format!("  {}", self.cmds.show(&run)),
        ];

        let start = Instant::now();
        let out = process::run(&mut compile, b"", Instant::now() + COMPILE_TIMEOUT)
            .map_err(|e| Failed::new(Kind::CompileError, Failure::new(e)))?;
        done.compile = Some(start.elapsed());
        if !out.success() || !exe.is_file() {
            let kind = compile_failure(&out);
            let what = if out.timed_out() {
                format!("timed out after {} s", COMPILE_TIMEOUT.as_secs())
            } else if out.success() {
                "succeeded but wrote no executable".to_string()
            } else {
                out.describe()
            };
            let mut details = vec!["compiler stderr (tail):".to_string()];
            details.extend(
                tail(&out.stderr, STDERR_TAIL)
                    .into_iter()
                    .map(|l| format!("  {l}")),
            );
            details.extend(commands.clone());
            return Err(Failed::new(
                kind,
                Failure::new(format!("rustc-vliw {what}")).with(details),
            ));
        }

        let start = Instant::now();
        let out = process::run(&mut run, b"", Instant::now() + RUN_TIMEOUT)
            .map_err(|e| Failed::new(Kind::RunFault, Failure::new(e)))?;
        done.run = Some(start.elapsed());
        done.cycles = cycles(&out.stderr);
        let mut reasons = Vec::new();
        let mut details = Vec::new();
        let kind = if out.code() != Some(0) {
            reasons.push(if out.timed_out() {
                format!("vliw-run killed after {} s", RUN_TIMEOUT.as_secs())
            } else {
                format!("vliw-run: {}, expected exit code 0", out.describe())
            });
            details.push("vliw-run stderr (tail):".to_string());
            details.extend(
                tail(&out.stderr, STDERR_TAIL)
                    .into_iter()
                    .map(|l| format!("  {l}")),
            );
            Kind::RunFault
        } else {
            Kind::WrongOutput
        };
        if let Some((line, want, got)) = first_difference(&expected, &out.stdout) {
            let show = |l: Option<String>| l.map_or("(no line)".into(), |l| quote(l.as_bytes()));
            reasons.push(format!(
                "stdout differs from {}",
                paths_name(&expected_path)
            ));
            details.push(format!("first difference at stdout line {line}:"));
            details.push(format!("  expected: {}", show(want)));
            details.push(format!("  got:      {}", show(got)));
        }
        if reasons.is_empty() {
            // Passed: the executable is not needed any more (the corpus is large).
            let _ = fs::remove_file(&exe);
            return Ok(());
        }
        details.extend(commands.clone());
        Err(Failed::new(
            kind,
            Failure::new(reasons.join("; ")).with(details),
        ))
    }
}

fn paths_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pass(name: &str) -> Pass {
        Pass {
            name: name.into(),
            off: format!("{name}=off"),
            on: format!("{name}=on"),
            default_on: true,
            about: String::new(),
        }
    }

    #[test]
    fn samples_deterministically() {
        let names: Vec<String> = (5000..5200).map(|s| format!("rl_{s}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let a = sample(&names, 24);
        assert_eq!(a.len(), 24);
        assert_eq!(a, sample(&names, 24), "the same every time");
        assert!(
            a.windows(2).all(|w| w[0] < w[1]),
            "in name order, no repeats"
        );
        // Independent of the order given, and a larger sample contains a smaller one.
        let mut reversed = names.clone();
        reversed.reverse();
        assert_eq!(sample(&reversed, 24), a);
        let b = sample(&names, 30);
        assert!(a.iter().all(|n| b.contains(n)));
        // Adding a program changes at most one member.
        let mut more = names.clone();
        more.push("rl_9999");
        let c = sample(&more, 24);
        assert!(c.iter().filter(|n| !a.contains(n)).count() <= 1);
        // Not simply the first ones.
        assert_ne!(a, names[..24].to_vec());
        assert_eq!(sample(&names, 500).len(), 200);
        assert!(sample(&names, 0).is_empty());
    }

    #[test]
    fn selects_named_programs_or_a_sample() {
        let names = ["rl_1", "rl_2", "rl_3"];
        let named = Options {
            programs: vec!["rl_3".into(), "rl_1".into(), "rl_3".into()],
            ..Options::default()
        };
        assert_eq!(select(&names, &named, Some(1)).unwrap(), ["rl_3", "rl_1"]);
        let missing = Options {
            programs: vec!["rl_4".into()],
            ..Options::default()
        };
        assert!(
            select(&names, &missing, None)
                .unwrap_err()
                .contains("no such program")
        );
        assert_eq!(select(&names, &Options::default(), None).unwrap(), names);
        assert_eq!(
            select(&names, &Options::default(), Some(2)).unwrap().len(),
            2
        );
        let two = Options {
            sample: Some(2),
            ..Options::default()
        };
        assert_eq!(select(&names, &two, None).unwrap().len(), 2);
    }

    #[test]
    fn finds_the_first_difference() {
        assert_eq!(first_difference(b"hash: 1\n", b"hash: 1\n"), None);
        assert_eq!(
            first_difference(b"hash: 1\n", b"hash: 2\n"),
            Some((1, Some("hash: 1\n".into()), Some("hash: 2\n".into())))
        );
        assert_eq!(
            first_difference(b"a\nb\nc\n", b"a\nb\nX\nd\n"),
            Some((3, Some("c\n".into()), Some("X\n".into())))
        );
        // Nothing printed, or more printed, or a missing final newline.
        assert_eq!(
            first_difference(b"hash: 1\n", b""),
            Some((1, Some("hash: 1\n".into()), None))
        );
        assert_eq!(
            first_difference(b"a\n", b"a\nb\n"),
            Some((2, None, Some("b\n".into())))
        );
        assert_eq!(
            first_difference(b"a\n", b"a"),
            Some((1, Some("a\n".into()), Some("a".into())))
        );
    }

    #[test]
    fn configurations_are_selected_by_key() {
        let all = configs(&[pass("mem2reg"), pass("sched")], true);
        let keys = |cs: Vec<Config>| -> Vec<String> { cs.iter().map(Config::key).collect() };
        assert_eq!(keys(select_configs(all.clone(), &[]).unwrap()).len(), 6);
        let wanted = vec!["O0,sched=off".to_string(), "O3".to_string()];
        assert_eq!(
            keys(select_configs(all.clone(), &wanted).unwrap()),
            ["O3", "O0,sched=off"]
        );
        let error = select_configs(all.clone(), &["O2".to_string()]).unwrap_err();
        assert!(
            error.contains("--config O2") && error.contains("O3,mem2reg=off"),
            "{error}"
        );
        // options that are not switches make a configuration of their own
        let wanted = vec!["O3,speculate-loads=on,pcp=off".to_string()];
        let chosen = select_configs(all.clone(), &wanted).unwrap();
        assert_eq!(keys(chosen.clone()), ["O3,speculate-loads=on,pcp=off"]);
        assert_eq!(chosen[0].llvm_args().unwrap(), "speculate-loads=on pcp=off");
        assert!(select_configs(all.clone(), &["O3,nonsense".to_string()]).is_err());
        assert!(select_configs(all, &["O2,pcp=off".to_string()]).is_err());
    }

    #[test]
    fn configurations_come_from_the_pass_list() {
        let keys = |cs: Vec<Config>| -> Vec<String> { cs.iter().map(Config::key).collect() };
        let passes = vec![pass("mem2reg"), pass("sched")];
        assert_eq!(keys(configs(&passes, false)), ["O3", "O0"]);
        assert_eq!(
            keys(configs(&passes, true)),
            [
                "O3",
                "O0",
                "O3,mem2reg=off",
                "O3,sched=off",
                "O0,mem2reg=off",
                "O0,sched=off"
            ]
        );
        assert_eq!(keys(configs(&[], true)), ["O3", "O0"]);
        let shared = vec![pass("a"), pass("a")];
        assert_eq!(
            keys(configs(&shared, true)),
            ["O3", "O0", "O3,a=off", "O0,a=off"]
        );
        let c = &configs(&passes, true)[2];
        assert_eq!(c.slug(), "O3-mem2reg-off");
        assert_eq!(c.llvm_args().unwrap(), "mem2reg=off");
        assert_eq!(configs(&passes, false)[0].llvm_args(), None);
        // The pass list as the backend prints it.
        let listed = crate::bench_programs::parse_passes(
            "mem2reg\tir->ir\tmem2reg\tmem2reg=off\tmem2reg=on\ton\tSSA\n\
             frame\tallocated->allocated\t-\t-\t-\t-\tframe layout\n\
             split\trvsdg->rvsdg\tsplit\tsplit=off\tsplit=on\toff\tnew, off by default\n\
             ssa-regalloc\tmachine-ssa->allocated\tssa-regalloc\tregalloc=naive\tregalloc=ssa\ton\tcolouring\n",
        )
        .unwrap();
        assert_eq!(
            keys(configs(&listed, true))[2..],
            [
                "O3,mem2reg=off",
                "O3,split=on",
                "O3,regalloc=naive",
                "O0,mem2reg=off",
                "O0,split=on",
                "O0,regalloc=naive"
            ]
        );
    }

    #[test]
    fn parses_the_known_failures() {
        let known = parse_known_failures(
            "# comment\n\nrl_5003 O3 wrong-output mem2reg drops a store\n\
             rl_5003 O0,sched=off compile-error   i128 division\n",
        )
        .unwrap();
        assert_eq!(known.len(), 2);
        assert_eq!(known[0].kind, Kind::WrongOutput);
        assert_eq!(known[0].reason, "mem2reg drops a store");
        assert_eq!(known[1].config, "O0,sched=off");
        assert_eq!(known[1].reason, "i128 division");
        for (bad, message) in [
            ("rl_1 O3\n", "expected"),
            ("rl_1 O3 wrong-output\n", "needs a reason"),
            ("rl_1 O3 wrong-hash why\n", "unknown kind"),
            ("rl_1 3 wrong-output why\n", "not a configuration"),
            ("rl_1 O3 run-fault a\nrl_1 O3 run-fault b\n", "twice"),
        ] {
            let e = parse_known_failures(bad).unwrap_err();
            assert!(e.contains(message), "{bad:?}: {e}");
        }
    }

    #[test]
    fn reads_the_cycle_count_and_classifies_compile_failures() {
        assert_eq!(cycles(b"x\nstats: cycles=123 bundles=4 ops=5\n"), Some(123));
        assert_eq!(cycles(b"no stats\n"), None);
        let out = crate::differential::tests::output;
        assert_eq!(
            compile_failure(&out(1, b"", b"error: unsupported: f128 division\n")),
            Kind::CompileError
        );
        assert_eq!(
            compile_failure(&out(101, b"", b"thread 'rustc' panicked at x.rs\n")),
            Kind::CompilerCrash
        );
        assert_eq!(
            compile_failure(&out(
                1,
                b"",
                b"error: internal compiler error: unexpected\n"
            )),
            Kind::CompilerCrash
        );
    }

    #[test]
    fn counts_read_like_the_other_suites() {
        let c = Counts {
            passed: 3,
            failed: 1,
            known: 0,
        };
        assert_eq!(c.to_string(), "3 passed, 1 failed");
        let c = Counts { known: 2, ..c };
        assert_eq!(c.to_string(), "3 passed, 1 failed, 2 known failures");
    }
}
