//! `vliw-run` on files: exit statuses of the command.

use super::*;
use crate::cli::cli_main;
use vliw_elf::{Executable, SegmentFlags};
use vliw_isa::abi::TEXT_BASE;

fn write_exe(dir: &tempfile::TempDir, name: &str, bundles: &[&[&str]]) -> String {
    let text: Vec<u8> = assemble(bundles)
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let exe = Executable {
        entry: TEXT_BASE,
        segments: vec![vliw_elf::Segment {
            vaddr: TEXT_BASE,
            mem_size: text.len() as u64,
            data: text,
            flags: SegmentFlags::RX,
        }],
        ..Executable::default()
    };
    let path = dir.path().join(name);
    std::fs::write(&path, vliw_elf::write_executable(&exe)).unwrap();
    path.to_str().unwrap().to_string()
}

fn run_cli(args: &[&str]) -> i32 {
    cli_main(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
}

#[test]
fn exit_statuses() {
    let dir = tempfile::tempdir().unwrap();
    let exit7 = write_exe(&dir, "exit7", &[&["movi r3 = 7"], &["syscall 0"]]);
    assert_eq!(run_cli(&[&exit7]), 7);
    assert_eq!(
        run_cli(&["--stats", "--seed", "1", &exit7, "a", "--stats"]),
        7
    );
    // exit(argc): argv[0] is the executable, then the arguments.
    let argc = write_exe(&dir, "argc", &[&["syscall 0"]]);
    assert_eq!(run_cli(&[&argc, "x", "y"]), 3);
    let trap = write_exe(&dir, "trap", &[&["trap 5"]]);
    assert_eq!(run_cli(&["--stats", &trap]), 134);
    let spin = write_exe(&dir, "spin", &[&["br .+0"]]);
    assert_eq!(run_cli(&["--max-cycles", "100", &spin]), 143);
    let stall = write_exe(&dir, "stall", &[&["mul r3 = r0, r0"], &["syscall 0"]]);
    assert_eq!(run_cli(&[&stall]), 0);
    assert_eq!(run_cli(&["--strict", &stall]), 144);
    assert_eq!(
        run_cli(&["--strict", "--machine", "latency.multiply=1", &stall]),
        0
    );
    let wide = write_exe(
        &dir,
        "wide",
        &[&["nop", "nop", "nop", "nop", "nop"], &["syscall 0"]],
    );
    assert_eq!(run_cli(&[&wide]), 132);
    assert_eq!(run_cli(&["--machine=width=5,alu=5", &wide]), 1);
}

#[test]
fn dir_must_name_a_host_directory() {
    let dir = tempfile::tempdir().unwrap();
    let exit7 = write_exe(&dir, "exit7", &[&["movi r3 = 7"], &["syscall 0"]]);
    let here = dir.path().to_str().unwrap();
    assert_eq!(run_cli(&["--dir", here, &exit7]), 7);
    assert_eq!(run_cli(&["--dir", &format!("{here}::/data"), &exit7]), 7);
    let missing = format!("{here}/missing");
    assert_eq!(run_cli(&["--dir", &missing, &exit7]), crate::STATUS_USAGE);
    assert_eq!(
        run_cli(&["--dir", &exit7, &exit7]),
        crate::STATUS_USAGE,
        "a file"
    );
}

#[test]
fn environment_options() {
    let dir = tempfile::tempdir().unwrap();
    // exit(number of environment variables): count envp entries up to NULL.
    let count = write_exe(
        &dir,
        "envc",
        &[
            &["movi r3 = 0"],
            &["ld.d r6 = [r5]"], // loop: 0x10008
            &["nop"],
            &["nop"],
            &["cmp.ne p1, p2 = r6, 0"],
            &["(p1) add r3 = r3, 1", "(p1) add r5 = r5, 8", "(p1) br .-48"],
            &["syscall 0"],
        ],
    );
    assert_eq!(run_cli(&["--clear-env", &count]), 0);
    assert_eq!(
        run_cli(&[
            "--clear-env",
            "--env",
            "A=1",
            "--env=B=2",
            "--env",
            "A=3",
            &count
        ]),
        2
    );
    let host = std::env::vars_os().count() as i32;
    assert_eq!(run_cli(&[&count]), host & 0xff);
}

#[test]
fn load_and_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    assert_eq!(
        run_cli(&[missing.to_str().unwrap()]),
        crate::STATUS_LOAD_ERROR
    );
    let junk = dir.path().join("junk");
    std::fs::write(&junk, b"\x7fELF\x02\x01\x01junkjunkjunk").unwrap();
    assert_eq!(run_cli(&[junk.to_str().unwrap()]), crate::STATUS_LOAD_ERROR);
    let good = write_exe(&dir, "good", &[&["syscall 0"]]);
    assert_eq!(
        run_cli(&[
            "--clear-env",
            "--stack-size",
            "16",
            "--env",
            "X=1",
            &good,
            "a"
        ]),
        2
    );
    assert_eq!(run_cli(&[]), crate::STATUS_USAGE);
    assert_eq!(run_cli(&["--frobnicate", &good]), crate::STATUS_USAGE);
    assert_eq!(
        run_cli(&["--machine", "bogus=1", &good]),
        crate::STATUS_USAGE
    );
    assert_eq!(run_cli(&["--help"]), 0);
}

/// Set in a child process of the tests below: the `vliw-run` arguments, separated
/// by 0x1f. The child runs `cli_child`, which runs the command and exits with its
/// status, so that the tests see its real stdout and stderr.
const CHILD_ARGS: &str = "VLIW_SIM_TEST_CLI_ARGS";

#[test]
fn cli_child() {
    let Ok(args) = std::env::var(CHILD_ARGS) else {
        return;
    };
    let args: Vec<String> = args.split('\x1f').map(String::from).collect();
    std::process::exit(cli_main(&args));
}

struct Output {
    status: i32,
    stdout: String,
    stderr: String,
}

fn run_child(args: &[&str], stdin: &[u8]) -> Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "tests::cli::cli_child",
            "--nocapture",
            "--quiet",
            "--test-threads=1",
        ])
        .env(CHILD_ARGS, args.join("\x1f"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    // The test harness announces the test on stdout before the command runs.
    let stdout = match stdout.find("running 1 test\n") {
        Some(i) => stdout[i + "running 1 test\n".len()..].to_string(),
        None => stdout,
    };
    Output {
        status: out.status.code().unwrap_or(-1),
        stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn messages_and_the_stats_line_come_last_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let exe = Executable {
        entry: TEXT_BASE,
        segments: vec![
            vliw_elf::Segment {
                vaddr: TEXT_BASE,
                mem_size: 0,
                data: assemble(&[
                    &["movi r3 = 1", "movi r4 = 0x20000", "movi r5 = 4"],
                    &["syscall 1"],
                    &["movi r3 = 2", "movi r4 = 0x20004", "movi r5 = 3"],
                    &["syscall 1"],
                    &["trap 3"],
                ])
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect(),
                flags: SegmentFlags::RX,
            },
            vliw_elf::Segment {
                vaddr: 0x20000,
                mem_size: 0x1000,
                data: b"out\nerr".to_vec(),
                flags: SegmentFlags::RW,
            },
        ],
        ..Executable::default()
    };
    let mut exe = exe;
    exe.segments[0].mem_size = exe.segments[0].data.len() as u64;
    let path = dir.path().join("prog");
    std::fs::write(&path, vliw_elf::write_executable(&exe)).unwrap();
    let path = path.to_str().unwrap();

    let out = run_child(&["--stats", path], b"");
    assert_eq!(out.status, 134);
    assert_eq!(out.stdout, "out\n");
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 3, "{}", out.stderr);
    assert_eq!(
        lines[0], "err",
        "the guest's unterminated line is ended before the messages"
    );
    assert_eq!(lines[1], "vliw-run: fault: trap 3 in bundle 0x10040");
    assert_eq!(
        lines[2], "stats: cycles=4 bundles=4 ops=8 nullified=0 stalls=0 branches=0",
        "the faulting bundle is not counted"
    );

    let out = run_child(&["--trace", path], b"");
    assert_eq!(out.status, 134);
    assert_eq!(out.stdout, "out\n");
    let trace_lines = out
        .stderr
        .lines()
        .filter(|l| l.contains(" 0x100") && !l.contains("fault"))
        .count();
    assert_eq!(trace_lines, 5, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("       0 0x10000  movi r3 = 1 ; movi r4 = 0x20000 ; movi r5 = 4\n"),
        "{}",
        out.stderr
    );
}

#[test]
fn stdin_reaches_the_program() {
    let dir = tempfile::tempdir().unwrap();
    // n = read(0, buf, 100); write(1, buf, n); exit(n), with the buffer on the stack.
    let echo = write_exe(
        &dir,
        "echo",
        &[
            &["movi r3 = 0", "add r4 = r1, -128", "movi r5 = 100"],
            &["syscall 2"],
            &[
                "mov r5 = r3",
                "mov r20 = r3",
                "movi r3 = 1",
                "add r4 = r1, -128",
            ],
            &["syscall 1"],
            &["mov r3 = r20"],
            &["syscall 0"],
        ],
    );
    let out = run_child(&[&echo], b"hello");
    assert_eq!(
        (out.status, out.stdout.as_str(), out.stderr.as_str()),
        (5, "hello", "")
    );
}

#[test]
fn load_errors_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk");
    std::fs::write(&junk, b"not elf").unwrap();
    let junk = junk.to_str().unwrap();
    let out = run_child(&[junk], b"");
    assert_eq!(out.status, 126);
    assert_eq!(
        out.stderr,
        format!("vliw-run: {junk}: not an ELF file (bad magic)\n")
    );
    let out = run_child(&["--bogus"], b"");
    assert_eq!(out.status, 2);
    assert!(
        out.stderr
            .starts_with("vliw-run: unknown option `--bogus`\nusage: vliw-run"),
        "{}",
        out.stderr
    );
}
