//! Loop-variable ranges on random loops, against the interpreter. A loop variable `j`
//! starts at a constant or at a masked parameter and steps by a random constant up or
//! down, under a random unsigned compare of `j` with a constant (`j > 0`, `j < 9`),
//! while a hashed sum stays below a random bound; in the arm where the compare holds
//! it checks `j ± d <u b`, and after the loop `j <u b'`, each a trap when it fails
//! (a bounds check), with random `d`, `b` and `b'` (many provable, many not). The
//! folded program must trap exactly where the original does, with the same trap, and
//! give the same results. Some checks must fold away, so that the ranges are used.
//!
//! `RANDOM_PROGRAMS=N` and `RANDOM_SEED=S` as in the other random tests.

mod common;

use std::fmt::Write;

use common::differential::*;
use common::random_cfg::{Rng, count_and_seed};
use vliw_ir::{DataValue, Type};
use vliw_rvsdg::Report;

/// `@f(x, n) -> i64` and how many checks it has.
fn program(rng: &mut Rng) -> String {
    let t = Type::I64;
    let mut p = String::new();
    let w = &mut p;
    let start_param = rng.below(3) == 0;
    let start = rng.below(10);
    let down = rng.below(2) == 0;
    let step = 1 + rng.below(2);
    // the compare guarding the step: j > k (down) or j < k (up), sometimes >=/<=
    let k = rng.below(4) as u64 + if down { 0 } else { 6 };
    let cc = match (down, rng.below(2)) {
        (true, 0) => "ugt",
        (true, _) => "uge",
        (false, 0) => "ult",
        (false, _) => "ule",
    };
    let d = rng.below(3) as i64 * if rng.below(2) == 0 { -1 } else { 1 };
    let bound = 1 + rng.below(12);
    let after = 1 + rng.below(12);
    let limit = 50 + rng.below(2000);
    writeln!(w, "function @f({t}, {t}) -> {t} export {{").unwrap();
    writeln!(w, "block0(v0: {t}, v1: {t}):").unwrap();
    if start_param {
        writeln!(
            w,
            "    v2 = iconst.{t} {}\n    v3 = band v0, v2",
            [3, 7, 15][rng.below(3)]
        )
        .unwrap();
    } else {
        writeln!(w, "    v3 = iconst.{t} {start}").unwrap();
    }
    writeln!(w, "    v4 = iconst.{t} 0\n    jump block1(v3, v4)").unwrap();
    writeln!(w, "block1(v10: {t}, v11: {t}):").unwrap();
    writeln!(w, "    v12 = iconst.{t} {k}\n    v13 = icmp {cc} v10, v12").unwrap();
    writeln!(w, "    brif v13, block2, block5(v11, v10)").unwrap();
    writeln!(w, "block2:").unwrap();
    writeln!(w, "    v14 = iconst.{t} {d}\n    v15 = iadd v10, v14").unwrap();
    writeln!(
        w,
        "    v16 = iconst.{t} {bound}\n    v17 = icmp ult v15, v16"
    )
    .unwrap();
    writeln!(w, "    brif v17, block3, block4").unwrap();
    writeln!(w, "block4:\n    trap 1").unwrap();
    writeln!(w, "block3:").unwrap();
    let op = if down { "isub" } else { "iadd" };
    writeln!(w, "    v18 = iconst.{t} {step}\n    v19 = {op} v10, v18").unwrap();
    writeln!(
        w,
        "    v20 = iconst.{t} 7\n    v21 = imul v11, v20\n    v22 = iadd v21, v15\n    \
         v23 = bxor v22, v1\n    v24 = iconst.{t} {limit}\n    v25 = icmp ult v23, v24"
    )
    .unwrap();
    writeln!(w, "    brif v25, block1(v19, v23), block5(v23, v19)").unwrap();
    writeln!(w, "block5(v30: {t}, v31: {t}):").unwrap();
    writeln!(
        w,
        "    v32 = iconst.{t} {after}\n    v33 = icmp ult v31, v32"
    )
    .unwrap();
    writeln!(w, "    brif v33, block6, block7").unwrap();
    writeln!(w, "block7:\n    trap 2").unwrap();
    writeln!(w, "block6:\n    v34 = iadd v30, v31\n    return v34\n}}").unwrap();
    p
}

#[test]
fn random_loop_variable_ranges_fold_only_checks_that_hold() {
    let (count, seed) = count_and_seed(400);
    let mut tally = Tally::default();
    let (mut traps, mut folded) = (0, 0u64);
    for k in 0..count {
        let s = seed + k as u64;
        let mut rng = Rng(s.wrapping_mul(0x9e3779b97f4a7c15) | 1);
        let text = program(&mut rng);
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
        folded += report.get("fold.decided-by-range");
        for _ in 0..8 {
            let args: Vec<DataValue> = [rng.below(64) as u128, rng.below(4000) as u128]
                .iter()
                .map(|&v| DataValue::from_bits(Type::I64, v))
                .collect();
            let what = format!("seed {s}, @f({args:?})");
            if let Some(a) = tally.check(&module, &graph, &new, &text, "f", &args, 100_000, &what) {
                traps += usize::from(a.result.is_err());
            }
        }
    }
    let runs = tally.runs;
    println!("{count} programs, {runs} runs compared ({traps} trapped), {folded} checks folded");
    tally.assert_passed();
    assert!(
        traps > 0 && traps < runs,
        "the checks must sometimes fail, sometimes hold"
    );
    assert!(folded >= count as u64 / 4, "only {folded} checks folded");
}
