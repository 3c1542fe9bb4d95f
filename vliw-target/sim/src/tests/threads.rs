//! Guest threads: spawn, join, futexes, yield, sleep, preemption, deadlocks.
//!
//! The programs are bundles of assembly text with labels: a line `name:` labels the
//! next bundle, operations are separated by ` ; `, and `@name` is the label's
//! address (pc-relative in `br`/`call`, absolute elsewhere). `spawn`'s second
//! argument is the new thread's stack size.

use super::*;
use std::collections::HashMap;
use vliw_isa::abi::syscall::{
    EAGAIN, EDEADLK, EINVAL, ESRCH, ETIMEDOUT, EXIT_THREAD, FUTEX_WAIT, FUTEX_WAKE, GETTID, JOIN,
    SLEEP, SPAWN, YIELD,
};

/// Assembles labelled bundles; returns the words and each label's address.
fn asm(lines: &[&str]) -> (Vec<u64>, Vec<(String, u64)>) {
    // every operation here is one syllable (addresses fit in 32 bits)
    let mut labels = HashMap::new();
    let mut order = Vec::new();
    let mut addr = TEXT;
    let mut bundles: Vec<(u64, Vec<String>)> = Vec::new();
    for line in lines {
        if let Some(name) = line.strip_suffix(':') {
            labels.insert(name.to_string(), addr);
            order.push((name.to_string(), addr));
            continue;
        }
        let ops: Vec<String> = line.split(" ; ").map(str::to_string).collect();
        bundles.push((addr, ops.clone()));
        addr += 8 * ops.len() as u64;
    }
    let mut words = Vec::new();
    for (start, ops) in bundles {
        let texts: Vec<String> = ops
            .iter()
            .enumerate()
            .map(|(slot, op)| {
                let Some(at) = op.find('@') else {
                    return op.clone();
                };
                let name: String = op[at + 1..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let target = *labels
                    .get(&name)
                    .unwrap_or_else(|| panic!("no label {name}"));
                let relative = op.contains("br ") || op.contains("call ");
                let value = if relative {
                    let off = target as i64 - (start + 8 * slot as u64) as i64;
                    format!(".{off:+}")
                } else {
                    format!("{target:#x}")
                };
                op.replace(&format!("@{name}"), &value)
            })
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        words.extend(assemble(&[&refs]));
    }
    (words, order)
}

/// A test of the labelled program, each label a function symbol up to the next.
fn program(lines: &[&str]) -> Test {
    let (words, labels) = asm(lines);
    let end = TEXT + 8 * words.len() as u64;
    let mut t = Test::from_words(words).max_cycles(10_000_000);
    for (k, (name, addr)) in labels.iter().enumerate() {
        let next = labels.get(k + 1).map_or(end, |l| l.1);
        t = t.symbol(name, *addr, next - addr);
    }
    t
}

fn s(n: i64) -> String {
    format!("syscall {n}")
}

/// Main and a child hand a turn word back and forth through a futex, each
/// appending its letter to a log five times; main joins the child and prints the
/// log.
fn ping_pong() -> Vec<String> {
    let turn = |me: u64, letter: char, other: u64, tag: &str| -> Vec<String> {
        vec![
            format!("{tag}loop:"),
            "ld.w r10 = [r20 + 0]".into(),
            format!("cmp.eq p1, p2 = r10, {me}"),
            format!("(p1) br @{tag}turn"),
            format!("mov r3 = r20 ; movi r4 = {other} ; movi r5 = -1"),
            s(FUTEX_WAIT),
            format!("br @{tag}loop"),
            format!("{tag}turn:"),
            "ld.d r11 = [r20 + 8]".into(),
            format!("add r12 = r20, r11 ; movi r13 = {}", letter as u32),
            "st.b [r12 + 16] = r13 ; add r11 = r11, 1".into(),
            format!("st.d [r20 + 8] = r11 ; movi r10 = {other}"),
            "st.w [r20 + 0] = r10".into(),
            "mov r3 = r20 ; movi r4 = 1".into(),
            s(FUTEX_WAKE),
            "add r21 = r21, -1".into(),
            "cmp.ne p1, p2 = r21, 0".into(),
            format!("(p1) br @{tag}loop"),
        ]
    };
    let mut p: Vec<String> = vec![
        "main:".into(),
        "movi r3 = @child ; movi r4 = 0x21000 ; movi r5 = 0 ; movi r6 = 0".into(),
        "movi r7 = 0 ; movi r20 = 0x20000 ; movi r21 = 5".into(),
        s(SPAWN),
        "mov r22 = r3".into(),
    ];
    p.extend(turn(0, 'm', 1, "m"));
    p.extend([
        "mov r3 = r22".into(),
        s(JOIN),
        "mov r23 = r3".into(),
        "movi r3 = 1 ; add r4 = r20, 16 ; ld.d r5 = [r20 + 8]".into(),
        s(1),
        "mov r3 = r23".into(),
        s(0),
        "child:".into(),
        "movi r21 = 5 ; movi r20 = 0x20000".into(),
    ]);
    p.extend(turn(1, 'c', 0, "c"));
    p.push(s(EXIT_THREAD));
    p
}

fn run_lines(lines: &[String], f: impl FnOnce(Test) -> Test) -> Run {
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    f(program(&refs)).run()
}

#[test]
fn two_threads_hand_a_futex_back_and_forth() {
    let r = run_lines(&ping_pong(), |t| t);
    assert_eq!(r.exit_code(), 0, "join returns 0");
    assert_eq!(r.stdout(), "mcmcmcmcmc");
    let threads = r.sim.thread_stats();
    assert_eq!(threads.len(), 2);
    assert!(r.sim.thread_switches() >= 10, "{}", r.sim.thread_switches());
    let total: u64 = threads.iter().map(|t| t.cycles).sum();
    assert_eq!(total, r.stats().cycles, "every cycle is some thread's");
    let bundles: u64 = threads.iter().map(|t| t.bundles).sum();
    assert_eq!(bundles, r.stats().bundles);
    // the same with any seed and quantum: the handoff decides the order
    for (seed, quantum) in [(1, 7), (2, 30), (3, 1000)] {
        let r = run_lines(&ping_pong(), |mut t| {
            t.options.seed = Some(seed);
            t.options.quantum = quantum;
            t
        });
        assert_eq!(r.exit_code(), 0);
        assert_eq!(r.stdout(), "mcmcmcmcmc", "seed {seed} quantum {quantum}");
    }
}

#[test]
fn results_of_futex_calls_and_errors() {
    // wait with a different value: -EAGAIN; wake without waiters: 0; misaligned
    // and unmapped words; a timed wait that nobody ends: -ETIMEDOUT after the
    // clock skipped the timeout
    let r = run_lines(
        &[
            "main:".into(),
            "movi r3 = 0x20000 ; movi r4 = 1 ; movi r5 = -1".into(),
            s(FUTEX_WAIT),
            "mov r40 = r3 ; movi r3 = 0x20000 ; movi r4 = 5".into(),
            s(FUTEX_WAKE),
            "mov r41 = r3 ; movi r3 = 0x20002 ; movi r4 = 0 ; movi r5 = -1".into(),
            s(FUTEX_WAIT),
            "mov r42 = r3 ; movi r3 = 0x8 ; movi r4 = 0 ; movi r5 = -1".into(),
            s(FUTEX_WAIT),
            "mov r43 = r3 ; movi r3 = 0 ".into(),
            s(4),
            "mov r44 = r3 ; movi r3 = 0x20000 ; movi r4 = 0 ; movi r5 = 5000000".into(),
            s(FUTEX_WAIT),
            "mov r45 = r3 ; movi r3 = 0".into(),
            s(4),
            "mov r46 = r3 ; movi r3 = 3000".into(),
            s(SLEEP),
            "mov r47 = r3 ; movi r3 = 0".into(),
            s(4),
            "mov r48 = r3".into(),
            s(GETTID),
            "mov r49 = r3 ; movi r3 = 0".into(),
            s(YIELD),
            "mov r50 = r3 ; movi r3 = 1".into(),
            s(JOIN),
            "mov r51 = r3 ; movi r3 = 9".into(),
            s(JOIN),
            "mov r52 = r3 ; movi r3 = 0x10001".into(),
            s(SPAWN),
            "mov r53 = r3 ; movi r3 = 0".into(),
            s(0),
        ],
        |t| t,
    );
    assert_eq!(r.exit_code(), 0);
    let neg = |e: i64| (-e) as u64;
    assert_eq!(r.reg(40), neg(EAGAIN));
    assert_eq!(r.reg(41), 0);
    assert_eq!(r.reg(42), neg(EINVAL));
    assert_eq!(r.reg(43), neg(crate::syscall::EFAULT));
    assert_eq!(r.reg(45), neg(ETIMEDOUT));
    let waited = r.reg(46) - r.reg(44);
    assert!(
        (5_000_000..5_000_100).contains(&waited),
        "the clock skips the timeout: {waited}"
    );
    assert_eq!(r.reg(47), 0);
    let slept = r.reg(48) - r.reg(46);
    assert!((3000..3100).contains(&slept), "{slept}");
    assert!(r.sim.idle_ns() >= 5_003_000 - 100);
    assert!(r.stats().cycles < 1000, "idle time is not cycles");
    assert_eq!(r.reg(49), 1, "the first thread is 1");
    assert_eq!(r.reg(50), 0);
    assert_eq!(r.reg(51), neg(EDEADLK));
    assert_eq!(r.reg(52), neg(ESRCH));
    assert_eq!(r.reg(53), neg(EINVAL), "not a bundle start");
    assert_eq!(r.sim.thread_stats().len(), 1);
}

/// Main spawns `child` with r3 = 0x20000, waits `before_join` (a yield or a spin),
/// joins it and exits with join's result + 10 × the word the child stored.
fn join_test(before_join: &[&str], child: &[&str]) -> Run {
    join_test_with(before_join, child, |t| t)
}

fn join_test_with(before_join: &[&str], child: &[&str], f: impl FnOnce(Test) -> Test) -> Run {
    let mut lines: Vec<String> = vec![
        "main:".into(),
        "movi r3 = @child ; movi r4 = 0x21000 ; movi r5 = 0 ; movi r6 = 0x20000".into(),
        "movi r7 = 0".into(),
        s(SPAWN),
        "mov r32 = r3".into(),
    ];
    lines.extend(before_join.iter().map(|l| l.to_string()));
    lines.extend([
        "mov r3 = r32".into(),
        s(JOIN),
        "movi r10 = 0x20000".into(),
        "ld.d r11 = [r10 + 0]".into(),
        "mul r11 = r11, 10".into(),
        "add r3 = r3, r11".into(),
        s(0),
        "child:".into(),
    ]);
    lines.extend(child.iter().map(|l| l.to_string()));
    lines.push(s(EXIT_THREAD));
    run_lines(&lines, f)
}

#[test]
fn join_waits_for_an_unfinished_thread_and_not_for_a_finished_one() {
    // the child spins long: main's join blocks until it ends
    let spin = [
        "movi r10 = 2000",
        "spin:",
        "add r10 = r10, -1",
        "cmp.ne p1, p2 = r10, 0",
        "(p1) br @spin",
        "movi r11 = 4",
        "st.d [r3 + 0] = r11",
    ];
    let r = join_test(&[], &spin);
    assert_eq!(r.exit_code(), 40);
    let t = r.sim.thread_stats();
    assert!(t[1].cycles > 4000, "{t:?}");
    assert!(t[0].cycles < 100, "{t:?}");
    // the child ends while main yields: join returns at once
    let r = join_test(
        &[s(YIELD).as_str()],
        &["movi r11 = 3", "st.d [r3 + 0] = r11"],
    );
    assert_eq!(r.exit_code(), 30);
    assert_eq!(r.sim.thread_stats()[0].slices, 2, "main ran twice");
}

#[test]
fn a_thread_starts_with_its_registers_on_a_stack_of_its_own() {
    // sp at the top of a new stack below the main stack's guard region; tp, r3,
    // r4 as spawn gave them; every other register 0; p0 true
    let r = run_lines(
        &[
            "main:".into(),
            "movi r3 = @child ; movi r4 = 0x1800 ; movi r5 = 0x1234 ; movi r6 = 7".into(),
            "movi r7 = 9 ; movi r40 = 55 ; movi r2 = 66".into(),
            s(SPAWN),
            "mov r3 = r3".into(),
            s(JOIN),
            "movi r10 = 0x20000".into(),
            "ld.d r3 = [r10 + 0]".into(),
            s(0),
            "child:".into(),
            "movi r10 = 0x20000 ; mul r11 = r3, 1000 ; mul r12 = r4, 100".into(),
            "add r13 = r40, r2 ; add r14 = r5, r63".into(),
            "add r11 = r11, r12 ; (p0) add r13 = r13, r14".into(),
            "add r11 = r11, r13 ; st.d [r10 + 8] = r1".into(),
            "st.d [r10 + 0] = r11".into(),
            // the whole stack is mapped, and its top is where sp is
            "st.d [r1 + -8] = r11".into(),
            "add r12 = r1, -0x2000".into(),
            "st.d [r12 + 0] = r11".into(),
            s(EXIT_THREAD),
        ],
        |t| t,
    );
    assert_eq!(r.exit_code(), ((7 * 1000 + 9 * 100 + 0x1234) & 0xff) as i32);
    let guard_base = r.sim.memory().layout().guard_base;
    assert_eq!(r.load(0x20008, 8), guard_base, "sp");
    assert!(
        r.sim.memory().read(guard_base - 8, 8).is_none(),
        "the stack is unmapped when its thread ends"
    );
}

#[test]
fn a_thread_that_overflows_its_stack_faults() {
    let r = run_lines(
        &[
            "main:".into(),
            "movi r3 = @child ; movi r4 = 0x1000".into(),
            s(SPAWN),
            s(JOIN),
            s(0),
            "child:".into(),
            "add r1 = r1, -0x1000".into(),
            "st.d [r1 + 0] = r0".into(),
            "push:".into(),
            "st.d [r1 + -8] = r0".into(),
            s(EXIT_THREAD),
        ],
        |t| t,
    );
    assert_eq!(r.outcome.exit_status(), 142);
    let guard = r.sim.memory().layout().guard_base - 0x1000 - 8;
    assert_eq!(
        r.fault(),
        format!(
            "fault: stack overflow: 8-byte store at {guard:#x} below the stack limit in \
             bundle 0x10038 (push) in thread 2"
        )
    );
}

#[test]
fn the_last_thread_ending_ends_the_run_and_exit_ends_every_thread() {
    let r = run_lines(
        &[
            "main:".into(),
            "movi r3 = @child ; movi r4 = 0x21000".into(),
            s(SPAWN),
            s(EXIT_THREAD),
            "child:".into(),
            "movi r3 = 1 ; movi r4 = @main ; movi r5 = 2".into(),
            s(EXIT_THREAD),
        ],
        |t| t,
    );
    assert_eq!(r.exit_code(), 0);
    // exit from a thread while another runs: the run ends with its status
    let r = run_lines(
        &[
            "main:".into(),
            "movi r3 = @child ; movi r4 = 0x21000".into(),
            s(SPAWN),
            "loop:".into(),
            s(YIELD),
            "br @loop".into(),
            "child:".into(),
            "movi r3 = 42".into(),
            s(0),
        ],
        |t| t,
    );
    assert_eq!(r.exit_code(), 42);
}

#[test]
fn a_deadlock_is_a_fault_naming_each_thread_and_what_it_waits_for() {
    let r = run_lines(
        &[
            "main:".into(),
            "movi r3 = @child ; movi r4 = 0x21000".into(),
            s(SPAWN),
            "join_it:".into(),
            s(JOIN),
            s(0),
            "child:".into(),
            "movi r3 = 0x20010 ; movi r4 = 0 ; movi r5 = -1".into(),
            "wait_it:".into(),
            s(FUTEX_WAIT),
            s(EXIT_THREAD),
        ],
        |t| t,
    );
    assert_eq!(r.outcome.exit_status(), 146);
    assert_eq!(
        r.fault(),
        "fault: deadlock: every thread waits: thread 1 joins thread 2 in bundle 0x10018 \
         (join_it); thread 2 waits on futex 0x20010 (value 0) in bundle 0x10040 (wait_it)"
    );
    // a thread alone waiting for a futex nobody can wake
    let r = run_lines(
        &[
            "main:".into(),
            "movi r3 = 0x20000 ; movi r4 = 0 ; movi r5 = -1".into(),
            s(FUTEX_WAIT),
            s(0),
        ],
        |t| t,
    );
    assert_eq!(r.outcome.exit_status(), 146);
    assert!(
        r.fault()
            .contains("thread 1 waits on futex 0x20000 (value 0)"),
        "{}",
        r.fault()
    );
}

#[test]
fn a_fault_names_its_thread_when_there_are_several() {
    let r = run_lines(
        &[
            "main:".into(),
            "movi r3 = @child ; movi r4 = 0x21000".into(),
            s(SPAWN),
            s(JOIN),
            s(0),
            "child:".into(),
            "trap 5".into(),
        ],
        |t| t,
    );
    assert_eq!(
        r.fault(),
        "fault: trap 5 in bundle 0x10028 (child) in thread 2"
    );
    assert_eq!(r.outcome.exit_status(), 134);
}

/// Two threads each add their letter to a shared log 40 times with nothing
/// between them but preemption; main joins the child and prints the log.
fn race() -> Vec<String> {
    let body = |tag: &str, letter: char| -> Vec<String> {
        vec![
            format!(
                "movi r21 = 40 ; movi r20 = 0x20000 ; movi r13 = {}",
                letter as u32
            ),
            format!("{tag}loop:"),
            "movi r9 = 1".into(),
            "amoadd.d r11 = [r20], r9".into(),
            "add r12 = r20, r11".into(),
            "st.b [r12 + 16] = r13".into(),
            // a little work between entries
            "movi r10 = 7".into(),
            format!("{tag}spin:"),
            "add r10 = r10, -1".into(),
            "cmp.ne p1, p2 = r10, 0".into(),
            format!("(p1) br @{tag}spin"),
            "add r21 = r21, -1".into(),
            "cmp.ne p1, p2 = r21, 0".into(),
            format!("(p1) br @{tag}loop"),
        ]
    };
    let mut p: Vec<String> = vec![
        "main:".into(),
        "movi r3 = @child ; movi r4 = 0x21000".into(),
        s(SPAWN),
        "mov r32 = r3".into(),
    ];
    p.extend(body("m", 'm'));
    p.extend([
        "mov r3 = r32".into(),
        s(JOIN),
        "movi r3 = 1 ; movi r4 = 0x20010 ; movi r5 = 80".into(),
        s(1),
        "movi r3 = 0".into(),
        s(0),
        "child:".into(),
    ]);
    p.extend(body("c", 'c'));
    p.push(s(EXIT_THREAD));
    p
}

#[test]
fn preemption_is_deterministic_for_a_seed() {
    let with = |seed: Option<u64>, quantum: u64| {
        let r = run_lines(&race(), |mut t| {
            t.options.seed = seed;
            t.options.quantum = quantum;
            t
        });
        assert_eq!(r.exit_code(), 0);
        let out = r.stdout();
        assert_eq!(out.matches('m').count(), 40);
        assert_eq!(out.matches('c').count(), 40);
        (out, r.stats(), r.sim.thread_switches())
    };
    // without a seed: round robin, the slices a quantum long
    let (out, stats, switches) = with(None, 200);
    assert!(switches > 10, "{switches}");
    assert!(out.contains("mc") && out.contains("cm"), "{out}");
    assert_eq!(with(None, 200), (out.clone(), stats, switches));
    // a long quantum: main runs to its join first
    let (long, _, _) = with(None, 1_000_000);
    assert_eq!(long, "m".repeat(40) + &"c".repeat(40));
    // a seed: the same run every time, another seed another interleaving
    let a = with(Some(1), 100);
    assert_eq!(with(Some(1), 100), a);
    let others: Vec<String> = (2..6).map(|seed| with(Some(seed), 100).0).collect();
    assert!(others.iter().any(|o| *o != a.0), "{a:?} {others:?}");
}

#[test]
fn a_sleeping_thread_lets_the_others_run_and_wakes_at_its_time() {
    // the child sleeps 1 ms (1 000 000 cycles of the clock) while main spins for
    // about 2 000 cycles and then joins: the clock skips to the child's deadline
    let r = join_test(
        &[
            &s(YIELD),
            "movi r10 = 1000",
            "mspin:",
            "add r10 = r10, -1",
            "cmp.ne p1, p2 = r10, 0",
            "(p1) br @mspin",
        ],
        &[
            "mov r40 = r3 ; movi r3 = 1000000",
            &s(SLEEP),
            "movi r11 = 2",
            "st.d [r40 + 0] = r11",
        ],
    );
    assert_eq!(r.exit_code(), 20);
    let idle = r.sim.idle_ns();
    assert!(
        (1_000_000 - 6000..1_000_000 - 2000).contains(&idle),
        "only the time nobody ran is skipped: {idle}"
    );
}

#[test]
fn timed_waits_wake_during_another_threads_slice() {
    // the child waits 500 cycles on a futex; main spins for 10 000 cycles without
    // a system call, then checks that the child has run (timed out) meanwhile: the
    // child is ready at its deadline and runs when main's slice of 1 000 ends
    let r = join_test_with(
        &[
            &s(YIELD),
            "movi r10 = 2500",
            "mspin:",
            "add r10 = r10, -1",
            "cmp.ne p1, p2 = r10, 0",
            "(p1) br @mspin",
            "movi r12 = 0x20000",
            "ld.d r13 = [r12 + 0]",
            "cmp.eq p1, p2 = r13, 1",
            "(p2) trap 9",
        ],
        &[
            "mov r40 = r3 ; movi r3 = 0x20008 ; movi r4 = 0 ; movi r5 = 500",
            &s(FUTEX_WAIT),
            "movi r11 = 1",
            "st.d [r40 + 0] = r11",
        ],
        |mut t| {
            t.options.quantum = 1000;
            t
        },
    );
    assert_eq!(r.exit_code(), 10);
    assert_eq!(r.sim.idle_ns(), 0);
}

#[test]
fn a_switch_drains_the_outgoing_threads_pending_results() {
    // main starts a divide (20 cycles) and yields at once: the child runs only
    // after the result is ready, and main's cycles include the wait
    let r = run_lines(
        &[
            "main:".into(),
            "movi r3 = @child ; movi r4 = 0x21000 ; movi r10 = 100 ; movi r11 = 7".into(),
            s(SPAWN),
            "div r12 = r10, r11 ; mov r32 = r3".into(),
            s(YIELD),
            "mov r3 = r32".into(),
            s(JOIN),
            "mov r3 = r12".into(),
            s(0),
            "child:".into(),
            s(6),
            "movi r10 = 0x20000".into(),
            "st.d [r10 + 0] = r3".into(),
            s(EXIT_THREAD),
        ],
        |t| t,
    );
    assert_eq!(r.exit_code(), 14);
    let child_saw = r.load(0x20000, 8);
    assert!(
        child_saw >= 20,
        "the child ran after the divide: {child_saw}"
    );
    assert!(r.stats().stalls >= 15, "{:?}", r.stats());
}

#[test]
fn the_trace_shows_each_switch() {
    let lines: Vec<String> = vec![
        "main:".into(),
        "movi r3 = @child ; movi r4 = 0x21000".into(),
        s(SPAWN),
        s(JOIN),
        s(0),
        "child:".into(),
        s(EXIT_THREAD),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (mut sim, _) = program(&refs).simulator();
    let out = SharedWriter::default();
    sim.set_trace(Box::new(out.clone()));
    assert_eq!(sim.run(), crate::Outcome::Exit(0));
    let text = out.text();
    let expected = [
        "       0 0x10000 <main>  movi r3 = 0x10028 ; movi r4 = 0x21000",
        "       1 0x10010 <main+0x10>  syscall 64",
        "       2 0x10018 <main+0x18>  syscall 66",
        "       3 -- thread 2 runs",
        "       3 0x10028 <child>  syscall 65",
        "       4 -- thread 1 runs",
        // join's result is ready a system call's latency after the wake
        "       5 0x10020 <main+0x20>  syscall 0",
    ];
    assert_eq!(text.lines().collect::<Vec<_>>(), expected);
}
