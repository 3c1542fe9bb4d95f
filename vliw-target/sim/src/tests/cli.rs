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
