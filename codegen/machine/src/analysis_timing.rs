//! `analysis-timing=on`: the time of the SSA analyses and of leaving SSA, measured on
//! every function's machine SSA right after instruction selection, for
//! `./y.sh bench analyses` (`docs/benchmarks.md`). Measurement only: the analyses run
//! on the function as it is (or on clones where a pass changes it), and the pipeline
//! continues on the original, so the generated code is the same with or without it.
//!
//! Per function, one line on stderr ([`Measurement::line`]):
//!
//! ```text
//! vliw-analysis-timing: blocks=B insts=I vregs=V two_pass_ns=.. dataflow_ns=.. checker_ns=.. boissinot_ns=.. virtual_ns=.. sreedhar3_ns=.. name=SYMBOL
//! ```
//!
//! with, in nanoseconds per run:
//!
//! - `two_pass_ns`: the CFG ([`cfg_of`]), the loop-nesting forest and the two-pass live
//!   sets ([`LiveSets::compute`], Boissinot's Alg 4–6);
//! - `dataflow_ns`: the CFG and the iterative data-flow live sets
//!   ([`DataflowLiveness::compute`], Alg 3);
//! - `checker_ns`: the CFG and the liveness checker's CFG-only data
//!   ([`LivenessChecker::new`]: dominators, loops, reduced reachability);
//! - `boissinot_ns`, `virtual_ns`, `sreedhar3_ns`: [`destruct::destruct`] with that method, on a
//!   clone of the function (the clone is not timed).
//!
//! `blocks` counts the blocks of the layout, `insts` their instructions, `vregs` the
//! virtual registers. Each figure is taken in [`ROUNDS`] rounds; a round repeats the
//! work until its runs add up to at least [`MIN_TOTAL`] (at most [`MAX_RUNS`] runs), so
//! that small functions are measured above the resolution and overhead of the clock,
//! and gives its mean time per run; the figure is the smallest of the rounds, which
//! leaves out most of what a shared machine adds (preemption, a cold cache on the
//! first run). The name comes last and is the rest of the line.

use std::hint::black_box;
use std::time::{Duration, Instant};

use vliw_ssa::{DataflowLiveness, LiveSets, LivenessChecker, LoopForest};

use crate::destruct;
use crate::mir::MachFunction;
use crate::options::SsaDestruction;
use crate::ssa_view::{SsaView, cfg_of};

/// Runs of a round are repeated until their total reaches this.
pub const MIN_TOTAL: Duration = Duration::from_micros(20);
/// Rounds per figure; the fastest counts.
pub const ROUNDS: usize = 3;
/// A bound on the repetitions of one figure.
pub const MAX_RUNS: u32 = 1 << 16;

/// The sizes of one function and the time of each analysis, in nanoseconds per run.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    pub blocks: usize,
    pub insts: usize,
    pub vregs: usize,
    pub two_pass_ns: f64,
    pub dataflow_ns: f64,
    pub checker_ns: f64,
    pub boissinot_ns: f64,
    pub virtual_ns: f64,
    pub sreedhar3_ns: f64,
}

impl Measurement {
    /// Measures `mf`, which must be machine SSA (after instruction selection, before
    /// leaving SSA). `mf` itself is not changed.
    pub fn of(mf: &MachFunction) -> Measurement {
        let view = SsaView { mf };
        let two_pass_ns = per_run(|| {
            let cfg = cfg_of(mf);
            let loops = LoopForest::compute(&cfg);
            black_box(LiveSets::compute(&cfg, &loops, &view));
        });
        let dataflow_ns = per_run(|| {
            let cfg = cfg_of(mf);
            black_box(DataflowLiveness::compute(&cfg, &view));
        });
        let checker_ns = per_run(|| {
            black_box(LivenessChecker::new(&cfg_of(mf)));
        });
        Measurement {
            blocks: mf.layout.len(),
            insts: mf.layout.iter().map(|&b| mf.block_len(b)).sum(),
            vregs: mf.vregs.len(),
            two_pass_ns,
            dataflow_ns,
            checker_ns,
            boissinot_ns: destruction_per_run(mf, SsaDestruction::Boissinot),
            virtual_ns: destruction_per_run(mf, SsaDestruction::Virtual),
            sreedhar3_ns: destruction_per_run(mf, SsaDestruction::Sreedhar3),
        }
    }

    /// The line printed for the function `name` (without a newline).
    pub fn line(&self, name: &str) -> String {
        format!(
            "vliw-analysis-timing: blocks={} insts={} vregs={} two_pass_ns={:.0} \
             dataflow_ns={:.0} checker_ns={:.0} boissinot_ns={:.0} virtual_ns={:.0} \
             sreedhar3_ns={:.0} \
             name={name}",
            self.blocks,
            self.insts,
            self.vregs,
            self.two_pass_ns,
            self.dataflow_ns,
            self.checker_ns,
            self.boissinot_ns,
            self.virtual_ns,
            self.sreedhar3_ns
        )
    }
}

/// Measures `mf` and prints its line on stderr (`analysis-timing=on`).
pub fn report(mf: &MachFunction) {
    eprintln!("{}", Measurement::of(mf).line(&mf.name));
}

/// The smallest of [`ROUNDS`] measurements in nanoseconds per run.
fn fastest_round(mut round: impl FnMut() -> f64) -> f64 {
    (0..ROUNDS).map(|_| round()).fold(f64::INFINITY, f64::min)
}

/// Nanoseconds per call of `f` (the fastest round).
fn per_run(mut f: impl FnMut()) -> f64 {
    fastest_round(|| round_per_run(&mut f))
}

/// One round: batches of doubling size, timed as a whole, until the total reaches
/// [`MIN_TOTAL`]; nanoseconds per call.
fn round_per_run(f: &mut impl FnMut()) -> f64 {
    let mut total = Duration::ZERO;
    let mut runs = 0u32;
    let mut batch = 1u32;
    loop {
        let start = Instant::now();
        for _ in 0..batch {
            f();
        }
        total += start.elapsed();
        runs += batch;
        if total >= MIN_TOTAL || runs >= MAX_RUNS {
            return total.as_nanos() as f64 / f64::from(runs);
        }
        batch = batch.saturating_mul(2).min(MAX_RUNS - runs);
    }
}

/// Nanoseconds per destruction of a clone of `mf` with `method` (the fastest round;
/// cloning and dropping not timed).
fn destruction_per_run(mf: &MachFunction, method: SsaDestruction) -> f64 {
    fastest_round(|| destruction_round(mf, method))
}

fn destruction_round(mf: &MachFunction, method: SsaDestruction) -> f64 {
    let mut total = Duration::ZERO;
    let mut runs = 0u32;
    loop {
        let mut copy = mf.clone();
        let start = Instant::now();
        destruct::destruct(&mut copy, method, None);
        total += start.elapsed();
        runs += 1;
        drop(black_box(copy));
        if total >= MIN_TOTAL || runs >= MAX_RUNS {
            return total.as_nanos() as f64 / f64::from(runs);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_sizes_and_leaves_the_function_alone() {
        let mf = crate::test_support::lost_copy();
        let before = format!("{mf:?}");
        let m = Measurement::of(&mf);
        assert_eq!(format!("{mf:?}"), before);
        assert_eq!((m.blocks, m.insts, m.vregs), (4, 9, 4));
        for ns in [
            m.two_pass_ns,
            m.dataflow_ns,
            m.checker_ns,
            m.boissinot_ns,
            m.virtual_ns,
            m.sreedhar3_ns,
        ] {
            assert!(ns > 0.0 && ns.is_finite(), "{m:?}");
        }
    }

    #[test]
    fn line_has_every_field_and_the_name_last() {
        let m = Measurement {
            blocks: 4,
            insts: 9,
            vregs: 4,
            two_pass_ns: 1234.4,
            dataflow_ns: 2000.0,
            checker_ns: 800.6,
            boissinot_ns: 5000.0,
            virtual_ns: 4000.0,
            sreedhar3_ns: 7000.0,
        };
        assert_eq!(
            m.line("f"),
            "vliw-analysis-timing: blocks=4 insts=9 vregs=4 two_pass_ns=1234 \
             dataflow_ns=2000 checker_ns=801 boissinot_ns=5000 virtual_ns=4000 \
             sreedhar3_ns=7000 name=f"
        );
    }

    #[test]
    fn repeats_until_the_total_is_measurable() {
        let mut calls = 0u32;
        let ns = round_per_run(&mut || calls += 1);
        assert!(calls > 1 && calls <= MAX_RUNS);
        assert!(ns >= 0.0);
        let mut calls = 0u32;
        let ns = per_run(|| {
            calls += 1;
            std::thread::sleep(Duration::from_micros(50));
        });
        assert_eq!(calls as usize, ROUNDS);
        assert!(ns >= 50_000.0);
        let mut times = [900.0, 300.0, 600.0].into_iter();
        assert_eq!(fastest_round(|| times.next().unwrap()), 300.0);
    }
}
