//! Liveness on random CFGs (reducible, irreducible, arbitrary) with random strict-SSA
//! programs: the two-pass live sets equal iterative data flow, the liveness check
//! agrees with the sets for every (variable, block), and keeps agreeing after the code
//! is edited without recomputing its CFG-only data.

mod common;

use common::{Rng, Shape, edit_program, random_cfg, random_program};
use proptest::prelude::*;
use vliw_ssa::cfg::Cfg;
use vliw_ssa::dataflow::DataflowLiveness;
use vliw_ssa::dominators::DomTree;
use vliw_ssa::livecheck::LivenessChecker;
use vliw_ssa::liveness::LiveSets;
use vliw_ssa::loops::LoopForest;
use vliw_ssa::program::{ExplicitProgram, Var};

fn shapes() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Reducible),
        Just(Shape::Irreducible),
        Just(Shape::Arbitrary)
    ]
}

fn assert_sets_equal(cfg: &Cfg, got: &LiveSets, want: &LiveSets) -> Result<(), TestCaseError> {
    for b in cfg.blocks() {
        prop_assert_eq!(got.live_in(b), want.live_in(b), "live-in of {:?}", b);
        prop_assert_eq!(got.live_out(b), want.live_out(b), "live-out of {:?}", b);
    }
    Ok(())
}

fn assert_check_agrees(
    cfg: &Cfg,
    check: &LivenessChecker,
    program: &ExplicitProgram,
    sets: &LiveSets,
) -> Result<(), TestCaseError> {
    for (v, sites) in program.sites().into_iter().enumerate() {
        let def = sites.def.expect("every variable is defined");
        for b in cfg.blocks() {
            let v = Var::new(v);
            prop_assert_eq!(
                check.is_live_in(def, sites.uses.iter().copied(), b),
                sets.is_live_in(b, v),
                "{:?} (def {:?}, uses {:?}) live-in at {:?}",
                v,
                def,
                sites.uses,
                b
            );
            prop_assert_eq!(
                check.is_live_out(def, sites.uses.iter().copied(), b),
                sets.is_live_out(b, v),
                "{:?} (def {:?}, uses {:?}) live-out at {:?}",
                v,
                def,
                sites.uses,
                b
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn two_pass_sets_equal_data_flow_and_the_check_agrees(
        shape in shapes(), n in 1usize..24, vars in 0usize..24, seed: u64,
    ) {
        let mut rng = Rng::new(seed);
        let cfg = random_cfg(shape, n, &mut rng);
        let dom = DomTree::compute(&cfg);
        let generated = random_program(&cfg, &dom, vars, &mut rng);
        let program = &generated.program;
        prop_assert_eq!(program.check_strict_ssa(&cfg, &dom), Ok(()));

        let loops = LoopForest::compute(&cfg);
        let two_pass = LiveSets::compute(&cfg, &loops, program);
        let reference = DataflowLiveness::compute(&cfg, program);
        assert_sets_equal(&cfg, &two_pass, &reference.sets)?;

        let check = LivenessChecker::new(&cfg);
        assert_check_agrees(&cfg, &check, program, &two_pass)?;
    }

    #[test]
    fn the_check_stays_valid_while_code_is_edited(
        shape in shapes(), n in 1usize..16, vars in 0usize..16, edits in 1usize..12, seed: u64,
    ) {
        let mut rng = Rng::new(seed);
        let cfg = random_cfg(shape, n, &mut rng);
        let dom = DomTree::compute(&cfg);
        let mut generated = random_program(&cfg, &dom, vars, &mut rng);
        // Precomputed once, on the CFG only.
        let check = LivenessChecker::new(&cfg);
        for _round in 0..3 {
            edit_program(&mut generated, &cfg, &dom, edits, &mut rng);
            let program = &generated.program;
            prop_assert_eq!(program.check_strict_ssa(&cfg, &dom), Ok(()));
            let reference = DataflowLiveness::compute(&cfg, program);
            assert_check_agrees(&cfg, &check, program, &reference.sets)?;
            let two_pass = LiveSets::compute(&cfg, check.loops(), program);
            assert_sets_equal(&cfg, &two_pass, &reference.sets)?;
        }
    }
}
