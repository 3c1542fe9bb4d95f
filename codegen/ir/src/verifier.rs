//! The verifier: the structural, typing and dominance rules of `docs/ir.md` §Verifier.

use crate::dfg::ValueDef;
use crate::dominator::DominatorTree;
use crate::entities::{Block, Inst, Value};
use crate::flowgraph::ControlFlowGraph;
use crate::function::{Function, Linkage, Signature};
use crate::instructions::{InstructionData, Opcode};
use crate::module::{DataKind, Module};
use crate::types::Type;
use crate::typing::{operand_types, result_types, types_list};
use crate::write::write_symbol;
use core::fmt;
use cranelift_entity::SecondaryMap;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// One rule broken: where (function, block, instruction in text form, or data object)
/// and what.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VerifierError {
    /// `function @f, block2, inst "v3 = iadd v1, v2"` or `data @x` or `module`.
    pub location: String,
    pub message: String,
}

impl fmt::Display for VerifierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

/// Every rule broken, one per line when displayed.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct VerifierErrors(pub Vec<VerifierError>);

impl fmt::Display for VerifierErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifierErrors {}

/// Stop collecting after this many errors in one function.
const MAX_ERRORS: usize = 100;

fn sym(name: &str) -> String {
    let mut s = String::new();
    let _ = write_symbol(&mut s, name);
    s
}

/// Verify one function on its own (calls and symbols are not resolved against a module;
/// `verify_module` does that).
pub fn verify_function(func: &Function) -> Result<(), VerifierErrors> {
    let mut v = FuncVerifier::new(func);
    v.run();
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(VerifierErrors(v.errors))
    }
}

/// Verify a module: every function and data object, unique symbols, and that every
/// symbol named by a call, `symbol_addr` or relocation is defined or declared, with
/// matching signatures for calls.
pub fn verify_module(module: &Module) -> Result<(), VerifierErrors> {
    verify_module_impl(module, true)
}

/// What `verify_module` checks except the bodies of the functions (`verify_function`):
/// for a caller that has just verified each function on its own, so that no body is
/// verified twice.
pub fn verify_module_shallow(module: &Module) -> Result<(), VerifierErrors> {
    verify_module_impl(module, false)
}

fn verify_module_impl(module: &Module, bodies: bool) -> Result<(), VerifierErrors> {
    let mut errors = Vec::new();
    let mut err =
        |location: String, message: String| errors.push(VerifierError { location, message });
    // symbols
    let mut names: Vec<(&str, &'static str)> = Vec::new();
    names.extend(
        module
            .functions
            .iter()
            .map(|f| (f.name.as_str(), "a defined function")),
    );
    names.extend(
        module
            .data
            .iter()
            .map(|d| (d.name.as_str(), "a defined data object")),
    );
    names.extend(
        module
            .func_decls
            .iter()
            .map(|d| (d.name.as_str(), "a declared function")),
    );
    names.extend(
        module
            .data_decls
            .iter()
            .map(|d| (d.as_str(), "a declared data object")),
    );
    let mut seen: HashMap<&str, &'static str> = HashMap::default();
    for (name, what) in names {
        if let Some(&prev) = seen.get(name) {
            let msg = if prev == what {
                format!("{} is {what}, twice", sym(name))
            } else {
                format!("{} is {what} and also {prev}", sym(name))
            };
            err("module".into(), msg);
        } else {
            seen.insert(name, what);
        }
    }
    let mut sigs: HashMap<&str, &Signature> = HashMap::default();
    for f in &module.functions {
        sigs.entry(&f.name).or_insert(&f.signature);
    }
    for d in &module.func_decls {
        sigs.entry(&d.name).or_insert(&d.signature);
    }
    let thread_locals: HashSet<&str> = module
        .data
        .iter()
        .filter(|d| d.thread_local)
        .map(|d| d.name.as_str())
        .collect();
    // data objects
    for d in &module.data {
        let loc = format!("data {}", sym(&d.name));
        if d.align == 0 || !d.align.is_power_of_two() {
            err(
                loc.clone(),
                format!("alignment {} is not a power of two", d.align),
            );
        }
        if d.linkage == Linkage::Import {
            err(
                loc.clone(),
                "a definition cannot have import linkage".into(),
            );
        }
        if d.thread_local && d.kind == DataKind::ReadOnly {
            err(
                loc.clone(),
                "a thread-local data object is `data` or `bss`, not `rodata`".into(),
            );
        }
        if d.kind == DataKind::Bss && (!d.relocs.is_empty() || d.bytes.iter().any(|&b| b != 0)) {
            err(
                loc.clone(),
                "bss data must be all zero, without relocations".into(),
            );
        }
        let mut end = 0u64;
        for r in &d.relocs {
            if r.offset < end {
                err(
                    loc.clone(),
                    format!(
                        "relocation at offset {} overlaps or is out of order",
                        r.offset
                    ),
                );
            }
            end = r.offset.saturating_add(8);
            if end > d.bytes.len() as u64 {
                err(
                    loc.clone(),
                    format!("relocation at offset {} extends past the end", r.offset),
                );
            } else if d.bytes[r.offset as usize..end as usize]
                .iter()
                .any(|&b| b != 0)
            {
                err(
                    loc.clone(),
                    format!(
                        "bytes under the relocation at offset {} are not zero",
                        r.offset
                    ),
                );
            }
            if !seen.contains_key(r.symbol.as_str()) {
                err(
                    loc.clone(),
                    format!(
                        "relocation against {}, neither defined nor declared",
                        sym(&r.symbol)
                    ),
                );
            } else if thread_locals.contains(r.symbol.as_str()) {
                err(
                    loc.clone(),
                    format!(
                        "relocation against thread-local {}: a thread-local object has no address fixed at link time",
                        sym(&r.symbol)
                    ),
                );
            }
        }
    }
    // functions
    for f in &module.functions {
        if bodies && let Err(e) = verify_function(f) {
            errors.extend(e.0);
        }
        let floc = format!("function {}", sym(&f.name));
        for (r, ext) in f.ext_funcs.iter() {
            match sigs.get(ext.name.as_str()) {
                None => errors.push(VerifierError {
                    location: floc.clone(),
                    message: format!(
                        "{r} names {}, neither defined nor declared as a function",
                        sym(&ext.name)
                    ),
                }),
                Some(s) if **s != ext.signature => errors.push(VerifierError {
                    location: floc.clone(),
                    message: format!(
                        "{r} = {}{}, but {} has signature {}",
                        sym(&ext.name),
                        ext.signature,
                        sym(&ext.name),
                        s
                    ),
                }),
                _ => {}
            }
        }
        for (g, name) in f.globals.iter() {
            if !seen.contains_key(name.as_str()) {
                errors.push(VerifierError {
                    location: floc.clone(),
                    message: format!("{g} names {}, neither defined nor declared", sym(name)),
                });
            }
        }
        // `tls_addr` names a thread-local object (or a declared data symbol, which
        // another module defines thread-local), `symbol_addr` anything else.
        if !module.data.iter().any(|d| d.thread_local)
            && !f
                .dfg
                .insts()
                .any(|i| f.dfg.inst_data(i).opcode() == Opcode::TlsAddr)
        {
            continue;
        }
        for block in f.layout.blocks() {
            for inst in f.layout.block_insts(block) {
                let InstructionData::SymbolAddr { opcode, global, .. } = *f.dfg.inst_data(inst)
                else {
                    continue;
                };
                let Some(name) = f.globals.get(global) else {
                    continue;
                };
                let message = match (opcode, seen.get(name.as_str())) {
                    (Opcode::SymbolAddr, _) if thread_locals.contains(name.as_str()) => {
                        format!("symbol_addr of thread-local {}: use tls_addr", sym(name))
                    }
                    (Opcode::TlsAddr, Some(&"a defined data object"))
                        if !thread_locals.contains(name.as_str()) =>
                    {
                        format!(
                            "tls_addr of {}, which is not thread-local: use symbol_addr",
                            sym(name)
                        )
                    }
                    (Opcode::TlsAddr, Some(&what))
                        if what == "a defined function" || what == "a declared function" =>
                    {
                        format!("tls_addr of {}, {what}", sym(name))
                    }
                    _ => continue,
                };
                errors.push(VerifierError {
                    location: format!("{floc}, {block}, inst \"{}\"", f.display_inst(inst)),
                    message,
                });
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(VerifierErrors(errors))
    }
}

struct FuncVerifier<'a> {
    func: &'a Function,
    errors: Vec<VerifierError>,
    domtree: DominatorTree,
    /// Position of each instruction in its block.
    position: SecondaryMap<Inst, u32>,
}

impl<'a> FuncVerifier<'a> {
    fn new(func: &'a Function) -> Self {
        FuncVerifier {
            func,
            errors: Vec::new(),
            domtree: DominatorTree::default(),
            position: SecondaryMap::new(),
        }
    }

    fn fname(&self) -> String {
        format!("function {}", sym(&self.func.name))
    }

    fn err_fn(&mut self, message: String) {
        if self.errors.len() < MAX_ERRORS {
            self.errors.push(VerifierError {
                location: self.fname(),
                message,
            });
        }
    }

    fn err_block(&mut self, block: Block, message: String) {
        if self.errors.len() < MAX_ERRORS {
            let location = format!("{}, {block}", self.fname());
            self.errors.push(VerifierError { location, message });
        }
    }

    fn err_inst(&mut self, block: Block, inst: Inst, message: String) {
        if self.errors.len() < MAX_ERRORS {
            let location = format!(
                "{}, {block}, inst \"{}\"",
                self.fname(),
                self.func.display_inst(inst)
            );
            self.errors.push(VerifierError { location, message });
        }
    }

    fn run(&mut self) {
        let func = self.func;
        if func.linkage == Linkage::Import {
            self.err_fn("a definition cannot have import linkage".into());
        }
        for (i, a) in func.param_attrs.iter().enumerate() {
            match func.signature.params.get(i) {
                _ if a.is_empty() => {}
                Some(Type::Ptr) => {}
                Some(t) => self.err_fn(format!(
                    "parameter {i} ({t}) has attributes: only a ptr parameter may"
                )),
                None => self.err_fn(format!(
                    "attributes for parameter {i}, beyond the signature's parameters"
                )),
            }
        }
        for (ss, d) in func.stack_slots.iter() {
            if d.align == 0 || !d.align.is_power_of_two() {
                self.err_fn(format!("{ss}: alignment {} is not a power of two", d.align));
            }
        }
        let Some(entry) = func.layout.entry_block() else {
            self.err_fn("no blocks".into());
            return;
        };
        if !self.structure(entry) {
            return;
        }
        let cfg = ControlFlowGraph::compute(func);
        self.domtree = DominatorTree::with_cfg(func, &cfg);
        if !cfg.preds(entry).is_empty() {
            self.err_block(
                entry,
                format!(
                    "the entry block is a branch target (of {})",
                    cfg.preds(entry)[0]
                ),
            );
        }
        let entry_types: Vec<Type> = func
            .dfg
            .block_params(entry)
            .iter()
            .map(|&v| func.dfg.value_type(v))
            .collect();
        if entry_types != func.signature.params {
            self.err_block(
                entry,
                format!(
                    "entry block parameters ({}) do not match the signature's parameters ({})",
                    types_list(&entry_types),
                    types_list(&func.signature.params)
                ),
            );
        }
        self.unwind_edges(&cfg);
        for block in func.layout.blocks() {
            for inst in func.layout.block_insts(block) {
                self.inst(block, inst);
            }
        }
    }

    /// The rules of `invoke` (docs/ir.md §3): the normal successor takes no
    /// arguments and has the invoke as its only predecessor (the call's results are
    /// defined there); the unwind successor starts with a landing pad, and a block
    /// that does is entered only by the unwind edges of invokes. The unwind edge may
    /// pass arguments (values of before the call: SSA construction gives a landing
    /// pad parameters).
    fn unwind_edges(&mut self, cfg: &ControlFlowGraph) {
        let func = self.func;
        let dfg = &func.dfg;
        for block in func.layout.blocks() {
            let Some(last) = func.layout.last_inst(block) else {
                continue;
            };
            let data = dfg.inst_data(last);
            if data.opcode().is_invoke() {
                let [normal, unwind] = data.branch_destinations() else {
                    continue;
                };
                if !normal.args.is_empty() {
                    self.err_inst(
                        block,
                        last,
                        "the normal destination of an invoke takes no arguments".into(),
                    );
                }
                if normal.block == unwind.block {
                    self.err_inst(
                        block,
                        last,
                        "the normal and unwind destinations are one block".into(),
                    );
                } else if cfg.preds(normal.block).len() != 1 {
                    self.err_inst(
                        block,
                        last,
                        format!(
                            "the normal destination {} has other predecessors",
                            normal.block
                        ),
                    );
                }
                let starts_with_pad = func
                    .layout
                    .first_inst(unwind.block)
                    .is_some_and(|i| dfg.opcode(i).is_landing_pad());
                if !starts_with_pad {
                    self.err_inst(
                        block,
                        last,
                        format!(
                            "the unwind destination {} does not start with landing_pad",
                            unwind.block
                        ),
                    );
                }
            }
            let is_pad = func
                .layout
                .first_inst(block)
                .is_some_and(|i| dfg.opcode(i).is_landing_pad());
            if is_pad {
                for &pred in cfg.preds(block) {
                    let Some(t) = func.layout.last_inst(pred) else {
                        continue;
                    };
                    let ok = match dfg.inst_data(t).branch_destinations() {
                        [normal, unwind] if dfg.opcode(t).is_invoke() => {
                            unwind.block == block && normal.block != block
                        }
                        _ => false,
                    };
                    if !ok {
                        self.err_block(
                            block,
                            format!(
                                "a landing pad entered from {pred} other than by an invoke's unwind edge"
                            ),
                        );
                    }
                }
            }
        }
    }

    /// Blocks, terminators, entity validity, definitions. Returns false if the function
    /// is too broken to check further.
    fn structure(&mut self, _entry: Block) -> bool {
        let func = self.func;
        let dfg = &func.dfg;
        let mut ok = true;
        // Values defined so far: indexed by value (no hashing), and a set for values
        // that do not exist (whose number may be anything).
        let mut seen_values: SecondaryMap<Value, bool> =
            SecondaryMap::with_capacity(dfg.num_values());
        let mut seen_invalid: HashSet<Value> = HashSet::default();
        let mut seen_before = |v: Value| {
            if dfg.value_is_valid(v) {
                std::mem::replace(&mut seen_values[v], true)
            } else {
                !seen_invalid.insert(v)
            }
        };
        for block in func.layout.blocks() {
            for (i, &p) in dfg.block_params(block).iter().enumerate() {
                if !dfg.value_is_valid(p) || dfg.value_def(p) != ValueDef::Param(block, i) {
                    self.err_block(
                        block,
                        format!("parameter {i} ({p}) is not recorded as defined here"),
                    );
                    ok = false;
                }
                if seen_before(p) {
                    self.err_block(block, format!("{p} is defined more than once"));
                }
            }
            let Some(last) = func.layout.last_inst(block) else {
                self.err_block(block, "empty block (no terminator)".into());
                continue;
            };
            for (pos, inst) in func.layout.block_insts(block).enumerate() {
                self.position[inst] = pos as u32;
                let op = dfg.opcode(inst);
                if op.is_terminator() && inst != last {
                    self.err_inst(block, inst, "terminator in the middle of a block".into());
                }
                if inst == last && !op.is_terminator() {
                    self.err_inst(block, inst, "the block does not end in a terminator".into());
                }
                for (i, &r) in dfg.inst_results(inst).iter().enumerate() {
                    if !dfg.value_is_valid(r) || dfg.value_def(r) != ValueDef::Result(inst, i) {
                        self.err_inst(
                            block,
                            inst,
                            format!("result {i} ({r}) is not recorded as defined here"),
                        );
                        ok = false;
                    }
                    if seen_before(r) {
                        self.err_inst(block, inst, format!("{r} is defined more than once"));
                    }
                }
                for v in dfg.inst_values(inst) {
                    if !dfg.value_is_valid(v) {
                        self.err_inst(block, inst, format!("{v} does not exist"));
                        ok = false;
                    }
                }
                for d in dfg.branch_destinations(inst) {
                    if !dfg.block_is_valid(d.block) || !func.layout.is_block_inserted(d.block) {
                        self.err_inst(
                            block,
                            inst,
                            format!("branch to {}, which is not in the function", d.block),
                        );
                        ok = false;
                    }
                }
                let data = dfg.inst_data(inst);
                let bad_ref = match data {
                    InstructionData::Call { func: f, .. }
                    | InstructionData::Invoke { func: f, .. } => {
                        (!func.ext_funcs.is_valid(*f)).then(|| f.to_string())
                    }
                    InstructionData::CallIndirect { sig, .. }
                    | InstructionData::InvokeIndirect { sig, .. } => {
                        (!func.signatures.is_valid(*sig)).then(|| sig.to_string())
                    }
                    InstructionData::SymbolAddr { global, .. } => {
                        (!func.globals.is_valid(*global)).then(|| global.to_string())
                    }
                    InstructionData::StackAddr { slot, .. } => {
                        (!func.stack_slots.is_valid(*slot)).then(|| slot.to_string())
                    }
                    _ => None,
                };
                if let Some(r) = bad_ref {
                    self.err_inst(block, inst, format!("{r} is not declared"));
                    ok = false;
                }
                if matches!(data, InstructionData::CallIndirect { args, .. }
                    | InstructionData::InvokeIndirect { args, .. } if args.is_empty())
                {
                    self.err_inst(block, inst, format!("{op} without a callee"));
                    ok = false;
                }
                if op.is_landing_pad() && pos != 0 {
                    self.err_inst(
                        block,
                        inst,
                        "landing_pad is not the first instruction of its block".into(),
                    );
                }
                if matches!(data, InstructionData::Switch { table, .. } if table.dests.is_empty()) {
                    self.err_inst(block, inst, "switch without a default target".into());
                    ok = false;
                }
                let loc = func.srclocs[inst];
                if !loc.is_default() && loc.file as usize >= func.files.len() {
                    self.err_inst(
                        block,
                        inst,
                        format!("source location names file{}, not declared", loc.file),
                    );
                }
            }
        }
        ok
    }

    fn ty(&self, v: Value) -> Type {
        self.func.dfg.value_type(v)
    }

    /// Where `v` is defined and whether that dominates a use in `inst`.
    fn check_use(&mut self, block: Block, inst: Inst, v: Value) {
        let func = self.func;
        match func.dfg.value_def(v) {
            ValueDef::Detached => {
                self.err_inst(block, inst, format!("{v} is not defined (detached)"))
            }
            ValueDef::Param(b, _) => {
                if !func.layout.is_block_inserted(b) {
                    self.err_inst(
                        block,
                        inst,
                        format!("{v} is a parameter of {b}, which is not in the function"),
                    );
                } else if self.domtree.is_reachable(block) && !self.domtree.dominates(b, block) {
                    self.err_inst(
                        block,
                        inst,
                        format!("{v} (parameter of {b}) does not dominate this use"),
                    );
                }
            }
            ValueDef::Result(d, _) => match func.layout.inst_block(d) {
                None => self.err_inst(
                    block,
                    inst,
                    format!("{v} is defined by an instruction not in the function"),
                ),
                Some(db) => {
                    if !self.domtree.is_reachable(block) {
                        return;
                    }
                    // an invoke's results are defined on its normal edge
                    let normal = match func.dfg.inst_data(d) {
                        InstructionData::Invoke { blocks, .. }
                        | InstructionData::InvokeIndirect { blocks, .. } => Some(blocks[0].block),
                        _ => None,
                    };
                    let dominated = if let Some(normal) = normal {
                        self.domtree.dominates(normal, block)
                    } else if db == block {
                        self.position[d] < self.position[inst]
                    } else {
                        self.domtree.dominates(db, block)
                    };
                    if !dominated {
                        self.err_inst(
                            block,
                            inst,
                            format!("{v} (defined in {db}) does not dominate this use"),
                        );
                    }
                }
            },
        }
    }

    fn inst(&mut self, block: Block, inst: Inst) {
        let func = self.func;
        let dfg = &func.dfg;
        let data = dfg.inst_data(inst);
        for v in dfg.inst_values(inst).collect::<Vec<_>>() {
            self.check_use(block, inst, v);
        }
        // results
        let results = dfg.inst_results(inst);
        let ctrl = if data.opcode().has_type_suffix() {
            results.first().map(|&r| self.ty(r))
        } else {
            None
        };
        let expected = result_types(func, data, ctrl, &|v| Some(dfg.value_type(v)));
        let actual: Vec<Type> = results.iter().map(|&r| self.ty(r)).collect();
        match expected {
            None if data.opcode().has_type_suffix() && results.is_empty() => {
                self.err_inst(
                    block,
                    inst,
                    format!("{} must have one result", data.opcode()),
                );
            }
            None => self.err_inst(block, inst, "cannot compute the result types".into()),
            Some(e) if e != actual => self.err_inst(
                block,
                inst,
                format!(
                    "results have types ({}), expected ({})",
                    types_list(&actual),
                    types_list(&e)
                ),
            ),
            _ => {}
        }
        // operands
        if let Err(m) = self.operand_types(data, ctrl) {
            self.err_inst(block, inst, m);
        }
        // only a plain load may be speculative: a store, an atomic or a volatile access
        // that did not trap would have had its effect
        if let Some(flags) = data.mem_flags()
            && flags.speculative
            && (data.opcode() != Opcode::Load || flags.volatile)
        {
            self.err_inst(
                block,
                inst,
                format!(
                    "{} cannot be speculative (only a plain load)",
                    data.opcode()
                ),
            );
        }
        // branch arguments
        for d in data.branch_destinations() {
            let params = dfg.block_params(d.block);
            if params.len() != d.args.len() {
                self.err_inst(
                    block,
                    inst,
                    format!(
                        "{} takes {} argument(s), {} given",
                        d.block,
                        params.len(),
                        d.args.len()
                    ),
                );
                continue;
            }
            for (i, (&a, &p)) in d.args.iter().zip(params).enumerate() {
                if self.ty(a) != self.ty(p) {
                    self.err_inst(
                        block,
                        inst,
                        format!(
                            "argument {i} to {}: {a} has type {}, the parameter {p} has type {}",
                            d.block,
                            self.ty(a),
                            self.ty(p)
                        ),
                    );
                }
            }
        }
    }

    /// The opcode's typing rules for the operands (results are compared separately).
    fn operand_types(&self, data: &InstructionData, ctrl: Option<Type>) -> Result<(), String> {
        let args = data.arguments();
        let types: Vec<Type> = args.iter().map(|&v| self.ty(v)).collect();
        operand_types(self.func, data, ctrl, &types, &|i| args[i].to_string())
    }
}
