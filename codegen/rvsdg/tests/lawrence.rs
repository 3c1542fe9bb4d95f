//! Lawrence's sequentialization, as far as it goes, on every function of the IR
//! filetests, built as RVSDGs and optimized by the pipeline's passes: every unit (λ
//! and θ body) flattens, proceduralizes (or needs γ-ordering, counted), and its PDG
//! verifies before and after normalization, with an order for every group.

mod common;

use vliw_ir::{parse_module, verify_module};
use vliw_rvsdg::lawrence::build_pdg::{BuildError, build_pdg};
use vliw_rvsdg::lawrence::flatten::{Flat, FlatKind};
use vliw_rvsdg::lawrence::pdg::{PdgId, PdgNode};
use vliw_rvsdg::{Report, build_module};

#[test]
fn every_unit_of_the_filetests_proceduralizes() {
    let (_, files) = common::differential::filetests();
    let mut report = Report::default();
    let (mut units, mut built, mut ordering) = (0, 0, 0);
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("read");
        let Ok(module) = parse_module(&text) else {
            continue;
        };
        if verify_module(&module).is_err() {
            continue;
        }
        let mut rm = build_module(&module, &mut report);
        if !rm.not_built.is_empty() {
            continue;
        }
        rm.roots
            .extend(module.functions.iter().map(|f| f.name.clone()));
        for (_, pass) in common::passes::PIPELINE_ORDER {
            pass(&mut rm, &mut report);
        }
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
                match build_pdg(g, &flat) {
                    Ok(p) => {
                        built += 1;
                        let (pdg, _) = p.pdg.normalized();
                        let checked = p.pdg.verify(&flat).and_then(|()| pdg.verify(&flat));
                        let sequenced = (0..pdg.nodes.len() as PdgId)
                            .filter(|&id| matches!(pdg.node(id), PdgNode::Group(_)))
                            .try_for_each(|id| pdg.sequence(&flat, id).map(|_| ()));
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
