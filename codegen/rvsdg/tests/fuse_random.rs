//! Loop fusion on random pairs of sibling loops, against the interpreter. Two
//! do-while loops count `i` from a start by a step while `i + step <u bound`, each
//! folding a random operation of `i` (and of a word it loads from a stack slot of
//! eight, at `i & 7`) into an accumulator. The second loop is the first's twin (the
//! same start, step and bound: fusable) or differs in one of them, or starts from the
//! first's result, or the first stores into the slot the second reads; either may be
//! behind a test of the bound (a γ each, on the same compare). Each program is built,
//! run through the pipeline's RVSDG passes with every pass verified, then evaluated
//! and sequentialized: results must be the original's. At least a quarter of the
//! programs must fuse, and every fusion must be of a twin.
//!
//! `RANDOM_PROGRAMS=N` and `RANDOM_SEED=S` as in the other random tests.

mod common;

use std::fmt::Write;

use common::differential::*;
use common::random_cfg::{Rng, count_and_seed};
use vliw_ir::{DataValue, Type};
use vliw_rvsdg::Report;

/// How the second loop relates to the first.
#[derive(Copy, Clone, PartialEq, Debug)]
enum Twin {
    /// The same start, step and bound.
    Same,
    /// Another step.
    Step,
    /// The bound plus one.
    Bound,
    /// Its accumulator starts from the first's result.
    Dependent,
    /// The first loop stores its accumulator into the slot.
    Stores,
}

const OPS: [&str; 5] = ["iadd", "bxor", "imul", "isub", "bor"];

/// `@f(x0, bound, seed) -> (acc1, acc2)`.
fn program(rng: &mut Rng, twin: Twin, guarded: bool) -> String {
    let t = Type::I64;
    let step = [1u64, 1, 2, 3][rng.below(4)];
    let step2 = if twin == Twin::Step { step + 1 } else { step };
    let (op1, op2) = (OPS[rng.below(5)], OPS[rng.below(5)]);
    let mut p = String::new();
    let w = &mut p;
    writeln!(w, "function @f({t}, {t}, {t}) -> {t}, {t} export {{").unwrap();
    writeln!(w, "    ss0 = stack_slot 64, align 8").unwrap();
    writeln!(w, "block0(v0: {t}, v1: {t}, v2: {t}):").unwrap();
    writeln!(w, "    v3 = stack_addr ss0").unwrap();
    for k in 0..8 {
        writeln!(
            w,
            "    v{a} = iconst.i64 {k}\n    v{b} = imul v2, v{a}\n    store align 8 v{b}, v3+{o}",
            a = 100 + 2 * k,
            b = 101 + 2 * k,
            o = 8 * k
        )
        .unwrap();
    }
    writeln!(w, "    v4 = iconst.{t} 0").unwrap();
    writeln!(w, "    v5 = icmp eq v1, v4").unwrap();
    // the second bound
    let bound2 = if twin == Twin::Bound {
        writeln!(w, "    v6 = iconst.{t} 1\n    v7 = iadd v1, v6").unwrap();
        "v7"
    } else {
        "v1"
    };
    if guarded {
        writeln!(w, "    brif v5, block5(v4), block6").unwrap();
        writeln!(w, "block6:").unwrap();
    }
    writeln!(w, "    jump block1(v0, v4)").unwrap();
    // the first loop
    writeln!(w, "block1(v10: {t}, v11: {t}):").unwrap();
    word_at(w, 10, 12);
    writeln!(w, "    v18 = {op1} v11, v10\n    v19 = bxor v18, v17").unwrap();
    if twin == Twin::Stores {
        writeln!(w, "    store align 8 v19, v16").unwrap();
    }
    writeln!(
        w,
        "    v20 = iconst.{t} {step}\n    v21 = iadd v10, v20\n    v22 = icmp ult v21, v1"
    )
    .unwrap();
    let exit1 = if guarded { "block5(v19)" } else { "block2" };
    writeln!(w, "    brif v22, block1(v21, v19), {exit1}").unwrap();
    let acc1 = if guarded {
        writeln!(w, "block5(v30: {t}):").unwrap();
        writeln!(w, "    v31 = icmp eq v1, v4").unwrap();
        writeln!(w, "    brif v31, block4(v30, v4), block2").unwrap();
        "v30"
    } else {
        "v19"
    };
    writeln!(w, "block2:").unwrap();
    let init2 = if twin == Twin::Dependent { acc1 } else { "v4" };
    writeln!(w, "    jump block3(v0, {init2})").unwrap();
    // the second loop
    writeln!(w, "block3(v40: {t}, v41: {t}):").unwrap();
    word_at(w, 40, 42);
    writeln!(w, "    v48 = {op2} v41, v47\n    v49 = imul v48, v40").unwrap();
    writeln!(
        w,
        "    v50 = iconst.{t} {step2}\n    v51 = iadd v40, v50\n    v52 = icmp ult v51, {bound2}"
    )
    .unwrap();
    writeln!(w, "    brif v52, block3(v51, v49), block4({acc1}, v49)").unwrap();
    writeln!(w, "block4(v60: {t}, v61: {t}):").unwrap();
    writeln!(w, "    return v60, v61\n}}").unwrap();
    p
}

/// The slot's word `i & 7` (`i` is `v{i}`), loaded: values `v{first}` to
/// `v{first + 5}`, the address `v{first + 4}` and the word `v{first + 5}`.
fn word_at(w: &mut String, i: usize, first: usize) {
    let v = |k: usize| first + k;
    writeln!(
        w,
        "    v{} = iconst.i64 7\n    v{} = band v{i}, v{}\n    v{} = iconst.i64 3\n    \
         v{} = ishl v{}, v{}\n    v{} = ptradd v3, v{}\n    v{} = load.i64 align 8 v{}",
        v(0),
        v(1),
        v(0),
        v(2),
        v(3),
        v(1),
        v(2),
        v(4),
        v(3),
        v(5),
        v(4)
    )
    .unwrap();
}

const STEPS: u64 = 200_000;

#[test]
fn random_sibling_loops_fuse_only_when_they_may_and_run_the_same() {
    let (count, seed) = count_and_seed(300);
    let mut tally = Tally::default();
    let (mut fused, mut twins) = (0, 0);
    for k in 0..count {
        let s = seed + k as u64;
        let mut rng = Rng(s.wrapping_mul(0x9e3779b97f4a7c15) | 1);
        let twin = [
            Twin::Same,
            Twin::Same,
            Twin::Same,
            Twin::Step,
            Twin::Bound,
            Twin::Dependent,
            Twin::Stores,
        ][rng.below(7)];
        let guarded = rng.chance(50);
        let text = program(&mut rng, twin, guarded);
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
        twins += usize::from(twin == Twin::Same);
        if report.get("fuse.loops") > 0 {
            fused += 1;
            if twin != Twin::Same {
                tally
                    .failures
                    .push(format!("seed {s}: {twin:?} fused\n{text}\n{graph}"));
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
            let what = format!("seed {s} ({twin:?}, guarded {guarded}), @f({args:?})");
            tally.check(&module, &graph, &new, &text, "f", &args, STEPS, &what);
        }
    }
    println!(
        "{count} programs ({twins} twins), {fused} fused, {} runs compared",
        tally.runs
    );
    tally.assert_passed();
    assert!(fused >= count / 4, "only {fused} of {count} fused");
}
