//! The `extended` suite: the test suites of real crates from crates.io, built by LLVM
//! for the host (the expectation) and by `dist/cargo-vliw` for VLIW-64, run natively
//! and on the simulator with libtest; as rustc_codegen_cranelift's extended tests.
//!
//! `tests/extended/crates.txt` lists the crates, `NAME VERSION [CARGO-ARGS...]`, and
//! `tests/extended/NAME.Cargo.lock` the resolution of each one's dev-dependencies
//! (tests/extended/README.md). Per crate:
//!
//! 1. cargo fetches the exact version through a throwaway package that depends on
//!    `NAME = "=VERSION"` (`build/extended/fetch/NAME-VERSION`), and `cargo metadata`
//!    says where it unpacked the source;
//! 2. the source is copied to `build/extended/NAME-VERSION` (once: a registry's
//!    source does not change), given an empty `[workspace]` table (it lies inside
//!    this repository's workspace) and the committed lock file;
//! 3. `cargo test --locked --tests --no-run CARGO-ARGS` builds the unit and
//!    integration tests for the host, `dist/cargo-vliw test ...` the same for
//!    VLIW-64, once with `--release` (opt-level 3) and once without (opt-level 0,
//!    debug assertions and overflow checks on both sides);
//! 4. every host test binary runs natively; its namesake runs on the simulator with
//!    test_sysroot's batched runner (a failing test unwinds and libtest goes on; a
//!    run that dies inside a test anyway is recorded and the rest run again);
//! 5. `cargo test --locked --doc CARGO-ARGS` runs the doctests on the host, and
//!    `dist/cargo-vliw test --doc ...` has rustdoc build each with our backend and
//!    run it on the simulator (dist/vliw-test-run, with a cycle limit), at the same
//!    profile: the library at its opt level, the doctests themselves unoptimized on
//!    both sides (cargo gives rustdoc no opt level); their verdicts are compared
//!    apart from the test binaries'.
//!
//! The suite fails when a test that passes on the host does not pass on ours, unless
//! `tests/extended/skip.txt` lists it (`CRATE TEST REASON`, test_sysroot's format;
//! TEST is libtest's name in any of the crate's test binaries).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::paths::Paths;
use crate::process;
use crate::sysroot::{Layout, json_string};
use crate::test_sysroot::{self, Comparison, PROFILES, Profile, Simulator, Verdict};
use crate::toolchain::Toolchain;

const CRATES_FILE: &str = "tests/extended/crates.txt";
const SKIP_FILE: &str = "tests/extended/skip.txt";
/// Simulators at once, one per core of a CI machine: the slowest crates' tests take
/// several batches (`hashbrown`, `indexmap`, `regex-syntax`).
const JOBS: usize = 2;
/// The cycle limit of one simulator run of a batch of tests (a few minutes): a
/// test that loops forever fails after that; a test that needs more is listed in
/// skip.txt as too slow.
const MAX_CYCLES: u64 = 25_000_000_000;
/// The cycle limit of one doctest on the simulator (`VLIW_RUN_FLAGS` of
/// dist/vliw-test-run): each is a program of its own; a doctest that needs more
/// fails.
const DOCTEST_MAX_CYCLES: u64 = 5_000_000_000;
/// The wall time of one `cargo test --doc` (building the doctests included).
const DOCTEST_TIMEOUT: Duration = Duration::from_secs(3600);
/// Marks a complete copy of a crate's source in build/extended.
const COPIED: &str = ".extended-source";

/// One line of crates.txt.
#[derive(Debug, PartialEq)]
pub struct Crate {
    pub name: String,
    pub version: String,
    /// Extra arguments of both `cargo test` commands (features, `--test NAME`...).
    pub cargo_args: Vec<String>,
}

pub struct Outcome {
    /// The sums over all crates.
    pub summary: String,
    pub regressions: usize,
}

/// Which opt levels each crate is tested at.
#[derive(Clone, Copy, PartialEq)]
pub enum Coverage {
    /// Every crate at opt-level 3 and at opt-level 0 (`./y.sh test extended`).
    Full,
    /// CI's share (`extended_sample`): every crate at one opt level, alternating down
    /// crates.txt (the first at opt-level 3, the second at 0, ...), so both levels
    /// and every crate are covered in about half the time.
    Alternating,
}

impl Coverage {
    fn profiles(self, index: usize) -> Vec<Profile> {
        match self {
            Coverage::Full => PROFILES.to_vec(),
            Coverage::Alternating => vec![PROFILES[index % PROFILES.len()]],
        }
    }
}

pub fn run(paths: &Paths, toolchain: &Toolchain, coverage: Coverage) -> Result<Outcome, String> {
    if !Layout::new(paths).is_installed() || !paths.dist.join("cargo-vliw").is_file() {
        return Err("the sysroot is not built: run ./y.sh build".into());
    }
    let crates = load_crates(&paths.root.join(CRATES_FILE))?;
    let skips = test_sysroot::load_skips(&paths.root.join(SKIP_FILE))?;
    for skip in &skips {
        if !crates.iter().any(|c| c.name == skip.binary) {
            return Err(format!(
                "{SKIP_FILE}: {} {}: crate not in {CRATES_FILE}",
                skip.binary, skip.test
            ));
        }
    }
    let dir = paths.build.join("extended");
    let started = Instant::now();
    let mut total = Comparison::default();
    let mut total_doc = Comparison::default();
    let mut doc_time = std::time::Duration::ZERO;
    let mut total_cycles = 0;
    let mut regressions = 0;
    let mut failures = Vec::new();
    let mut builds = 0;
    for (index, krate) in crates.iter().enumerate() {
        for profile in coverage.profiles(index) {
            builds += 1;
            let crate_started = Instant::now();
            let label = format!("{} {} ({})", krate.name, krate.version, profile.name());
            let skipped = test_sysroot::skipped_for(&skips, &krate.name, profile);
            let host_skipped = test_sysroot::host_skipped_for(&skips, &krate.name, profile);
            match run_crate(
                paths,
                toolchain,
                &dir,
                krate,
                profile,
                &skipped,
                &host_skipped,
            ) {
                Ok((report, cycles, doc)) => {
                    for line in &report.regressions {
                        println!("REGRESSION {} ({}) {line}", krate.name, profile.name());
                    }
                    regressions += report.regressions.len();
                    let line = format!(
                        "{label}: {}",
                        report.describe(cycles, crate_started.elapsed())
                    );
                    println!("{line}");
                    total.add(report.clone());
                    total_cycles += cycles;
                    if let Some((doc, elapsed)) = doc {
                        for line in &doc.regressions {
                            println!(
                                "REGRESSION {} ({}) doctest {line}",
                                krate.name,
                                profile.name()
                            );
                        }
                        regressions += doc.regressions.len();
                        println!("{label} doctests: {}", describe_doctests(&doc, elapsed));
                        total_doc.add(doc);
                        doc_time += elapsed;
                    }
                }
                Err(e) => {
                    println!("{label}: FAILED: {e}");
                    failures.push(label);
                }
            }
        }
    }
    if !failures.is_empty() {
        return Err(format!(
            "{} of {} crate builds (each crate at each opt level) not tested ({}); see above",
            failures.len(),
            builds,
            failures.join(", ")
        ));
    }
    let levels = match coverage {
        Coverage::Full => "at opt-level 3 and 0",
        Coverage::Alternating => "each at one opt level, alternating 3 and 0",
    };
    let summary = format!(
        "{} crates {levels}: {}; doctests: {}",
        crates.len(),
        total.describe(total_cycles, started.elapsed()),
        describe_doctests(&total_doc, doc_time)
    );
    println!("{summary}");
    Ok(Outcome {
        summary,
        regressions,
    })
}

/// Fetches, copies, builds and runs one crate's tests on both sides.
fn run_crate(
    paths: &Paths,
    toolchain: &Toolchain,
    dir: &Path,
    krate: &Crate,
    profile: Profile,
    skipped: &BTreeSet<&str>,
    host_skipped: &BTreeSet<&str>,
) -> Result<(Comparison, u64, Option<(Comparison, Duration)>), String> {
    let name = format!("{}-{}", krate.name, krate.version);
    let id = format!("{name} ({})", profile.name());
    let source = fetch(toolchain, dir, krate)?;
    let copy = dir.join(&name);
    prepare_copy(paths, toolchain, &source, &copy, krate)?;
    let target_dir = dir.join("target").join(&name);

    eprintln!("[extended] {id}: building the tests for the host (LLVM)");
    let mut host_cargo = toolchain.cargo(&copy);
    host_cargo.arg("test");
    let host = build_tests(host_cargo, &target_dir, krate, profile)?;
    eprintln!("[extended] {id}: building the tests for VLIW-64 (dist/cargo-vliw)");
    let mut our_cargo = Command::new(paths.dist.join("cargo-vliw"));
    our_cargo.current_dir(&copy).arg("test");
    let ours = build_tests(our_cargo, &target_dir, krate, profile)?;

    let simulator = Simulator {
        paths,
        jobs: JOBS,
        max_cycles: MAX_CYCLES,
        suite: "extended",
        sample: 1,
        dirs: Vec::new(),
    };
    let mut report = Comparison::default();
    let mut cycles = 0;
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for (binary, host_exe) in &host {
        eprintln!("[extended] {id}: {binary} on the host");
        let host_results = test_sysroot::run_host(host_exe, host_skipped).or_else(|e| {
            // A binary without tests (all cfg'd out) prints no verdict.
            if e.contains("ran no test") {
                Ok(BTreeMap::new())
            } else {
                Err(e)
            }
        })?;
        seen.extend(host_results.keys().cloned());
        let Some(our_exe) = ours.get(binary) else {
            return Err(format!(
                "test binary {binary} was built for the host but not for VLIW-64"
            ));
        };
        eprintln!("[extended] {id}: {binary} on the simulator");
        let (our_results, used) = simulator.run_tests(our_exe, skipped)?;
        cycles += used;
        let mut one = test_sysroot::compare(&host_results, &our_results, skipped);
        for r in &mut one.regressions {
            *r = format!("{binary} {r}");
        }
        report.add(one);
    }
    let doc = if selects_targets(&krate.cargo_args) {
        eprintln!("[extended] {id}: no doctests: CARGO-ARGS select the test targets");
        None
    } else {
        let doc_started = Instant::now();
        eprintln!("[extended] {id}: doctests on the host");
        let mut host_cargo = toolchain.cargo(&copy);
        host_cargo.arg("test");
        let host_doc = run_doctests(
            host_cargo,
            &target_dir,
            krate,
            profile,
            host_skipped,
            "host",
        )?;
        eprintln!("[extended] {id}: doctests on the simulator (dist/cargo-vliw test --doc)");
        let mut our_cargo = Command::new(paths.dist.join("cargo-vliw"));
        our_cargo.current_dir(&copy).arg("test").env(
            "VLIW_RUN_FLAGS",
            format!("--max-cycles {DOCTEST_MAX_CYCLES}"),
        );
        let our_doc = run_doctests(our_cargo, &target_dir, krate, profile, skipped, "vliw")?;
        seen.extend(host_doc.keys().cloned());
        Some((
            test_sysroot::compare(&host_doc, &our_doc, skipped),
            doc_started.elapsed(),
        ))
    };
    for test in skipped {
        if !seen.contains(*test) {
            eprintln!(
                "[extended] warning: {SKIP_FILE} lists {} {test}, which no host test \
                 binary of the crate has",
                krate.name
            );
        }
    }
    Ok((report, cycles, doc))
}

/// Whether the crate's cargo arguments choose test targets (`--test NAME`, `--lib`...),
/// which cargo does not combine with `--doc`.
fn selects_targets(args: &[String]) -> bool {
    const SELECTING: [&str; 10] = [
        "--lib",
        "--bin",
        "--bins",
        "--test",
        "--tests",
        "--example",
        "--examples",
        "--bench",
        "--benches",
        "--all-targets",
    ];
    args.iter()
        .any(|a| SELECTING.contains(&a.split('=').next().unwrap_or(a)))
}

/// `cargo test [--release] --locked --doc CARGO-ARGS` (`skipped` passed on to
/// rustdoc's harness as `--exact --skip NAME`); returns the doctests' verdicts as
/// libtest prints them. A failing doctest fails the command but not this function;
/// a crate that does not build does.
fn run_doctests(
    mut cargo: Command,
    target_dir: &Path,
    krate: &Crate,
    profile: Profile,
    skipped: &BTreeSet<&str>,
    side: &str,
) -> Result<BTreeMap<String, Verdict>, String> {
    profile.apply(&mut cargo);
    cargo
        .args(["--locked", "--doc"])
        .args(&krate.cargo_args)
        .env("CARGO_TARGET_DIR", target_dir)
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUSTDOCFLAGS")
        .env_remove("CARGO_ENCODED_RUSTDOCFLAGS")
        .env_remove("CARGO_BUILD_TARGET")
        .env_remove("RUST_BACKTRACE");
    if !skipped.is_empty() {
        // (cargo-vliw adds its harness arguments after these)
        cargo.args(["--", "--exact"]);
        for test in skipped {
            cargo.args(["--skip", test]);
        }
    }
    let out = process::run(&mut cargo, b"", Instant::now() + DOCTEST_TIMEOUT)?;
    if out.timed_out() {
        return Err(format!("the doctests timed out on {side}"));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !stdout.contains("test result: ") {
        return Err(format!(
            "cargo test --doc on {side} ran no doctest ({}):\n{}",
            out.describe(),
            test_sysroot::tail(&out.stderr_text(), 30)
        ));
    }
    let (results, _) = test_sysroot::parse_results(&stdout);
    Ok(results)
}

/// `host P passed/F failed/I ignored; vliw ...; M not built for the target; R
/// regressions; T s` of a crate's (or all crates') doctests.
fn describe_doctests(doc: &Comparison, elapsed: Duration) -> String {
    format!(
        "host {} passed/{} failed/{} ignored; vliw {} passed/{} failed/{} ignored, \
         {} skipped (listed), {} not built for the target; {} regressions; {:.0} s",
        doc.host.0,
        doc.host.1,
        doc.host.2,
        doc.ours.0,
        doc.ours.1,
        doc.ours.2,
        doc.listed,
        doc.missing,
        doc.regressions.len(),
        elapsed.as_secs_f64()
    )
}

/// The crates of crates.txt: `NAME VERSION [CARGO-ARGS...]` per line, `#` comments.
pub fn parse_crates(text: &str) -> Result<Vec<Crate>, String> {
    let mut crates: Vec<Crate> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.split_whitespace();
        let (Some(name), Some(version)) = (words.next(), words.next()) else {
            return Err(format!(
                "line {}: expected `NAME VERSION [CARGO-ARGS...]`, got `{line}`",
                i + 1
            ));
        };
        let name_ok = name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        let version_ok = version.split('.').count() >= 3
            && version
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || ".-+".contains(c));
        if !name_ok || !version_ok {
            return Err(format!(
                "line {}: `{name} {version}` is not a crate name and an exact version",
                i + 1
            ));
        }
        if crates.iter().any(|c| c.name == name) {
            return Err(format!("line {}: crate {name} listed twice", i + 1));
        }
        crates.push(Crate {
            name: name.to_string(),
            version: version.to_string(),
            cargo_args: words.map(str::to_string).collect(),
        });
    }
    Ok(crates)
}

fn load_crates(path: &Path) -> Result<Vec<Crate>, String> {
    let text =
        fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse_crates(&text).map_err(|e| format!("{CRATES_FILE}: {e}"))
}

/// Has cargo download the crate's exact version; returns the directory of its
/// unpacked source, as `cargo metadata` reports it.
fn fetch(toolchain: &Toolchain, dir: &Path, krate: &Crate) -> Result<PathBuf, String> {
    let package = dir
        .join("fetch")
        .join(format!("{}-{}", krate.name, krate.version));
    fs::create_dir_all(package.join("src"))
        .map_err(|e| format!("cannot create {}: {e}", package.display()))?;
    let manifest = format!(
        "# Written by ./y.sh test extended: makes cargo fetch {name} {version}.\n\
         [package]\nname = \"extended-fetch\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
         publish = false\n\n[workspace]\n\n[dependencies]\n{name} = \"={version}\"\n",
        name = krate.name,
        version = krate.version
    );
    write(&package.join("Cargo.toml"), &manifest)?;
    write(&package.join("src").join("lib.rs"), "")?;
    let mut fetch = toolchain.cargo(&package);
    fetch.arg("fetch").env_remove("CARGO_TARGET_DIR");
    checked(&mut fetch, "cargo fetch")?;
    let mut metadata = toolchain.cargo(&package);
    metadata
        .args(["metadata", "--format-version", "1"])
        .env_remove("CARGO_TARGET_DIR");
    let out = checked(&mut metadata, "cargo metadata")?;
    let manifest = manifest_path(&out, &krate.name, &krate.version).ok_or_else(|| {
        format!(
            "cargo metadata does not list {} {}",
            krate.name, krate.version
        )
    })?;
    Path::new(&manifest)
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| format!("cargo metadata: odd manifest path {manifest}"))
}

/// The `manifest_path` of package NAME VERSION in `cargo metadata`'s JSON. A
/// package object starts with its name and version (a dependency's with its name
/// and source), and its first `manifest_path` is its own (targets have `src_path`).
fn manifest_path(metadata: &str, name: &str, version: &str) -> Option<String> {
    let start = metadata.find(&format!("{{\"name\":\"{name}\",\"version\":\"{version}\""))?;
    json_string(&metadata[start..], "manifest_path")
}

/// Copies the crate's source to `copy` unless a complete copy is there, and puts
/// the committed lock file in it.
fn prepare_copy(
    paths: &Paths,
    toolchain: &Toolchain,
    source: &Path,
    copy: &Path,
    krate: &Crate,
) -> Result<(), String> {
    let stamp = copy.join(COPIED);
    if fs::read_to_string(&stamp).ok().as_deref() != Some(&source.display().to_string()) {
        if copy.exists() {
            fs::remove_dir_all(copy)
                .map_err(|e| format!("cannot remove {}: {e}", copy.display()))?;
        }
        let parent = copy.parent().expect("build/extended/NAME-VERSION");
        fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        checked(
            Command::new("cp").arg("-R").arg(source).arg(copy),
            "copying the crate's source",
        )?;
        // The copy lies inside this repository's workspace; an empty table makes it
        // its own. A lock file the crate ships is replaced by ours.
        let manifest = copy.join("Cargo.toml");
        let text = fs::read_to_string(&manifest)
            .map_err(|e| format!("cannot read {}: {e}", manifest.display()))?;
        write(&manifest, &format!("{text}\n[workspace]\n"))?;
        let _ = fs::remove_file(copy.join("Cargo.lock"));
        write(&stamp, &source.display().to_string())?;
    }
    let lock_name = format!("{}.Cargo.lock", krate.name);
    let committed = paths.tests.join("extended").join(&lock_name);
    let lock = copy.join("Cargo.lock");
    match fs::read_to_string(&committed) {
        Ok(text) => {
            if fs::read_to_string(&lock).ok().as_deref() != Some(text.as_str()) {
                write(&lock, &text)?;
            }
            Ok(())
        }
        Err(_) => {
            // Help to add a crate: resolve its dev-dependencies now, for review.
            let _ = fs::remove_file(&lock);
            let mut generate = toolchain.cargo(copy);
            generate
                .arg("generate-lockfile")
                .env_remove("CARGO_TARGET_DIR");
            checked(&mut generate, "cargo generate-lockfile")?;
            Err(format!(
                "no tests/extended/{lock_name}; cargo resolved the dependencies into {}: \
                 check it and copy it there",
                paths.show(&lock)
            ))
        }
    }
}

/// `cargo test [--release] --locked --tests --no-run` with the crate's arguments;
/// returns the test executables by binary name.
fn build_tests(
    mut cargo: Command,
    target_dir: &Path,
    krate: &Crate,
    profile: Profile,
) -> Result<BTreeMap<String, PathBuf>, String> {
    profile.apply(&mut cargo);
    cargo
        .args(["--locked", "--tests", "--no-run"])
        .args(["--message-format", "json-render-diagnostics"])
        .args(&krate.cargo_args)
        .env("CARGO_TARGET_DIR", target_dir)
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_TARGET");
    let out = cargo
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", cargo.get_program().to_string_lossy()))?;
    if !out.status.success() {
        return Err(format!(
            "building the tests failed ({}); see cargo's messages above",
            out.status
        ));
    }
    let exes = test_sysroot::test_executables(&String::from_utf8_lossy(&out.stdout));
    if exes.is_empty() {
        return Err("cargo built the tests but reported no test executable".into());
    }
    Ok(exes)
}

/// Runs a command that must succeed; returns its stdout.
fn checked(cmd: &mut Command, what: &str) -> Result<String, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("{what}: cannot run {}: {e}", cmd.get_program().display()))?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed ({}):\n{}",
            out.status,
            test_sysroot::tail(&String::from_utf8_lossy(&out.stderr), 20)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_crate_list() {
        let crates =
            parse_crates("# c\n\nitoa 1.0.15\nsemver  1.0.27 --features serde --test x\n").unwrap();
        assert_eq!(
            crates[0],
            Crate {
                name: "itoa".into(),
                version: "1.0.15".into(),
                cargo_args: vec![]
            }
        );
        assert_eq!(crates[1].cargo_args, ["--features", "serde", "--test", "x"]);
        assert!(parse_crates("itoa\n").is_err());
        assert!(parse_crates("itoa 1.0\n").unwrap_err().contains("exact"));
        assert!(parse_crates("itoa ^1.0.0\n").is_err());
        assert!(
            parse_crates("itoa 1.0.1\nitoa 1.0.2\n")
                .unwrap_err()
                .contains("twice")
        );
    }

    #[test]
    fn doctests_unless_the_arguments_select_targets() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(!selects_targets(&args(&["--features", "serde"])));
        assert!(selects_targets(&args(&["--test", "x"])));
        assert!(selects_targets(&args(&["--features", "a", "--lib"])));
        assert!(selects_targets(&args(&["--bin=x"])));
    }

    #[test]
    fn finds_the_manifest_in_cargo_metadata() {
        let metadata = r#"{"packages":[{"name":"extended-fetch","version":"0.0.0","id":"x","dependencies":[{"name":"itoa","source":"registry+https://github.com/rust-lang/crates.io-index","req":"=1.0.15"}],"targets":[{"src_path":"/f/src/lib.rs"}],"manifest_path":"/f/Cargo.toml"},{"name":"itoa","version":"1.0.15","id":"y","targets":[{"src_path":"/r/itoa-1.0.15/src/lib.rs"}],"manifest_path":"/r/itoa-1.0.15/Cargo.toml"}]}"#;
        assert_eq!(
            manifest_path(metadata, "itoa", "1.0.15").as_deref(),
            Some("/r/itoa-1.0.15/Cargo.toml")
        );
        assert_eq!(manifest_path(metadata, "itoa", "1.0.14"), None);
    }

    #[test]
    fn a_crate_sums_its_binaries() {
        let v = |pairs: &[(&str, Verdict)]| -> BTreeMap<String, Verdict> {
            pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
        };
        let skipped: BTreeSet<&str> = ["s"].into();
        let mut total = Comparison::default();
        total.add(test_sysroot::compare(
            &v(&[("a", Verdict::Passed), ("s", Verdict::Passed)]),
            &v(&[("a", Verdict::Passed)]),
            &skipped,
        ));
        total.add(test_sysroot::compare(
            &v(&[("b", Verdict::Passed), ("c", Verdict::Ignored)]),
            &v(&[("b", Verdict::Failed), ("c", Verdict::Ignored)]),
            &skipped,
        ));
        assert_eq!(total.host, (3, 0, 1));
        assert_eq!(total.ours, (1, 1, 1));
        assert_eq!(total.listed, 1);
        assert_eq!(total.regressions.len(), 1);
        assert!(
            total
                .describe(2_000_000_000, Duration::from_secs(3))
                .contains("2.0 G simulated cycles")
        );
    }
}
