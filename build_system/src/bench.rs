//! `bench`: measurements that are reported, never pass/fail (DESIGN.md section 8).
//!
//! Wall-clock figures are noisy: each is the best of a few runs, and the report says
//! on what machine and commit it was taken.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::bench_compile;
use crate::paths::Paths;
use crate::process;
use crate::toolchain::Toolchain;

/// The benchmarks `bench` knows, with a one-line description each.
pub const BENCHES: [(&str, &str); 2] = [
    (
        "sim",
        "simulator speed: simulated ops/s and bundles/s on tests/bench/sim_loop.s",
    ),
    (
        "compile",
        "compile time per phase of generated programs, ours against LLVM -O0, and its growth with function size",
    ),
];

const RUNS: usize = 3;
/// Generous: a benchmark run takes seconds; this only stops a runaway.
const TIMEOUT: Duration = Duration::from_secs(600);

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

/// Runs one benchmark (the workspace and tools are built) and returns its report.
pub fn run(paths: &Paths, toolchain: &Toolchain, name: &str) -> Result<String, String> {
    match name {
        "sim" => sim_speed(paths),
        "compile" => bench_compile::compile_speed(paths, toolchain),
        _ => unreachable!("names are checked by check_names"),
    }
}

/// The figures of the `stats:` line that `vliw-run --stats` prints last on stderr.
struct Stats(BTreeMap<String, u64>);

impl Stats {
    fn parse(stderr: &[u8]) -> Result<Stats, String> {
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

    fn get(&self, key: &str) -> Result<u64, String> {
        self.0
            .get(key)
            .copied()
            .ok_or_else(|| format!("the stats line has no `{key}`"))
    }
}

fn sim_speed(paths: &Paths) -> Result<String, String> {
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

    let mut times = Vec::new();
    let mut stats = None;
    for run in 1..=RUNS {
        eprintln!("[bench] sim: run {run} of {RUNS}");
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
    let stats = stats.expect("RUNS > 0");
    let (ops, bundles, cycles) = (
        stats.get("ops")?,
        stats.get("bundles")?,
        stats.get("cycles")?,
    );
    let best = times.iter().min().copied().expect("RUNS > 0").as_secs_f64();
    let rate = |n: u64, secs: f64| n as f64 / secs / 1e6;

    let mut report = String::new();
    report.push_str("# Simulator speed\n\n");
    report.push_str(&format!(
        "Program: `{}`, {}.\n\n",
        paths.show(&source),
        machine(paths)
    ));
    report.push_str(&format!(
        "Simulated per run: {ops} ops, {bundles} bundles, {cycles} cycles ({:.2} ops/bundle).\n\n",
        ops as f64 / bundles.max(1) as f64
    ));
    report.push_str("| run | wall time (s) | Mops/s | Mbundles/s |\n|---|---|---|---|\n");
    for (i, time) in times.iter().enumerate() {
        let secs = time.as_secs_f64();
        report.push_str(&format!(
            "| {} | {secs:.3} | {:.1} | {:.1} |\n",
            i + 1,
            rate(ops, secs),
            rate(bundles, secs)
        ));
    }
    report.push_str(&format!(
        "\n**Best of {RUNS}: {:.1} M simulated ops/s, {:.1} M bundles/s** \
         (wall time of the whole `vliw-run`, loading included).\n",
        rate(ops, best),
        rate(bundles, best)
    ));
    write_report(&paths.build.join("bench").join("sim.md"), &report)?;
    Ok(report)
}

fn tool(paths: &Paths, name: &str, args: &[&std::ffi::OsStr]) -> Result<(), String> {
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

fn write_report(path: &Path, report: &str) -> Result<(), String> {
    fs::write(path, report).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    eprintln!("[bench] report written to {}", path.display());
    Ok(())
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
        assert!(check_names(&["sim".into(), "compile".into()]).is_ok());
        assert!(
            check_names(&["simm".into()])
                .unwrap_err()
                .contains("known: sim, compile")
        );
    }
}
