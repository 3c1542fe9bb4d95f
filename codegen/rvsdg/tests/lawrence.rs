//! Lawrence's sequentialization, as far as it goes, on every function of the IR
//! filetests, built as RVSDGs and optimized by the pipeline's passes: every unit (λ
//! and θ body) flattens, proceduralizes (or needs γ-ordering, counted), and its PDG
//! verifies before and after normalization, with an order for every group.

mod common;

use vliw_ir::{parse_module, verify_module};
use vliw_rvsdg::lawrence::build_pdg::{BuildError, BuildOptions, build_pdg};
use vliw_rvsdg::lawrence::flatten::{Flat, FlatKind};
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
                        let sequenced = pdg.verify_sequentializable(&flat);
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

/// The growth limit: a large A demanded, with further operations, by three exclusive
/// arms is copied into each by demand (no short circuit can share it), three times
/// the structural destruction's one copy: the λ is destroyed structurally instead,
/// counted; with A small, the copies stay.
#[test]
fn code_growth_past_the_limit_falls_back_to_the_structural_destruction() {
    use vliw_rvsdg::{RvsdgModule, Sequentializer, parse_graph, sequentialize_module};
    let graph = |chain: usize| {
        let mut a = String::from("    n0 = iadd a3, a4 : i32\n");
        for k in 1..chain {
            a += &format!("    n{k} = imul n{}, a3 : i32\n", k - 1);
        }
        let x = chain - 1;
        // the names after A's: n{x+1} ...
        let n = |k: usize| format!("n{}", x + k);
        let (m0, g0, c0, m1, g1, e0, m2, g2, h0) =
            (n(1), n(2), n(3), n(4), n(5), n(6), n(7), n(8), n(9));
        format!(
            "lambda @f(i1, i1, i1, i32, i32) -> i32 export {{
  (a0: i1, a1: i1, a2: i1, a3: i32, a4: i32, a5: mem, a6: io):
{a}    {m0} = match2 [1 -> 0, _ -> 1] a0 : ctl2
    {g0} = gamma {m0} [n{x}, a1, a2, a3] : i32 {{
      (a0: i32, a1: i1, a2: i1, a3: i32):
        {c0} = isub a0, a3 : i32
        -> ({c0})
      (a0: i32, a1: i1, a2: i1, a3: i32):
        {m1} = match2 [1 -> 0, _ -> 1] a1 : ctl2
        {g1} = gamma {m1} [a0, a2, a3] : i32 {{
          (a0: i32, a1: i1, a2: i32):
            {e0} = bxor a0, a2 : i32
            -> ({e0})
          (a0: i32, a1: i1, a2: i32):
            {m2} = match2 [1 -> 0, _ -> 1] a1 : ctl2
            {g2} = gamma {m2} [a0, a2] : i32 {{
              (a0: i32, a1: i32):
                {h0} = bor a0, a1 : i32
                -> ({h0})
              (a0: i32, a1: i32):
                -> (a1)
            }}
            -> ({g2})
        }}
        -> ({g1})
    }}
    -> ({g0}, a5, a6)
}}
"
        )
    };
    let sequentialized = |chain: usize| {
        let g = parse_graph(&graph(chain)).unwrap_or_else(|e| panic!("{e}"));
        let mut module = vliw_ir::Module::new();
        let mut rm = RvsdgModule::default();
        for l in g.lambdas() {
            rm.lambdas.push((module.functions.len(), l));
            module.functions.push(g.lambda_info(l).clone());
        }
        rm.graph = g;
        let mut report = Report::default();
        sequentialize_module(
            &rm,
            &mut module,
            Sequentializer::Lawrence,
            Default::default(),
            &mut report,
        );
        let get = |k: &str| {
            (report.counters().iter())
                .find(|c| c.0 == k)
                .map_or(0, |c| c.1)
        };
        let imuls = (module.functions[0].layout.blocks())
            .flat_map(|b| module.functions[0].layout.block_insts(b))
            .filter(|&i| module.functions[0].dfg.opcode(i) == vliw_ir::Opcode::Imul)
            .count();
        (
            get("lawrence.by-demand"),
            get("lawrence.fallback.growth"),
            imuls,
        )
    };
    // A of 2 nodes: copied three times by demand, within the limit
    assert_eq!(sequentialized(2), (1, 0, 3));
    // A of 30 nodes: 87 copies of its multiplications would pass it
    assert_eq!(sequentialized(30), (0, 1, 29));
}
