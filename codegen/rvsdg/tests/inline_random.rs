//! Inlining on random modules: random functions (`common/random_cfg.rs`: loops of
//! every shape, endless ones, traps, `unreachable`, trapping divisions, calls of the
//! host `@trace`) and one that raises an exception, called through layers of wrappers
//! whose calls are plain calls or invokes with a cleanup (which traces and resumes) or
//! a catching landing pad, with random inlining hints,
//! linkages and thresholds, so that bodies of every shape are copied into callers of
//! every shape, and copies into copies. The module is built, inlined, optimized by the
//! pipeline's other RVSDG passes, verified after each, then evaluated and
//! sequentialized: both must behave as the original does on the interpreter.
//!
//! `RANDOM_PROGRAMS=N` and `RANDOM_SEED=S` as in the other random tests.

mod common;

use common::differential::*;
use common::random_cfg::*;
use vliw_ir::{
    DataValue, InlineHint, Linkage, Module, Signature, TrapKind, Type, parse_module, verify_module,
};
use vliw_rvsdg::opt::InlineOptions;
use vliw_rvsdg::{Report, Rvsdg, Sequentializer, build_module, sequentialize_module};

const STEPS: u64 = 50_000;

/// A random module: functions `@g0..` from the generator, wrappers `@w0..` that call
/// two earlier functions (generated or wrappers) and combine their results, and the
/// exported `@f`, which calls the last wrapper and one more function.
fn random_module(rng: &mut Rng) -> Module {
    let generated = 1 + rng.below(4);
    let mut module = Module::new();
    module.declare_function("trace", Signature::new(&[Type::I32], &[]));
    let mut names: Vec<String> = Vec::new();
    for i in 0..generated {
        let name = format!("g{i}");
        let mut f = random_function(rng, &name, 10);
        f.linkage = match rng.below(10) {
            0 => Linkage::Export,
            1 => Linkage::Weak,
            _ => Linkage::Local,
        };
        f.inline = match rng.below(10) {
            0 => InlineHint::Never,
            1 => InlineHint::Always,
            2 | 3 => InlineHint::Hint,
            _ => InlineHint::Default,
        };
        f.cold = rng.chance(10);
        module.functions.push(f);
        names.push(name);
    }
    // a function that raises an exception (its operands' xor) when their xor has no
    // bit of a random mask set, else returns their sum
    let mut text = format!(
        "declare function @_Unwind_RaiseException(i64) -> i32

function @raise(i32, i32) -> i32 {{
    fn0 = @_Unwind_RaiseException(i64) -> i32
block0(v0: i32, v1: i32):
    v2 = bxor v0, v1
    v3 = iconst.i32 {}
    v4 = band v2, v3
    v5 = iconst.i32 0
    v6 = icmp eq v4, v5
    brif v6, block1, block2
block1:
    v7 = sextend.i64 v2
    v8 = call fn0(v7)
    trap 9
block2:
    v9 = iadd v0, v1
    return v9
}}
",
        [1, 3, 7][rng.below(3)]
    );
    names.push("raise".to_string());
    let ops = ["iadd", "bxor", "isub", "imul"];
    let wrappers = 1 + rng.below(3);
    for i in 0..=wrappers {
        let last = i == wrappers;
        let name = if last {
            "f".to_string()
        } else {
            format!("w{i}")
        };
        let a = names[rng.below(names.len())].clone();
        let b = names[rng.below(names.len())].clone();
        let op = ops[rng.below(ops.len())];
        let linkage = if last { " export" } else { "" };
        // each call a plain call, or an invoke whose landing pad cleans up (traces,
        // resumes) or catches (returns the exception's low half)
        let site = |k: usize, call: &str, next: &str, rng: &mut Rng| -> (String, String) {
            match rng.below(3) {
                0 => (format!("{call}\n    jump {next}"), String::new()),
                kind => {
                    let invoke = call.replacen("call", "invoke", 1);
                    let pad = if kind == 1 {
                        format!(
                            "block{}:\n    v{}, v{} = landing_pad\n    v{} = iconst.i32 {}\n    \
                             call fn2(v{})\n    resume v{}\n",
                            10 + k,
                            20 + 4 * k,
                            21 + 4 * k,
                            22 + 4 * k,
                            100 + 10 * i + k,
                            22 + 4 * k,
                            20 + 4 * k
                        )
                    } else {
                        format!(
                            "block{}:\n    v{}, v{} = catch_landing_pad\n    v{} = bitcast.i64 v{}\n    \
                             v{} = ireduce.i32 v{}\n    return v{}\n",
                            10 + k,
                            20 + 4 * k,
                            21 + 4 * k,
                            22 + 4 * k,
                            20 + 4 * k,
                            23 + 4 * k,
                            22 + 4 * k,
                            23 + 4 * k
                        )
                    };
                    (format!("{invoke}, {next}, block{}", 10 + k), pad)
                }
            }
        };
        let (first, pad0) = site(0, "v2 = call fn0(v0, v1)", "block1", rng);
        let (second, pad1) = site(1, "v3 = call fn1(v1, v2)", "block2", rng);
        text += &format!(
            "function @{name}(i32, i32) -> i32{linkage} personality @rust_eh_personality {{
    fn0 = @{a}(i32, i32) -> i32
    fn1 = @{b}(i32, i32) -> i32
    fn2 = @trace(i32)
block0(v0: i32, v1: i32):
    {first}
block1:
    {second}
block2:
    v4 = {op} v2, v3
    return v4
{pad0}{pad1}}}
"
        );
        names.push(name);
    }
    let wrappers = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    module.functions.extend(wrappers.functions);
    module.func_decls.extend(wrappers.func_decls);
    module
}

/// Built, inlined with `threshold`, optimized, and sequentialized.
fn inlined(
    module: &Module,
    threshold: usize,
    report: &mut Report,
) -> Result<(Module, Rvsdg), String> {
    let mut rm = build_module(module, report);
    if let Some((_, why)) = rm.not_built.first() {
        return Err(format!("not built: {why}"));
    }
    verified(&rm.graph, "construction")?;
    let before = rm.graph.to_string();
    vliw_rvsdg::opt::inline_calls(
        &mut rm.graph,
        &rm.roots,
        &InlineOptions { threshold },
        report,
    );
    verified(&rm.graph, &format!("inline; before it:\n{before}"))?;
    vliw_rvsdg::opt::invariant_value_redirection(&mut rm.graph, report);
    verified(&rm.graph, "ivr")?;
    vliw_rvsdg::opt::fold(&mut rm.graph, report);
    verified(&rm.graph, "fold")?;
    vliw_rvsdg::opt::gamma_simplification(&mut rm.graph, report);
    verified(&rm.graph, "gamma")?;
    vliw_rvsdg::opt::common_node_elimination(&mut rm.graph, report);
    verified(&rm.graph, "cne")?;
    vliw_rvsdg::opt::loop_invariant_code_motion(&mut rm.graph, report);
    verified(&rm.graph, "licm")?;
    vliw_rvsdg::opt::dead_node_elimination(&mut rm.graph, &rm.roots, report);
    verified(&rm.graph, "dne")?;
    let mut new = module.clone();
    sequentialize_module(
        &rm,
        &mut new,
        Sequentializer::Structural,
        Default::default(),
        report,
    );
    verify_module(&new).map_err(|e| format!("the sequentialized module: {e}\n{new}"))?;
    Ok((new, rm.graph))
}

/// The original's run: `None` when it is undefined (it reached `unreachable`); with
/// whether it does not end.
fn original(module: &Module, args: &[DataValue]) -> Option<(Outcome, bool)> {
    let is = |o: &Outcome, kind: TrapKind| o.result.as_ref().is_err_and(|t| t.kind == kind);
    let mut a = run(module, "f", args, STEPS);
    if is(&a, TrapKind::StepLimit) {
        a = run(module, "f", args, STEPS * 10);
    }
    if is(&a, TrapKind::Unreachable) {
        return None;
    }
    let endless = is(&a, TrapKind::StepLimit);
    Some((a, endless))
}

/// Whether `b` behaves as the original `a` (when `a` does not end: `b` does not either,
/// and one did a prefix of the other's output).
fn agrees(a: &Outcome, endless: bool, b: &Outcome) -> bool {
    if endless {
        b.result
            .as_ref()
            .is_err_and(|t| t.kind == TrapKind::StepLimit)
            && (a.stdout.starts_with(&b.stdout) || b.stdout.starts_with(&a.stdout))
    } else {
        same(a, b)
    }
}

#[test]
fn random_modules_inline_and_run_the_same() {
    let (count, seed) = count_and_seed(300);
    let mut failures = Vec::new();
    let mut report = Report::default();
    let (mut runs, mut compared) = (0, 0);
    for k in 0..count {
        let s = seed + k as u64;
        let mut rng = Rng(s.wrapping_mul(0x9e3779b97f4a7c15) | 1);
        let module = random_module(&mut rng);
        verify_module(&module).unwrap_or_else(|e| panic!("seed {s}: {e}\n{module}"));
        let threshold = [0, 10, 30, 200, 100_000][rng.below(5)];
        let (new, graph) = match inlined(&module, threshold, &mut report) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("seed {s}: {e}\noriginal:\n{module}"));
                continue;
            }
        };
        let mut args = vec![(0, 0), (1, -1), (7, 3), (-100, 55)];
        args.push((rng.next() as i32, rng.next() as i32));
        for (x, y) in args {
            let a = [DataValue::I32(x), DataValue::I32(y)];
            runs += 1;
            let Some((orig, endless)) = original(&module, &a) else {
                continue;
            };
            compared += 1;
            let limit = if endless { STEPS * 5 } else { STEPS * 200 };
            let seq = run(&new, "f", &a, limit);
            let eval = evaluate(&graph, &module, "f", &a, limit);
            for (what, b) in [("sequentialized", &seq), ("evaluated", &eval)] {
                if !agrees(&orig, endless, b) {
                    failures.push(format!(
                        "seed {s} (threshold {threshold}): @f({x}, {y}) {what}: {:?} (stdout \
                         {:?}); the original: {:?} (stdout {:?})\noriginal:\n{module}\n\
                         inlined:\n{graph}",
                        b.result,
                        String::from_utf8_lossy(&b.stdout),
                        orig.result,
                        String::from_utf8_lossy(&orig.stdout),
                    ));
                }
            }
        }
    }
    println!(
        "random modules inlined: {count}, {runs} runs ({compared} compared); {:?}",
        report.counters()
    );
    assert!(
        report.get("inline.unwinding-explicit") > count as u64 / 10,
        "too few callees that may unwind inlined at invokes: {:?}",
        report.counters()
    );
    assert!(
        report.get("inline.calls-inlined") > count as u64,
        "too few calls inlined: {:?}",
        report.counters()
    );
    assert!(
        failures.is_empty(),
        "{} failures, the first:\n{}",
        failures.len(),
        failures[0]
    );
}
