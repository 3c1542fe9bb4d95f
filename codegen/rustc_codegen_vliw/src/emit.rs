//! From a codegen unit's IR module to the object file rustc links: dumps, the lowering
//! (IR → machine code → `vliw_elf::Object`, by the rustc-free back end `vliw-machine`)
//! and the write.
//!
//! This runs on rustc_codegen_ssa's worker threads, one codegen unit per call, in
//! parallel (`WriteBackendMethods::codegen`); it has no `TyCtxt`.

use std::fs;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rustc_codegen_ssa::back::write::{CodegenContext, EmitObj, ModuleConfig};
use rustc_codegen_ssa::{CompiledModule, ModuleCodegen};
use rustc_errors::DiagCtxtHandle;
use rustc_session::config::OutputType;
use vliw_ir as ir;

use crate::VliwModule;
use crate::options::{DumpStage, DumpTarget, Options};
use crate::timing::{Phase, Timer};

/// The one entry of the lowering: a verified IR module to a relocatable object, by
/// the rustc-free pipeline of passes (`vliw_pipeline::compile_module`,
/// `docs/backend.md`). `options` are the pipeline's, from `-Cllvm-args`, with this
/// codegen unit's dump sink and timings.
pub fn compile_module(
    module: &ir::Module,
    options: &vliw_pipeline::Options,
) -> Result<vliw_elf::Object, String> {
    vliw_pipeline::compile_module(module, options).map_err(|e| e.to_string())
}

/// The IR of a module as text.
pub fn module_text(module: &ir::Module) -> String {
    let mut s = String::new();
    ir::write::write_module(&mut s, module).expect("writing to a String");
    s
}

/// Where the dump `stage` of codegen unit `unit` goes: a file, or `None` for stderr.
fn dump_path(
    cgcx: &CodegenContext,
    options: &Options,
    unit: &str,
    stage: &str,
    ext: &str,
) -> Result<Option<PathBuf>, String> {
    let file = cgcx
        .output_filenames
        .temp_path_ext_for_cgu(&format!("{stage}.{ext}"), unit);
    Ok(match &options.dump_to {
        DumpTarget::Stderr => None,
        DumpTarget::OutputDir => Some(file),
        DumpTarget::Dir(dir) => {
            fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            Some(dir.join(file.file_name().unwrap()))
        }
    })
}

fn dump(
    cgcx: &CodegenContext,
    options: &Options,
    unit: &str,
    stage: DumpStage,
    text: &str,
) -> Result<(), String> {
    match dump_path(cgcx, options, unit, stage.name(), "vir")? {
        None => {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "; ---- {stage}: codegen unit {unit} ----");
            let _ = err.write_all(text.as_bytes());
            Ok(())
        }
        Some(path) => {
            fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
    }
}

/// The pipeline's options for one codegen unit: its dumps (`dump=after:PASS`, ...) go
/// to `<stem>.<unit>.rcgu.passes.vir` (`.passes.dot` with `dump-format=dot`; or
/// stderr), its timings to a table of its own; `debuginfo` (`-g`) asks for DWARF line
/// tables.
fn pipeline_options(
    cgcx: &CodegenContext,
    options: &Options,
    unit: &str,
    debuginfo: bool,
) -> Result<(vliw_pipeline::Options, Option<Arc<vliw_pipeline::Timings>>), String> {
    let mut m = options.pipeline_options();
    m.backend.debug_info = debuginfo;
    // the shim verified the module when it built it (`base.rs`)
    m.input_verified = options.verify != vliw_pipeline::VerifyLevel::None;
    if options.dumps_passes() {
        let (stage, ext) = match m.dump_format {
            vliw_pipeline::DumpFormat::Text => ("passes", "vir"),
            vliw_pipeline::DumpFormat::Dot => ("passes", "dot"),
        };
        let sink: vliw_pipeline::DumpSink = match dump_path(cgcx, options, unit, stage, ext)? {
            None => Arc::new(Mutex::new(std::io::stderr())),
            Some(path) => {
                let f = fs::File::create(&path)
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                Arc::new(Mutex::new(std::io::BufWriter::new(f)))
            }
        };
        m.dump_to = Some(sink);
    }
    let timings = options.time_passes.then(vliw_pipeline::Timings::new);
    m.timings = timings.clone();
    m.backend.counters = options.stats.then(vliw_pipeline::Counters::new);
    Ok((m, timings))
}

/// Write the outputs of one codegen unit.
pub fn emit_module(
    cgcx: &CodegenContext,
    dcx: DiagCtxtHandle<'_>,
    module: ModuleCodegen<VliwModule>,
    config: &ModuleConfig,
) -> CompiledModule {
    let name = module.name.clone();
    let VliwModule {
        ir: ir_module,
        options,
        debuginfo,
    } = module.module_llvm;
    let timer = Timer::new(options.time_passes, &name);
    let fatal = |msg: String| -> ! { dcx.fatal(format!("{name}: {msg}")) };

    let mut llvm_ir = None;
    if options.dumps(DumpStage::Ir) || config.emit_ir {
        let text = timer.time(Phase::Dump, String::new, || module_text(&ir_module));
        if options.dumps(DumpStage::Ir) {
            dump(cgcx, &options, &name, DumpStage::Ir, &text).unwrap_or_else(|e| fatal(e));
        }
        if config.emit_ir {
            // `--emit=llvm-ir` gives our IR's text form.
            let path = cgcx
                .output_filenames
                .temp_path_for_cgu(OutputType::LlvmAssembly, &name);
            fs::write(&path, &text)
                .unwrap_or_else(|e| fatal(format!("cannot write {}: {e}", path.display())));
            llvm_ir = Some(path);
        }
    }

    let object = match config.emit_obj {
        EmitObj::None => None,
        EmitObj::Bitcode | EmitObj::ObjectCode(_) => {
            let (machine, timings) =
                pipeline_options(cgcx, &options, &name, debuginfo).unwrap_or_else(|e| fatal(e));
            let obj = timer
                .time(Phase::Lower, String::new, || {
                    compile_module(&ir_module, &machine)
                })
                .unwrap_or_else(|e| fatal(e));
            if let Some(sink) = &machine.dump_to {
                let _ = sink.lock().unwrap_or_else(|e| e.into_inner()).flush();
            }
            if let Some(t) = timings {
                for (phase, d, n) in t.report() {
                    eprintln!(
                        "time: {:>9.3}ms    {phase:<10} {name}  ({n} runs)",
                        d.as_secs_f64() * 1e3
                    );
                }
            }
            if let Some(c) = &machine.backend.counters {
                eprintln!("{}", c.to_line());
            }
            if let Err(e) = obj.check() {
                fatal(format!("the back end produced an invalid object: {e}"));
            }
            let path = cgcx
                .output_filenames
                .temp_path_for_cgu(OutputType::Object, &name);
            timer.time(Phase::WriteObject, String::new, || {
                fs::write(&path, vliw_elf::write_object(&obj))
                    .unwrap_or_else(|e| fatal(format!("cannot write {}: {e}", path.display())))
            });
            Some(path)
        }
    };

    CompiledModule {
        name,
        kind: module.kind,
        object,
        global_asm_object: None,
        dwarf_object: None,
        bytecode: None,
        assembly: None,
        llvm_ir,
    }
}
