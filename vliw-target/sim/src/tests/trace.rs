//! The trace: one line per executed bundle.

use super::*;

#[test]
fn every_executed_bundle_is_a_line() {
    let t = Test::new(&[
        &["movi r3 = 1", "cmp.eq p1, p2 = r0, r0"], // 0x10000
        &["(p2) movi r3 = 2", "(p1) br .+16"],      // 0x10010: br at 0x10018
        &["trap 1"],                                // 0x10020
        &["ld.d r4 = [r4 + 8]"],                    // 0x10028: argv[1] = NULL
        &["add r3 = r4, 0"],                        // 0x10030
        &["syscall 0"],
    ])
    .symbol("_start", TEXT, 0x10)
    .symbol("next", TEXT + 0x10, 0x100);
    let (mut sim, _) = t.simulator();
    let out = SharedWriter::default();
    sim.set_trace(Box::new(out.clone()));
    assert_eq!(sim.run(), crate::Outcome::Exit(0));
    let text = out.text();
    let expected = [
        "       0 0x10000 <_start>  movi r3 = 1 ; cmp.eq p1, p2 = r0, r0",
        "       1 0x10010 <next>  ~(p2) movi r3 = 2 ; (p1) br .+16",
        "       3 0x10028 <next+0x18>  ld.d r4 = [r4 + 8]",
        "       6 0x10030 <next+0x20>  add r3 = r4, 0",
        "       7 0x10038 <next+0x28>  syscall 0",
    ];
    assert_eq!(text.lines().collect::<Vec<_>>(), expected);
    assert!(text.ends_with('\n'));
}

#[test]
fn trace_lines_show_the_source_line() {
    let t = Test::new(&[&["movi r3 = 1"], &["add r3 = r3, 1"], &["syscall 0"]])
        .symbol("_start", TEXT, 0x18)
        .lines(line_table(
            TEXT,
            0x18,
            vec![
                (0, "src/main.rs", 3, 5),
                (8, "src/main.rs", 0, 0),
                (16, "src/lib.rs", 7, 0),
            ],
        ));
    let (mut sim, _) = t.simulator();
    let out = SharedWriter::default();
    sim.set_trace(Box::new(out.clone()));
    assert_eq!(sim.run(), crate::Outcome::Exit(2));
    let text = out.text();
    let expected = [
        "       0 0x10000 <_start> src/main.rs:3:5  movi r3 = 1",
        "       1 0x10008 <_start+0x8>  add r3 = r3, 1",
        "       2 0x10010 <_start+0x10> src/lib.rs:7  syscall 0",
    ];
    assert_eq!(text.lines().collect::<Vec<_>>(), expected);
}

#[test]
fn a_profile_counts_the_calls_of_a_function() {
    let t = Test::new(&[
        &["call .+32"],      // 0x10000: main
        &["call .+24"],      // 0x10008
        &["movi r3 = 0"],    // 0x10010
        &["syscall 0"],      // 0x10018
        &["add r4 = r4, 1"], // 0x10020: f
        &["ret"],            // 0x10028
    ])
    .symbol("main", TEXT, 0x20)
    .symbol("f", TEXT + 0x20, 0x10);
    let (mut sim, _) = t.simulator();
    sim.set_profile(&["f".to_string()]).unwrap();
    assert_eq!(sim.run(), crate::Outcome::Exit(0));
    let f = &sim.profile().unwrap()[0];
    // Per call: two bundles, and the return's penalty cycle.
    assert_eq!((f.calls, f.bundles, f.ops, f.cycles), (2, 4, 4, 6));
    assert_eq!(sim.stats().bundles, 8);
    let (mut sim, _) = t.simulator();
    assert!(
        sim.set_profile(&["g".to_string()])
            .unwrap_err()
            .contains("`g`")
    );
}
