//! std's own tests in the `sysroot` suite: std's unit tests (std built with
//! `--test`) and its integration tests (`library/std/tests`), for the host by LLVM and
//! for VLIW-64 by our backend.
//!
//! Unlike coretests and alloctests, these cannot be built against `dist/sysroot` or
//! the toolchain's sysroot. std built with `--test` says `extern crate test`, which
//! the compiler finds in the sysroot, and libtest brings the core and std it was
//! built against; the test build links the core and std that cargo builds for it. A
//! program with two cores has every lang item twice (E0152). So each side and
//! profile gets a sysroot of its own, made by the same cargo command line as the
//! test build, as bootstrap does for `x test library/std`:
//!
//! 1. `cargo build -p sysroot` into the side's target directory, with
//!    `--sysroot` pointing at the side's own (still empty) sysroot: core to libtest;
//! 2. those rlibs are copied into that sysroot, and for VLIW-64 the runtime that the
//!    target specification links is built against them;
//! 3. `cargo test --no-run -p std` with the same flags and target directory: cargo
//!    finds core to std fresh, and the test crates' `extern crate test` loads the
//!    copied libtest, whose core is the one they link.
//!
//! The sysroot crate's features are `./y.sh build`'s ([`SYSROOT_FEATURES`]) on both
//! sides, and `__CARGO_DEFAULT_LIB_METADATA` is the same, so that the two commands
//! agree on every crate's hash.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::paths::Paths;
use crate::sysroot::{
    Layout, SYSROOT_FEATURES, TARGET, build_runtime, built_libraries, cargo_messages, rustflags,
    sysroot_rustflags,
};
use crate::test_sysroot::{Profile, test_executables};
use crate::toolchain::Toolchain;

/// The prefix of std's test binaries in the suite's reports and the skip file:
/// `std-lib` (the unit tests), `std-sync`, `std-thread`... (`library/std/tests`).
const PREFIX: &str = "std-";
/// std's unit tests, as `test_executables` names a library's tests.
const UNIT_TESTS: &str = "std-lib";

/// std's integration tests that are not libtest programs (`harness = false`), with
/// why the suite leaves them out.
const NOT_LIBTEST: [(&str, &str); 1] = [(
    "pipe_subprocess",
    "harness = false: a program that runs itself as a child process, and the platform \
     has no processes",
)];

/// The suite's `--binary` value that selects all of std's test binaries.
pub(crate) const ALL: &str = "std";

/// Whether `binary` (a name of the suite's `--binary` option) is one of std's, or
/// all of them ([`ALL`]).
pub(crate) fn is_std_binary(binary: &str) -> bool {
    binary == ALL || binary.starts_with(PREFIX)
}

/// Builds std's tests for the host (`vliw` None) or for VLIW-64 with `profile`;
/// returns the test executables by binary name (`std-lib`, `std-sync`, ...).
pub(crate) fn build(
    paths: &Paths,
    toolchain: &Toolchain,
    library: &Path,
    vliw: Option<&Layout>,
    profile: Profile,
) -> Result<BTreeMap<String, PathBuf>, String> {
    let side = if vliw.is_some() { "vliw" } else { "host" };
    let target_dir = paths
        .build
        .join("sysroot")
        .join(format!("std-tests-{side}-{}", profile.name()));
    let sysroot = target_dir.join("sysroot");
    let (target, rustflags) = match vliw {
        None => (
            toolchain.host_triple()?,
            rustflags(&[
                format!("--sysroot={}", sysroot.display()),
                "-Zforce-unstable-if-unmarked".into(),
            ])?,
        ),
        Some(layout) => (
            TARGET.to_string(),
            sysroot_rustflags(paths, &layout.backend, Some(&sysroot))?,
        ),
    };
    let lib = sysroot
        .join("lib")
        .join("rustlib")
        .join(&target)
        .join("lib");
    fs::create_dir_all(&lib).map_err(|e| format!("cannot create {}: {e}", lib.display()))?;

    let cargo = |subcommand: &[&str]| {
        let mut cmd = toolchain.cargo(library);
        cmd.args(subcommand);
        profile.apply(&mut cmd);
        cmd.args(["--locked", "--offline"])
            .args(["--message-format", "json-render-diagnostics"])
            .arg("--target");
        match vliw {
            None => cmd.arg(&target),
            Some(layout) => cmd.arg(&layout.spec).arg("-Zjson-target-spec"),
        };
        cmd.args(["--no-default-features", "--features"])
            .arg(SYSROOT_FEATURES)
            .env("CARGO_TARGET_DIR", &target_dir)
            .env("__CARGO_DEFAULT_LIB_METADATA", "vliw-sysroot")
            .env("RUSTFLAGS", &rustflags)
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .env_remove("RUSTDOCFLAGS");
        cmd
    };

    eprintln!(
        "[sysroot] std's tests ({side}, {}): their sysroot",
        profile.name()
    );
    let messages = cargo_messages(
        &mut cargo(&["build", "-p", "sysroot"]),
        "the sysroot of std's tests",
    )?;
    let libraries = built_libraries(&messages);
    if libraries.is_empty() {
        return Err("cargo built the sysroot of std's tests but named no rlib".into());
    }
    // Only this build's libraries: one left from an earlier build (another backend,
    // other hashes) would be a second candidate for its crate.
    fs::remove_dir_all(&lib).map_err(|e| format!("cannot remove {}: {e}", lib.display()))?;
    fs::create_dir_all(&lib).map_err(|e| format!("cannot create {}: {e}", lib.display()))?;
    for library in &libraries {
        let name = library.file_name().expect("a library file name");
        crate::build::install(library, &lib.join(name))?;
    }
    if let Some(layout) = vliw {
        // The runtime calls into core (and links gimli): built against this
        // sysroot's, whose symbols differ from dist/sysroot's at opt-level 0.
        let own = Layout {
            sysroot: sysroot.clone(),
            spec: layout.spec.clone(),
            lib: lib.clone(),
            backend: layout.backend.clone(),
        };
        build_runtime(paths, toolchain, &own)?;
    }

    eprintln!(
        "[sysroot] std's tests ({side}, {}): the tests",
        profile.name()
    );
    // The unit tests and the integration tests, not the benches (`test = true`).
    let messages = cargo_messages(
        &mut cargo(&["test", "--no-run", "-p", "std", "--lib", "--test", "*"]),
        "std's tests",
    )?;
    let executables = suite_binaries(test_executables(&messages));
    if !executables.contains_key(UNIT_TESTS) {
        return Err("cargo built std's tests but reported no unit-test executable".into());
    }
    Ok(executables)
}

/// cargo's test executables of std under the suite's names: the unit tests (`std-lib`
/// already) as they are, the integration tests with [`PREFIX`], without
/// [`NOT_LIBTEST`].
fn suite_binaries(executables: BTreeMap<String, PathBuf>) -> BTreeMap<String, PathBuf> {
    executables
        .into_iter()
        .filter(|(name, _)| !NOT_LIBTEST.iter().any(|(n, _)| n == name))
        .map(|(name, exe)| {
            if name == UNIT_TESTS {
                (name, exe)
            } else {
                (format!("{PREFIX}{name}"), exe)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_std_binaries_apart_from_the_other_library_tests() {
        let cargo: BTreeMap<String, PathBuf> = ["std-lib", "sync", "env", "pipe_subprocess"]
            .into_iter()
            .map(|n| (n.to_string(), PathBuf::from(format!("/t/{n}-0123"))))
            .collect();
        let names: Vec<String> = suite_binaries(cargo).into_keys().collect();
        assert_eq!(names, ["std-env", "std-lib", "std-sync"]);
    }
}
