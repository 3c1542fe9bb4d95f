//! System calls through a captured I/O.

use super::*;
use vliw_isa::abi::syscall::{EBADF, EFAULT, EINVAL, ENOSYS};

/// Runs `syscall number` with r3..r5 = `args` (then exits 0); returns the result.
fn sys(number: i64, args: [i64; 3], test: impl FnOnce(Test) -> Test) -> (u64, Run) {
    let set: Vec<String> = args
        .iter()
        .enumerate()
        .map(|(i, a)| format!("movi r{} = {a}", i + 3))
        .collect();
    let call = format!("syscall {number}");
    let t = Test::new(&[
        &[&set[0], &set[1], &set[2]],
        &[&call],
        &["mov r20 = r3"],
        &["movi r3 = 0"],
        &["syscall 0"],
    ]);
    let r = test(t).run();
    assert_eq!(r.exit_code(), 0);
    (r.reg(20), r)
}

fn neg(errno: i64) -> u64 {
    (-errno) as u64
}

#[test]
fn exit_status_is_the_low_byte() {
    let r = Test::new(&[&["movi r3 = 0x1ff"], &["syscall 0"], &["trap 1"]]).run();
    assert_eq!(r.outcome, crate::Outcome::Exit(0xff));
    let r = Test::new(&[&["movi r3 = -1"], &["syscall 0"]]).run();
    assert_eq!(r.exit_code(), 255);
    let r = Test::new(&[&["movi r3 = 256"], &["syscall 0"]]).run();
    assert_eq!(r.exit_code(), 0);
}

#[test]
fn write_to_stdout_and_stderr() {
    let hello = |t: Test| t.data(b"hello\nworld\n");
    let (n, r) = sys(1, [1, 0x20000, 6], hello);
    assert_eq!(n, 6);
    assert_eq!(r.stdout(), "hello\n");
    let (n, r) = sys(1, [2, 0x20006, 6], hello);
    assert_eq!(n, 6);
    assert_eq!(r.io.stderr(), b"world\n");
    assert!(r.io.stdout().is_empty());
    let (n, _) = sys(1, [1, 0x20000, 0], hello);
    assert_eq!(n, 0);
    let (n, _) = sys(1, [0, 0x20000, 6], hello);
    assert_eq!(n, neg(EBADF), "stdin is not writable");
    let (n, _) = sys(1, [3, 0x20000, 6], hello);
    assert_eq!(n, neg(EBADF));
    let (n, r) = sys(1, [1, 0, 6], hello);
    assert_eq!(n, neg(EFAULT));
    assert!(r.io.stdout().is_empty());
    let (n, _) = sys(1, [1, 0x20ffc, 8], hello);
    assert_eq!(n, neg(EFAULT), "past the end of the data segment");
    let (n, r) = sys(1, [1, 0x10000, 8], hello);
    assert_eq!(n, 8, "text is readable");
    assert_eq!(r.io.stdout().len(), 8);
}

#[test]
fn output_of_both_streams_keeps_its_order() {
    let r = Test::new(&[
        &["movi r3 = 1", "movi r4 = 0x20000", "movi r5 = 2"],
        &["syscall 1"],
        &["movi r3 = 2", "movi r4 = 0x20002", "movi r5 = 2"],
        &["syscall 1"],
        &["movi r3 = 1", "movi r4 = 0x20004", "movi r5 = 2"],
        &["syscall 1"],
        &["movi r3 = 0"],
        &["syscall 0"],
    ])
    .data(b"a\nb\nc\n")
    .run();
    assert_eq!(r.io.lock().interleaved, b"a\nb\nc\n");
    assert_eq!(r.stdout(), "a\nc\n");
}

#[test]
fn read_from_stdin() {
    let input = |t: Test| Test {
        stdin: b"abcdef".to_vec(),
        ..t
    };
    let (n, r) = sys(2, [0, 0x20000, 4], input);
    assert_eq!(n, 4);
    assert_eq!(r.load(DATA, 4), u32::from_le_bytes(*b"abcd") as u64);
    // Two reads: the second gets the rest, a third gets 0 (end of input).
    let r = Test::new(&[
        &["movi r3 = 0", "movi r4 = 0x20000", "movi r5 = 4"],
        &["syscall 2"],
        &[
            "mov r20 = r3",
            "movi r3 = 0",
            "movi r4 = 0x20010",
            "movi r5 = 100",
        ],
        &["syscall 2"],
        &["mov r21 = r3", "movi r3 = 0"],
        &["syscall 2"],
        &["mov r22 = r3", "movi r3 = 0"],
        &["syscall 0"],
    ]);
    let r = input(r).run();
    assert_eq!((r.reg(20), r.reg(21), r.reg(22)), (4, 2, 0));
    assert_eq!(r.load(DATA + 16, 2), u16::from_le_bytes(*b"ef") as u64);
    let (n, _) = sys(2, [1, 0x20000, 4], input);
    assert_eq!(n, neg(EBADF));
    let (n, _) = sys(2, [0, 0x10000, 4], input);
    assert_eq!(n, neg(EFAULT), "text is not writable");
}

#[test]
fn brk_moves_the_break() {
    let r = Test::new(&[
        &["movi r3 = 0"],
        &["syscall 3"], // query
        &["mov r20 = r3", "add r3 = r3, 4096"],
        &["syscall 3"], // grow by a page
        &["mov r21 = r3", "movi r22 = 77"],
        &["st.d [r20] = r22", "add r3 = r0, 1"],
        &["syscall 3"], // invalid: unchanged
        &["mov r23 = r3", "ld.d r24 = [r20]"],
        &["movi r3 = 0"],
        &["syscall 0"],
    ])
    .run();
    let heap = r.sim.memory().layout().heap_start;
    assert_eq!(heap, 0x21000, "the page after the data segment");
    assert_eq!(
        (r.reg(20), r.reg(21), r.reg(23), r.reg(24)),
        (heap, heap + 4096, heap + 4096, 77)
    );
}

#[test]
fn clocks_and_cycles() {
    let (t, _) = sys(4, [0, 0, 0], |t| t);
    assert_eq!(t, 1, "monotonic: cycles as ns; the call issues at cycle 1");
    let (t, _) = sys(4, [1, 0, 0], |t| t);
    assert!(t > 1_600_000_000 * 1_000_000_000, "real time: {t}");
    let (t, _) = sys(4, [1, 0, 0], |t| Test {
        options: crate::Options {
            seed: Some(1),
            ..t.options.clone()
        },
        ..t
    });
    assert_eq!(t, 0, "a fixed seed fixes the clock");
    let (t, _) = sys(4, [2, 0, 0], |t| t);
    assert_eq!(t, neg(EINVAL));
    let (c, _) = sys(6, [0, 0, 0], |t| t);
    assert_eq!(c, 1);
}

#[test]
fn random_bytes_are_reproducible_with_a_seed() {
    let seeded = |seed| {
        move |t: Test| Test {
            options: crate::Options {
                seed: Some(seed),
                ..t.options.clone()
            },
            ..t
        }
    };
    let (n, a) = sys(5, [0x20000, 16, 0], seeded(42));
    assert_eq!(n, 16);
    let (_, b) = sys(5, [0x20000, 16, 0], seeded(42));
    let (_, c) = sys(5, [0x20000, 16, 0], seeded(43));
    let bytes = |r: &Run| (r.load(DATA, 8), r.load(DATA + 8, 8));
    assert_eq!(bytes(&a), bytes(&b));
    assert_ne!(bytes(&a), bytes(&c));
    assert_eq!(a.load(DATA + 16, 8), 0, "no more than asked");
    let (_, host) = sys(5, [0x20000, 16, 0], |t| t);
    assert_ne!(bytes(&host), (0, 0));
    let (n, _) = sys(5, [0x10000, 16, 0], |t| t);
    assert_eq!(n, neg(EFAULT));
}

#[test]
fn unknown_system_calls_return_enosys() {
    let (n, _) = sys(99, [0, 0, 0], |t| t);
    assert_eq!(n, neg(ENOSYS));
    let (n, _) = sys(-1, [0, 0, 0], |t| t);
    assert_eq!(n, neg(ENOSYS));
}

/// Runs `setup` (r3 = 1, r4 = "xyz", r5 = 3), then `bundle`, then exits with r3 in r20.
fn syscall_in(bundle: &[&str]) -> Run {
    let r = Test::new(&[
        &["movi r3 = 1", "movi r4 = 0x20000", "movi r5 = 3"],
        bundle,
        &["mov r20 = r3", "movi r3 = 0"],
        &["syscall 0"],
    ])
    .data(b"xyz")
    .run();
    assert_eq!(r.exit_code(), 0);
    r
}

#[test]
fn a_system_call_result_takes_its_slot_among_the_writes() {
    // The syscall reads r3 (= 1, stdout) and r5 before the bundle's writes; the
    // write to r3 in a later slot wins over its result (the byte count).
    let r = syscall_in(&["syscall 1", "movi r3 = 50", "movi r5 = 1"]);
    assert_eq!(r.stdout(), "xyz");
    assert_eq!(r.reg(20), 50);
    // An earlier slot's write loses to the result.
    let r = syscall_in(&["movi r3 = 50", "movi r5 = 1", "syscall 1"]);
    assert_eq!(r.stdout(), "xyz");
    assert_eq!(r.reg(20), 3);
    // A nullified later write does not count.
    let r = syscall_in(&["syscall 1", "(p1) movi r3 = 50"]);
    assert_eq!(r.reg(20), 3);
    // A later write to another register does not either.
    let r = syscall_in(&["syscall 1", "movi r6 = 50"]);
    assert_eq!((r.reg(20), r.reg(6)), (3, 50));
}
