//! `bench compile`, whole builds: the time cargo takes to build the sysroot and a few
//! sizeable crates from clean, with our backend for VLIW-64 beside rustc's LLVM
//! backend (`-Copt-level=0` and `3`) and Cranelift for the host, and our backend's
//! time per phase summed over the crates of each build.
//!
//! Workloads (`workloads`): the sysroot (the sources `./y.sh build` prepared in
//! `build/sysroot/library`, built as `sysroot.rs` does), regex-syntax and serde_json
//! with its dependencies (the packages of `benches/compile/`, with committed lock
//! files), and a generated library of about 10k lines of ordinary functions
//! (`gen_program::large_std_program`). Every build is `cargo build --release` into a
//! fresh target directory under `build/bench/compile/target/`, the optimization level
//! set with `CARGO_PROFILE_RELEASE_OPT_LEVEL` (so every other profile setting is the
//! same in every column), timed as the whole cargo process. With `--target` given in
//! every column, RUSTFLAGS (the backend selection, `-Ztime-passes`) reach the target's
//! crates only: build scripts and proc macros are built by LLVM for the host, at
//! cargo's default `-Copt-level=0` for them, in every column alike.
//!
//! The runs interleave: run 1 builds workload A with every compiler, then B, ...; run 2
//! the same; so slow drift of a shared machine spreads over all columns.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::bench::BenchOptions;
use crate::bench_compile::{Sample, parse_times, spread};
use crate::bench_report::Plot;
use crate::gen_program;
use crate::paths::Paths;
use crate::process;
use crate::sysroot::{self, Layout};
use crate::test_no_sysroot::Rustc;
use crate::toolchain::Toolchain;

/// Functions of the generated program: about 34 lines each, 10k lines in all.
const GENERATED_FUNCTIONS: usize = 300;
/// One sysroot build takes about a minute; this only stops a runaway.
const SYSROOT_TIMEOUT: Duration = Duration::from_secs(1800);
const CRATE_TIMEOUT: Duration = Duration::from_secs(900);
/// The sysroot's features, as `sysroot.rs` builds it.
const SYSROOT_FEATURES: &str = "compiler-builtins-mem backtrace";
/// The rustup component of Cranelift, installed on demand (not in
/// rust-toolchain.toml: CI does not download it).
pub(super) const CRANELIFT_COMPONENT: &str = "rustc-codegen-cranelift-preview";

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Backend {
    Ours,
    Llvm,
    Cranelift,
}

#[derive(Copy, Clone, Debug)]
pub(super) struct Compiler {
    pub(super) label: &'static str,
    /// Its target directory's name.
    slug: &'static str,
    backend: Backend,
    /// `CARGO_PROFILE_RELEASE_OPT_LEVEL`.
    opt: u8,
}

pub(super) const OURS: usize = 0;
pub(super) const OURS_O0: usize = 1;
pub(super) const LLVM_O0: usize = 2;
pub(super) const LLVM_O3: usize = 3;
pub(super) const CRANELIFT: usize = 4;

pub(super) const COMPILERS: [Compiler; 5] = [
    Compiler {
        label: "ours -O3",
        slug: "ours-o3",
        backend: Backend::Ours,
        opt: 3,
    },
    Compiler {
        label: "ours -O0",
        slug: "ours-o0",
        backend: Backend::Ours,
        opt: 0,
    },
    Compiler {
        label: "LLVM -O0",
        slug: "llvm-o0",
        backend: Backend::Llvm,
        opt: 0,
    },
    Compiler {
        label: "LLVM -O3",
        slug: "llvm-o3",
        backend: Backend::Llvm,
        opt: 3,
    },
    Compiler {
        label: "Cranelift",
        slug: "cranelift",
        backend: Backend::Cranelift,
        opt: 3,
    },
];

pub(super) enum Source {
    /// `build/sysroot/library/sysroot`.
    Sysroot,
    /// A package directory; `locked`: it has a committed lock file.
    Package { dir: PathBuf, locked: bool },
}

pub(super) struct Workload {
    pub(super) name: &'static str,
    /// What the build contains, for the report.
    pub(super) what: String,
    pub(super) source: Source,
    /// Whether `ours -O0` is measured too (not for the sysroot: time).
    pub(super) ours_o0: bool,
}

impl Workload {
    pub(super) fn compilers(&self) -> impl Iterator<Item = usize> + '_ {
        (0..COMPILERS.len()).filter(move |&c| c != OURS_O0 || self.ours_o0)
    }

    fn timeout(&self) -> Duration {
        match self.source {
            Source::Sysroot => SYSROOT_TIMEOUT,
            Source::Package { .. } => CRATE_TIMEOUT,
        }
    }
}

/// One build: wall seconds and the `time:` lines of every target crate.
pub(super) struct Build {
    pub(super) seconds: f64,
    pub(super) times: Sample,
}

/// The builds of one workload with one compiler, or why there are none.
#[derive(Default)]
pub(super) struct Cell {
    pub(super) builds: Vec<Build>,
    pub(super) error: Option<String>,
}

impl Cell {
    pub(super) fn seconds(&self) -> Option<(f64, f64, f64)> {
        if self.builds.is_empty() {
            return None;
        }
        Some(spread(
            &self.builds.iter().map(|b| b.seconds).collect::<Vec<_>>(),
        ))
    }

    pub(super) fn median_seconds(&self) -> Option<f64> {
        self.seconds().map(|s| s.1)
    }

    /// The median over the runs of a figure of the `time:` lines (summed over crates).
    pub(super) fn median_time(&self, key: &str) -> f64 {
        spread(
            &self
                .builds
                .iter()
                .map(|b| b.times.get(key))
                .collect::<Vec<_>>(),
        )
        .1
    }
}

/// What `bench_compile::bench` puts in its section.
pub(super) struct Outcome {
    pub(super) markdown: String,
    pub(super) plots: Vec<Plot>,
    pub(super) summary: Vec<String>,
}

struct Bench<'a> {
    paths: &'a Paths,
    toolchain: &'a Toolchain,
    rustc: Rustc,
    work: PathBuf,
}

pub(super) fn measure(
    paths: &Paths,
    toolchain: &Toolchain,
    options: BenchOptions,
) -> Result<Outcome, String> {
    let work = paths.build.join("bench").join("compile");
    fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let layout = Layout::new(paths);
    if !layout.is_installed() || !paths.dist.join("cargo-vliw").is_file() {
        return Err("the sysroot is not built: run ./y.sh build".into());
    }
    let bench = Bench {
        paths,
        toolchain,
        rustc: Rustc::locate(toolchain)?,
        work,
    };
    let workloads = bench.workloads(options)?;
    let cranelift = bench.cranelift();
    if let Err(e) = &cranelift {
        eprintln!("[bench] compile: Cranelift unavailable: {e}");
    }
    let mut cells: Vec<Vec<Cell>> = workloads
        .iter()
        .map(|_| COMPILERS.iter().map(|_| Cell::default()).collect())
        .collect();
    // A workload that cannot be prepared (no network for crates.io...) is reported
    // as not measured; the others still are.
    for (workload, row) in workloads.iter().zip(&mut cells) {
        if let Err(e) = bench.prepare(workload) {
            eprintln!("[bench] compile: {}: {e}", workload.name);
            for cell in row.iter_mut() {
                cell.error = Some(format!("not prepared: {e}"));
            }
        }
    }
    if let Err(e) = &cranelift {
        for row in &mut cells {
            row[CRANELIFT]
                .error
                .get_or_insert(format!("unavailable: {e}"));
        }
    }
    let runs = options.runs();
    for run in 1..=runs {
        for (w, workload) in workloads.iter().enumerate() {
            for c in workload.compilers() {
                let cell = &mut cells[w][c];
                if cell.error.is_some() {
                    continue;
                }
                eprintln!(
                    "[bench] compile: run {run} of {runs}, {} with {}",
                    workload.name, COMPILERS[c].label
                );
                match bench.build(workload, COMPILERS[c]) {
                    Ok(build) => {
                        eprintln!("[bench] compile:   {:.1} s", build.seconds);
                        cell.builds.push(build);
                    }
                    Err(e) => {
                        eprintln!("[bench] compile:   failed: {e}");
                        cell.error = Some(e);
                    }
                }
            }
        }
    }
    Ok(super::tables::report(
        &workloads,
        &cells,
        runs,
        &bench.rustc,
    ))
}

impl Bench<'_> {
    fn workloads(&self, options: BenchOptions) -> Result<Vec<Workload>, String> {
        let generated = self.write_generated()?;
        let package = |name: &str| Source::Package {
            dir: self.paths.root.join("benches").join("compile").join(name),
            locked: true,
        };
        let mut all = vec![
            Workload {
                name: "generated",
                what: format!(
                    "`{}`: {} lines, {GENERATED_FUNCTIONS} functions of integer arithmetic, \
                     branches, loops, calls, structs and arrays (`gen_program.rs`), one crate",
                    self.paths.show(&generated.0),
                    generated.1
                ),
                source: Source::Package {
                    dir: generated.0,
                    locked: false,
                },
                ours_o0: true,
            },
            Workload {
                name: "regex-syntax",
                what: "regex-syntax 0.8.11 with its default features (Unicode tables), \
                       `benches/compile/regex-syntax`"
                    .into(),
                source: package("regex-syntax"),
                ours_o0: true,
            },
        ];
        if !options.quick {
            all.push(Workload {
                name: "serde_json",
                what: "serde_json 1.0.154 with all its dependencies (serde with `derive`, \
                       serde_core, itoa, memchr, zmij; the serde_derive proc macro with \
                       proc-macro2, quote, syn, unicode-ident for the host; build scripts), \
                       `benches/compile/serde_json`"
                    .into(),
                source: package("serde_json"),
                ours_o0: true,
            });
            all.push(Workload {
                name: "sysroot",
                what: format!(
                    "the sysroot: core, compiler_builtins, alloc, std, panic_abort, test and \
                     their dependencies from `{}` (rust-src with our patches), features \
                     `{SYSROOT_FEATURES}`, `-Cpanic=abort`",
                    self.paths.show(&self.sysroot_package())
                ),
                source: Source::Sysroot,
                ours_o0: false,
            });
        }
        Ok(all)
    }

    fn sysroot_package(&self) -> PathBuf {
        sysroot_package(self.paths)
    }

    /// The generated package (unchanged files are left alone); its directory and lines.
    fn write_generated(&self) -> Result<(PathBuf, usize), String> {
        let dir = self.work.join("generated");
        let text = gen_program::large_std_program(GENERATED_FUNCTIONS);
        let manifest = "# Written by ./y.sh bench compile.\n[package]\n\
                        name = \"bench-generated\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
                        publish = false\n\n[workspace]\n\n[lib]\npath = \"src/lib.rs\"\n";
        for (path, content) in [
            (dir.join("Cargo.toml"), manifest),
            (dir.join("src").join("lib.rs"), text.as_str()),
        ] {
            if fs::read_to_string(&path).ok().as_deref() != Some(content) {
                let parent = path.parent().expect("a file in a directory");
                fs::create_dir_all(parent)
                    .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
                fs::write(&path, content)
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            }
        }
        Ok((dir, text.lines().count()))
    }

    /// Checks that a workload's sources are there and downloads a package's locked
    /// dependencies (not timed: the builds are offline).
    fn prepare(&self, workload: &Workload) -> Result<(), String> {
        match &workload.source {
            Source::Sysroot => check_sysroot_sources(self.paths),
            Source::Package { locked: false, .. } => Ok(()),
            Source::Package { dir, locked: true } => {
                let mut cmd = self.toolchain.cargo(dir);
                cmd.args(["fetch", "--locked"])
                    .env_remove("CARGO_TARGET_DIR");
                checked(&mut cmd, "cargo fetch", CRATE_TIMEOUT).map(|_| ())
            }
        }
    }

    /// Whether Cranelift works: a probe compilation, after installing the component
    /// when the first probe fails.
    fn cranelift(&self) -> Result<(), String> {
        let dir = self.work.join("cranelift-probe");
        fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let source = dir.join("probe.rs");
        fs::write(&source, "pub fn probe(x: u64) -> u64 { x * 3 }\n")
            .map_err(|e| format!("cannot write {}: {e}", source.display()))?;
        let probe = || {
            let mut cmd = Command::new(&self.rustc.path);
            cmd.args([
                "-Zcodegen-backend=cranelift",
                "--crate-type=lib",
                "--emit=obj",
                "--crate-name=probe",
            ])
            .arg(&source)
            .arg("-o")
            .arg(dir.join("probe.o"));
            checked(&mut cmd, "rustc -Zcodegen-backend=cranelift", CRATE_TIMEOUT)
        };
        if probe().is_ok() {
            return Ok(());
        }
        eprintln!(
            "[bench] compile: installing {CRANELIFT_COMPONENT} for {}",
            self.toolchain.channel
        );
        let mut add = Command::new("rustup");
        add.env_remove("RUSTUP_TOOLCHAIN").args([
            "component",
            "add",
            CRANELIFT_COMPONENT,
            "--toolchain",
            &self.toolchain.channel,
        ]);
        checked(
            &mut add,
            &format!("rustup component add {CRANELIFT_COMPONENT}"),
            CRATE_TIMEOUT,
        )?;
        probe().map(|_| ())
    }

    /// The cargo command of one build (its target directory not yet cleaned).
    fn command(&self, workload: &Workload, compiler: Compiler, target_dir: &Path) -> Command {
        let host = self.rustc.host.as_str();
        let (mut cmd, mut flags) = match (&workload.source, compiler.backend) {
            (Source::Sysroot, backend) => sysroot_command(
                self.paths,
                self.toolchain,
                (backend != Backend::Ours).then_some(host),
            ),
            (Source::Package { dir, locked }, backend) => {
                let mut cmd = if backend == Backend::Ours {
                    // dist/cargo-vliw adds the backend, sysroot, linker and target.
                    let mut cmd = Command::new(self.paths.dist.join("cargo-vliw"));
                    cmd.current_dir(dir);
                    for var in [
                        "RUSTC",
                        "RUSTDOC",
                        "RUSTC_WRAPPER",
                        "CARGO_BUILD_TARGET_DIR",
                    ] {
                        cmd.env_remove(var);
                    }
                    cmd.arg("build");
                    cmd
                } else {
                    let mut cmd = self.toolchain.cargo(dir);
                    cmd.args(["build", "--target", host]);
                    cmd
                };
                cmd.args(["--release", "--offline"]);
                if *locked {
                    cmd.arg("--locked");
                }
                (cmd, Vec::new())
            }
        };
        match compiler.backend {
            Backend::Ours => flags.push("-Cllvm-args=time-passes".into()),
            Backend::Cranelift => flags.push("-Zcodegen-backend=cranelift".into()),
            Backend::Llvm => {}
        }
        flags.push("-Ztime-passes".into());
        set_build_environment(&mut cmd, &flags, compiler.opt, target_dir, &self.work);
        cmd
    }

    /// One build from clean, timed.
    fn build(&self, workload: &Workload, compiler: Compiler) -> Result<Build, String> {
        let target_dir = self
            .work
            .join("target")
            .join(workload.name)
            .join(compiler.slug);
        remove_dir(&target_dir)?;
        let mut cmd = self.command(workload, compiler, &target_dir);
        let start = Instant::now();
        let out = process::run(&mut cmd, b"", start + workload.timeout())?;
        let seconds = start.elapsed().as_secs_f64();
        if !out.success() {
            return Err(format!(
                "cargo failed ({}):\n{}",
                out.describe(),
                crate::report::tail(&out.stderr, 15).join("\n")
            ));
        }
        let times = parse_times(&out.stderr);
        if times.get("rustc:total") == 0.0 {
            return Err("rustc printed no `-Ztime-passes` timings through cargo".into());
        }
        if compiler.backend == Backend::Ours && times.get("lower") == 0.0 {
            return Err("the backend printed no `time-passes` timings through cargo".into());
        }
        // The next build starts from a fresh directory anyway; free the disk now.
        remove_dir(&target_dir)?;
        Ok(Build { seconds, times })
    }
}

/// `build/sysroot/library/sysroot`: the package `sysroot.rs` builds, in the sources
/// `./y.sh build` prepared.
pub(crate) fn sysroot_package(paths: &Paths) -> PathBuf {
    paths.build.join("sysroot").join("library").join("sysroot")
}

/// Whether the sysroot's sources are there (`./y.sh build` prepares them).
pub(crate) fn check_sysroot_sources(paths: &Paths) -> Result<(), String> {
    let package = sysroot_package(paths);
    if package.join("Cargo.toml").is_file() {
        Ok(())
    } else {
        Err(format!(
            "{} is missing: ./y.sh build prepares it",
            paths.show(&package)
        ))
    }
}

/// The cargo command that builds the sysroot as `sysroot.rs` does (the `sysroot`
/// package: core, compiler_builtins, alloc, std, panic_abort, test and their
/// dependencies; `--release --locked --offline`, its features, `-Cpanic=abort`), with
/// our backend for
/// `vliw64-unknown-hermit`, or for `host` (with LLVM, or another backend the caller
/// selects through the flags); and the RUSTFLAGS it needs, to which the caller adds
/// its own before `set_build_environment`.
pub(crate) fn sysroot_command(
    paths: &Paths,
    toolchain: &Toolchain,
    host: Option<&str>,
) -> (Command, Vec<String>) {
    let layout = Layout::new(paths);
    let mut flags: Vec<String> = Vec::new();
    let mut cmd = toolchain.cargo(&sysroot_package(paths));
    cmd.args(["build", "--release", "--locked", "--offline"])
        .args(["--no-default-features", "--features", SYSROOT_FEATURES])
        .env("__CARGO_DEFAULT_LIB_METADATA", "vliw-sysroot");
    match host {
        None => {
            cmd.arg("--target")
                .arg(
                    paths
                        .root
                        .join("sysroot")
                        .join(format!("{}.json", sysroot::TARGET)),
                )
                .arg("-Zjson-target-spec");
            flags.push(format!("-Zcodegen-backend={}", layout.backend.display()));
            flags.push("-Zunstable-options".into());
            flags.push(format!("-Clinker={}", paths.tool("vliw-ld").display()));
        }
        Some(host) => {
            cmd.args(["--target", host]);
        }
    }
    flags.push("-Zforce-unstable-if-unmarked".into());
    flags.push("-Cpanic=abort".into());
    (cmd, flags)
}

/// The environment of a benchmark build: RUSTFLAGS, the target directory, the
/// optimization level of the release profile (so that everything else in the profile
/// stays as it is), rustc's crash reports in `work`; variables of the caller's
/// environment that would change the build removed.
pub(crate) fn set_build_environment(
    cmd: &mut Command,
    flags: &[String],
    opt: u8,
    target_dir: &Path,
    work: &Path,
) {
    cmd.env("CARGO_TARGET_DIR", target_dir)
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", opt.to_string())
        .env("RUSTFLAGS", flags.join(" "))
        .env("RUSTC_ICE", work)
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .env_remove("CARGO_BUILD_TARGET")
        .env_remove("RUSTDOCFLAGS");
}

pub(crate) fn remove_dir(dir: &Path) -> Result<(), String> {
    match fs::remove_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("cannot remove {}: {e}", dir.display())),
    }
}

/// Runs a command that must succeed within `timeout`.
fn checked(cmd: &mut Command, what: &str, timeout: Duration) -> Result<process::Output, String> {
    let out = process::run(cmd, b"", Instant::now() + timeout)?;
    if out.success() {
        Ok(out)
    } else {
        Err(format!(
            "{what} failed ({}): {}",
            out.describe(),
            crate::report::tail(&out.stderr, 10).join("\n")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bench_in(root: &Path) -> (Paths, Toolchain, Rustc) {
        let paths = Paths {
            root: root.to_path_buf(),
            dist: root.join("dist"),
            build: root.join("build"),
            target: root.join("target"),
            tests: root.join("tests"),
            invoked_from: root.to_path_buf(),
        };
        let toolchain = Toolchain {
            channel: "nightly-x".into(),
            components: Vec::new(),
            targets: Vec::new(),
            profile: "minimal".into(),
        };
        let rustc = Rustc {
            path: PathBuf::from("rustc"),
            channel: "nightly-x".into(),
            host: "x86_64-unknown-linux-gnu".into(),
        };
        (paths, toolchain, rustc)
    }

    fn env(cmd: &Command, key: &str) -> Option<String> {
        cmd.get_envs()
            .find(|(k, _)| *k == key)
            .and_then(|(_, v)| v.map(|v| v.to_string_lossy().into_owned()))
    }

    fn args(cmd: &Command) -> Vec<String> {
        cmd.get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn commands_select_backend_level_and_target() {
        let (paths, toolchain, rustc) = bench_in(Path::new("/r"));
        let bench = Bench {
            paths: &paths,
            toolchain: &toolchain,
            rustc,
            work: paths.build.join("bench").join("compile"),
        };
        let package = Workload {
            name: "p",
            what: String::new(),
            source: Source::Package {
                dir: PathBuf::from("/r/benches/compile/p"),
                locked: true,
            },
            ours_o0: true,
        };
        let target = Path::new("/t");

        let llvm = bench.command(&package, COMPILERS[LLVM_O0], target);
        assert_eq!(llvm.get_program(), "cargo");
        let a = args(&llvm);
        assert!(a.starts_with(&["build".into(), "--target".into(), rustc_host()]));
        assert!(a.contains(&"--locked".into()) && a.contains(&"--offline".into()));
        assert_eq!(env(&llvm, "RUSTFLAGS").as_deref(), Some("-Ztime-passes"));
        assert_eq!(
            env(&llvm, "CARGO_PROFILE_RELEASE_OPT_LEVEL").as_deref(),
            Some("0")
        );
        assert_eq!(env(&llvm, "CARGO_TARGET_DIR").as_deref(), Some("/t"));

        let clif = bench.command(&package, COMPILERS[CRANELIFT], target);
        assert_eq!(
            env(&clif, "RUSTFLAGS").as_deref(),
            Some("-Zcodegen-backend=cranelift -Ztime-passes")
        );

        let ours = bench.command(&package, COMPILERS[OURS], target);
        assert_eq!(ours.get_program(), "/r/dist/cargo-vliw");
        assert!(!args(&ours).contains(&"--target".into()));
        assert_eq!(
            env(&ours, "RUSTFLAGS").as_deref(),
            Some("-Cllvm-args=time-passes -Ztime-passes")
        );
        assert_eq!(
            env(&ours, "CARGO_PROFILE_RELEASE_OPT_LEVEL").as_deref(),
            Some("3")
        );

        let sysroot = Workload {
            source: Source::Sysroot,
            ours_o0: false,
            ..package
        };
        let ours = bench.command(&sysroot, COMPILERS[OURS], target);
        let flags = env(&ours, "RUSTFLAGS").unwrap();
        assert!(flags.starts_with("-Zcodegen-backend=/r/dist/lib/librustc_codegen_vliw.so "));
        assert!(flags.contains("-Cpanic=abort") && flags.contains("-Cllvm-args=time-passes"));
        assert!(args(&ours).contains(&"/r/sysroot/vliw64-unknown-hermit.json".into()));
        let host = bench.command(&sysroot, COMPILERS[LLVM_O3], target);
        assert_eq!(
            env(&host, "RUSTFLAGS").as_deref(),
            Some("-Zforce-unstable-if-unmarked -Cpanic=abort -Ztime-passes")
        );
        assert!(args(&host).contains(&"compiler-builtins-mem backtrace".into()));
        assert_eq!(
            sysroot.compilers().collect::<Vec<_>>(),
            [OURS, LLVM_O0, LLVM_O3, CRANELIFT]
        );
    }

    fn rustc_host() -> String {
        "x86_64-unknown-linux-gnu".into()
    }
}
