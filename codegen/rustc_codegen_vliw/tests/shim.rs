//! The shim through rustc: the target spec parses, the C ABI's IR signatures, the
//! errors for unsupported features, the options, and a differential test that runs the
//! IR of `fixtures/smoke.rs` on vliw-ir's interpreter against the same program built by
//! rustc's LLVM backend for the host (the expectation never comes from our output).
//!
//! Each test runs the pinned toolchain's `rustc` (found through `rust-toolchain.toml`)
//! with the backend dylib cargo built for this test run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use vliw_ir::interpreter::{DataValue, Interpreter};
use vliw_ir::{Module, Opcode, Signature, Type, ValueDef};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The backend dylib of this build: cargo uplifts it into the profile directory
/// (`target/release/`), an ancestor of the test executable's directory.
/// `VLIW_CODEGEN_BACKEND` overrides it.
fn backend() -> PathBuf {
    if let Some(p) = std::env::var_os("VLIW_CODEGEN_BACKEND") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().unwrap();
    for dir in exe.ancestors().skip(1) {
        let p = dir.join("librustc_codegen_vliw.so");
        if p.exists() {
            return p;
        }
    }
    panic!("librustc_codegen_vliw.so not found above {}", exe.display());
}

/// The pinned toolchain's rustc (the repository's `rust-toolchain.toml` selects it),
/// writing no ICE files into the repository.
fn rustc() -> Command {
    let mut c = Command::new("rustc");
    c.current_dir(repo_root()).env("RUSTC_ICE", "0");
    c
}

/// rustc with our backend for the VLIW target.
fn vliw_rustc() -> Command {
    let mut c = rustc();
    c.arg("-Zunstable-options")
        .arg(format!("-Zcodegen-backend={}", backend().display()))
        .arg("--target")
        .arg(repo_root().join("sysroot/vliw64-unknown-none.json"))
        .args(["-Cpanic=abort", "--edition=2024"]);
    c
}

fn run(mut c: Command) -> Output {
    let out = c
        .output()
        .unwrap_or_else(|e| panic!("cannot run {c:?}: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked") && !stderr.contains("internal compiler error"),
        "rustc crashed: {c:?}\n{stderr}"
    );
    out
}

fn run_ok(c: Command) -> Output {
    let desc = format!("{c:?}");
    let out = run(c);
    assert!(
        out.status.success(),
        "{desc} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Compile `source` with our backend to IR text (`--emit=llvm-ir`) and parse it.
fn compile_to_ir(source: &Path, dir: &Path, extra: &[&str]) -> Module {
    let ll = dir.join(format!(
        "{}.ll",
        source.file_stem().unwrap().to_str().unwrap()
    ));
    let mut c = vliw_rustc();
    c.args(["--crate-type=lib", "--emit=llvm-ir"])
        .args(extra)
        .arg(source)
        .arg("-o")
        .arg(&ll);
    run_ok(c);
    let text = std::fs::read_to_string(&ll).unwrap();
    vliw_ir::parser::parse_module(&text).unwrap_or_else(|e| panic!("{}: {e:?}", ll.display()))
}

fn sig(params: &[Type], returns: &[Type], variadic: bool) -> Signature {
    Signature {
        params: params.to_vec(),
        returns: returns.to_vec(),
        variadic,
    }
}

#[test]
fn target_spec_parses() {
    let mut c = vliw_rustc();
    c.args(["--print", "target-spec-json"]);
    let out = run_ok(c);
    let json = String::from_utf8(out.stdout).unwrap();
    assert!(json.contains(r#""arch": "vliw64""#), "{json}");
    assert!(json.contains(r#""linker": "vliw-ld""#), "{json}");
    assert!(json.contains(r#""panic-strategy": "abort""#), "{json}");
}

#[test]
fn c_abi_signatures() {
    use Type::*;
    let dir = tempfile::tempdir().unwrap();
    let m = compile_to_ir(&fixture("abi_c.rs"), dir.path(), &[]);
    let decl = |name: &str| {
        m.func_decl(name)
            .unwrap_or_else(|| panic!("no declaration of {name}"))
            .signature
            .clone()
    };
    assert_eq!(decl("write"), sig(&[I64, Ptr, I64], &[I64], false));
    assert_eq!(decl("printf"), sig(&[Ptr], &[I64], true));
    // sret, Small (one register), Mid (two), Odd (one), Big (by reference), then u8,
    // i32, bool and f32.
    assert_eq!(
        decl("takes"),
        sig(
            &[Ptr, I64, I64, I64, I64, Ptr, I64, I64, I64, F32],
            &[],
            false
        )
    );
    assert_eq!(decl("ret_small"), sig(&[], &[I64], false));
    assert_eq!(decl("ret_mid"), sig(&[], &[I64, I64], false));
    assert_eq!(decl("ret_u16"), sig(&[], &[I64], false));
    let callback = m.function("callback").unwrap();
    assert_eq!(
        callback.signature,
        sig(&[I64, I64, I64], &[I64, I64], false)
    );

    // How `user` extends the narrow scalars it passes to `takes`.
    let user = m.function("user").unwrap();
    let (_, call) = user
        .insts_in_layout()
        .find(|&(_, i)| match &user.dfg[i] {
            vliw_ir::InstructionData::Call { func, .. } => user.ext_funcs[*func].name == "takes",
            _ => false,
        })
        .expect("a call of takes");
    let args = user.dfg.inst_args(call);
    let def_op = |v| match user.dfg.value_def(v) {
        ValueDef::Result(i, _) => user.dfg.opcode(i),
        d => panic!("{v} is {d:?}"),
    };
    assert_eq!(def_op(args[6]), Opcode::Uextend, "u8 is zero-extended");
    assert_eq!(def_op(args[7]), Opcode::Sextend, "i32 is sign-extended");
    assert_eq!(def_op(args[8]), Opcode::Uextend, "bool is zero-extended");
    // The variadic call passes its extra arguments after the fixed one.
    let (_, printf) = user
        .insts_in_layout()
        .find(|&(_, i)| matches!(&user.dfg[i], vliw_ir::InstructionData::Call { func, .. } if user.ext_funcs[*func].name == "printf"))
        .expect("a call of printf");
    let types: Vec<Type> = user
        .dfg
        .inst_args(printf)
        .iter()
        .map(|&v| user.dfg.value_type(v))
        .collect();
    assert_eq!(types, [Ptr, I64, I64, Ptr]);
}

#[test]
fn unsupported_features_are_compile_errors() {
    let dir = tempfile::tempdir().unwrap();
    for (cfg, message) in [
        (
            "simd_clmul",
            "does not support the SIMD intrinsic `simd_carryless_mul` (in `uses_clmul`)",
        ),
        (
            "half",
            "does not support arithmetic on f16 and f128 values (in `uses_f16`)",
        ),
    ] {
        let mut c = vliw_rustc();
        c.args(["--crate-type=lib", "--emit=llvm-ir", "--cfg", cfg])
            .arg(fixture("unsupported.rs"))
            .arg("--out-dir")
            .arg(dir.path());
        let out = run(c);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{cfg}: {stderr}");
        assert!(
            stderr.contains(message),
            "{cfg}: expected `{message}` in:\n{stderr}"
        );
    }
}

/// SIMD vectors are scalarized: `u64x2` arguments and results travel by reference
/// (rustc's Rust ABI for vectors), are loaded lane by lane, added lane by lane,
/// shuffled for free and stored lane by lane.
#[test]
fn simd_vectors_are_scalarized() {
    let dir = tempfile::tempdir().unwrap();
    let m = compile_to_ir(&fixture("unsupported.rs"), dir.path(), &["--cfg", "simd"]);
    let f = m.function("uses_simd").unwrap();
    use vliw_ir::Type::Ptr;
    assert_eq!(f.signature.params, [Ptr, Ptr, Ptr], "sret, a, b");
    assert!(f.signature.returns.is_empty());
    let insts = |op| -> Vec<_> {
        f.insts_in_layout()
            .filter(|&(_, i)| f.dfg.opcode(i) == op)
            .map(|(_, i)| i)
            .collect()
    };
    assert_eq!(insts(Opcode::Load).len(), 4);
    let adds: Vec<_> = insts(Opcode::Iadd)
        .into_iter()
        .map(|i| f.dfg.first_result(i))
        .collect();
    assert_eq!(adds.len(), 2);
    let stored: Vec<_> = insts(Opcode::Store)
        .into_iter()
        .map(|i| f.dfg.inst_args(i)[0])
        .collect();
    assert_eq!(stored, [adds[1], adds[0]], "lanes swapped");
    vliw_ir::verifier::verify_module(&m).unwrap();
}

/// `#[thread_local]` statics are thread-local data objects reached with `tls_addr`.
#[test]
fn thread_local_statics_use_tls_addr() {
    let dir = tempfile::tempdir().unwrap();
    let m = compile_to_ir(&fixture("unsupported.rs"), dir.path(), &["--cfg", "tls"]);
    let data = m
        .data
        .iter()
        .find(|d| d.name.contains("PER_THREAD"))
        .expect("the static");
    assert!(data.thread_local);
    assert_eq!(
        data.kind,
        vliw_ir::DataKind::Data,
        "immutable but in .tdata"
    );
    let f = m.function("uses_tls").unwrap();
    let tls: Vec<String> = f
        .insts_in_layout()
        .filter(|&(_, i)| f.dfg.opcode(i) == Opcode::TlsAddr)
        .map(|(_, i)| match &f.dfg[i] {
            vliw_ir::InstructionData::SymbolAddr { global, .. } => f.globals[*global].clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(tls, [data.name.clone()]);
    vliw_ir::verifier::verify_module(&m).unwrap();
}

/// rustc's inlining attributes and `#[cold]` reach the IR functions, as
/// rustc_codegen_llvm gives them to LLVM (`#[optimize(none)]` is never inlined).
#[test]
fn inlining_attributes_reach_the_ir() {
    use vliw_ir::InlineHint::*;
    let dir = tempfile::tempdir().unwrap();
    let m = compile_to_ir(&fixture("inline_attrs.rs"), dir.path(), &[]);
    let got: Vec<(&str, vliw_ir::InlineHint, bool)> = [
        "plain",
        "hint",
        "always",
        "never",
        "optimize_none",
        "cold",
        "cold_never",
        "entry",
    ]
    .into_iter()
    .map(|name| {
        let f = m
            .function(name)
            .unwrap_or_else(|| panic!("@{name} is generated"));
        (name, f.inline, f.cold)
    })
    .collect();
    assert_eq!(
        got,
        [
            ("plain", Default, false),
            ("hint", Hint, false),
            ("always", Always, false),
            ("never", Never, false),
            ("optimize_none", Never, false),
            ("cold", Default, true),
            ("cold_never", Never, true),
            ("entry", Default, false),
        ]
    );
}

#[test]
fn options_dumps_and_timings() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = vliw_rustc();
    c.args([
        "--crate-type=lib",
        "--emit=llvm-ir",
        "-Cllvm-args=dump=ir time-passes",
    ])
    .arg(fixture("abi_c.rs"))
    .arg("--out-dir")
    .arg(dir.path());
    let out = run_ok(c);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for phase in ["build-ir", "verify", "dump"] {
        assert!(
            stderr
                .lines()
                .any(|l| l.starts_with("time:") && l.contains(phase)),
            "{phase}:\n{stderr}"
        );
    }
    let dumps: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".ir.vir"))
        .collect();
    assert_eq!(dumps.len(), 1, "{dumps:?}");
    let text = std::fs::read_to_string(&dumps[0]).unwrap();
    let module = vliw_ir::parser::parse_module(&text).unwrap();
    vliw_ir::verifier::verify_module(&module).unwrap();

    for (arg, message) in [
        ("-Cllvm-args=dump=asm", "dump=asm: unknown dump point"),
        ("-Cllvm-args=dump=after:rvsdg", "no pass `rvsdg`"),
        ("-Cllvm-args=verify=sometimes", "expected yes, no or each"),
        (
            "-Cllvm-args=frobnicate",
            "unknown backend option `frobnicate`",
        ),
    ] {
        let mut c = vliw_rustc();
        c.args(["--crate-type=lib", "--emit=llvm-ir", arg])
            .arg(fixture("abi_c.rs"))
            .arg("--out-dir")
            .arg(dir.path());
        let out = run(c);
        assert!(!out.status.success());
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(message),
            "{arg}"
        );
    }
}

/// The pipeline's dump points: `dump=before:PASS,after:PASS` with `dump-format=dot`
/// write Graphviz next to the output, one digraph per function and point; `passes`
/// lists the pipeline; `verify=each` compiles the same object as the default.
#[test]
fn pipeline_dumps_listing_and_verification() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = vliw_rustc();
    c.args([
        "--crate-type=lib",
        "--emit=obj",
        "-Cllvm-args=dump=before:mem2reg,after:isel dump-format=dot",
    ])
    .arg(fixture("abi_c.rs"))
    .arg("--out-dir")
    .arg(dir.path());
    run_ok(c);
    let dumps: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".passes.dot"))
        .collect();
    assert!(!dumps.is_empty());
    let text: String = dumps
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    for point in ["before:mem2reg @user", "after:isel @user"] {
        assert!(text.contains(&format!("digraph \"{point}\" {{")), "{text}");
    }

    let mut c = vliw_rustc();
    c.arg("-Cllvm-args=passes").arg("-");
    let out = run_ok(c);
    let list = String::from_utf8_lossy(&out.stdout);
    let names: Vec<&str> = list
        .lines()
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert_eq!(names.first(), Some(&"mem2reg"));
    assert_eq!(names.last(), Some(&"emit"));
    assert!(names.contains(&"isel") && names.contains(&"ssa-regalloc"));
    // name, stages, switch, off, on, default, about
    assert!(list.lines().all(|l| l.split('\t').count() == 7), "{list}");

    let object = |extra: &str| {
        let path = dir.path().join(format!("abi_c{}.o", extra.len()));
        let mut c = vliw_rustc();
        c.args(["--crate-type=lib", "--emit=obj", "-Copt-level=2", extra])
            .arg(fixture("abi_c.rs"))
            .arg("-o")
            .arg(&path);
        run_ok(c);
        std::fs::read(&path).unwrap()
    };
    assert!(object("-Cllvm-args=verify=each") == object("-Cllvm-args=verify=yes"));
}

/// `--emit=obj` goes through vliw-machine: a VLIW-64 object that defines the crate's
/// functions and refers to the C functions it calls.
#[test]
fn object_output_is_a_vliw_object() {
    let dir = tempfile::tempdir().unwrap();
    let obj_path = dir.path().join("abi_c.o");
    let mut c = vliw_rustc();
    c.args(["--crate-type=lib", "--emit=obj"])
        .arg(fixture("abi_c.rs"))
        .arg("-o")
        .arg(&obj_path);
    run_ok(c);
    let bytes = std::fs::read(&obj_path).unwrap();
    let obj = vliw_elf::read_object(&bytes, "abi_c.o").unwrap();
    let sym = |name: &str| obj.symbols.iter().find(|s| s.name == name);
    for f in ["callback", "user"] {
        assert!(sym(f).is_some_and(|s| s.is_defined()), "{f} is not defined");
    }
    for f in ["write", "printf", "takes"] {
        assert!(
            sym(f).is_some_and(|s| !s.is_defined()),
            "{f} is not an undefined reference"
        );
    }
}

/// What `smoke_main` wrote and returned.
#[derive(Debug, PartialEq)]
struct Run {
    output: Vec<u8>,
    exit_code: i32,
}

fn run_on_host(dir: &Path) -> Run {
    let mut c = rustc();
    c.args([
        "--crate-type=staticlib",
        "-Cpanic=abort",
        "--edition=2024",
        "-Coverflow-checks=off",
        "--crate-name=smoke",
    ])
    .arg(fixture("smoke.rs"))
    .arg("--out-dir")
    .arg(dir);
    run_ok(c);
    let exe = dir.join("smoke-host");
    let mut c = rustc();
    c.arg("--edition=2024")
        .arg(fixture("host_driver.rs"))
        .arg("-L")
        .arg(dir)
        .args(["-l", "static=smoke", "-o"])
        .arg(&exe);
    run_ok(c);
    let out = Command::new(&exe).output().unwrap();
    Run {
        output: out.stdout,
        exit_code: out.status.code().expect("exit code"),
    }
}

fn run_ir(module: &Module) -> Run {
    vliw_ir::verifier::verify_module(module).unwrap();
    let output = std::cell::RefCell::new(Vec::new());
    let mut it = Interpreter::new(module);
    it.set_step_limit(100_000_000);
    it.add_host("smoke_write", |mem, args| {
        let (ptr, len) = (args[0].bits() as u64, args[1].bits() as u64);
        output.borrow_mut().extend_from_slice(mem.read(ptr, len)?);
        Ok(vec![])
    });
    it.add_host("smoke_sum", |_, args| {
        // (scale: i32, n: i32, ...): every argument travels as an i64; an i32 in its
        // canonical, sign-extended form (docs/isa.md §6), which this side checks.
        let canonical_i32 = |v: &DataValue| {
            let x = v.bits() as i64;
            if x == x as i32 as i64 {
                Ok(x)
            } else {
                Err(vliw_ir::interpreter::Trap::new(
                    vliw_ir::interpreter::TrapKind::Host,
                    format!("i32 argument {x:#x} is not sign-extended"),
                ))
            }
        };
        let scale = canonical_i32(&args[0])?;
        let n = canonical_i32(&args[1])? as usize;
        let sum: i64 = args[2..2 + n].iter().map(|a| a.bits() as i64).sum();
        Ok(vec![DataValue::I64(sum * scale)])
    });
    let ret = it
        .call("smoke_main", &[])
        .unwrap_or_else(|t| panic!("trap: {t}"));
    // `i32` results travel sign-extended in an i64.
    let exit_code = ret[0].bits() as i64 as i32;
    drop(it);
    Run {
        output: output.into_inner(),
        exit_code,
    }
}

#[test]
fn smoke_program_matches_llvm() {
    let dir = tempfile::tempdir().unwrap();
    let expected = run_on_host(dir.path());
    assert!(
        expected.output.len() > 100,
        "the host run printed {} bytes",
        expected.output.len()
    );
    for opt in ["0", "3"] {
        let module = compile_to_ir(
            &fixture("smoke.rs"),
            dir.path(),
            &["-Coverflow-checks=off", &format!("-Copt-level={opt}")],
        );
        let got = run_ir(&module);
        assert_eq!(got, expected, "-Copt-level={opt}");
    }
}

/// The allocator shim of a crate that needs the default allocator: every `__rust_*`
/// function forwards to alloc's `__rdl_*` counterpart, which the shim's module must
/// declare (an import) for the IR verifier to accept the call.
#[test]
fn allocator_shim_imports_the_default_functions() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = vliw_rustc();
    c.args(["--crate-type=staticlib", "--out-dir"])
        .arg(dir.path())
        .arg(fixture("alloc_shim.rs"));
    run_ok(c);
    let archive = std::fs::read(dir.path().join("liballoc_shim.a")).unwrap();
    let has = |name: &str| archive.windows(name.len()).any(|w| w == name.as_bytes());
    for method in [
        "alloc",
        "dealloc",
        "realloc",
        "alloc_zeroed",
        "alloc_error_handler",
    ] {
        assert!(has(&format!("__rust_{method}")), "no __rust_{method}");
        assert!(has(&format!("__rdl_{method}")), "no __rdl_{method}");
    }
}
