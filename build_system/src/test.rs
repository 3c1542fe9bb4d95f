//! `test`: the suites listed in tests/suites.txt (like cg_clif's config.txt).
//!
//! The file lists one suite per line, `NAME  one-line description`, in the order
//! `./y.sh test` runs them; `#` starts a comment line. Each name must be one this
//! build system implements (see `SUITES`); removing a line disables that suite.

use std::fs;

use crate::build::{self, Profile};
use crate::paths::Paths;
use crate::test_target;
use crate::toolchain::Toolchain;

/// The suites this build system can run.
const SUITES: [&str; 2] = ["unit", "target"];

#[derive(Debug)]
pub struct Suite {
    pub name: String,
    pub description: String,
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
        });
    }
    Ok(suites)
}

/// Prints the suites, for `test --list` and `test --help`.
pub fn list(suites: &[Suite]) {
    let width = suites.iter().map(|s| s.name.len()).max().unwrap_or(0);
    for s in suites {
        println!("  {:width$}  {}", s.name, s.description);
    }
}

/// Runs the selected suites (all when `selected` is empty), then prints a summary.
/// Every suite runs even after a failure, so that one report shows them all.
pub fn test(paths: &Paths, toolchain: &Toolchain, selected: &[String]) -> Result<bool, String> {
    let suites = load_suites(paths)?;
    let names: Vec<&str> = if selected.is_empty() {
        suites.iter().map(|s| s.name.as_str()).collect()
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
        let result = match *name {
            "unit" => unit(paths, toolchain),
            "target" => target(paths, toolchain),
            _ => unreachable!("suite names are checked by parse_suites"),
        };
        if let Err(message) = &result {
            eprintln!("[test] suite {name} FAILED: {message}");
        }
        results.push((name, result));
    }

    println!();
    println!("test summary:");
    let width = names.iter().map(|n| n.len()).max().unwrap_or(0);
    for (name, result) in &results {
        match result {
            Ok(summary) => println!("  {name:width$}  ok ({summary})"),
            Err(message) => println!("  {name:width$}  FAILED: {message}"),
        }
    }
    let failed = results.iter().filter(|(_, r)| r.is_err()).count();
    println!("suites: {} passed, {failed} failed", results.len() - failed);
    Ok(failed == 0)
}

/// The workspace's own unit and property tests, then the build system's (a separate
/// workspace built with stable, see y.sh). Ok holds a short summary.
fn unit(paths: &Paths, toolchain: &Toolchain) -> Result<String, String> {
    let run = |mut cmd: std::process::Command, what: &str| -> Result<(), String> {
        let status = cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?;
        if status.success() { Ok(()) } else { Err(format!("{what} failed ({status})")) }
    };
    let mut workspace = toolchain.cargo(&paths.root);
    workspace.args(["test", "--workspace", "--release", "--locked"]);
    run(workspace, "cargo test --workspace --release")?;
    let mut build_system = std::process::Command::new("cargo");
    build_system
        .current_dir(&paths.root)
        .env("RUSTUP_TOOLCHAIN", "stable")
        .args(["test", "--release", "--locked", "--manifest-path", "build_system/Cargo.toml"])
        .args(["--target-dir", "build_system/target"]);
    run(build_system, "cargo test of build_system")?;
    Ok("cargo test --workspace --release, and build_system's tests".into())
}

fn target(paths: &Paths, toolchain: &Toolchain) -> Result<String, String> {
    build::build(paths, toolchain, Profile::Release)?;
    let outcome = test_target::run(paths)?;
    let summary = format!("{} passed, {} failed", outcome.passed, outcome.failed);
    if outcome.failed == 0 {
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
