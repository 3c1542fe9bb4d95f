//! Unit tests of modulo scheduling: the interval against its bounds, the kernel's
//! results against the loop's for trip counts around the number of stages, and the
//! loops it leaves alone.

use vliw_isa::MachineConfig;

use super::{ModuloOptions, pipeline_loops};
use crate::interp::Interpreter;
use crate::mir::{MachFunction, Phase};

fn run(mf: &MachFunction, args: &[u64]) -> Vec<u64> {
    Interpreter::new([mf]).call(&mf.name, args).unwrap()
}

/// The rotating kernel, with the exact search where iterative scheduling gives up.
const EXACT: ModuloOptions = ModuloOptions {
    exact: true,
    expand: false,
};

const SQUARES: &str = include_str!("../../../../../tests/mir/modulo.mir");

/// The first function of a filetest's text.
fn first_function(file: &str) -> MachFunction {
    let start = file.find("machine function").unwrap();
    let end = file.find("\n}\n").unwrap() + 3;
    MachFunction::parse(&file[start..end]).unwrap()
}

fn squares() -> MachFunction {
    first_function(SQUARES)
}

#[test]
fn squares_reach_min_ii_and_compute_the_same() {
    let before = squares();
    let mut after = before.clone();
    let stats = pipeline_loops(&mut after, &MachineConfig::default(), EXACT);
    after.verify(Phase::Ssa).unwrap();
    assert_eq!(stats.pipelined.len(), 1, "{after}");
    let r = &stats.pipelined[0];
    assert_eq!(r.ii, r.res_mii.max(r.rec_mii), "{r}");
    assert!(r.ii < r.block_length, "{r}");
    assert!(r.stages >= 2, "{r}");
    for n in 1..=8u64 {
        assert_eq!(run(&after, &[n]), run(&before, &[n]), "n = {n}\n{after}");
    }
}

/// Modulo variable expansion: the same loop as copies of its kernel, as many as the
/// deepest read across trips, with the same results for every trip count (each
/// copy's exit taken), and no copy of a value left in the copies: every back-edge
/// value is defined in a copy, every parameter read before it is redefined.
#[test]
fn squares_as_kernel_copies_compute_the_same() {
    let before = squares();
    let mut after = before.clone();
    let options = ModuloOptions {
        exact: true,
        expand: true,
    };
    let stats = pipeline_loops(&mut after, &MachineConfig::default(), options);
    after.verify(Phase::Ssa).unwrap();
    assert_eq!(stats.pipelined.len(), 1, "{after}");
    let r = &stats.pipelined[0];
    assert_eq!(after.pipelined.len(), 1);
    let kernel = &after.pipelined[0].kernel;
    // as many copies as stages, and enough for a round of 10 cycles
    let copies = kernel.len() as i64;
    assert!(copies >= r.stages, "{after}");
    assert!(
        copies * r.ii >= super::expand::MIN_ROUND_CYCLES || copies == super::expand::MAX_COPIES,
        "{after}"
    );
    for &b in kernel {
        assert!(
            after
                .block_insts(b)
                .all(|mi| mi.op != crate::mir::MOp::Copy),
            "{after}"
        );
    }
    for n in 1..=8u64 {
        assert_eq!(
            run(&after, &[n]),
            run(&before, &[n]),
            "n = {n}
{after}"
        );
    }
}

/// A loop with a guarded store (what if-conversion leaves) is not taken: the stage
/// predicate would have to be combined with the store's own guard.
#[test]
fn a_guarded_store_keeps_the_loop_as_it_is() {
    let text = SQUARES
        [SQUARES.find("machine function").unwrap()..SQUARES.find("\n}\n").unwrap() + 3]
        .replace(
            "    st.d [v10 + 0] = v14\n",
            "    (pv18) st.d [v10 + 0] = v14\n",
        )
        .replace("    pv18, p0 = cmp.lt v17, v0\n", "")
        .replace(
            "    v13 = ld.d [v10 + 0]\n",
            "    v13 = ld.d [v10 + 0]\n    pv18, p0 = cmp.lt v17, v0\n",
        )
        .replace("    v17 = add v11, 1\n", "")
        .replace(
            "block1(v10, v11, v12):\n",
            "block1(v10, v11, v12):\n    v17 = add v11, 1\n",
        );
    let before = MachFunction::parse(&text).unwrap();
    let mut after = before.clone();
    let stats = pipeline_loops(&mut after, &MachineConfig::default(), EXACT);
    assert_eq!((stats.loops, stats.rejected_operation), (1, 1), "{after}");
    assert_eq!(after.to_string(), before.to_string());
}

const WALK: &str = include_str!("../../../../../tests/mir/modulo-speculative.mir");

/// A loop whose continuation compare reads a load of the iteration: pipelined at
/// RecMII with the compare in the second stage (the first runs speculatively), and
/// the results those of the loop for lists of one to three nodes.
#[test]
fn a_walk_along_a_list_pipelines_with_a_speculative_stage() {
    let before = first_function(WALK);
    let mut after = before.clone();
    let stats = pipeline_loops(&mut after, &MachineConfig::default(), EXACT);
    after.verify(Phase::Ssa).unwrap();
    assert_eq!(stats.pipelined.len(), 1, "{after}");
    let r = &stats.pipelined[0];
    assert_eq!((r.ii, r.rec_mii, r.stages), (3, 3, 2), "{r}");
    assert!(after.to_string().contains("cmp.eq.unc"), "{after}");
    for n in 1..=3u64 {
        assert_eq!(run(&after, &[n]), run(&before, &[n]), "n = {n}\n{after}");
    }
}

const FULL_TABLE: &str = include_str!("../../../../../tests/mir/modulo-full-table.mir");

/// A body that fills the reservation table at MinII, with a tight recurrence: where
/// iterative modulo scheduling gives up, the exact search finds MinII for the kernel
/// copies (whose exit test takes no slot), and the kernel computes what the loop
/// does. The rotating kernel's upkeep would not fit beside a full table: for it the
/// search refuses MinII.
#[test]
fn a_full_table_reaches_min_ii_by_the_exact_search() {
    let before = first_function(FULL_TABLE);
    let mut after = before.clone();
    let copies = ModuloOptions {
        exact: true,
        expand: true,
    };
    let stats = pipeline_loops(&mut after, &MachineConfig::default(), copies);
    after.verify(Phase::Ssa).unwrap();
    assert_eq!(stats.pipelined.len(), 1, "{after}");
    let r = &stats.pipelined[0];
    assert_eq!((r.res_mii, r.rec_mii, r.ii), (4, 3, 4), "{r}");
    for n in 1..=3u64 {
        assert_eq!(run(&after, &[n]), run(&before, &[n]), "n = {n}\n{after}");
    }
    // without the search (`modulo-exact=off`), one cycle more
    let mut heuristic = before.clone();
    let off = ModuloOptions {
        exact: false,
        expand: true,
    };
    let stats = pipeline_loops(&mut heuristic, &MachineConfig::default(), off);
    assert_eq!(stats.pipelined[0].ii, 5, "{}", stats.pipelined[0]);
    // the rotating kernel: MinII leaves its predicate upkeep no slot
    let mut rotating = before.clone();
    let stats = pipeline_loops(&mut rotating, &MachineConfig::default(), EXACT);
    assert_eq!(stats.pipelined[0].ii, 5, "{}", stats.pipelined[0]);
}

const TIGHT_RECURRENCE: &str = include_str!("../../../../../tests/mir/modulo-exact-recurrence.mir");

/// A recurrence as long as the interval whose middle waits for loads (a hash that
/// rotates and folds in four words per iteration): the first operation of the
/// recurrence must wait for the loads too, which iterative modulo scheduling does
/// not see, and the exact search saw only after trying every placement of the
/// operations between, running out of tries; its longest paths see it at once.
#[test]
fn a_recurrence_fed_by_loads_reaches_min_ii() {
    let before = first_function(TIGHT_RECURRENCE);
    for expand in [false, true] {
        let mut after = before.clone();
        let options = ModuloOptions {
            exact: true,
            expand,
        };
        let stats = pipeline_loops(&mut after, &MachineConfig::default(), options);
        after.verify(Phase::Ssa).unwrap();
        assert_eq!(stats.pipelined.len(), 1, "{after}");
        let r = &stats.pipelined[0];
        assert_eq!((r.res_mii, r.rec_mii, r.ii), (5, 8, 8), "{r}");
        for n in [4u64, 5, 8, 12, 15, 16] {
            assert_eq!(run(&after, &[n]), run(&before, &[n]), "n = {n}\n{after}");
        }
    }
}
