//! Unwind edges in the RVSDG (`docs/rvsdg.md` §2, "Unwinding"): an unwind edge is a
//! control edge with state. Before a function with landing pads is built into a λ,
//! [`invokes_to_try_calls`] turns each `invoke` into a `try_call` (a call node like
//! any other, with the memory and I/O states) whose outcome is three more results:
//! whether the callee unwound, the exception and the selector, and a `brif` on the
//! first, to the landing pad (which receives the exception and selector as two
//! parameters instead of its `landing_pad`) or to the normal successor. `resume` is
//! what it is on the machine: a call of `_Unwind_Resume`, which never returns. So the
//! optimizer sees a branch on a call's result, and everything it does to calls and
//! branches holds (a γ on the outcome; the landing code in one arm).
//!
//! After sequentialization [`try_calls_to_invokes`] forms the invokes again: a
//! `try_call` ends its block as an `invoke` whose normal edge gives the results and
//! "not unwound", and whose unwind edge enters a new landing block that gives the
//! exception and "unwound" (the results undefined there); both go on to what followed
//! the call, which receives them as parameters. Whatever the sequentialization put
//! between the call and the branch on its outcome runs on both paths, as it did in the
//! RVSDG. Jump threading then sends each path to its side of that branch.
//!
//! The pad's kind travels with the call: a landing pad that catches
//! (`catch_landing_pad`) makes a `catch_call`.

use rustc_hash::FxHashMap;
use vliw_ir::{
    Block, BlockCall, Function, Inst, InstructionData, Linkage, Opcode, Signature, Type, Value,
};

use crate::graph::Node;
use crate::ops::{Op, Rvsdg};

/// Which λs of a graph may unwind, by name: computed once for a pass that asks about
/// every call node.
///
/// A least fixpoint over the calls: a λ may unwind when its body calls something that
/// may, that is an indirect call, a function of another unit that is not `nounwind`,
/// a weak λ (the linker may pick another definition), or a λ of the graph that may
/// unwind. So a function whose only calls are of itself or of other functions that
/// cannot unwind (a tree's `depth`) cannot either, whatever rustc said: the memory
/// it reads before such a call is the memory after it.
pub struct MayUnwind(FxHashMap<String, bool>);

impl MayUnwind {
    pub fn of(g: &Rvsdg) -> MayUnwind {
        let lambdas = g.lambdas();
        let local: FxHashMap<&str, bool> = lambdas
            .iter()
            .map(|&l| {
                let info = g.lambda_info(l);
                (info.name.as_str(), info.linkage != Linkage::Weak)
            })
            .collect();
        // per λ: whether a call of its own may unwind, and the λs of the graph it calls
        let mut callees: Vec<Vec<usize>> = Vec::with_capacity(lambdas.len());
        let mut unwinds: Vec<bool> = Vec::with_capacity(lambdas.len());
        let index: FxHashMap<&str, usize> = lambdas
            .iter()
            .enumerate()
            .map(|(i, &l)| (g.lambda_info(l).name.as_str(), i))
            .collect();
        for &l in &lambdas {
            let info = g.lambda_info(l);
            let mut own = false;
            let mut called = Vec::new();
            for r in g.regions_below(g.lambda_body(l)) {
                for &n in g.nodes(r) {
                    match g.op(n) {
                        Some(Op::Inst(InstructionData::Call { func, .. })) => {
                            match info.ext_funcs.get(*func) {
                                Some(ext) if ext.nounwind => {}
                                Some(ext) if local.get(ext.name.as_str()) == Some(&true) => {
                                    called.push(index[ext.name.as_str()])
                                }
                                _ => own = true,
                            }
                        }
                        Some(op) if op.opcode().is_some_and(|o| o.is_call()) => own = true,
                        _ => {}
                    }
                }
            }
            unwinds.push(own || info.linkage == Linkage::Weak);
            callees.push(called);
        }
        // propagate to callers until nothing changes (each λ turns at most once)
        let mut changed = true;
        while changed {
            changed = false;
            for i in 0..lambdas.len() {
                if !unwinds[i] && callees[i].iter().any(|&j| unwinds[j]) {
                    unwinds[i] = true;
                    changed = true;
                }
            }
        }
        MayUnwind(
            lambdas
                .iter()
                .zip(unwinds)
                .map(|(&l, u)| (g.lambda_info(l).name.clone(), u))
                .collect(),
        )
    }

    /// Whether the λ named `name` may unwind; `None` for a function that is not a λ of
    /// the graph.
    pub fn lambda(&self, name: &str) -> Option<bool> {
        self.0.get(name).copied()
    }

    /// Whether call node `n` of λ `l` may unwind: not a direct call of a `nounwind`
    /// function, nor of a λ of the graph that cannot unwind.
    pub fn call(&self, g: &Rvsdg, l: Node, n: Node) -> bool {
        match g.op(n) {
            Some(Op::Inst(InstructionData::Call {
                opcode: Opcode::Call,
                func,
                ..
            })) => match g.lambda_info(l).ext_funcs.get(*func) {
                Some(ext) if ext.nounwind => false,
                Some(ext) => self.0.get(&ext.name).copied().unwrap_or(true),
                None => true,
            },
            Some(op) => op.opcode().is_some_and(|o| o.is_call()),
            None => false,
        }
    }
}

/// Whether λ `l`'s body holds a call that may unwind anywhere (only calls unwind): a
/// call of anything but a `nounwind` function.
pub fn calls_that_may_unwind(g: &Rvsdg, l: Node) -> bool {
    let info = g.lambda_info(l);
    g.regions_below(g.lambda_body(l)).into_iter().any(|r| {
        g.nodes(r).iter().any(|&n| match g.op(n) {
            Some(Op::Inst(InstructionData::Call { func, .. })) => {
                !info.ext_funcs.get(*func).is_some_and(|e| e.nounwind)
            }
            Some(op) => op.opcode().is_some_and(|o| o.is_call()),
            None => false,
        })
    })
}

/// The runtime's entry that continues unwinding (what `resume` is).
pub const RESUME: &str = "_Unwind_Resume";

/// Replaces the values of `map` everywhere in `f`, in one pass.
fn substitute(f: &mut Function, map: &FxHashMap<Value, Value>) {
    if map.is_empty() {
        return;
    }
    let resolve = |mut v: Value| {
        while let Some(&n) = map.get(&v) {
            v = n;
        }
        v
    };
    let insts: Vec<Inst> = f
        .layout
        .blocks()
        .flat_map(|b| f.layout.block_insts(b))
        .collect();
    for inst in insts {
        f.dfg.map_inst_values(inst, resolve);
    }
}

/// `invoke`s to `try_call`s and `brif`s, landing pads to parameters, `resume` to a
/// call of `_Unwind_Resume` (see the module documentation).
pub fn invokes_to_try_calls(f: &mut Function) {
    let mut map: FxHashMap<Value, Value> = FxHashMap::default();
    // landing blocks: the landing pad's results become two parameters
    let mut catches: FxHashMap<Block, bool> = FxHashMap::default();
    let blocks: Vec<Block> = f.layout.blocks().collect();
    for &b in &blocks {
        let Some(first) = f.layout.first_inst(b) else {
            continue;
        };
        let op = f.dfg.opcode(first);
        if !op.is_landing_pad() {
            continue;
        }
        catches.insert(b, op == Opcode::CatchLandingPad);
        let results = f.dfg.inst_results(first).to_vec();
        let e = f.dfg.append_block_param(b, Type::Ptr);
        let s = f.dfg.append_block_param(b, Type::I32);
        map.insert(results[0], e);
        map.insert(results[1], s);
        f.layout.remove_inst(first);
    }
    let mut resume_ref = None;
    for &b in &blocks {
        let Some(term) = f.layout.last_inst(b) else {
            continue;
        };
        let data = f.dfg.inst_data(term).clone();
        let (call, blocks) = match data {
            InstructionData::Invoke {
                func, args, blocks, ..
            } => {
                let catch = catches.get(&blocks[1].block).copied().unwrap_or(false);
                let opcode = if catch {
                    Opcode::CatchCall
                } else {
                    Opcode::TryCall
                };
                (InstructionData::Call { opcode, func, args }, blocks)
            }
            InstructionData::InvokeIndirect {
                sig, args, blocks, ..
            } => {
                let catch = catches.get(&blocks[1].block).copied().unwrap_or(false);
                let opcode = if catch {
                    Opcode::CatchCallIndirect
                } else {
                    Opcode::TryCallIndirect
                };
                (InstructionData::CallIndirect { opcode, sig, args }, blocks)
            }
            InstructionData::Unary {
                opcode: Opcode::Resume,
                arg,
            } => {
                // a call that unwinds on from this frame, then nothing
                let fref = *resume_ref.get_or_insert_with(|| {
                    f.import_function(RESUME, Signature::new(&[Type::Ptr], &[]))
                });
                let call = f.dfg.make_inst(InstructionData::Call {
                    opcode: Opcode::Call,
                    func: fref,
                    args: vec![arg],
                });
                f.layout.insert_inst_before(call, term);
                f.srclocs[call] = f.srclocs[term];
                f.dfg.replace_inst(
                    term,
                    InstructionData::Nullary {
                        opcode: Opcode::Unreachable,
                    },
                );
                continue;
            }
            _ => continue,
        };
        let [normal, unwind] = blocks;
        let types = vliw_ir::typing::result_types(f, &call, None, &|_| None).unwrap_or_default();
        let inst = f.dfg.make_inst(call);
        f.dfg.make_inst_results(inst, &types);
        f.layout.insert_inst_before(inst, term);
        f.srclocs[inst] = f.srclocs[term];
        let results = f.dfg.inst_results(inst).to_vec();
        let n = results.len();
        for (old, new) in f.dfg.detach_results(term).into_iter().zip(&results) {
            map.insert(old, *new);
        }
        let (unwound, exception, selector) = (results[n - 3], results[n - 2], results[n - 1]);
        let mut pad_args = unwind.args.clone();
        pad_args.extend([exception, selector]);
        f.dfg.replace_inst(
            term,
            InstructionData::Brif {
                opcode: Opcode::Brif,
                arg: unwound,
                blocks: [
                    BlockCall::new(unwind.block, &pad_args),
                    BlockCall::new(normal.block, &normal.args),
                ],
            },
        );
    }
    substitute(f, &map);
}

/// Declares `_Unwind_Resume` in `module` if a function calls it (what `resume` became)
/// and the module neither defines nor declares it.
pub fn declare_resume(module: &mut vliw_ir::Module) {
    let called = module
        .functions
        .iter()
        .any(|f| f.ext_funcs.values().any(|e| e.name == RESUME));
    let known = module.functions.iter().any(|f| f.name == RESUME)
        || module.func_decls.iter().any(|d| d.name == RESUME);
    if called && !known {
        module.func_decls.push(vliw_ir::module::FuncDecl {
            name: RESUME.to_string(),
            signature: Signature::new(&[Type::Ptr], &[]),
        });
    }
}

/// Forms the invokes again after sequentialization: every `try_call` ends its block
/// (see the module documentation). `personality` must be set on a function that had
/// landing pads; the error says what is malformed.
pub fn try_calls_to_invokes(f: &mut Function) -> Result<usize, String> {
    let mut formed = 0;
    let mut map: FxHashMap<Value, Value> = FxHashMap::default();
    let mut work: Vec<Block> = f.layout.blocks().collect();
    while let Some(b) = work.pop() {
        let Some(call) = f
            .layout
            .block_insts(b)
            .find(|&i| f.dfg.opcode(i).is_try_call())
        else {
            continue;
        };
        let op = f.dfg.opcode(call);
        let catch = op.try_call_catches();
        // what follows the call moves to a block of its own, which both paths enter
        let rest = f.dfg.make_block();
        f.layout.insert_block_after(rest, b);
        let tail: Vec<Inst> = {
            let mut v = Vec::new();
            let mut i = f.layout.next_inst(call);
            while let Some(x) = i {
                v.push(x);
                i = f.layout.next_inst(x);
            }
            v
        };
        for &i in &tail {
            f.layout.remove_inst(i);
            f.layout.append_inst(i, rest);
        }
        // its parameters: the call's results, then the three of the outcome
        let old = f.dfg.detach_results(call);
        let types: Vec<Type> = old.iter().map(|&v| f.dfg.value_type(v)).collect();
        let params: Vec<Value> = types
            .iter()
            .map(|&t| f.dfg.append_block_param(rest, t))
            .collect();
        for (&o, &p) in old.iter().zip(&params) {
            map.insert(o, p);
        }
        let nrets = types.len() - 3;
        let normal = f.dfg.make_block();
        let pad = f.dfg.make_block();
        f.layout.insert_block_after(normal, b);
        f.layout.append_block(pad);
        // the call becomes the invoke that ends its block
        let data = f.dfg.inst_data(call).clone();
        let dests = [BlockCall::new(normal, &[]), BlockCall::new(pad, &[])];
        let invoke = match data {
            InstructionData::Call { func, args, .. } => InstructionData::Invoke {
                opcode: Opcode::Invoke,
                func,
                args,
                blocks: dests,
            },
            InstructionData::CallIndirect { sig, args, .. } => InstructionData::InvokeIndirect {
                opcode: Opcode::InvokeIndirect,
                sig,
                args,
                blocks: dests,
            },
            other => return Err(format!("`{}` is not a call", other.opcode())),
        };
        f.dfg.replace_inst(call, invoke);
        f.dfg.make_inst_results(call, &types[..nrets]);
        let rets = f.dfg.inst_results(call).to_vec();
        let loc = f.srclocs[call];
        // normal: the results, not unwound
        let mut args = rets.clone();
        args.push(constant(f, normal, Type::I1, 0, loc));
        args.push(constant(f, normal, Type::Ptr, 0, loc));
        args.push(constant(f, normal, Type::I32, 0, loc));
        jump(f, normal, rest, &args, loc);
        // unwind: undefined results, unwound, the exception and selector
        let lp = f.dfg.make_inst(InstructionData::Nullary {
            opcode: if catch {
                Opcode::CatchLandingPad
            } else {
                Opcode::LandingPad
            },
        });
        f.dfg.make_inst_results(lp, &[Type::Ptr, Type::I32]);
        f.layout.append_inst(lp, pad);
        f.srclocs[lp] = loc;
        let (e, s) = (f.dfg.inst_results(lp)[0], f.dfg.inst_results(lp)[1]);
        let mut args: Vec<Value> = types[..nrets]
            .iter()
            .map(|&t| {
                let u = f.dfg.make_inst(InstructionData::Nullary {
                    opcode: Opcode::Undef,
                });
                f.dfg.make_inst_results(u, &[t]);
                f.layout.append_inst(u, pad);
                f.dfg.inst_results(u)[0]
            })
            .collect();
        args.push(constant(f, pad, Type::I1, 1, loc));
        args.extend([e, s]);
        jump(f, pad, rest, &args, loc);
        formed += 1;
        // the rest may hold more
        work.push(rest);
    }
    substitute(f, &map);
    Ok(formed)
}

fn constant(
    f: &mut Function,
    block: Block,
    ty: Type,
    value: u128,
    loc: vliw_ir::SourceLoc,
) -> Value {
    let inst = f.dfg.make_inst(InstructionData::UnaryImm {
        opcode: Opcode::Iconst,
        imm: value,
    });
    f.dfg.make_inst_results(inst, &[ty]);
    f.layout.append_inst(inst, block);
    f.srclocs[inst] = loc;
    f.dfg.inst_results(inst)[0]
}

fn jump(f: &mut Function, from: Block, to: Block, args: &[Value], loc: vliw_ir::SourceLoc) {
    let inst = f.dfg.make_inst(InstructionData::Jump {
        opcode: Opcode::Jump,
        dest: BlockCall::new(to, args),
    });
    f.layout.append_inst(inst, from);
    f.srclocs[inst] = loc;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_graph;

    /// A λ `name` (with `attrs` after its signature) that calls each of `callees`,
    /// a callee written `@x nounwind` declared so.
    fn lambda(name: &str, attrs: &str, callees: &[&str]) -> String {
        let mut s = format!("lambda @{name}(){attrs} {{\n");
        for (i, c) in callees.iter().enumerate() {
            match c.split_once(' ') {
                Some((c, flag)) => s += &format!("    fn{i} = @{c}() {flag}\n"),
                None => s += &format!("    fn{i} = @{c}()\n"),
            }
        }
        s += "  (a0: mem, a1: io):\n";
        let (mut mem, mut io) = ("a0".to_string(), "a1".to_string());
        for i in 0..callees.len() {
            s += &format!("    n{i} = call fn{i} {mem}, {io} : mem, io\n");
            (mem, io) = (format!("n{i}.0"), format!("n{i}.1"));
        }
        s + &format!("    -> ({mem}, {io})\n}}\n")
    }

    #[test]
    fn recursion_alone_does_not_unwind_and_an_outside_call_does_through_callers() {
        let text = [
            lambda("leaf", "", &[]),
            lambda("self_recursive", "", &["self_recursive", "leaf"]),
            lambda("even", "", &["odd"]),
            lambda("odd", "", &["even", "quiet nounwind"]),
            lambda("loud", "", &["outside"]),
            lambda("caller_of_loud", "", &["leaf", "loud"]),
            lambda("cycle_a", "", &["cycle_b"]),
            lambda("cycle_b", "", &["cycle_a", "caller_of_loud"]),
            lambda("replaceable", " weak", &["leaf"]),
            lambda("caller_of_weak", "", &["replaceable"]),
        ]
        .concat();
        let g = parse_graph(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let may = MayUnwind::of(&g);
        for (name, expected) in [
            ("leaf", false),
            ("self_recursive", false),
            ("even", false),
            ("odd", false),
            ("loud", true),
            ("caller_of_loud", true),
            ("cycle_a", true),
            ("cycle_b", true),
            ("replaceable", true),
            ("caller_of_weak", true),
        ] {
            assert_eq!(may.lambda(name), Some(expected), "{name}");
        }
        assert_eq!(may.lambda("outside"), None);
        // each call by its callee: of `leaf` cannot unwind, of `loud` can, of a
        // `nounwind` declaration cannot, of a function outside the graph can
        let mut seen = 0;
        for l in g.lambdas() {
            let info = g.lambda_info(l);
            for &n in g.nodes(g.lambda_body(l)) {
                let Some(Op::Inst(InstructionData::Call { func, .. })) = g.op(n) else {
                    continue;
                };
                let callee = info.ext_funcs[*func].name.as_str();
                let expected = match callee {
                    "quiet" => false,
                    "outside" => true,
                    other => may.lambda(other).unwrap(),
                };
                assert_eq!(may.call(&g, l, n), expected, "{} calls {callee}", info.name);
                seen += 1;
            }
        }
        assert_eq!(seen, 13);
    }
}
