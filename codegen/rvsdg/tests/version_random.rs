//! Loop versioning for bounds checks on random loops, against the interpreter: a
//! counted loop from `start` by a step of 1 or 2 while `i + step <u n` reads a slot
//! of 16 words at one or two indices `s·i + c1·t1 + c2·t2 + d` (scale 0 to 3,
//! displacement -6 to 6, invariant terms of coefficient -1 to 2), each checked
//! against a length of at most 16 (a failing check traps, as a slice index panics).
//! Starts, ends, lengths and terms are parameters or constants, small or near the
//! wrap points, so that the indices run below zero, past the length and around
//! 2^64. Each program is built, optimized by the pipeline's RVSDG passes (versioning
//! among them), verified after every pass, evaluated and sequentialized: results and
//! traps must be the original's, and the versioned copies must have lost checks.
//!
//! `RANDOM_PROGRAMS=N` and `RANDOM_SEED=S` as in the other random tests.

mod common;

use std::fmt::Write;

use common::differential::*;
use common::random_cfg::{Rng, count_and_seed};
use vliw_ir::{DataValue, Module, Type};
use vliw_rvsdg::{Report, Rvsdg};

/// One checked index `s·i + c1·t1 + c2·t2 + d`.
struct Index {
    scale: i64,
    c1: i64,
    c2: i64,
    disp: i64,
}

struct Shape {
    step: i64,
    /// Constants in the IR, or the parameters.
    start: Option<i64>,
    end: Option<i64>,
    len: Option<i64>,
    indices: Vec<Index>,
}

/// Mostly `below`, sometimes negative or near the signed extremes.
fn small_or_wrapping(rng: &mut Rng, below: usize) -> i64 {
    match rng.below(10) {
        0 => -(rng.below(8) as i64),
        1 => i64::MAX - rng.below(4) as i64,
        2 => i64::MIN + rng.below(4) as i64,
        _ => rng.below(below) as i64,
    }
}

fn shape(rng: &mut Rng) -> Shape {
    let index = |rng: &mut Rng| Index {
        scale: rng.below(4) as i64,
        c1: [0, 1, -1, 2][rng.below(4)],
        c2: [0, 0, 1, -1][rng.below(4)],
        disp: rng.below(13) as i64 - 6,
    };
    let count = 1 + rng.below(2);
    Shape {
        step: 1 + rng.below(2) as i64,
        start: rng.chance(30).then(|| rng.below(6) as i64),
        end: rng.chance(25).then(|| rng.below(14) as i64),
        len: rng.chance(25).then(|| rng.below(17) as i64),
        indices: (0..count).map(|_| index(rng)).collect(),
    }
}

/// `@f(start, n, len, t1, t2) -> i64`: the loop of `s` as SSA IR text; the slot's
/// word `k` is `7k + 1`, and the result sums the words read.
fn program(s: &Shape) -> String {
    let mut p = String::new();
    let w = &mut p;
    writeln!(w, "function @fail() {{\nblock0:\n    trap 9\n}}\n").unwrap();
    writeln!(w, "function @f(i64, i64, i64, i64, i64) -> i64 export {{").unwrap();
    writeln!(w, "    ss0 = stack_slot 128, align 8\n    fn0 = @fail()").unwrap();
    writeln!(w, "block0(v0: i64, v1: i64, v2: i64, v3: i64, v4: i64):").unwrap();
    writeln!(w, "    v5 = stack_addr ss0").unwrap();
    for k in 0..16 {
        writeln!(w, "    v{} = iconst.i64 {}", 100 + k, 7 * k + 1).unwrap();
        writeln!(w, "    store v{}, v5+{}", 100 + k, 8 * k).unwrap();
    }
    let start = match s.start {
        Some(c) => {
            writeln!(w, "    v6 = iconst.i64 {c}").unwrap();
            "v6"
        }
        None => "v0",
    };
    let end = match s.end {
        Some(c) => {
            writeln!(w, "    v7 = iconst.i64 {c}").unwrap();
            "v7"
        }
        None => "v1",
    };
    // a length of at most 16: the words of the slot
    let len = match s.len {
        Some(c) => {
            writeln!(w, "    v8 = iconst.i64 {c}").unwrap();
            "v8"
        }
        None => {
            writeln!(
                w,
                "    v9 = iconst.i64 16\n    v10 = icmp ult v2, v9\n    v8 = select v10, v2, v9"
            )
            .unwrap();
            "v8"
        }
    };
    writeln!(w, "    v11 = iconst.i64 0\n    jump block1({start}, v11)").unwrap();
    writeln!(w, "block1(v20: i64, v21: i64):").unwrap();
    let mut acc = "v21".to_string();
    let mut block = 2;
    for (k, x) in s.indices.iter().enumerate() {
        let v = 200 + 20 * k;
        writeln!(w, "    v{v} = iconst.i64 {}", x.scale).unwrap();
        writeln!(w, "    v{} = imul v20, v{v}", v + 1).unwrap();
        writeln!(w, "    v{} = iconst.i64 {}", v + 2, x.c1).unwrap();
        writeln!(w, "    v{} = imul v3, v{}", v + 3, v + 2).unwrap();
        writeln!(w, "    v{} = iconst.i64 {}", v + 4, x.c2).unwrap();
        writeln!(w, "    v{} = imul v4, v{}", v + 5, v + 4).unwrap();
        writeln!(w, "    v{} = iadd v{}, v{}", v + 6, v + 1, v + 3).unwrap();
        writeln!(w, "    v{} = iadd v{}, v{}", v + 7, v + 6, v + 5).unwrap();
        writeln!(w, "    v{} = iconst.i64 {}", v + 8, x.disp).unwrap();
        writeln!(w, "    v{} = iadd v{}, v{}", v + 9, v + 7, v + 8).unwrap();
        writeln!(w, "    v{} = icmp ult v{}, {len}", v + 10, v + 9).unwrap();
        writeln!(
            w,
            "    brif v{}, block{}, block{}",
            v + 10,
            block + 1,
            block
        )
        .unwrap();
        writeln!(w, "block{block}:\n    call fn0()\n    unreachable").unwrap();
        writeln!(w, "block{}:", block + 1).unwrap();
        writeln!(w, "    v{} = iconst.i64 3", v + 11).unwrap();
        writeln!(w, "    v{} = ishl v{}, v{}", v + 12, v + 9, v + 11).unwrap();
        writeln!(w, "    v{} = ptradd v5, v{}", v + 13, v + 12).unwrap();
        writeln!(w, "    v{} = load.i64 v{}", v + 14, v + 13).unwrap();
        writeln!(w, "    v{} = iadd {acc}, v{}", v + 15, v + 14).unwrap();
        acc = format!("v{}", v + 15);
        block += 2;
    }
    writeln!(w, "    v30 = iconst.i64 {}", s.step).unwrap();
    writeln!(w, "    v31 = iadd v20, v30").unwrap();
    writeln!(w, "    v32 = icmp ult v31, {end}").unwrap();
    writeln!(w, "    brif v32, block1(v31, {acc}), block{block}").unwrap();
    writeln!(w, "block{block}:\n    return {acc}\n}}").unwrap();
    p
}

/// Built, through the pipeline's RVSDG passes, and sequentialized.
fn optimized(module: &Module, report: &mut Report) -> Result<(Module, Rvsdg), String> {
    common::passes::pipeline_sequentialized(module, report, &|_, _, _| false)
}

const STEPS: u64 = 100_000;

#[test]
fn random_bounds_checked_loops_version_and_run_the_same() {
    let (count, seed) = count_and_seed(300);
    let mut tally = Tally::default();
    let mut report = Report::default();
    let mut traps = 0;
    for k in 0..count {
        let s = seed + k as u64;
        let mut rng = Rng(s.wrapping_mul(0x9e3779b97f4a7c15) | 1);
        let shape = shape(&mut rng);
        let text = program(&shape);
        let module = parsed(&text);
        let (new, graph) = match optimized(&module, &mut report) {
            Ok(x) => x,
            Err(e) => {
                tally.compile_error(s, &e, &text);
                continue;
            }
        };
        for _ in 0..16 {
            // start, end, length (16 and more: the whole slot), terms
            let args: Vec<DataValue> = [4, 12, 24, 6, 6]
                .iter()
                .map(|&below| small_or_wrapping(&mut rng, below))
                .map(|v| DataValue::from_bits(Type::I64, v as u64 as u128))
                .collect();
            let what = format!("seed {s}, @f({args:?})");
            if let Some(a) = tally.check(&module, &graph, &new, &text, "f", &args, STEPS, &what) {
                traps += usize::from(a.result.is_err());
            }
        }
    }
    println!(
        "{count} loops, {} runs compared ({traps} trapping), {} too long; {:?}",
        tally.runs,
        tally.too_long,
        report
            .counters()
            .iter()
            .filter(|c| c.0.starts_with("version."))
            .collect::<Vec<_>>()
    );
    tally.assert_passed();
    let runs = tally.runs;
    assert!(
        report.get("version.range-checks") as usize >= count / 4,
        "only {} bounds checks removed",
        report.get("version.range-checks")
    );
    assert!(
        traps > runs / 10 && traps < runs * 9 / 10,
        "{traps} of {runs} runs trap"
    );
}
