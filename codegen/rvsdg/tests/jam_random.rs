//! Unroll-and-jam on random loop nests, against the interpreter. An outer do-while
//! loop counts `i` from a start by a step while `i + step <u bound`; its body runs an
//! inner do-while loop from a start computed from `i`, which updates `x` by one of two
//! random operations chosen by a bit of `x` (a branch), counts its iterations `c`,
//! and repeats while a masked `x` is not a target and `c` is below a cap (a
//! data-dependent trip count); the outer loop folds `c` and `x` into two
//! accumulators. The inner loop is pure (jammable), or also stores its result into a
//! stack slot after it (still jammable: the store is the outer loop's), or starts
//! from the previous iteration's `c` (carried by value), or from a word the previous
//! iteration stored (carried through memory), or loads a word in its body (jammable:
//! nothing in the outer loop writes memory), or loads in one arm of its branch from an
//! address that is outside memory on the other arm's paths (jammable: the lanes'
//! speculative loads give 0 there), or loads a word in its body that the outer loop
//! stores after it (not jammable: the next lane would read before the store);
//! or the outer loop divides by the bound after it (a trap when the bound is 0),
//! with the inner loop capped (it certainly ends: jammable) or not (it may never end:
//! a later iteration's inner loop must not run before the division).
//! Each program runs through the pipeline's RVSDG passes with every pass verified,
//! then is evaluated and sequentialized: results must be the original's. At least a
//! quarter of the programs must jam, and only the jammable kinds.
//!
//! `RANDOM_PROGRAMS=N` and `RANDOM_SEED=S` as in the other random tests.

mod common;

use std::fmt::Write;

use common::differential::*;
use common::random_cfg::{Rng, count_and_seed};
use vliw_ir::{DataValue, Type};
use vliw_rvsdg::Report;

/// What the inner loop reads besides `i`, and what the outer loop does with it.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Kind {
    /// Nothing: pure.
    Pure,
    /// The outer loop stores `c` into the slot after the inner loop.
    StoresAfter,
    /// The inner loop starts from the previous outer iteration's `c`.
    Carried,
    /// The inner loop starts from the word the previous outer iteration stored.
    CarriedInMemory,
    /// The inner loop loads a word of the slot in every iteration.
    Loads,
    /// One arm of the inner loop's branch loads the slot's word, through an address
    /// that is far outside memory on the paths of the other arm.
    LoadsInBranch,
    /// The inner loop loads the slot's word in every iteration, and the outer loop
    /// stores `c` there after it.
    LoadsStoresAfter,
    /// The outer loop divides by the bound after the inner loop (a trap when it is
    /// 0): the inner loop, capped, certainly ends.
    Divides,
    /// The same with an inner loop without its cap, which may never end: a later
    /// iteration's inner loop must not run before the division.
    DividesUncapped,
}

impl Kind {
    fn jammable(self) -> bool {
        matches!(
            self,
            Kind::Pure | Kind::StoresAfter | Kind::Divides | Kind::Loads | Kind::LoadsInBranch
        )
    }
}

const OPS: [&str; 5] = ["iadd", "bxor", "imul", "isub", "ushr"];

/// `@f(x0, bound, seed) -> (acc, sum)`.
fn program(rng: &mut Rng, kind: Kind) -> String {
    let t = Type::I64;
    let step = [1u64, 1, 2, 3][rng.below(4)];
    let (op1, op2) = (OPS[rng.below(5)], OPS[rng.below(4)]);
    let (k1, k2) = (1 + rng.below(7), 1 + rng.below(5));
    let bit = 1u64 << rng.below(3);
    let mask = [3u64, 7, 15][rng.below(3)];
    let target = rng.below(mask as usize + 1);
    let cap = 1 + rng.below(12);
    let mut p = String::new();
    let w = &mut p;
    writeln!(w, "function @f({t}, {t}, {t}) -> {t}, {t} export {{").unwrap();
    writeln!(w, "    ss0 = stack_slot 64, align 8").unwrap();
    writeln!(w, "block0(v0: {t}, v1: {t}, v2: {t}):").unwrap();
    writeln!(w, "    v3 = stack_addr ss0").unwrap();
    writeln!(w, "    store align 8 v2, v3").unwrap();
    writeln!(w, "    v4 = iconst.{t} 0").unwrap();
    writeln!(w, "    jump block1(v0, v4, v4, v4)").unwrap();
    // the outer loop: i, acc, sum, the previous c
    writeln!(w, "block1(v10: {t}, v11: {t}, v12: {t}, v13: {t}):").unwrap();
    writeln!(w, "    v14 = iconst.{t} {k1}\n    v15 = imul v10, v14").unwrap();
    let start = match kind {
        Kind::Carried => {
            writeln!(w, "    v16 = iadd v15, v13").unwrap();
            "v16"
        }
        Kind::CarriedInMemory => {
            writeln!(w, "    v17 = load.i64 align 8 v3\n    v16 = iadd v15, v17").unwrap();
            "v16"
        }
        _ => {
            writeln!(w, "    v16 = bxor v15, v2").unwrap();
            "v16"
        }
    };
    writeln!(w, "    v18 = iconst.{t} 0\n    jump block2({start}, v18)").unwrap();
    // the inner loop: x, c
    writeln!(w, "block2(v20: {t}, v21: {t}):").unwrap();
    writeln!(w, "    v22 = iconst.{t} {bit}\n    v23 = band v20, v22").unwrap();
    writeln!(w, "    v24 = iconst.{t} 0\n    v25 = icmp ne v23, v24").unwrap();
    writeln!(w, "    brif v25, block3, block4").unwrap();
    writeln!(w, "block3:").unwrap();
    writeln!(w, "    v26 = iconst.{t} {k1}\n    v27 = {op1} v20, v26").unwrap();
    if kind == Kind::LoadsInBranch {
        // offset 0 when the bit is set (this arm's paths), -bit * 2^32 otherwise
        writeln!(
            w,
            "    v70 = band v20, v22\n    v71 = isub v70, v22\n    v72 = iconst.{t} 4294967296\n    \
             v73 = imul v71, v72\n    v74 = ptradd v3, v73\n    v75 = load.i64 align 8 v74\n    \
             v76 = bxor v27, v75\n    jump block5(v76)"
        )
        .unwrap();
    } else {
        writeln!(w, "    jump block5(v27)").unwrap();
    }
    writeln!(w, "block4:").unwrap();
    writeln!(w, "    v28 = iconst.{t} {k2}\n    v29 = {op2} v20, v28").unwrap();
    writeln!(w, "    jump block5(v29)").unwrap();
    writeln!(w, "block5(v30: {t}):").unwrap();
    let x = if matches!(kind, Kind::Loads | Kind::LoadsStoresAfter) {
        writeln!(w, "    v31 = load.i64 align 8 v3\n    v32 = bxor v30, v31").unwrap();
        "v32"
    } else {
        "v30"
    };
    writeln!(w, "    v33 = iconst.{t} 1\n    v34 = iadd v21, v33").unwrap();
    writeln!(
        w,
        "    v35 = iconst.{t} {mask}\n    v36 = band {x}, v35\n    v37 = iconst.{t} {target}\n    \
         v38 = icmp ne v36, v37\n    v39 = iconst.{t} {cap}\n    v40 = icmp ult v34, v39"
    )
    .unwrap();
    if kind == Kind::DividesUncapped {
        writeln!(w, "    v41 = bor v38, v38").unwrap();
    } else {
        writeln!(w, "    v41 = band v38, v40").unwrap();
    }
    writeln!(w, "    brif v41, block2({x}, v34), block6").unwrap();
    writeln!(w, "block6:").unwrap();
    if matches!(
        kind,
        Kind::StoresAfter | Kind::CarriedInMemory | Kind::LoadsStoresAfter
    ) {
        writeln!(w, "    store align 8 v34, v3").unwrap();
    }
    writeln!(
        w,
        "    v50 = iconst.{t} 31\n    v51 = imul v11, v50\n    v57 = bxor v51, v34\n    \
         v53 = iadd v12, {x}"
    )
    .unwrap();
    if matches!(kind, Kind::Divides | Kind::DividesUncapped) {
        writeln!(w, "    v58 = udiv v57, v1\n    v52 = iadd v57, v58").unwrap();
    } else {
        writeln!(w, "    v52 = iadd v57, v4").unwrap();
    }
    writeln!(
        w,
        "    v54 = iconst.{t} {step}\n    v55 = iadd v10, v54\n    v56 = icmp ult v55, v1"
    )
    .unwrap();
    writeln!(w, "    brif v56, block1(v55, v52, v53, v34), block7").unwrap();
    writeln!(w, "block7:").unwrap();
    writeln!(w, "    v60 = load.i64 align 8 v3\n    v61 = iadd v53, v60").unwrap();
    writeln!(w, "    return v52, v61\n}}").unwrap();
    p
}

const STEPS: u64 = 200_000;

#[test]
fn random_loop_nests_jam_only_when_they_may_and_run_the_same() {
    let (count, seed) = count_and_seed(300);
    let mut tally = Tally::default();
    let mut jammed = 0;
    let mut programs_of: std::collections::BTreeMap<Kind, usize> = Default::default();
    let mut jammed_of: std::collections::BTreeMap<Kind, usize> = Default::default();
    for k in 0..count {
        let s = seed + k as u64;
        let mut rng = Rng(s.wrapping_mul(0x9e3779b97f4a7c15) | 1);
        let kind = [
            Kind::Pure,
            Kind::Pure,
            Kind::StoresAfter,
            Kind::Carried,
            Kind::CarriedInMemory,
            Kind::Loads,
            Kind::LoadsInBranch,
            Kind::LoadsStoresAfter,
            Kind::Divides,
            Kind::DividesUncapped,
        ][rng.below(10)];
        let text = program(&mut rng, kind);
        let module = parsed(&text);
        let mut report = Report::default();
        let (new, graph) =
            match common::passes::pipeline_sequentialized(&module, &mut report, &|_, _, _| false) {
                Ok(x) => x,
                Err(e) => {
                    tally.compile_error(s, &e, &text);
                    continue;
                }
            };
        *programs_of.entry(kind).or_insert(0) += 1;
        if report.get("jam.loops") > 0 {
            jammed += 1;
            *jammed_of.entry(kind).or_insert(0) += 1;
            if !kind.jammable() {
                tally
                    .failures
                    .push(format!("seed {s}: {kind:?} jammed\n{text}\n{graph}"));
                continue;
            }
        }
        for _ in 0..8 {
            let args: Vec<DataValue> = [
                rng.below(12) as u128,
                rng.below(40) as u128,
                rng.next() as u128,
            ]
            .iter()
            .map(|&v| DataValue::from_bits(Type::I64, v))
            .collect();
            let what = format!("seed {s} ({kind:?}), @f({args:?})");
            tally.check(&module, &graph, &new, &text, "f", &args, STEPS, &what);
        }
    }
    println!(
        "{count} programs, {jammed} jammed, {} runs compared",
        tally.runs
    );
    tally.assert_passed();
    assert!(jammed >= count / 4, "only {jammed} of {count} jammed");
    // every jammable kind jams (most programs of it, their outer loop unrollable)
    for (kind, &n) in &programs_of {
        let j = jammed_of.get(kind).copied().unwrap_or(0);
        println!("{kind:?}: {j} of {n} jammed");
        assert!(
            !kind.jammable() || n < 10 || j > 0,
            "no {kind:?} program of {n} jammed"
        );
    }
}
