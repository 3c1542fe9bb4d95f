//! The codegen context of one codegen unit (rustc_codegen_ssa's `CodegenCx`): the
//! unit's functions, data objects, symbols, types and values, and the traits that
//! rustc_codegen_ssa calls on it without a builder.

use std::cell::{Cell, RefCell};

use rustc_abi::{HasDataLayout, TargetDataLayout};
use rustc_attr_ir::{InlineAttr, Linkage, OptimizeAttr};
use rustc_codegen_ssa::traits::{
    AsmCodegenMethods, BackendTypes, DebugInfoCodegenMethods, GlobalAsmOperandRef,
    MiscCodegenMethods, PreDefineCodegenMethods, TypeMembershipCodegenMethods,
};
use rustc_data_structures::fx::FxHashMap;
use rustc_hir::def_id::DefId;
use rustc_middle::middle::codegen_fn_attrs::CodegenFnAttrFlags;
use rustc_middle::mono::Visibility;
use rustc_middle::ty::layout::{
    FnAbiError, FnAbiOfHelpers, FnAbiRequest, HasTyCtxt, HasTypingEnv, LayoutError, LayoutOfHelpers,
};
use rustc_middle::ty::{self, Instance, Ty, TyCtxt};
use rustc_session::{PointerAuthSchema, Session};
use rustc_span::{DUMMY_SP, Span, Symbol};
use rustc_target::callconv::FnAbi;
use rustc_target::spec::{HasTargetSpec, Target};
use vliw_ir as ir;

use crate::types::{FnSig, TyData, Type, TypeTable};
use crate::values::{SymbolId, Value, ValueData, ValueTable};

/// A function of the codegen unit (rustc_codegen_ssa's `Function`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct FuncId(pub u32);

/// A block of a function (rustc_codegen_ssa's `BasicBlock`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct BlockRef {
    pub func: FuncId,
    pub block: ir::Block,
}

/// A source position for instructions (rustc_codegen_ssa's `DILocation`): a file of
/// the unit's file table, line and column (1-based).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct DebugLoc {
    pub file: u32,
    pub line: u32,
    pub col: u32,
}

/// A function the unit defines or calls.
pub struct FuncEntry<'tcx> {
    pub name: String,
    pub sig: FnSig,
    pub linkage: ir::Linkage,
    /// The IR of a definition (`None` for functions only called).
    pub body: Option<ir::Function>,
    /// rustc_codegen_ssa's parameters (`get_param`), made when the entry block is.
    pub params: Vec<Value>,
    /// What the function is, for error messages.
    pub instance: Option<Instance<'tcx>>,
    /// Index of the body's symbol, callee and signature references.
    pub refs: crate::builder::FuncRefs,
}

/// A symbol the unit refers to by name.
#[derive(Default)]
pub struct SymbolTable {
    names: Vec<String>,
    ids: FxHashMap<String, SymbolId>,
}

impl SymbolTable {
    pub fn intern(&mut self, name: &str) -> SymbolId {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = SymbolId(self.names.len() as u32);
        self.names.push(name.to_string());
        self.ids.insert(name.to_string(), id);
        id
    }

    pub fn name(&self, id: SymbolId) -> &str {
        &self.names[id.0 as usize]
    }
}

/// A static of this unit, from `predefine_static`.
pub struct StaticEntry {
    pub name: String,
    pub linkage: ir::Linkage,
}

pub struct CodegenCx<'tcx> {
    pub tcx: TyCtxt<'tcx>,
    pub types: RefCell<TypeTable>,
    pub values: RefCell<ValueTable>,
    pub funcs: RefCell<Vec<FuncEntry<'tcx>>>,
    pub fn_by_name: RefCell<FxHashMap<String, FuncId>>,
    pub symbols: RefCell<SymbolTable>,
    /// Data objects defined by this unit.
    pub data: RefCell<Vec<ir::DataObject>>,
    pub statics: RefCell<FxHashMap<DefId, StaticEntry>>,
    /// Anonymous constant allocations already emitted, by allocation.
    pub const_allocs: RefCell<FxHashMap<usize, SymbolId>>,
    /// String literals already emitted.
    pub const_strs: RefCell<FxHashMap<String, SymbolId>>,
    pub vtables: RefCell<FxHashMap<(Ty<'tcx>, Option<ty::ExistentialTraitRef<'tcx>>), Value>>,
    /// Signatures of `FnAbi`s, by address (they are interned by rustc).
    pub fn_abi_sigs: RefCell<FxHashMap<usize, FnSig>>,
    /// Source file names indexed by `DebugLoc::file`.
    pub files: RefCell<Vec<String>>,
    pub anon_counter: Cell<u32>,
    /// The function being declared or built, for error messages without a builder.
    pub current_instance: Cell<Option<Instance<'tcx>>>,
    // Common types.
    pub ty_void: Type,
    pub ty_i1: Type,
    pub ty_i8: Type,
    pub ty_i16: Type,
    pub ty_i32: Type,
    pub ty_i64: Type,
    pub ty_i128: Type,
    pub ty_f32: Type,
    pub ty_f64: Type,
    pub ty_ptr: Type,
}

impl<'tcx> CodegenCx<'tcx> {
    pub fn new(tcx: TyCtxt<'tcx>) -> Self {
        let mut types = TypeTable::default();
        let ty_void = types.intern(TyData::Void);
        let ty_i1 = types.intern(TyData::Int(1));
        let ty_i8 = types.intern(TyData::Int(8));
        let ty_i16 = types.intern(TyData::Int(16));
        let ty_i32 = types.intern(TyData::Int(32));
        let ty_i64 = types.intern(TyData::Int(64));
        let ty_i128 = types.intern(TyData::Int(128));
        let ty_f32 = types.intern(TyData::F32);
        let ty_f64 = types.intern(TyData::F64);
        let ty_ptr = types.intern(TyData::Ptr);
        CodegenCx {
            tcx,
            types: RefCell::new(types),
            values: RefCell::new(ValueTable::default()),
            funcs: RefCell::new(Vec::new()),
            fn_by_name: RefCell::new(FxHashMap::default()),
            symbols: RefCell::new(SymbolTable::default()),
            data: RefCell::new(Vec::new()),
            statics: RefCell::new(FxHashMap::default()),
            const_allocs: RefCell::new(FxHashMap::default()),
            const_strs: RefCell::new(FxHashMap::default()),
            vtables: RefCell::new(FxHashMap::default()),
            fn_abi_sigs: RefCell::new(FxHashMap::default()),
            files: RefCell::new(Vec::new()),
            anon_counter: Cell::new(0),
            current_instance: Cell::new(None),
            ty_void,
            ty_i1,
            ty_i8,
            ty_i16,
            ty_i32,
            ty_i64,
            ty_i128,
            ty_f32,
            ty_f64,
            ty_ptr,
        }
    }

    // ---- values and types ----

    pub fn new_value(&self, data: ValueData) -> Value {
        self.values.borrow_mut().push(data)
    }

    pub fn value(&self, v: Value) -> ValueData {
        self.values.borrow().get(v).clone()
    }

    pub fn intern_type(&self, data: TyData) -> Type {
        self.types.borrow_mut().intern(data)
    }

    pub fn ty_data(&self, t: Type) -> TyData {
        self.types.borrow().get(t).clone()
    }

    pub fn int_type(&self, bits: u32) -> Type {
        self.intern_type(TyData::Int(bits))
    }

    // ---- symbols and functions ----

    pub fn symbol(&self, name: &str) -> SymbolId {
        self.symbols.borrow_mut().intern(name)
    }

    pub fn symbol_name(&self, id: SymbolId) -> String {
        self.symbols.borrow().name(id).to_string()
    }

    /// The address of symbol `name` as a constant.
    pub fn sym_addr(&self, name: &str) -> Value {
        let sym = self.symbol(name);
        self.new_value(ValueData::SymAddr {
            ty: self.ty_ptr,
            sym,
            offset: 0,
        })
    }

    /// A fresh name for an anonymous local data object.
    pub fn anon_name(&self, what: &str) -> String {
        let n = self.anon_counter.get();
        self.anon_counter.set(n + 1);
        format!("__vliw_{what}.{n}")
    }

    pub fn func(&self, id: FuncId) -> std::cell::Ref<'_, FuncEntry<'tcx>> {
        std::cell::Ref::map(self.funcs.borrow(), |f| &f[id.0 as usize])
    }

    pub fn func_mut(&self, id: FuncId) -> std::cell::RefMut<'_, FuncEntry<'tcx>> {
        std::cell::RefMut::map(self.funcs.borrow_mut(), |f| &mut f[id.0 as usize])
    }

    /// The function named `name`, declared with `sig` if it is new. A definition
    /// (`body`) is added by `define_fn`.
    pub fn declare_fn(&self, name: &str, sig: FnSig, instance: Option<Instance<'tcx>>) -> FuncId {
        if let Some(&id) = self.fn_by_name.borrow().get(name) {
            return id;
        }
        let mut funcs = self.funcs.borrow_mut();
        let id = FuncId(funcs.len() as u32);
        funcs.push(FuncEntry {
            name: name.to_string(),
            sig,
            linkage: ir::Linkage::Import,
            body: None,
            params: Vec::new(),
            instance,
            refs: Default::default(),
        });
        self.fn_by_name.borrow_mut().insert(name.to_string(), id);
        id
    }

    /// Give function `id` a body (an empty IR function) with `linkage`.
    pub fn define_fn(&self, id: FuncId, linkage: ir::Linkage) {
        let ir_sig = self.types.borrow().sig(self.func(id).sig).ir.clone();
        let mut f = self.func_mut(id);
        if f.body.is_none() {
            f.body = Some(ir::Function::new(f.name.clone(), ir_sig, linkage));
        }
        f.linkage = linkage;
    }

    /// What a function is called in error messages.
    pub fn describe_fn(&self, id: FuncId) -> String {
        let f = self.func(id);
        match f.instance {
            Some(instance) => format!("`{instance}`"),
            None => format!("`{}`", f.name),
        }
    }

    pub fn fn_span(&self, id: FuncId) -> Span {
        match self.func(id).instance {
            Some(instance) => self.tcx.def_span(instance.def_id()),
            None => DUMMY_SP,
        }
    }

    /// Stop compilation: `feature` is not supported (in function `func`).
    pub fn unsupported(&self, func: Option<FuncId>, feature: &str) -> ! {
        match func {
            Some(id) => self.tcx.dcx().span_fatal(
                self.fn_span(id),
                format!(
                    "the VLIW backend does not support {feature} (in {})",
                    self.describe_fn(id)
                ),
            ),
            None => match self.current_instance.get() {
                Some(instance) => self.tcx.dcx().span_fatal(
                    self.tcx.def_span(instance.def_id()),
                    format!("the VLIW backend does not support {feature} (in `{instance}`)"),
                ),
                None => self
                    .tcx
                    .dcx()
                    .fatal(format!("the VLIW backend does not support {feature}")),
            },
        }
    }

    /// The symbol name of a static.
    pub fn static_name(&self, def_id: DefId) -> String {
        if let Some(s) = self.statics.borrow().get(&def_id) {
            return s.name.clone();
        }
        self.tcx
            .symbol_name(Instance::mono(self.tcx, def_id))
            .name
            .to_string()
    }

    // ---- the finished module ----

    /// Move everything built into an IR module.
    pub fn finish(&self) -> ir::Module {
        let mut module = ir::Module::new();
        let types = self.types.borrow();
        let mut defined = rustc_data_structures::fx::FxHashSet::default();
        for f in self.funcs.borrow_mut().iter_mut() {
            if let Some(body) = f.body.take() {
                defined.insert(f.name.clone());
                module.functions.push(body);
            }
        }
        // Each name is declared once (as `Module::declare_*` would ensure, but with a
        // set instead of a scan of the declarations per name).
        let mut declared = rustc_data_structures::fx::FxHashSet::default();
        for f in self.funcs.borrow().iter() {
            if !defined.contains(&f.name) && declared.insert(f.name.clone()) {
                module.func_decls.push(ir::FuncDecl {
                    name: f.name.clone(),
                    signature: types.sig(f.sig).ir.clone(),
                });
            }
        }
        module.data = std::mem::take(&mut *self.data.borrow_mut());
        for d in &module.data {
            defined.insert(d.name.clone());
        }
        // Every other symbol whose address is taken is external data (or an external
        // function used only by address, which is declared above).
        let symbols = self.symbols.borrow();
        for name in &symbols.names {
            if !defined.contains(name) && declared.insert(name.clone()) {
                module.data_decls.push(name.clone());
            }
        }
        module
    }
}

/// rustc's linkage and visibility as an IR linkage.
pub fn ir_linkage(linkage: Linkage, _visibility: Visibility) -> ir::Linkage {
    match linkage {
        Linkage::External => ir::Linkage::Export,
        Linkage::Internal | Linkage::AvailableExternally => ir::Linkage::Local,
        Linkage::LinkOnceAny
        | Linkage::LinkOnceODR
        | Linkage::WeakAny
        | Linkage::WeakODR
        | Linkage::ExternalWeak => ir::Linkage::Weak,
    }
}

impl<'tcx> BackendTypes for CodegenCx<'tcx> {
    type Function = FuncId;
    type BasicBlock = BlockRef;
    type Funclet = ();
    type Value = Value;
    type Type = Type;
    type FunctionSignature = FnSig;
    type DIScope = ();
    type DILocation = DebugLoc;
    type DIVariable = ();
}

impl<'tcx> HasTyCtxt<'tcx> for CodegenCx<'tcx> {
    fn tcx(&self) -> TyCtxt<'tcx> {
        self.tcx
    }
}

impl<'tcx> HasTypingEnv<'tcx> for CodegenCx<'tcx> {
    fn typing_env(&self) -> ty::TypingEnv<'tcx> {
        ty::TypingEnv::fully_monomorphized()
    }
}

impl HasDataLayout for CodegenCx<'_> {
    fn data_layout(&self) -> &TargetDataLayout {
        &self.tcx.data_layout
    }
}

impl HasTargetSpec for CodegenCx<'_> {
    fn target_spec(&self) -> &Target {
        &self.tcx.sess.target
    }
}

impl<'tcx> LayoutOfHelpers<'tcx> for CodegenCx<'tcx> {
    fn handle_layout_err(&self, err: LayoutError<'tcx>, span: Span, ty: Ty<'tcx>) -> ! {
        self.tcx
            .dcx()
            .span_fatal(span, format!("cannot compute the layout of `{ty}`: {err}"))
    }
}

impl<'tcx> FnAbiOfHelpers<'tcx> for CodegenCx<'tcx> {
    fn handle_fn_abi_err(
        &self,
        err: FnAbiError<'tcx>,
        span: Span,
        request: FnAbiRequest<'tcx>,
    ) -> ! {
        let FnAbiError::Layout(err) = err;
        let what = match request {
            FnAbiRequest::OfFnPtr { sig, .. } => format!("`{sig}`"),
            FnAbiRequest::OfInstance { instance, .. } => format!("`{instance}`"),
        };
        self.tcx
            .dcx()
            .span_fatal(span, format!("cannot compute the ABI of {what}: {err}"))
    }
}

impl<'tcx> MiscCodegenMethods<'tcx> for CodegenCx<'tcx> {
    fn vtables(
        &self,
    ) -> &RefCell<FxHashMap<(Ty<'tcx>, Option<ty::ExistentialTraitRef<'tcx>>), Value>> {
        &self.vtables
    }

    fn get_fn(&self, instance: Instance<'tcx>) -> FuncId {
        let name = self.tcx.symbol_name(instance).name;
        if let Some(&id) = self.fn_by_name.borrow().get(name) {
            return id;
        }
        let fn_abi = self.fn_abi_of_instance_for(instance);
        let sig = self.sig_of_fn_abi(fn_abi);
        self.declare_fn(name, sig, Some(instance))
    }

    fn get_fn_addr(
        &self,
        instance: Instance<'tcx>,
        _pointer_auth_schema: Option<&PointerAuthSchema>,
    ) -> Value {
        let id = self.get_fn(instance);
        let name = self.func(id).name.clone();
        self.sym_addr(&name)
    }

    /// The `eh_personality` lang item (std's `rust_eh_personality`), or a declaration
    /// of `rust_eh_personality` where the crate graph has none yet (a `no_std` crate
    /// that a std binary links).
    fn eh_personality(&self) -> FuncId {
        let tcx = self.tcx;
        match tcx.lang_items().eh_personality() {
            Some(def_id) => self.get_fn(Instance::expect_resolve(
                tcx,
                self.typing_env(),
                def_id,
                ty::List::empty(),
                rustc_span::DUMMY_SP,
            )),
            None => {
                const NAME: &str = "rust_eh_personality";
                if let Some(&id) = self.fn_by_name.borrow().get(NAME) {
                    return id;
                }
                // `(i32, i32, u64, ptr, ptr) -> i32`, as the Itanium ABI declares it
                let i32 = self.ty_i32;
                let sig =
                    self.sig_of_types(&[i32, i32, self.ty_i64, self.ty_ptr, self.ty_ptr], i32);
                self.declare_fn(NAME, sig, None)
            }
        }
    }

    fn sess(&self) -> &Session {
        self.tcx.sess
    }

    fn set_frame_pointer_type(&self, _llfn: FuncId) {}

    fn apply_target_cpu_attr(&self, _llfn: FuncId) {}

    fn declare_c_main(&self, fn_type: FnSig) -> Option<FuncId> {
        let entry = self.tcx.sess.target.entry_name.as_ref();
        if self.fn_by_name.borrow().contains_key(entry) {
            return None;
        }
        let id = self.declare_fn(entry, fn_type, None);
        self.define_fn(id, ir::Linkage::Export);
        Some(id)
    }

    fn intrinsic_call_expects_place_always(&self, _name: Symbol) -> bool {
        false
    }
}

impl<'tcx> CodegenCx<'tcx> {
    fn fn_abi_of_instance_for(&self, instance: Instance<'tcx>) -> &'tcx FnAbi<'tcx, Ty<'tcx>> {
        use rustc_middle::ty::layout::FnAbiOf;
        self.fn_abi_of_instance(instance, ty::List::empty())
    }
}

impl<'tcx> PreDefineCodegenMethods<'tcx> for CodegenCx<'tcx> {
    fn predefine_static(
        &mut self,
        def_id: DefId,
        linkage: Linkage,
        visibility: Visibility,
        symbol_name: &str,
    ) {
        self.statics.borrow_mut().insert(
            def_id,
            StaticEntry {
                name: symbol_name.to_string(),
                linkage: ir_linkage(linkage, visibility),
            },
        );
        self.symbol(symbol_name);
    }

    fn predefine_fn(
        &mut self,
        instance: Instance<'tcx>,
        linkage: Linkage,
        visibility: Visibility,
        symbol_name: &str,
    ) {
        self.current_instance.set(Some(instance));
        let fn_abi = self.fn_abi_of_instance_for(instance);
        let sig = self.sig_of_fn_abi(fn_abi);
        let id = self.declare_fn(symbol_name, sig, Some(instance));
        self.define_fn(id, ir_linkage(linkage, visibility));
        let (inline, cold) = self.inline_attrs(instance);
        let param_attrs = self.param_attrs_of_fn_abi(fn_abi, sig);
        if let Some(body) = self.func_mut(id).body.as_mut() {
            body.inline = inline;
            body.cold = cold;
            body.param_attrs = param_attrs;
        }
    }
}

impl<'tcx> CodegenCx<'tcx> {
    /// The inlining attribute and `#[cold]` of a function, for the RVSDG's inliner, as
    /// rustc_codegen_llvm gives them to LLVM (`attributes::inline_attr`):
    /// `#[optimize(none)]` is never inlined, and constructors and closures without an
    /// attribute are hinted (`InstanceKind::requires_inline`).
    fn inline_attrs(&self, instance: Instance<'tcx>) -> (ir::InlineHint, bool) {
        let attrs = self.tcx.codegen_instance_attrs(instance.def);
        let inline = match (attrs.inline, attrs.optimize) {
            (_, OptimizeAttr::DoNotOptimize) => ir::InlineHint::Never,
            (InlineAttr::None, _) if instance.def.requires_inline(self.tcx) => ir::InlineHint::Hint,
            (InlineAttr::None, _) => ir::InlineHint::Default,
            (InlineAttr::Hint, _) => ir::InlineHint::Hint,
            (InlineAttr::Always | InlineAttr::Force { .. }, _) => ir::InlineHint::Always,
            (InlineAttr::Never, _) => ir::InlineHint::Never,
        };
        let cold = attrs.flags.contains(CodegenFnAttrFlags::COLD);
        (inline, cold)
    }
}

impl<'tcx> AsmCodegenMethods<'tcx> for CodegenCx<'tcx> {
    fn codegen_global_asm(
        &mut self,
        _template: &[rustc_ast::InlineAsmTemplatePiece],
        _operands: &[GlobalAsmOperandRef<'tcx>],
        _options: rustc_ast::InlineAsmOptions,
        line_spans: &[Span],
        _extra_rust_target_features: &[String],
    ) {
        let span = line_spans.first().copied().unwrap_or(DUMMY_SP);
        self.tcx.dcx().span_fatal(
            span,
            "the VLIW backend does not support `global_asm!` and naked functions yet",
        )
    }

    fn mangled_name(&self, instance: Instance<'tcx>) -> String {
        self.tcx.symbol_name(instance).name.to_string()
    }
}

impl<'tcx> DebugInfoCodegenMethods<'tcx> for CodegenCx<'tcx> {
    fn create_vtable_debuginfo(
        &self,
        _ty: Ty<'tcx>,
        _trait_ref: Option<ty::ExistentialTraitRef<'tcx>>,
        _vtable: Value,
    ) {
    }
}

impl<'tcx> TypeMembershipCodegenMethods<'tcx> for CodegenCx<'tcx> {}
