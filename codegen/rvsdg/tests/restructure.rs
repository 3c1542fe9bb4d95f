//! The control-flow restructuring (`vliw_rvsdg::restructure`) by differential
//! interpretation: every function of every IR filetest of the repository, hand-written
//! shapes (irreducible loops, several exits, breaks out of nested loops, endless
//! loops, huge switches, short-circuit conditions...) and random CFGs are
//! restructured; the result must verify, be accepted by `structure_tree`, and give the
//! interpreter the same results, traps and output as the original.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use vliw_ir::filetest::{Expect, directives};
use vliw_ir::{
    DataValue, Function, Interpreter, Module, Trap, TrapKind, parse_module, verify_function,
    verify_module,
};
use vliw_rvsdg::restructure::{RestructureStats, Tree, restructure, structure_tree};

// ---- running -------------------------------------------------------------------

/// The step limit of the original program; the restructured one may take more steps
/// (muxes, constants), never fewer, to reach the same point.
const STEPS: u64 = 1_000_000;

struct Outcome {
    result: Result<Vec<DataValue>, Trap>,
    stdout: Vec<u8>,
}

fn run(module: &Module, func: &str, args: &[DataValue], steps: u64) -> Outcome {
    let out: Rc<RefCell<Vec<u8>>> = Rc::default();
    let mut interp = Interpreter::new(module);
    interp.set_step_limit(steps);
    let o = out.clone();
    interp.add_host("write", move |mem, a| {
        let (DataValue::I64(_), DataValue::Ptr(p), DataValue::I64(n)) = (a[0], a[1], a[2]) else {
            return Err(Trap::new(TrapKind::Host, "write(i64, ptr, i64)"));
        };
        o.borrow_mut().extend_from_slice(mem.read(p, n as u64)?);
        Ok(vec![DataValue::I64(n)])
    });
    let result = interp.call(func, args);
    drop(interp);
    let stdout = out.borrow().clone();
    Outcome { result, stdout }
}

/// The trap's identity, without the message (which names blocks and instructions).
fn trap_key(t: &Trap) -> TrapKind {
    t.kind
}

#[derive(Default, Debug)]
struct Compared {
    runs: usize,
    /// The original reached `unreachable` (undefined behaviour: anything goes after).
    undefined: usize,
    step_limit: usize,
}

/// Runs `func(args)` on both modules and compares; `Err` describes a difference.
fn compare(
    orig: &Module,
    new: &Module,
    func: &str,
    args: &[DataValue],
    tally: &mut Compared,
) -> Result<(), String> {
    let a = run(orig, func, args, STEPS);
    tally.runs += 1;
    let limit = match &a.result {
        // The restructured code takes at least as many steps to the same point, so it
        // hits the same limit.
        Err(t) if t.kind == TrapKind::StepLimit => STEPS,
        _ => STEPS * 20,
    };
    let b = run(new, func, args, limit);
    if let Err(t) = &a.result
        && t.kind == TrapKind::Unreachable
    {
        tally.undefined += 1;
        return Ok(());
    }
    let same = match (&a.result, &b.result) {
        (Ok(x), Ok(y)) => x == y,
        (Err(x), Err(y)) => trap_key(x) == trap_key(y),
        _ => false,
    };
    if let Err(t) = &a.result
        && t.kind == TrapKind::StepLimit
    {
        tally.step_limit += 1;
    }
    if !same || a.stdout != b.stdout {
        return Err(format!(
            "@{func}({}): original {:?} (stdout {:?}), restructured {:?} (stdout {:?})",
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

/// Restructures `f` (a copy), checks the result, and returns it with the stats and
/// whether a second restructuring changed anything.
fn restructure_checked(f: &Function) -> Result<(Function, RestructureStats, bool), String> {
    let mut g = f.clone();
    let stats = restructure(&mut g);
    verify_function(&g).map_err(|e| format!("@{}: does not verify:\n{e}\n{g}", f.name))?;
    structure_tree(&g).map_err(|e| format!("not structured: {e}\n{g}"))?;
    let mut h = g.clone();
    let again = restructure(&mut h);
    verify_function(&h).map_err(|e| format!("@{}: second pass does not verify:\n{e}", f.name))?;
    structure_tree(&h).map_err(|e| format!("second pass not structured: {e}\n{h}"))?;
    let changed = again.changed() || h.to_string() != g.to_string();
    Ok((g, stats, changed))
}

/// Restructures every function of `module`.
fn restructure_module(module: &Module) -> Result<(Module, RestructureStats, usize), String> {
    let mut new = module.clone();
    let mut total = RestructureStats::default();
    let mut not_idempotent = 0;
    for f in &mut new.functions {
        let (g, stats, changed) = restructure_checked(f)?;
        total.add(&stats);
        not_idempotent += usize::from(changed);
        *f = g;
    }
    verify_module(&new).map_err(|e| e.to_string())?;
    Ok((new, total, not_idempotent))
}

// ---- the repository's filetests --------------------------------------------------

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

fn parse_args(module: &Module, func: &str, args: &[String]) -> Option<Vec<DataValue>> {
    let sig = &module.function(func)?.signature;
    if sig.params.len() != args.len() {
        return None;
    }
    args.iter()
        .zip(&sig.params)
        .map(|(a, &t)| DataValue::parse(t, a))
        .collect()
}

#[test]
fn every_filetest_function_restructures_and_runs_the_same() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = manifest.join("../..");
    let mut files = Vec::new();
    collect(&root.join("tests/ir"), &mut files);
    files.push(root.join("codegen/pipeline/tests/support/runtime.ir"));
    assert!(files.len() > 50, "found only {} filetests", files.len());

    let mut failures = Vec::new();
    let mut tally = Compared::default();
    let mut total = RestructureStats::default();
    let (mut modules, mut functions, mut blocks_before, mut params_before) = (0, 0, 0, 0);
    let (mut not_idempotent, mut skipped, mut unstructured_before) = (0, 0, 0);
    let (mut blocks_after, mut params_after) = (0, 0);
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
        let (new, stats, ni) = match restructure_module(&module) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        modules += 1;
        for f in &module.functions {
            functions += 1;
            blocks_before += f.layout.blocks().count();
            params_before += f
                .layout
                .blocks()
                .map(|b| f.dfg.block_params(b).len())
                .sum::<usize>();
            unstructured_before += usize::from(structure_tree(f).is_err());
        }
        for f in &new.functions {
            blocks_after += f.layout.blocks().count();
            params_after += f
                .layout
                .blocks()
                .map(|b| f.dfg.block_params(b).len())
                .sum::<usize>();
        }
        total.add(&stats);
        not_idempotent += ni;
        let Ok((runs, _)) = directives(&text) else {
            continue;
        };
        for r in &runs {
            let Some(args) = parse_args(&module, &r.func, &r.args) else {
                skipped += 1;
                continue;
            };
            if matches!(
                r.expect,
                Expect::Trap(_) | Expect::Values(_) | Expect::Nothing
            ) && let Err(e) = compare(&module, &new, &r.func, &args, &mut tally)
            {
                failures.push(format!("{name}: line {}: {e}", r.line));
            }
        }
    }
    println!(
        "filetests: {modules} modules, {functions} functions ({unstructured_before} not \
         structured before), {} runs compared ({} reached unreachable, {} step limit), \
         {skipped} runs skipped (arguments not readable)",
        tally.runs, tally.undefined, tally.step_limit
    );
    println!(
        "growth: blocks {blocks_before} -> {blocks_after} (+{}), block parameters \
         {params_before} -> {params_after} (+{}); {total:?}",
        blocks_after - blocks_before,
        params_after - params_before
    );
    println!("idempotence: {not_idempotent} functions changed by a second restructuring");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(tally.runs >= 400, "only {} runs compared", tally.runs);
    assert_eq!(not_idempotent, 0, "restructuring is not idempotent");
}
