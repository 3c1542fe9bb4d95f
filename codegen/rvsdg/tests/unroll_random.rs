//! Loop unrolling on random counted loops, against the interpreter: do-while loops
//! over `i8` to `i64` that count an induction variable by a random step while it is
//! below a bound (`ult`, `slt`, swapped, negated, and shapes that must not unroll:
//! `ule`, `sle`) or while it differs from it (`ne`, swapped, or `eq` negated: the
//! unroller's `counted_until`, whose trip count may be infinite), from starts and to
//! bounds near the wrap points (0, the unsigned and signed extremes, multiples of the
//! step around them), as parameters or
//! constants, with bodies that mix the variable into an accumulator, through a stack
//! slot, a branch or a call of `@trace` (whose order the comparison sees). Each is
//! built, optimized by the pipeline's RVSDG passes with a random unrolling factor and
//! budget, verified after every pass, then evaluated and sequentialized: results and
//! output must be the original's.
//!
//! `RANDOM_PROGRAMS=N` and `RANDOM_SEED=S` as in the other random tests.

mod common;

use std::fmt::Write;

use common::differential::*;
use common::random_cfg::{Rng, count_and_seed};
use vliw_ir::{DataValue, Module, Type};
use vliw_rvsdg::opt::UnrollOptions;
use vliw_rvsdg::{Report, Rvsdg};

/// What a random loop looks like.
struct Shape {
    ty: Type,
    /// The loop test, as the IR writes it: condition, whether `next` is its second
    /// operand, whether the branch leaves when it holds.
    cond: &'static str,
    swapped: bool,
    negated: bool,
    step: u128,
    /// Start and bound: constants in the IR, or the parameters.
    x0: Option<u128>,
    bound: Option<u128>,
    memory: bool,
    branch: bool,
    trace: bool,
}

/// The values of `ty` where wrapping happens, and around them.
fn interesting(rng: &mut Rng, ty: Type, step: u128) -> u128 {
    let mask = ty.mask();
    let smax = mask >> 1;
    let base = match rng.below(8) {
        0 => 0,
        1 => mask,
        2 => smax,
        3 => smax + 1,
        4 => rng.below(20) as u128,
        5 => step.wrapping_mul(rng.below(12) as u128),
        6 => rng.next() as u128,
        _ => mask.wrapping_sub(step.wrapping_mul(rng.below(12) as u128)),
    };
    let delta = rng.below(7) as u128;
    (if rng.chance(50) {
        base.wrapping_add(delta)
    } else {
        base.wrapping_sub(delta)
    }) & mask
}

fn shape(rng: &mut Rng) -> Shape {
    let ty = [Type::I8, Type::I16, Type::I32, Type::I64][rng.below(4)];
    let mask = ty.mask();
    // (condition, swapped, negated): repeat iff next < bound, in its forms, and some
    // shapes that are not counted
    let (cond, swapped, negated) = [
        ("ult", false, false),
        ("ugt", true, false),
        ("uge", false, true),
        ("ule", true, true),
        ("slt", false, false),
        ("sgt", true, false),
        ("sge", false, true),
        ("sle", true, true),
        ("ule", false, false),
        ("ne", false, false),
        ("sle", false, false),
        ("ne", true, false),
        ("eq", false, true),
    ][rng.below(13)];
    let step = match rng.below(10) {
        0..=3 => 1,
        4 => 2,
        5 => 3,
        6 => rng.below(16) as u128 + 1,
        7 => (mask >> 1) / (rng.below(8) as u128 + 2),
        8 => mask >> 1,
        _ => rng.next() as u128 & mask,
    };
    let x0 = rng.chance(25).then(|| interesting(rng, ty, step));
    let bound = rng.chance(30).then(|| interesting(rng, ty, step));
    Shape {
        ty,
        cond,
        swapped,
        negated,
        step,
        x0,
        bound,
        memory: rng.chance(30),
        branch: rng.chance(30),
        trace: rng.chance(15),
    }
}

/// `@f(x0, b, seed) -> (acc, i)`: the loop of `s` as SSA IR text.
fn program(s: &Shape) -> String {
    let t = s.ty;
    let mut p = String::new();
    let w = &mut p;
    if s.trace {
        writeln!(w, "declare function @trace(i32)\n").unwrap();
    }
    writeln!(w, "function @f({t}, {t}, {t}) -> {t}, {t} export {{").unwrap();
    if s.memory {
        writeln!(w, "    ss0 = stack_slot 8, align 8").unwrap();
    }
    if s.trace {
        writeln!(w, "    fn0 = @trace(i32)").unwrap();
    }
    writeln!(w, "block0(v0: {t}, v1: {t}, v2: {t}):").unwrap();
    if s.memory {
        writeln!(w, "    v3 = stack_addr ss0\n    store v2, v3").unwrap();
    }
    let x0 = match s.x0 {
        Some(c) => {
            writeln!(w, "    v4 = iconst.{t} {c}").unwrap();
            "v4"
        }
        None => "v0",
    };
    let b = match s.bound {
        Some(c) => {
            writeln!(w, "    v5 = iconst.{t} {c}").unwrap();
            "v5"
        }
        None => "v1",
    };
    writeln!(w, "    jump block1({x0}, v2)").unwrap();
    // the body: acc = (acc * 3) ^ i, the slot's value added and replaced, a branch
    writeln!(w, "block1(v10: {t}, v11: {t}):").unwrap();
    writeln!(
        w,
        "    v12 = iconst.{t} 3\n    v13 = imul v11, v12\n    v14 = bxor v13, v10"
    )
    .unwrap();
    let mut acc = "v14";
    if s.memory {
        writeln!(
            w,
            "    v15 = stack_addr ss0\n    v16 = load.{t} v15\n    v17 = iadd v14, v16\n    \
             v18 = isub v16, v10\n    store v18, v15"
        )
        .unwrap();
        acc = "v17";
    }
    if s.trace {
        let ext = if t == Type::I64 {
            "ireduce.i32"
        } else if t == Type::I32 {
            ""
        } else {
            "uextend.i32"
        };
        if ext.is_empty() {
            writeln!(w, "    call fn0(v10)").unwrap();
        } else {
            writeln!(w, "    v19 = {ext} v10\n    call fn0(v19)").unwrap();
        }
    }
    if s.branch {
        writeln!(
            w,
            "    v20 = iconst.{t} 1\n    v21 = band v10, v20\n    v22 = icmp eq v21, v20\n    \
             brif v22, block2, block3\nblock2:\n    v23 = iadd {acc}, v10\n    jump block4(v23)\n\
             block3:\n    v24 = iconst.{t} 5\n    v25 = isub {acc}, v24\n    jump block4(v25)\n\
             block4(v26: {t}):"
        )
        .unwrap();
        acc = "v26";
    }
    writeln!(w, "    v30 = iconst.{t} {}", s.step).unwrap();
    writeln!(w, "    v31 = iadd v10, v30").unwrap();
    let (l, r) = if s.swapped { (b, "v31") } else { ("v31", b) };
    writeln!(w, "    v32 = icmp {} {l}, {r}", s.cond).unwrap();
    let again = format!("block1(v31, {acc})");
    if s.negated {
        writeln!(w, "    brif v32, block9, {again}").unwrap();
    } else {
        writeln!(w, "    brif v32, {again}, block9").unwrap();
    }
    writeln!(w, "block9:").unwrap();
    if s.memory {
        writeln!(
            w,
            "    v40 = stack_addr ss0\n    v41 = load.{t} v40\n    v42 = bxor {acc}, v41"
        )
        .unwrap();
        acc = "v42";
    }
    writeln!(w, "    return {acc}, v31\n}}").unwrap();
    p
}

/// Built, through the pipeline's RVSDG passes (the unroller with `options`), and
/// sequentialized.
fn optimized(
    module: &Module,
    options: &UnrollOptions,
    report: &mut Report,
) -> Result<(Module, Rvsdg), String> {
    common::passes::pipeline_sequentialized(module, report, &|name, rm, r| {
        name == "unroll" && {
            vliw_rvsdg::opt::unroll_loops(&mut rm.graph, options, r);
            true
        }
    })
}

const STEPS: u64 = 200_000;

#[test]
fn random_counted_loops_unroll_and_run_the_same() {
    let (count, seed) = count_and_seed(400);
    let mut tally = Tally::default();
    let mut report = Report::default();
    for k in 0..count {
        let s = seed + k as u64;
        let mut rng = Rng(s.wrapping_mul(0x9e3779b97f4a7c15) | 1);
        let shape = shape(&mut rng);
        let text = program(&shape);
        let module = parsed(&text);
        let options = UnrollOptions {
            factor: rng.below(6) + 1,
            budget: if rng.chance(80) { 1000 } else { rng.below(60) },
            nests: rng.chance(50),
            until: rng.chance(80),
            peel: rng.chance(50),
        };
        let (new, graph) = match optimized(&module, &options, &mut report) {
            Ok(x) => x,
            Err(e) => {
                tally.compile_error(s, &e, &text);
                continue;
            }
        };
        for _ in 0..12 {
            let mask = shape.ty.mask();
            let args: Vec<DataValue> = [
                interesting(&mut rng, shape.ty, shape.step),
                interesting(&mut rng, shape.ty, shape.step),
                rng.next() as u128 & mask,
            ]
            .iter()
            .map(|&v| DataValue::from_bits(shape.ty, v))
            .collect();
            let what = format!("seed {s}, {options:?}, @f({args:?})");
            // (a loop that wraps around runs for long: not compared)
            tally.check(&module, &graph, &new, &text, "f", &args, STEPS, &what);
        }
    }
    println!(
        "{count} loops, {} runs compared, {} too long; {:?}",
        tally.runs,
        tally.too_long,
        report
            .counters()
            .iter()
            .filter(|c| c.0.starts_with("unroll."))
            .collect::<Vec<_>>()
    );
    tally.assert_passed();
    assert!(
        report.get("unroll.loops") as usize >= count / 4,
        "only {} loops unrolled",
        report.get("unroll.loops")
    );
    assert!(report.get("unroll.known-trip-count") > 0);
}
