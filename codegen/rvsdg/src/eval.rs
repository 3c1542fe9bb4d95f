//! The evaluator: runs an RVSDG directly, with the SSA IR interpreter's semantics
//! (`vliw_ir::semantics`, the one definition of every operation), memory
//! (`vliw_ir::memory`: the same addresses for the same module), values, traps and host
//! functions — so that a graph can be checked against the IR it was built from:
//!
//! ```
//! # use vliw_ir::{DataValue, Interpreter, Module};
//! # use vliw_rvsdg::{Evaluator, Rvsdg};
//! fn check(graph: &Rvsdg, module: &Module, args: &[DataValue]) {
//!     let got = Evaluator::new(graph, module).call("f", args);
//!     let want = Interpreter::new(module).call("f", args);
//!     match (want, got) {
//!         (Ok(want), Ok(got)) => assert_eq!(want, got),
//!         // the messages differ in where they place the trap: a block, a node
//!         (Err(want), Err(got)) => assert_eq!(want.kind, got.kind),
//!         (want, got) => panic!("{want:?} / {got:?}"),
//!     }
//! }
//! ```
//!
//! Semantics: a region evaluates all its nodes in a topological order (the state edges
//! order the effects); a γ evaluates the arm its predicate chooses; a θ evaluates its
//! body, then again on the new values while the predicate is alternative 1; a call of
//! a name that is a λ of the graph evaluates that λ's body, with its own stack slots;
//! other names go to the host functions. A call of `_Unwind_RaiseException` or
//! `_Unwind_Resume` (without a host function of that name) unwinds, with the
//! interpreter's two phases: the nearest `try_call`/`catch_call` on the stack gets the
//! outcome "unwound", a raise that no `catch_call` waits for ends the run first.
//! States carry no value. Two effects that no
//! state edge orders (a division, which takes the I/O state, and a plain load, which
//! takes the memory state) run in the order of `Graph::topological_order`: only which
//! of them traps first can tell.
//!
//! The evaluator is an explicit machine (a stack of λ activations, each a stack of the
//! regions it is inside), so that deep recursion in the graph does not recurse in
//! Rust; like the interpreter, it traps on a call depth over a limit (1000), on a
//! step limit (10 million nodes and loop iterations), and with `Malformed` on a graph
//! it cannot run (a cycle, a predicate out of range: run the verifier).

use rustc_hash::FxHashMap as HashMap;

use cranelift_entity::{EntityRef, SecondaryMap};
use vliw_ir::interpreter::{check_args, check_host_results, check_sig};
use vliw_ir::{
    DataValue, Hosts, InstructionData, Memory, Module, Signature, Stack, Symbols, Trap, TrapKind,
    Type, Value, semantics,
};

use crate::graph::{Node, NodeKind, Origin, Region};
use crate::ops::{Op, Rvsdg};

#[cfg(test)]
mod tests;

/// Runs the λs of a graph.
pub struct Evaluator<'a, 'h> {
    graph: &'a Rvsdg,
    pub memory: Memory,
    symbols: Symbols<'a>,
    lambdas: HashMap<&'a str, Node>,
    hosts: Hosts<'h>,
    stack: Stack,
    plan: Plan,
    step_limit: u64,
    steps: u64,
    max_depth: usize,
}

/// What the evaluator computes once per graph: the order of each region's nodes, and
/// where each value lives in its λ activation's array of values.
struct Plan {
    /// The nodes of every region in a topological order, one region after another.
    order: Vec<Node>,
    /// Each region's part of `order`, and whether it holds all its nodes (none is on a
    /// cycle).
    span: SecondaryMap<Region, (u32, u32, bool)>,
    /// The index of a node's first output, and of a region's first argument, in the
    /// values of an activation of their λ.
    out_base: SecondaryMap<Node, u32>,
    arg_base: SecondaryMap<Region, u32>,
    /// The number of values of an activation of each λ.
    frame_size: SecondaryMap<Node, u32>,
}

impl Plan {
    fn new(g: &Rvsdg) -> Plan {
        let mut plan = Plan {
            order: Vec::new(),
            span: SecondaryMap::new(),
            out_base: SecondaryMap::new(),
            arg_base: SecondaryMap::new(),
            frame_size: SecondaryMap::new(),
        };
        for lambda in g.lambdas() {
            let mut next = 0u32;
            for r in g.regions_below(g.lambda_body(lambda)) {
                plan.arg_base[r] = next;
                next += g.args(r).len() as u32;
                let order = g.topological_order(r);
                let start = plan.order.len() as u32;
                let complete = order.len() == g.nodes(r).len();
                plan.order.extend(order);
                plan.span[r] = (start, plan.order.len() as u32, complete);
                for &n in g.nodes(r) {
                    plan.out_base[n] = next;
                    next += g.num_outputs(n) as u32;
                }
            }
            plan.frame_size[lambda] = next;
        }
        plan
    }
}

/// One evaluation of a λ's body.
struct Activation {
    lambda: Node,
    /// The values of its outputs and arguments (`Plan::out_base`, `Plan::arg_base`).
    vals: Vec<u128>,
    /// The addresses of its stack slots.
    slots: Vec<u64>,
    /// The stack to give back when it returns.
    saved_sp: u64,
    /// The call node of the caller that waits for its results.
    call: Option<Node>,
    /// The regions it is evaluating, innermost last: the next node of each and the end
    /// of its order.
    cursors: Vec<(Region, u32, u32)>,
}

/// What a simple node asks of the machine.
enum Next {
    Continue,
    /// Evaluate λ `callee` on these arguments, then give its results to the node.
    Call(Node, Vec<u128>),
    /// The node, a call, unwinds with this exception: by a raise (`true`: its search
    /// phase must find a catch first) or by a resume.
    Unwind(u64, bool),
}

impl<'a, 'h> Evaluator<'a, 'h> {
    /// Lay out `module`'s data and functions as the interpreter does (so that the same
    /// symbols have the same addresses), to run the λs of `graph`.
    pub fn new(graph: &'a Rvsdg, module: &'a Module) -> Self {
        let (mut memory, symbols) = Memory::load(module);
        let stack = Stack::new(&mut memory, 1 << 20);
        let mut lambdas = HashMap::default();
        for l in graph.lambdas() {
            lambdas
                .entry(graph.lambda_info(l).name.as_str())
                .or_insert(l);
        }
        Evaluator {
            graph,
            memory,
            symbols,
            lambdas,
            hosts: Hosts::default(),
            stack,
            plan: Plan::new(graph),
            step_limit: 10_000_000,
            steps: 0,
            max_depth: 1000,
        }
    }

    /// Provide the implementation of external function `name`.
    pub fn add_host(
        &mut self,
        name: &str,
        f: impl FnMut(&mut Memory, &[DataValue]) -> Result<Vec<DataValue>, Trap> + 'h,
    ) {
        self.hosts.add(name, f);
    }

    /// Trap with `StepLimit` after this many nodes and loop iterations in total
    /// (default 10 million).
    pub fn set_step_limit(&mut self, n: u64) {
        self.step_limit = n;
    }

    /// Nodes and loop iterations evaluated so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Trap with `StackOverflow` beyond this call depth (default 1000).
    pub fn set_max_depth(&mut self, n: usize) {
        self.max_depth = n;
    }

    /// Size of the stack region for stack slots (default 1 MiB, at most 1 GiB).
    pub fn set_stack_size(&mut self, size: u64) {
        self.stack.resize(&mut self.memory, size);
    }

    /// The address of a function or data symbol.
    pub fn symbol_address(&self, name: &str) -> Option<u64> {
        self.symbols.address(name)
    }

    /// Call λ `name` of the graph (or a host function) with `args`.
    pub fn call(&mut self, name: &str, args: &[DataValue]) -> Result<Vec<DataValue>, Trap> {
        let Some(&lambda) = self.lambdas.get(name) else {
            return self.hosts.call(&mut self.memory, name, args);
        };
        let sig = &self.graph.lambda_info(lambda).signature;
        check_args(sig, args, name)?;
        let bits: Vec<u128> = args.iter().map(|a| a.bits()).collect();
        let base = self.stack.mark();
        let out = self.run(lambda, &bits);
        self.stack.release(base);
        Ok(out?
            .iter()
            .zip(&sig.returns)
            .map(|(&b, &t)| DataValue::from_bits(t, b))
            .collect())
    }

    /// Evaluate `lambda` on `args` to completion.
    fn run(&mut self, lambda: Node, args: &[u128]) -> Result<Vec<u128>, Trap> {
        let g = self.graph;
        let mut acts: Vec<Activation> = Vec::new();
        self.push_activation(&mut acts, lambda, args, None)?;
        loop {
            let act = acts.last_mut().expect("an activation");
            let &mut (region, ref mut next, end) =
                act.cursors.last_mut().expect("a region being evaluated");
            if *next < end {
                let n = self.plan.order[*next as usize];
                *next += 1;
                self.step(act.lambda)?;
                match g.kind(n) {
                    NodeKind::Simple(op) => {
                        let ctx = context(g, act.lambda, n);
                        match self.simple(act, n, op).map_err(&ctx)? {
                            Next::Continue => {}
                            Next::Call(callee, args) => {
                                self.push_activation(&mut acts, callee, &args, Some(n))
                                    .map_err(&ctx)?;
                            }
                            Next::Unwind(exception, search) => {
                                self.unwind(&mut acts, n, exception, search).map_err(&ctx)?;
                            }
                        }
                    }
                    NodeKind::Gamma { arms } => {
                        let inputs = g.inputs(n);
                        let alt = self.value(act, inputs[0]);
                        let Some(&arm) = usize::try_from(alt).ok().and_then(|k| arms.get(k)) else {
                            return Err(context(g, act.lambda, n)(Trap::new(
                                TrapKind::Malformed,
                                format!("predicate {alt} for {} arm(s)", arms.len()),
                            )));
                        };
                        self.enter(act, arm, &inputs[1..])?;
                    }
                    NodeKind::Theta { body } => {
                        self.enter(act, *body, g.inputs(n))?;
                    }
                    NodeKind::Lambda { .. } => {
                        return Err(context(g, act.lambda, n)(Trap::new(
                            TrapKind::Malformed,
                            "a λ inside a region",
                        )));
                    }
                }
                continue;
            }
            // the region is done: its owner takes its results
            act.cursors.pop();
            let owner = g
                .owner(region)
                .expect("a region being evaluated has an owner");
            let results: Vec<u128> = g
                .results(region)
                .iter()
                .map(|&o| self.value(act, o))
                .collect();
            match g.kind(owner) {
                NodeKind::Gamma { .. } => self.set_outputs(act, owner, &results),
                NodeKind::Theta { .. } => {
                    let (predicate, vars) = results.split_first().expect("a θ predicate");
                    if *predicate == 1 {
                        self.step(act.lambda)?;
                        let base = self.plan.arg_base[region] as usize;
                        act.vals[base..base + vars.len()].copy_from_slice(vars);
                        self.push_cursor(act, region)?;
                    } else {
                        self.set_outputs(act, owner, vars);
                    }
                }
                // a λ's body: return
                _ => {
                    let done = acts.pop().expect("an activation");
                    self.stack.release(done.saved_sp);
                    let returns = g.lambda_info(done.lambda).signature.returns.len();
                    let rets = &results[..returns.min(results.len())];
                    let Some(caller) = acts.last_mut() else {
                        return Ok(rets.to_vec());
                    };
                    let call = done.call.expect("a called activation knows its call");
                    let expects = value_outputs(g, call).len() - unwinding_outputs(g, call);
                    if expects != rets.len() {
                        return Err(Trap::new(
                            TrapKind::BadSignature,
                            format!(
                                "@{} returned {} value(s), the call expects {expects}",
                                g.lambda_info(done.lambda).name,
                                rets.len(),
                            ),
                        ));
                    }
                    self.set_outputs(caller, call, rets);
                    // a try_call's outcome after its results: returned
                    let outcome = [0; 3];
                    self.set_outputs_from(
                        caller,
                        call,
                        rets.len(),
                        &outcome[..unwinding_outputs(g, call)],
                    );
                }
            }
        }
    }

    /// Count a step; trap past the limit.
    fn step(&mut self, lambda: Node) -> Result<(), Trap> {
        self.steps += 1;
        if self.steps > self.step_limit {
            return Err(Trap::new(
                TrapKind::StepLimit,
                format!(
                    "step limit of {} reached in @{}",
                    self.step_limit,
                    self.graph.lambda_info(lambda).name
                ),
            ));
        }
        Ok(())
    }

    fn push_activation(
        &mut self,
        acts: &mut Vec<Activation>,
        lambda: Node,
        args: &[u128],
        call: Option<Node>,
    ) -> Result<(), Trap> {
        if acts.len() >= self.max_depth {
            return Err(Trap::new(
                TrapKind::StackOverflow,
                format!("call depth over {}", self.max_depth),
            ));
        }
        let g = self.graph;
        let func = g.lambda_info(lambda);
        let saved_sp = self.stack.mark();
        let slots = self.stack.push_frame(&func.stack_slots)?;
        if args.len() != func.signature.params.len() {
            return Err(Trap::new(
                TrapKind::BadSignature,
                format!("@{}: wrong number of arguments", func.name),
            ));
        }
        let mut act = Activation {
            lambda,
            vals: vec![0; self.plan.frame_size[lambda] as usize],
            slots,
            saved_sp,
            call,
            cursors: Vec::new(),
        };
        // the parameters; the states that follow carry no value
        let body = g.lambda_body(lambda);
        let base = self.plan.arg_base[body] as usize;
        act.vals[base..base + args.len()].copy_from_slice(args);
        self.push_cursor(&mut act, body)?;
        acts.push(act);
        Ok(())
    }

    /// Start evaluating `region` on the values of `inputs` (its arguments).
    fn enter(&self, act: &mut Activation, region: Region, inputs: &[Origin]) -> Result<(), Trap> {
        let base = self.plan.arg_base[region] as usize;
        for (i, &o) in inputs.iter().enumerate() {
            act.vals[base + i] = self.value(act, o);
        }
        self.push_cursor(act, region)
    }

    fn push_cursor(&self, act: &mut Activation, region: Region) -> Result<(), Trap> {
        let (start, end, complete) = self.plan.span[region];
        if !complete {
            return Err(Trap::new(
                TrapKind::Malformed,
                format!(
                    "{region} of @{} has a cycle",
                    self.graph.lambda_info(act.lambda).name
                ),
            ));
        }
        act.cursors.push((region, start, end));
        Ok(())
    }

    fn value(&self, act: &Activation, o: Origin) -> u128 {
        match o {
            Origin::Out(n, i) => act.vals[self.plan.out_base[n] as usize + i as usize],
            Origin::Arg(r, i) => act.vals[self.plan.arg_base[r] as usize + i as usize],
        }
    }

    /// Give node `n` the values of its first outputs (the states after them carry none).
    fn set_outputs(&self, act: &mut Activation, n: Node, vals: &[u128]) {
        self.set_outputs_from(act, n, 0, vals);
    }

    /// Give node `n` the values of its outputs from number `first` on.
    fn set_outputs_from(&self, act: &mut Activation, n: Node, first: usize, vals: &[u128]) {
        let base = self.plan.out_base[n] as usize + first;
        act.vals[base..base + vals.len()].copy_from_slice(vals);
    }

    /// Unwinds with `exception` from call node `n` of the activation on top (the
    /// interpreter's two phases): with `search`, a raise, it first checks that a call
    /// waiting on the stack catches (a `catch_call`), else the exception ends the run
    /// before any cleanup; then the nearest `try_call` or `catch_call`, `n` itself or a
    /// caller's waiting call, gets the outcome "unwound" (its results 0, then 1, the
    /// exception and selector 0) and the activations above it go.
    fn unwind(
        &mut self,
        acts: &mut Vec<Activation>,
        n: Node,
        exception: u64,
        search: bool,
    ) -> Result<(), Trap> {
        let g = self.graph;
        let catches = |c: Node| {
            g.op(c)
                .and_then(Op::opcode)
                .is_some_and(|o| o.try_call_catches())
        };
        let unwound = || {
            Trap::new(
                TrapKind::Unwound(exception),
                format!("exception {exception:#x} unwound out of the program"),
            )
        };
        if search && !catches(n) && !acts.iter().filter_map(|a| a.call).any(catches) {
            return Err(unwound());
        }
        let mut at = n;
        loop {
            let act = acts.last_mut().expect("an activation");
            let unwinding = unwinding_outputs(g, at);
            if unwinding > 0 {
                let values = value_outputs(g, at).len();
                let mut vals = vec![0u128; values];
                vals[values - 2] = u128::from(exception);
                vals[values - 3] = 1;
                self.set_outputs(act, at, &vals);
                return Ok(());
            }
            let done = acts.pop().expect("an activation");
            self.stack.release(done.saved_sp);
            match (done.call, acts.is_empty()) {
                (Some(call), false) => at = call,
                _ => return Err(unwound()),
            }
        }
    }

    /// Evaluate simple node `n`.
    fn simple(&mut self, act: &mut Activation, n: Node, op: &Op) -> Result<Next, Trap> {
        let g = self.graph;
        let func = g.lambda_info(act.lambda);
        let inputs = g.inputs(n);
        match op {
            Op::Ctl { alt, .. } => self.set_outputs(act, n, &[*alt as u128]),
            // one memory: the states carry nothing
            Op::MemSplit(_) | Op::MemJoin(_) => {}
            Op::Match { cases, default, .. } => {
                let v = self.value(act, inputs[0]);
                let alt = cases
                    .iter()
                    .find(|&&(c, _)| c == v)
                    .map_or(*default, |&(_, a)| a);
                self.set_outputs(act, n, &[alt as u128]);
            }
            Op::SafeDiv(opcode) => {
                let data = InstructionData::Binary {
                    opcode: *opcode,
                    args: [Value::from_u32(0); 2],
                };
                self.operation(act, n, &data)?;
            }
            Op::Inst(data) => match data {
                InstructionData::SymbolAddr { global, offset, .. } => {
                    let name = &func.globals[*global];
                    let a = self.symbols.address(name).ok_or_else(|| {
                        Trap::new(
                            TrapKind::Malformed,
                            format!("symbol @{name} is not in the module"),
                        )
                    })?;
                    self.set_outputs(act, n, &[a.wrapping_add(*offset as u64) as u128]);
                }
                InstructionData::StackAddr { slot, offset, .. } => {
                    let a = act.slots[slot.index()].wrapping_add(*offset as u64);
                    self.set_outputs(act, n, &[a as u128]);
                }
                InstructionData::Trap { code, .. } => {
                    return Err(Trap::new(TrapKind::User(*code), format!("trap {code}")));
                }
                // Not an operation of the RVSDG (the verifier rejects it), but should one
                // be built, it means what it means in the IR.
                InstructionData::Nullary {
                    opcode: vliw_ir::Opcode::Unreachable,
                } => {
                    return Err(Trap::new(TrapKind::Unreachable, "unreachable executed"));
                }
                InstructionData::Call { func: f, args, .. } => {
                    let ext = &func.ext_funcs[*f];
                    let argv = self.operands(act, &inputs[..args.len()]);
                    return self.call_symbol(act, n, &ext.name, &ext.signature, argv);
                }
                InstructionData::CallIndirect { sig, args, .. } => {
                    let addr = self.value(act, inputs[0]) as u64;
                    let argv = self.operands(act, &inputs[1..args.len()]);
                    let Some((name, _)) = self.symbols.function_at(addr) else {
                        return Err(Trap::new(
                            TrapKind::UnknownFunction,
                            format!("indirect call of {addr:#x}, which is not a function"),
                        ));
                    };
                    return self.call_symbol(act, n, name, &func.signatures[*sig], argv);
                }
                _ => self.operation(act, n, data)?,
            },
        }
        Ok(Next::Continue)
    }

    /// The values and types of value inputs.
    fn operands(&self, act: &Activation, inputs: &[Origin]) -> Vec<(u128, Type)> {
        inputs
            .iter()
            .map(|&o| {
                let ty = self.graph.ty(o).value().unwrap_or(Type::I64);
                (self.value(act, o), ty)
            })
            .collect()
    }

    /// Call `name` as node `n` does, with signature `sig`: a λ of the graph (the machine
    /// evaluates it next), else a host function.
    fn call_symbol(
        &mut self,
        act: &mut Activation,
        n: Node,
        name: &str,
        sig: &Signature,
        args: Vec<(u128, Type)>,
    ) -> Result<Next, Trap> {
        if let Some(&callee) = self.lambdas.get(name) {
            let own = &self.graph.lambda_info(callee).signature;
            check_sig(own, sig, name)?;
            let bits = args.iter().take(own.params.len()).map(|a| a.0).collect();
            return Ok(Next::Call(callee, bits));
        }
        let dv: Vec<DataValue> = args
            .iter()
            .map(|&(b, t)| DataValue::from_bits(t, b))
            .collect();
        let out = match self.hosts.call(&mut self.memory, name, &dv) {
            Err(Trap {
                kind: TrapKind::Unwound(exception),
                ..
            }) => {
                return Ok(Next::Unwind(
                    exception,
                    name != vliw_ir::interpreter::RESUME,
                ));
            }
            r => r?,
        };
        let types = value_outputs(self.graph, n);
        let unwinding = unwinding_outputs(self.graph, n);
        check_host_results(name, &out, &types[..types.len() - unwinding])?;
        let mut bits: Vec<u128> = out.iter().map(|d| d.bits()).collect();
        // a try_call's outcome after its results: returned
        bits.extend(std::iter::repeat_n(0, unwinding));
        self.set_outputs(act, n, &bits);
        Ok(Next::Continue)
    }

    /// Evaluate an operation on values and memory (`data`'s operands are the node's
    /// value inputs).
    fn operation(
        &mut self,
        act: &mut Activation,
        n: Node,
        data: &InstructionData,
    ) -> Result<(), Trap> {
        let g = self.graph;
        // Operations other than calls read at most 3 operands and write at most 2
        // results: fixed arrays spare an allocation per node.
        let mut args = [0u128; 3];
        let mut arg_types = [Type::I64; 3];
        let count = data.arguments().len().min(3);
        for (i, &o) in g.inputs(n).iter().take(count).enumerate() {
            args[i] = self.value(act, o);
            arg_types[i] = g.ty(o).value().unwrap_or(Type::I64);
        }
        let mut results = [Type::I64; 2];
        let mut written = 0;
        for (i, ty) in g
            .outputs(n)
            .map_while(|o| g.ty(o).value())
            .take(2)
            .enumerate()
        {
            results[i] = ty;
            written = i + 1;
        }
        let out = semantics::eval(
            &mut self.memory,
            data,
            &arg_types[..count],
            &args[..count],
            &results[..written],
        )?;
        let base = self.plan.out_base[n] as usize;
        for (i, v) in out.into_iter().take(written).enumerate() {
            act.vals[base + i] = v.ok_or_else(|| {
                Trap::new(TrapKind::Malformed, "more results than the opcode produces")
            })?;
        }
        Ok(())
    }
}

/// How many of a node's value outputs are a `try_call`'s outcome (whether it unwound,
/// the exception, the selector): 3 for a `try_call` or `catch_call`, else 0.
fn unwinding_outputs(g: &Rvsdg, n: Node) -> usize {
    if g.op(n)
        .and_then(Op::opcode)
        .is_some_and(|o| o.is_try_call())
    {
        3
    } else {
        0
    }
}

/// The types of a node's value outputs (those before its states).
fn value_outputs(g: &Rvsdg, n: Node) -> Vec<Type> {
    g.outputs(n).map_while(|o| g.ty(o).value()).collect()
}

/// Name the λ and node of a trap, as the interpreter names the function and
/// instruction: `trap 7 (in @f, n12: trap 7)`.
fn context(g: &Rvsdg, lambda: Node, n: Node) -> impl Fn(Trap) -> Trap + '_ {
    move |t: Trap| Trap {
        kind: t.kind,
        message: format!(
            "{} (in @{}, {n}: {})",
            t.message,
            g.lambda_info(lambda).name,
            g.kind(n).label()
        ),
    }
}
