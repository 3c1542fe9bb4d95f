//! `test`: the suites listed in tests/suites.txt (like cg_clif's config.txt).
//!
//! The file lists one suite per line, `NAME  one-line description`, in the order
//! `./y.sh test` runs them; `#` starts a comment line. Each name must be one this
//! build system implements (see `SUITES`); removing a line disables that suite.
//! `NAME  [explicit] description` lists a suite that runs only when named
//! (`./y.sh test NAME`), not in a plain `./y.sh test`.

use std::fs;

use crate::build::{self, Profile};
use crate::paths::Paths;
use crate::toolchain::Toolchain;
use crate::{test_extended, test_fuzz, test_no_sysroot, test_programs, test_sysroot, test_target};

/// The suites this build system can run.
const SUITES: [&str; 11] = [
    "unit",
    "target",
    "no_sysroot",
    "programs",
    "extended",
    "extended_sample",
    "sysroot",
    "sysroot_sample",
    "cargo",
    "fuzz",
    "fuzz_sample",
];

/// The suites that take --host-only.
const HOST_ONLY_SUITES: [&str; 2] = ["no_sysroot", "programs"];

/// The suites that take --binary and --profile.
const SYSROOT_SUITES: [&str; 2] = ["sysroot", "sysroot_sample"];

/// The suites that take --sample, --program, --all-configs and --config.
const FUZZ_SUITES: [&str; 2] = ["fuzz", "fuzz_sample"];

/// The flag that keeps a suite out of a plain `./y.sh test`.
const EXPLICIT: &str = "[explicit]";

#[derive(Debug)]
pub struct Suite {
    pub name: String,
    pub description: String,
    /// Runs only when named on the command line.
    pub explicit: bool,
}

/// Options of `test` that apply to one suite.
#[derive(Default)]
pub struct Options {
    /// no_sysroot, programs: only the host (LLVM) half.
    pub host_only: bool,
    /// sysroot, sysroot_sample: only these test binaries (empty: all).
    pub binaries: Vec<String>,
    /// sysroot, sysroot_sample: only this build profile (`None`: both).
    pub profile: Option<test_sysroot::Profile>,
    /// fuzz, fuzz_sample: the sample size, programs and configurations.
    pub fuzz: test_fuzz::Options,
}

pub fn load_suites(paths: &Paths) -> Result<Vec<Suite>, String> {
    let path = paths.tests.join("suites.txt");
    let text =
        fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse_suites(&text).map_err(|e| format!("{}: {e}", paths.show(&path)))
}

fn parse_suites(text: &str) -> Result<Vec<Suite>, String> {
    let mut suites: Vec<Suite> = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (name, description) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let description = description.trim();
        let (explicit, description) = match description.strip_prefix(EXPLICIT) {
            Some(rest) => (true, rest.trim()),
            None => (false, description),
        };
        if !SUITES.contains(&name) {
            return Err(format!(
                "line {}: unknown suite `{name}`; the build system implements {}",
                index + 1,
                SUITES.join(", ")
            ));
        }
        if description.is_empty() {
            return Err(format!(
                "line {}: suite `{name}` needs a one-line description",
                index + 1
            ));
        }
        if suites.iter().any(|s| s.name == name) {
            return Err(format!("line {}: suite `{name}` listed twice", index + 1));
        }
        suites.push(Suite {
            name: name.to_string(),
            description: description.to_string(),
            explicit,
        });
    }
    Ok(suites)
}

/// Prints the suites, for `test --list` and `test --help`.
pub fn list(suites: &[Suite]) {
    let width = suites.iter().map(|s| s.name.len()).max().unwrap_or(0);
    for s in suites {
        let only = if s.explicit { "(only when named) " } else { "" };
        println!("  {:width$}  {only}{}", s.name, s.description);
    }
}

/// Runs the selected suites (all but the explicit ones when `selected` is empty), then
/// prints a summary. Every suite runs even after a failure, so that one report shows
/// them all.
pub fn test(
    paths: &Paths,
    toolchain: &Toolchain,
    selected: &[String],
    options: &Options,
) -> Result<bool, String> {
    let suites = load_suites(paths)?;
    if options.host_only
        && !selected
            .iter()
            .any(|s| HOST_ONLY_SUITES.contains(&s.as_str()))
    {
        return Err(
            "--host-only is an option of the no_sysroot and programs suites: \
                    ./y.sh test no_sysroot --host-only"
                .into(),
        );
    }
    if (!options.binaries.is_empty() || options.profile.is_some())
        && !selected
            .iter()
            .any(|s| SYSROOT_SUITES.contains(&s.as_str()))
    {
        return Err("--binary and --profile are options of the sysroot suites: \
                    ./y.sh test sysroot --binary coretests --profile debug"
            .into());
    }
    let fuzz = &options.fuzz;
    if (fuzz.sample.is_some()
        || !fuzz.programs.is_empty()
        || fuzz.all_configs
        || !fuzz.configs.is_empty())
        && !selected.iter().any(|s| FUZZ_SUITES.contains(&s.as_str()))
    {
        return Err(
            "--sample, --program, --all-configs and --config are options of the fuzz \
             suites: ./y.sh test fuzz --program rl_5003"
                .into(),
        );
    }
    let names: Vec<&str> = if selected.is_empty() {
        for s in suites.iter().filter(|s| s.explicit) {
            eprintln!(
                "[test] suite {} runs only when named: ./y.sh test {}",
                s.name, s.name
            );
        }
        suites
            .iter()
            .filter(|s| !s.explicit)
            .map(|s| s.name.as_str())
            .collect()
    } else {
        for name in selected {
            if !suites.iter().any(|s| s.name == *name) {
                let known: Vec<&str> = suites.iter().map(|s| s.name.as_str()).collect();
                return Err(format!(
                    "unknown test suite `{name}`; tests/suites.txt lists {}",
                    known.join(", ")
                ));
            }
        }
        selected.iter().map(String::as_str).collect()
    };

    let mut results = Vec::new();
    for name in &names {
        eprintln!("[test] suite {name}");
        let started = std::time::Instant::now();
        let result = match *name {
            "unit" => unit(paths, toolchain),
            "target" => target(paths, toolchain),
            "no_sysroot" => no_sysroot(paths, toolchain, options),
            "programs" => programs(paths, toolchain, options),
            "extended" => extended(paths, toolchain, test_extended::Coverage::Full),
            "extended_sample" => extended(paths, toolchain, test_extended::Coverage::Alternating),
            "cargo" => cargo_suite(paths, toolchain),
            "sysroot" => sysroot(paths, toolchain, 1, options),
            "sysroot_sample" => sysroot(paths, toolchain, SYSROOT_SAMPLE, options),
            "fuzz" => fuzz_suite(paths, toolchain, None, options),
            "fuzz_sample" => fuzz_suite(paths, toolchain, Some(test_fuzz::CI_SAMPLE), options),
            _ => unreachable!("suite names are checked by parse_suites"),
        };
        let seconds = started.elapsed().as_secs();
        match &result {
            Ok(_) => eprintln!("[test] suite {name} passed in {seconds} s"),
            Err(message) => eprintln!("[test] suite {name} FAILED in {seconds} s: {message}"),
        }
        results.push((name, result, seconds));
    }

    println!();
    println!("test summary:");
    let width = names.iter().map(|n| n.len()).max().unwrap_or(0);
    for (name, result, seconds) in &results {
        match result {
            Ok(summary) => println!("  {name:width$}  ok in {seconds} s ({summary})"),
            Err(message) => println!("  {name:width$}  FAILED in {seconds} s: {message}"),
        }
    }
    let failed = results.iter().filter(|(_, r, _)| r.is_err()).count();
    println!("suites: {} passed, {failed} failed", results.len() - failed);
    Ok(failed == 0)
}

/// The workspace's own unit and property tests, then the build system's (a separate
/// workspace built with stable, see y.sh). Ok holds a short summary.
fn unit(paths: &Paths, toolchain: &Toolchain) -> Result<String, String> {
    let run = |mut cmd: std::process::Command, what: &str| -> Result<(), String> {
        let status = cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("{what} failed ({status})"))
        }
    };
    // Formatting first: it is cheap and says at once when rustfmt was not run.
    let mut fmt = toolchain.cargo(&paths.root);
    fmt.args(["fmt", "--all", "--check"]);
    run(fmt, "cargo fmt --all --check (run `cargo fmt --all`)")?;
    let mut fmt_build_system = toolchain.cargo(&paths.root);
    fmt_build_system.args([
        "fmt",
        "--check",
        "--manifest-path",
        "build_system/Cargo.toml",
    ]);
    run(fmt_build_system, "cargo fmt --check of build_system")?;
    let mut workspace = toolchain.cargo(&paths.root);
    workspace.args(["test", "--workspace", "--release", "--locked"]);
    run(workspace, "cargo test --workspace --release")?;
    let mut build_system = std::process::Command::new("cargo");
    build_system
        .current_dir(&paths.root)
        .env("RUSTUP_TOOLCHAIN", "stable")
        .args([
            "test",
            "--release",
            "--locked",
            "--manifest-path",
            "build_system/Cargo.toml",
        ])
        .args(["--target-dir", "build_system/target"]);
    run(build_system, "cargo test of build_system")?;
    Ok("rustfmt check, cargo test --workspace --release, and build_system's tests".into())
}

fn target(paths: &Paths, toolchain: &Toolchain) -> Result<String, String> {
    build::build(paths, toolchain, Profile::Release)?;
    let outcome = test_target::run(paths)?;
    counted(outcome.passed, outcome.failed, false)
}

/// The `#![no_core]` programs, built by LLVM for the host and by our backend for the
/// target; with --host-only only the former, which needs nothing of dist/.
fn no_sysroot(paths: &Paths, toolchain: &Toolchain, options: &Options) -> Result<String, String> {
    if !options.host_only {
        build::build(paths, toolchain, Profile::Release)?;
    }
    let outcome = test_no_sysroot::run(
        paths,
        toolchain,
        &test_no_sysroot::Options {
            host_only: options.host_only,
        },
    )?;
    counted(outcome.passed, outcome.failed, options.host_only)
}

/// The std programs, built by LLVM for the host and by dist/rustc-vliw for the
/// target; with --host-only only the former, which needs nothing of dist/.
fn programs(paths: &Paths, toolchain: &Toolchain, options: &Options) -> Result<String, String> {
    if !options.host_only {
        build::build(paths, toolchain, Profile::Release)?;
    }
    let outcome = test_programs::run(
        paths,
        toolchain,
        &test_programs::Options {
            host_only: options.host_only,
        },
    )?;
    counted(outcome.passed, outcome.failed, options.host_only)
}

/// Real crates' test suites on the simulator beside the host (test_extended.rs).
fn extended(
    paths: &Paths,
    toolchain: &Toolchain,
    coverage: test_extended::Coverage,
) -> Result<String, String> {
    build::build(paths, toolchain, Profile::Release)?;
    let outcome = test_extended::run(paths, toolchain, coverage)?;
    against_the_host(outcome.regressions, outcome.summary)
}

/// The verdict of a suite that counts passed and failed tests.
fn counted(passed: usize, failed: usize, host_only: bool) -> Result<String, String> {
    let mut summary = format!("{passed} passed, {failed} failed");
    if host_only {
        summary.push_str(", host only");
    }
    if failed == 0 {
        Ok(summary)
    } else {
        Err(summary)
    }
}

/// The verdict of a suite that compares libtest's results with the host's.
fn against_the_host(regressions: usize, summary: String) -> Result<String, String> {
    if regressions == 0 {
        Ok(summary)
    } else {
        Err(format!("{regressions} regressions: {summary}"))
    }
}

/// dist/cargo-vliw in tests/cargo/demo against cargo for the host (test_cargo.rs).
fn cargo_suite(paths: &Paths, toolchain: &Toolchain) -> Result<String, String> {
    build::build(paths, toolchain, Profile::Release)?;
    let outcome = crate::test_cargo::run(paths, toolchain)?;
    counted(outcome.passed, outcome.failed, false)
}

/// CI's share of the sysroot suite: one test in this many (`test_sysroot::sampled`).
const SYSROOT_SAMPLE: u64 = 16;
/// CI's sample builds std's tests at opt-level 3 only: their four sysroots and test
/// builds at both levels took a quarter of CI's time.
const SYSROOT_SAMPLE_STD_PROFILES: [test_sysroot::Profile; 1] = [test_sysroot::Profile::Release];

/// coretests and alloctests on the simulator beside the host (test_sysroot.rs): all
/// of them, or one in `sample`.
fn sysroot(
    paths: &Paths,
    toolchain: &Toolchain,
    sample: u64,
    options: &Options,
) -> Result<String, String> {
    build::build(paths, toolchain, Profile::Release)?;
    let profiles = match options.profile {
        Some(p) => vec![p],
        None => test_sysroot::PROFILES.to_vec(),
    };
    let std_profiles = if sample > 1 && options.profile.is_none() {
        SYSROOT_SAMPLE_STD_PROFILES.to_vec()
    } else {
        profiles.clone()
    };
    let outcome = test_sysroot::run(
        paths,
        toolchain,
        &test_sysroot::Options {
            binaries: options.binaries.clone(),
            profiles,
            sample,
            std_profiles,
        },
    )?;
    against_the_host(outcome.regressions, outcome.lines.join("; "))
}

/// The rustlantis corpus against its LLVM host outputs (test_fuzz.rs): all programs,
/// or CI's sample of `sample`.
fn fuzz_suite(
    paths: &Paths,
    toolchain: &Toolchain,
    sample: Option<usize>,
    options: &Options,
) -> Result<String, String> {
    test_fuzz::corpus(paths)?;
    build::build(paths, toolchain, Profile::Release)?;
    let outcome = test_fuzz::run(paths, toolchain, &options.fuzz, sample)?;
    let summary = format!("{}: {}", outcome.total, outcome.summary);
    if outcome.total.failed == 0 {
        Ok(summary)
    } else {
        Err(summary)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_suite_list() {
        let suites = parse_suites(
            "# comment\n\nunit   the unit tests\ntarget\tasm programs # not a comment\n",
        )
        .unwrap();
        let names: Vec<&str> = suites.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["unit", "target"]);
        assert_eq!(suites[1].description, "asm programs # not a comment");
        assert!(!suites[0].explicit);
    }

    #[test]
    fn explicit_suites() {
        let suites =
            parse_suites("unit  unit tests\nno_sysroot  [explicit] mini_core programs\n").unwrap();
        assert!(!suites[0].explicit);
        assert!(suites[1].explicit);
        assert_eq!(suites[1].description, "mini_core programs");
        assert!(
            parse_suites("no_sysroot [explicit]\n")
                .unwrap_err()
                .contains("description")
        );
    }

    #[test]
    fn rejects_bad_lists() {
        assert!(
            parse_suites("nope  a suite we do not have\n")
                .unwrap_err()
                .contains("unknown suite")
        );
        assert!(parse_suites("unit\n").unwrap_err().contains("description"));
        assert!(
            parse_suites("unit a\nunit b\n")
                .unwrap_err()
                .contains("twice")
        );
    }
}
