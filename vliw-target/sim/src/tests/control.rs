//! Branches, calls, returns, indirect jumps; read-before-write inside a bundle.

use super::*;

#[test]
fn call_sets_lr_to_the_next_bundle_and_ret_returns() {
    // 0x10000: call f (at 0x10020) | 0x10010: r3 += 2 | 0x10018: exit
    // 0x10020: f: r3 = 40; ret
    let r = Test::new(&[
        &["movi r3 = 1", "call .+24"],
        &["add r3 = r3, 2"],
        &["syscall 0"],
        &["movi r3 = 40", "ret"],
    ])
    .run();
    assert_eq!(r.exit_code(), 42);
    assert_eq!(r.reg(63), TEXT + 16);
    let s = r.stats();
    assert_eq!(s.branches, 2);
    assert_eq!(s.bundles, 4);
    assert_eq!(s.cycles, 4 + 2, "one penalty cycle per taken transfer");
}

#[test]
fn indirect_calls_and_jumps() {
    let r = Test::new(&[
        &["addpc r10 = .+32", "addpc r11 = .+48"], // r10 = 0x10020, r11 = 0x10038
        &["callr r10"],                            // 0x10010
        &["jr r11"],                               // 0x10018
        &["movi r3 = 5", "ret"],                   // 0x10020: returns to 0x10018
        &["trap 9"],                               // 0x10030: not reached
        &["syscall 0"],                            // 0x10038
    ])
    .run();
    assert_eq!(r.exit_code(), 5);
    assert_eq!(r.reg(63), TEXT + 0x18);
    assert_eq!(r.stats().branches, 3);
}

#[test]
fn branch_penalty_is_configurable() {
    let body: &[&[&str]] = &[&["br .+8"], &["br .+8"], &["syscall 0"]];
    for penalty in [0u64, 1, 5] {
        let r = Test::new(body)
            .machine(&format!("branch-penalty={penalty}"))
            .run();
        assert_eq!(r.stats().cycles, 3 + 2 * penalty);
        assert_eq!(r.stats().branches, 2);
    }
}

#[test]
fn a_not_taken_branch_costs_nothing_extra() {
    let r = Test::new(&[&["(p1) br .+16"], &["nop"], &["syscall 0"]]).run();
    assert_eq!(r.stats().cycles, 3);
    assert_eq!(r.stats().branches, 0);
    assert_eq!(r.stats().nullified, 1);
}

#[test]
fn the_first_enabled_control_operation_wins() {
    // Two branch units: both branches are enabled, the first in slot order wins;
    // a call that loses writes no lr.
    let program = |first: &str| {
        let first = format!("{first} br .+16");
        Test::new(&[
            &["movi r3 = 1", &first, "call .+32"], // 0x10000..0x10010
            &["syscall 0"],                        // 0x10018: the br's target
            &["movi r3 = 2"],                      // 0x10020: fall-through, not reached
            &["syscall 0"],                        // 0x10028
            &["movi r3 = 3", "ret"],               // 0x10030: the call's target
        ])
        .machine("branch=2")
        .run()
    };
    let r = program("");
    assert_eq!(r.exit_code(), 1);
    assert_eq!(r.reg(63), 0);
    // A nullified first branch lets the second one win.
    let r = program("(p1)");
    assert_eq!(r.exit_code(), 3);
    assert_eq!(r.reg(63), TEXT + 0x18);
}

#[test]
fn control_transfers_happen_after_the_whole_bundle() {
    // The operations after the branch in slot order still execute.
    let r = Test::new(&[&["br .+24", "movi r3 = 9"], &["trap 1"], &["syscall 0"]]).run();
    assert_eq!(r.exit_code(), 9);
}

#[test]
fn all_operations_read_before_any_writes() {
    let r = run(&[
        &["movi r10 = 1", "movi r11 = 2", "movi r12 = 3"],
        // A swap, and a rotation of three registers, in one bundle each.
        &["mov r10 = r11", "mov r11 = r10"],
        &["mov r12 = r10", "mov r10 = r11", "mov r11 = r12"],
        // Readers after writers in slot order still see the old value.
        &["add r13 = r12, 0", "add r12 = r12, 100", "add r14 = r12, 0"],
        // The later slot wins when two operations write one register.
        &["movi r15 = 1", "movi r15 = 2"],
    ]);
    // After the swap r10 = 2, r11 = 1; after the rotation r12 = 2, r10 = 1, r11 = 3.
    assert_eq!((r.reg(10), r.reg(11), r.reg(12)), (1, 3, 102));
    assert_eq!((r.reg(13), r.reg(14)), (2, 2));
    assert_eq!(r.reg(15), 2);
}

#[test]
fn a_compare_and_its_guarded_user_in_one_bundle() {
    // The guard is read before the compare writes it.
    let r = run(&[
        &[
            "cmp.eq p1, p2 = r0, r0",
            "(p1) movi r10 = 1",
            "(p2) movi r11 = 1",
        ],
        &["(p1) movi r12 = 1"],
    ]);
    assert_eq!((r.reg(10), r.reg(11), r.reg(12)), (0, 0, 1));
    assert_eq!(r.stats().nullified, 2);
}

#[test]
fn memory_is_read_before_the_bundle_writes_it() {
    let r = Test::new(&[
        &["movi r10 = 0x20000", "movi r4 = 7", "movi r5 = 8"],
        &["st.d [r10] = r4"],
        &["st.d [r10] = r5", "ld.d r6 = [r10]"], // the load sees 7
        &["ld.d r7 = [r10]", "st.d [r10] = r4"], // the load sees 8
        &["amoadd.d r8 = [r10], r4", "amoadd.d r9 = [r10], r5"], // both see 7; the second writes last
        &["nop"],
        &["nop"],
        &["ld.d r3 = [r10]"],
        &["nop"],
        &["nop"],
        &["syscall 0"],
    ])
    .run();
    assert_eq!((r.reg(6), r.reg(7), r.reg(8), r.reg(9)), (7, 8, 7, 7));
    assert_eq!(r.exit_code(), 15, "7 + 8 from the second amoadd");
}

#[test]
fn a_call_and_a_read_of_lr_in_one_bundle() {
    // `mov` reads the old lr although the call in an earlier slot writes it.
    let r = Test::new(&[
        &["movi r63 = 5"],
        &["call .+24", "mov r3 = r63"], // 0x10008
        &["trap 1"],                    // 0x10018
        &["syscall 0"],                 // 0x10020
    ])
    .run();
    assert_eq!(r.exit_code(), 5);
    assert_eq!(r.reg(63), TEXT + 0x18);
}
