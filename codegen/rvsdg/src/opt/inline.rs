//! Inlining (Reissmann et al. §5): a direct call of a λ of the graph is replaced by a
//! copy of the callee's body, so that the other passes see through it (constants
//! flow in, results flow out, dead results go) and the call's cost goes.
//!
//! **The transformation.** A `call` node naming, through its λ's `ext_funcs`, a λ of
//! the graph whose signature is the call's (and not variadic) is replaced by a copy of
//! the callee's body ([`Graph::copy_region_with`]) in the call's region: the copy reads
//! the call's inputs where the body reads its arguments (parameters, then `mem` and
//! `io`), and the call's users read the copy's results (returned values, then `mem`
//! and `io`). What the copied operations name in the callee's shell is renumbered
//! into the caller's: callees (`fnN`), signatures of indirect calls (`sigN`), symbols
//! (`gvN`) and source files are looked up or added (`Function::import_*`,
//! `add_file`); each stack slot the copy addresses (`ssN`) becomes a new slot of the
//! caller, one per inlined call, so that two copies never share one. Locations stay
//! the callee's (its lines, in the caller's file table). The callee λ stays; dead node
//! elimination removes it when nothing names it any more and it is local.
//!
//! **Which calls** (the cost model; sizes are [`Graph::count_nodes_inside`], so
//! structural nodes count once plus their contents). λs are taken callees first (the
//! strongly connected components of the call graph bottom-up, [`CallGraph`]), so that
//! the body copied into a caller has had its own calls inlined already; the calls a
//! copy brings along are not considered again (each call is decided once, which
//! bounds the work). A call is refused, in this order, when the callee is
//! 1. `inline(never)` (`inline.refused-never`);
//! 2. recursive: in a cycle of direct calls, itself included — even `inline(always)`
//!    (`inline.refused-recursive`); expanding a cycle once would only move the call;
//! 3. weak: another definition may replace it at link time (`inline.refused-weak`);
//! 4. a callee that may not return at its top level (a node there reads a state and
//!    gives none back: a `trap`, `unreachable`, or a γ whose every arm ends in one):
//!    the states it shares with its results would meet the caller's next effects
//!    (`inline.refused-noreturn`); such callees are panics, cold anyway;
//! 5. too big (`inline.refused-size`): an `inline(always)` callee is taken whatever
//!    its size, up to [`MAX_NODES`] in the caller; any other must be at most the
//!    threshold (`rvsdg-inline-threshold`, [`DEFAULT_THRESHOLD`] nodes) —
//!    [`HINT_FACTOR`] times it for `inline`, [`LAST_CALL_FACTOR`] times it for the
//!    last call of a local function (its only reference, not a root: the copy replaces
//!    the function, so the code does not grow), a [`COLD_DIVISOR`]th of it for `cold`
//!    — and keep the caller within its budget: at most [`GROWTH_FACTOR`] times its
//!    size before inlining plus [`GROWTH_SLACK`] nodes, and [`STACK_GROWTH`] bytes of
//!    new stack slots ([`STACK_GROWTH_RECURSIVE`] in a recursive caller, whose frames
//!    pile up).
//!
//! Calls of declarations and of functions that were not built, indirect calls, and
//! calls whose signature is not the callee's stay.

use rustc_hash::{FxHashMap, FxHashSet};
use vliw_ir::{
    FuncRef, Function, GlobalRef, InlineHint, InstructionData, Linkage, SigRef, SourceLoc,
    StackSlot,
};

use crate::call_graph::{CallGraph, direct_calls};
use crate::copy::Rewrite;
use crate::graph::{Node, Origin, Region};
use crate::ops::{Op, Rvsdg};
use crate::report::Report;

/// The size below which a callee is inlined (`rvsdg-inline-threshold`), in nodes.
pub const DEFAULT_THRESHOLD: usize = 30;
/// An `inline` callee may be this many times the threshold.
pub const HINT_FACTOR: usize = 3;
/// The last call of a local function may be this many times the threshold.
pub const LAST_CALL_FACTOR: usize = 20;
/// A `cold` callee must be this many times smaller than the threshold.
pub const COLD_DIVISOR: usize = 4;
/// A caller may grow to this many times its size before inlining...
pub const GROWTH_FACTOR: usize = 2;
/// ... plus this many nodes.
pub const GROWTH_SLACK: usize = 200;
/// No caller grows beyond this many nodes, `inline(always)` callees included.
pub const MAX_NODES: usize = 100_000;
/// Bytes of stack slots that inlining may add to a caller.
pub const STACK_GROWTH: u64 = 4096;
/// The same, for a recursive caller.
pub const STACK_GROWTH_RECURSIVE: u64 = 256;

/// The inliner's knobs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlineOptions {
    /// The largest callee (in nodes) inlined without a hint.
    pub threshold: usize,
}

impl Default for InlineOptions {
    fn default() -> Self {
        InlineOptions {
            threshold: DEFAULT_THRESHOLD,
        }
    }
}

/// Inlines the direct calls of `g` that the cost model takes. `roots` names the
/// functions that something outside the graph refers to (they are never a "last
/// call").
pub fn inline_calls(
    g: &mut Rvsdg,
    roots: &FxHashSet<String>,
    options: &InlineOptions,
    report: &mut Report,
) {
    let cg = CallGraph::new(g);
    let mut inliner = Inliner {
        refs: references(g),
        sizes: vec![None; cg.lambdas.len()],
        noreturn: vec![None; cg.lambdas.len()],
        cg,
        roots,
        options,
    };
    for k in 0..inliner.cg.sccs.len() {
        for t in 0..inliner.cg.sccs[k].len() {
            let i = inliner.cg.sccs[k][t];
            inliner.lambda(g, i, report);
        }
    }
}

struct Inliner<'a> {
    cg: CallGraph,
    roots: &'a FxHashSet<String>,
    options: &'a InlineOptions,
    /// How many nodes name each symbol (calls, `symbol_addr`, `tls_addr`), kept up to
    /// date as calls go and copies come.
    refs: FxHashMap<String, usize>,
    /// Each λ's size, once known (a λ's size is final once it has been inlined into).
    sizes: Vec<Option<usize>>,
    /// Whether each λ's body has a sink at its top level, once known.
    noreturn: Vec<Option<bool>>,
}

/// What a caller may still grow by.
struct Budget {
    /// Nodes now, and the most it may have.
    size: usize,
    limit: usize,
    /// Bytes of stack slots added so far, and the most it may add.
    stack: u64,
    stack_limit: u64,
}

impl Inliner<'_> {
    /// Inlines what the cost model takes among the calls of λ number `i`.
    fn lambda(&mut self, g: &mut Rvsdg, i: usize, report: &mut Report) {
        let caller = self.cg.lambdas[i];
        let size = g.count_nodes_inside(caller);
        let mut budget = Budget {
            size,
            limit: (GROWTH_FACTOR * size + GROWTH_SLACK).min(MAX_NODES),
            stack: 0,
            stack_limit: if self.cg.recursive[i] {
                STACK_GROWTH_RECURSIVE
            } else {
                STACK_GROWTH
            },
        };
        let calls: Vec<(Node, String)> = direct_calls(g, caller)
            .into_iter()
            .map(|(n, name)| (n, name.to_string()))
            .collect();
        for (call, name) in calls {
            let Some(&j) = self.cg.index.get(&name) else {
                continue; // a declaration, or a function that was not built
            };
            if !self.same_signature(g, caller, call, j) {
                continue;
            }
            match self.decide(g, j, &budget) {
                Err(why) => report.count(why, 1),
                Ok(()) => {
                    let callee = self.cg.lambdas[j];
                    let copied = g.count_nodes_inside(callee);
                    let slots = self.inline(g, caller, call, callee);
                    budget.size = budget.size + copied - 1;
                    budget.stack += slots;
                    report.count("inline.calls-inlined", 1);
                    report.count("inline.nodes-copied", copied as u64);
                }
            }
        }
        self.sizes[i] = Some(budget.size);
    }

    /// Whether `call` (in λ `caller`) passes what λ number `j` takes and takes what it
    /// gives: the call's signature is the callee's, not variadic.
    fn same_signature(&self, g: &Rvsdg, caller: Node, call: Node, j: usize) -> bool {
        let Some(Op::Inst(InstructionData::Call { func, .. })) = g.op(call) else {
            return false;
        };
        let Some(ext) = g.lambda_info(caller).ext_funcs.get(*func) else {
            return false;
        };
        let sig = &g.lambda_info(self.cg.lambdas[j]).signature;
        ext.signature == *sig && !sig.variadic
    }

    /// Whether to inline a call of λ number `j` into a caller with `budget`: `Ok`, or
    /// the counter of the reason why not.
    fn decide(&mut self, g: &Rvsdg, j: usize, budget: &Budget) -> Result<(), &'static str> {
        let callee = self.cg.lambdas[j];
        let info = g.lambda_info(callee);
        if info.inline == InlineHint::Never {
            return Err("inline.refused-never");
        }
        if self.cg.recursive[j] {
            return Err("inline.refused-recursive");
        }
        if info.linkage == Linkage::Weak {
            return Err("inline.refused-weak");
        }
        if *self.noreturn[j].get_or_insert_with(|| has_sink(g, g.lambda_body(callee))) {
            return Err("inline.refused-noreturn");
        }
        let size = *self.sizes[j].get_or_insert_with(|| g.count_nodes_inside(callee));
        if budget.size + size > MAX_NODES {
            return Err("inline.refused-size");
        }
        if info.inline == InlineHint::Always {
            return Ok(());
        }
        let threshold = self.options.threshold;
        let last_call = info.linkage == Linkage::Local
            && !self.roots.contains(&info.name)
            && self.refs.get(&info.name) == Some(&1);
        let limit = if info.cold {
            threshold / COLD_DIVISOR
        } else if last_call {
            threshold * LAST_CALL_FACTOR
        } else if info.inline == InlineHint::Hint {
            threshold * HINT_FACTOR
        } else {
            threshold
        };
        if size > limit
            || budget.size + size > budget.limit
            || budget.stack + frame_bytes(info) > budget.stack_limit
        {
            return Err("inline.refused-size");
        }
        Ok(())
    }

    /// Replaces `call` (in λ `caller`) by a copy of λ `callee`'s body. Returns the
    /// bytes of stack slots the copy added to the caller.
    fn inline(&mut self, g: &mut Rvsdg, caller: Node, call: Node, callee: Node) -> u64 {
        let region = g.node(call).region;
        let inputs = g.inputs(call).to_vec();
        let body = g.lambda_body(callee);
        let source = g.lambda_info(callee).clone();
        // the caller's shell is taken out while the graph is copied into, and put back
        let mut target = std::mem::take(g.lambda_info_mut(caller));
        let mut renumber = Renumber {
            from: &source,
            into: &mut target,
            funcs: FxHashMap::default(),
            sigs: FxHashMap::default(),
            globals: FxHashMap::default(),
            slots: FxHashMap::default(),
            stack: 0,
            refs: &mut self.refs,
        };
        let results = g.copy_region_with(body, region, &inputs, &mut renumber);
        let stack = renumber.stack;
        *g.lambda_info_mut(caller) = target;
        for (k, &o) in results.iter().enumerate() {
            g.divert_users(Origin::Out(call, k as u32), o);
        }
        g.remove_node(call);
        if let Some(n) = self.refs.get_mut(&source.name) {
            *n -= 1;
        }
        stack
    }
}

/// Rewrites the operations copied from λ shell `from` into λ shell `into`.
struct Renumber<'a> {
    from: &'a Function,
    into: &'a mut Function,
    funcs: FxHashMap<FuncRef, FuncRef>,
    sigs: FxHashMap<SigRef, SigRef>,
    globals: FxHashMap<GlobalRef, GlobalRef>,
    slots: FxHashMap<StackSlot, StackSlot>,
    /// Bytes of the slots added.
    stack: u64,
    refs: &'a mut FxHashMap<String, usize>,
}

impl Rewrite<Op> for Renumber<'_> {
    fn op(&mut self, op: &Op) -> Op {
        let Op::Inst(data) = op else {
            return op.clone();
        };
        let mut data = data.clone();
        // the references exist in `from` (the verifier's rule of references)
        match &mut data {
            InstructionData::Call { func, .. } => {
                let ext = &self.from.ext_funcs[*func];
                *self.refs.entry(ext.name.clone()).or_default() += 1;
                *func = *self
                    .funcs
                    .entry(*func)
                    .or_insert_with(|| self.into.import_function(&ext.name, ext.signature.clone()));
            }
            InstructionData::CallIndirect { sig, .. } => {
                let s = &self.from.signatures[*sig];
                *sig = *self
                    .sigs
                    .entry(*sig)
                    .or_insert_with(|| self.into.import_signature(s.clone()));
            }
            InstructionData::SymbolAddr { global, .. } => {
                let name = &self.from.globals[*global];
                *self.refs.entry(name.clone()).or_default() += 1;
                *global = *self
                    .globals
                    .entry(*global)
                    .or_insert_with(|| self.into.import_global(name));
            }
            InstructionData::StackAddr { slot, .. } => {
                let d = self.from.stack_slots[*slot];
                let stack = &mut self.stack;
                *slot = *self.slots.entry(*slot).or_insert_with(|| {
                    *stack += slot_bytes(d.size, d.align);
                    self.into.create_stack_slot(d.size, d.align)
                });
            }
            _ => {}
        }
        Op::Inst(data)
    }

    fn loc(&mut self, loc: SourceLoc) -> SourceLoc {
        if loc.is_default() {
            return loc;
        }
        match self.from.files.get(loc.file as usize) {
            Some(name) => SourceLoc {
                file: self.into.add_file(name),
                ..loc
            },
            None => SourceLoc::default(),
        }
    }
}

/// How many nodes of `g` name each symbol: calls, `symbol_addr`, `tls_addr`.
fn references(g: &Rvsdg) -> FxHashMap<String, usize> {
    let mut refs: FxHashMap<String, usize> = FxHashMap::default();
    for l in g.lambdas() {
        let info = g.lambda_info(l);
        for r in g.regions_below(g.lambda_body(l)) {
            for &n in g.nodes(r) {
                let name = match g.op(n) {
                    Some(Op::Inst(InstructionData::Call { func, .. })) => {
                        info.ext_funcs.get(*func).map(|e| &e.name)
                    }
                    Some(Op::Inst(InstructionData::SymbolAddr { global, .. })) => {
                        info.globals.get(*global)
                    }
                    _ => None,
                };
                if let Some(name) = name {
                    *refs.entry(name.clone()).or_default() += 1;
                }
            }
        }
    }
    refs
}

/// Whether region `r` has a sink among its own nodes: a node that reads a state and
/// gives none back (it may never complete; its region's results share its states).
fn has_sink(g: &Rvsdg, r: Region) -> bool {
    g.nodes(r).iter().any(|&n| {
        g.inputs(n).iter().any(|&o| g.ty(o).is_state()) && !g.outputs(n).any(|o| g.ty(o).is_state())
    })
}

/// The bytes of the stack slots of a λ's shell.
fn frame_bytes(info: &Function) -> u64 {
    info.stack_slots
        .values()
        .map(|d| slot_bytes(d.size, d.align))
        .sum()
}

/// A slot's size rounded up to its alignment.
fn slot_bytes(size: u32, align: u32) -> u64 {
    let align = u64::from(align.max(1));
    u64::from(size).div_ceil(align) * align
}
