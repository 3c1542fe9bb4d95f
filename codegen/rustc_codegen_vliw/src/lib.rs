//! `rustc_codegen_vliw`: the rustc codegen backend for VLIW-64.
//!
//! rustc loads this dylib with `-Zcodegen-backend=PATH` and calls
//! [`__rustc_codegen_backend`]. The crate implements rustc_codegen_ssa's traits (as
//! rustc_codegen_gcc does), so rustc_codegen_ssa walks the MIR and this crate only
//! turns its builder calls into `vliw-ir`; each codegen unit's IR module then goes to
//! the rustc-free back end (`emit::compile_module`). It is the only crate of the
//! project that links rustc. `docs/backend.md` describes it.
//!
//! Map of the crate:
//! - `lib.rs`: the backend (`CodegenBackend`, `ExtraBackendMethods`,
//!   `WriteBackendMethods`);
//! - `options.rs`: `-Cllvm-args` options; `timing.rs`: `time-passes`;
//! - `callconv.rs`: rustc's ABI queries overridden for non-Rust ABIs, VLIW-64's C ABI;
//! - `abi.rs`: `FnAbi` to IR signatures, arguments and parameters;
//! - `context.rs`: the per-codegen-unit context; `types.rs`, `type_of.rs`: types;
//!   `values.rs`: values; `consts.rs`: constants and statics;
//! - `builder.rs`: `BuilderMethods`; `intrinsic.rs`: intrinsics;
//! - `base.rs`: building a codegen unit, the allocator shim; `emit.rs`: dumps, lowering
//!   and object files.

#![feature(rustc_private)]

extern crate rustc_abi;
extern crate rustc_apfloat;
extern crate rustc_ast;
extern crate rustc_attr_ir;
extern crate rustc_codegen_ssa;
extern crate rustc_data_structures;
extern crate rustc_errors;
extern crate rustc_hir;
extern crate rustc_metadata;
extern crate rustc_middle;
extern crate rustc_session;
extern crate rustc_span;
extern crate rustc_structures;
extern crate rustc_symbol_mangling;
extern crate rustc_target;

// This prevents duplicating functions and statics that are already part of the host
// rustc process.
#[allow(unused_extern_crates)]
extern crate rustc_driver;

mod abi;
mod base;
mod builder;
pub mod callconv;
mod consts;
mod context;
pub mod emit;
mod intrinsic;
pub mod options;
mod simd;
mod timing;
mod type_of;
mod types;
mod values;

use std::any::Any;
use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::Arc;

use rustc_ast::expand::allocator::AllocatorMethod;
use rustc_codegen_ssa::back::lto::ThinModule;
use rustc_codegen_ssa::back::write::{
    CodegenContext, FatLtoInput, ModuleConfig, OngoingCodegen, SharedEmitter,
    TargetMachineFactoryFn, ThinLtoInput,
};
use rustc_codegen_ssa::traits::{CodegenBackend, ExtraBackendMethods, WriteBackendMethods};
use rustc_codegen_ssa::{CompiledModule, CompiledModules, CrateInfo, ModuleCodegen, TargetConfig};
use rustc_data_structures::profiling::SelfProfilerRef;
use rustc_errors::{DiagCtxt, DiagCtxtHandle};
use rustc_middle::dep_graph::{WorkProduct, WorkProductMap};
use rustc_middle::ty::TyCtxt;
use rustc_middle::util::Providers;
use rustc_session::config::{OptLevel, OutputFilenames};
use rustc_session::{
    BorrowedIncrCompSession, CodegenBackendInit, EarlySession, IncrCompSession, Session,
};
use rustc_span::{Symbol, sym};
use rustc_structures::CrateType;

use crate::options::Options;

/// One codegen unit on its way from the shim to the back end.
pub struct VliwModule {
    pub ir: vliw_ir::Module,
    pub options: Arc<Options>,
    /// `-g` was given.
    pub debuginfo: bool,
}

#[derive(Clone, Default)]
pub struct VliwCodegenBackend {
    /// Set by `init`.
    options: Option<Arc<Options>>,
}

impl VliwCodegenBackend {
    fn options(&self) -> &Arc<Options> {
        self.options
            .as_ref()
            .expect("VLIW backend used before `init`")
    }
}

impl CodegenBackend for VliwCodegenBackend {
    fn name(&self) -> &'static str {
        "vliw"
    }

    fn init(&mut self, sess: &EarlySession) -> CodegenBackendInit {
        use rustc_session::config::{InstrumentCoverage, LtoCli};
        let options =
            Options::parse(&sess.opts.cg.llvm_args).unwrap_or_else(|e| sess.dcx().fatal(e));
        if options.list_passes {
            // Like LLVM's `-help`: a listing on stdout, then exit, before any input is read.
            print!("{}", Options::pass_list());
            std::process::exit(0);
        }
        if matches!(
            sess.early_lto(),
            LtoCli::Yes | LtoCli::Fat | LtoCli::NoParam | LtoCli::Thin
        ) || sess.target.requires_lto
        {
            sess.dcx().fatal("the VLIW backend does not support LTO");
        }
        if sess.opts.cg.instrument_coverage() != InstrumentCoverage::No {
            sess.dcx()
                .fatal("the VLIW backend does not support -Cinstrument-coverage");
        }
        self.options = Some(Arc::new(options));
        CodegenBackendInit {
            global_backend_features: vec![],
            replaced_intrinsics: vec![],
            fallback_intrinsics: vec![sym::type_id_eq],
            thin_lto_supported: false,
        }
    }

    fn target_config(&self, _sess: &EarlySession) -> TargetConfig {
        TargetConfig {
            internal_target_features: Default::default(),
            // The machine has f32 and f64 only.
            has_reliable_f16: false,
            has_reliable_f16_math: false,
            has_reliable_f16b: false,
            has_reliable_f128: false,
            has_reliable_f128_math: false,
        }
    }

    fn supported_crate_types(&self, _sess: &Session) -> Vec<CrateType> {
        // Static linking only.
        vec![CrateType::Executable, CrateType::Rlib, CrateType::StaticLib]
    }

    fn provide(&self, providers: &mut Providers) {
        callconv::provide(&mut providers.queries);
    }

    fn target_cpu(&self, sess: &Session) -> String {
        sess.opts
            .cg
            .target_cpu
            .clone()
            .unwrap_or_else(|| sess.target.cpu.to_string())
    }

    fn codegen_crate(&self, tcx: TyCtxt<'_>) -> Box<dyn Any> {
        Box::new(rustc_codegen_ssa::base::codegen_crate(self.clone(), tcx))
    }

    fn join_codegen(
        &self,
        ongoing_codegen: Box<dyn Any>,
        sess: &Session,
        incr_comp_session: Option<&IncrCompSession>,
        _outputs: &OutputFilenames,
        crate_info: &CrateInfo,
    ) -> (CompiledModules, WorkProductMap) {
        ongoing_codegen
            .downcast::<OngoingCodegen<VliwCodegenBackend>>()
            .expect("the VLIW backend's OngoingCodegen")
            .join(sess, incr_comp_session, crate_info)
    }
}

impl ExtraBackendMethods for VliwCodegenBackend {
    type Module = VliwModule;

    fn codegen_allocator<'tcx>(
        &self,
        tcx: TyCtxt<'tcx>,
        module_name: &str,
        methods: &[AllocatorMethod],
    ) -> VliwModule {
        base::codegen_allocator(tcx, module_name, methods, self.options())
    }

    fn compile_codegen_unit(
        &self,
        tcx: TyCtxt<'_>,
        cgu_name: Symbol,
        _bitcode_needed: bool,
    ) -> (ModuleCodegen<VliwModule>, u64) {
        base::compile_codegen_unit(tcx, cgu_name, self.options())
    }
}

impl WriteBackendMethods for VliwCodegenBackend {
    type Module = VliwModule;
    type TargetMachine = ();
    type ModuleBuffer = Infallible;
    type ThinData = Infallible;

    // `supports_parallel` keeps its default (`true`): codegen units are lowered on
    // rustc_codegen_ssa's worker threads in parallel, each with its own module.

    fn target_machine_factory(
        &self,
        _sess: &Session,
        _opt_level: OptLevel,
    ) -> TargetMachineFactoryFn<Self> {
        Arc::new(|_, _| ())
    }

    fn optimize_and_codegen_fat_lto(
        _sess: &Session,
        _cgcx: &CodegenContext,
        _shared_emitter: &SharedEmitter,
        _tm_factory: TargetMachineFactoryFn<Self>,
        _exported_symbols_for_lto: &[String],
        _each_linked_rlib_for_lto: &[PathBuf],
        _modules: Vec<FatLtoInput<Self>>,
    ) -> CompiledModule {
        unreachable!("LTO is rejected in `init`")
    }

    fn run_thin_lto(
        _cgcx: &CodegenContext,
        _prof: &SelfProfilerRef,
        _incr_comp_session: Option<&BorrowedIncrCompSession>,
        _dcx: DiagCtxtHandle<'_>,
        _exported_symbols_for_lto: &[String],
        _each_linked_rlib_for_lto: &[PathBuf],
        _modules: Vec<ThinLtoInput<Self>>,
    ) -> (Vec<ThinModule<Self>>, Vec<WorkProduct>) {
        unreachable!("LTO is rejected in `init`")
    }

    fn optimize(
        _cgcx: &CodegenContext,
        _prof: &SelfProfilerRef,
        _shared_emitter: &SharedEmitter,
        _module: &mut ModuleCodegen<VliwModule>,
        _config: &ModuleConfig,
    ) {
        // The IR passes run inside `emit::compile_module`'s pipeline.
    }

    fn optimize_and_codegen_thin(
        _cgcx: &CodegenContext,
        _prof: &SelfProfilerRef,
        _shared_emitter: &SharedEmitter,
        _tm_factory: TargetMachineFactoryFn<Self>,
        _thin: ThinModule<Self>,
    ) -> CompiledModule {
        unreachable!("LTO is rejected in `init`")
    }

    fn codegen(
        cgcx: &CodegenContext,
        _prof: &SelfProfilerRef,
        shared_emitter: &SharedEmitter,
        module: ModuleCodegen<VliwModule>,
        config: &ModuleConfig,
    ) -> CompiledModule {
        let dcx = DiagCtxt::new(Box::new(shared_emitter.clone()));
        emit::emit_module(cgcx, dcx.handle(), module, config)
    }

    fn serialize_module(_module: VliwModule, _is_thin: bool) -> Infallible {
        unreachable!("LTO is rejected in `init`")
    }
}

/// The entry point rustc looks for in a codegen backend dylib.
#[unsafe(no_mangle)]
pub fn __rustc_codegen_backend() -> Box<dyn CodegenBackend> {
    Box::new(VliwCodegenBackend::default())
}
