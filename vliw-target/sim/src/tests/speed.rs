//! The simulator's speed on the loop of `tests/bench/sim_loop.s` (ALU, compare and
//! branch operations, no stalls). Ignored by default: run with
//! `cargo test -p vliw-sim --release -- --ignored --nocapture speed`.

use super::*;
use std::time::Instant;

fn sim_loop(iterations: u64) -> Test {
    let count = format!("movi r3 = {iterations}");
    Test::new(&[
        &[&count, "movi r4 = 0", "movi r5 = 0", "movi r6 = 0"],
        &[
            "add r4 = r4, 1",
            "add r5 = r5, r4",
            "xor r6 = r6, r5",
            "cmp.ne p1, p2 = r3, 1",
        ],
        &["add r3 = r3, -1", "(p1) br .-40"],
        &["movi r3 = 0"],
        &["syscall 0"],
    ])
}

#[test]
fn the_benchmark_loop_computes_and_counts_exactly() {
    let r = sim_loop(1000).run();
    assert_eq!(r.exit_code(), 0);
    let (mut r4, mut r5, mut r6) = (0u64, 0u64, 0u64);
    for _ in 0..1000 {
        // All three read the values before the bundle.
        (r4, r5, r6) = (r4 + 1, r5 + r4, r6 ^ r5);
    }
    assert_eq!((r.reg(4), r.reg(5), r.reg(6)), (r4, r5, r6));
    let s = r.stats();
    assert_eq!(s.bundles, 2 + 2 * 1000 + 1);
    assert_eq!(s.ops, 4 + 6 * 1000 + 1 + 1);
    assert_eq!(s.nullified, 1, "the last branch");
    assert_eq!(s.branches, 999);
    assert_eq!(s.stalls, 0);
    assert_eq!(s.cycles, s.bundles + 999);
}

#[test]
#[ignore]
fn speed_of_a_tight_alu_loop() {
    let iterations = 100_000_000;
    let (mut sim, _io) = sim_loop(iterations).simulator();
    let start = Instant::now();
    let outcome = sim.run();
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(outcome, crate::Outcome::Exit(0));
    let s = sim.stats();
    println!(
        "{} ops, {} bundles in {secs:.3} s: {:.1} M ops/s, {:.1} M bundles/s",
        s.ops,
        s.bundles,
        s.ops as f64 / secs / 1e6,
        s.bundles as f64 / secs / 1e6
    );
}

#[test]
#[ignore]
fn speed_of_a_memory_and_call_loop() {
    let (mut sim, _io) = Test::new(&[
        &["movi r3 = 20000000", "add r10 = r1, -64", "movi r5 = 0"], // 0x10000
        &[
            "ld.d r4 = [r10]",
            "st.d [r10 + 8] = r5",
            "add r3 = r3, -1",
            "cmp.ne p1, p2 = r3, 1",
        ], // 0x10018
        &["call .+24"],                                              // 0x10038 -> 0x10050
        &["(p1) br .-40"],                                           // 0x10040 -> 0x10018
        &["syscall 0"],                                              // 0x10048
        &["add r5 = r5, 1", "ret"],                                  // 0x10050
    ])
    .simulator();
    let start = Instant::now();
    let outcome = sim.run();
    let secs = start.elapsed().as_secs_f64();
    assert!(matches!(outcome, crate::Outcome::Exit(_)), "{outcome:?}");
    let s = sim.stats();
    println!(
        "{s}\n{:.1} M ops/s, {:.1} M bundles/s",
        s.ops as f64 / secs / 1e6,
        s.bundles as f64 / secs / 1e6
    );
}
