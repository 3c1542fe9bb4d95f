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

/// The IR of [`example`]: a three-way switch (one way traps), a loop through a stack
/// slot, a call.
pub(crate) const EXAMPLE_IR: &str = "
function @twice(i64) -> i64 {
block0(v0: i64):
    v1 = iadd v0, v0
    return v1
}

function @f(i32, ptr) -> i64 {
    ss0 = stack_slot 8, align 8
    fn0 = @twice(i64) -> i64
block0(v0: i32, v1: ptr):
    switch v0, block3, [0 -> block1, 1 -> block2]
block1:
    v2 = iconst.i32 10
    v3 = iadd v0, v2
    jump block4(v3)
block2:
    v4 = imul v0, v0
    jump block4(v4)
block3:
    trap 7
block4(v5: i32):
    v6 = iconst.i32 0
    jump block5(v5, v6)
block5(v7: i32, v8: i32):
    v9 = iadd v8, v7
    v10 = iconst.i32 1
    v11 = isub v7, v10
    v12 = stack_addr ss0
    store v9, v12
    v13 = icmp sgt v11, v6
    brif v13, block5(v11, v9), block6
block6:
    v14 = stack_addr ss0
    v15 = load.i32 v14
    v16 = sextend.i64 v15
    v17 = call fn0(v16)
    return v17
}
";

/// [`EXAMPLE_IR`] as an RVSDG, built by hand: every kind of node, a γ of three arms
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
    let mem = store(&mut g, body, 1, acc, slot, v[2]);
    let zero_in = iconst(&mut g, body, I32, 0);
    let more = icmp(&mut g, body, IntCC::Sgt, i, zero_in);
    let pred = predicate(&mut g, body, more);
    g.set_theta_predicate(theta, pred);
    g.set_result(body, 1, i);
    g.set_result(body, 2, acc);
    g.set_result(body, 3, mem);
    let mem = Origin::Out(theta, 2);
    let io = Origin::Out(theta, 3);
    // after the loop: twice(sextend(*ss0))
    let slot = stack_addr(&mut g, f.body, ss0);
    let (x, mem) = load(&mut g, f.body, I32, 1, slot, mem);
    let ext = InstructionData::Unary {
        opcode: Opcode::Sextend,
        arg: v0(),
    };
    let ext = inst(&mut g, f.body, ext, &[x], &[Ty::Val(I64)]);
    let (r, mem, io) = call(&mut g, f.body, fn0, &[Origin::Out(ext, 0)], &[I64], mem, io);
    finish(&mut g, &f, &r, mem, io);
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

pub(crate) fn symbol_addr(g: &mut Rvsdg, r: Region, global: vliw_ir::GlobalRef) -> Origin {
    let data = InstructionData::SymbolAddr {
        opcode: Opcode::SymbolAddr,
        global,
        offset: 0,
    };
    Origin::Out(inst(g, r, data, &[], &[Ty::Val(Type::Ptr)]), 0)
}

/// `load.ty align` at `addr`: the value and the memory state after.
pub(crate) fn load(
    g: &mut Rvsdg,
    r: Region,
    ty: Type,
    align: u32,
    addr: Origin,
    mem: Origin,
) -> (Origin, Origin) {
    let data = InstructionData::Load {
        opcode: Opcode::Load,
        flags: vliw_ir::MemFlags::aligned(align),
        arg: v0(),
        offset: 0,
    };
    let n = inst(g, r, data, &[addr, mem], &[Ty::Val(ty), Ty::Mem]);
    (Origin::Out(n, 0), Origin::Out(n, 1))
}

/// `store align` of `v` at `addr`: the memory state after.
pub(crate) fn store(
    g: &mut Rvsdg,
    r: Region,
    align: u32,
    v: Origin,
    addr: Origin,
    mem: Origin,
) -> Origin {
    let data = InstructionData::Store {
        opcode: Opcode::Store,
        flags: vliw_ir::MemFlags::aligned(align),
        args: [v0(), v0()],
        offset: 0,
    };
    Origin::Out(inst(g, r, data, &[v, addr, mem], &[Ty::Mem]), 0)
}

/// `call fnN(args)` returning `returns`: the results, then the states after.
pub(crate) fn call(
    g: &mut Rvsdg,
    r: Region,
    func: vliw_ir::FuncRef,
    args: &[Origin],
    returns: &[Type],
    mem: Origin,
    io: Origin,
) -> (Vec<Origin>, Origin, Origin) {
    let data = InstructionData::Call {
        opcode: Opcode::Call,
        func,
        args: vec![v0(); args.len()],
    };
    let mut inputs = args.to_vec();
    inputs.extend([mem, io]);
    let mut outputs: Vec<Ty> = returns.iter().map(|&t| Ty::Val(t)).collect();
    outputs.extend([Ty::Mem, Ty::Io]);
    let n = inst(g, r, data, &inputs, &outputs);
    let k = returns.len() as u32;
    let results = (0..k).map(|i| Origin::Out(n, i)).collect();
    (results, Origin::Out(n, k), Origin::Out(n, k + 1))
}
