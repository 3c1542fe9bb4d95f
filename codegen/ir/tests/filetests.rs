//! IR filetests: every `tests/ir/**/*.ir` file of the repository. Directives in comments:
//!
//! - `; run: @f(1, 2) == 3` — interpret `@f` with these arguments and compare the
//!   result (`== (a, b)` for several results, `== ()` or nothing for none); floats
//!   compare bit for bit except that `nan` matches any NaN.
//! - `; run: @f(0) trap: TEXT` — the call must trap with a message containing TEXT.
//! - `; stdout: "TEXT"` — what the runs of the file wrote through the host function
//!   `@write(i64 fd, ptr buf, i64 len) -> i64`, concatenated (string escapes as in the IR).
//! - `; print` followed by comment lines `; ...` — the module printed back must be
//!   exactly those lines (without their `; ` prefix).
//! - `; verify-error: TEXT` — verifying the module fails with a message containing TEXT.
//! - `; parse-error: TEXT` — parsing fails with a message (`line:col: ...`) containing TEXT.
//!
//! Every file that parses must also round-trip (print, parse, print gives the same
//! text), and every file without `verify-error` must verify.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use vliw_ir::filetest::{Expect, parse_run, unescape};
use vliw_ir::*;

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read tests/ir")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "ir") {
            out.push(p);
        }
    }
}

fn value_matches(expected: &str, got: &DataValue) -> Result<bool, String> {
    if got.ty().is_float() && expected.trim() == "nan" {
        return Ok(got.is_nan());
    }
    let e = DataValue::parse(got.ty(), expected)
        .ok_or_else(|| format!("cannot read '{expected}' as {}", got.ty()))?;
    Ok(e == *got)
}

fn check_file(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let lines: Vec<&str> = text.lines().collect();
    let mut runs = Vec::new();
    let mut print: Option<String> = None;
    let mut verify_errors = Vec::new();
    let mut parse_errors = Vec::new();
    let mut stdout_expect: Option<Vec<u8>> = None;
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i].trim();
        if let Some(r) = l.strip_prefix("; run:") {
            runs.push(parse_run(i + 1, r).map_err(|e| format!("line {}: {e}", i + 1))?);
        } else if let Some(r) = l.strip_prefix("; verify-error:") {
            verify_errors.push(r.trim().to_string());
        } else if let Some(r) = l.strip_prefix("; parse-error:") {
            parse_errors.push(r.trim().to_string());
        } else if let Some(r) = l.strip_prefix("; stdout:") {
            stdout_expect = Some(unescape(r).map_err(|e| format!("line {}: {e}", i + 1))?);
        } else if l == "; print" {
            let mut expected = String::new();
            while i + 1 < lines.len() && lines[i + 1].starts_with(';') {
                i += 1;
                let body = &lines[i][1..];
                expected.push_str(body.strip_prefix(' ').unwrap_or(body));
                expected.push('\n');
            }
            print = Some(expected);
        }
        i += 1;
    }

    let module = match parse_module(&text) {
        Ok(m) => {
            if !parse_errors.is_empty() {
                return Err(format!(
                    "expected a parse error containing {:?}, but it parsed",
                    parse_errors
                ));
            }
            m
        }
        Err(e) => {
            let msg = e.to_string();
            if parse_errors.is_empty() {
                return Err(format!("parse error: {msg}"));
            }
            for p in &parse_errors {
                if !msg.contains(p.as_str()) {
                    return Err(format!("parse error '{msg}' does not contain '{p}'"));
                }
            }
            return Ok(());
        }
    };

    // round trip
    let printed = module.to_string();
    let reparsed = parse_module(&printed)
        .map_err(|e| format!("the printed module does not parse: {e}\n{printed}"))?;
    let printed2 = reparsed.to_string();
    if printed != printed2 {
        return Err(format!(
            "print/parse/print differs:\n--- first\n{printed}--- second\n{printed2}"
        ));
    }
    if let Some(expected) = print
        && printed != expected
    {
        return Err(format!(
            "printed form differs:\n--- expected\n{expected}--- printed\n{printed}"
        ));
    }

    match verify_module(&module) {
        Ok(()) => {
            if !verify_errors.is_empty() {
                return Err(format!(
                    "expected verifier errors {verify_errors:?}, but it verifies"
                ));
            }
        }
        Err(e) => {
            let msg = e.to_string();
            if verify_errors.is_empty() {
                return Err(format!("verifier errors:\n{msg}"));
            }
            for v in &verify_errors {
                if !msg.contains(v.as_str()) {
                    return Err(format!("verifier errors do not contain '{v}':\n{msg}"));
                }
            }
            if !runs.is_empty() {
                return Err("run directives in a file that does not verify".into());
            }
            return Ok(());
        }
    }

    let stdout: Rc<RefCell<Vec<u8>>> = Rc::default();
    for run in &runs {
        let mut interp = Interpreter::new(&module);
        interp.set_step_limit(1_000_000);
        let out = stdout.clone();
        interp.add_host("write", move |mem, args| {
            let (DataValue::I64(_fd), DataValue::Ptr(p), DataValue::I64(n)) =
                (args[0], args[1], args[2])
            else {
                return Err(Trap::new(TrapKind::Host, "write(i64, ptr, i64)"));
            };
            out.borrow_mut().extend_from_slice(mem.read(p, n as u64)?);
            Ok(vec![DataValue::I64(n)])
        });
        let ctx = |m: String| format!("line {}: @{}: {m}", run.line, run.func);
        let sig = module
            .function(&run.func)
            .map(|f| f.signature.clone())
            .ok_or_else(|| ctx("no such function".into()))?;
        if sig.params.len() != run.args.len() {
            return Err(ctx(format!(
                "takes {} arguments, {} given",
                sig.params.len(),
                run.args.len()
            )));
        }
        let mut args = Vec::new();
        for (a, &t) in run.args.iter().zip(&sig.params) {
            args.push(
                DataValue::parse(t, a)
                    .ok_or_else(|| ctx(format!("cannot read argument '{a}' as {t}")))?,
            );
        }
        let result = interp.call(&run.func, &args);
        match (&run.expect, result) {
            (Expect::Trap(t), Err(trap)) => {
                if !trap.message.contains(t.as_str()) {
                    return Err(ctx(format!(
                        "trapped with '{}', expected '{t}'",
                        trap.message
                    )));
                }
            }
            (Expect::Trap(t), Ok(v)) => {
                return Err(ctx(format!("returned {v:?}, expected a trap '{t}'")));
            }
            (_, Err(trap)) => return Err(ctx(format!("trapped: {}", trap.message))),
            (Expect::Nothing, Ok(_)) => {}
            (Expect::Values(exp), Ok(got)) => {
                let exp: Vec<&String> = exp.iter().collect();
                if exp.len() != got.len() {
                    return Err(ctx(format!(
                        "returned {} values, expected {}",
                        got.len(),
                        exp.len()
                    )));
                }
                for (e, g) in exp.iter().zip(&got) {
                    if !value_matches(e, g).map_err(ctx)? {
                        let shown: Vec<String> = got.iter().map(|g| g.to_string()).collect();
                        return Err(ctx(format!(
                            "returned ({}), expected ({})",
                            shown.join(", "),
                            exp.iter()
                                .map(|s| s.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        )));
                    }
                }
            }
        }
    }
    if let Some(exp) = stdout_expect {
        let got = stdout.borrow();
        if *got != exp {
            return Err(format!(
                "stdout {:?}, expected {:?}",
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&exp)
            ));
        }
    }
    Ok(())
}

#[test]
fn filetests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ir");
    let mut files = Vec::new();
    collect(&root, &mut files);
    assert!(!files.is_empty(), "no filetests under {}", root.display());
    let mut failures = Vec::new();
    for f in &files {
        if let Err(e) = check_file(f) {
            failures.push(format!(
                "{}: {e}",
                f.strip_prefix(&root).unwrap_or(f).display()
            ));
        }
    }
    eprintln!("{} IR filetests, {} failed", files.len(), failures.len());
    if !failures.is_empty() {
        panic!(
            "{} of {} filetests failed:\n\n{}",
            failures.len(),
            files.len(),
            failures.join("\n\n")
        );
    }
}
