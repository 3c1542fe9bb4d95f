//! What the suites share that compare our backend's build of a program with LLVM's
//! host build of it (`no_sysroot`, `programs`): the pinned rustc, build commands that
//! can be shown, recorded and cached, a small pool of test threads, the check of the
//! host run (the expectation) and the comparison of the two runs.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant, SystemTime};

use crate::headers::Headers;
use crate::process::{self, Output};
use crate::report::{diff_excerpt, tail};
use crate::test_target::{Failure, expect_success};
use crate::toolchain::Toolchain;

/// One rustc invocation; the first builds with a new backend may be slow.
pub(crate) const COMPILE_TIMEOUT: Duration = Duration::from_secs(300);
const STDERR_TAIL: usize = 12;
/// The backend option that verifies the IR after every pass of the pipeline (the
/// default verifies only at the boundaries of its stages): the differential suites
/// build with it, so that a pass that breaks an invariant fails there even when the
/// program happens to print the right output.
pub(crate) const VERIFY_EACH: &str = "-Cllvm-args=verify=each";

pub struct Outcome {
    pub passed: usize,
    pub failed: usize,
}

/// The pinned toolchain's rustc, called directly (not through rustup's proxy).
pub(crate) struct Rustc {
    pub(crate) path: PathBuf,
    pub(crate) channel: String,
    pub(crate) host: String,
}

impl Rustc {
    pub(crate) fn locate(toolchain: &Toolchain) -> Result<Rustc, String> {
        let print = |args: &[&str]| -> Result<String, String> {
            let out = Command::new("rustc")
                .env("RUSTUP_TOOLCHAIN", &toolchain.channel)
                .args(args)
                .output()
                .map_err(|e| format!("cannot run rustc: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "rustc {} failed: {}",
                    args.join(" "),
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
            }
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        };
        let sysroot = print(&["--print", "sysroot"])?;
        let path = Path::new(sysroot.trim()).join("bin").join("rustc");
        let version = print(&["-vV"])?;
        let host = version
            .lines()
            .find_map(|l| l.strip_prefix("host: "))
            .ok_or("rustc -vV names no host triple")?
            .trim()
            .to_string();
        Ok(Rustc {
            path,
            channel: toolchain.channel.clone(),
            host,
        })
    }
}

/// Builds driven from the repository root with the pinned rustc: shown as they can be
/// typed there, recorded for reproduction, cached when their inputs did not change.
pub(crate) struct Commands {
    pub(crate) root: PathBuf,
    pub(crate) rustc: Rustc,
}

impl Commands {
    /// Runs a rustc that must write `output`; a failure names the command.
    pub(crate) fn build_step(
        &self,
        what: &str,
        cmd: &mut Command,
        output: &Path,
    ) -> Result<(), Failure> {
        let _ = fs::remove_file(output);
        let out = process::run(cmd, b"", Instant::now() + COMPILE_TIMEOUT).map_err(Failure::new)?;
        let result = if out.timed_out() {
            Err(Failure::new(format!(
                "{what} timed out after {} s",
                COMPILE_TIMEOUT.as_secs()
            ))
            .with(tail(&out.stderr, STDERR_TAIL)))
        } else {
            expect_success(what, &out, output)
        };
        result.map_err(|f| {
            f.with([format!(
                "command (from the repository root): {}",
                self.show(cmd)
            )])
        })
    }

    /// Runs the build commands unless their outputs are newer than every input and
    /// were made by the same commands (kept in `stamp`). Host builds only: they are
    /// the expectations, and the same compiler on the same sources gives the same ones.
    pub(crate) fn cached(
        &self,
        cmds: &[Command],
        outputs: &[&Path],
        inputs: &[PathBuf],
        stamp: &Path,
    ) -> Result<(), Failure> {
        let key: Vec<String> = cmds.iter().map(|c| self.show(c)).collect();
        let key = key.join("\n") + "\n";
        let mtime = |p: &Path| fs::metadata(p).and_then(|m| m.modified()).ok();
        let newest_input = inputs
            .iter()
            .map(|p| mtime(p))
            .collect::<Option<Vec<SystemTime>>>()
            .and_then(|t| t.into_iter().max());
        let oldest_output = outputs
            .iter()
            .map(|p| mtime(p))
            .collect::<Option<Vec<SystemTime>>>()
            .and_then(|t| t.into_iter().min());
        let fresh = matches!((newest_input, oldest_output), (Some(i), Some(o)) if o >= i)
            && fs::read_to_string(stamp).is_ok_and(|s| s == key);
        if fresh {
            return Ok(());
        }
        let _ = fs::remove_file(stamp);
        for (cmd, output) in cmds.iter().zip(outputs) {
            // Command is not Clone: rebuild it from its parts.
            let mut again = Command::new(cmd.get_program());
            again.args(cmd.get_args());
            let mut again = crate::process::with_context_of(cmd, again);
            self.build_step("rustc", &mut again, output)?;
        }
        fs::write(stamp, key)
            .map_err(|e| Failure::new(format!("cannot write {}: {e}", stamp.display())))
    }

    /// Removes the `NAME.d` directories under `dir` of programs not in `names`.
    pub(crate) fn prune(dir: &Path, names: &[&str]) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(stem) = name.strip_suffix(".d")
                && !names.contains(&stem)
            {
                let _ = fs::remove_dir_all(entry.path());
            }
        }
    }

    /// The build commands of a test, for reproducing it by hand.
    pub(crate) fn record(&self, file: &Path, cmds: &[&Command]) {
        let mut text = String::from("# Run from the repository root.\n");
        for cmd in cmds {
            text.push_str(&self.show(cmd));
            text.push('\n');
        }
        let _ = fs::write(file, text);
    }

    /// A command line as it can be typed in the repository root: rustc through rustup
    /// with the pinned channel, paths inside the repository relative to it.
    pub(crate) fn show(&self, cmd: &Command) -> String {
        let root = format!("{}/", self.root.display());
        let program = cmd.get_program().to_string_lossy().into_owned();
        let mut words = vec![if Path::new(&program) == self.rustc.path {
            format!("rustc +{}", self.rustc.channel)
        } else {
            program.replace(&root, "")
        }];
        for arg in cmd.get_args() {
            let arg = arg.to_string_lossy().replace(&root, "");
            if arg.is_empty()
                || arg.contains(|c: char| c.is_whitespace() || "'\"$\\;&|<>()*?".contains(c))
            {
                words.push(format!("'{}'", arg.replace('\'', r"'\''")));
            } else {
                words.push(arg);
            }
        }
        words.join(" ")
    }
}

/// The Rust programs of a directory: each `*.rs` file directly in it, as (crate name,
/// path), sorted by name. Shared by the suites and the benchmark that build one
/// program per file.
pub(crate) fn rust_programs(dir: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut programs = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
            .path();
        if !path.is_file() || path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let name = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        programs.push((name, path));
    }
    programs.sort();
    Ok(programs)
}

/// Runs `work` on every job on `threads` threads and hands each result to `done` on
/// the calling thread, in the order they finish.
pub(crate) fn run_parallel<J: Sync, R: Send>(
    jobs: &[J],
    threads: usize,
    work: impl Fn(&J) -> R + Sync,
    mut done: impl FnMut(R),
) {
    let next = AtomicUsize::new(0);
    let (send, receive) = mpsc::channel();
    thread::scope(|scope| {
        for _ in 0..threads.min(jobs.len()) {
            let send = send.clone();
            let (next, work) = (&next, &work);
            scope.spawn(move || {
                while let Some(job) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if send.send(work(job)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(send);
        for result in receive {
            done(result);
        }
    });
}

/// Prints `ok LABEL` or `FAILED LABEL: reason` with indented details, and counts it.
pub(crate) fn report(label: &str, result: Result<(), Failure>, outcome: &mut Outcome) {
    match result {
        Ok(()) => {
            outcome.passed += 1;
            println!("ok {label}");
        }
        Err(failure) => {
            outcome.failed += 1;
            println!("FAILED {label}: {}", failure.reason);
            for line in &failure.details {
                println!("    {line}");
            }
        }
    }
}

pub(crate) fn prefix(side: &str, f: Failure) -> Failure {
    Failure {
        reason: format!("{side}: {}", f.reason),
        details: f.details,
    }
}

pub(crate) fn mkdir(dir: &Path) -> Result<(), Failure> {
    fs::create_dir_all(dir)
        .map_err(|e| Failure::new(format!("cannot create {}: {e}", dir.display())))
}

/// The host run is the expectation: it must meet the program's headers (its author's
/// intent: exit code, panic message) and print something, or the test is broken.
pub(crate) fn check_host(h: &Headers, out: &Output, run_timeout: Duration) -> Result<(), Failure> {
    let mut reasons = Vec::new();
    if out.timed_out() {
        reasons.push(format!("killed after {} s", run_timeout.as_secs()));
    } else if out.shell_code() != Some(h.exit_code()) {
        reasons.push(format!(
            "{}, the program's headers expect exit code {}",
            out.describe(),
            h.exit_code()
        ));
    }
    if out.stdout.is_empty() {
        reasons.push("printed nothing on stdout (a program must print what it computes)".into());
    }
    for text in &h.expect_stderr_contains {
        if !process::contains(&out.stderr, text) {
            reasons.push(format!("stderr lacks {}", crate::report::quote(text)));
        }
    }
    if reasons.is_empty() {
        return Ok(());
    }
    let mut details = Vec::new();
    if !out.stderr.is_empty() {
        details.push("host stderr:".to_string());
        details.extend(
            tail(&out.stderr, STDERR_TAIL)
                .into_iter()
                .map(|l| format!("  {l}")),
        );
    }
    Err(Failure::new(format!("host run: {}", reasons.join("; "))).with(details))
}

/// The VLIW run must reproduce the host run: exit code, stdout and stderr.
pub(crate) fn compare(host: &Output, vliw: &Output, run_timeout: Duration) -> Result<(), Failure> {
    let mut reasons = Vec::new();
    let mut details = Vec::new();
    if vliw.timed_out() {
        reasons.push(format!("vliw-run killed after {} s", run_timeout.as_secs()));
    } else if vliw.shell_code() != host.shell_code() {
        reasons.push(format!(
            "vliw: {}, host: {}",
            vliw.describe(),
            host.describe()
        ));
    }
    for (name, h, v) in [
        ("stdout", &host.stdout, &vliw.stdout),
        ("stderr", &host.stderr, &vliw.stderr),
    ] {
        if h != v {
            reasons.push(format!("{name} differs"));
            details.push(format!("{name}: host (-), vliw (+)"));
            details.extend(diff_excerpt(h, v).into_iter().map(|l| format!("  {l}")));
        }
    }
    if reasons.is_empty() {
        Ok(())
    } else {
        Err(Failure::new(reasons.join("; ")).with(details))
    }
}

/// A program's file stem is its crate name: lowercase letters, digits and `_`.
pub fn check_crate_name(name: &str) -> Result<(), String> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    {
        return Err(format!(
            "`{name}` is not a crate name: use lowercase letters, digits and `_`"
        ));
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::headers;

    const T: Duration = Duration::from_secs(60);

    pub(crate) fn output(code: i32, stdout: &[u8], stderr: &[u8]) -> Output {
        use std::os::unix::process::ExitStatusExt;
        Output {
            status: Some(std::process::ExitStatus::from_raw(code << 8)),
            stdout: stdout.to_vec(),
            stderr: stderr.to_vec(),
        }
    }

    #[test]
    fn the_host_run_must_meet_the_headers_and_print() {
        let h = headers::parse_with(
            "// expect-exit: 101\n// expect-stderr-contains: boom\n",
            "//",
        )
        .unwrap();
        assert!(check_host(&h, &output(101, b"x\n", b"panicked: boom\n"), T).is_ok());
        let f = check_host(&h, &output(0, b"x\n", b""), T).unwrap_err();
        assert!(
            f.reason.contains("expect exit code 101") && f.reason.contains("lacks"),
            "{}",
            f.reason
        );
        let h = headers::parse_with("", "//").unwrap();
        assert!(
            check_host(&h, &output(0, b"", b""), T)
                .unwrap_err()
                .reason
                .contains("printed nothing")
        );
    }

    #[test]
    fn compares_code_stdout_and_stderr() {
        let host = output(0, b"a\nb\n", b"");
        assert!(compare(&host, &output(0, b"a\nb\n", b""), T).is_ok());
        let f = compare(&host, &output(3, b"a\nc\n", b"fault\n"), T).unwrap_err();
        assert_eq!(
            f.reason,
            "vliw: exit code 3, host: exit code 0; stdout differs; stderr differs"
        );
        assert!(f.details.iter().any(|l| l.contains("+ \"c\"")));
    }
}
