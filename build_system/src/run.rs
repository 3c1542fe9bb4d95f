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

pub struct Options {
    /// Flags passed through to vliw-run.
    pub sim_flags: Vec<String>,
    pub file: String,
    pub args: Vec<String>,
    /// Rust: `-Copt-level=3` instead of 0.
    pub release: bool,
    /// Rust: backend options, `KEY=VALUE` each (`-Cllvm-args=KEY=VALUE`).
    pub backend_options: Vec<String>,
}

#[derive(Clone, Copy, PartialEq)]
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

/// Compiles `opts.file` with `dist/rustc-vliw` (std, edition 2024) into
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
    let opt = if opts.release { "3" } else { "0" };
    eprintln!(
        "[run] compiling {} (-Copt-level={opt})",
        paths.show(&source)
    );
    build_step(
        Command::new(paths.dist.join("rustc-vliw"))
            .args(["--edition=2024", &format!("-Copt-level={opt}")])
            .args(
                opts.backend_options
                    .iter()
                    .map(|o| format!("-Cllvm-args={o}")),
            )
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
