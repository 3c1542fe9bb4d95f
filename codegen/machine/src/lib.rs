//! `vliw-machine`: the back end, from a `vliw_ir::Module` to a `vliw_elf::Object`.
//! Free of rustc; the rustc shim calls [`compile_module`] once per codegen unit.
//!
//! The pipeline, per function (each step a module):
//!
//! 1. `lower`: instruction selection and legalization into machine SSA (`mir`):
//!    canonical forms of narrow integers, `i128` as register pairs, calls per the
//!    calling convention (`abi`);
//! 2. `regalloc=naive`: `destruct`, leaving SSA (`ssa-destruction=copies|sreedhar3|
//!    boissinot|virtual`), then `regalloc`, the naive register allocator; `regalloc=ssa`:
//!    `ssa_regalloc`, spilling and colouring on SSA, then leaving SSA on the colours;
//! 3. `frame`: frame layout, prologue and epilogues;
//! 4. `sched`: bundling (`sched=off`: one operation per bundle; `sched=list`: list
//!    scheduling), then `emit`: encoding;
//! 5. `object`: sections, symbols and relocations of the module.
//!
//! `docs/machine.md` is the reference.

pub mod abi;
pub mod analysis_timing;
pub mod destruct;
pub mod dwarf;
pub mod emit;
pub mod error;
pub mod frame;
pub mod lower;
pub mod mir;
pub mod object;
pub mod options;
pub mod regalloc;
pub mod sched;
pub mod ssa_regalloc;
pub mod ssa_view;
#[cfg(test)]
mod test_support;

pub use error::CompileError;
pub use lower::{lower_function, trap_code};
pub use mir::{
    FrameSlot, Imm, JumpTable, MBlock, MGuard, MInst, MOp, MachFunction, PReg, Reg, RegClass, VReg,
};
pub use options::{
    Counters, DumpSink, DumpStage, OPTIONAL_PASSES, OptionalPass, Options, RegAlloc, Sched,
    SsaDestruction, Timings,
};

use vliw_elf::Object;
use vliw_ir::{Function, Module};

/// Compiles a module (one codegen unit) into a relocatable object.
///
/// The module must pass `vliw_ir::verify_module`; it is verified again here, and an
/// invalid module is an error, not a panic. Unsupported features are errors naming the
/// function and the feature.
pub fn compile_module(module: &Module, options: &Options) -> Result<Object, CompileError> {
    options
        .time("verify", || vliw_ir::verify_module(module))
        .map_err(|e| CompileError::new("", format!("the module does not verify:\n{e}")))?;
    let mut codes = Vec::with_capacity(module.functions.len());
    for func in &module.functions {
        codes.push(compile_function(module, func, options)?);
    }
    options.time("object", || {
        object::build_object(module, &codes, options.debug_info)
    })
}

/// Compiles one function of `module` to machine code (all passes up to encoding).
pub fn compile_function(
    module: &Module,
    func: &Function,
    options: &Options,
) -> Result<emit::FunctionCode, CompileError> {
    // The middle end works on a copy: the module is shared by the codegen unit.
    let optimized;
    let func = if options.mem2reg || options.dce {
        let mut copy = func.clone();
        if options.mem2reg {
            options.time("mem2reg", || vliw_opt::mem2reg(&mut copy));
        }
        if options.dce {
            options.time("dce", || vliw_opt::dce(&mut copy));
        }
        if cfg!(debug_assertions) {
            vliw_ir::verify_function(&copy).map_err(|e| {
                CompileError::new(&func.name, format!("the middle end broke the IR:\n{e}"))
            })?;
        }
        optimized = copy;
        &optimized
    } else {
        func
    };
    let mut mf = options.time("isel", || lower_function(module, func, options))?;
    if cfg!(debug_assertions) {
        mf.verify(mir::Phase::Ssa)
            .map_err(|e| CompileError::new(&func.name, format!("instruction selection: {e}")))?;
    }
    if options.wants_dump(DumpStage::Isel) {
        options.write_dump(DumpStage::Isel, &mf.to_string());
    }
    if options.analysis_timing {
        // Measurement only: on `mf` as it is and on clones; the pipeline goes on with
        // `mf` unchanged.
        analysis_timing::report(&mf);
    }
    options.time("regalloc", || -> Result<(), CompileError> {
        match options.regalloc {
            RegAlloc::Naive => {
                destruct::destruct(
                    &mut mf,
                    options.ssa_destruction,
                    options.counters.as_deref(),
                );
                regalloc::allocate_naive(&mut mf)
            }
            RegAlloc::Ssa => ssa_regalloc::allocate(&mut mf, options),
        }
    })?;
    if options.wants_dump(DumpStage::Regalloc) {
        options.write_dump(DumpStage::Regalloc, &mf.to_string());
    }
    options.time("frame", || {
        frame::lower_frame(&mut mf);
        emit::remove_fallthrough_branches(&mut mf);
    });
    match options.sched {
        Sched::Off => emit::bundle_one_per_op(&mut mf),
        Sched::List => options.time("sched", || {
            sched::schedule_function(&mut mf, &options.machine)
        }),
    }
    if options.wants_dump(DumpStage::Final) {
        options.write_dump(DumpStage::Final, &mf.to_string());
    }
    options.time("emit", || emit::encode_bundles(&mf, &options.machine))
}
