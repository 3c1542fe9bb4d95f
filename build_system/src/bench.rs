//! `bench`: measurements that are reported, never pass/fail (DESIGN.md section 8).
//!
//! Wall-clock figures are noisy: each is the best of a few runs, and the report says
//! on what machine and commit it was taken.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::bench_report::Section;
use crate::paths::Paths;
use crate::process;
use crate::toolchain::Toolchain;
use crate::{bench_analyses, bench_compile, bench_hexagon, bench_programs};

/// The benchmarks `bench` knows, with a one-line description each, in report order.
pub const BENCHES: [(&str, &str); 5] = [
    (
        "programs",
        "simulated cycles, IPC, bundle fill, stalls of benches/programs at -Copt-level=3, \
         with each optional pass switched from its default in turn (off, or on when off \
         by default); the register allocator's spills and copies; simulator speed against \
         the native LLVM build",
    ),
    (
        "hexagon",
        "bundles executed per kernel beside the packets LLVM's Hexagon build executes \
         under qemu-hexagon; static bundles per kernel function and loop body beside \
         LLVM's Hexagon packets",
    ),
    (
        "compile",
        "compile time of the sysroot and sample crates, ours against LLVM and Cranelift, \
         and the backend's time per phase",
    ),
    (
        "analyses",
        "time of the SSA analyses (two-pass and data-flow liveness, liveness checker) and \
         of SSA destruction per function of the sysroot, by function size; data flow \
         against two-pass on the largest functions",
    ),
    (
        "sim",
        "peak simulator speed: simulated ops/s and bundles/s on tests/bench/sim_loop.s",
    ),
];

/// How much to measure, and with which backend options.
#[derive(Copy, Clone, Debug, Default)]
pub struct BenchOptions {
    /// `--quick`: fewer runs and workloads, so that the whole bench takes minutes.
    pub quick: bool,
    /// `-C KEY=VALUE`: backend options (`-Cllvm-args`) for every build with our backend
    /// in `programs` and `hexagon` (e.g. `rvsdg=on`, to measure a pass that is off by
    /// default). Set once from the command line and never freed, so that the options
    /// stay `Copy`.
    pub backend: &'static [String],
}

impl BenchOptions {
    /// The `-Cllvm-args=` flag for `backend` plus `extra`, if there is any option.
    pub fn llvm_args(self, extra: &[String]) -> Option<String> {
        let words: Vec<&str> = self
            .backend
            .iter()
            .chain(extra)
            .map(String::as_str)
            .collect();
        (!words.is_empty()).then(|| format!("-Cllvm-args={}", words.join(" ")))
    }

    /// A note for the report's header when backend options were given.
    pub fn backend_note(self) -> Option<String> {
        (!self.backend.is_empty()).then(|| {
            format!(
                "Our builds were made with `-Cllvm-args=\"{}\"` (`./y.sh bench -C`).",
                self.backend.join(" ")
            )
        })
    }

    /// Repetitions of a wall-clock measurement.
    pub fn runs(self) -> usize {
        if self.quick { 1 } else { RUNS }
    }
}

const RUNS: usize = 3;
/// Generous: a benchmark run takes seconds; this only stops a runaway.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(600);

/// Checks the names before anything is built, so that a typo fails at once.
pub fn check_names(names: &[String]) -> Result<(), String> {
    for name in names {
        if !BENCHES.iter().any(|(known, _)| known == name) {
            let known: Vec<&str> = BENCHES.iter().map(|(n, _)| *n).collect();
            return Err(format!(
                "unknown benchmark `{name}`; known: {}",
                known.join(", ")
            ));
        }
    }
    Ok(())
}

/// Runs one benchmark (the workspace, tools and sysroot are built) and returns its
/// section of the report.
pub fn run(
    paths: &Paths,
    toolchain: &Toolchain,
    name: &str,
    options: BenchOptions,
) -> Result<Section, String> {
    match name {
        "programs" => bench_programs::run(paths, toolchain, options),
        "hexagon" => bench_hexagon::run(paths, toolchain, options),
        "compile" => bench_compile::bench(paths, toolchain, options),
        "analyses" => bench_analyses::run(paths, toolchain, options),
        "sim" => sim_speed(paths, options),
        _ => unreachable!("names are checked by check_names"),
    }
}

/// Where the report and its plots go.
pub fn report_dir(paths: &Paths) -> std::path::PathBuf {
    paths.root.join("target").join("bench")
}

/// Writes `report.md` with the sections and their SVG plots, and returns the summary
/// to print.
pub fn write_report(paths: &Paths, sections: &[Section]) -> Result<String, String> {
    let dir = report_dir(paths);
    fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut report = format!(
        "# Benchmark report\n\nWritten by `./y.sh bench`; {}.\n\n",
        machine(paths)
    );
    let mut summary = String::new();
    for section in sections {
        report.push_str(&format!("## {}\n\n{}\n", section.title, section.markdown));
        for plot in &section.plots {
            write_file(&dir.join(&plot.file), &plot.to_svg())?;
            report.push_str(&format!("![{}]({})\n\n", plot.title, plot.file));
        }
        if !section.summary.is_empty() {
            summary.push_str(&format!("{}:\n", section.title));
            for line in &section.summary {
                summary.push_str(&format!("  {line}\n"));
            }
        }
    }
    write_file(&dir.join("report.md"), &report)?;
    Ok(summary)
}

/// The figures of the `stats:` line that `vliw-run --stats` prints last on stderr.
pub(crate) struct Stats(BTreeMap<String, u64>);

impl Stats {
    pub(crate) fn parse(stderr: &[u8]) -> Result<Stats, String> {
        let text = String::from_utf8_lossy(stderr);
        let line = text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .and_then(|l| l.trim().strip_prefix("stats:"))
            .ok_or("vliw-run --stats printed no `stats:` line last on stderr")?;
        let mut figures = BTreeMap::new();
        for pair in line.split_whitespace() {
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("bad stats field `{pair}`"))?;
            let value = value
                .parse()
                .map_err(|_| format!("bad stats value `{pair}`"))?;
            figures.insert(key.to_string(), value);
        }
        Ok(Stats(figures))
    }

    pub(crate) fn get(&self, key: &str) -> Result<u64, String> {
        self.0
            .get(key)
            .copied()
            .ok_or_else(|| format!("the stats line has no `{key}`"))
    }
}

fn sim_speed(paths: &Paths, options: BenchOptions) -> Result<Section, String> {
    let source = paths.tests.join("bench").join("sim_loop.s");
    let work = paths.build.join("bench");
    fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let object = work.join("sim_loop.o");
    let exe = work.join("sim_loop");
    tool(
        paths,
        "vliw-as",
        &[source.as_os_str(), "-o".as_ref(), object.as_os_str()],
    )?;
    tool(
        paths,
        "vliw-ld",
        &[object.as_os_str(), "-o".as_ref(), exe.as_os_str()],
    )?;

    let runs = options.runs();
    let mut times = Vec::new();
    let mut stats = None;
    for run in 1..=runs {
        eprintln!("[bench] sim: run {run} of {runs}");
        let mut cmd = Command::new(paths.tool("vliw-run"));
        cmd.arg("--stats").arg(&exe);
        let start = Instant::now();
        let out = process::run(&mut cmd, b"", start + TIMEOUT)?;
        let elapsed = start.elapsed();
        if !out.success() {
            return Err(format!(
                "vliw-run on {} failed ({}): {}",
                paths.show(&exe),
                out.describe(),
                out.stderr_text().trim_end()
            ));
        }
        times.push(elapsed);
        stats = Some(Stats::parse(&out.stderr)?);
    }
    let stats = stats.expect("at least one run");
    let (ops, bundles, cycles) = (
        stats.get("ops")?,
        stats.get("bundles")?,
        stats.get("cycles")?,
    );
    let best = times
        .iter()
        .min()
        .copied()
        .expect("at least one run")
        .as_secs_f64();
    let rate = |n: u64, secs: f64| n as f64 / secs / 1e6;

    let mut markdown = format!(
        "A hand-written loop that keeps the simulator's fast path busy: `{}`. Simulated \
         per run: {ops} ops, {bundles} bundles, {cycles} cycles ({:.2} ops/bundle).\n\n",
        paths.show(&source),
        ops as f64 / bundles.max(1) as f64
    );
    markdown.push_str("| run | wall time (s) | M ops/s | M bundles/s |\n|---|---|---|---|\n");
    for (i, time) in times.iter().enumerate() {
        let secs = time.as_secs_f64();
        markdown.push_str(&format!(
            "| {} | {secs:.3} | {:.1} | {:.1} |\n",
            i + 1,
            rate(ops, secs),
            rate(bundles, secs)
        ));
    }
    let headline = format!(
        "best of {runs}: {:.1} M simulated ops/s, {:.1} M bundles/s",
        rate(ops, best),
        rate(bundles, best)
    );
    markdown.push_str(&format!(
        "\n**{headline}** (wall time of the whole `vliw-run`, loading included).\n"
    ));
    Ok(Section {
        title: "Peak simulator speed".into(),
        markdown,
        plots: Vec::new(),
        summary: vec![headline],
    })
}

pub(crate) fn tool(paths: &Paths, name: &str, args: &[&std::ffi::OsStr]) -> Result<(), String> {
    let out = process::run(
        Command::new(paths.tool(name)).args(args),
        b"",
        Instant::now() + TIMEOUT,
    )?;
    if out.success() {
        Ok(())
    } else {
        Err(format!(
            "{name} failed ({}): {}",
            out.describe(),
            out.stderr_text().trim_end()
        ))
    }
}

pub(crate) fn write_file(path: &Path, text: &str) -> Result<(), String> {
    fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Where and when a measurement was taken: date, commit, CPU.
pub(crate) fn machine(paths: &Paths) -> String {
    let commit = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(&paths.root)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    let cpu = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines().find_map(|l| {
                l.strip_prefix("model name")
                    .and_then(|r| r.split_once(':'))
                    .map(|(_, m)| m.trim().to_string())
            })
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    format!(
        "measured {} at commit {commit} on {cpu} ({threads} threads)",
        today()
    )
}

/// Today's UTC date as YYYY-MM-DD (civil-from-days, proleptic Gregorian calendar).
fn today() -> String {
    let days = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() / 86400)
        .unwrap_or(0) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_last_stats_line() {
        let stderr = b"hello\nstats: cycles=10 bundles=8 ops=20 nullified=1 stalls=2 branches=3\n";
        let stats = Stats::parse(stderr).unwrap();
        assert_eq!(stats.get("ops").unwrap(), 20);
        assert_eq!(stats.get("bundles").unwrap(), 8);
        assert!(stats.get("ipc").is_err());
        assert!(Stats::parse(b"stats: cycles=10\nlater line\n").is_err());
        assert!(Stats::parse(b"stats: cycles=x\n").is_err());
    }

    #[test]
    fn checks_names() {
        assert!(check_names(&["sim".into(), "compile".into(), "hexagon".into()]).is_ok());
        assert!(
            check_names(&["simm".into()])
                .unwrap_err()
                .contains("known: programs, hexagon, compile, analyses, sim")
        );
    }
}
