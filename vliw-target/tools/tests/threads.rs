//! Guest threads through the binaries: `vliw-run --stats` prints a line per thread
//! before the stats line, and a deadlock (status 146) prints each thread's frames,
//! unwound by the call-frame information the assembler wrote from `.cfi_*`.

mod support;

use support::{AS, LD, RUN, run};

/// Main spawns `worker`, which waits on a futex nobody wakes; main calls `joiner`,
/// which has a frame, and joins the worker there: a deadlock. With an argument,
/// the worker does not wait and the run ends normally.
const PROGRAM: &str = "
    .bss
    .balign 16
word:
    .space 8
    .text
    .globl _start
    .type _start, @function
_start:
    .cfi_startproc
    .cfi_undefined lr
    mov r6 = r3 ; movi r3 = worker ; movi r4 = 1024 ; movi r5 = 0 ;;
    syscall 64 ;;
    call joiner ;;
    movi r3 = 0 ;;
    syscall 0 ;;
    .cfi_endproc
    .size _start, . - _start

    .type joiner, @function
joiner:
    .cfi_startproc
    add r1 = r1, -16 ;;
    .cfi_def_cfa_offset 16
    st.d [r1 + 8] = lr ;;
    .cfi_offset lr, -8
    syscall 66 ;;
    ld.d lr = [r1 + 8] ;;
    add r1 = r1, 16 ;;
    .cfi_def_cfa_offset 0
    ret ;;
    .cfi_endproc
    .size joiner, . - joiner

    .type worker, @function
worker:
    .cfi_startproc
    .cfi_undefined lr
    cmp.ne p1, p2 = r3, 1 ;;
    (p1) br done ;;
    movi r3 = word ; movi r4 = 0 ; movi r5 = -1 ;;
    syscall 67 ;;
done:
    syscall 65 ;;
    .cfi_endproc
    .size worker, . - worker
";

#[test]
fn stats_per_thread_and_deadlock_frames() {
    let dir = tempfile::tempdir().unwrap();
    let path = |n: &str| dir.path().join(n).display().to_string();
    std::fs::write(path("t.s"), PROGRAM).unwrap();
    let out = run(AS, &[&path("t.s"), "-o", &path("t.o")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(LD, &[&path("t.o"), "-o", &path("t")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // argc = 2: the worker ends at once; main joins it
    let out = run(RUN, &["--stats", "--check-unwind", &path("t"), "go"]);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    let n = lines.len();
    assert!(n >= 4, "{stderr}");
    assert!(
        lines[n - 4].starts_with("threads: 2 switches=2 idle-ns=0"),
        "{stderr}"
    );
    assert!(lines[n - 3].starts_with("thread 1: cycles="), "{stderr}");
    assert!(lines[n - 2].starts_with("thread 2: cycles="), "{stderr}");
    assert!(lines[n - 1].starts_with("stats: cycles="), "{stderr}");
    let cycles = |line: &str| -> u64 {
        let rest = &line[line.find("cycles=").unwrap() + 7..];
        rest.split(' ').next().unwrap().parse().unwrap()
    };
    assert_eq!(
        cycles(lines[n - 3]) + cycles(lines[n - 2]),
        cycles(lines[n - 1]),
        "{stderr}"
    );

    // argc = 1: a deadlock, with each thread's frames
    let out = run(RUN, &["--check-unwind", &path("t")]);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(146), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 3, "{stderr}");
    assert!(
        lines[0].starts_with(
            "vliw-run: fault: deadlock: every thread waits: thread 1 joins thread 2 in bundle "
        ) && lines[0].contains("(joiner+0x10); thread 2 waits on futex ")
            && lines[0].ends_with("(value 0) in bundle 0x10098 (worker+0x28)"),
        "{stderr}"
    );
    assert_eq!(lines[1], "vliw-run:   thread 1: joiner+0x10 <- _start+0x30");
    assert_eq!(lines[2], "vliw-run:   thread 2: worker+0x28");
}
