//! Machine-IR filetests (`tests/mir/**/*.mir`), in the style of Cranelift's
//! precise-output filetests: a file names one pass of the pipeline (`; test PASS`),
//! holds its input (SSA IR text for `isel`, machine IR text for the machine passes)
//! and, after a `; expect:` line, the pass's output as comment lines. The runner runs
//! that one pass on every function of the input, verifies the result for the pass's
//! stage, and compares its text with the expectation; `VLIW_BLESS=1` rewrites the
//! expectations instead (review them in the diff). `; set KEY=VALUE ...` lines set
//! pipeline options (`regalloc=naive`, `ssa-destruction=boissinot`, `machine=...`).
//!
//! `; run: @f(ARGS) == RESULTS` lines (`vliw_ir::filetest`'s syntax; 64-bit words)
//! run the function before and after the pass, on the SSA IR's interpreter for an
//! SSA IR input and on the machine IR's interpreter (`vliw_machine::interp`)
//! otherwise, and the results must equal the expectation both times.

mod precise;

use std::path::Path;

use vliw_ir::filetest::{Expect, Run};
use vliw_ir::interpreter::DataValue;
use vliw_ir::{Module, Type};
use vliw_machine::MachFunction;
use vliw_machine::interp::{Interpreter, Stop};
use vliw_machine::mir::parse_machine_functions;
use vliw_pipeline::{Options, PIPELINE, Pass, Stage, Unit, run_pass};

const STEP_LIMIT: u64 = 1_000_000;

/// One parsed file.
struct FileTest {
    pass: &'static Pass,
    options: Options,
    runs: Vec<Run>,
    /// The text before the expectation: the input.
    input: String,
    /// The expectation, without its `; ` prefixes.
    expected: String,
}

fn parse_file(text: &str) -> Result<FileTest, String> {
    let (input, expected) = precise::split(text);
    let mut pass = None;
    let mut words = String::from("verify=each");
    for (i, line) in input.lines().enumerate() {
        let line = line.trim();
        if let Some(name) = line.strip_prefix("; test ") {
            let name = name.trim();
            let p = PIPELINE
                .iter()
                .find(|p| p.name == name)
                .ok_or_else(|| format!("line {}: no pass `{name}` in the pipeline", i + 1))?;
            if pass.replace(p).is_some() {
                return Err(format!("line {}: a second `; test` line", i + 1));
            }
        } else if let Some(set) = line.strip_prefix("; set ") {
            words.push(' ');
            words.push_str(set);
        }
    }
    let pass = pass.ok_or("no `; test PASS` line")?;
    let options = Options::parse(&words)?;
    if !(pass.runs)(&options) {
        return Err(format!(
            "`{}` does not run under the options `{words}` (a `; set` line selects it)",
            pass.name
        ));
    }
    let (runs, _) = vliw_ir::filetest::directives(input)?;
    Ok(FileTest {
        pass,
        options,
        runs,
        input: input.to_string(),
        expected,
    })
}

/// The input's functions at the pass's input stage.
enum Input {
    Ir(Module),
    Machine(Vec<MachFunction>),
}

fn read_input(t: &FileTest) -> Result<Input, String> {
    if t.pass.from == Stage::Ir {
        vliw_ir::parse_module(&t.input)
            .map(Input::Ir)
            .map_err(|e| format!("the SSA IR input: {e}"))
    } else {
        parse_machine_functions(&t.input)
            .map(Input::Machine)
            .map_err(|e| format!("the machine IR input: {e}"))
    }
}

/// Runs the pass on every function; the outputs at the pass's output stage.
fn run_the_pass(t: &FileTest, input: &Input) -> Result<Vec<MachFunction>, String> {
    let empty = Module::new();
    let (module, units): (&Module, Vec<Unit<'_>>) = match input {
        Input::Ir(m) => (
            m,
            m.functions
                .iter()
                .map(|f| Unit::Ir(std::borrow::Cow::Borrowed(f)))
                .collect(),
        ),
        Input::Machine(fs) => (&empty, fs.iter().cloned().map(Unit::Machine).collect()),
    };
    if let Some(phase) = t.pass.from.machine_phase() {
        for unit in &units {
            if let Unit::Machine(mf) = unit {
                mf.verify_for(phase, &t.options.backend.machine)
                    .map_err(|e| format!("the input does not verify for {phase:?}: {e}"))?;
            }
        }
    }
    let mut out = Vec::new();
    for unit in units {
        match run_pass(t.pass, module, unit, &t.options).map_err(|e| e.to_string())? {
            Unit::Machine(mf) => {
                let phase = t.pass.to.machine_phase().expect("a machine stage");
                mf.verify_for(phase, &t.options.backend.machine)
                    .map_err(|e| format!("the output does not verify for {phase:?}: {e}"))?;
                out.push(mf);
            }
            _ => return Err(format!("`{}` does not output machine IR", t.pass.name)),
        }
    }
    Ok(out)
}

/// A 64-bit word written as a decimal (maybe negative) or `0x` hexadecimal integer.
fn word(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let parsed = if let Some(h) = s.strip_prefix("0x") {
        u64::from_str_radix(&h.replace('_', ""), 16).ok()
    } else if let Some(n) = s.strip_prefix('-') {
        n.parse::<u64>().ok().map(|v| v.wrapping_neg())
    } else {
        s.parse::<u64>().ok()
    };
    parsed.ok_or_else(|| format!("`{s}` is not a 64-bit integer"))
}

/// What a run gave: result words, or that it trapped.
#[derive(Debug, PartialEq)]
enum Outcome {
    Words(Vec<u64>),
    Trapped,
}

fn run_machine(funcs: &[MachFunction], run: &Run) -> Result<Outcome, String> {
    let args: Vec<u64> = run.args.iter().map(|a| word(a)).collect::<Result<_, _>>()?;
    let mut interp = Interpreter::new(funcs);
    interp.set_step_limit(STEP_LIMIT);
    let words = match &run.expect {
        Expect::Values(v) => v.len(),
        _ => 0,
    };
    match interp.call_with_results(&run.func, &args, words) {
        Ok(results) => Ok(Outcome::Words(results)),
        Err(Stop::Trap(_)) => Ok(Outcome::Trapped),
        Err(e) => Err(format!("the machine interpreter stopped: {e}")),
    }
}

/// Runs an SSA IR function whose parameters and results are all `i64` (words).
fn run_ir(module: &Module, run: &Run) -> Result<Outcome, String> {
    let f = module
        .functions
        .iter()
        .find(|f| f.name == run.func)
        .ok_or_else(|| format!("no function @{}", run.func))?;
    let sig = &f.signature;
    if sig
        .params
        .iter()
        .chain(&sig.returns)
        .any(|&t| t != Type::I64)
    {
        return Err("run lines of an SSA IR input need i64 parameters and results".into());
    }
    let args: Vec<DataValue> = run
        .args
        .iter()
        .map(|a| word(a).map(|w| DataValue::I64(w as i64)))
        .collect::<Result<_, _>>()?;
    let mut interp = vliw_ir::interpreter::Interpreter::new(module);
    interp.set_step_limit(STEP_LIMIT);
    match interp.call(&run.func, &args) {
        Ok(results) => Ok(Outcome::Words(
            results.iter().map(|v| v.bits() as u64).collect(),
        )),
        Err(_) => Ok(Outcome::Trapped),
    }
}

fn check_runs(t: &FileTest, input: &Input, output: &[MachFunction]) -> Result<(), String> {
    for run in &t.runs {
        let expected = match &run.expect {
            Expect::Values(v) => {
                Outcome::Words(v.iter().map(|s| word(s)).collect::<Result<_, _>>()?)
            }
            Expect::Trap(_) => Outcome::Trapped,
            Expect::Nothing => Outcome::Words(Vec::new()),
        };
        let before = match input {
            Input::Ir(m) => run_ir(m, run),
            Input::Machine(fs) => run_machine(fs, run),
        }
        .map_err(|e| format!("line {}: before the pass: {e}", run.line))?;
        let after = run_machine(output, run)
            .map_err(|e| format!("line {}: after the pass: {e}", run.line))?;
        if before != expected || after != expected {
            return Err(format!(
                "line {}: expected {expected:?}, before the pass {before:?}, after it {after:?}",
                run.line
            ));
        }
    }
    Ok(())
}

/// Checks one file: `Ok(None)` when it holds, `Ok(Some(text))` with the blessed
/// file when `bless` and only the expectation differs.
fn check_text(text: &str, bless: bool) -> Result<(&'static str, usize, Option<String>), String> {
    let t = parse_file(text)?;
    let input = read_input(&t)?;
    let output = run_the_pass(&t, &input)?;
    let got: String = output
        .iter()
        .map(|f| f.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    let got = got.trim_end();
    let mut blessed_text = None;
    if got != t.expected {
        if !bless {
            let first = precise::first_difference(got, &t.expected);
            return Err(format!(
                "the output of `{}` differs from the expectation at its line {} \
                 (VLIW_BLESS=1 rewrites it):\n{got}",
                t.pass.name, first
            ));
        }
        blessed_text = Some(precise::blessed(&t.input, got));
    }
    check_runs(&t, &input, &output)?;
    Ok((t.pass.name, t.runs.len(), blessed_text))
}

#[test]
fn machine_ir_filetests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/mir");
    let files = precise::collect(&root, &["mir"]);
    let bless = std::env::var_os("VLIW_BLESS").is_some();
    let mut failures = Vec::new();
    let mut passes_tested = std::collections::BTreeSet::new();
    let mut runs = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("read");
        match check_text(&text, bless) {
            Ok((pass, n, blessed)) => {
                passes_tested.insert(pass);
                runs += n;
                if let Some(new) = blessed {
                    std::fs::write(path, new).expect("write the blessed file");
                }
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    eprintln!(
        "{} machine-IR filetests, {runs} runs, passes tested: {passes_tested:?}",
        files.len()
    );
    for required in ["isel", "ssa-destruction", "ssa-regalloc", "sched"] {
        assert!(
            passes_tested.contains(required),
            "no machine-IR filetest of `{required}`"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A changed expectation, a wrong run line and a pass that breaks a run are found.
#[test]
fn mismatches_fail() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/mir/ssa-regalloc.mir");
    let text = std::fs::read_to_string(path).expect("read");
    assert!(check_text(&text, false).is_ok());
    let changed = text.replacen(";     r13 = add r12, 1", ";     r13 = add r12, 2", 1);
    assert_ne!(changed, text);
    let e = check_text(&changed, false).unwrap_err();
    assert!(e.contains("differs from the expectation"), "{e}");
    // blessing restores the file
    let (_, _, blessed) = check_text(&changed, true).unwrap();
    assert_eq!(blessed.as_deref(), Some(text.as_str()));
    let wrong = text.replacen("@lost_copy(5) == 4", "@lost_copy(5) == 5", 1);
    let e = check_text(&wrong, false).unwrap_err();
    assert!(e.contains("expected Words([5])"), "{e}");
    // an input the pass cannot take is an error, not a panic
    let e = check_text(
        "; test sched\nmachine function @f {\nblock0:\n    v0 = copy r3\n    ret\n}\n",
        false,
    )
    .unwrap_err();
    assert!(e.contains("does not verify"), "{e}");
}

#[test]
fn the_header_is_checked() {
    let err = |text: &str| match parse_file(text) {
        Ok(_) => panic!("`{text}` parses"),
        Err(e) => e,
    };
    assert!(err("; test frobnicate\n").contains("no pass"));
    assert!(err("function @f() {\n}\n").contains("no `; test"));
    assert!(err("; test isel\n; test dce\n").contains("second"));
    // the naive allocator's passes run only with regalloc=naive
    assert!(err("; test naive-regalloc\n").contains("does not run"));
    let Ok(t) =
        parse_file("; test naive-regalloc\n; set regalloc=naive\nx\n\n; expect:\n; a\n;\n; b\n")
    else {
        panic!("does not parse");
    };
    assert_eq!(t.expected, "a\n\nb");
    assert_eq!(word("-1").unwrap(), u64::MAX);
    assert_eq!(word("0x10").unwrap(), 16);
    assert!(word("1.5").is_err());
}
