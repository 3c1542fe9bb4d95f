//! The C calling convention of VLIW-64 and how rustc is taught it.
//!
//! rustc computes a function's `FnAbi` in the `fn_abi_of_fn_ptr` and
//! `fn_abi_of_instance_no_deduced_attrs` queries (`rustc_ty_utils::abi`). For the
//! Rust ABIs it calls `FnAbi::adjust_for_rust_abi`, which has a generic path for an
//! unknown architecture. For every other ABI (`extern "C"`, `"system"`, `"C-unwind"`,
//! ...) it calls `FnAbi::adjust_for_foreign_abi`, which *panics* for `Arch::Other`
//! ("no lowering implemented for vliw64"). We do not claim another architecture in the
//! target spec; instead the backend overrides those two query providers
//! (`CodegenBackend::provide`):
//!
//! * a Rust-ABI signature goes to rustc's own provider, unchanged;
//! * a non-Rust signature is first computed by rustc's provider as the *Rust-ABI twin*
//!   of the signature (same inputs and output, C varargs appended as ordinary inputs,
//!   `extern "Rust"`), which gives every argument its layout without reaching the
//!   panicking code; then each argument's pass mode is reset to rustc's unadjusted
//!   default and [`compute_c_abi_info`] applies VLIW-64's C rules; finally the
//!   signature's own `conv`, `c_variadic`, `fixed_count` and `can_unwind` are restored.
//!
//! The third query, `fn_abi_of_instance_raw`, delegates to
//! `fn_abi_of_instance_no_deduced_attrs` and only adds attributes deduced for Rust-ABI
//! functions, so it needs no override. See `docs/backend.md` ("Function ABI").

use std::sync::OnceLock;

use rustc_abi::{BackendRepr, ExternAbi, Primitive, Reg, Size};
use rustc_middle::queries::Providers;
use rustc_middle::ty::layout::{FnAbiError, LayoutCx, fn_can_unwind};
use rustc_middle::ty::{self, Instance, InstanceKind, Ty, TyCtxt};
use rustc_target::callconv::{ArgAbi, ArgAttributes, ArgExtension, FnAbi, PassMode, Uniform};
use rustc_target::spec::AbiMap;

/// Aggregates up to this size are passed and returned in (at most two) registers.
pub const MAX_AGGREGATE_IN_REGS: u64 = 16;

/// rustc's own providers, saved before ours replace them.
static DEFAULT_PROVIDERS: OnceLock<Providers> = OnceLock::new();

pub fn provide(providers: &mut Providers) {
    // The first `provide` call wins: a second session in the same process (rustdoc,
    // tests) installs the same defaults.
    DEFAULT_PROVIDERS.get_or_init(|| *providers);
    providers.fn_abi_of_fn_ptr = fn_abi_of_fn_ptr;
    providers.fn_abi_of_instance_no_deduced_attrs = fn_abi_of_instance_no_deduced_attrs;
}

fn defaults() -> &'static Providers {
    DEFAULT_PROVIDERS
        .get()
        .expect("VLIW backend: query providers not saved")
}

type FnAbiResult<'tcx> = Result<&'tcx FnAbi<'tcx, Ty<'tcx>>, &'tcx FnAbiError<'tcx>>;

fn fn_abi_of_fn_ptr<'tcx>(
    tcx: TyCtxt<'tcx>,
    query: ty::PseudoCanonicalInput<'tcx, (ty::PolyFnSig<'tcx>, &'tcx ty::List<Ty<'tcx>>)>,
) -> FnAbiResult<'tcx> {
    let (sig, extra_args) = query.value;
    let abi = sig.abi();
    if abi.is_rustic_abi() {
        return (defaults().fn_abi_of_fn_ptr)(tcx, query);
    }

    // The Rust-ABI twin: varargs become ordinary trailing inputs.
    let twin = sig.map_bound(|s| {
        tcx.mk_fn_sig(
            s.inputs().iter().copied().chain(extra_args.iter()),
            s.output(),
            s.fn_sig_kind.set_abi(ExternAbi::Rust).set_c_variadic(false),
        )
    });
    let twin_query = ty::PseudoCanonicalInput {
        typing_env: query.typing_env,
        value: (twin, ty::List::empty()),
    };
    let rust_abi = (defaults().fn_abi_of_fn_ptr)(tcx, twin_query)?;

    let cx = LayoutCx::new(tcx, query.typing_env);
    let mut fn_abi = rust_abi.clone();
    for arg in fn_abi
        .args
        .iter_mut()
        .chain(std::iter::once(&mut fn_abi.ret))
    {
        *arg = ArgAbi::new(arg.layout, |_, _| ArgAttributes::new());
    }
    fn_abi.conv = AbiMap::from_target(&tcx.sess.target)
        .canonize_abi(abi, sig.c_variadic())
        .into_option()
        .unwrap_or_else(|| {
            tcx.dcx()
                .fatal(format!("the {abi} ABI is not supported on VLIW-64"))
        });
    fn_abi.c_variadic = sig.c_variadic();
    fn_abi.fixed_count = sig.inputs().skip_binder().len() as u32;
    fn_abi.can_unwind = fn_can_unwind(tcx, None, abi);
    compute_c_abi_info(&cx, &mut fn_abi);
    Ok(tcx.arena.alloc(fn_abi))
}

fn fn_abi_of_instance_no_deduced_attrs<'tcx>(
    tcx: TyCtxt<'tcx>,
    query: ty::PseudoCanonicalInput<'tcx, (Instance<'tcx>, &'tcx ty::List<Ty<'tcx>>)>,
) -> FnAbiResult<'tcx> {
    let (instance, extra_args) = query.value;
    let Some(sig) = foreign_abi_sig(tcx, query.typing_env, instance) else {
        return (defaults().fn_abi_of_instance_no_deduced_attrs)(tcx, query);
    };
    if let InstanceKind::Virtual(..) = instance.def {
        tcx.dcx().fatal(format!(
            "VLIW backend: virtual calls of trait methods with the {} ABI are not supported (`{}`)",
            sig.abi(),
            instance
        ));
    }
    let mut fn_abi = tcx
        .fn_abi_of_fn_ptr(ty::PseudoCanonicalInput {
            typing_env: query.typing_env,
            value: (sig, extra_args),
        })?
        .clone();
    // What the instance knows beyond its signature: whether it can unwind.
    fn_abi.can_unwind = fn_can_unwind(tcx, Some(instance.def_id()), sig.abi());
    Ok(tcx.arena.alloc(fn_abi))
}

/// The signature of `instance` if it has a non-Rust ABI (only plain functions and
/// trait methods can have one: closures, coroutines and shims are `extern "Rust"` or
/// `"rust-call"`).
fn foreign_abi_sig<'tcx>(
    tcx: TyCtxt<'tcx>,
    typing_env: ty::TypingEnv<'tcx>,
    instance: Instance<'tcx>,
) -> Option<ty::PolyFnSig<'tcx>> {
    let ty = instance.ty(tcx, typing_env);
    let ty::FnDef(def_id, _) = *ty.kind() else {
        return None;
    };
    if tcx.fn_sig(def_id).skip_binder().abi().is_rustic_abi() {
        return None;
    }
    match instance.def {
        InstanceKind::Item(_) | InstanceKind::Virtual(..) | InstanceKind::Shim(_) => {
            Some(ty.fn_sig(tcx))
        }
        _ => None,
    }
}

/// VLIW-64's C calling convention (`docs/backend.md`, "Function ABI"), applied to a
/// `FnAbi` whose arguments are in rustc's unadjusted default modes. Arguments and
/// results are classified by size and kind alone (never by Rust's layout choices such
/// as `ScalarPair`), so that the convention is a property of the C types:
///
/// * zero-sized values are not passed;
/// * integers, pointers and floats are passed directly; integers narrower than 64 bits
///   are extended to 64 by their signedness, 32-bit integers always sign-extended
///   (their canonical form); `bool` zero-extended; 128-bit integers take two registers;
/// * aggregates up to 16 bytes travel as their memory image in one or two 64-bit
///   integer registers (`PassMode::Cast` to `i64` units), arguments and results alike;
/// * larger aggregates are passed by reference to a caller-owned copy
///   (`PassMode::Indirect`), and returned through a caller-provided buffer whose
///   address is a hidden first argument (sret);
/// * types that rustc requires to be indirect in non-Rust ABIs (`VaList`) are indirect.
pub fn compute_c_abi_info<'tcx>(cx: &LayoutCx<'tcx>, fn_abi: &mut FnAbi<'tcx, Ty<'tcx>>) {
    classify(cx, &mut fn_abi.ret);
    for arg in fn_abi.args.iter_mut() {
        classify(cx, arg);
    }
}

fn classify<'tcx>(cx: &LayoutCx<'tcx>, arg: &mut ArgAbi<'tcx, Ty<'tcx>>) {
    if arg.is_ignore() {
        return;
    }
    if arg.layout.pass_indirectly_in_non_rustic_abis(cx) {
        arg.make_indirect();
        return;
    }
    match arg.layout.backend_repr {
        BackendRepr::Scalar(scalar) => {
            if let (Primitive::Int(int, _), PassMode::Direct(attrs)) =
                (scalar.primitive(), &mut arg.mode)
            {
                let bits = int.size().bits();
                if scalar.is_bool() {
                    attrs.ext(ArgExtension::Zext);
                } else if bits == 32 {
                    attrs.ext(ArgExtension::Sext);
                } else if bits < 32 {
                    arg.extend_integer_width_to(64);
                }
            }
        }
        BackendRepr::ScalarPair { .. } | BackendRepr::Memory { .. } => {
            let size = arg.layout.size;
            if arg.layout.is_unsized() {
                // Only `extern "Rust"` functions take unsized arguments; keep rustc's mode.
            } else if size <= Size::from_bytes(MAX_AGGREGATE_IN_REGS) {
                arg.cast_to(Uniform::new(Reg::i64(), size));
            } else {
                if !arg.is_indirect() {
                    arg.make_indirect();
                }
            }
        }
        BackendRepr::SimdVector { .. } | BackendRepr::SimdScalableVector { .. } => {
            // Vector types are rejected when a function using them is compiled; give them
            // a well-defined mode meanwhile.
            arg.make_indirect();
        }
    }
}
