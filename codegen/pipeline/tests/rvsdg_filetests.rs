//! RVSDG pass filetests (`tests/rvsdg/passes/**/*.{ir,rvsdg}`), precise-output like the
//! machine-IR ones (`tests/mir/README.md`): a file names passes of the pipeline's
//! RVSDG stage (`; test rvsdg-fold rvsdg-dne`, run in that order), holds its input (SSA
//! IR text in a `.ir` file, built by the pipeline's `rvsdg-build` first; RVSDG text in
//! a `.rvsdg` file) and, after a `; expect:` line, the graph after the passes as
//! comment lines. `; test rvsdg-build` alone tests the construction (an `.ir` input).
//! `VLIW_BLESS=1` rewrites the expectations instead (review them in the diff).
//! `sequentialize` may end the list (or be alone): the expectation is then the SSA IR
//! module the graph goes back to (how the control flow is rebuilt: `; set
//! sequentialize=lawrence` for Lawrence's method), not the graph.
//! `; set KEY=VALUE ...` lines set pipeline options (`rvsdg=on verify=each` always).
//!
//! The graph is verified after every pass. `; run: @f(ARGS) == RESULTS` lines (the IR
//! filetests' syntax, typed by the function's signature) run the function before the
//! passes (the SSA IR interpreter for an `.ir` input, the RVSDG evaluator for an
//! `.rvsdg` one), after them (the evaluator), and after sequentializing the result
//! (the interpreter); all three must give the expectation.

mod precise;

use std::path::{Path, PathBuf};

use vliw_ir::filetest::{Expect, Run};
use vliw_ir::interpreter::DataValue;
use vliw_ir::{Function, Interpreter, Module, Trap};
use vliw_pipeline::{Options, PIPELINE, Pass, Run as PassRun, Stage};
use vliw_rvsdg::{Evaluator, RvsdgModule};

const STEP_LIMIT: u64 = 1_000_000;

/// One parsed file.
struct FileTest {
    passes: Vec<&'static Pass>,
    options: Options,
    runs: Vec<Run>,
    /// The input is RVSDG text (else SSA IR).
    rvsdg_input: bool,
    /// The text before the expectation: the input.
    input: String,
    /// The expectation, without its `; ` prefixes.
    expected: String,
}

fn parse_file(text: &str, rvsdg_input: bool) -> Result<FileTest, String> {
    let (input, expected) = precise::split(text);
    let mut passes = Vec::new();
    let mut words = String::from("rvsdg=on verify=each");
    for (i, line) in input.lines().enumerate() {
        let line = line.trim();
        if let Some(names) = line.strip_prefix("; test ") {
            if !passes.is_empty() {
                return Err(format!("line {}: a second `; test` line", i + 1));
            }
            for name in names.split_whitespace() {
                let p = PIPELINE
                    .iter()
                    .find(|p| p.name == name)
                    .ok_or_else(|| format!("line {}: no pass `{name}` in the pipeline", i + 1))?;
                let build = p.from == Stage::Ir && p.to == Stage::Rvsdg;
                let back = p.from == Stage::Rvsdg && p.to == Stage::Ir;
                if back && passes.len() + 1 != names.split_whitespace().count() {
                    return Err(format!("line {}: `{name}` ends the list of passes", i + 1));
                }
                if !(build || back || (p.from == Stage::Rvsdg && p.to == Stage::Rvsdg)) {
                    return Err(format!(
                        "line {}: `{name}` is not a pass of the RVSDG stage",
                        i + 1
                    ));
                }
                if build && (rvsdg_input || names.split_whitespace().count() > 1) {
                    return Err(format!(
                        "line {}: `{name}` is tested alone, on an SSA IR input",
                        i + 1
                    ));
                }
                passes.push(p);
            }
        } else if let Some(set) = line.strip_prefix("; set ") {
            words.push(' ');
            words.push_str(set);
        }
    }
    if passes.is_empty() {
        return Err("no `; test PASS...` line".into());
    }
    let options = Options::parse(&words)?;
    if let Some(p) = passes.iter().find(|p| !(p.runs)(&options)) {
        return Err(format!(
            "`{}` does not run under the options `{words}` (a `; set` line selects it)",
            p.name
        ));
    }
    let (runs, _) = vliw_ir::filetest::directives(input)?;
    Ok(FileTest {
        passes,
        options,
        runs,
        rvsdg_input,
        input: input.to_string(),
        expected,
    })
}

/// The pipeline's construction pass.
fn build_pass() -> &'static Pass {
    PIPELINE
        .iter()
        .find(|p| p.from == Stage::Ir && p.to == Stage::Rvsdg)
        .expect("the pipeline builds the RVSDG")
}

/// The pipeline's way back to the SSA IR.
fn sequentialize_pass() -> &'static Pass {
    PIPELINE
        .iter()
        .find(|p| p.from == Stage::Rvsdg && p.to == Stage::Ir)
        .expect("the pipeline sequentializes the RVSDG")
}

/// The input as an SSA IR module (for an RVSDG input: the λs' shells, so that
/// sequentializing has functions to replace) and the graph before the passes (`None`
/// when the tested pass is the construction).
fn read_input(t: &FileTest) -> Result<(Module, Option<RvsdgModule>), String> {
    if t.rvsdg_input {
        let graph =
            vliw_rvsdg::parse_graph(&t.input).map_err(|e| format!("the RVSDG input: {e}"))?;
        verify_graph(&graph, "the input")?;
        let mut module = Module::new();
        let mut rm = RvsdgModule::default();
        for l in graph.lambdas() {
            rm.lambdas.push((module.functions.len(), l));
            module.functions.push(graph.lambda_info(l).clone());
        }
        rm.graph = graph;
        return Ok((module, Some(rm)));
    }
    let module = vliw_ir::parse_module(&t.input).map_err(|e| format!("the SSA IR input: {e}"))?;
    vliw_ir::verify_module(&module).map_err(|e| format!("the SSA IR input: {e}"))?;
    if t.passes[0].from == Stage::Ir {
        return Ok((module, None));
    }
    let rm = build(&module, &t.options)?;
    Ok((module, Some(rm)))
}

fn build(module: &Module, options: &Options) -> Result<RvsdgModule, String> {
    let PassRun::Build(f) = build_pass().run else {
        return Err("the construction pass does not build".into());
    };
    let rm = f(module, options);
    verify_graph(&rm.graph, "rvsdg-build")?;
    Ok(rm)
}

fn verify_graph(g: &vliw_rvsdg::Rvsdg, after: &str) -> Result<(), String> {
    vliw_rvsdg::verify(g).map_err(|errors| {
        let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        format!(
            "the RVSDG does not verify after {after}:\n{}",
            text.join("\n")
        )
    })
}

/// Runs the file's passes; the graph after them.
fn run_passes(
    t: &FileTest,
    module: &Module,
    before: Option<RvsdgModule>,
) -> Result<RvsdgModule, String> {
    let Some(mut rm) = before else {
        return build(module, &t.options);
    };
    for pass in t.passes.iter().filter(|p| p.to == Stage::Rvsdg) {
        let PassRun::Rvsdg(f) = pass.run else {
            return Err(format!("`{}` is not an RVSDG pass", pass.name));
        };
        f(&mut rm, &t.options);
        verify_graph(&rm.graph, &format!("`{}`", pass.name))?;
    }
    Ok(rm)
}

/// The module the graph sequentializes to, verified.
fn sequentialize(rm: &RvsdgModule, module: &Module, options: &Options) -> Result<Module, String> {
    let PassRun::Sequentialize(f) = sequentialize_pass().run else {
        return Err("the sequentialization pass does not sequentialize".into());
    };
    let mut out = module.clone();
    f(rm, &mut out, options);
    vliw_ir::verify_module(&out).map_err(|e| format!("the sequentialized module: {e}"))?;
    Ok(out)
}

/// The signature of the function a run line calls, from the module or the graph.
fn run_args(func: Option<&Function>, run: &Run) -> Result<Vec<DataValue>, String> {
    let func = func.ok_or_else(|| format!("line {}: no function @{}", run.line, run.func))?;
    let params = &func.signature.params;
    if params.len() != run.args.len() {
        return Err(format!(
            "line {}: {} arguments for {} parameters",
            run.line,
            run.args.len(),
            params.len()
        ));
    }
    run.args
        .iter()
        .zip(params)
        .map(|(a, &ty)| {
            DataValue::parse(ty, a)
                .ok_or_else(|| format!("line {}: cannot read `{a}` as {ty}", run.line))
        })
        .collect()
}

fn value_matches(expected: &str, got: &DataValue) -> Result<bool, String> {
    if got.ty().is_float() && expected.trim() == "nan" {
        return Ok(got.is_nan());
    }
    let e = DataValue::parse(got.ty(), expected)
        .ok_or_else(|| format!("cannot read `{expected}` as {}", got.ty()))?;
    Ok(e == *got)
}

/// Whether a run's outcome is what its line expects.
fn check_outcome(run: &Run, got: Result<Vec<DataValue>, Trap>, on: &str) -> Result<(), String> {
    let ctx = |why: String| format!("line {}: {on}: {why}", run.line);
    match (&run.expect, got) {
        (Expect::Trap(t), Err(trap)) if trap.message.contains(t.as_str()) => Ok(()),
        (Expect::Trap(t), Err(trap)) => Err(ctx(format!(
            "trapped with `{}`, expected `{t}`",
            trap.message
        ))),
        (Expect::Trap(t), Ok(v)) => Err(ctx(format!("returned {v:?}, expected a trap `{t}`"))),
        (_, Err(trap)) => Err(ctx(format!("trapped: {}", trap.message))),
        (Expect::Nothing, Ok(_)) => Ok(()),
        (Expect::Values(exp), Ok(got)) => {
            if exp.len() != got.len() {
                return Err(ctx(format!(
                    "returned {} values, expected {}",
                    got.len(),
                    exp.len()
                )));
            }
            for (e, g) in exp.iter().zip(&got) {
                if !value_matches(e, g).map_err(ctx)? {
                    return Err(ctx(format!("returned {got:?}, expected {exp:?}")));
                }
            }
            Ok(())
        }
    }
}

fn evaluate(
    rm: &RvsdgModule,
    module: &Module,
    run: &Run,
) -> Result<Result<Vec<DataValue>, Trap>, String> {
    let info = rm.lambda(&run.func).map(|l| rm.graph.lambda_info(l));
    let args = run_args(info, run)?;
    let mut ev = Evaluator::new(&rm.graph, module);
    ev.set_step_limit(STEP_LIMIT);
    Ok(ev.call(&run.func, &args))
}

fn interpret(module: &Module, run: &Run) -> Result<Result<Vec<DataValue>, Trap>, String> {
    let args = run_args(module.function(&run.func), run)?;
    let mut interp = Interpreter::new(module);
    interp.set_step_limit(STEP_LIMIT);
    Ok(interp.call(&run.func, &args))
}

fn check_runs(
    t: &FileTest,
    module: &Module,
    before: Option<&RvsdgModule>,
    after: &RvsdgModule,
    sequential: &Module,
) -> Result<(), String> {
    for run in &t.runs {
        let got = match before {
            Some(rm) if t.rvsdg_input => evaluate(rm, module, run)?,
            _ => interpret(module, run)?,
        };
        check_outcome(run, got, "before the passes")?;
        check_outcome(run, evaluate(after, module, run)?, "after the passes")?;
        check_outcome(run, interpret(sequential, run)?, "sequentialized")?;
    }
    Ok(())
}

/// What checking one file found: the passes it tests, its number of runs, and the
/// blessed text when blessing changed it.
type Checked = (Vec<&'static str>, usize, Option<String>);

fn check_text(text: &str, rvsdg_input: bool, bless: bool) -> Result<Checked, String> {
    let t = parse_file(text, rvsdg_input)?;
    let (module, before) = read_input(&t)?;
    let after = run_passes(&t, &module, before.clone())?;
    let sequential = sequentialize(&after, &module, &t.options)?;
    let mut got = String::new();
    if t.passes.last().is_some_and(|p| p.to == Stage::Ir) {
        got = sequential.to_string();
    } else {
        vliw_rvsdg::write_graph(&mut got, &after.graph);
    }
    let got = got.trim_end();
    let mut blessed_text = None;
    if got != t.expected {
        if !bless {
            let first = precise::first_difference(got, &t.expected);
            return Err(format!(
                "the output of {:?} differs from the expectation at its line {} \
                 (VLIW_BLESS=1 rewrites it):\n{got}",
                t.passes.iter().map(|p| p.name).collect::<Vec<_>>(),
                first
            ));
        }
        blessed_text = Some(precise::blessed(&t.input, got));
    }
    check_runs(&t, &module, before.as_ref(), &after, &sequential)?;
    Ok((
        t.passes.iter().map(|p| p.name).collect(),
        t.runs.len(),
        blessed_text,
    ))
}

fn files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/rvsdg/passes");
    precise::collect(&root, &["ir", "rvsdg"])
}

#[test]
fn rvsdg_pass_filetests() {
    let bless = std::env::var_os("VLIW_BLESS").is_some();
    let mut failures = Vec::new();
    let mut passes_tested = std::collections::BTreeSet::new();
    let mut runs = 0;
    let files = files();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("read");
        let rvsdg_input = path.extension().is_some_and(|x| x == "rvsdg");
        match check_text(&text, rvsdg_input, bless) {
            Ok((passes, n, blessed)) => {
                passes_tested.extend(passes);
                runs += n;
                if let Some(new) = blessed {
                    std::fs::write(path, new).expect("write the blessed file");
                }
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    eprintln!(
        "{} RVSDG pass filetests, {runs} runs, passes tested: {passes_tested:?}",
        files.len()
    );
    // every pass of the RVSDG stage has a filetest
    for pass in PIPELINE.iter().filter(|p| p.from == Stage::Rvsdg) {
        if !passes_tested.contains(pass.name) {
            failures.push(format!("no RVSDG pass filetest tests `{}`", pass.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A changed expectation and a wrong run line are found.
#[test]
fn mismatches_fail() {
    let path = files()
        .into_iter()
        .find(|p| p.file_name().is_some_and(|n| n == "dne-basic.ir"))
        .expect("tests/rvsdg/passes/dne-basic.ir");
    let text = std::fs::read_to_string(path).expect("read");
    assert!(check_text(&text, false, false).is_ok());
    let at = text.find("; expect:").expect("an expectation");
    let changed = format!(
        "{}{}",
        &text[..at],
        text[at..].replacen("iconst", "iconst 0 ; ", 1)
    );
    assert!(
        check_text(&changed, false, false).is_err(),
        "a changed expectation passed"
    );
    let wrong = text.replacen("; run:", "; run: @f(1) == 12345\n; run:", 1);
    assert!(
        check_text(&wrong, false, false).is_err(),
        "a wrong run line passed"
    );
}
