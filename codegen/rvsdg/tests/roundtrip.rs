//! Through the RVSDG and back: every function of the IR filetests is built as a λ,
//! optimized (inline, ivr, fold, strength, gamma, cne, licm, unroll, memory, dne: the pipeline's
//! order),
//! sequentialized, and must verify and run as before on the interpreter.

mod common;

use common::differential::*;
use vliw_ir::filetest::directives;
use vliw_ir::{Module, TrapKind, parse_module, verify_module};
use vliw_rvsdg::{Report, Rvsdg, Sequentializer, build_module, sequentialize_module};

/// The module through the RVSDG: built, optimized (the pipeline's RVSDG passes, in its
/// order), sequentialized; and its graph.
fn through_rvsdg(module: &Module, report: &mut Report) -> Result<(Module, Rvsdg), String> {
    let mut rm = build_module(module, report);
    if let Some((i, why)) = rm.not_built.first() {
        return Err(format!("@{} not built: {why}", module.functions[*i].name));
    }
    let check = |g: &vliw_rvsdg::Rvsdg, after: &str| {
        vliw_rvsdg::verify(g).map_err(|e| {
            let e: Vec<String> = e.iter().map(|e| e.to_string()).collect();
            format!(
                "the RVSDG does not verify after {after}:\n{}\n{g}",
                e.join("\n")
            )
        })
    };
    check(&rm.graph, "construction")?;
    // the pipeline's order; the run lines call local functions from outside
    rm.roots
        .extend(module.functions.iter().map(|f| f.name.clone()));
    for (name, pass) in common::passes::PIPELINE_ORDER {
        pass(&mut rm, report);
        check(&rm.graph, name)?;
    }
    let mut new = module.clone();
    sequentialize_module(
        &rm,
        &mut new,
        Sequentializer::Structural,
        Default::default(),
        report,
    );
    verify_module(&new).map_err(|e| format!("does not verify:\n{e}\n{new}"))?;
    Ok((new, rm.graph))
}

#[test]
fn every_filetest_goes_through_the_rvsdg_and_runs_the_same() {
    let (root, files) = filetests();
    let mut failures = Vec::new();
    let mut tally = Compared::default();
    let mut report = Report::default();
    let (mut modules, mut evaluated) = (0, 0);
    for path in &files {
        let name = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .display()
            .to_string();
        let text = std::fs::read_to_string(path).expect("read");
        let Ok(module) = parse_module(&text) else {
            continue;
        };
        if verify_module(&module).is_err() {
            continue;
        }
        // functions with unwind edges keep their CFG (issue 17: the RVSDG does not
        // model them yet)
        if module
            .functions
            .iter()
            .any(|f| f.unwinding_opcode().is_some())
        {
            continue;
        }
        let (new, graph) = match through_rvsdg(&module, &mut report) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        modules += 1;
        let Ok((runs, _)) = directives(&text) else {
            continue;
        };
        for r in &runs {
            let Some(args) = parse_args(&module, &r.func, &r.args) else {
                continue;
            };
            if let Err(e) = compare(&module, &new, &r.func, &args, &mut tally) {
                failures.push(format!("{name}: line {}: {e}", r.line));
            }
            // the graph itself, evaluated, agrees with the interpreter (a run that
            // ends at the step limit may end elsewhere: steps are counted differently)
            let a = run(&module, &r.func, &args, STEPS);
            if a.result
                .as_ref()
                .is_err_and(|t| matches!(t.kind, TrapKind::StepLimit | TrapKind::Unreachable))
            {
                continue;
            }
            let b = evaluate(&graph, &module, &r.func, &args, STEPS * 20);
            evaluated += 1;
            if !same(&a, &b) {
                failures.push(format!(
                    "{name}: line {}: evaluating the RVSDG gives {:?}, the interpreter {:?}",
                    r.line, b.result, a.result
                ));
            }
        }
    }
    println!(
        "{modules} modules, {} runs compared, {evaluated} evaluated on the RVSDG; {:?}",
        tally.runs,
        report.counters()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(tally.runs >= 400, "only {} runs compared", tally.runs);
}
