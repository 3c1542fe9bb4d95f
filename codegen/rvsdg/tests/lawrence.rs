//! Lawrence's sequentialization, as far as it goes, on every function of the IR
//! filetests, built as RVSDGs and optimized by the pipeline's passes: every unit (λ
//! and θ body) flattens, proceduralizes (or needs γ-ordering, counted), and its PDG
//! verifies before and after normalization, with an order for every group.

mod common;

use vliw_ir::{parse_module, verify_module};
use vliw_rvsdg::lawrence::build_pdg::{BuildError, BuildOptions, build_pdg};
use vliw_rvsdg::lawrence::flatten::{Flat, FlatKind};
use vliw_rvsdg::lawrence::pdg::{PdgId, PdgNode};
use vliw_rvsdg::{Report, build_module};

/// The filetest at `path` (its text and module) built as an RVSDG and optimized by
/// the pipeline's passes; `None` when it is not a valid module the RVSDG builds.
fn optimized(
    path: &std::path::Path,
    report: &mut Report,
) -> Option<(String, vliw_ir::Module, vliw_rvsdg::RvsdgModule)> {
    let text = std::fs::read_to_string(path).expect("read");
    let module = parse_module(&text).ok()?;
    verify_module(&module).ok()?;
    let mut rm = build_module(&module, report);
    if !rm.not_built.is_empty() {
        return None;
    }
    rm.roots
        .extend(module.functions.iter().map(|f| f.name.clone()));
    for (_, pass) in common::passes::PIPELINE_ORDER {
        pass(&mut rm, report);
    }
    Some((text, module, rm))
}

#[test]
fn every_unit_of_the_filetests_proceduralizes() {
    let (_, files) = common::differential::filetests();
    let mut report = Report::default();
    let (mut units, mut built, mut ordering) = (0, 0, 0);
    let mut failures = Vec::new();
    for path in &files {
        let Some((_, _, rm)) = optimized(path, &mut report) else {
            continue;
        };
        let g = &rm.graph;
        for l in g.lambdas() {
            let mut todo = vec![g.lambda_body(l)];
            while let Some(unit) = todo.pop() {
                units += 1;
                let flat = Flat::build(g, unit);
                for node in &flat.nodes {
                    if let FlatKind::Theta(t) = node.kind {
                        todo.push(g.theta_body(t));
                    }
                }
                let where_ = format!("{}: {unit}", path.display());
                match build_pdg(
                    g,
                    &flat,
                    BuildOptions {
                        gamma_ordering: true,
                        speculate: false,
                    },
                ) {
                    Ok(p) => {
                        built += 1;
                        let (pdg, _) = p.pdg.normalized();
                        let checked = p.pdg.verify(&flat).and_then(|()| pdg.verify(&flat));
                        let sequenced = (0..pdg.nodes.len() as PdgId)
                            .filter(|&id| matches!(pdg.node(id), PdgNode::Group(_)))
                            .try_for_each(|id| {
                                pdg.sequence(&flat, id, &|id| pdg.parent_counts()[id as usize])
                                    .map(|_| ())
                            });
                        if let Err(e) = checked.and(sequenced) {
                            failures.push(format!("{where_}: {e}\n{flat}\n{pdg}"));
                        }
                    }
                    Err(BuildError::IndependentRedundancy { .. }) => ordering += 1,
                    Err(e) => failures.push(format!("{where_}: {e:?}\n{flat}")),
                }
            }
        }
    }
    println!("{units} units: {built} proceduralized, {ordering} need γ-ordering");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(built >= 100, "{built} of {units} units proceduralized");
}

/// Every filetest, built, optimized and sequentialized by Lawrence's method, verifies
/// and runs as the original does on the interpreter.
#[test]
fn every_filetest_sequentialized_by_demand_runs_the_same() {
    use common::differential::{Compared, compare, parse_args};
    use vliw_ir::filetest::directives;
    use vliw_rvsdg::{Sequentializer, sequentialize_module};

    let (root, files) = common::differential::filetests();
    let mut report = Report::default();
    let mut tally = Compared::default();
    let (mut lambdas, mut by_demand) = (0, 0);
    let mut sizes = Report::default();
    let mut failures = Vec::new();
    for path in &files {
        let name = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .display()
            .to_string();
        let Some((text, module, rm)) = optimized(path, &mut report) else {
            continue;
        };
        for l in rm.graph.lambdas() {
            lambdas += 1;
            let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                vliw_rvsdg::lawrence::emit::sequentialize_lambda(&rm.graph, l, Default::default())
            }));
            match done {
                Ok(Ok(_)) => by_demand += 1,
                Ok(Err(_)) => {}
                Err(_) => failures.push(format!("{name}: {l}: the emitter panicked")),
            }
        }
        let mut new = module.clone();
        let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            sequentialize_module(
                &rm,
                &mut new,
                Sequentializer::Lawrence,
                Default::default(),
                &mut report,
            )
        }));
        if done.is_err() {
            continue; // counted above
        }
        // the static size beside the structural destruction's
        let mut structural = module.clone();
        sequentialize_module(
            &rm,
            &mut structural,
            Sequentializer::Structural,
            Default::default(),
            &mut sizes,
        );
        if let Err(e) = verify_module(&new) {
            failures.push(format!("{name}: does not verify:\n{e}\n{new}"));
            continue;
        }
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
        }
    }
    let (lazy, eager) = (
        report.get("sequentialize.insts"),
        sizes.get("sequentialize.insts"),
    );
    println!(
        "{lambdas} λs, {by_demand} sequentialized by demand; {} runs compared; \
         {lazy} instructions by demand, {eager} structurally",
        tally.runs
    );
    // the code growth stays bounded (copies of what exclusive paths share)
    assert!(
        lazy * 10 <= eager * 12,
        "{lazy} instructions against {eager}"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(tally.runs >= 400, "only {} runs compared", tally.runs);
    assert!(
        by_demand * 10 >= lambdas * 9,
        "{by_demand} of {lambdas} by demand"
    );
}
