//! The interlock: stalls on early reads, counted exactly; strict mode.

use super::*;

fn load_then_use() -> Test {
    Test::new(&[
        &["movi r10 = 0x20000"],
        &["ld.d r4 = [r10]"], // issues at cycle 1; r4 ready at 1 + 3
        &["add r5 = r4, 1"],  // would issue at 2: stalls 2 cycles
        &["syscall 0"],
    ])
    .symbol("main", TEXT, 0x20)
}

#[test]
fn a_load_used_at_once_stalls_for_the_rest_of_its_latency() {
    let r = load_then_use().run();
    r.exit_code();
    let s = r.stats();
    assert_eq!(s.stalls, 2);
    assert_eq!(s.cycles, 4 + 2);
    assert_eq!(s.bundles, 4);
}

#[test]
fn stalls_follow_the_configured_latency() {
    for latency in 1..6u64 {
        let r = load_then_use()
            .machine(&format!("latency.load={latency}"))
            .run();
        assert_eq!(
            r.stats().stalls,
            latency.saturating_sub(1),
            "load latency {latency}"
        );
    }
}

#[test]
fn strict_mode_makes_a_stall_a_fault() {
    let r = load_then_use().strict().run();
    assert_eq!(
        r.fault(),
        "fault: latency stall: r4 is read 2 cycles before it is ready in bundle 0x10010 (main+0x10)"
    );
    assert_eq!(r.outcome.exit_status(), 144);
    // Enough distance: no fault.
    let r = Test::new(&[
        &["movi r10 = 0x20000"],
        &["ld.d r4 = [r10]"],
        &["nop"],
        &["nop"],
        &["add r5 = r4, 1"],
        &["syscall 0"],
    ])
    .strict()
    .run();
    r.exit_code();
    assert_eq!(r.stats().stalls, 0);
}

#[test]
fn guards_and_sources_of_nullified_operations_are_waited_for() {
    // fcmp has latency 2: its predicate used as a guard in the next bundle stalls 1.
    let r = run(&[&["fcmp.eq.d p1, p2 = r0, r0"], &["(p1) movi r3 = 1"]]);
    assert_eq!(r.stats().stalls, 1);
    // A nullified operation still waits for its sources: mul has latency 3.
    let r = run(&[&["mul r4 = r0, r0"], &["(p1) add r5 = r4, 1"]]);
    assert_eq!(r.stats().stalls, 2);
    assert_eq!(r.stats().nullified, 1);
    // The predicate source of `sel` counts, and the stall is the longest one.
    let r = run(&[
        &["mul r4 = r0, r0", "fcmp.eq.d p1, p2 = r0, r0"],
        &["sel r3 = p1, r4, r0"],
    ]);
    assert_eq!(r.stats().stalls, 2);
}

#[test]
fn a_nullified_operation_does_not_delay_its_destination() {
    let r = run(&[
        &["movi r10 = 0x20000"],
        &["(p1) ld.d r4 = [r10]"],
        &["add r5 = r4, 1"],
    ]);
    assert_eq!(r.stats().stalls, 0);
}

#[test]
fn the_last_write_decides_when_a_register_is_ready() {
    let r = run(&[&["mul r4 = r0, r0"], &["movi r4 = 1"], &["add r5 = r4, 1"]]);
    assert_eq!(r.stats().stalls, 0);
    assert_eq!(r.reg(5), 2);
}

#[test]
fn divide_and_multiply_latencies() {
    let r = run(&[
        &["movi r4 = 7", "movi r5 = 2"],
        &["div r6 = r4, r5"],
        &["add r3 = r6, 0"],
    ]);
    assert_eq!(r.stats().stalls, 19);
    assert_eq!(r.reg(3), 3);
    let r = Test::new(&[
        &["movi r4 = 7", "movi r5 = 2"],
        &["div r6 = r4, r5"],
        &["add r3 = r6, 0"],
        &["syscall 0"],
    ])
    .machine("latency.divide=4")
    .run();
    assert_eq!(r.stats().stalls, 3);
}

#[test]
fn system_call_arguments_and_results_are_interlocked() {
    // The syscall reads r3..r8: a load into r8 just before it stalls.
    let r = run(&[&["movi r10 = 0x20000"], &["ld.d r8 = [r10]"]]);
    assert_eq!(r.stats().stalls, 2);
    // Its result in r3 is ready one cycle later.
    let r = Test::new(&[&["syscall 6"], &["add r4 = r3, 0"], &["syscall 0"]]).run();
    assert_eq!(r.stats().stalls, 0);
    assert_eq!(r.reg(4), 0, "cycles() at cycle 0");
    let r = Test::new(&[
        &["nop"],
        &["nop"],
        &["syscall 6"],
        &["mov r4 = r3"],
        &["syscall 0"],
    ])
    .run();
    assert_eq!(r.reg(4), 2);
}

#[test]
fn a_taken_branch_and_a_stall_add_up() {
    // A load issued with a taken branch is ready 3 cycles after its issue; the
    // branch's bundle and its penalty cover 2 of them.
    let r = run(&[
        &["movi r10 = 0x20000"],
        &["ld.d r4 = [r10]", "br .+8"],
        &["add r5 = r4, 1"],
    ]);
    let s = r.stats();
    assert_eq!((s.stalls, s.branches), (1, 1));
    let r = Test::new(&[
        &["movi r10 = 0x20000"],
        &["ld.d r4 = [r10]", "br .+8"],
        &["add r5 = r4, 1"],
        &["syscall 0"],
    ])
    .machine("branch-penalty=0")
    .run();
    assert_eq!(r.stats().stalls, 2);
}

#[test]
fn a_multi_cycle_nop_waits_out_a_latency_in_one_bundle() {
    // `nop 3` in the load's bundle: the add issues 3 cycles after it, when r4 is
    // ready, so strict mode finds no stall, in 3 bundles where plain nops take 5
    let r = Test::new(&[
        &["movi r10 = 0x20000"],
        &["ld.d r4 = [r10]", "nop 3"],
        &["add r5 = r4, 1"],
        &["syscall 0"],
    ])
    .strict()
    .run();
    r.exit_code();
    let s = r.stats();
    assert_eq!((s.cycles, s.bundles, s.stalls), (6, 4, 0));
    assert_eq!(s.ops, 4, "a nop is no work");
    // a bundle of its own, and one that ends in a taken branch: the cycles add up
    let r = Test::new(&[&["nop 4"], &["nop 2", "br .+8"], &["syscall 0"]]).run();
    let s = r.stats();
    assert_eq!((s.cycles, s.bundles), (4 + 2 + 1 + 1, 3));
}

#[test]
fn nop_cycles_are_bounded_by_the_machine() {
    let r = Test::new(&[&["nop 9"], &["syscall 0"]]).run();
    assert!(
        r.fault().contains("a nop takes 1 to 8 cycles"),
        "{}",
        r.fault()
    );
    assert_eq!(r.outcome.exit_status(), 132);
    let r = Test::new(&[&["nop 9"], &["syscall 0"]])
        .machine("max-nop=16")
        .run();
    r.exit_code();
    assert_eq!(r.stats().cycles, 10);
    let r = Test::new(&[&["nop 0"], &["syscall 0"]]).run();
    assert!(r.fault().contains("`nop 0`"), "{}", r.fault());
    let r = Test::new(&[&["nop 2", "nop 2"], &["syscall 0"]]).run();
    assert!(r.fault().contains("at most one `nop N`"), "{}", r.fault());
}
