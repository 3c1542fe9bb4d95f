//! The sysroot: `core`, `compiler_builtins`, `alloc`, `std`, `panic_abort`, `test`
//! and their dependencies built from the pinned toolchain's `rust-src` with our
//! backend for `sysroot/vliw64-unknown-hermit.json`, plus the runtime
//! (`sysroot/runtime`), installed as `dist/sysroot` (a directory `rustc --sysroot`
//! accepts), and the user-facing wrappers `dist/rustc-vliw`, `dist/rustdoc-vliw`,
//! `dist/cargo-vliw` and their runner `dist/vliw-test-run`.
//!
//! As rustc_codegen_cranelift does it: the `library/` workspace of rust-src is copied
//! to `build/sysroot/library` (its vendored dependencies are used in place, offline),
//! the patches of `sysroot/patches/` are applied to the copy, and cargo builds the
//! `sysroot` crate of that workspace for our target with `-Zcodegen-backend`. The
//! rlibs are then copied to `dist/sysroot/lib/rustlib/<target>/lib/`, next to
//! `crt0.o` and `libvliw_rt.a`, which the target specification links into every
//! program.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::paths::Paths;
use crate::toolchain::Toolchain;

/// The std target: its specification is `sysroot/<TARGET>.json`.
pub const TARGET: &str = "vliw64-unknown-hermit";
pub const BACKEND_FILE: &str = "librustc_codegen_vliw.so";

/// Where the pieces of an installed sysroot are.
pub struct Layout {
    /// `dist/sysroot`, given to `rustc --sysroot`.
    pub sysroot: PathBuf,
    /// `dist/sysroot/<TARGET>.json`.
    pub spec: PathBuf,
    /// `dist/sysroot/lib/rustlib/<TARGET>/lib`.
    pub lib: PathBuf,
    /// `dist/lib/librustc_codegen_vliw.so`.
    pub backend: PathBuf,
}

impl Layout {
    pub fn new(paths: &Paths) -> Layout {
        let sysroot = paths.dist.join("sysroot");
        Layout {
            spec: sysroot.join(format!("{TARGET}.json")),
            lib: sysroot.join("lib").join("rustlib").join(TARGET).join("lib"),
            backend: paths.dist.join("lib").join(BACKEND_FILE),
            sysroot,
        }
    }

    /// Whether `build` has installed a sysroot (the last thing it writes is the
    /// runtime).
    pub fn is_installed(&self) -> bool {
        self.lib.join("libvliw_rt.a").is_file() && self.spec.is_file() && self.backend.is_file()
    }
}

/// Builds and installs the sysroot. Expects the workspace built (the backend in
/// `target/release`, the tools in `dist/`).
pub fn build(paths: &Paths, toolchain: &Toolchain) -> Result<(), String> {
    let layout = Layout::new(paths);
    let backend = paths.target.join("release").join(BACKEND_FILE);
    if !backend.is_file() {
        return Err(format!(
            "{} is missing: the workspace build should have produced it",
            paths.show(&backend)
        ));
    }
    let dist_lib = layout.backend.parent().expect("dist/lib");
    fs::create_dir_all(dist_lib)
        .map_err(|e| format!("cannot create {}: {e}", dist_lib.display()))?;
    crate::build::install(&backend, &layout.backend)?;

    let rust_src = rust_src_library(toolchain)?;
    let work = paths.build.join("sysroot");
    let library = work.join("library");
    prepare_sources(paths, &rust_src, &library)?;

    eprintln!("[build] sysroot: core, alloc, std, panic_abort, test for {TARGET}");
    let spec_source = paths.root.join("sysroot").join(format!("{TARGET}.json"));
    let target_dir = work.join("target");
    let mut cmd = toolchain.cargo(&library.join("sysroot"));
    cmd.args(["build", "--release", "--locked", "--offline"])
        .args(["--message-format", "json-render-diagnostics"])
        .arg("--target")
        .arg(&spec_source)
        .args(["-Zjson-target-spec", "--no-default-features", "--features"])
        .arg(SYSROOT_FEATURES)
        .env("CARGO_TARGET_DIR", &target_dir)
        // Stable crate hashes between builds, as bootstrap and cg_clif set it.
        .env("__CARGO_DEFAULT_LIB_METADATA", "vliw-sysroot")
        .env(
            "RUSTFLAGS",
            sysroot_rustflags(paths, &layout.backend, None)?,
        )
        .env_remove("RUSTDOCFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS");
    let rlibs = built_libraries(&cargo_messages(&mut cmd, "the sysroot")?);

    install_sysroot(&layout, &spec_source, &rlibs)?;
    build_runtime(paths, toolchain, &layout)?;
    write_wrappers(paths, toolchain, &layout)?;
    eprintln!(
        "[build] sysroot installed in {}/; use {}, {} and {}",
        paths.show(&layout.sysroot),
        paths.show(&paths.dist.join("rustc-vliw")),
        paths.show(&paths.dist.join("rustdoc-vliw")),
        paths.show(&paths.dist.join("cargo-vliw"))
    );
    Ok(())
}

/// `lib/rustlib/src/rust/library` of the pinned toolchain (component `rust-src`).
pub fn rust_src_library(toolchain: &Toolchain) -> Result<PathBuf, String> {
    let out = Command::new("rustc")
        .env("RUSTUP_TOOLCHAIN", &toolchain.channel)
        .args(["--print", "sysroot"])
        .output()
        .map_err(|e| format!("cannot run rustc: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "rustc --print sysroot failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let sysroot = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let library = Path::new(&sysroot).join("lib/rustlib/src/rust/library");
    if !library.join("std").is_dir() {
        return Err(format!(
            "{} does not exist: the toolchain needs the rust-src component (./y.sh prepare)",
            library.display()
        ));
    }
    Ok(library)
}

/// Copies rust-src's `library/` (without `vendor/`, which is used in place) to
/// `library`, applies `sysroot/patches/*.patch`, and points cargo at the vendored
/// crates. Skipped when the copy is up to date: same source, same patches.
fn prepare_sources(paths: &Paths, rust_src: &Path, library: &Path) -> Result<(), String> {
    let patch_dir = paths.root.join("sysroot").join("patches");
    let mut patches: Vec<PathBuf> = fs::read_dir(&patch_dir)
        .map_err(|e| format!("cannot read {}: {e}", patch_dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "patch"))
        .collect();
    patches.sort();
    let mut stamp = format!("source {}\n", rust_src.display());
    for patch in &patches {
        let text = fs::read(patch).map_err(|e| format!("cannot read {}: {e}", patch.display()))?;
        stamp.push_str(&format!(
            "patch {} {:016x}\n",
            patch.display(),
            fnv1a(&text)
        ));
    }
    let stamp_file = library.join(".vliw-stamp");
    if fs::read_to_string(&stamp_file).is_ok_and(|s| s == stamp) {
        return Ok(());
    }
    eprintln!(
        "[build] sysroot sources: copying {} and applying {} patch(es)",
        rust_src.display(),
        patches.len()
    );
    if library.exists() {
        fs::remove_dir_all(library)
            .map_err(|e| format!("cannot remove {}: {e}", library.display()))?;
    }
    copy_tree(rust_src, library, &|rel| rel == Path::new("vendor"))?;
    for patch in &patches {
        let out = Command::new("patch")
            .args(["-p1", "--forward", "--silent", "-d"])
            .arg(library)
            .arg("-i")
            .arg(patch)
            .output()
            .map_err(|e| format!("cannot run patch: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "patch {} does not apply to {}: {}{}",
                paths.show(patch),
                rust_src.display(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    let cargo_dir = library.join(".cargo");
    fs::create_dir_all(&cargo_dir)
        .map_err(|e| format!("cannot create {}: {e}", cargo_dir.display()))?;
    let config = format!(
        "# Written by ./y.sh build: the library's dependencies from rust-src's vendor/.\n\
         [source.crates-io]\nreplace-with = \"vendored-sources\"\n\n\
         [source.vendored-sources]\ndirectory = \"{}\"\n",
        rust_src.join("vendor").display()
    );
    write(&cargo_dir.join("config.toml"), &config)?;
    write(&stamp_file, &stamp)
}

/// `--cfg=vliw_backend_build="SIZE-MTIME"` of the backend: cargo does not track the
/// codegen backend dylib, so the sysroot build and `cargo-vliw` pass this cfg to make
/// cargo rebuild what an older backend compiled.
pub(crate) fn backend_cfg(backend: &Path) -> Result<String, String> {
    let meta = fs::metadata(backend).map_err(|e| format!("{}: {e}", backend.display()))?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    Ok(format!(
        "--cfg=vliw_backend_build=\"{}-{mtime}\"",
        meta.len()
    ))
}

/// The features of the `sysroot` crate that `build` builds with.
pub(crate) const SYSROOT_FEATURES: &str = "compiler-builtins-mem backtrace panic-unwind";

/// Runs a cargo build (`--message-format json-render-diagnostics`) with its
/// diagnostics on stderr; returns its JSON messages. `what` names what it builds.
pub(crate) fn cargo_messages(cmd: &mut Command, what: &str) -> Result<String, String> {
    let out = cmd
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "building {what} failed ({}); see cargo's messages above",
            out.status
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The libraries of a cargo build by its JSON messages. Where the rlibs are is
/// cargo's business (its build-dir layout changes); it names them in its artifact
/// messages. The metadata is in the .rmeta files (cargo builds with
/// -Zembed-metadata=no), so both are returned.
pub(crate) fn built_libraries(messages: &str) -> Vec<PathBuf> {
    messages
        .lines()
        .filter(|l| l.contains("\"reason\":\"compiler-artifact\""))
        .flat_map(|l| json_strings(l, "filenames"))
        .filter(|f| f.ends_with(".rlib") || f.ends_with(".rmeta"))
        .map(PathBuf::from)
        .collect()
}

/// RUSTFLAGS of the sysroot build, with [`backend_cfg`]; with `--sysroot` when
/// `sysroot` is given (std's tests, test_sysroot_std.rs).
pub(crate) fn sysroot_rustflags(
    paths: &Paths,
    backend: &Path,
    sysroot: Option<&Path>,
) -> Result<String, String> {
    let mut flags = vec![
        format!("-Zcodegen-backend={}", backend.display()),
        "-Zunstable-options".into(),
        "-Zforce-unstable-if-unmarked".into(),
        format!("-Clinker={}", paths.tool("vliw-ld").display()),
        backend_cfg(backend)?,
    ];
    if let Some(sysroot) = sysroot {
        flags.push(format!("--sysroot={}", sysroot.display()));
    }
    rustflags(&flags)
}

/// `flags` as one RUSTFLAGS value, which cargo splits at whitespace: a flag with a
/// space in it (a path) is an error.
pub(crate) fn rustflags(flags: &[String]) -> Result<String, String> {
    for flag in flags {
        if flag.contains(char::is_whitespace) {
            return Err(format!(
                "cannot pass `{flag}` in RUSTFLAGS: the repository path must not contain \
                 spaces"
            ));
        }
    }
    Ok(flags.join(" "))
}

/// Brings `dist/sysroot` up to date with the freshly built rlibs and the target
/// specification: files that did not change are left alone (a program being linked
/// against the sysroot at the same time keeps working), stale ones are removed.
fn install_sysroot(layout: &Layout, spec_source: &Path, rlibs: &[PathBuf]) -> Result<(), String> {
    if rlibs.is_empty() {
        return Err("cargo built the sysroot but named no rlib".into());
    }
    fs::create_dir_all(&layout.lib)
        .map_err(|e| format!("cannot create {}: {e}", layout.lib.display()))?;
    crate::build::install(spec_source, &layout.spec)?;
    let mut wanted = std::collections::BTreeSet::new();
    for rlib in rlibs {
        let name = rlib.file_name().expect("an rlib file name");
        crate::build::install(rlib, &layout.lib.join(name))?;
        wanted.insert(name.to_os_string());
    }
    for entry in fs::read_dir(&layout.lib).map_err(|e| format!("{}: {e}", layout.lib.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let name = entry.file_name();
        let ours = RUNTIME_FILES.iter().any(|f| name == *f);
        if !ours && !wanted.contains(&name) {
            fs::remove_file(entry.path())
                .map_err(|e| format!("cannot remove {}: {e}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// The strings of the first `"key":[...]` array in a line of cargo's JSON messages
/// (paths and names: no escaped quotes in them).
pub fn json_strings(line: &str, key: &str) -> Vec<String> {
    let pattern = format!("\"{key}\":[");
    let Some(start) = line.find(&pattern).map(|i| i + pattern.len()) else {
        return Vec::new();
    };
    let Some(end) = line[start..].find(']').map(|i| i + start) else {
        return Vec::new();
    };
    line[start..end]
        .split(',')
        .filter_map(|item| item.trim().strip_prefix('"')?.strip_suffix('"'))
        .map(str::to_string)
        .collect()
}

/// The value of the first `"key":"..."` in a line of cargo's JSON messages.
pub fn json_string(line: &str, key: &str) -> Option<String> {
    let pattern = format!("\"{key}\":\"");
    let start = line.find(&pattern)? + pattern.len();
    let end = line[start..].find('"')? + start;
    Some(line[start..end].to_string())
}

/// `crt0.o` and `vliw_mem.o` (assembled by vliw-as) and `libvliw_rt.a` (the runtime crate, an rlib
/// that vliw-ld reads as an archive) in the sysroot's library directory.
pub(crate) fn build_runtime(
    paths: &Paths,
    toolchain: &Toolchain,
    layout: &Layout,
) -> Result<(), String> {
    eprintln!("[build] runtime: crt0.o, {RUNTIME_MEM}, libvliw_rt.a");
    let runtime = paths.root.join("sysroot").join("runtime");
    run_checked(
        Command::new(paths.tool("vliw-as"))
            .arg(runtime.join("crt0.s"))
            .arg("-o")
            .arg(layout.lib.join("crt0.o")),
        "assembling the runtime's crt0.s",
    )?;
    run_checked(
        Command::new(paths.tool("vliw-as"))
            .arg(runtime.join("mem.s"))
            .arg("-o")
            .arg(layout.lib.join(RUNTIME_MEM)),
        "assembling the runtime's mem.s",
    )?;
    run_checked(
        Command::new("rustc")
            .env("RUSTUP_TOOLCHAIN", &toolchain.channel)
            .args([
                "--edition=2024",
                "--crate-type=rlib",
                "--crate-name=vliw_rt",
                "-Copt-level=3",
                "-Cpanic=abort",
                "-Zunstable-options",
            ])
            .arg(format!("-Zcodegen-backend={}", layout.backend.display()))
            .arg("--sysroot")
            .arg(&layout.sysroot)
            .arg("--target")
            .arg(&layout.spec)
            .arg(runtime.join("src").join("lib.rs"))
            .arg("-o")
            .arg(layout.lib.join("libvliw_rt.a")),
        "compiling the runtime (sysroot/runtime)",
    )?;
    // The runtime's unwinder reads the call-frame information with the sysroot's
    // gimli (std's dependency, which std does not link on this target): the
    // specification links a copy of its rlib after the runtime.
    let gimli = std::fs::read_dir(&layout.lib)
        .map_err(|e| format!("cannot list {}: {e}", layout.lib.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("libgimli-") && n.ends_with(".rlib"))
        })
        .ok_or_else(|| format!("no libgimli-*.rlib in {}", layout.lib.display()))?;
    std::fs::copy(&gimli, layout.lib.join(RUNTIME_GIMLI))
        .map(|_| ())
        .map_err(|e| format!("cannot copy {}: {e}", gimli.display()))
}

/// The runtime's `memcpy`, `memmove` and `memset` (`sysroot/runtime/mem.s`), linked
/// after `crt0.o` into every program.
const RUNTIME_MEM: &str = "vliw_mem.o";

/// The copy of the sysroot's gimli that every program links after the runtime.
const RUNTIME_GIMLI: &str = "libvliw_rt_gimli.a";
/// What `build_runtime` installs beside the rlibs (the target specification's pre-
/// and post-link objects).
const RUNTIME_FILES: [&str; 4] = ["crt0.o", RUNTIME_MEM, "libvliw_rt.a", RUNTIME_GIMLI];

/// `dist/rustc-vliw`, `dist/rustdoc-vliw`, `dist/cargo-vliw` and `dist/vliw-test-run`
/// (cargo-vliw's runner): shell scripts that find the backend, sysroot and tools next
/// to themselves, so that dist/ can be moved.
fn write_wrappers(paths: &Paths, toolchain: &Toolchain, layout: &Layout) -> Result<(), String> {
    let spec_name = layout.spec.file_name().unwrap().to_string_lossy();
    let rustc = format!(
        r#"#!/bin/sh
# rustc for VLIW-64 with std (written by ./y.sh build; README.md): rustc of the
# pinned nightly with our backend, sysroot and target; the output is a VLIW-64
# executable (or library) that dist/vliw-run runs.
d=$(cd "$(dirname "$0")" && pwd)
RUSTUP_TOOLCHAIN={channel} exec rustc \
  -Zcodegen-backend="$d/lib/{backend}" \
  --sysroot "$d/sysroot" --target "$d/sysroot/{spec_name}" -Zunstable-options \
  -Clinker="$d/vliw-ld" "$@"
"#,
        channel = toolchain.channel,
        backend = BACKEND_FILE,
    );
    let rustdoc = format!(
        r#"#!/bin/sh
# rustdoc for VLIW-64 with std (written by ./y.sh build; README.md): rustdoc of the
# pinned nightly with our backend, sysroot and target. With --test, the doctests
# are compiled by our backend, linked by vliw-ld and run on the simulator
# (dist/vliw-test-run is the runtool); give the crate under test with --extern, as
# a library that dist/rustc-vliw built.
d=$(cd "$(dirname "$0")" && pwd)
runtool=
for a in "$@"; do [ "$a" = "--test" ] && runtool="--test-runtool $d/vliw-test-run"; done
RUSTUP_TOOLCHAIN={channel} exec rustdoc \
  -Zcodegen-backend="$d/lib/{backend}" \
  --sysroot "$d/sysroot" --target "$d/sysroot/{spec_name}" -Zunstable-options \
  -Clinker="$d/vliw-ld" $runtool "$@"
"#,
        channel = toolchain.channel,
        backend = BACKEND_FILE,
    );
    // rustdoc gives a runtool no RUSTDOC_DOCTEST_BIN_PATH, so a binary of merged
    // doctests (edition 2024) runs them all in its own process instead of spawning
    // itself once per doctest (which the simulator cannot). A doctest that ends the
    // process (`std::process::exit`) would end that run early and quietly; this
    // runner makes that a failure.
    let runner = format!(
        r#"#!/bin/sh
# The runner of dist/cargo-vliw and the runtool of dist/rustdoc-vliw (written by
# ./y.sh build; README.md): runs a VLIW-64 program on dist/vliw-run.
#   vliw-test-run PROGRAM [ARGS...]
# VLIW_RUN_FLAGS in the environment: options of vliw-run (--max-cycles N, ...).
# A binary of merged doctests (rustdoc, edition 2024) runs all its doctests in
# one process on the simulator; if it ends with status 0 before libtest's summary,
# one of them ended the process (std::process::exit), and the run fails here
# instead of passing quietly.
# Host directories (vliw-run --dir): the current directory at `/` (cargo starts
# test binaries in the package's root, so tests/fixtures/x.txt opens as on the
# host) and, under cargo, the package's directory at its own path (paths built
# from CARGO_MANIFEST_DIR).
d=$(cd "$(dirname "$0")" && pwd)
program=$1
if [ -n "$CARGO_MANIFEST_DIR" ] && [ -d "$CARGO_MANIFEST_DIR" ]; then
  set -- --dir "$CARGO_MANIFEST_DIR" "$@"
fi
set -- --dir . "$@"
if [ -n "$program" ] && grep -q {marker} "$program" 2>/dev/null; then
  out=$(mktemp) || exit 1
  {{ "$d/vliw-run" $VLIW_RUN_FLAGS "$@"; echo $? >"$out.status"; }} | tee "$out"
  status=$(cat "$out.status" 2>/dev/null || echo 1)
  if [ "$status" = 0 ] && ! grep -q '^test result: ' "$out"; then
    echo "vliw-test-run: the merged doctests of $program ended before libtest's summary: a doctest ended the process; run the doctests one per process with RUSTDOCFLAGS='-Zunstable-options --merge-doctests=no'" >&2
    status=1
  fi
  rm -f "$out" "$out.status"
  exit "$status"
fi
exec "$d/vliw-run" $VLIW_RUN_FLAGS "$@"
"#,
        marker = MERGED_DOCTESTS_MARKER,
    );
    let runner_var = format!(
        "CARGO_TARGET_{}_RUNNER",
        TARGET.to_uppercase().replace('-', "_")
    );
    let cargo = format!(
        r#"#!/bin/sh
# cargo for VLIW-64 with std (written by ./y.sh build; README.md).
#   cargo-vliw build|run|test|check|doc|... [cargo options]
# Builds for VLIW-64 with our backend and sysroot; `run` and `test` execute the
# programs on the simulator (dist/vliw-test-run, over dist/vliw-run, is the
# runner). Tests run in the test binary's own process (--force-run-in-process:
# the simulator has no processes): a failing test unwinds, libtest catches it and
# goes on, and prints its summary as on the host. (Built with -Cpanic=abort, the
# first failing test ends the run.) Doctests: rustdoc compiles each with our
# backend (RUSTDOCFLAGS) and runs it with the runner; merged doctests (edition
# 2024) run in one process.
d=$(cd "$(dirname "$0")" && pwd)
if [ $# -eq 0 ]; then
  echo "usage: cargo-vliw COMMAND [cargo options]" >&2
  exit 2
fi
command=$1
shift
export RUSTUP_TOOLCHAIN={channel}
# Only target units get RUSTFLAGS and RUSTDOCFLAGS when --target is given: build
# scripts and proc macros still build for the host with LLVM.
# The cfg names this build of the backend, so that cargo rebuilds after a new one.
export RUSTFLAGS="$RUSTFLAGS -Zcodegen-backend=$d/lib/{backend} --sysroot $d/sysroot -Clinker=$d/vliw-ld {stamp}"
# rustdoc (doc tests, cargo doc) with the same backend, sysroot and linker; it
# passes -C and -Z on to the rustc that compiles each doctest.
export RUSTDOCFLAGS="$RUSTDOCFLAGS -Zcodegen-backend=$d/lib/{backend} --sysroot $d/sysroot -Clinker=$d/vliw-ld -Zunstable-options"
export {runner_var}="$d/vliw-test-run"
case "$command" in
  test|t)
    has_sep=no
    for a in "$@"; do [ "$a" = "--" ] && has_sep=yes; done
    if [ $has_sep = yes ]; then
      exec cargo test --target "$d/sysroot/{spec_name}" -Zjson-target-spec "$@" \
        -Zunstable-options --force-run-in-process
    else
      exec cargo test --target "$d/sysroot/{spec_name}" -Zjson-target-spec "$@" \
        -- -Zunstable-options --force-run-in-process
    fi
    ;;
  *)
    exec cargo "$command" --target "$d/sysroot/{spec_name}" -Zjson-target-spec "$@"
    ;;
esac
"#,
        channel = toolchain.channel,
        backend = BACKEND_FILE,
        stamp = backend_cfg(&layout.backend)?.replace('"', "\\\""),
    );
    write_executable(&paths.dist.join("rustc-vliw"), &rustc)?;
    write_executable(&paths.dist.join("rustdoc-vliw"), &rustdoc)?;
    write_executable(&paths.dist.join("vliw-test-run"), &runner)?;
    write_executable(&paths.dist.join("cargo-vliw"), &cargo)
}

/// A string that only binaries of merged doctests hold: the environment variable
/// that names the doctest to run (rustdoc's `__doctest_mod::RUN_OPTION`).
const MERGED_DOCTESTS_MARKER: &str = "RUSTDOC_DOCTEST_RUN_NB_TEST";

fn write(path: &Path, text: &str) -> Result<(), String> {
    fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn write_executable(path: &Path, text: &str) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    write(path, text)?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("cannot make {} executable: {e}", path.display()))
}

fn run_checked(cmd: &mut Command, what: &str) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("{what}: cannot run {:?}: {e}", cmd.get_program()))?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

/// Copies the directory tree `from` to `to`, leaving out the paths (relative to
/// `from`) that `skip` names.
fn copy_tree(from: &Path, to: &Path, skip: &dyn Fn(&Path) -> bool) -> Result<(), String> {
    fn walk(
        root: &Path,
        rel: &Path,
        to: &Path,
        skip: &dyn Fn(&Path) -> bool,
    ) -> Result<(), String> {
        let dir = root.join(rel);
        fs::create_dir_all(to.join(rel))
            .map_err(|e| format!("cannot create {}: {e}", to.join(rel).display()))?;
        for entry in
            fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        {
            let entry = entry.map_err(|e| e.to_string())?;
            let rel = rel.join(entry.file_name());
            if skip(&rel) {
                continue;
            }
            let kind = entry.file_type().map_err(|e| e.to_string())?;
            if kind.is_dir() {
                walk(root, &rel, to, skip)?;
            } else {
                fs::copy(entry.path(), to.join(&rel))
                    .map_err(|e| format!("cannot copy {}: {e}", entry.path().display()))?;
            }
        }
        Ok(())
    }
    walk(from, Path::new(""), to, skip)
}

/// FNV-1a, to notice a changed patch.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}
