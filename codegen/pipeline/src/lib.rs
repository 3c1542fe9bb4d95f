//! `vliw-pipeline`: the compiler's per-function pipeline, from a verified
//! `vliw_ir::Module` (one codegen unit) to a relocatable `vliw_elf::Object`.
//!
//! The passes are one list, [`PIPELINE`] (`passes.rs`): SSA IR passes of the middle
//! end (`vliw-opt`), instruction selection, the machine passes of the back end
//! (`vliw-machine`), emission. Each entry names its pass, the [`Stage`] it works on
//! and leaves, the option that switches it off, and when it runs. The driver here
//! runs them in order on each function and, around every pass, does what the options
//! ask: dumps before and after (`dump=before:PASS`, `dump=after:PASS`, as text or
//! Graphviz), the time of the pass (`time-passes`), its counters (`stats`), and
//! verification (`verify=each` after every pass; by default at the boundaries of the
//! stages).
//!
//! ```
//! let module = vliw_ir::parse_module(
//!     "function @id(i64) -> i64 export {\nblock0(v0: i64):\n    return v0\n}\n",
//! ).unwrap();
//! let object = vliw_pipeline::compile_module(&module, &vliw_pipeline::Options::new()).unwrap();
//! assert!(object.check().is_ok());
//! ```

mod dot;
mod module_stage;
mod options;
mod passes;
mod stage;

pub use options::{DumpFormat, DumpPoint, DumpSink, Options, Timings, VerifyLevel, When};
pub use passes::{PIPELINE, Pass, Run, Stage, Switch, listing, switches};
pub use stage::{Unit, apply as run_pass};
pub use vliw_machine::{CompileError, Counters};

use std::borrow::Cow;

use vliw_elf::Object;
use vliw_ir::{Function, Module};
use vliw_machine::emit::FunctionCode;

/// Compiles a module (one codegen unit) into a relocatable object.
///
/// The module is verified first unless `verify=no` or the caller has just verified
/// it (`Options::input_verified`): an invalid module is an error, not a panic.
/// Unsupported features are errors naming the function and the feature.
pub fn compile_module(module: &Module, options: &Options) -> Result<Object, CompileError> {
    if options.verify != VerifyLevel::None && !options.input_verified {
        options
            .time("verify", || vliw_ir::verify_module(module))
            .map_err(|e| CompileError::new("", format!("the module does not verify:\n{e}")))?;
    }
    let module = optimize_module(module, options)?;
    let mut codes = Vec::with_capacity(module.functions.len());
    for func in &module.functions {
        codes.push(compile_function(&module, func, options)?);
    }
    options.time("object", || {
        vliw_machine::object::build_object(&module, &codes, &options.backend)
    })
}

/// Runs the passes of the module-wide stages (the SSA IR and the RVSDG: the middle
/// end) that the options select, in pipeline order: a pass on the SSA IR function by
/// function, the RVSDG's on the whole codegen unit. The module is copied only if a
/// pass runs.
pub fn optimize_module<'m>(
    module: &'m Module,
    options: &Options,
) -> Result<Cow<'m, Module>, CompileError> {
    let running: Vec<&Pass> = PIPELINE
        .iter()
        .filter(|p| (p.runs)(options) && p.from.is_module_wide() && p.to.is_module_wide())
        .collect();
    module_stage::run(module, &running, options)
}

/// Runs the passes of the pipeline that the options select from instruction selection
/// on, on one function of `module` (which has been through [`optimize_module`]), up
/// to its encoded code.
pub fn compile_function(
    module: &Module,
    func: &Function,
    options: &Options,
) -> Result<FunctionCode, CompileError> {
    let running: Vec<&Pass> = PIPELINE
        .iter()
        .filter(|p| (p.runs)(options) && !(p.from.is_module_wide() && p.to.is_module_wide()))
        .collect();
    let mut unit = Unit::Ir(Cow::Borrowed(func));
    for (k, pass) in running.iter().enumerate() {
        if options.dumps_at(When::Before, pass) {
            let point = format!("before:{}", pass.name);
            options.time("dump", || {
                options.write_dump(&stage::dump(&unit, &point, options.dump_format))
            });
        }
        unit = options.time(pass.name, || stage::apply(pass, module, unit, options))?;
        let verify = match options.verify {
            _ if pass.to == Stage::Code => false, // the encoder checks what it encodes
            VerifyLevel::None => false,
            VerifyLevel::Each => true,
            // the boundaries: a pass that enters a new stage, and the last pass of a
            // stage
            VerifyLevel::Boundaries => {
                let ends_stage = running.get(k + 1).is_none_or(|next| next.from != next.to);
                pass.from != pass.to || ends_stage
            }
        };
        if verify {
            options.time("verify", || {
                stage::verify(&unit, pass.to, pass.name, options)
            })?;
        }
        if options.dumps_at(When::After, pass) {
            let point = format!("after:{}", pass.name);
            options.time("dump", || {
                options.write_dump(&stage::dump(&unit, &point, options.dump_format))
            });
        }
    }
    match unit {
        Unit::Code(_, code) => Ok(code),
        other => Err(CompileError::new(
            other.name(),
            "pipeline error: the passes did not reach code".to_string(),
        )),
    }
}
