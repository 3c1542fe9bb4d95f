//! From a codegen unit's IR module to the object file rustc links: dumps, the lowering
//! (IR → machine code → `vliw_elf::Object`, the rustc-free back end) and the write.
//!
//! This runs on rustc_codegen_ssa's worker threads, one codegen unit per call, in
//! parallel (`WriteBackendMethods::codegen`); it has no `TyCtxt`.

use std::fs;
use std::io::Write;
use std::path::PathBuf;

use rustc_codegen_ssa::back::write::{CodegenContext, EmitObj, ModuleConfig};
use rustc_codegen_ssa::{CompiledModule, ModuleCodegen};
use rustc_errors::DiagCtxtHandle;
use rustc_session::config::OutputType;
use vliw_ir as ir;

use crate::VliwModule;
use crate::options::{DumpStage, DumpTarget, Options};
use crate::timing::{Phase, Timer};

/// What the lowering needs to know besides the module.
#[derive(Clone, Debug, Default)]
pub struct LowerOptions {
    /// `-g`: emit DWARF line tables.
    pub debuginfo: bool,
}

/// The one entry of the machine lowering: a verified IR module to a relocatable
/// object.
///
/// TEMPORARY STUB: the lowering crate (`vliw-machine`) does not exist yet. When it
/// lands, this function becomes a call of `vliw_machine::compile_module(module,
/// &options)` (mapping `LowerOptions` onto its options) and nothing else in the shim
/// changes. Until then every build that needs an object fails here with a clear
/// message; `--emit=llvm-ir` (the IR as text) and `-Cllvm-args=dump=ir` work.
pub fn compile_module(
    module: &ir::Module,
    options: &LowerOptions,
) -> Result<vliw_elf::Object, String> {
    let _ = (module, options);
    Err(
        "machine lowering not implemented yet: the vliw-machine crate (IR to VLIW-64 code) \
         does not exist; `--emit=llvm-ir` or `-Cllvm-args=dump=ir` show the IR instead"
            .to_string(),
    )
}

/// The IR of a module as text.
pub fn module_text(module: &ir::Module) -> String {
    let mut s = String::new();
    ir::write::write_module(&mut s, module).expect("writing to a String");
    s
}

fn dump(
    cgcx: &CodegenContext,
    options: &Options,
    unit: &str,
    stage: DumpStage,
    text: &str,
) -> Result<(), String> {
    let file = cgcx
        .output_filenames
        .temp_path_ext_for_cgu(&format!("{stage}.vir"), unit);
    let path: PathBuf = match &options.dump_to {
        DumpTarget::Stderr => {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "; ---- {stage}: codegen unit {unit} ----");
            let _ = err.write_all(text.as_bytes());
            return Ok(());
        }
        DumpTarget::OutputDir => file,
        DumpTarget::Dir(dir) => {
            fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            dir.join(file.file_name().unwrap())
        }
    };
    fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
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
            let lower_options = LowerOptions { debuginfo };
            let obj = timer
                .time(Phase::Lower, String::new, || {
                    compile_module(&ir_module, &lower_options)
                })
                .unwrap_or_else(|e| fatal(e));
            if let Err(e) = obj.check() {
                fatal(format!("the lowering produced an invalid object: {e}"));
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
