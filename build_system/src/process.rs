//! Running a tool with captured output and a deadline.

use std::io::{Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// Captured output is cut at this size: a runaway program printing in a loop until its
/// timeout must not exhaust the memory of the test runner.
const CAPTURE_LIMIT: usize = 8 << 20;

#[derive(Debug)]
pub struct Output {
    /// None when the process was killed at the deadline.
    pub status: Option<ExitStatus>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl Output {
    pub fn timed_out(&self) -> bool {
        self.status.is_none()
    }

    pub fn code(&self) -> Option<i32> {
        self.status.and_then(|s| s.code())
    }

    /// The exit code as a shell reports it: a process killed by signal N gives
    /// 128 + N (a host program that aborts: 134, which is the status a simulated
    /// program that aborts exits with).
    pub fn shell_code(&self) -> Option<i32> {
        use std::os::unix::process::ExitStatusExt;
        self.status
            .and_then(|s| s.code().or_else(|| s.signal().map(|n| 128 + n)))
    }

    pub fn success(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }

    pub fn describe(&self) -> String {
        match self.status {
            None => "killed at the timeout".to_string(),
            Some(status) => describe_status(status),
        }
    }

    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// The tool itself crashed. Rust panics print "panicked" and exit with 101.
    pub fn panicked(&self) -> bool {
        self.code() == Some(101) || contains(&self.stderr, b"panicked")
    }
}

pub fn describe_status(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit code {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal}");
        }
    }
    status.to_string()
}

/// `into` with the working directory and environment changes of `from` (a `Command`
/// is not `Clone`: a copy, or a wrapper such as valgrind around it, starts from its
/// program and arguments and takes the rest from here).
pub fn with_context_of(from: &Command, mut into: Command) -> Command {
    if let Some(dir) = from.get_current_dir() {
        into.current_dir(dir);
    }
    for (key, value) in from.get_envs() {
        match value {
            Some(v) => into.env(key, v),
            None => into.env_remove(key),
        };
    }
    into
}

pub fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

/// Runs `cmd` with `stdin` as its input, capturing stdout and stderr; kills it when
/// `deadline` passes. Errors only when the program cannot be started.
pub fn run(cmd: &mut Command, stdin: &[u8], deadline: Instant) -> Result<Output, String> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", cmd.get_program().to_string_lossy()))?;
    let input = stdin.to_vec();
    let mut pipe_in = child.stdin.take().expect("stdin is piped");
    // Writing and reading on threads: a child blocked on a full pipe would otherwise
    // deadlock against us. A write error means the child closed its stdin; fine.
    let writer = thread::spawn(move || {
        let _ = pipe_in.write_all(&input);
    });
    let out = reader(child.stdout.take().expect("stdout is piped"));
    let err = reader(child.stderr.take().expect("stderr is piped"));
    let status = wait(&mut child, deadline);
    let _ = writer.join();
    Ok(Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

/// Runs `cmd` with no input and its stderr written to the file `log` (stdout is
/// discarded), for output too large to capture (`CAPTURE_LIMIT`); kills it when
/// `deadline` passes (then `None`). Errors only when the log cannot be created or the
/// program cannot be started.
pub fn run_logged(
    cmd: &mut Command,
    log: &std::path::Path,
    deadline: Instant,
) -> Result<Option<ExitStatus>, String> {
    let file =
        std::fs::File::create(log).map_err(|e| format!("cannot create {}: {e}", log.display()))?;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(file)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", cmd.get_program().to_string_lossy()))?;
    Ok(wait(&mut child, deadline))
}

fn reader(mut pipe: impl Read + Send + 'static) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 64 * 1024];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = CAPTURE_LIMIT.saturating_sub(kept.len());
                    kept.extend_from_slice(&buf[..n.min(room)]);
                }
            }
        }
        kept
    })
}

fn wait(child: &mut Child, deadline: Instant) -> Option<ExitStatus> {
    let mut pause = Duration::from_millis(1);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) => {}
            Err(_) => return child.wait().ok(),
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        thread::sleep(pause);
        // Most tool runs take milliseconds; poll fast at first, then back off.
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn captures_output_and_feeds_stdin() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "cat; echo err >&2; exit 3"]);
        let out = run(&mut cmd, b"in\n", Instant::now() + Duration::from_secs(30)).unwrap();
        assert_eq!(out.code(), Some(3));
        assert_eq!(out.stdout, b"in\n");
        assert_eq!(out.stderr, b"err\n");
        assert!(!out.panicked());
    }

    #[test]
    fn a_signal_is_an_exit_code_as_the_shell_reports_it() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "kill -ABRT $$"]);
        let out = run(&mut cmd, b"", Instant::now() + Duration::from_secs(30)).unwrap();
        assert_eq!(out.code(), None);
        assert_eq!(out.shell_code(), Some(134));
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "exit 7"]);
        let out = run(&mut cmd, b"", Instant::now() + Duration::from_secs(30)).unwrap();
        assert_eq!(out.shell_code(), Some(7));
    }

    #[test]
    fn kills_at_the_deadline() {
        let start = Instant::now();
        let mut cmd = Command::new("sleep");
        cmd.arg("10");
        let out = run(&mut cmd, b"", start + Duration::from_millis(200)).unwrap();
        assert!(out.timed_out());
        assert_eq!(out.describe(), "killed at the timeout");
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn logs_stderr_to_a_file() {
        let log = std::env::temp_dir().join(format!("y-run-logged-{}.txt", std::process::id()));
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo out; echo err >&2; exit 4"]);
        let status = run_logged(&mut cmd, &log, Instant::now() + Duration::from_secs(30))
            .unwrap()
            .expect("finished");
        assert_eq!(status.code(), Some(4));
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "err\n");
        let _ = std::fs::remove_file(&log);
    }

    #[test]
    fn reports_a_missing_program() {
        let mut cmd = Command::new("/nonexistent/tool");
        assert!(
            run(&mut cmd, b"", Instant::now())
                .unwrap_err()
                .contains("/nonexistent/tool")
        );
    }
}
