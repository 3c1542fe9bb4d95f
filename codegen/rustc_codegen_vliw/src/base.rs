//! Building one codegen unit's IR module (on the thread that holds `TyCtxt`), and the
//! allocator shim.

use std::sync::Arc;
use std::time::Instant;

use rustc_ast::expand::allocator::{
    AllocatorMethod, AllocatorTy, NO_ALLOC_SHIM_IS_UNSTABLE, default_fn_name, global_fn_name,
};
use rustc_codegen_ssa::ModuleCodegen;
use rustc_codegen_ssa::base::maybe_create_entry_wrapper;
use rustc_codegen_ssa::mono_item::MonoItemExt;
use rustc_codegen_ssa::traits::{BuilderMethods, ReturnSlot};
use rustc_middle::dep_graph;
use rustc_middle::ty::TyCtxt;
use rustc_session::config::DebugInfo;
use rustc_span::Symbol;
use rustc_symbol_mangling::mangle_internal_symbol;
use vliw_ir as ir;

use crate::VliwModule;
use crate::builder::Builder;
use crate::context::CodegenCx;
use crate::options::Options;
use crate::timing::{Phase, Timer};

/// Build the IR of codegen unit `cgu_name`; the cost estimate is the time it took.
pub fn compile_codegen_unit(
    tcx: TyCtxt<'_>,
    cgu_name: Symbol,
    options: &Arc<Options>,
) -> (ModuleCodegen<VliwModule>, u64) {
    let start = Instant::now();
    let dep_node = tcx.codegen_unit(cgu_name).codegen_dep_node(tcx);
    let (module, _) = tcx.dep_graph.with_task(
        dep_node,
        tcx,
        || module_codegen(tcx, cgu_name, options),
        Some(dep_graph::hash_result),
    );
    (module, start.elapsed().as_nanos() as u64)
}

fn module_codegen(
    tcx: TyCtxt<'_>,
    cgu_name: Symbol,
    options: &Arc<Options>,
) -> ModuleCodegen<VliwModule> {
    let name = cgu_name.as_str();
    let timer = Timer::new(options.time_passes, name);
    let cgu = tcx.codegen_unit(cgu_name);
    let module = timer.time(
        Phase::BuildIr,
        || format!("{} items", cgu.items().len()),
        || {
            let mut cx = CodegenCx::new(tcx);
            let items = cgu.items_in_deterministic_order(tcx);
            for &(item, data) in &items {
                item.predefine::<Builder<'_, '_>>(&mut cx, name, data.linkage, data.visibility);
            }
            for &(item, data) in &items {
                item.define::<Builder<'_, '_>>(&mut cx, name, data);
            }
            maybe_create_entry_wrapper::<Builder<'_, '_>>(&cx, cgu);
            cx.finish()
        },
    );
    if options.verify != vliw_pipeline::VerifyLevel::None {
        timer.time(Phase::Verify, String::new, || verify(tcx, name, &module));
    }
    ModuleCodegen::new_regular(
        name.to_string(),
        VliwModule {
            ir: module,
            options: options.clone(),
            debuginfo: tcx.sess.opts.debuginfo != DebugInfo::None,
        },
    )
}

/// Every function and the module must verify; a failure is a bug of the shim.
pub fn verify(tcx: TyCtxt<'_>, unit: &str, module: &ir::Module) {
    for f in &module.functions {
        if let Err(errors) = ir::verifier::verify_function(f) {
            let mut text = String::new();
            let _ = ir::write::write_function(&mut text, f);
            tcx.dcx().fatal(format!(
                "VLIW backend bug: the IR of `{}` (codegen unit {unit}) fails verification:\n{errors}\n{text}",
                f.name
            ));
        }
    }
    // The functions are verified above: only the module's own rules remain.
    if let Err(errors) = ir::verifier::verify_module_shallow(module) {
        tcx.dcx().fatal(format!(
            "VLIW backend bug: the IR module of codegen unit {unit} fails verification:\n{errors}"
        ));
    }
}

/// The allocator shim: `__rust_alloc` and friends forwarding to the global
/// allocator's `__rg_*` or the default `__rdl_*` functions, and the
/// `__rust_no_alloc_shim_is_unstable` marker.
pub fn codegen_allocator(
    tcx: TyCtxt<'_>,
    module_name: &str,
    methods: &[AllocatorMethod],
    options: &Arc<Options>,
) -> VliwModule {
    let cx = CodegenCx::new(tcx);
    let usize_ty = cx.ty_i64;
    for method in methods {
        let mut args = Vec::new();
        for input in method.inputs {
            match input.ty {
                AllocatorTy::Layout => {
                    args.push(usize_ty); // size
                    args.push(usize_ty); // align
                }
                AllocatorTy::Ptr => args.push(cx.ty_ptr),
                AllocatorTy::Usize => args.push(usize_ty),
                AllocatorTy::Never | AllocatorTy::ResultPtr | AllocatorTy::Unit => {
                    tcx.dcx().fatal("invalid allocator argument")
                }
            }
        }
        let ret = match method.output {
            AllocatorTy::ResultPtr => cx.ty_ptr,
            AllocatorTy::Never | AllocatorTy::Unit => cx.ty_void,
            _ => tcx.dcx().fatal("invalid allocator output"),
        };
        let sig = cx.sig_of_types(&args, ret);
        let from = mangle_internal_symbol(tcx, &global_fn_name(method.name));
        let to = mangle_internal_symbol(tcx, &default_fn_name(method.name));
        let id = cx.declare_fn(&from, sig, None);
        cx.define_fn(id, ir::Linkage::Export);
        let entry = Builder::append_block(&cx, id, "start");
        let mut bx = Builder::build(&cx, entry);
        let params: Vec<_> = (0..args.len())
            .map(|i| {
                use rustc_codegen_ssa::traits::AbiBuilderMethods;
                bx.get_param(i)
            })
            .collect();
        // The callee (`__rdl_*`, defined in `alloc`) is an import of this module.
        cx.declare_fn(&to, sig, None);
        let callee = cx.sym_addr(&to);
        let r = bx.call(
            sig,
            None,
            None,
            callee,
            ReturnSlot::Direct,
            &params,
            None,
            None,
        );
        if ret == cx.ty_void {
            bx.ret_void();
        } else {
            bx.ret(r);
        }
    }
    let marker = mangle_internal_symbol(tcx, NO_ALLOC_SHIM_IS_UNSTABLE);
    let sig = cx.sig_of_types(&[], cx.ty_void);
    let id = cx.declare_fn(&marker, sig, None);
    cx.define_fn(id, ir::Linkage::Export);
    let entry = Builder::append_block(&cx, id, "start");
    Builder::build(&cx, entry).ret_void();

    let module = cx.finish();
    if options.verify != vliw_pipeline::VerifyLevel::None {
        verify(tcx, module_name, &module);
    }
    VliwModule {
        ir: module,
        options: options.clone(),
        debuginfo: tcx.sess.opts.debuginfo != DebugInfo::None,
    }
}
