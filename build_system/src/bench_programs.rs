//! `bench programs`: the programs of benches/programs at `-Copt-level=3` on the
//! simulator. Each is checked against the LLVM host build's output first (a benchmark
//! that computes something else measures nothing), then measured with the default
//! passes, with each optional pass flipped from its default in turn (off, or on for a
//! pass that is off by default), and with all of them off. The pass list comes
//! from the backend itself (`-Cllvm-args=passes`), so a new pass gets its column
//! without an edit here. The default build's runs also time the simulator against the
//! native LLVM build, and the default build passes `-Cllvm-args=stats` so that the
//! report can show what the register allocator did per program.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::bench::{BenchOptions, Stats, TIMEOUT};
use crate::bench_modulo_loops;
use crate::bench_report::{Plot, Scale, Section, Series, geomean, number, table};
use crate::differential::{self, Rustc};
use crate::paths::Paths;
use crate::process;

#[path = "bench_programs_destruct.rs"]
mod destruct;
#[path = "bench_programs_ifconv.rs"]
mod ifconv;
#[path = "bench_programs_lawrence.rs"]
mod lawrence;
#[path = "bench_programs_modulo.rs"]
mod modulo;
#[path = "bench_programs_psi_copies.rs"]
mod psi_copies;
use crate::toolchain::Toolchain;

/// Ops per bundle of the default machine (docs/isa.md section 8).
const WIDTH: f64 = 4.0;
/// Fixed arguments of every simulator run: no host environment (std copies it at
/// start-up, which would change the cycle counts) and a fixed seed.
const SIM_ARGS: [&str; 4] = ["--clear-env", "--seed", "1", "--stats"];
/// Native runs take milliseconds: the best of this many is the figure.
const NATIVE_RUNS: usize = 10;
/// How the backend starts each line of counters (`-Cllvm-args=stats`).
const STATS_PREFIX: &str = "vliw-stats:";

/// An optional pass as the backend lists it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Pass {
    pub(crate) name: String,
    /// The `-Cllvm-args` word that switches it off.
    pub(crate) off: String,
    /// The word that switches it on.
    pub(crate) on: String,
    /// Whether it is on by default (a new pass is off until correct on every suite).
    pub(crate) default_on: bool,
    pub(crate) about: String,
}

impl Pass {
    /// The word that changes it from its default: `off`, or `on` for a pass that is
    /// off by default (what the ablation and the fuzz suite's configurations measure).
    pub(crate) fn flip(&self) -> &str {
        if self.default_on { &self.off } else { &self.on }
    }

    /// "without NAME", or "with NAME" for a pass that is off by default.
    pub(crate) fn flipped_label(&self) -> String {
        let with = if self.default_on { "without" } else { "with" };
        format!("{with} {}", self.name)
    }
}

/// One way to build the programs: a column of the ablation table.
#[derive(Clone, Debug)]
struct Config {
    label: String,
    /// Directory name under build/bench/programs.
    slug: String,
    llvm_args: Vec<String>,
    /// Also pass `stats` and keep the backend's counters (the default build only:
    /// the counters do not change the code, and one set is what the report shows).
    counters: bool,
}

/// What the simulator and the binaries tell about one program in one configuration.
#[derive(Clone, Debug)]
struct Figures {
    cycles: u64,
    bundles: u64,
    ops: u64,
    nullified: u64,
    stalls: u64,
    branches: u64,
    /// Bytes of code in the program's own object (its functions and the generic code
    /// it instantiates).
    own_code: u64,
    /// Bytes of `.text` in the linked executable (std included).
    text: u64,
    /// Best wall time of the simulator run.
    sim_time: Duration,
    /// The backend's counters, summed over codegen units (configurations with
    /// `counters` only).
    counters: Option<Counters>,
    /// The backend's report of each software-pipelined loop (`modulo-report=on`,
    /// with `counters` only): `bench_modulo_loops::report_lines`.
    pipelined: Vec<String>,
}

/// What one build with our backend gives.
#[derive(Clone, Debug)]
struct Built {
    exe: PathBuf,
    own_code: u64,
    text: u64,
    counters: Option<Counters>,
    pipelined: Vec<String>,
}

/// The backend's counters from `-Cllvm-args=stats`: rustc's stderr has one line
/// `vliw-stats: key=value ...` per codegen unit; these are their sums. A key that a
/// line leaves out counts 0 there.
#[derive(Clone, Debug, Default, PartialEq)]
struct Counters {
    sums: BTreeMap<String, u64>,
    /// `vliw-stats:` lines seen: the codegen units that were lowered.
    lines: usize,
}

impl Counters {
    /// Sums the `vliw-stats:` lines of `stderr`; other lines are not looked at. A
    /// line is recognized wherever the prefix starts in it (a codegen unit's line
    /// could land after another thread's unfinished output); its fields must be
    /// `key=value` with a decimal value.
    fn parse(stderr: &[u8]) -> Result<Counters, String> {
        let text = String::from_utf8_lossy(stderr);
        let mut counters = Counters::default();
        for line in text.lines() {
            let Some(at) = line.find(STATS_PREFIX) else {
                continue;
            };
            counters.lines += 1;
            for field in line[at + STATS_PREFIX.len()..].split_whitespace() {
                let (key, value) = field
                    .split_once('=')
                    .filter(|(k, _)| !k.is_empty())
                    .ok_or_else(|| format!("bad field `{field}` in `{line}`"))?;
                let value: u64 = value
                    .parse()
                    .map_err(|_| format!("bad value `{field}` in `{line}`"))?;
                let sum = counters.sums.entry(key.to_string()).or_default();
                *sum = sum
                    .checked_add(value)
                    .ok_or_else(|| format!("the sum of `{key}` overflows"))?;
            }
        }
        Ok(counters)
    }

    /// The sum of `key` (0 when no line has it).
    fn get(&self, key: &str) -> u64 {
        self.sums.get(key).copied().unwrap_or(0)
    }

    /// The sums of the keys that start with `prefix`, in key order.
    fn with_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = (&'a str, u64)> {
        self.sums
            .iter()
            .filter(move |(k, _)| k.starts_with(prefix))
            .map(|(k, v)| (k.as_str(), *v))
    }
}

/// The figures of the register allocation table, in its column order (after the
/// program): the `regalloc.ssa.*` counter and the column's heading.
const REGALLOC_COLUMNS: [(&str, &str); 7] = [
    ("functions", "functions"),
    ("spilled", "spilled values"),
    ("stores", "spill stores"),
    ("reloads", "reloads"),
    ("copies-before", "copies before"),
    ("copies-after", "copies after"),
    ("fallbacks", "fallbacks"),
];

pub fn run(paths: &Paths, toolchain: &Toolchain, options: BenchOptions) -> Result<Section, String> {
    let programs = discover(&paths.root.join("benches").join("programs"))?;
    let passes = query_passes(paths)?;
    let configs = configs(&passes);
    let work = paths.build.join("bench").join("programs");
    let rustc = Rustc::locate(toolchain)?;

    // The expectations and the native times: LLVM's host build.
    let mut expected = Vec::new();
    let mut native = Vec::new();
    for program in &programs {
        eprintln!("[bench] programs: LLVM host build of {}", program.0);
        let exe = work.join("host").join(&program.0);
        build_host(&rustc, &program.1, &exe)?;
        let (stdout, time) = run_native(&exe, if options.quick { 3 } else { NATIVE_RUNS })?;
        expected.push(stdout);
        native.push(time);
    }

    // Our builds: each configuration, each program. Builds run two at a time; the
    // default configuration's runs are timed one at a time so that they do not share
    // the machine.
    let mut figures: Vec<Vec<Figures>> = Vec::new();
    for (index, config) in configs.iter().enumerate() {
        let timed = index == 0;
        let jobs: Vec<usize> = (0..programs.len()).collect();
        let mut built: Vec<Option<Result<Built, String>>> = vec![None; programs.len()];
        differential::run_parallel(
            &jobs,
            2,
            |&i| {
                eprintln!("[bench] programs: {} ({})", programs[i].0, config.label);
                (i, build_ours(paths, config, &programs[i], &work, options))
            },
            |(i, result)| built[i] = Some(result),
        );
        let mut column = Vec::new();
        for (i, result) in built.into_iter().enumerate() {
            let built = result.expect("every job reports")?;
            let runs = if timed { options.runs() } else { 1 };
            let (stats, sim_time) = run_simulated(paths, &built.exe, &expected[i], runs)
                .map_err(|e| format!("{} ({}): {e}", programs[i].0, config.label))?;
            column.push(Figures {
                cycles: stats.get("cycles")?,
                bundles: stats.get("bundles")?,
                ops: stats.get("ops")?,
                nullified: stats.get("nullified")?,
                stalls: stats.get("stalls")?,
                branches: stats.get("branches")?,
                own_code: built.own_code,
                text: built.text,
                sim_time,
                counters: built.counters,
                pipelined: built.pipelined,
            });
        }
        figures.push(column);
    }
    let names: Vec<String> = programs.iter().map(|p| p.0.clone()).collect();
    let mut section = section(&names, &passes, &configs, &figures, &native, options);
    // Lawrence's sequentialization against the structural destruction
    if let Some((md, summary)) = lawrence::table_of(&names, &configs, &figures) {
        section.markdown.push_str(&md);
        section.summary.push(summary);
    }
    // predication: with if-conversion against without
    if let Some((md, summary)) = ifconv::table_of(&names, &configs, &figures) {
        section.markdown.push_str(&md);
        section.summary.push(summary);
    }
    // out of Psi-SSA: the copies of each phase
    if let Some(md) = psi_copies::table_of(&configs, &figures) {
        section.markdown.push_str(&md);
    }
    // leaving SSA: the copies of each method, with the naive allocator
    let counts = destruct::measure(paths, &programs, &work)?;
    let (md, summary) = destruct::table_of(&names, &counts);
    section.markdown.push_str(&md);
    section.summary.push(summary);
    Ok(section)
}

/// The benchmark programs: the `.rs` files of the directory, by name.
fn discover(dir: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    let programs = differential::rust_programs(dir)?;
    for (name, _) in &programs {
        differential::check_crate_name(name)?;
    }
    if programs.is_empty() {
        return Err(format!("no benchmark programs in {}", dir.display()));
    }
    Ok(programs)
}

/// Asks the backend for its optional passes (also the fuzz suite's configurations).
pub(crate) fn query_passes(paths: &Paths) -> Result<Vec<Pass>, String> {
    let mut cmd = Command::new(paths.dist.join("rustc-vliw"));
    cmd.args(["-Cllvm-args=passes", "-"]);
    let out = process::run(&mut cmd, b"", Instant::now() + TIMEOUT)?;
    if !out.success() {
        return Err(format!(
            "dist/rustc-vliw -Cllvm-args=passes failed ({}): {}",
            out.describe(),
            out.stderr_text().trim_end()
        ));
    }
    parse_passes(&String::from_utf8_lossy(&out.stdout))
}

/// The pipeline as `-Cllvm-args=passes` lists it, one pass per line: `PASS`,
/// `FROM->TO`, `SWITCH`, `OFF`, `ON`, `DEFAULT` (`on` or `off`), `ABOUT`,
/// tab-separated, `-` for a pass without a switch. The passes with a switch are the
/// ones measured.
pub(crate) fn parse_passes(text: &str) -> Result<Vec<Pass>, String> {
    let mut passes = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        match fields[..] {
            [pass, _, "-", "-", "-", "-", _] if !pass.is_empty() => {}
            [pass, _, switch, off, on, default @ ("on" | "off"), about]
                if !pass.is_empty() && !switch.is_empty() =>
            {
                passes.push(Pass {
                    name: switch.into(),
                    off: off.into(),
                    on: on.into(),
                    default_on: default == "on",
                    about: about.into(),
                })
            }
            _ => {
                return Err(format!(
                    "the backend's pass list has a malformed line `{line}`"
                ));
            }
        }
    }
    Ok(passes)
}

/// All passes, then each one off, then all off (when that is a different build).
fn configs(passes: &[Pass]) -> Vec<Config> {
    let mut configs = vec![Config {
        label: "all passes".into(),
        slug: "default".into(),
        llvm_args: Vec::new(),
        counters: true,
    }];
    for pass in passes {
        let label = pass.flipped_label();
        configs.push(Config {
            slug: label.replace(' ', "-"),
            label,
            llvm_args: vec![pass.flip().to_string()],
            // the counters of the columns the sequentialization and predication
            // tables compare with
            counters: pass.flip() == lawrence::STRUCTURAL
                || pass.flip() == ifconv::OFF
                || psi_copies::wants_counters(pass.flip()),
        });
    }
    // options of a pass that tables compare with (predication's copies per phase
    // without promotion and without folding), when the backend has that pass
    if passes.iter().any(|p| p.on == "if-convert=on") {
        for options in psi_copies::EXTRA {
            let label = options.join(" ");
            configs.push(Config {
                slug: label.replace(['=', ' '], "-"),
                label,
                llvm_args: options.iter().map(|o| o.to_string()).collect(),
                counters: true,
            });
        }
    }
    if passes.len() > 1 {
        configs.push(Config {
            label: "all off".into(),
            slug: "all-off".into(),
            llvm_args: passes.iter().map(|p| p.off.clone()).collect(),
            counters: false,
        });
    }
    configs
}

fn build_host(rustc: &Rustc, source: &Path, exe: &Path) -> Result<(), String> {
    mkdir_parent(exe)?;
    let mut cmd = Command::new(&rustc.path);
    cmd.args(["--edition", "2024", "-Copt-level=3", "-o"])
        .arg(exe)
        .arg(source);
    checked(&mut cmd, "rustc (LLVM host build)").map(|_| ())
}

/// Builds with our backend; returns the executable, the code sizes and (when the
/// configuration asks) the backend's counters.
fn build_ours(
    paths: &Paths,
    config: &Config,
    program: &(String, PathBuf),
    work: &Path,
    options: BenchOptions,
) -> Result<Built, String> {
    let exe = work.join(&config.slug).join(&program.0);
    let object = exe.with_extension("o");
    mkdir_parent(&exe)?;
    let mut cmd = Command::new(paths.dist.join("rustc-vliw"));
    cmd.args(["--edition", "2024", "-Copt-level=3"]);
    let mut llvm_args = config.llvm_args.clone();
    if config.counters {
        llvm_args.push("stats".into());
        llvm_args.push("modulo-report=on".into());
    }
    cmd.args(options.llvm_args(&llvm_args));
    let mut emit = std::ffi::OsString::from("--emit=obj=");
    emit.push(&object);
    emit.push(",link=");
    emit.push(&exe);
    cmd.arg(emit).arg(&program.1);
    let stderr = checked(&mut cmd, "rustc-vliw")?;
    let counters = if config.counters {
        let counters = Counters::parse(&stderr).map_err(|e| {
            format!(
                "{} ({}): rustc-vliw's counters: {e}",
                program.0, config.label
            )
        })?;
        if counters.lines == 0 {
            return Err(format!(
                "{} ({}): rustc-vliw -Cllvm-args=stats printed no `{STATS_PREFIX}` line",
                program.0, config.label
            ));
        }
        Some(counters)
    } else {
        None
    };
    let pipelined = if config.counters {
        bench_modulo_loops::report_lines(&String::from_utf8_lossy(&stderr))
    } else {
        Vec::new()
    };
    let own_code = text_bytes(paths, &object)?;
    let text = text_bytes(paths, &exe)?;
    Ok(Built {
        exe,
        own_code,
        text,
        counters,
        pipelined,
    })
}

/// Bytes in the text sections of an object or executable, from `vliw-objdump -h`.
fn text_bytes(paths: &Paths, file: &Path) -> Result<u64, String> {
    let mut cmd = Command::new(paths.tool("vliw-objdump"));
    cmd.arg("-h").arg(file);
    let out = process::run(&mut cmd, b"", Instant::now() + TIMEOUT)?;
    if !out.success() {
        return Err(format!(
            "vliw-objdump -h {} failed: {}",
            file.display(),
            out.stderr_text().trim_end()
        ));
    }
    parse_text_bytes(&String::from_utf8_lossy(&out.stdout))
}

/// Sums the sizes of the `text` sections in `vliw-objdump -h` output: rows under an
/// `Idx Name ... Size ... Kind` header (an object's has `Align`, an executable's
/// `Address`), sizes in hex.
fn parse_text_bytes(listing: &str) -> Result<u64, String> {
    let mut columns: Option<(usize, usize)> = None;
    let mut total = 0;
    let mut seen = false;
    for line in listing.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.first() == Some(&"Idx") {
            let find = |name: &str| fields.iter().position(|f| *f == name);
            columns = find("Size").zip(find("Kind"));
            continue;
        }
        let Some((size_at, kind_at)) = columns else {
            continue;
        };
        if fields.first().is_some_and(|f| f.parse::<u32>().is_ok())
            && fields.get(kind_at) == Some(&"text")
        {
            let size = fields[size_at];
            total += u64::from_str_radix(size, 16)
                .map_err(|_| format!("bad section size `{size}` in `{line}`"))?;
            seen = true;
        }
    }
    if seen {
        Ok(total)
    } else {
        Err("vliw-objdump -h listed no text section".into())
    }
}

/// Runs the LLVM build natively `runs` times; its stdout (checked to be the same
/// each time) and the best wall time.
fn run_native(exe: &Path, runs: usize) -> Result<(Vec<u8>, Duration), String> {
    let mut best = Duration::MAX;
    let mut stdout: Option<Vec<u8>> = None;
    for _ in 0..runs {
        // A plain blocking wait: process::run polls, which would blur milliseconds.
        let start = Instant::now();
        let out = Command::new(exe)
            .env_clear()
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
        best = best.min(start.elapsed());
        if !out.status.success() {
            return Err(format!(
                "the LLVM host build {} failed ({}): {}",
                exe.display(),
                process::describe_status(out.status),
                String::from_utf8_lossy(&out.stderr).trim_end()
            ));
        }
        if stdout.as_ref().is_some_and(|s| *s != out.stdout) {
            return Err(format!(
                "the LLVM host build {} printed different output on two runs",
                exe.display()
            ));
        }
        stdout = Some(out.stdout);
    }
    Ok((stdout.unwrap_or_default(), best))
}

/// Runs our build on the simulator `runs` times; checks its output against the host's
/// and returns the statistics and the best wall time.
fn run_simulated(
    paths: &Paths,
    exe: &Path,
    expected: &[u8],
    runs: usize,
) -> Result<(Stats, Duration), String> {
    let mut best = Duration::MAX;
    let mut stats = None;
    for _ in 0..runs.max(1) {
        let mut cmd = Command::new(paths.tool("vliw-run"));
        cmd.args(SIM_ARGS).arg(exe);
        let start = Instant::now();
        let out = process::run(&mut cmd, b"", start + TIMEOUT)?;
        best = best.min(start.elapsed());
        if !out.success() {
            return Err(format!(
                "the simulated run failed ({}): {}",
                out.describe(),
                out.stderr_text().trim_end()
            ));
        }
        if out.stdout != expected {
            let mut message =
                "the simulated run's output differs from the LLVM host build's:".to_string();
            for line in crate::report::diff_excerpt(expected, &out.stdout) {
                message.push_str("\n  ");
                message.push_str(&line);
            }
            return Err(message);
        }
        stats = Some(Stats::parse(&out.stderr)?);
    }
    Ok((stats.expect("at least one run"), best))
}

/// Runs a compiler; its stderr when it succeeds, an error with the end of its stderr
/// (the backend's `vliw-stats:` lines left out) when it fails.
fn checked(cmd: &mut Command, what: &str) -> Result<Vec<u8>, String> {
    let out = process::run(cmd, b"", Instant::now() + differential::COMPILE_TIMEOUT)?;
    if out.success() {
        Ok(out.stderr)
    } else {
        let mut message = format!("{what} failed ({}):", out.describe());
        let stderr: String = String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| !l.contains(STATS_PREFIX))
            .flat_map(|l| [l, "\n"])
            .collect();
        for line in crate::report::tail(stderr.as_bytes(), 15) {
            message.push_str("\n  ");
            message.push_str(&line);
        }
        Err(message)
    }
}

fn mkdir_parent(file: &Path) -> Result<(), String> {
    let dir = file.parent().expect("a file in a directory");
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))
}

fn ratio(a: f64, b: f64) -> String {
    if b > 0.0 {
        format!("{:.3}", a / b)
    } else {
        "–".into()
    }
}

/// The report: the default build's figures, the ablation, the simulator's speed.
fn section(
    names: &[String],
    passes: &[Pass],
    configs: &[Config],
    figures: &[Vec<Figures>],
    native: &[Duration],
    options: BenchOptions,
) -> Section {
    let default = &figures[0];
    let mut md = String::new();
    md.push_str(
        "Each program of `benches/programs` built by `dist/rustc-vliw --edition 2024 \
         -Copt-level=3` and run by `vliw-run --clear-env --seed 1 --stats`; its output is \
         checked against the LLVM host build's (`rustc -Copt-level=3`, run natively) \
         before anything is counted. Simulated figures are exact (the simulator is \
         deterministic).\n\n",
    );
    if let Some(note) = options.backend_note() {
        md.push_str(&note);
        md.push_str("\n\n");
    }
    md.push_str(&format!(
        "IPC is ops per cycle; fill is ops per bundle over the machine width ({WIDTH}); \
         stalls are cycles lost waiting for latencies; branches are taken control \
         transfers (calls and returns included); own code is the `.text` of the program's \
         own object, `.text` that of the linked executable.\n\n"
    ));
    let mut rows = Vec::new();
    for (name, f) in names.iter().zip(default) {
        rows.push(vec![
            name.clone(),
            f.cycles.to_string(),
            f.bundles.to_string(),
            f.ops.to_string(),
            format!("{:.3}", f.ops as f64 / f.cycles.max(1) as f64),
            format!("{:.3}", f.ops as f64 / f.bundles.max(1) as f64 / WIDTH),
            f.nullified.to_string(),
            format!(
                "{} ({:.0}%)",
                f.stalls,
                100.0 * f.stalls as f64 / f.cycles.max(1) as f64
            ),
            f.branches.to_string(),
            f.own_code.to_string(),
            f.text.to_string(),
        ]);
    }
    let gm = |get: &dyn Fn(&Figures) -> f64| geomean(default.iter().map(get)).unwrap_or(0.0);
    let ipc = gm(&|f| f.ops as f64 / f.cycles.max(1) as f64);
    let fill = gm(&|f| f.ops as f64 / f.bundles.max(1) as f64 / WIDTH);
    let cycles = gm(&|f| f.cycles as f64);
    let stall_share = default.iter().map(|f| f.stalls).sum::<u64>() as f64
        / default.iter().map(|f| f.cycles).sum::<u64>().max(1) as f64;
    rows.push(vec![
        "**geomean**".into(),
        number(cycles),
        number(gm(&|f| f.bundles as f64)),
        number(gm(&|f| f.ops as f64)),
        format!("{ipc:.3}"),
        format!("{fill:.3}"),
        String::new(),
        format!("{:.0}% of all cycles", 100.0 * stall_share),
        String::new(),
        number(gm(&|f| f.own_code as f64)),
        number(gm(&|f| f.text as f64)),
    ]);
    md.push_str("### All passes (the default build)\n\n");
    md.push_str(&table(
        &[
            "program",
            "cycles",
            "bundles",
            "ops",
            "IPC",
            "fill",
            "nullified",
            "stalls",
            "taken branches",
            "own code (bytes)",
            ".text (bytes)",
        ],
        &rows,
    ));

    // What the register allocator did, from the default build's counters.
    let counters: Vec<Counters> = default
        .iter()
        .map(|f| f.counters.clone().unwrap_or_default())
        .collect();
    let (regalloc, regalloc_summary) = regalloc_table(names, &counters);
    md.push_str(&regalloc);
    md.push_str(&modulo::table_of(names, &counters));
    md.push_str(&modulo::loops_of(names, default));

    // The ablation: cycles per configuration, and each as a ratio to the default.
    md.push_str(
        "\n### Ablation: cycles with each optional pass switched from its default \
         (off, or on for a pass that is off by default)\n\n",
    );
    if passes.is_empty() {
        md.push_str("The backend lists no optional passes.\n\n");
    } else {
        md.push_str("The optional passes, as the backend lists them (`-Cllvm-args=passes`):\n\n");
        for pass in passes {
            let default = if pass.default_on { "on" } else { "off" };
            md.push_str(&format!(
                "- **{}** ({default} by default; `-Cllvm-args={}`): {}\n",
                pass.name,
                pass.flip(),
                pass.about
            ));
        }
        if passes.len() == 1 {
            md.push_str("\nWith one pass, \"all off\" is the column without it.\n");
        }
        md.push('\n');
    }
    let mut header = vec!["program".to_string()];
    for config in configs {
        header.push(format!("{} (cycles)", config.label));
        if !config.llvm_args.is_empty() {
            header.push("× all passes".into());
        }
    }
    let mut rows = Vec::new();
    for (p, name) in names.iter().enumerate() {
        let mut row = vec![name.clone()];
        for (c, config) in configs.iter().enumerate() {
            row.push(figures[c][p].cycles.to_string());
            if !config.llvm_args.is_empty() {
                row.push(ratio(figures[c][p].cycles as f64, default[p].cycles as f64));
            }
        }
        rows.push(row);
    }
    let mut geo = vec!["**geomean**".to_string()];
    let mut summary = vec![
        format!(
            "{} programs, all passes: geomean {} cycles, IPC {ipc:.3}, fill {fill:.3}, \
             stalls {:.0}% of cycles",
            names.len(),
            number(cycles),
            100.0 * stall_share
        ),
        regalloc_summary,
    ];
    for (c, config) in configs.iter().enumerate() {
        geo.push(number(
            geomean(figures[c].iter().map(|f| f.cycles as f64)).unwrap_or(0.0),
        ));
        if !config.llvm_args.is_empty() {
            let r = geomean(
                figures[c]
                    .iter()
                    .zip(default)
                    .map(|(f, d)| f.cycles as f64 / d.cycles.max(1) as f64),
            )
            .unwrap_or(0.0);
            geo.push(format!("{r:.3}"));
            summary.push(format!(
                "{}: {r:.3}x the cycles of all passes",
                config.label
            ));
        }
    }
    rows.push(geo);
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    md.push_str(&table(&header, &rows));

    // Simulator speed.
    md.push_str("\n### Simulator speed\n\n");
    md.push_str(&format!(
        "Wall time of the default build's simulated run (best of {}, loading included) \
         beside the LLVM host build run natively (best of {}, process start included: the \
         programs do milliseconds of work natively, so start-up is a good part of the \
         native time and the slowdown is a lower bound).\n\n",
        options.runs(),
        if options.quick { 3 } else { NATIVE_RUNS }
    ));
    let mut rows = Vec::new();
    for ((name, f), native) in names.iter().zip(default).zip(native) {
        let secs = f.sim_time.as_secs_f64();
        rows.push(vec![
            name.clone(),
            f.ops.to_string(),
            format!("{secs:.3}"),
            format!("{:.1}", f.ops as f64 / secs / 1e6),
            format!("{:.2}", native.as_secs_f64() * 1e3),
            format!("{:.0}", secs / native.as_secs_f64().max(1e-9)),
        ]);
    }
    let total_ops: u64 = default.iter().map(|f| f.ops).sum();
    let total_sim: f64 = default.iter().map(|f| f.sim_time.as_secs_f64()).sum();
    let slowdown = geomean(
        default
            .iter()
            .zip(native)
            .map(|(f, n)| f.sim_time.as_secs_f64() / n.as_secs_f64().max(1e-9)),
    )
    .unwrap_or(0.0);
    rows.push(vec![
        "**all**".into(),
        total_ops.to_string(),
        format!("{total_sim:.3}"),
        format!("{:.1}", total_ops as f64 / total_sim / 1e6),
        String::new(),
        format!("{slowdown:.0} (geomean)"),
    ]);
    md.push_str(&table(
        &[
            "program",
            "simulated ops",
            "simulator (s)",
            "M ops/s",
            "native (ms)",
            "slowdown",
        ],
        &rows,
    ));
    summary.push(format!(
        "simulator: {:.1} M ops/s over the suite, {slowdown:.0}x slower than native (geomean)",
        total_ops as f64 / total_sim / 1e6
    ));

    let categories: Vec<String> = names.to_vec();
    let series_of = |get: &dyn Fn(&Figures) -> f64, c: usize, name: &str| Series {
        name: name.into(),
        values: figures[c].iter().map(|f| Some(get(f))).collect(),
    };
    let plots = vec![
        Plot {
            file: "programs-cycles.svg".into(),
            title: "Simulated cycles per program, with and without each optional pass".into(),
            unit: "cycles at -Copt-level=3".into(),
            categories: categories.clone(),
            series: configs
                .iter()
                .enumerate()
                .map(|(c, config)| series_of(&|f| f.cycles as f64, c, &config.label))
                .collect(),
            scale: Scale::Log,
        },
        Plot {
            file: "programs-ipc.svg".into(),
            title: "Ops per cycle (IPC) and bundle fill, all passes".into(),
            unit: format!("IPC (ops/cycle), fill (ops/bundle / {WIDTH})"),
            categories: categories.clone(),
            series: vec![
                series_of(&|f| f.ops as f64 / f.cycles.max(1) as f64, 0, "IPC"),
                series_of(
                    &|f| f.ops as f64 / f.bundles.max(1) as f64 / WIDTH,
                    0,
                    "bundle fill",
                ),
                series_of(
                    &|f| f.stalls as f64 / f.cycles.max(1) as f64,
                    0,
                    "stalled share of cycles",
                ),
            ],
            scale: Scale::Linear,
        },
    ];
    Section {
        title: "Benchmark programs on the simulator".into(),
        markdown: md,
        plots,
        summary,
    }
}

/// The register allocation table of the default build (a `###` subsection) and its
/// summary line: per program the `regalloc.ssa.*` counters, the ratio of copies
/// after colouring to copies before, and a total row.
fn regalloc_table(names: &[String], counters: &[Counters]) -> (String, String) {
    let key = |name: &str| format!("regalloc.ssa.{name}");
    let total = |name: &str| counters.iter().map(|c| c.get(&key(name))).sum::<u64>();
    let mut md =
        String::from("\n### Register allocation: spills and copies per program (all passes)\n\n");
    md.push_str(
        "The SSA register allocator's counters in the default build (`regalloc=ssa`, \
         `-Cllvm-args=stats`: one `vliw-stats:` line per codegen unit on rustc's stderr, \
         summed per program). **They cover the program's own crate only**: its functions \
         and the generic code it instantiates, and the allocator shim that rustc adds to \
         an executable (`__rust_alloc` and the like, a codegen unit of its own); std comes \
         precompiled from `dist/sysroot` and is not counted. *Functions*: functions allocated; *spilled values*: values \
         given a stack slot; *spill stores* and *reloads*: the stores and loads inserted \
         for them; *copies before*: copies and block arguments from instruction \
         selection; *copies after*: register moves left after colouring (parallel-copy \
         temporaries included), and *after / before* their ratio; *fallbacks*: functions \
         the SSA allocator did not take, given to the naive allocator.\n\n",
    );
    if total("functions") == 0 {
        md.push_str(
            "No function was counted: the default build reported no `regalloc.ssa.*` \
             counters (is `regalloc=ssa` still the default?).\n\n",
        );
    }
    let mut header: Vec<&str> = vec!["program"];
    let mut rows = Vec::new();
    for (name, heading) in REGALLOC_COLUMNS {
        header.push(heading);
        if name == "copies-after" {
            header.push("after / before");
        }
    }
    let row = |label: String, get: &dyn Fn(&str) -> u64| -> Vec<String> {
        let mut row = vec![label];
        for (name, _) in REGALLOC_COLUMNS {
            row.push(get(name).to_string());
            if name == "copies-after" {
                row.push(ratio(
                    get("copies-after") as f64,
                    get("copies-before") as f64,
                ));
            }
        }
        row
    };
    for (name, c) in names.iter().zip(counters) {
        rows.push(row(name.clone(), &|n| c.get(&key(n))));
    }
    rows.push(row("**total**".into(), &|n| total(n)));
    md.push_str(&table(&header, &rows));

    // Functions the naive allocator took leave SSA by `ssa-destruction`'s method.
    let mut destruct: BTreeMap<&str, u64> = BTreeMap::new();
    for c in counters {
        for (k, v) in c.with_prefix("destruct.") {
            *destruct.entry(k).or_default() += v;
        }
    }
    if destruct.values().any(|&v| v > 0) {
        let fields: Vec<String> = destruct.iter().map(|(k, v)| format!("`{k}={v}`")).collect();
        md.push_str(&format!(
            "\nThe fallbacks left SSA before naive allocation; its counters, summed over \
             the programs: {}.\n",
            fields.join(", ")
        ));
    }
    let summary = format!(
        "register allocation (programs' own crates): {} functions, {} values spilled \
         ({} stores, {} reloads), copies {} before colouring and {} after ({}), {} fallbacks",
        total("functions"),
        total("spilled"),
        total("stores"),
        total("reloads"),
        total("copies-before"),
        total("copies-after"),
        ratio(total("copies-after") as f64, total("copies-before") as f64),
        total("fallbacks"),
    );
    (md, summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_pass_list() {
        let passes = parse_passes(
            "isel\tir->machine-ssa\tjump-tables\tjump-tables=off\tjump-tables=on\ton\tdense\n\n\
             frame\tallocated->allocated\t-\t-\t-\t-\tframe layout\n\
             split\trvsdg->rvsdg\tsplit\tsplit=off\tsplit=on\toff\tnew\n",
        )
        .unwrap();
        assert_eq!(
            passes,
            vec![
                Pass {
                    name: "jump-tables".into(),
                    off: "jump-tables=off".into(),
                    on: "jump-tables=on".into(),
                    default_on: true,
                    about: "dense".into()
                },
                Pass {
                    name: "split".into(),
                    off: "split=off".into(),
                    on: "split=on".into(),
                    default_on: false,
                    about: "new".into()
                }
            ]
        );
        assert_eq!(passes[0].flip(), "jump-tables=off");
        assert_eq!(passes[1].flip(), "split=on");
        assert_eq!(passes[1].flipped_label(), "with split");
        assert_eq!(
            configs(&passes)
                .iter()
                .map(|c| c.slug.as_str())
                .collect::<Vec<_>>(),
            ["default", "without-jump-tables", "with-split", "all-off"]
        );
        assert!(parse_passes("jump-tables jump-tables=off\n").is_err());
        assert!(parse_passes("a\tb\tc\td\te\tmaybe\tg\n").is_err());
        assert!(parse_passes("a\tb\tc\td\n").is_err());
        assert!(parse_passes("a\tb\tc\n").is_err());
        assert_eq!(parse_passes("").unwrap(), vec![]);
    }

    #[test]
    fn configurations_follow_the_pass_list() {
        let pass = |n: &str| Pass {
            name: n.into(),
            off: format!("{n}=off"),
            on: format!("{n}=on"),
            default_on: true,
            about: String::new(),
        };
        let labels =
            |ps: &[Pass]| -> Vec<String> { configs(ps).into_iter().map(|c| c.label).collect() };
        assert_eq!(labels(&[]), ["all passes"]);
        assert_eq!(labels(&[pass("a")]), ["all passes", "without a"]);
        let two = configs(&[pass("a"), pass("b")]);
        assert_eq!(two.len(), 4);
        assert_eq!(two[3].llvm_args, ["a=off", "b=off"]);
        assert!(two[0].llvm_args.is_empty());
    }

    #[test]
    fn sums_the_counter_lines() {
        let stderr = b"\
warning: unused variable: `x`
vliw-stats: regalloc.ssa.copies-after=156 regalloc.ssa.copies-before=474 regalloc.ssa.functions=54 regalloc.ssa.spilled=2
vliw-stats: regalloc.ssa.copies-after=0 regalloc.ssa.copies-before=28 regalloc.ssa.functions=5 destruct.copies.inserted=3
vliw-stats:
  --> src/main.rs:1:1 vliw-stats: regalloc.ssa.fallbacks=1
stats: not ours=1
";
        let c = Counters::parse(stderr).unwrap();
        assert_eq!(c.lines, 4);
        assert_eq!(c.get("regalloc.ssa.functions"), 59);
        assert_eq!(c.get("regalloc.ssa.copies-before"), 502);
        assert_eq!(c.get("regalloc.ssa.copies-after"), 156);
        assert_eq!(c.get("regalloc.ssa.spilled"), 2);
        assert_eq!(c.get("regalloc.ssa.fallbacks"), 1);
        assert_eq!(c.get("regalloc.ssa.reloads"), 0);
        assert_eq!(c.get("not ours"), 0);
        assert_eq!(
            c.with_prefix("destruct.").collect::<Vec<_>>(),
            [("destruct.copies.inserted", 3)]
        );
        assert_eq!(
            Counters::parse(b"no counters\n").unwrap(),
            Counters::default()
        );
        assert!(Counters::parse(b"vliw-stats: a=1 b\n").is_err());
        assert!(Counters::parse(b"vliw-stats: a=-1\n").is_err());
        assert!(Counters::parse(b"vliw-stats: =1\n").is_err());
        let max = format!("vliw-stats: a={}\nvliw-stats: a=1\n", u64::MAX);
        assert!(Counters::parse(max.as_bytes()).is_err());
    }

    #[test]
    fn tabulates_the_counters() {
        let parse = |s: &str| Counters::parse(s.as_bytes()).unwrap();
        let counters = [
            parse(
                "vliw-stats: regalloc.ssa.functions=3 regalloc.ssa.copies-before=10 \
                 regalloc.ssa.copies-after=4 regalloc.ssa.spilled=1 regalloc.ssa.stores=1 \
                 regalloc.ssa.reloads=2\n",
            ),
            parse(
                "vliw-stats: regalloc.ssa.functions=2 regalloc.ssa.copies-before=10 \
                 regalloc.ssa.fallbacks=1 destruct.boissinot.inserted=5\n",
            ),
        ];
        let (md, summary) = regalloc_table(&["a".into(), "b".into()], &counters);
        assert!(md.contains(
            "| program | functions | spilled values | spill stores | reloads | copies before \
             | copies after | after / before | fallbacks |"
        ));
        assert!(
            md.contains("| a | 3 | 1 | 1 | 2 | 10 | 4 | 0.400 | 0 |"),
            "{md}"
        );
        assert!(
            md.contains("| b | 2 | 0 | 0 | 0 | 10 | 0 | 0.000 | 1 |"),
            "{md}"
        );
        assert!(
            md.contains("| **total** | 5 | 1 | 1 | 2 | 20 | 4 | 0.200 | 1 |"),
            "{md}"
        );
        assert!(md.contains("`destruct.boissinot.inserted=5`"), "{md}");
        assert!(md.contains("own crate only"));
        assert!(!md.contains("No function was counted"));
        assert!(summary.contains("5 functions, 1 values spilled (1 stores, 2 reloads)"));
        assert!(summary.contains("20 before colouring and 4 after (0.200), 1 fallbacks"));
        let (md, _) = regalloc_table(&["a".into()], &[Counters::default()]);
        assert!(md.contains("No function was counted"));
        assert!(md.contains("| a | 0 | 0 | 0 | 0 | 0 | 0 | – | 0 |"), "{md}");
    }

    #[test]
    fn sums_text_sections() {
        let listing = "\
crc32:     file format elf64-vliw (executable)

Sections:
Idx Name                 Address          Size     Kind
  0 .text                0000000000010000 000dd0f8 text
  1 .rodata              00000000000ee000 00006af9 rodata
  2 .text.f              0000000000000000 00000010 text
";
        assert_eq!(parse_text_bytes(listing).unwrap(), 0xdd0f8 + 0x10);
        let object = "\
Sections:
Idx Name                 Size     Align  Kind        Flags
  0 .text._RNvCs1_5crc324main 00001888 8      text        alloc, exec, contents, relocs
  1 .rodata.x 00000010 8      rodata      alloc
  2 .text._RNvCs1_5crc325crc32 00000550 8      text        alloc, exec, contents
";
        assert_eq!(parse_text_bytes(object).unwrap(), 0x1888 + 0x550);
        assert!(parse_text_bytes("Idx Name Address Size Kind\n  1 .rodata 0 10 rodata\n").is_err());
        assert!(parse_text_bytes("  0 .text 0 10 text\n").is_err());
    }
}
