//! The `target` suite: every assembly program under `tests/asm/` is assembled, linked
//! and run on the simulator with the tools in `dist/`, and checked against its
//! expectation headers (see `headers.rs`). Every object is also round-tripped through
//! `vliw-objdump --reassemble` and `vliw-as`, which must reproduce its code exactly.

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use crate::headers::{self, Headers};
use crate::paths::Paths;
use crate::process::{self, Output};
use crate::report::{diff_excerpt, quote, tail};

/// Two workers: enough to overlap the tools' start-up, and CI machines have few cores.
const THREADS: usize = 2;
/// A test still running after this is killed and fails; nothing here should take long.
const TIMEOUT: Duration = Duration::from_secs(60);
const STDERR_TAIL: usize = 8;

pub struct Outcome {
    pub passed: usize,
    pub failed: usize,
}

struct Case {
    /// Path under tests/asm without `.s`, with `/` separators.
    name: String,
    source: PathBuf,
}

/// Why a test failed: a one-line reason and indented detail lines (also used by the
/// no_sysroot suite).
pub(crate) struct Failure {
    pub(crate) reason: String,
    pub(crate) details: Vec<String>,
}

impl Failure {
    pub(crate) fn new(reason: impl Into<String>) -> Failure {
        Failure {
            reason: reason.into(),
            details: Vec::new(),
        }
    }

    pub(crate) fn with(mut self, details: impl IntoIterator<Item = String>) -> Failure {
        self.details.extend(details);
        self
    }
}

/// Runs the suite, printing `ok NAME` / `FAILED NAME: REASON` per test and the closing
/// `N passed, N failed` line on stdout. Expects the tools to be built in `dist/`.
pub fn run(paths: &Paths) -> Result<Outcome, String> {
    let root = paths.tests.join("asm");
    let cases = discover(&root)?;
    if cases.is_empty() {
        // An empty suite passing would hide a moved or misconfigured test directory.
        return Err(format!(
            "no test programs (*.s) found under {}",
            paths.show(&root)
        ));
    }
    let work_root = paths.build.join("test").join("asm");
    // Outputs of this run only: those of deleted or renamed tests would mislead.
    let _ = fs::remove_dir_all(&work_root);
    let next = AtomicUsize::new(0);
    let (send, receive) = mpsc::channel();
    let mut outcome = Outcome {
        passed: 0,
        failed: 0,
    };
    thread::scope(|scope| {
        for _ in 0..THREADS.min(cases.len()) {
            let send = send.clone();
            let (cases, next, work_root) = (&cases, &next, &work_root);
            scope.spawn(move || {
                while let Some(case) = cases.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let runner = Runner {
                        paths,
                        // `.d`: test `a` must not own the directory of test `a/b`.
                        work: work_root.join(format!("{}.d", case.name)),
                        deadline: Instant::now() + TIMEOUT,
                    };
                    // The outputs stay for a look at a failure; name them.
                    let result = runner.run(case).map_err(|f| {
                        let files = format!("outputs in {}/", paths.show(&runner.work));
                        f.with([files])
                    });
                    if send.send((case.name.clone(), result)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(send);
        // Results are printed as they arrive, so a slow test shows which one it is.
        for (name, result) in receive {
            match result {
                Ok(()) => {
                    outcome.passed += 1;
                    println!("ok {name}");
                }
                Err(failure) => {
                    outcome.failed += 1;
                    println!("FAILED {name}: {}", failure.reason);
                    for line in &failure.details {
                        println!("    {line}");
                    }
                }
            }
        }
    });
    println!("{} passed, {} failed", outcome.passed, outcome.failed);
    Ok(outcome)
}

/// All `*.s` files under `root`, sorted, except those that some program names in its
/// `extra-sources`: those are parts of other programs, not programs.
fn discover(root: &Path) -> Result<Vec<Case>, String> {
    let mut files = Vec::new();
    walk(root, &mut files)?;
    files.sort();
    let mut helpers = BTreeSet::new();
    for file in &files {
        // Unreadable or malformed headers are reported by the test itself.
        let Ok(text) = fs::read_to_string(file) else {
            continue;
        };
        let Ok(h) = headers::parse(&text) else {
            continue;
        };
        let dir = file.parent().unwrap_or(root);
        for extra in &h.extra_sources {
            if let Ok(path) = dir.join(extra).canonicalize() {
                helpers.insert(path);
            }
        }
    }
    Ok(files
        .into_iter()
        .filter(|f| !f.canonicalize().is_ok_and(|p| helpers.contains(&p)))
        .map(|source| {
            let relative = source
                .strip_prefix(root)
                .unwrap_or(&source)
                .with_extension("");
            let name = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            Case { name, source }
        })
        .collect())
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("cannot read {}: {e}", dir.display())),
    };
    for entry in entries {
        let path = entry
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
            .path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "s") {
            out.push(path);
        }
    }
    Ok(())
}

/// One test's run: its scratch directory and its deadline.
struct Runner<'a> {
    paths: &'a Paths,
    work: PathBuf,
    deadline: Instant,
}

impl Runner<'_> {
    fn run(&self, case: &Case) -> Result<(), Failure> {
        // A fresh directory, so that an output a tool failed to write cannot be stale.
        let _ = fs::remove_dir_all(&self.work);
        fs::create_dir_all(&self.work)
            .map_err(|e| Failure::new(format!("cannot create {}: {e}", self.work.display())))?;
        let text = fs::read_to_string(&case.source)
            .map_err(|e| Failure::new(format!("cannot read the test: {e}")))?;
        let h =
            headers::parse(&text).map_err(|e| Failure::new(format!("bad test headers: {e}")))?;
        if h.stdin_file.is_some() || !h.env.is_empty() {
            return Err(Failure::new(
                "bad test headers: stdin-file and env are headers of the programs suite",
            ));
        }

        if let Some(message) = &h.expect_asm_error {
            let out = self.tool(
                "vliw-as",
                [
                    case.source.as_os_str(),
                    "-o".as_ref(),
                    self.work.join("main.o").as_os_str(),
                ],
                b"",
            )?;
            return expect_error("vliw-as", &out, message);
        }

        let dir = case.source.parent().unwrap_or(Path::new("."));
        let mut sources = vec![case.source.clone()];
        for extra in &h.extra_sources {
            let path = dir.join(extra);
            if !path.is_file() {
                return Err(Failure::new(format!(
                    "extra-sources: {} does not exist",
                    self.paths.show(&path)
                )));
            }
            sources.push(path);
        }
        let mut objects = Vec::new();
        for source in &sources {
            let object = self.object_path(source, &objects);
            let out = self.tool(
                "vliw-as",
                [source.as_os_str(), "-o".as_ref(), object.as_os_str()],
                b"",
            )?;
            expect_success("vliw-as", &out, &object)?;
            self.round_trip(&object)?;
            objects.push(object);
        }

        let stem = case.source.file_stem().unwrap_or_default();
        let exe = self.work.join(stem);
        let mut args: Vec<OsString> = objects.iter().map(|o| o.into()).collect();
        args.extend(["-o".into(), exe.clone().into()]);
        args.extend(h.link_flags.iter().map(OsString::from));
        let out = self.tool("vliw-ld", args, b"")?;
        if let Some(message) = &h.expect_link_error {
            return expect_error("vliw-ld", &out, message);
        }
        expect_success("vliw-ld", &out, &exe)?;

        let mut args: Vec<OsString> = h.run_flags.iter().map(OsString::from).collect();
        args.push(exe.into());
        args.extend(h.args.iter().map(OsString::from));
        let out = self.tool("vliw-run", args, h.stdin.as_deref().unwrap_or_default())?;
        check_run(&h, &out)
    }

    /// `<stem>.o` in the work directory, numbered if another source has the same stem.
    fn object_path(&self, source: &Path, taken: &[PathBuf]) -> PathBuf {
        let stem = source.file_stem().unwrap_or_default().to_string_lossy();
        let mut object = self.work.join(format!("{stem}.o"));
        let mut n = 1;
        while taken.contains(&object) {
            n += 1;
            object = self.work.join(format!("{stem}.{n}.o"));
        }
        object
    }

    /// Disassembles `object` to re-assemblable text, assembles that, and requires the
    /// same code: the same reassembly text and the same bytes in every `.text*` section.
    fn round_trip(&self, object: &Path) -> Result<(), Failure> {
        let name = object
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let rt_s = object.with_extension("rt.s");
        let rt_o = object.with_extension("rt.o");
        let first = self.tool(
            "vliw-objdump",
            ["--reassemble".as_ref(), object.as_os_str()],
            b"",
        )?;
        expect_success("vliw-objdump --reassemble", &first, object)?;
        fs::write(&rt_s, &first.stdout)
            .map_err(|e| Failure::new(format!("cannot write {}: {e}", rt_s.display())))?;
        let out = self.tool(
            "vliw-as",
            [rt_s.as_os_str(), "-o".as_ref(), rt_o.as_os_str()],
            b"",
        )?;
        expect_success("vliw-as", &out, &rt_o).map_err(|f| Failure {
            reason: format!(
                "round trip of {name}: reassembled text does not assemble: {}",
                f.reason
            ),
            ..f
        })?;
        let second = self.tool(
            "vliw-objdump",
            ["--reassemble".as_ref(), rt_o.as_os_str()],
            b"",
        )?;
        expect_success("vliw-objdump --reassemble", &second, &rt_o)?;
        if first.stdout != second.stdout {
            return Err(Failure::new(format!(
                "round trip of {name}: reassembly of the reassembled object differs"
            ))
            .with(diff_excerpt(&first.stdout, &second.stdout)));
        }
        // Section bytes and relocations of both objects, as vliw-objdump dumps them
        // (the header line names the file, so it is left out of the comparison).
        let mut dumps = Vec::new();
        for o in [object, rt_o.as_path()] {
            let dump = self.tool(
                "vliw-objdump",
                ["-s".as_ref(), "-r".as_ref(), o.as_os_str()],
                b"",
            )?;
            expect_success("vliw-objdump -s -r", &dump, o)?;
            let text = String::from_utf8_lossy(&dump.stdout).into_owned();
            let file_name = o.display().to_string();
            dumps.push(
                text.lines()
                    .filter(|l| !l.contains(&file_name))
                    .collect::<Vec<_>>()
                    .join("\n"),
            );
        }
        if dumps[0] != dumps[1] {
            return Err(Failure::new(format!(
                "round trip of {name}: section bytes or relocations differ after reassembly"
            ))
            .with(diff_excerpt(dumps[0].as_bytes(), dumps[1].as_bytes())));
        }
        Ok(())
    }

    /// Runs a tool from dist/ within the test's deadline. A timeout is a failure here;
    /// a tool panic is a failure except from vliw-run, whose exit code 101 and
    /// "panicked" may come from the guest program, so `check_run` judges those.
    fn tool<I, S>(&self, tool: &str, args: I, stdin: &[u8]) -> Result<Output, Failure>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = Command::new(self.paths.tool(tool));
        cmd.args(args).current_dir(&self.work);
        let out = process::run(&mut cmd, stdin, self.deadline).map_err(Failure::new)?;
        if out.timed_out() {
            return Err(
                Failure::new(format!("timed out after {} s in {tool}", TIMEOUT.as_secs()))
                    .with(tail(&out.stderr, STDERR_TAIL)),
            );
        }
        if tool != "vliw-run" && out.panicked() {
            return Err(
                Failure::new(format!("{tool} panicked ({})", out.describe()))
                    .with(tail(&out.stderr, STDERR_TAIL)),
            );
        }
        Ok(out)
    }
}

pub(crate) fn expect_success(tool: &str, out: &Output, output_file: &Path) -> Result<(), Failure> {
    if !out.success() {
        return Err(Failure::new(format!("{tool} failed ({})", out.describe()))
            .with(tail(&out.stderr, STDERR_TAIL)));
    }
    if !output_file.is_file() {
        return Err(Failure::new(format!(
            "{tool} succeeded but did not write {}",
            output_file.display()
        )));
    }
    Ok(())
}

/// The tool must reject the input with a message containing `message` (never a panic,
/// which `Runner::tool` has already ruled out).
fn expect_error(tool: &str, out: &Output, message: &[u8]) -> Result<(), Failure> {
    if out.success() {
        return Err(Failure::new(format!(
            "{tool} succeeded, expected an error containing {}",
            quote(message)
        )));
    }
    if !process::contains(&out.stderr, message) {
        return Err(Failure::new(format!(
            "{tool} failed ({}) but without {} in stderr",
            out.describe(),
            quote(message)
        ))
        .with(tail(&out.stderr, STDERR_TAIL)));
    }
    Ok(())
}

/// Checks a simulator run against the headers; reports every mismatch at once.
pub(crate) fn check_run(h: &Headers, out: &Output) -> Result<(), Failure> {
    let mut reasons = Vec::new();
    let mut details = Vec::new();
    let panic_expected = h
        .expect_stderr_contains
        .iter()
        .any(|t| process::contains(t, b"panicked"));
    if process::contains(&out.stderr, b"panicked") && !panic_expected {
        reasons.push("\"panicked\" in stderr".to_string());
    }
    if out.code() != Some(h.exit_code()) {
        let hint = if out.code() == Some(101) {
            " (a panic of vliw-run or of the program)"
        } else {
            ""
        };
        reasons.push(format!(
            "{}{hint}, expected exit code {}",
            out.describe(),
            h.exit_code()
        ));
    }
    let expected_stdout = h.expect_stdout.as_deref().unwrap_or_default();
    if out.stdout != expected_stdout {
        reasons.push(if h.expect_stdout.is_some() {
            "stdout differs".to_string()
        } else {
            "stdout should be empty (no expect-stdout header)".to_string()
        });
        details.push("stdout: expected (-), actual (+)".to_string());
        details.extend(
            diff_excerpt(expected_stdout, &out.stdout)
                .into_iter()
                .map(|l| format!("  {l}")),
        );
    }
    for text in &h.expect_stderr_contains {
        if !process::contains(&out.stderr, text) {
            reasons.push(format!("stderr lacks {}", quote(text)));
        }
    }
    if reasons.is_empty() {
        return Ok(());
    }
    if !out.stderr.is_empty() {
        details.push("stderr:".to_string());
        details.extend(
            tail(&out.stderr, STDERR_TAIL)
                .into_iter()
                .map(|l| format!("  {l}")),
        );
    }
    Err(Failure::new(reasons.join("; ")).with(details))
}
