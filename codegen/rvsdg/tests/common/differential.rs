//! Differential runs on the SSA IR interpreter: a module before and after a
//! transformation must give the same results, traps and output.

#![allow(dead_code)] // each test file uses a part

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use vliw_ir::{DataValue, HostFn, Interpreter, Memory, Module, Trap, TrapKind};

/// The step limit of the original program; the transformed one may take more.
pub const STEPS: u64 = 1_000_000;

pub struct Outcome {
    pub result: Result<Vec<DataValue>, Trap>,
    pub stdout: Vec<u8>,
}

/// The host functions the tests use, writing what they print to `out`: `@trace(x)`
/// (the random functions' side effect) and `@write(fd, buf, len)`.
fn hosts(out: &Rc<RefCell<Vec<u8>>>) -> [(&'static str, HostFn<'static>); 2] {
    let (o, t) = (out.clone(), out.clone());
    [
        (
            "trace",
            Box::new(move |_: &mut Memory, a: &[DataValue]| {
                t.borrow_mut()
                    .extend_from_slice(format!("[{}]", a[0]).as_bytes());
                Ok(vec![])
            }),
        ),
        (
            "write",
            Box::new(move |mem: &mut Memory, a: &[DataValue]| {
                let (DataValue::I64(_), DataValue::Ptr(p), DataValue::I64(n)) = (a[0], a[1], a[2])
                else {
                    return Err(Trap::new(TrapKind::Host, "write(i64, ptr, i64)"));
                };
                o.borrow_mut().extend_from_slice(mem.read(p, n as u64)?);
                Ok(vec![DataValue::I64(n)])
            }),
        ),
    ]
}

/// Runs `func(args)` on the interpreter.
pub fn run(module: &Module, func: &str, args: &[DataValue], steps: u64) -> Outcome {
    let out: Rc<RefCell<Vec<u8>>> = Rc::default();
    let mut interp = Interpreter::new(module);
    interp.set_step_limit(steps);
    for (name, f) in hosts(&out) {
        interp.add_host(name, f);
    }
    let result = interp.call(func, args);
    drop(interp);
    let stdout = out.borrow().clone();
    Outcome { result, stdout }
}

/// Runs `func(args)` on the RVSDG evaluator.
pub fn evaluate(
    graph: &vliw_rvsdg::Rvsdg,
    module: &Module,
    func: &str,
    args: &[DataValue],
    steps: u64,
) -> Outcome {
    let out: Rc<RefCell<Vec<u8>>> = Rc::default();
    let mut ev = vliw_rvsdg::Evaluator::new(graph, module);
    ev.set_step_limit(steps);
    for (name, f) in hosts(&out) {
        ev.add_host(name, f);
    }
    let result = ev.call(func, args);
    drop(ev);
    let stdout = out.borrow().clone();
    Outcome { result, stdout }
}

/// Whether two runs agree: the same results, or traps of the same kind, and the same
/// output.
pub fn same(a: &Outcome, b: &Outcome) -> bool {
    let same = match (&a.result, &b.result) {
        (Ok(x), Ok(y)) => x == y,
        (Err(x), Err(y)) => x.kind == y.kind,
        _ => false,
    };
    same && a.stdout == b.stdout
}

#[derive(Default, Debug)]
pub struct Compared {
    pub runs: usize,
    /// The original reached `unreachable` (undefined behaviour: anything goes after).
    pub undefined: usize,
    pub step_limit: usize,
}

/// Runs `func(args)` on both modules and compares; `Err` describes a difference.
pub fn compare(
    orig: &Module,
    new: &Module,
    func: &str,
    args: &[DataValue],
    tally: &mut Compared,
) -> Result<(), String> {
    compare_steps(orig, new, func, args, STEPS, tally)
}

/// `compare` with the original limited to `steps` steps.
pub fn compare_steps(
    orig: &Module,
    new: &Module,
    func: &str,
    args: &[DataValue],
    steps: u64,
    tally: &mut Compared,
) -> Result<(), String> {
    let a = run(orig, func, args, steps);
    tally.runs += 1;
    let limit = match &a.result {
        // The transformed code takes at least as many steps to the same point (muxes,
        // constants), so it hits the same limit.
        Err(t) if t.kind == TrapKind::StepLimit => steps,
        _ => steps * 20,
    };
    let b = run(new, func, args, limit);
    if let Err(t) = &a.result
        && t.kind == TrapKind::Unreachable
    {
        tally.undefined += 1;
        return Ok(());
    }
    let same_result = match (&a.result, &b.result) {
        (Ok(x), Ok(y)) => x == y,
        (Err(x), Err(y)) => x.kind == y.kind,
        _ => false,
    };
    // Stopped by the step limit, the transformed code has done a prefix of the
    // original's side effects.
    let stopped = matches!(&a.result, Err(t) if t.kind == TrapKind::StepLimit);
    tally.step_limit += usize::from(stopped);
    let same_output = if stopped {
        a.stdout.starts_with(&b.stdout)
    } else {
        a.stdout == b.stdout
    };
    if !same_result || !same_output {
        return Err(format!(
            "@{func}({}): before {:?} (stdout {:?}), after {:?} (stdout {:?})",
            args.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            a.result,
            String::from_utf8_lossy(&a.stdout),
            b.result,
            String::from_utf8_lossy(&b.stdout)
        ));
    }
    Ok(())
}

/// The IR filetests of the repository and the test runtime.
pub fn filetests() -> (PathBuf, Vec<PathBuf>) {
    fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                collect(&p, out);
            } else if p.extension().is_some_and(|e| e == "ir") {
                out.push(p);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    collect(&root.join("tests/ir"), &mut files);
    files.push(root.join("codegen/pipeline/tests/support/runtime.ir"));
    assert!(files.len() > 50, "found only {} filetests", files.len());
    (root, files)
}

/// The arguments of a run line, if they can be read as the function's parameters.
pub fn parse_args(module: &Module, func: &str, args: &[String]) -> Option<Vec<DataValue>> {
    let sig = &module.function(func)?.signature;
    if sig.params.len() != args.len() {
        return None;
    }
    args.iter()
        .zip(&sig.params)
        .map(|(a, &t)| DataValue::parse(t, a))
        .collect()
}

/// `Ok` if graph `g` verifies, else the errors and the graph, saying after what.
pub fn verified(g: &vliw_rvsdg::Rvsdg, after: &str) -> Result<(), String> {
    vliw_rvsdg::verify(g).map_err(|e| {
        let e: Vec<String> = e.iter().map(|e| e.to_string()).collect();
        format!("does not verify after {after}:\n{}\n{g}", e.join("\n"))
    })
}

/// What a random test counts over its programs: the runs compared, those that ran
/// too long (not compared), and the failures, the first of which it shows.
#[derive(Default)]
pub struct Tally {
    pub runs: usize,
    pub too_long: usize,
    pub failures: Vec<String>,
}

impl Tally {
    /// Runs `func(args)` on `module` (at most `steps` steps), then on `graph` (the
    /// optimized RVSDG of `module`) and on `new` (its sequentialization), each
    /// allowed 20 times as many, and counts the run: the original's outcome when all
    /// three agree, `None` when the original ran too long (nothing compared) or they
    /// differ (a failure, with `text`, the original's source, and `what`, the case).
    #[allow(clippy::too_many_arguments)]
    pub fn check(
        &mut self,
        module: &Module,
        graph: &vliw_rvsdg::Rvsdg,
        new: &Module,
        text: &str,
        func: &str,
        args: &[DataValue],
        steps: u64,
        what: &str,
    ) -> Option<Outcome> {
        let a = run(module, func, args, steps);
        if a.result
            .as_ref()
            .is_err_and(|t| t.kind == TrapKind::StepLimit)
        {
            self.too_long += 1;
            return None;
        }
        self.runs += 1;
        let b = evaluate(graph, module, func, args, steps * 20);
        if !same(&a, &b) {
            self.failures.push(format!(
                "{what}: the graph gives {:?}, the original {:?}\n{text}\n{graph}",
                b.result, a.result
            ));
            return None;
        }
        let c = run(new, func, args, steps * 20);
        if !same(&a, &c) {
            self.failures.push(format!(
                "{what}: sequentialized, {:?}, the original {:?}\n{text}\n{new}",
                c.result, a.result
            ));
            return None;
        }
        Some(a)
    }

    /// Records that the pipeline failed on program `text` (seed `seed`).
    pub fn compile_error(&mut self, seed: u64, error: &str, text: &str) {
        self.failures
            .push(format!("seed {seed}: {error}\noriginal:\n{text}"));
    }

    /// Panics with the number of failures and the first.
    pub fn assert_passed(&self) {
        assert!(
            self.failures.is_empty(),
            "{} failures, the first:\n{}",
            self.failures.len(),
            self.failures[0]
        );
    }
}

/// A random test's program, parsed and verified (a panic with its text otherwise: the
/// generator is wrong).
pub fn parsed(text: &str) -> Module {
    let module = vliw_ir::parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    vliw_ir::verify_module(&module).unwrap_or_else(|e| panic!("{e}\n{text}"));
    module
}
