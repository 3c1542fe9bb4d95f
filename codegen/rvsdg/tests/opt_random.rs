//! The RVSDG optimizations on random programs, optimized by the pipeline's RVSDG
//! passes in its order, twice (so that each pass also sees the others' output),
//! verified after every pass, then evaluated and sequentialized; both must behave as
//! the original does: the same results, traps and output, and a run that does not end
//! must still not end (a loop is not removed or moved past the effects after it).
//!
//! - random CFGs (`common/random_cfg.rs`: loops of every shape, endless ones, traps,
//!   `unreachable`, divisions that trap, calls of `@trace`), built as RVSDGs; the
//!   original runs on the interpreter;
//! - random RVSDGs (`common/random_rvsdg.rs`: γs on constants and of one or three
//!   arms, arms that start alike, repeated computations, loops over invariant values,
//!   safe divisions), which the CFGs seldom give; the original runs on the evaluator.
//!
//! - random memory programs (`common/random_memory.rs`: stores, loads and copies
//!   between stack slots, a data object and a parameter's memory, calls that let a
//!   slot escape, out-of-bounds and misaligned accesses now and then), for the memory
//!   optimizations; the original runs on the interpreter.
//!
//! `RANDOM_PROGRAMS=N` and `RANDOM_SEED=S` as in the other random tests.

mod common;

use common::differential::*;
use common::random_cfg::*;
use common::random_memory::random_memory_module;
use common::random_rvsdg::random_lambda;
use vliw_ir::{DataValue, Module, Signature, TrapKind, Type, parse_module, verify_module};
use vliw_rvsdg::lawrence::emit::EmitOptions;
use vliw_rvsdg::{Report, Rvsdg, RvsdgModule, Sequentializer, build_module, sequentialize_module};

/// Built, optimized (two rounds), and sequentialized.
fn optimized(module: &Module, report: &mut Report) -> Result<([Module; 3], Rvsdg), String> {
    let mut rm = build_module(module, report);
    if let Some((_, why)) = rm.not_built.first() {
        return Err(format!("not built: {why}"));
    }
    verified(&rm.graph, "construction")?;
    rm.graph.take_changes();
    optimize_and_sequentialize(rm, module, report)
}

fn optimize_and_sequentialize(
    mut rm: RvsdgModule,
    module: &Module,
    report: &mut Report,
) -> Result<([Module; 3], Rvsdg), String> {
    for round in 0..2 {
        for (name, pass) in common::passes::PIPELINE_ORDER {
            let before = rm.graph.to_string();
            let prints = common::changes::fingerprints(&rm.graph);
            pass(&mut rm, report);
            verified(
                &rm.graph,
                &format!("{name} (round {round}); before it:\n{before}"),
            )?;
            let changes = common::changes::changes_cover(&mut rm.graph, &prints, name)?;
            vliw_rvsdg::verify_changed(&rm.graph, &changes)
                .map_err(|_| format!("{name}: the changed λs do not verify, but all do"))?;
        }
    }
    // both ways back to control flow, by demand with and without its sub-steps
    let mut new = [module.clone(), module.clone(), module.clone()];
    let bare = EmitOptions {
        gamma_ordering: false,
        tail_registers: false,
        conditional_predicates: false,
        speculate: false,
    };
    for (m, (how, options)) in new.iter_mut().zip([
        (Sequentializer::Structural, EmitOptions::default()),
        (Sequentializer::Lawrence, EmitOptions::default()),
        (Sequentializer::Lawrence, bare),
    ]) {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            sequentialize_module(&rm, m, how, options, report)
        }))
        .map_err(|_| format!("sequentializing ({how:?}) panicked:\n{}", rm.graph))?;
        verify_module(m).map_err(|e| format!("sequentialized ({how:?}): {e}\n{m}"))?;
    }
    Ok((new, rm.graph))
}

const STEPS: u64 = 20_000;

/// The original's run (`run(steps)`): `None` when it is undefined (it reached
/// `unreachable`); with whether it does not end (still running after 10 times the
/// steps: the generators' loops that end do so within a few thousand).
fn original(run: impl Fn(u64) -> Outcome) -> Option<(Outcome, bool)> {
    let is = |o: &Outcome, kind: TrapKind| o.result.as_ref().is_err_and(|t| t.kind == kind);
    let mut a = run(STEPS);
    if is(&a, TrapKind::StepLimit) {
        a = run(STEPS * 10);
    }
    if is(&a, TrapKind::Unreachable) {
        return None;
    }
    let endless = is(&a, TrapKind::StepLimit);
    Some((a, endless))
}

/// Whether `b` behaves as the original `a`: the same outcome; or, when `a` does not
/// end, `b` does not end either, and one has done a prefix of the other's effects (the
/// optimized code may do more in the same number of steps).
fn agrees(a: &Outcome, endless: bool, b: &Outcome, what: &str) -> Result<(), String> {
    let ok = if endless {
        b.result
            .as_ref()
            .is_err_and(|t| t.kind == TrapKind::StepLimit)
            && (a.stdout.starts_with(&b.stdout) || b.stdout.starts_with(&a.stdout))
    } else {
        same(a, b)
    };
    if ok {
        return Ok(());
    }
    let show = |o: &[u8]| {
        let s = String::from_utf8_lossy(o);
        if s.len() > 200 {
            format!("{}... ({} bytes)", &s[..200], s.len())
        } else {
            s.into_owned()
        }
    };
    Err(format!(
        "{what}: {:?} (stdout {:?}); the original: {:?} (stdout {:?}){}",
        b.result,
        show(&b.stdout),
        a.result,
        show(&a.stdout),
        if endless { ", does not end" } else { "" }
    ))
}

#[test]
fn random_cfgs_optimize_and_run_the_same() {
    let (count, seed) = count_and_seed(600);
    let mut failures = Vec::new();
    let mut tally = Compared::default();
    let mut report = Report::default();
    for k in 0..count {
        let s = seed + k as u64;
        let mut rng = Rng(s.wrapping_mul(0x9e3779b97f4a7c15) | 1);
        let max_blocks = if k % 8 == 7 { 40 } else { 15 };
        let f = random_function(&mut rng, "f", max_blocks);
        let mut module = Module::new();
        module.declare_function("trace", Signature::new(&[Type::I32], &[]));
        module.functions.push(f);
        verify_module(&module).expect("the generator makes valid IR");
        let (new, graph) = match optimized(&module, &mut report) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("seed {s}: {e}\noriginal:\n{module}"));
                continue;
            }
        };
        let mut args = vec![(0, 0), (1, -1), (7, 3), (-100, 55), (3, 3)];
        args.push((rng.next() as i32, rng.next() as i32));
        for (x, y) in args {
            let a = [DataValue::I32(x), DataValue::I32(y)];
            tally.runs += 1;
            let Some((orig, endless)) = original(|steps| run(&module, "f", &a, steps)) else {
                tally.undefined += 1;
                continue;
            };
            tally.step_limit += usize::from(endless);
            // enough steps for the transformed code to reach the original's end (it
            // may take more: the evaluator counts differently), or to show that it
            // does not end either
            let limit = if endless { STEPS * 5 } else { STEPS * 200 };
            let seq = run(&new[0], "f", &a, limit);
            let by_demand = run(&new[1], "f", &a, limit);
            let bare = run(&new[2], "f", &a, limit);
            let eval = evaluate(&graph, &module, "f", &a, limit);
            let checked = agrees(&orig, endless, &seq, "sequentialized")
                .and_then(|()| agrees(&orig, endless, &by_demand, "sequentialized by demand"))
                .and_then(|()| {
                    agrees(
                        &orig,
                        endless,
                        &bare,
                        "sequentialized by demand without sub-steps",
                    )
                })
                .and_then(|()| agrees(&orig, endless, &eval, "evaluated"));
            if let Err(e) = checked {
                failures.push(format!(
                    "seed {s}: @f({x}, {y}): {e}\noriginal:\n{module}\noptimized:\n{graph}\n\
                     sequentialized:\n{}\nby demand:\n{}\nwithout sub-steps:\n{}",
                    new[0], new[1], new[2]
                ));
                break;
            }
        }
    }
    println!(
        "random CFGs optimized: {count} functions, {} runs compared ({} reached \
         unreachable, {} step limit); {:?}",
        tally.runs,
        tally.undefined,
        tally.step_limit,
        report.counters()
    );
    assert!(
        failures.is_empty(),
        "{} failures, the first:\n{}",
        failures.len(),
        failures[0]
    );
}

#[test]
fn random_graphs_optimize_and_run_the_same() {
    let (count, seed) = count_and_seed(600);
    let mut failures = Vec::new();
    let mut report = Report::default();
    let (mut runs, mut endless_runs) = (0, 0);
    for k in 0..count {
        let s = seed + k as u64;
        let mut rng = Rng(s.wrapping_mul(0x9e3779b97f4a7c15) | 1);
        let (graph, l) = random_lambda(&mut rng);
        if let Err(e) = verified(&graph, "generation") {
            panic!("seed {s}: the generator made an ill-formed graph: {e}");
        }
        let mut module = Module::new();
        module.declare_function("trace", Signature::new(&[Type::I32], &[]));
        module.functions.push(graph.lambda_info(l).clone());
        let rm = RvsdgModule {
            graph: graph.clone(),
            lambdas: vec![(0, l)],
            ..Default::default()
        };
        let (new, optimized) = match optimize_and_sequentialize(rm, &module, &mut report) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("seed {s}: {e}\noriginal:\n{graph}"));
                continue;
            }
        };
        let mut args = vec![(0, 0), (1, -1), (7, 3), (-100, 55), (3, 3)];
        args.push((rng.next() as i32, rng.next() as i32));
        for (x, y) in args {
            let a = [DataValue::I32(x), DataValue::I32(y)];
            runs += 1;
            let Some((orig, endless)) = original(|steps| evaluate(&graph, &module, "f", &a, steps))
            else {
                continue;
            };
            endless_runs += usize::from(endless);
            let limit = if endless { STEPS * 5 } else { STEPS * 200 };
            let eval = evaluate(&optimized, &module, "f", &a, limit);
            let seq = run(&new[0], "f", &a, limit);
            let by_demand = run(&new[1], "f", &a, limit);
            let bare = run(&new[2], "f", &a, limit);
            let checked = agrees(&orig, endless, &eval, "evaluated")
                .and_then(|()| agrees(&orig, endless, &seq, "sequentialized"))
                .and_then(|()| agrees(&orig, endless, &by_demand, "sequentialized by demand"))
                .and_then(|()| {
                    agrees(
                        &orig,
                        endless,
                        &bare,
                        "sequentialized by demand without sub-steps",
                    )
                });
            if let Err(e) = checked {
                failures.push(format!(
                    "seed {s}: @f({x}, {y}): {e}\noriginal:\n{graph}\noptimized:\n{optimized}\n\
                     sequentialized:\n{}\nby demand:\n{}\nwithout sub-steps:\n{}",
                    new[0], new[1], new[2]
                ));
                break;
            }
        }
    }
    println!(
        "random graphs optimized: {count} functions, {runs} runs compared ({endless_runs} \
         endless); {:?}",
        report.counters()
    );
    assert!(
        failures.is_empty(),
        "{} failures, the first:\n{}",
        failures.len(),
        failures[0]
    );
}

#[test]
fn random_memory_programs_optimize_and_run_the_same() {
    let (count, seed) = count_and_seed(600);
    let mut failures = Vec::new();
    let mut tally = Compared::default();
    let mut report = Report::default();
    for k in 0..count {
        let s = seed + k as u64;
        let mut rng = Rng(s.wrapping_mul(0x9e3779b97f4a7c15) | 1);
        let text = random_memory_module(&mut rng);
        let module = parse_module(&text).unwrap_or_else(|e| panic!("seed {s}: {e}\n{text}"));
        verify_module(&module).unwrap_or_else(|e| panic!("seed {s}: {e}\n{text}"));
        let (new, graph) = match optimized(&module, &mut report) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("seed {s}: {e}\noriginal:\n{module}"));
                continue;
            }
        };
        let mut args = vec![(0, 0), (1, -1), (7, 3), (-100, 55)];
        args.push((rng.next() as i64, rng.next() as i64));
        for (x, y) in args {
            let a = [DataValue::I64(x), DataValue::I64(y)];
            tally.runs += 1;
            let orig = run(&module, "main", &a, STEPS * 10);
            let seq = run(&new[0], "main", &a, STEPS * 200);
            let by_demand = run(&new[1], "main", &a, STEPS * 200);
            let bare = run(&new[2], "main", &a, STEPS * 200);
            let eval = evaluate(&graph, &module, "main", &a, STEPS * 200);
            let checked = agrees(&orig, false, &seq, "sequentialized")
                .and_then(|()| agrees(&orig, false, &by_demand, "sequentialized by demand"))
                .and_then(|()| {
                    agrees(
                        &orig,
                        false,
                        &bare,
                        "sequentialized by demand without sub-steps",
                    )
                })
                .and_then(|()| agrees(&orig, false, &eval, "evaluated"));
            if let Err(e) = checked {
                failures.push(format!(
                    "seed {s}: @main({x}, {y}): {e}\noriginal:\n{module}\noptimized:\n{graph}\n\
                     sequentialized:\n{}\nby demand:\n{}\nwithout sub-steps:\n{}",
                    new[0], new[1], new[2]
                ));
                break;
            }
        }
    }
    println!(
        "random memory programs optimized: {count} modules, {} runs compared; {:?}",
        tally.runs,
        report
            .counters()
            .iter()
            .filter(|c| {
                c.0.starts_with("memory.")
                    || c.0.starts_with("mem-split.")
                    || c.0 == "cne.loads"
                    || c.0 == "licm.hoisted-loads"
            })
            .collect::<Vec<_>>()
    );
    assert!(
        failures.is_empty(),
        "{} failures, the first:\n{}",
        failures.len(),
        failures[0]
    );
}
