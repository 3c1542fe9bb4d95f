//! Loop preparation (`rvsdg-loop-prep`): what loop versioning (`version.rs`) needs to
//! see in a loop that indexes containers held in memory, done before it.
//!
//! A loop over a `Vec` that outlives it reads the vector's pointer and length from
//! its stack slot in every iteration, its bounds checks' failing arms panic or, with
//! unwinding, run the landing pads that drop what is live and resume unwinding, and a
//! value it accumulates may live in a stack cell. Versioning wants the lengths and
//! bases as invariant loop variables and the index as an affine form of the
//! counter. `rvsdg-promote`, just before, has made the accumulator a loop variable
//! and left the loop's memory chain with loads and checks; three rewrites, in order,
//! get the rest:
//!
//! 0. **Overflow checks a guard excludes** (`guards.rs`): `i + 1` after a test
//!    `i < n` cannot overflow; `rvsdg-fold` knows this, but a range's bounds that
//!    lived in a stack slot become values only in `rvsdg-promote`, so the λs where
//!    such a check is now visible are folded again, and the check's γ, whose arm is
//!    then known, gives way to it: the loop loses its call.
//! 1. **Hoisting out of checks** (`gamma.rs`, [`hoist_from_completing_arms`]): the
//!    pure computations of a check's passing arm (restructuring puts the rest of the
//!    iteration there: the counter's increment, an accumulator's update) move
//!    before it when every arm that completes computes them, so that the loop's
//!    exit test reads the increment directly (a counted loop, for versioning and
//!    unrolling).
//! 2. **Invariant values through checks** (`ivr.rs`,
//!    [`invariant_value_redirection_through_checks`]): a value that every arm of a
//!    check that completes passes through is read from before the check, so the
//!    counter and the bases that the restructured loop threads through its checks
//!    are the loop's variables again.
//! 3. **Invariant loads** (`licm.rs` with loads): a load of an invariant address
//!    whose memory chain through the body holds loads and checks that give memory
//!    back unchanged whenever they complete (`completion.rs`) moves before the loop,
//!    when it cannot fault (a stack slot in bounds, a `noalias` parameter that does
//!    not escape) or nothing before it can be seen.
//!
//! Counters: `loop-prep.overflow-checks`, `loop-prep.hoisted-from-checks`, `loop-prep.redirected` (values read
//! from before a check), `loop-prep.hoisted` and `loop-prep.hoisted-loads`.

use super::gamma::hoist_from_completing_arms;
use super::guards::fold_excluded_overflows;
use super::ivr::invariant_value_redirection_through_checks;
use super::licm::loop_invariant_code_motion_with_loads;
use crate::ops::Rvsdg;
use crate::report::Report;

/// Prepares the loops of `g` for versioning (module documentation).
pub fn prepare_loops(g: &mut Rvsdg, report: &mut Report) {
    let mut inner = Report::default();
    report.count("loop-prep.overflow-checks", fold_excluded_overflows(g));
    hoist_from_completing_arms(g, &mut inner);
    invariant_value_redirection_through_checks(g, &mut inner);
    loop_invariant_code_motion_with_loads(g, &mut inner);
    report.count(
        "loop-prep.hoisted-from-checks",
        inner.get("gamma.hoisted-completing"),
    );
    report.count("loop-prep.redirected", inner.get("ivr.through-checks"));
    report.count("loop-prep.hoisted", inner.get("licm.hoisted"));
    report.count("loop-prep.hoisted-loads", inner.get("licm.hoisted-loads"));
}
