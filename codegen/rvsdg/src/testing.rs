//! Building small graphs by hand, for the tests of the verifier and the evaluator:
//! λs whose bodies thread `mem` and `io`, and the common operations.

use vliw_ir::{Function, InstructionData, IntCC, Linkage, Opcode, Signature, Type, Value};

use crate::graph::{Node, Origin, Region};
use crate::ops::{Op, Rvsdg, Ty};

/// A λ under construction: its body, parameters and states.
pub(crate) struct Lambda {
    pub node: Node,
    pub body: Region,
    pub params: Vec<Origin>,
    pub mem: Origin,
    pub io: Origin,
}

/// A λ `name` of the given signature (its body without results yet).
pub(crate) fn lambda(g: &mut Rvsdg, name: &str, params: &[Type], returns: &[Type]) -> Lambda {
    let func = Function::new(name, Signature::new(params, returns), Linkage::Export);
    lambda_of(g, func)
}

/// A λ of shell `func` (its body without results yet).
pub(crate) fn lambda_of(g: &mut Rvsdg, func: Function) -> Lambda {
    let mut types: Vec<Ty> = func.signature.params.iter().map(|&t| Ty::Val(t)).collect();
    types.extend([Ty::Mem, Ty::Io]);
    let node = g.add_lambda(func, &types);
    let body = g.lambda_body(node);
    let args: Vec<Origin> = g.arg_origins(body).collect();
    let k = args.len() - 2;
    Lambda {
        node,
        body,
        params: args[..k].to_vec(),
        mem: args[k],
        io: args[k + 1],
    }
}

/// Give the λ's body its results: `returns`, then the states.
pub(crate) fn finish(g: &mut Rvsdg, l: &Lambda, returns: &[Origin], mem: Origin, io: Origin) {
    for &o in returns.iter().chain([&mem, &io]) {
        g.add_result(l.body, o);
    }
}

/// An operand of an instruction as an RVSDG operation stores it (cleared).
pub(crate) fn v0() -> Value {
    Value::from_u32(0)
}

/// A node of IR instruction `data` (operands cleared) on `inputs`.
pub(crate) fn inst(
    g: &mut Rvsdg,
    r: Region,
    data: InstructionData,
    inputs: &[Origin],
    outputs: &[Ty],
) -> Node {
    g.add_simple(r, Op::from_inst(&data), inputs, outputs)
}

pub(crate) fn iconst(g: &mut Rvsdg, r: Region, ty: Type, v: i128) -> Origin {
    let data = InstructionData::UnaryImm {
        opcode: Opcode::Iconst,
        imm: v as u128 & ty.mask(),
    };
    Origin::Out(inst(g, r, data, &[], &[Ty::Val(ty)]), 0)
}

/// A binary operation without states, of the type of `a`.
pub(crate) fn binary(g: &mut Rvsdg, r: Region, opcode: Opcode, a: Origin, b: Origin) -> Origin {
    let ty = g.ty(a);
    let data = InstructionData::Binary {
        opcode,
        args: [v0(), v0()],
    };
    Origin::Out(inst(g, r, data, &[a, b], &[ty]), 0)
}

pub(crate) fn icmp(g: &mut Rvsdg, r: Region, cond: IntCC, a: Origin, b: Origin) -> Origin {
    let data = InstructionData::IntCompare {
        opcode: Opcode::Icmp,
        cond,
        args: [v0(), v0()],
    };
    Origin::Out(inst(g, r, data, &[a, b], &[Ty::Val(Type::I1)]), 0)
}

/// A control value of `alts` alternatives from integer `v`: `cases[i]` goes to
/// alternative `i`, anything else to the last.
pub(crate) fn switch(g: &mut Rvsdg, r: Region, v: Origin, cases: &[u128], alts: u32) -> Origin {
    let op = Op::Match {
        cases: cases
            .iter()
            .enumerate()
            .map(|(i, &c)| (c, i as u32))
            .collect(),
        default: alts - 1,
        alts,
    };
    Origin::Out(g.add_simple(r, op, &[v], &[Ty::Ctl(alts)]), 0)
}

/// The predicate of a two-way γ or a θ from a condition: alternative 1 when true.
pub(crate) fn predicate(g: &mut Rvsdg, r: Region, cond: Origin) -> Origin {
    let op = Op::Match {
        cases: Box::new([(1, 1)]),
        default: 0,
        alts: 2,
    };
    Origin::Out(g.add_simple(r, op, &[cond], &[Ty::Ctl(2)]), 0)
}

/// An RVSDG built by hand: every kind of node, a γ of three arms
/// (one ending in a `trap`), a θ, memory through a stack slot, a call between λs.
pub(crate) fn example() -> Rvsdg {
    use Type::{I32, I64};
    let mut g = Rvsdg::new();
    let twice = lambda(&mut g, "twice", &[I64], &[I64]);
    let p = twice.params[0];
    let r = binary(&mut g, twice.body, Opcode::Iadd, p, p);
    finish(&mut g, &twice, &[r], twice.mem, twice.io);

    let mut shell = Function::new(
        "f",
        Signature::new(&[I32, Type::Ptr], &[I64]),
        Linkage::Export,
    );
    let ss0 = shell.create_stack_slot(8, 8);
    let fn0 = shell.import_function("twice", Signature::new(&[I64], &[I64]));
    let f = lambda_of(&mut g, shell);
    let x = f.params[0];
    // the switch: a γ of three arms on x, the last one trapping
    let sel = switch(&mut g, f.body, x, &[0, 1], 3);
    let gamma = g.add_gamma(f.body, sel, &[x, f.mem, f.io], 3);
    let arms = g.kind(gamma).subregions().to_vec();
    let arm_args = |g: &Rvsdg, k: usize| -> Vec<Origin> { g.arg_origins(arms[k]).collect() };
    let a0 = arm_args(&g, 0);
    let ten = iconst(&mut g, arms[0], I32, 10);
    let y0 = binary(&mut g, arms[0], Opcode::Iadd, a0[0], ten);
    let a1 = arm_args(&g, 1);
    let y1 = binary(&mut g, arms[1], Opcode::Imul, a1[0], a1[0]);
    let a2 = arm_args(&g, 2);
    let trap = InstructionData::Trap {
        opcode: Opcode::Trap,
        code: 7,
    };
    inst(&mut g, arms[2], trap, &[a2[1], a2[2]], &[]);
    let y = g.add_gamma_exit(gamma, &[y0, y1, a2[0]]);
    let mem = g.add_gamma_exit(gamma, &[a0[1], a1[1], a2[1]]);
    let io = g.add_gamma_exit(gamma, &[a0[2], a1[2], a2[2]]);
    // the loop: acc += i; i -= 1; *ss0 = acc; while i > 0
    let zero = iconst(&mut g, f.body, I32, 0);
    let theta = g.add_theta(f.body, &[y, zero, mem, io]);
    let body = g.theta_body(theta);
    let v: Vec<Origin> = g.arg_origins(body).collect();
    let acc = binary(&mut g, body, Opcode::Iadd, v[1], v[0]);
    let one = iconst(&mut g, body, I32, 1);
    let i = binary(&mut g, body, Opcode::Isub, v[0], one);
    let slot = stack_addr(&mut g, body, ss0);
    let store = InstructionData::Store {
        opcode: Opcode::Store,
        flags: vliw_ir::MemFlags::new(),
        args: [v0(), v0()],
        offset: 0,
    };
    let st = inst(&mut g, body, store, &[acc, slot, v[2]], &[Ty::Mem]);
    let zero_in = iconst(&mut g, body, I32, 0);
    let more = icmp(&mut g, body, IntCC::Sgt, i, zero_in);
    let pred = predicate(&mut g, body, more);
    g.set_theta_predicate(theta, pred);
    g.set_result(body, 1, i);
    g.set_result(body, 2, acc);
    g.set_result(body, 3, Origin::Out(st, 0));
    let mem = Origin::Out(theta, 2);
    let io = Origin::Out(theta, 3);
    // after the loop: twice(sextend(*ss0))
    let slot = stack_addr(&mut g, f.body, ss0);
    let load = InstructionData::Load {
        opcode: Opcode::Load,
        flags: vliw_ir::MemFlags::new(),
        arg: v0(),
        offset: 0,
    };
    let ld = inst(&mut g, f.body, load, &[slot, mem], &[Ty::Val(I32), Ty::Mem]);
    let ext = InstructionData::Unary {
        opcode: Opcode::Sextend,
        arg: v0(),
    };
    let ext = inst(&mut g, f.body, ext, &[Origin::Out(ld, 0)], &[Ty::Val(I64)]);
    let call = InstructionData::Call {
        opcode: Opcode::Call,
        func: fn0,
        args: vec![v0()],
    };
    let call = inst(
        &mut g,
        f.body,
        call,
        &[Origin::Out(ext, 0), Origin::Out(ld, 1), io],
        &[Ty::Val(I64), Ty::Mem, Ty::Io],
    );
    finish(
        &mut g,
        &f,
        &[Origin::Out(call, 0)],
        Origin::Out(call, 1),
        Origin::Out(call, 2),
    );
    g
}

pub(crate) fn stack_addr(g: &mut Rvsdg, r: Region, slot: vliw_ir::StackSlot) -> Origin {
    let data = InstructionData::StackAddr {
        opcode: Opcode::StackAddr,
        slot,
        offset: 0,
    };
    Origin::Out(inst(g, r, data, &[], &[Ty::Val(Type::Ptr)]), 0)
}
