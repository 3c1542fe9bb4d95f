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
//!    size before inlining plus [`GROWTH_SLACK`] nodes (for a last call, which moves
//!    code rather than adding some, at least [`LAST_CALL_CALLER`] nodes), and
//!    [`STACK_GROWTH`] bytes of new stack slots ([`STACK_GROWTH_RECURSIVE`] in a
//!    recursive caller, whose frames pile up).
//!
//! At an invoke (a `try_call` or `catch_call`) a callee that may unwind is refused
//! before all that when one of its calls that may unwind is inside a θ
//! (`inline.refused-unwinds-in-loop`), once folding (`fold.rs`, then the arms its
//! constant branches choose) has not removed it: a panic behind a check that the
//! callee's own values decide (`x % (n as u64 + 10)`) does not count
//! (`inline.folded-before-deciding`); otherwise its copy's unwinding is made explicit
//! (`inline_unwind`), and a callee that cannot unwind gives the outcome "returned",
//! the landing code going at once (`resolve_returned`).
//!
//! Calls of declarations and of functions that were not built, indirect calls, and
//! calls whose signature is not the callee's stay.

use rustc_hash::{FxHashMap, FxHashSet};
use vliw_ir::{
    FuncRef, Function, GlobalRef, InlineHint, InstructionData, Linkage, SigRef, SourceLoc,
    StackSlot, Type,
};

use crate::call_graph::{CallGraph, direct_calls};
use crate::copy::Rewrite;
use crate::graph::{Node, Origin, Region, User};
use crate::ops::{Op, Rvsdg, Ty};
use crate::opt::inline_unwind;
use crate::report::Report;

/// Rounds of folding and taking known arms on a callee that would be refused for a
/// call that may unwind in a loop.
const FOLD_ROUNDS: usize = 4;

/// The size below which a callee is inlined (`rvsdg-inline-threshold`), in nodes.
pub const DEFAULT_THRESHOLD: usize = 30;
/// An `inline` callee may be this many times the threshold.
pub const HINT_FACTOR: usize = 3;
/// The last call of a local function may be this many times the threshold.
pub const LAST_CALL_FACTOR: usize = 40;
/// A `cold` callee must be this many times smaller than the threshold.
pub const COLD_DIVISOR: usize = 4;
/// A caller may grow to this many times its size before inlining...
pub const GROWTH_FACTOR: usize = 2;
/// ... plus this many nodes.
pub const GROWTH_SLACK: usize = 200;
/// The last call of a local function may be inlined into a caller beyond its budget,
/// up to this many nodes.
pub const LAST_CALL_CALLER: usize = 4000;
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
    // which λs may unwind, over the whole call graph before any inlining: inlining
    // only moves calls into callers that already made them, so this stays sound
    let may_unwind = crate::unwind::MayUnwind::of(g);
    let unwinds = cg
        .lambdas
        .iter()
        .map(|&l| may_unwind.lambda(&g.lambda_info(l).name))
        .collect();
    let mut inliner = Inliner {
        refs: references(g),
        sizes: vec![None; cg.lambdas.len()],
        noreturn: vec![None; cg.lambdas.len()],
        unwinds,
        folded: vec![false; cg.lambdas.len()],
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
    /// Whether each λ may unwind (`crate::unwind::MayUnwind`, before inlining).
    unwinds: Vec<Option<bool>>,
    /// Whether each λ has been folded to see whether it still unwinds in a loop.
    folded: Vec<bool>,
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
            // (the landing code of an inlined invoke that cannot unwind went with its
            // calls: `resolve_returned`)
            if !g.is_alive(call) {
                continue;
            }
            let Some(&j) = self.cg.index.get(&name) else {
                continue; // a declaration, or a function that was not built
            };
            if !self.same_signature(g, caller, call, j) {
                continue;
            }
            // at a `try_call` or `catch_call` (an invoke's), only a callee that cannot
            // unwind: its copy then never does, and the call's outcome is "returned"
            let try_call = g
                .op(call)
                .and_then(Op::opcode)
                .is_some_and(|o| o.is_try_call());
            if try_call && self.may_unwind(g, j) {
                let callee = self.cg.lambdas[j];
                let mut in_loop = self.unwinds_in_loop(g, callee);
                // a check that folding decides may be all that unwinds in the loop
                // (`x % (n as u64 + 10)`'s test of its divisor): fold the callee
                // once, take the arms its constant branches choose, and look again
                if in_loop && !self.folded[j] {
                    self.folded[j] = true;
                    let mut scratch = Report::default();
                    // (an arm taken may decide the next γ: a few rounds)
                    for _ in 0..FOLD_ROUNDS {
                        super::fold::fold_lambdas(g, &[callee], &mut scratch);
                        if super::gamma::inline_known_arms(g, g.lambda_body(callee)) == 0 {
                            break;
                        }
                        report.count("inline.folded-before-deciding", 1);
                        self.sizes[j] = Some(g.count_nodes_inside(callee));
                        in_loop = self.unwinds_in_loop(g, callee);
                        if !in_loop {
                            break;
                        }
                    }
                }
                if in_loop {
                    report.count("inline.refused-unwinds-in-loop", 1);
                    continue;
                }
            }
            match self.decide(g, j, &budget) {
                Err(why) => report.count(why, 1),
                Ok(()) => {
                    let callee = self.cg.lambdas[j];
                    let copied = g.count_nodes_inside(callee);
                    let (slots, explicit) = self.inline(g, caller, call, callee);
                    if explicit {
                        report.count("inline.unwinding-explicit", 1);
                    }
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
    /// gives: the call's signature is the callee's, not variadic. (`call`, `try_call`
    /// or `catch_call`: a drop in a cleanup, whose pad only aborts, or `catch_unwind`'s
    /// call, whose callee is what may panic and then stays.)
    fn same_signature(&self, g: &Rvsdg, caller: Node, call: Node, j: usize) -> bool {
        let Some(Op::Inst(InstructionData::Call {
            opcode: vliw_ir::Opcode::Call | vliw_ir::Opcode::TryCall | vliw_ir::Opcode::CatchCall,
            func,
            ..
        })) = g.op(call)
        else {
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
        // the last call moves code rather than adding some: the caller's budget
        // does not bind it, only a size that keeps the caller manageable
        let caller_limit = if last_call {
            budget.limit.max(LAST_CALL_CALLER)
        } else {
            budget.limit
        };
        if size > limit
            || budget.size + size > caller_limit
            || budget.stack + frame_bytes(info) > budget.stack_limit
        {
            return Err("inline.refused-size");
        }
        Ok(())
    }

    /// Whether λ number `j` may unwind: it calls something that may, by the whole
    /// graph's fixpoint; failing that, any call of its body.
    fn may_unwind(&mut self, g: &Rvsdg, j: usize) -> bool {
        let l = self.cg.lambdas[j];
        *self.unwinds[j].get_or_insert_with(|| crate::unwind::calls_that_may_unwind(g, l))
    }

    /// The plain calls of λ `l` in region `r` and below that may unwind, of the nodes
    /// of `r` from index `first` on: not of a `nounwind` function nor of a λ that
    /// cannot unwind.
    fn unwinding_calls(&mut self, g: &Rvsdg, l: Node, r: Region, first: usize) -> FxHashSet<Node> {
        let mut found = FxHashSet::default();
        let nodes = inline_unwind::copied_nodes(g, r, first);
        for n in nodes {
            let unwinds = match g.op(n) {
                Some(Op::Inst(InstructionData::Call {
                    opcode: vliw_ir::Opcode::Call,
                    func,
                    ..
                })) => match g.lambda_info(l).ext_funcs.get(*func) {
                    Some(ext) if ext.nounwind => false,
                    Some(ext) => match self.cg.index.get(&ext.name) {
                        Some(&j) => self.may_unwind(g, j),
                        None => true,
                    },
                    None => true,
                },
                Some(Op::Inst(InstructionData::CallIndirect {
                    opcode: vliw_ir::Opcode::CallIndirect,
                    ..
                })) => true,
                _ => false,
            };
            if unwinds {
                found.insert(n);
            }
        }
        found
    }

    /// Whether one of λ `callee`'s calls that may unwind is inside a θ.
    fn unwinds_in_loop(&mut self, g: &Rvsdg, callee: Node) -> bool {
        let unwinding = self.unwinding_calls(g, callee, g.lambda_body(callee), 0);
        inline_unwind::unwinds_in_loop(g, g.lambda_body(callee), &|m| unwinding.contains(&m))
    }

    /// Replaces `call` (in λ `caller`) by a copy of λ `callee`'s body. Returns the
    /// bytes of stack slots the copy added to the caller, and whether the copy's
    /// unwinding was made explicit (at an invoke, a callee that may unwind).
    fn inline(&mut self, g: &mut Rvsdg, caller: Node, call: Node, callee: Node) -> (u64, bool) {
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
        let first = g.node_capacity();
        let mut results = g.copy_region_with(body, region, &inputs, &mut renumber);
        let stack = renumber.stack;
        // the callee's landing pads (its try_calls) come with its personality routine
        if target.personality.is_none() {
            target.personality = source.personality.clone();
        }
        *g.lambda_info_mut(caller) = target;
        // a try_call's outcome after its results: the copy's where it may unwind
        // (`inline_unwind`), else returned
        let opcode = g.op(call).and_then(Op::opcode);
        let mut returned = false;
        if opcode.is_some_and(|o| o.is_try_call()) {
            let values = results.len() - 2; // the memory and I/O states follow
            let unwinding = self.unwinding_calls(g, caller, region, first);
            let catching = opcode.is_some_and(|o| o.try_call_catches());
            let explicit = inline_unwind::make_unwinding_explicit(
                g,
                region,
                first,
                &unwinding,
                catching,
                &mut results,
            );
            returned = explicit.is_none();
            let outcome: Vec<Origin> = match explicit {
                Some(o) => vec![o.unwound, o.exception, o.selector],
                None => [Type::I1, Type::Ptr, Type::I32]
                    .into_iter()
                    .map(|t| {
                        let c = g.add_simple(
                            region,
                            Op::Inst(InstructionData::UnaryImm {
                                opcode: vliw_ir::Opcode::Iconst,
                                imm: 0,
                            }),
                            &[],
                            &[Ty::Val(t)],
                        );
                        Origin::Out(c, 0)
                    })
                    .collect(),
            };
            results.splice(values..values, outcome);
        }
        for (k, &o) in results.iter().enumerate() {
            g.divert_users(Origin::Out(call, k as u32), o);
        }
        g.remove_node(call);
        if returned {
            let values = results.len() - 5;
            resolve_returned(g, results[values]);
        }
        if let Some(n) = self.refs.get_mut(&source.name) {
            *n -= 1;
        }
        (stack, opcode.is_some_and(|o| o.is_try_call()) && !returned)
    }
}

/// The branches on an inlined `try_call`'s outcome when it is the constant "returned"
/// (`unwound`, 0: the callee cannot unwind) go now: each `match` of it becomes its
/// control constant and each γ on that its known arm, the landing code with the other
/// arm. γ simplification would do the same later; done here, the passes before it
/// (loop inversion) see loop bodies without the landing code.
fn resolve_returned(g: &mut Rvsdg, unwound: Origin) {
    for u in g.users(unwound).to_vec() {
        let User::In(m, 0) = u else { continue };
        let Some(Op::Match {
            cases,
            default,
            alts,
        }) = g.op(m)
        else {
            continue;
        };
        let alt = cases
            .iter()
            .find(|&&(c, _)| c == 0)
            .map_or(*default, |&(_, a)| a);
        let alts = *alts;
        let region = g.node(m).region;
        let ctl = g.add_simple(region, Op::Ctl { alt, alts }, &[], &[Ty::Ctl(alts)]);
        g.divert_users(Origin::Out(m, 0), Origin::Out(ctl, 0));
        g.remove_node(m);
        for u in g.users(Origin::Out(ctl, 0)).to_vec() {
            if let User::In(gamma, 0) = u
                && matches!(g.kind(gamma), crate::graph::NodeKind::Gamma { .. })
                && crate::opt::gamma::inline_arm(g, gamma, alt as usize)
            {
                g.remove_node(gamma);
            }
        }
        if !g.is_used(ctl) {
            g.remove_node(ctl);
        }
    }
    if let Some(c) = g.producer(unwound)
        && !g.is_used(c)
    {
        g.remove_node(c);
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
                self.into.ext_funcs[*func].nounwind |= ext.nounwind;
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

#[cfg(test)]
mod tests {
    use rustc_hash::FxHashSet;
    use vliw_ir::{DataValue, Module};

    use super::*;
    use crate::opt::dead_node_elimination;
    use crate::{Evaluator, parse_graph, verify};

    /// The graph of `text`, inlined with `threshold`, verified; and the counters.
    fn inlined(text: &str, threshold: usize) -> (Rvsdg, Report) {
        let mut g = parse_graph(text).unwrap_or_else(|e| panic!("{e}"));
        verify(&g).unwrap_or_else(|e| panic!("{}", e[0]));
        let mut report = Report::default();
        let options = InlineOptions { threshold };
        inline_calls(&mut g, &FxHashSet::default(), &options, &mut report);
        verify(&g).unwrap_or_else(|e| panic!("{}\n{g}", e[0]));
        (g, report)
    }

    /// Evaluates `@name(args)`, the λs' shells making the module (their symbols).
    fn call(g: &Rvsdg, name: &str, args: &[DataValue]) -> Vec<DataValue> {
        let m = Module {
            functions: g
                .lambdas()
                .iter()
                .map(|&l| g.lambda_info(l).clone())
                .collect(),
            ..Module::default()
        };
        let mut ev = Evaluator::new(g, &m);
        ev.call(name, args)
            .unwrap_or_else(|t| panic!("@{name}: {t}"))
    }

    fn calls_in(g: &Rvsdg, name: &str) -> usize {
        let l = g
            .lambdas()
            .into_iter()
            .find(|&l| g.lambda_info(l).name == name)
            .expect("the λ");
        direct_calls(g, l).len()
    }

    /// `@callee(x) = x + 1` with a stack slot of `bytes`, and `@caller` that calls it
    /// `n` times in a row (`caller(x) = x + n`).
    fn slot_callee(bytes: u32, n: usize, caller_linkage: &str) -> String {
        let mut s = format!(
            "lambda @callee(i64) -> i64 {{
    ss0 = stack_slot {bytes}, align 8
  (a0: i64, a1: mem, a2: io):
    n0 = stack_addr ss0 : ptr
    n1 = store a0, n0, a1 : mem
    n2 = load n0, n1 : i64, mem
    n3 = iconst 1 : i64
    n4 = iadd n2.0, n3 : i64
    -> (n4, n2.1, a2)
}}
lambda @caller(i64) -> i64 {caller_linkage} {{
    fn0 = @callee(i64) -> i64
    fn1 = @caller(i64) -> i64
  (a0: i64, a1: mem, a2: io):
"
        );
        let (mut v, mut m, mut io) = ("a0".to_string(), "a1".to_string(), "a2".to_string());
        for i in 0..n {
            s += &format!("    n{i} = call fn0 {v}, {m}, {io} : i64, mem, io\n");
            (v, m, io) = (format!("n{i}.0"), format!("n{i}.1"), format!("n{i}.2"));
        }
        s + &format!("    -> ({v}, {m}, {io})\n}}\n")
    }

    #[test]
    fn stack_slots_are_budgeted() {
        use DataValue::I64;
        // 4 × 1000 bytes fit in 4 KiB, a fifth 1000 does not
        let (g, r) = inlined(&slot_callee(1000, 5, "export"), 30);
        assert_eq!(r.get("inline.calls-inlined"), 4);
        assert_eq!(r.get("inline.refused-size"), 1);
        assert_eq!(calls_in(&g, "caller"), 1);
        assert_eq!(call(&g, "caller", &[I64(10)]), [I64(15)]);
        // slots are rounded up to their alignment: 4 × 1000 = 4000 bytes
        let caller = g.lambdas()[1];
        assert_eq!(frame_bytes(g.lambda_info(caller)), 4000);
        // a recursive caller (here, it calls itself after the three calls) takes
        // 256 bytes
        let recursive = slot_callee(100, 3, "export").replace(
            "    -> (n2.0, n2.1, n2.2)\n",
            "    n3 = call fn1 n2.0, n2.1, n2.2 : i64, mem, io\n    -> (n2.0, n3.1, n3.2)\n",
        );
        let (_, r) = inlined(&recursive, 30);
        // two slots of 104 bytes (100 rounded up to 8), not a third
        assert_eq!(r.get("inline.calls-inlined"), 2);
        assert_eq!(r.get("inline.refused-size"), 1);
        assert_eq!(r.get("inline.refused-recursive"), 1);
    }

    #[test]
    fn a_caller_grows_within_its_budget() {
        // @callee is 9 nodes: a caller of 60 calls may grow to 2 × 60 + 200 = 320
        // nodes, so it takes copies while its size and the callee's stay within
        // that: 32 (60 + 31 × 8 + 9 = 317), not a 33rd (60 + 32 × 8 + 9 = 325)
        let text = slot_callee(8, 60, "export")
            .replace("    n3 = iconst 1 : i64\n", "    n3 = iconst 1 : i64\n    n5 = iconst 2 : i64\n    n6 = iconst 3 : i64\n    n7 = iconst 4 : i64\n    n8 = iconst 5 : i64\n");
        let (g, r) = inlined(&text, 30);
        assert_eq!(r.get("inline.calls-inlined"), 32);
        assert_eq!(r.get("inline.refused-size"), 28);
        assert_eq!(r.get("inline.nodes-copied"), 32 * 9);
        use DataValue::I64;
        assert_eq!(call(&g, "caller", &[I64(0)]), [I64(60)]);
        let caller = g.lambdas()[1];
        assert_eq!(g.count_nodes_inside(caller), 60 + 32 * 8);
    }

    /// A λ `name(x) = x + n` of `n` `iadd`s and one constant.
    fn chain(name: &str, n: usize) -> String {
        let mut s = format!(
            "lambda @{name}(i64) -> i64 {{\n  (a0: i64, a1: mem, a2: io):\n    n0 = iconst 1 : i64\n"
        );
        let mut v = "a0".to_string();
        for i in 1..=n {
            s += &format!("    n{i} = iadd {v}, n0 : i64\n");
            v = format!("n{i}");
        }
        s + &format!("    -> ({v}, a1, a2)\n}}\n")
    }

    #[test]
    fn last_calls_are_not_bound_by_the_budget() {
        // @f (4 nodes, so a budget of 208) calls @a and @b once each, @c twice: @a
        // and @b (151 nodes, under 20 × 30) go in although the second passes the
        // budget; @c (31 nodes) is over the threshold
        let text = format!(
            "{}{}{}
lambda @f(i64) -> i64 export {{
    fn0 = @a(i64) -> i64
    fn1 = @b(i64) -> i64
    fn2 = @c(i64) -> i64
  (a0: i64, a1: mem, a2: io):
    n0 = call fn0 a0, a1, a2 : i64, mem, io
    n1 = call fn1 n0.0, n0.1, n0.2 : i64, mem, io
    n2 = call fn2 n1.0, n1.1, n1.2 : i64, mem, io
    n3 = call fn2 n2.0, n2.1, n2.2 : i64, mem, io
    -> (n3.0, n3.1, n3.2)
}}
",
            chain("a", 150),
            chain("b", 150),
            chain("c", 30)
        );
        let (g, r) = inlined(&text, 30);
        assert_eq!(r.get("inline.calls-inlined"), 2);
        assert_eq!(r.get("inline.refused-size"), 2);
        assert_eq!(calls_in(&g, "f"), 2);
        use DataValue::I64;
        assert_eq!(call(&g, "f", &[I64(1)]), [I64(361)]);
        // @a exported and called twice is never a last call: the budget stops its
        // second copy (154 + 151 > 208), not the first @c (154 + 31), and the second
        // @c is its last call
        let twice = text
            .replace("fn1 = @b(i64)", "fn1 = @a(i64)")
            .replace("lambda @a(i64) -> i64 {", "lambda @a(i64) -> i64 export {");
        let (g, r) = inlined(&twice, 1000);
        assert_eq!(r.get("inline.calls-inlined"), 3);
        assert_eq!(r.get("inline.refused-size"), 1);
        assert_eq!(call(&g, "f", &[I64(1)]), [I64(361)]);
    }

    #[test]
    fn always_ignores_the_size_but_not_recursion() {
        let text = "
lambda @big(i64) -> i64 inline(always) {
  (a0: i64, a1: mem, a2: io):
    n0 = iadd a0, a0 : i64
    n1 = iadd n0, n0 : i64
    n2 = iadd n1, n1 : i64
    -> (n2, a1, a2)
}
lambda @rec(i64) -> i64 inline(always) {
    fn0 = @rec(i64) -> i64
  (a0: i64, a1: mem, a2: io):
    -> (a0, a1, a2)
}
lambda @f(i64) -> i64 export {
    fn0 = @big(i64) -> i64
    fn1 = @rec(i64) -> i64
  (a0: i64, a1: mem, a2: io):
    n0 = call fn0 a0, a1, a2 : i64, mem, io
    n1 = call fn1 n0.0, n0.1, n0.2 : i64, mem, io
    -> (n1.0, n1.1, n1.2)
}
";
        // @rec calls itself only in its declarations: it is not recursive
        let (g, r) = inlined(text, 0);
        assert_eq!(r.get("inline.calls-inlined"), 2);
        assert_eq!(calls_in(&g, "f"), 0);
        use DataValue::I64;
        assert_eq!(call(&g, "f", &[I64(3)]), [I64(24)]);
        let text = text.replace(
            "  (a0: i64, a1: mem, a2: io):\n    -> (a0, a1, a2)\n}\nlambda @f",
            "  (a0: i64, a1: mem, a2: io):\n    n0 = call fn0 a0, a1, a2 : i64, mem, io\n    \
             -> (n0.0, n0.1, n0.2)\n}\nlambda @f",
        );
        let (g, r) = inlined(&text, 1000);
        assert_eq!(r.get("inline.calls-inlined"), 1);
        assert_eq!(r.get("inline.refused-recursive"), 2);
        assert_eq!(calls_in(&g, "f"), 1);
    }

    #[test]
    fn indirect_calls_symbols_and_locations_are_renumbered() {
        // the callee's declarations in another order than the caller's, which has
        // some of them already
        let text = "
lambda @target(i64) -> i64 export {
  (a0: i64, a1: mem, a2: io):
    -> (a0, a1, a2)
}
lambda @callee(i64) -> i64 {
    sig0 = (i64, i64) -> i64
    sig1 = (i64) -> i64
    gv0 = symbol @other
    gv1 = symbol @target
    file0 = \"a.rs\"
    file1 = \"b.rs\"
  (a0: i64, a1: mem, a2: io):
    [1:4:2] n0 = symbol_addr gv1 : ptr
    [0:5:3] n1 = call_indirect sig1 n0, a0, a1, a2 : i64, mem, io
    -> (n1.0, n1.1, n1.2)
}
lambda @f(i64) -> i64 export {
    sig0 = (i64) -> i64
    fn0 = @callee(i64) -> i64
    gv0 = symbol @target
    file0 = \"b.rs\"
  (a0: i64, a1: mem, a2: io):
    [0:1:1] n0 = call fn0 a0, a1, a2 : i64, mem, io
    -> (n0.0, n0.1, n0.2)
}
";
        let (mut g, r) = inlined(text, 30);
        assert_eq!(r.get("inline.calls-inlined"), 1);
        dead_node_elimination(&mut g, &FxHashSet::default(), &mut Report::default());
        verify(&g).unwrap_or_else(|e| panic!("{}\n{g}", e[0]));
        let f = g.to_string();
        let f = &f[f.find("lambda @f").expect("@f")..];
        assert_eq!(
            f,
            "lambda @f(i64) -> i64 export {
    sig0 = (i64) -> i64
    gv0 = symbol @target
    file0 = \"b.rs\"
    file1 = \"a.rs\"
  (a0: i64, a1: mem, a2: io):
    [0:4:2] n0 = symbol_addr gv0 : ptr
    [1:5:3] n1 = call_indirect sig0 n0, a0, a1, a2 : i64, mem, io
    -> (n1.0, n1.1, n1.2)
}
"
        );
        use DataValue::I64;
        assert_eq!(call(&g, "f", &[I64(7)]), [I64(7)]);
    }

    #[test]
    fn calls_brought_along_by_a_copy_are_not_decided_again() {
        // @mid calls @leaf (inlined into it first, callees first); @top then takes
        // @mid's body with @leaf already in it, and @twice's call of @mid twice
        let text = "
lambda @leaf(i64) -> i64 {
  (a0: i64, a1: mem, a2: io):
    n0 = iconst 1 : i64
    n1 = iadd a0, n0 : i64
    -> (n1, a1, a2)
}
lambda @mid(i64) -> i64 {
    fn0 = @leaf(i64) -> i64
  (a0: i64, a1: mem, a2: io):
    n0 = call fn0 a0, a1, a2 : i64, mem, io
    n1 = call fn0 n0.0, n0.1, n0.2 : i64, mem, io
    -> (n1.0, n1.1, n1.2)
}
lambda @top(i64) -> i64 export {
    fn0 = @mid(i64) -> i64
  (a0: i64, a1: mem, a2: io):
    n0 = call fn0 a0, a1, a2 : i64, mem, io
    n1 = call fn0 n0.0, n0.1, n0.2 : i64, mem, io
    -> (n1.0, n1.1, n1.2)
}
";
        let (g, r) = inlined(text, 30);
        assert_eq!(r.get("inline.calls-inlined"), 4);
        // 2 × 2 nodes into @mid, then 2 × its 4 into @top
        assert_eq!(r.get("inline.nodes-copied"), 4 + 8);
        assert_eq!(calls_in(&g, "top"), 0);
        assert_eq!(calls_in(&g, "mid"), 0);
        use DataValue::I64;
        assert_eq!(call(&g, "top", &[I64(1)]), [I64(5)]);
    }

    #[test]
    fn calls_of_another_signature_and_of_declarations_stay() {
        let text = "
lambda @id(i64) -> i64 {
  (a0: i64, a1: mem, a2: io):
    -> (a0, a1, a2)
}
lambda @f(i32) -> i32 export {
    fn0 = @id(i32) -> i32
    fn1 = @external(i32) -> i32
  (a0: i32, a1: mem, a2: io):
    n0 = call fn0 a0, a1, a2 : i32, mem, io
    n1 = call fn1 n0.0, n0.1, n0.2 : i32, mem, io
    -> (n1.0, n1.1, n1.2)
}
";
        let (g, r) = inlined(text, 30);
        assert_eq!(r.counters(), []);
        assert_eq!(calls_in(&g, "f"), 2);
    }
}
