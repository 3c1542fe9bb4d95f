//! `run`: build one program and run it on the simulator, as a user would.
//!
//! The stdout of `run` is exactly the program's: everything else (build progress, the
//! assembler's and linker's output) goes to stderr.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::headers;
use crate::paths::Paths;
use crate::process::describe_status;

#[derive(Debug)]
pub struct Options {
    pub kind: Kind,
    /// Flags passed through to vliw-run.
    pub sim_flags: Vec<String>,
    pub file: String,
    pub args: Vec<String>,
    /// Rust: rustc's own options, passed to `dist/rustc-vliw` as given (after the
    /// defaults `--edition=2024`, unless an edition is given, and `-Copt-level=3` for
    /// `--release`, so that an explicit `-C opt-level` wins).
    pub rustc_flags: Vec<String>,
    /// Rust: `-Copt-level=3` instead of rustc's default 0.
    pub release: bool,
}

#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Kind {
    Assembly,
    Rust,
}

pub fn kind(file: &str) -> Result<Kind, String> {
    match Path::new(file).extension().and_then(|e| e.to_str()) {
        Some("s") => Ok(Kind::Assembly),
        Some("rs") => Ok(Kind::Rust),
        _ => Err(format!(
            "run: {file}: expected an assembly (.s) or Rust (.rs) file"
        )),
    }
}

/// The simulator's flags that `run` passes through: those without a value, and those
/// that take one (as the next word).
const SIM_FLAGS: [&str; 4] = ["--stats", "--strict", "--trace", "--check-unwind"];
const SIM_FLAGS_WITH_VALUE: [&str; 8] = [
    "--dir",
    "--max-cycles",
    "--seed",
    "--machine",
    "--stack-size",
    "--heap-size",
    "--env",
    "--profile",
];

/// rustc's options that `run` passes through, as `dist/rustc-vliw` takes them: those
/// that take a value (as the next word, or joined: `-Copt-level=2`, `--edition=2021`),
/// and those without.
const RUSTC_FLAGS_WITH_VALUE: [&str; 9] = [
    "-C",
    "-Z",
    "--edition",
    "--cfg",
    "--crate-name",
    "--cap-lints",
    "-A",
    "-W",
    "-D",
];
const RUSTC_FLAGS: [&str; 2] = ["-O", "-g"];

/// Parses `run`'s command line: `[FLAGS] FILE [--] [ARGS...]`.
pub fn parse_command_line(words: &[String]) -> Result<Options, String> {
    let mut sim_flags = Vec::new();
    let mut rustc_flags = Vec::new();
    let mut release = false;
    let mut rest = words.iter();
    let file = loop {
        let Some(word) = rest.next().map(String::as_str) else {
            return Err("run: no FILE given".into());
        };
        if word == "--release" {
            release = true;
        } else if SIM_FLAGS.contains(&word) {
            sim_flags.push(word.to_string());
        } else if SIM_FLAGS_WITH_VALUE.contains(&word) {
            let value = rest
                .next()
                .ok_or_else(|| format!("run: {word} needs a value"))?;
            sim_flags.extend([word.to_string(), value.clone()]);
        } else if RUSTC_FLAGS.contains(&word) {
            rustc_flags.push(word.to_string());
        } else if RUSTC_FLAGS_WITH_VALUE.contains(&word) {
            let value = rest
                .next()
                .ok_or_else(|| format!("run: {word} needs a value"))?;
            rustc_flags.extend([word.to_string(), value.clone()]);
        } else if let Some(flag) = RUSTC_FLAGS_WITH_VALUE
            .iter()
            .find(|f| joined_value(word, f).is_some())
        {
            let value = joined_value(word, flag).unwrap_or_default();
            rustc_flags.extend([flag.to_string(), value.to_string()]);
        } else if word.starts_with('-') {
            return Err(format!(
                "run: unknown option {word} (rustc's -C, -Z, --edition, --cfg, --crate-name, \
                 --cap-lints, -A, -W, -D, -O, -g and the simulator's {} pass through)",
                SIM_FLAGS
                    .iter()
                    .chain(&SIM_FLAGS_WITH_VALUE)
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        } else {
            break word.to_string();
        }
    };
    let mut args: Vec<String> = rest.cloned().collect();
    if args.first().is_some_and(|a| a == "--") {
        args.remove(0);
    }
    let kind = kind(&file)?;
    if kind == Kind::Assembly && (release || !rustc_flags.is_empty()) {
        return Err("run: --release and rustc's options apply to Rust programs only".into());
    }
    Ok(Options {
        kind,
        sim_flags,
        file,
        args,
        rustc_flags,
        release,
    })
}

/// The value of `word` when it is `flag` with its value joined: `-Copt-level=3` for
/// `-C`, `--edition=2021` for `--edition`.
fn joined_value<'a>(word: &'a str, flag: &str) -> Option<&'a str> {
    let rest = word.strip_prefix(flag)?;
    let value = if flag.starts_with("--") {
        rest.strip_prefix('=')?
    } else {
        rest
    };
    (!value.is_empty()).then_some(value)
}

/// Compiles `opts.file` with `dist/rustc-vliw` (std; edition 2024 unless the options
/// say otherwise) into
/// `build/run/`, then runs it on the simulator with inherited stdio. Returns the
/// program's exit code.
pub fn run_rust(paths: &Paths, opts: &Options) -> Result<i32, String> {
    let source = paths.user_path(&opts.file);
    if !source.is_file() {
        return Err(format!("run: {} does not exist", source.display()));
    }
    let work = paths.build.join("run");
    fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let exe = work.join(source.file_stem().unwrap_or_default());
    let mut flags: Vec<String> = Vec::new();
    if !opts.rustc_flags.iter().any(|f| f == "--edition") {
        flags.push("--edition=2024".into());
    }
    if opts.release {
        flags.push("-Copt-level=3".into());
    }
    flags.extend(opts.rustc_flags.iter().cloned());
    eprintln!(
        "[run] compiling {} ({})",
        paths.show(&source),
        flags.join(" ")
    );
    build_step(
        Command::new(paths.dist.join("rustc-vliw"))
            .args(&flags)
            .arg(&source)
            .arg("-o")
            .arg(&exe),
        "rustc-vliw",
    )?;
    simulate(paths, opts, &exe)
}

/// Assembles and links `opts.file` (with the `extra-sources` and `link-flags` of its
/// headers, so that test programs run as the test suite runs them) into `build/run/`,
/// then runs it with inherited stdio. Returns the program's exit code.
pub fn run_assembly(paths: &Paths, opts: &Options) -> Result<i32, String> {
    let source = paths.user_path(&opts.file);
    let text = fs::read_to_string(&source)
        .map_err(|e| format!("cannot read {}: {e}", source.display()))?;
    let h = headers::parse(&text).map_err(|e| format!("{}: {e}", source.display()))?;
    let work = paths.build.join("run");
    fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;

    let dir = source.parent().unwrap_or(Path::new("."));
    let mut sources = vec![source.clone()];
    sources.extend(h.extra_sources.iter().map(|extra| dir.join(extra)));
    let mut objects: Vec<PathBuf> = Vec::new();
    for (i, source) in sources.iter().enumerate() {
        let stem = source.file_stem().unwrap_or_default().to_string_lossy();
        // Numbered so that two sources with the same name cannot collide.
        let object = work.join(format!("{stem}.{i}.o"));
        eprintln!("[run] assembling {}", paths.show(source));
        build_step(
            Command::new(paths.tool("vliw-as"))
                .arg(source)
                .arg("-o")
                .arg(&object),
            "vliw-as",
        )?;
        objects.push(object);
    }
    let exe = work.join(source.file_stem().unwrap_or_default());
    eprintln!("[run] linking {}", paths.show(&exe));
    build_step(
        Command::new(paths.tool("vliw-ld"))
            .args(&objects)
            .arg("-o")
            .arg(&exe)
            .args(&h.link_flags),
        "vliw-ld",
    )?;

    simulate(paths, opts, &exe)
}

/// Runs `exe` on the simulator with the program's arguments and our stdio, in the
/// directory `y.sh` was invoked from (where `--dir`'s relative paths start).
fn simulate(paths: &Paths, opts: &Options, exe: &Path) -> Result<i32, String> {
    let status = Command::new(paths.tool("vliw-run"))
        .current_dir(&paths.invoked_from)
        .args(&opts.sim_flags)
        .arg(exe)
        .args(&opts.args)
        .status()
        .map_err(|e| format!("cannot run {}: {e}", paths.show(&paths.tool("vliw-run"))))?;
    match status.code() {
        Some(code) => Ok(code),
        None => Err(format!("vliw-run was {}", describe_status(status))),
    }
}

/// Runs a build tool with its stdout sent to our stderr: our stdout is the program's.
fn build_step(cmd: &mut Command, tool: &str) -> Result<(), String> {
    let status = cmd
        .stdin(Stdio::null())
        .stdout(std::io::stderr())
        .status()
        .map_err(|e| format!("cannot run {tool}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{tool} failed ({})", describe_status(status)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Options, String> {
        let words: Vec<String> = line.split_whitespace().map(String::from).collect();
        parse_command_line(&words)
    }

    #[test]
    fn rustc_options_pass_through_in_both_spellings() {
        let o = parse(
            "--release -C opt-level=2 -Cdebug-assertions=on --edition 2021 --cfg=foo \
             -Zmir-opt-level=0 -O --stats --seed 7 --dir data::/d prog.rs -- a -C b",
        )
        .unwrap();
        assert_eq!(o.kind, Kind::Rust);
        assert!(o.release);
        assert_eq!(
            o.rustc_flags,
            [
                "-C",
                "opt-level=2",
                "-C",
                "debug-assertions=on",
                "--edition",
                "2021",
                "--cfg",
                "foo",
                "-Z",
                "mir-opt-level=0",
                "-O"
            ]
        );
        assert_eq!(o.sim_flags, ["--stats", "--seed", "7", "--dir", "data::/d"]);
        assert_eq!(o.file, "prog.rs");
        // everything after FILE is the program's, `--` dropped once
        assert_eq!(o.args, ["a", "-C", "b"]);
    }

    #[test]
    fn bad_command_lines_are_usage_errors() {
        assert!(
            parse("--bogus prog.rs")
                .unwrap_err()
                .contains("unknown option --bogus")
        );
        assert!(parse("--edition").unwrap_err().contains("needs a value"));
        assert!(parse("--stats").unwrap_err().contains("no FILE"));
        assert!(
            parse("-C opt-level=3 prog.s")
                .unwrap_err()
                .contains("Rust programs only")
        );
        assert!(
            parse("prog.c")
                .unwrap_err()
                .contains("expected an assembly")
        );
        // `--editionX` is not `--edition=X`
        assert!(parse("--edition2021 prog.rs").is_err());
    }
}
