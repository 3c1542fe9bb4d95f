//! Small λs through the rewriting passes: an SSA IR module built as an RVSDG, the
//! passes run and the graph verified after each, and what the λs return looked at.

#![allow(dead_code)] // each test file uses a part

use vliw_ir::{DataValue, Module, Trap, parse_module, verify_module};
use vliw_rvsdg::{Evaluator, Node, Op, Origin, Report, RvsdgModule, build_module};

/// A pass of the middle end, as the tests run it.
pub type Pass = fn(&mut vliw_rvsdg::Rvsdg, &mut Report);

/// A pass over the whole module, named, as the tests run the pipeline's RVSDG stage.
pub type ModulePass = (&'static str, fn(&mut RvsdgModule, &mut Report));

/// The pipeline's RVSDG passes, in its order (`codegen/pipeline/src/passes.rs`), with
/// their default options (the unroller's on): the one list the round trip and the random tests run.
pub const PIPELINE_ORDER: &[ModulePass] = &[
    ("inline", |rm, r| {
        let options = vliw_rvsdg::opt::InlineOptions::default();
        vliw_rvsdg::opt::inline_calls(&mut rm.graph, &rm.roots, &options, r)
    }),
    ("invert", |rm, r| {
        vliw_rvsdg::opt::invert_loops(&mut rm.graph, r)
    }),
    ("ivr", |rm, r| {
        vliw_rvsdg::opt::invariant_value_redirection(&mut rm.graph, r)
    }),
    // off in the pipeline by default until every suite has run with it; on here
    ("select", |rm, r| {
        let budget = vliw_rvsdg::opt::select::DEFAULT_BUDGET;
        vliw_rvsdg::opt::speculate_gammas(&mut rm.graph, budget, r)
    }),
    ("fold", |rm, r| vliw_rvsdg::opt::fold(&mut rm.graph, r)),
    ("strength", |rm, r| {
        vliw_rvsdg::opt::strength_reduction(&mut rm.graph, r)
    }),
    ("gamma", |rm, r| {
        vliw_rvsdg::opt::gamma_simplification(&mut rm.graph, r)
    }),
    ("cne", |rm, r| {
        vliw_rvsdg::opt::common_node_elimination(&mut rm.graph, r)
    }),
    ("licm", |rm, r| {
        vliw_rvsdg::opt::loop_invariant_code_motion(&mut rm.graph, r)
    }),
    ("idiom", |rm, r| {
        vliw_rvsdg::opt::dead_node_elimination(&mut rm.graph, &rm.roots, r);
        vliw_rvsdg::opt::recognize_idioms(&mut rm.graph, r)
    }),
    ("version", |rm, r| {
        vliw_rvsdg::opt::version_loops(&mut rm.graph, r)
    }),
    ("fuse", |rm, r| {
        vliw_rvsdg::opt::fuse_loops(&mut rm.graph, r)
    }),
    ("jam", |rm, r| {
        vliw_rvsdg::opt::jam_loops(&mut rm.graph, None, true, r)
    }),
    ("unroll", |rm, r| {
        let options = vliw_rvsdg::opt::UnrollOptions::default();
        vliw_rvsdg::opt::unroll_loops(&mut rm.graph, &options, r)
    }),
    ("promote", |rm, r| {
        vliw_rvsdg::opt::promote_loop_cells(&mut rm.graph, r)
    }),
    ("memory", |rm, r| {
        vliw_rvsdg::opt::memory_optimization(&mut rm.graph, &rm.read_only, r)
    }),
    // with rvsdg-cne and rvsdg-licm after it, loads too, as the pipeline's entry runs
    // them; the locations of escaping parameters (off in the pipeline by default)
    // forced on here so that every test exercises them
    ("mem-split", |rm, r| {
        let options = vliw_rvsdg::opt::SplitOptions {
            scopes: true,
            escaping: true,
        };
        vliw_rvsdg::opt::split_memory_states(&mut rm.graph, options, r);
        vliw_rvsdg::opt::common_node_elimination_with_loads(&mut rm.graph, r);
        vliw_rvsdg::opt::loop_invariant_code_motion_with_loads(&mut rm.graph, r);
    }),
    ("induction", |rm, r| {
        vliw_rvsdg::opt::reduce_induction_addresses(&mut rm.graph, r)
    }),
    ("dne", |rm, r| {
        vliw_rvsdg::opt::dead_node_elimination(&mut rm.graph, &rm.roots, r)
    }),
];

pub const FOLD: Pass = vliw_rvsdg::opt::fold;
pub const STRENGTH: Pass = vliw_rvsdg::opt::strength_reduction;

/// `text` (an SSA IR module) parsed, verified, built, and the passes run on it, the
/// graph verified after each.
pub fn through(text: &str, passes: &[Pass]) -> (Module, RvsdgModule, Report) {
    let module = parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    verify_module(&module).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut report = Report::default();
    let mut rm = build_module(&module, &mut report);
    assert!(rm.not_built.is_empty(), "{:?}", rm.not_built);
    verified(&rm, "construction");
    for pass in passes {
        pass(&mut rm.graph, &mut report);
        verified(&rm, "a pass");
    }
    (module, rm, report)
}

/// Dead node elimination, as the pipeline runs it after the passes.
pub fn dne(rm: &mut RvsdgModule) {
    let mut report = Report::default();
    vliw_rvsdg::opt::dead_node_elimination(&mut rm.graph, &rm.roots, &mut report);
    verified(rm, "dne");
}

fn verified(rm: &RvsdgModule, after: &str) {
    if let Err(e) = vliw_rvsdg::verify(&rm.graph) {
        let e: Vec<String> = e.iter().map(|e| e.to_string()).collect();
        panic!(
            "does not verify after {after}:\n{}\n{}",
            e.join("\n"),
            rm.graph
        );
    }
}

/// What λ `name` returns (its body's results but the states).
pub fn returned(rm: &RvsdgModule, name: &str) -> Vec<Origin> {
    let g = &rm.graph;
    let l = rm.lambda(name).expect("the λ");
    let body = g.lambda_body(l);
    g.results(body)
        .iter()
        .copied()
        .filter(|&o| g.ty(o).value().is_some())
        .collect()
}

/// The operation that makes `o` (`None` for an argument or a structural node).
pub fn op_of(rm: &RvsdgModule, o: Origin) -> Option<&Op> {
    rm.graph.producer(o).and_then(|n| rm.graph.op(n))
}

/// The bits of `o` if a constant node makes it.
pub fn constant(rm: &RvsdgModule, o: Origin) -> Option<u128> {
    match op_of(rm, o)? {
        Op::Inst(vliw_ir::InstructionData::UnaryImm { imm, .. }) => Some(*imm),
        _ => None,
    }
}

/// Every simple node's operation below λ `name`.
pub fn ops_below(rm: &RvsdgModule, name: &str) -> Vec<(Node, Op)> {
    let g = &rm.graph;
    let l = rm.lambda(name).expect("the λ");
    g.regions_below(g.lambda_body(l))
        .into_iter()
        .flat_map(|r| g.nodes(r).to_vec())
        .filter_map(|n| Some((n, g.op(n)?.clone())))
        .collect()
}

/// `name(args)` on the graph's evaluator.
pub fn evaluate(
    rm: &RvsdgModule,
    module: &Module,
    name: &str,
    args: &[DataValue],
) -> Result<Vec<DataValue>, Trap> {
    Evaluator::new(&rm.graph, module).call(name, args)
}

/// `name(args)` on the interpreter, on the original module.
pub fn interpret(module: &Module, name: &str, args: &[DataValue]) -> Result<Vec<DataValue>, Trap> {
    vliw_ir::Interpreter::new(module).call(name, args)
}

/// Whether two runs agree: the same values (bits), or traps of the same kind.
pub fn agree(a: &Result<Vec<DataValue>, Trap>, b: &Result<Vec<DataValue>, Trap>) -> bool {
    match (a, b) {
        (Ok(x), Ok(y)) => x == y,
        (Err(x), Err(y)) => x.kind == y.kind,
        _ => false,
    }
}

/// `module` built, through [`PIPELINE_ORDER`] (a pass for which `instead` returns
/// true is run by it instead), the graph verified after every pass, and
/// sequentialized: the new module and the graph.
pub fn pipeline_sequentialized(
    module: &Module,
    report: &mut Report,
    instead: &dyn Fn(&str, &mut RvsdgModule, &mut Report) -> bool,
) -> Result<(Module, vliw_rvsdg::Rvsdg), String> {
    use super::differential::verified;
    let mut rm = build_module(module, report);
    if let Some((_, why)) = rm.not_built.first() {
        return Err(format!("not built: {why}"));
    }
    verified(&rm.graph, "construction")?;
    for (name, pass) in PIPELINE_ORDER {
        let before = rm.graph.to_string();
        if !instead(name, &mut rm, report) {
            pass(&mut rm, report);
        }
        verified(&rm.graph, &format!("{name}; before it:\n{before}"))?;
    }
    let mut new = module.clone();
    vliw_rvsdg::sequentialize_module(
        &rm,
        &mut new,
        vliw_rvsdg::Sequentializer::Structural,
        Default::default(),
        report,
    );
    verify_module(&new).map_err(|e| format!("the sequentialized module: {e}\n{new}"))?;
    Ok((new, rm.graph))
}
