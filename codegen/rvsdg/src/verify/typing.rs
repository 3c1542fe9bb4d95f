//! The typing rules of the compiler's operations ([`Op`]), on a structurally sound
//! graph:
//! - a λ's body takes its signature's parameters then `mem`, `io`, and gives its
//!   returns then `mem`, `io`; λ names are unique (calls name their callee);
//! - an IR operation (`Op::Inst`, `Op::SafeDiv`) is typed as the SSA IR types its
//!   instruction (`vliw_ir::typing`: the same result types and operand rules), its
//!   value inputs and outputs followed by the states of [`Op::states`] (`trap` gives
//!   none back); the references it names (`fnN sigN gvN ssN`) exist in the enclosing
//!   λ's shell; its data has its operands cleared (`v0`), and it is not control flow
//!   (branches, `return` and `unreachable` are γ, θ and λ results);
//! - `match` reads one integer and gives `ctl(alts)`, its cases distinct, fitting the
//!   integer, and naming alternatives below `alts`; a control constant names one.

use rustc_hash::{FxHashMap, FxHashSet};
use vliw_ir::typing::{operand_types, result_types_of};
use vliw_ir::{Function, InstructionData, Opcode, Value};

use super::{Report, Rule};
use crate::graph::{Node, Region};
use crate::ops::{Op, Ty};

/// Type the nodes of `regions` (and the λs whose bodies they are), and check that λ
/// names are unique.
pub(super) fn check(report: &mut Report<'_, Op>, regions: &[Region]) {
    let g = report.g;
    let mut names: FxHashMap<&str, Node> = FxHashMap::default();
    for lambda in g.lambdas() {
        let func = g.lambda_info(lambda);
        if let Some(&first) = names.get(func.name.as_str()) {
            report.node(
                lambda,
                Rule::Reference,
                format!("a second λ named @{} (the first is {first})", func.name),
            );
        } else {
            names.insert(&func.name, lambda);
        }
    }
    for &r in regions {
        let Some(lambda) = g.enclosing_lambda(r) else {
            continue; // the root
        };
        let func = g.lambda_info(lambda);
        if g.lambda_body(lambda) == r {
            signature(report, lambda, func);
        }
        for &n in g.nodes(r) {
            if let Some(op) = g.op(n) {
                simple(report, n, op, func);
            }
        }
    }
}

/// The λ's body against its signature.
fn signature(report: &mut Report<'_, Op>, lambda: Node, func: &Function) {
    let g = report.g;
    let body = g.lambda_body(lambda);
    let sig = &func.signature;
    let with_states = |types: &[vliw_ir::Type]| -> Vec<Ty> {
        types
            .iter()
            .map(|&t| Ty::Val(t))
            .chain([Ty::Mem, Ty::Io])
            .collect()
    };
    let args: Vec<Ty> = g.args(body).iter().map(|p| p.ty).collect();
    let want = with_states(&sig.params);
    if args != want {
        report.node(
            lambda,
            Rule::Arity,
            format!(
                "the body takes ({}), the signature {sig} needs ({})",
                list(&args),
                list(&want)
            ),
        );
    }
    let results: Vec<Ty> = g.results(body).iter().map(|&o| g.ty(o)).collect();
    let want = with_states(&sig.returns);
    if results != want {
        report.node(
            lambda,
            Rule::Arity,
            format!(
                "the body gives ({}), the signature {sig} needs ({})",
                list(&results),
                list(&want)
            ),
        );
    }
}

fn simple(report: &mut Report<'_, Op>, n: Node, op: &Op, func: &Function) {
    let g = report.g;
    match op {
        Op::Inst(data) => inst(report, n, op, data, func),
        Op::SafeDiv(opcode) => {
            if !matches!(
                opcode,
                Opcode::Udiv | Opcode::Sdiv | Opcode::Urem | Opcode::Srem
            ) {
                return report.node(
                    n,
                    Rule::Typing,
                    format!("{opcode} marked safe: only udiv, sdiv, urem, srem can be"),
                );
            }
            let v0 = Value::from_u32(0);
            let data = op.to_inst(&[v0, v0]).expect("a division has two operands");
            inst(report, n, op, &data, func);
        }
        Op::Match {
            cases,
            default,
            alts,
        } => {
            let operand = match *g.inputs(n) {
                [o] => g.ty(o),
                ref inputs => {
                    return report.node(
                        n,
                        Rule::Typing,
                        format!("{} inputs, expected one integer", inputs.len()),
                    );
                }
            };
            let Some(ty) = operand.value().filter(|t| t.is_int()) else {
                return report.node(
                    n,
                    Rule::Typing,
                    format!("the operand has type {operand}, expected an integer"),
                );
            };
            control_output(report, n, *alts);
            if *default >= *alts {
                report.node(
                    n,
                    Rule::Typing,
                    format!("the default is alternative {default} of {alts}"),
                );
            }
            let mut seen = FxHashSet::default();
            for &(value, alt) in cases.iter() {
                let problem = if alt >= *alts {
                    format!("goes to alternative {alt} of {alts}")
                } else if value & !ty.mask() != 0 {
                    format!("does not fit {ty}")
                } else if !seen.insert(value) {
                    "is a duplicate".to_string()
                } else {
                    continue;
                };
                report.node(n, Rule::Typing, format!("case value {value:#x} {problem}"));
            }
        }
        Op::MemSplit(k) | Op::MemJoin(k) => {
            let (ins, outs) = match op {
                Op::MemSplit(_) => (1, *k as usize),
                _ => (*k as usize, 1),
            };
            let inputs: Vec<Ty> = g.inputs(n).iter().map(|&o| g.ty(o)).collect();
            let outputs = g.output_types(n);
            if *k < 2 {
                report.node(n, Rule::Typing, format!("{op}: at least 2 memory states"));
            } else if inputs.len() != ins
                || outputs.len() != outs
                || inputs.iter().chain(&outputs).any(|&t| t != Ty::Mem)
            {
                report.node(
                    n,
                    Rule::Typing,
                    format!(
                        "{op} takes ({}) and gives ({}): expected {ins} mem in, {outs} mem out",
                        list(&inputs),
                        list(&outputs)
                    ),
                );
            }
        }
        Op::Ctl { alt, alts } => {
            if !g.inputs(n).is_empty() {
                report.node(n, Rule::Typing, "a control constant has no input".into());
            }
            control_output(report, n, *alts);
            if alt >= alts {
                report.node(n, Rule::Typing, format!("alternative {alt} of {alts}"));
            }
        }
    }
}

/// A node that gives one control value of `alts` alternatives (at least one).
fn control_output(report: &mut Report<'_, Op>, n: Node, alts: u32) {
    let outputs = report.g.output_types(n);
    if outputs[..] != [Ty::Ctl(alts)] || alts == 0 {
        report.node(
            n,
            Rule::Typing,
            format!(
                "outputs ({}), expected (ctl{alts}) with at least one alternative",
                list(&outputs)
            ),
        );
    }
}

/// An IR operation (`data` with its operands cleared) as node `n` of λ `func`.
fn inst(report: &mut Report<'_, Op>, n: Node, op: &Op, data: &InstructionData, func: &Function) {
    let g = report.g;
    let opcode = data.opcode();
    if opcode.is_terminator() && !matches!(opcode, Opcode::Trap | Opcode::Unreachable) {
        return report.node(
            n,
            Rule::Typing,
            format!("{opcode} is control flow, which γ, θ and λ results express"),
        );
    }
    if data.arguments().iter().any(|&v| v != Value::from_u32(0)) {
        report.node(
            n,
            Rule::Typing,
            "operands not cleared to v0 (the inputs are the operands)".into(),
        );
    }
    let missing = match data {
        InstructionData::Call { func: f, .. } => {
            (!func.ext_funcs.is_valid(*f)).then(|| f.to_string())
        }
        InstructionData::CallIndirect { sig, .. } => {
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
    if let Some(r) = missing {
        return report.node(
            n,
            Rule::Reference,
            format!("{r} is not declared in @{}", func.name),
        );
    }
    // inputs: the operands, then the states
    let states = op.states().types();
    let operands = data.arguments().len();
    let inputs: Vec<Ty> = g.inputs(n).iter().map(|&o| g.ty(o)).collect();
    if inputs.len() != operands + states.len() {
        return report.node(
            n,
            Rule::Typing,
            format!(
                "inputs ({}), expected {operands} operand(s) then the states ({})",
                list(&inputs),
                list(&states)
            ),
        );
    }
    let mut arg_types = Vec::with_capacity(operands);
    for (i, t) in inputs[..operands].iter().enumerate() {
        match t.value() {
            Some(v) => arg_types.push(v),
            None => {
                return report.node(
                    n,
                    Rule::Typing,
                    format!("operand {i} has type {t}, expected a value"),
                );
            }
        }
    }
    if inputs[operands..] != states[..] {
        report.node(
            n,
            Rule::Typing,
            format!(
                "state inputs ({}), expected ({})",
                list(&inputs[operands..]),
                list(&states)
            ),
        );
    }
    // outputs: the results, then the states (but for `trap`, which never completes)
    let outputs = g.output_types(n);
    let ctrl = if opcode.has_type_suffix() {
        outputs.first().and_then(|t| t.value())
    } else {
        None
    };
    match result_types_of(func, data, ctrl, &|i| arg_types.get(i).copied()) {
        None if opcode.has_type_suffix() => report.node(
            n,
            Rule::Typing,
            format!("{opcode} must have one value output, of its type"),
        ),
        None => report.node(n, Rule::Typing, "cannot compute the result types".into()),
        Some(results) => {
            let mut want: Vec<Ty> = results.into_iter().map(Ty::Val).collect();
            want.extend(op.state_outputs().types());
            if outputs[..] != want[..] {
                report.node(
                    n,
                    Rule::Typing,
                    format!("outputs ({}), expected ({})", list(&outputs), list(&want)),
                );
            }
        }
    }
    if let Err(m) = operand_types(func, data, ctrl, &arg_types, &|i| format!("operand {i}")) {
        report.node(n, Rule::Typing, m);
    }
    // only a plain load may be speculative (as the SSA IR's verifier says)
    if let Some(flags) = data.mem_flags()
        && flags.speculative
        && (opcode != vliw_ir::Opcode::Load || flags.volatile)
    {
        report.node(
            n,
            Rule::Typing,
            format!("{opcode} cannot be speculative (only a plain load)"),
        );
    }
}

fn list(types: &[Ty]) -> String {
    types
        .iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
