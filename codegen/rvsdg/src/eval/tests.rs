//! The evaluator against the SSA IR interpreter: hand-built graphs and the hand-written
//! IR they stand for give the same results and the same traps.

use vliw_ir::interpreter::DATA_BASE;
use vliw_ir::{
    AtomicRmwOp, DataValue, Function, InstructionData, IntCC, Interpreter, Linkage, MemFlags,
    Module, Opcode, Signature, Trap, TrapKind, Type, parse_module, verify_module,
};

use super::Evaluator;
use crate::graph::Origin;
use crate::ops::{Op, Rvsdg, Ty};
use crate::testing::*;
use crate::verify::verify;

use DataValue::{I32 as V32, I64 as V64};
use Type::{I32, I64};

fn module(ir: &str) -> Module {
    let m = parse_module(ir).expect("the IR parses");
    verify_module(&m).expect("the IR verifies");
    m
}

/// A trap's message without the place (which names blocks in the IR, nodes here).
fn what(t: &Trap) -> &str {
    t.message.split(" (in @").next().unwrap_or_default()
}

/// `g` verifies, and each call gives on it what the interpreter gives on `ir`.
#[track_caller]
fn same(ir: &str, g: &Rvsdg, calls: &[(&str, &[DataValue])]) {
    if let Err(e) = verify(g) {
        panic!("{}", e[0]);
    }
    let m = module(ir);
    for &(name, args) in calls {
        let mut interp = Interpreter::new(&m);
        interp.set_step_limit(100_000);
        let mut ev = Evaluator::new(g, &m);
        ev.set_step_limit(100_000);
        match (interp.call(name, args), ev.call(name, args)) {
            (Ok(want), Ok(got)) => assert_eq!(want, got, "@{name}{args:?}"),
            (Err(want), Err(got)) => {
                assert_eq!(want.kind, got.kind, "@{name}{args:?}: {want} / {got}");
                assert_eq!(what(&want), what(&got), "@{name}{args:?}");
            }
            (want, got) => {
                panic!("@{name}{args:?}: the interpreter gives {want:?}, the evaluator {got:?}")
            }
        }
    }
}

/// A λ of shell `name(params) -> returns` whose shell `edit` extends.
fn lambda_with(
    g: &mut Rvsdg,
    name: &str,
    params: &[Type],
    returns: &[Type],
    edit: impl FnOnce(&mut Function),
) -> Lambda {
    let mut shell = Function::new(name, Signature::new(params, returns), Linkage::Export);
    edit(&mut shell);
    lambda_of(g, shell)
}

#[test]
fn the_example() {
    let g = example();
    let p = DataValue::Ptr(0);
    same(
        EXAMPLE_IR,
        &g,
        &[
            ("f", &[V32(0), p]),
            ("f", &[V32(1), p]),
            ("f", &[V32(5), p]),
            ("f", &[V32(-20), p]),
            ("f", &[V32(2), p]),
            ("f", &[V32(7), p]),
            ("twice", &[V64(21)]),
            ("f", &[V64(0)]),
        ],
    );
    let m = module(EXAMPLE_IR);
    let mut ev = Evaluator::new(&g, &m);
    // 10 + ... + 1, doubled
    assert_eq!(ev.call("f", &[V32(0), p]), Ok(vec![V64(110)]));
    let trap = ev.call("f", &[V32(5), p]).unwrap_err();
    assert_eq!(trap.kind, TrapKind::User(7));
    assert!(trap.message.starts_with("trap 7 (in @f, n"), "{trap}");
    // too small a stack for the slot of @f
    let mut interp = Interpreter::new(&m);
    interp.set_stack_size(4);
    ev.set_stack_size(4);
    let want = interp.call("f", &[V32(0), p]).unwrap_err();
    let got = ev.call("f", &[V32(0), p]).unwrap_err();
    assert_eq!((want.kind, what(&want)), (got.kind, what(&got)));
    assert_eq!(got.message, "stack memory exhausted");
}

#[test]
fn a_graph_it_cannot_run_is_malformed() {
    // a cycle: the sum reads itself
    let mut g = Rvsdg::new();
    let f = lambda(&mut g, "f", &[I32], &[I32]);
    let sum = binary(&mut g, f.body, Opcode::Iadd, f.params[0], f.params[0]);
    g.set_input(g.producer(sum).unwrap(), 1, sum);
    finish(&mut g, &f, &[sum], f.mem, f.io);
    let m = Module::new();
    let trap = Evaluator::new(&g, &m).call("f", &[V32(1)]).unwrap_err();
    assert_eq!(trap.kind, TrapKind::Malformed);
    assert!(trap.message.contains("has a cycle"), "{trap}");
}

#[test]
fn a_gamma_of_two_arms() {
    let ir = "
function @max(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2 = icmp sgt v0, v1
    brif v2, block1, block2
block1:
    return v0
block2:
    return v1
}";
    let mut g = Rvsdg::new();
    let f = lambda(&mut g, "max", &[I32, I32], &[I32]);
    let (a, b) = (f.params[0], f.params[1]);
    let c = icmp(&mut g, f.body, IntCC::Sgt, a, b);
    let p = predicate(&mut g, f.body, c);
    let gamma = g.add_gamma(f.body, p, &[a, b], 2);
    let arms = g.kind(gamma).subregions().to_vec();
    let max = g.add_gamma_exit(gamma, &[Origin::Arg(arms[0], 1), Origin::Arg(arms[1], 0)]);
    finish(&mut g, &f, &[max], f.mem, f.io);
    same(
        ir,
        &g,
        &[
            ("max", &[V32(3), V32(9)]),
            ("max", &[V32(9), V32(3)]),
            ("max", &[V32(-1), V32(-1)]),
        ],
    );
}

#[test]
fn a_counting_loop_behind_a_guard() {
    let ir = "
function @fact(i64) -> i64 {
block0(v0: i64):
    v1 = iconst.i64 1
    v2 = iconst.i64 0
    v3 = icmp sgt v0, v2
    brif v3, block1(v0, v1), block2(v1)
block1(v4: i64, v5: i64):
    v6 = imul v5, v4
    v7 = isub v4, v1
    v8 = icmp sgt v7, v2
    brif v8, block1(v7, v6), block2(v6)
block2(v9: i64):
    return v9
}";
    let mut g = Rvsdg::new();
    let f = lambda(&mut g, "fact", &[I64], &[I64]);
    let n = f.params[0];
    let zero = iconst(&mut g, f.body, I64, 0);
    let c = icmp(&mut g, f.body, IntCC::Sgt, n, zero);
    let p = predicate(&mut g, f.body, c);
    let gamma = g.add_gamma(f.body, p, &[n], 2);
    let arms = g.kind(gamma).subregions().to_vec();
    let one = iconst(&mut g, arms[0], I64, 1);
    // the loop: acc *= n; n -= 1; while n > 0
    let init = iconst(&mut g, arms[1], I64, 1);
    let theta = g.add_theta(arms[1], &[Origin::Arg(arms[1], 0), init]);
    let body = g.theta_body(theta);
    let (i, acc) = (Origin::Arg(body, 0), Origin::Arg(body, 1));
    let acc = binary(&mut g, body, Opcode::Imul, acc, i);
    let one_in = iconst(&mut g, body, I64, 1);
    let i = binary(&mut g, body, Opcode::Isub, i, one_in);
    let zero_in = iconst(&mut g, body, I64, 0);
    let more = icmp(&mut g, body, IntCC::Sgt, i, zero_in);
    let p = predicate(&mut g, body, more);
    g.set_theta_predicate(theta, p);
    g.set_result(body, 1, i);
    g.set_result(body, 2, acc);
    let fact = g.add_gamma_exit(gamma, &[one, Origin::Out(theta, 1)]);
    finish(&mut g, &f, &[fact], f.mem, f.io);
    same(
        ir,
        &g,
        &[
            ("fact", &[V64(0)]),
            ("fact", &[V64(1)]),
            ("fact", &[V64(10)]),
            ("fact", &[V64(-3)]),
            ("fact", &[V64(25)]),
        ],
    );
}

#[test]
fn nested_loops() {
    // sum over i in 1..=n of sum over j in 1..=i of j, both loops tail-controlled
    let ir = "
function @tri(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 1
    v2 = iconst.i32 0
    jump block1(v1, v2)
block1(v3: i32, v4: i32):
    jump block2(v1, v4)
block2(v5: i32, v6: i32):
    v7 = iadd v6, v5
    v8 = iadd v5, v1
    v9 = icmp sle v8, v3
    brif v9, block2(v8, v7), block3
block3:
    v10 = iadd v3, v1
    v11 = icmp sle v10, v0
    brif v11, block1(v10, v7), block4
block4:
    return v7
}";
    let mut g = Rvsdg::new();
    let f = lambda(&mut g, "tri", &[I32], &[I32]);
    let one = iconst(&mut g, f.body, I32, 1);
    let zero = iconst(&mut g, f.body, I32, 0);
    let outer = g.add_theta(f.body, &[f.params[0], one, zero]);
    let ob = g.theta_body(outer);
    let (n, i, total) = (Origin::Arg(ob, 0), Origin::Arg(ob, 1), Origin::Arg(ob, 2));
    let one_o = iconst(&mut g, ob, I32, 1);
    let inner = g.add_theta(ob, &[i, one_o, total]);
    let ib = g.theta_body(inner);
    let (ii, j, t) = (Origin::Arg(ib, 0), Origin::Arg(ib, 1), Origin::Arg(ib, 2));
    let t = binary(&mut g, ib, Opcode::Iadd, t, j);
    let one_i = iconst(&mut g, ib, I32, 1);
    let j = binary(&mut g, ib, Opcode::Iadd, j, one_i);
    let more = icmp(&mut g, ib, IntCC::Sle, j, ii);
    let p = predicate(&mut g, ib, more);
    g.set_theta_predicate(inner, p);
    g.set_result(ib, 2, j);
    g.set_result(ib, 3, t);
    let i = binary(&mut g, ob, Opcode::Iadd, i, one_o);
    let more = icmp(&mut g, ob, IntCC::Sle, i, n);
    let p = predicate(&mut g, ob, more);
    g.set_theta_predicate(outer, p);
    g.set_result(ob, 2, i);
    g.set_result(ob, 3, Origin::Out(inner, 2));
    finish(&mut g, &f, &[Origin::Out(outer, 2)], f.mem, f.io);
    same(
        ir,
        &g,
        &[
            ("tri", &[V32(0)]),
            ("tri", &[V32(1)]),
            ("tri", &[V32(4)]),
            ("tri", &[V32(30)]),
        ],
    );
}

/// `@fib` calling itself twice in one arm of a γ, and `@forever` without end.
#[test]
fn recursion_and_the_call_depth() {
    let ir = "
function @fib(i64) -> i64 {
    fn0 = @fib(i64) -> i64
block0(v0: i64):
    v1 = iconst.i64 2
    v2 = icmp slt v0, v1
    brif v2, block1, block2
block1:
    return v0
block2:
    v3 = iconst.i64 1
    v4 = isub v0, v3
    v5 = call fn0(v4)
    v6 = isub v0, v1
    v7 = call fn0(v6)
    v8 = iadd v5, v7
    return v8
}

function @forever(i64) -> i64 {
    fn0 = @forever(i64) -> i64
block0(v0: i64):
    v1 = call fn0(v0)
    return v1
}";
    let mut g = Rvsdg::new();
    let sig = Signature::new(&[I64], &[I64]);
    let mut fn0 = None;
    let f = lambda_with(&mut g, "fib", &[I64], &[I64], |s| {
        fn0 = Some(s.import_function("fib", sig.clone()))
    });
    let fn0 = fn0.unwrap();
    let n = f.params[0];
    let two = iconst(&mut g, f.body, I64, 2);
    let c = icmp(&mut g, f.body, IntCC::Slt, n, two);
    let p = predicate(&mut g, f.body, c);
    let gamma = g.add_gamma(f.body, p, &[n, f.mem, f.io], 2);
    let arms = g.kind(gamma).subregions().to_vec();
    let a: Vec<Origin> = g.arg_origins(arms[0]).collect();
    let one = iconst(&mut g, arms[0], I64, 1);
    let n1 = binary(&mut g, arms[0], Opcode::Isub, a[0], one);
    let (r1, mem, io) = call(&mut g, arms[0], fn0, &[n1], &[I64], a[1], a[2]);
    let two = iconst(&mut g, arms[0], I64, 2);
    let n2 = binary(&mut g, arms[0], Opcode::Isub, a[0], two);
    let (r2, mem, io) = call(&mut g, arms[0], fn0, &[n2], &[I64], mem, io);
    let sum = binary(&mut g, arms[0], Opcode::Iadd, r1[0], r2[0]);
    let b: Vec<Origin> = g.arg_origins(arms[1]).collect();
    let r = g.add_gamma_exit(gamma, &[sum, b[0]]);
    let mem = g.add_gamma_exit(gamma, &[mem, b[1]]);
    let io = g.add_gamma_exit(gamma, &[io, b[2]]);
    finish(&mut g, &f, &[r], mem, io);

    let mut fn0 = None;
    let f = lambda_with(&mut g, "forever", &[I64], &[I64], |s| {
        fn0 = Some(s.import_function("forever", sig.clone()))
    });
    let (r, mem, io) = call(
        &mut g,
        f.body,
        fn0.unwrap(),
        &[f.params[0]],
        &[I64],
        f.mem,
        f.io,
    );
    finish(&mut g, &f, &r, mem, io);

    same(
        ir,
        &g,
        &[
            ("fib", &[V64(0)]),
            ("fib", &[V64(1)]),
            ("fib", &[V64(15)]),
            ("forever", &[V64(1)]),
        ],
    );
    // fib(n) goes n activations deep, as in the interpreter
    let m = module(ir);
    let mut ev = Evaluator::new(&g, &m);
    ev.set_max_depth(10);
    let mut interp = Interpreter::new(&m);
    interp.set_max_depth(10);
    assert_eq!(ev.call("fib", &[V64(10)]), Ok(vec![V64(55)]));
    assert_eq!(interp.call("fib", &[V64(10)]), Ok(vec![V64(55)]));
    assert!(interp.call("fib", &[V64(11)]).is_err());
    let trap = ev.call("fib", &[V64(11)]).unwrap_err();
    assert_eq!(trap.kind, TrapKind::StackOverflow);
    assert!(
        trap.message.starts_with("call depth over 10 (in @fib"),
        "{trap}"
    );
}

#[test]
fn memory_through_stack_slots_data_and_atomics() {
    let ir = "
data @gdata: data align 8 = { i64 7, i64 0 }

function @mem(i64) -> i64, ptr {
    ss0 = stack_slot 16, align 8
    gv0 = symbol @gdata
block0(v0: i64):
    v1 = stack_addr ss0
    store align 8 v0, v1
    v2 = iconst.i64 8
    v3 = ptradd v1, v2
    memcpy v3, v1, v2
    v4 = symbol_addr gv0
    v5 = atomic_rmw add v4, v0
    v6 = load.i64 v3
    v7 = iadd v6, v5
    v8 = load.i64 v4
    v9 = iadd v7, v8
    return v9, v4
}";
    let mut g = Rvsdg::new();
    let (mut ss0, mut gv0) = (None, None);
    let f = lambda_with(&mut g, "mem", &[I64], &[I64, Type::Ptr], |s| {
        ss0 = Some(s.create_stack_slot(16, 8));
        gv0 = Some(s.import_global("gdata"));
    });
    let (r, x) = (f.body, f.params[0]);
    let slot = stack_addr(&mut g, r, ss0.unwrap());
    let mem = store(&mut g, r, 8, x, slot, f.mem);
    let eight = iconst(&mut g, r, I64, 8);
    let ptradd = InstructionData::Binary {
        opcode: Opcode::Ptradd,
        args: [v0(), v0()],
    };
    let hi = inst(&mut g, r, ptradd, &[slot, eight], &[Ty::Val(Type::Ptr)]);
    let hi = Origin::Out(hi, 0);
    let memcpy = InstructionData::Ternary {
        opcode: Opcode::Memcpy,
        args: [v0(), v0(), v0()],
    };
    let mem = Origin::Out(
        inst(&mut g, r, memcpy, &[hi, slot, eight, mem], &[Ty::Mem]),
        0,
    );
    let global = symbol_addr(&mut g, r, gv0.unwrap());
    let rmw = InstructionData::AtomicRmw {
        opcode: Opcode::AtomicRmw,
        flags: MemFlags::new(),
        op: AtomicRmwOp::Add,
        args: [v0(), v0()],
    };
    let rmw = inst(
        &mut g,
        r,
        rmw,
        &[global, x, mem, f.io],
        &[Ty::Val(I64), Ty::Mem, Ty::Io],
    );
    let (copy, mem) = load(&mut g, r, I64, 1, hi, Origin::Out(rmw, 1));
    let sum = binary(&mut g, r, Opcode::Iadd, copy, Origin::Out(rmw, 0));
    let (now, mem) = load(&mut g, r, I64, 1, global, mem);
    let sum = binary(&mut g, r, Opcode::Iadd, sum, now);
    finish(&mut g, &f, &[sum, global], mem, Origin::Out(rmw, 2));
    same(ir, &g, &[("mem", &[V64(5)]), ("mem", &[V64(-7)])]);
    // the address of the data object is the interpreter's
    let m = module(ir);
    let mut ev = Evaluator::new(&g, &m);
    assert_eq!(
        ev.call("mem", &[V64(1)]),
        Ok(vec![V64(16), DataValue::Ptr(DATA_BASE)])
    );
}

#[test]
fn traps_of_divisions_and_accesses() {
    let ir = "
function @div(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2 = sdiv v0, v1
    return v2
}

function @peek(ptr) -> i32 {
block0(v0: ptr):
    v1 = load.i32 align 4 v0
    return v1
}";
    let mut g = Rvsdg::new();
    let f = lambda(&mut g, "div", &[I32, I32], &[I32]);
    let sdiv = InstructionData::Binary {
        opcode: Opcode::Sdiv,
        args: [v0(), v0()],
    };
    let q = inst(
        &mut g,
        f.body,
        sdiv,
        &[f.params[0], f.params[1], f.io],
        &[Ty::Val(I32), Ty::Io],
    );
    finish(&mut g, &f, &[Origin::Out(q, 0)], f.mem, Origin::Out(q, 1));
    let f = lambda(&mut g, "peek", &[Type::Ptr], &[I32]);
    let (v, mem) = load(&mut g, f.body, I32, 4, f.params[0], f.mem);
    finish(&mut g, &f, &[v], mem, f.io);
    let p = |a: u64| [DataValue::Ptr(a)];
    same(
        ir,
        &g,
        &[
            ("div", &[V32(7), V32(2)]),
            ("div", &[V32(-7), V32(2)]),
            ("div", &[V32(7), V32(0)]),
            ("div", &[V32(i32::MIN), V32(-1)]),
            ("peek", &p(0)),
            ("peek", &p(DATA_BASE + 2)),
            ("peek", &p(0x6fff_fff0)),
            ("nowhere", &[]),
        ],
    );
}

#[test]
fn a_safe_division_has_no_state_but_still_traps_if_wrong() {
    let ir = "
function @div(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2 = udiv v0, v1
    return v2
}";
    let mut g = Rvsdg::new();
    let f = lambda(&mut g, "div", &[I32, I32], &[I32]);
    let q = g.add_simple(
        f.body,
        Op::SafeDiv(Opcode::Udiv),
        &[f.params[0], f.params[1]],
        &[Ty::Val(I32)],
    );
    finish(&mut g, &f, &[Origin::Out(q, 0)], f.mem, f.io);
    same(
        ir,
        &g,
        &[("div", &[V32(-1), V32(3)]), ("div", &[V32(1), V32(0)])],
    );
}

#[test]
fn the_step_limit() {
    let ir = "
function @spin() {
block0:
    jump block1
block1:
    jump block1
}";
    // a θ without loop variables, whose predicate is always "again"
    let mut g = Rvsdg::new();
    let f = lambda(&mut g, "spin", &[], &[]);
    let theta = g.add_theta(f.body, &[]);
    let body = g.theta_body(theta);
    let again = g.add_simple(body, Op::Ctl { alt: 1, alts: 2 }, &[], &[Ty::Ctl(2)]);
    g.set_theta_predicate(theta, Origin::Out(again, 0));
    finish(&mut g, &f, &[], f.mem, f.io);
    same(ir, &g, &[("spin", &[])]);
}

#[test]
fn host_functions_and_indirect_calls() {
    let ir = "
declare function @triple(i64) -> i64

function @add(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2 = iadd v0, v1
    return v2
}

function @both(i64, i32) -> i64, i32 {
    fn0 = @triple(i64) -> i64
    sig0 = (i32, i32) -> i32
    gv0 = symbol @add
block0(v0: i64, v1: i32):
    v2 = call fn0(v0)
    v3 = symbol_addr gv0
    v4 = call_indirect sig0, v3(v1, v1)
    return v2, v4
}";
    let mut g = Rvsdg::new();
    let f = lambda(&mut g, "add", &[I32, I32], &[I32]);
    let s = binary(&mut g, f.body, Opcode::Iadd, f.params[0], f.params[1]);
    finish(&mut g, &f, &[s], f.mem, f.io);
    let pair = Signature::new(&[I32, I32], &[I32]);
    let (mut fn0, mut sig0, mut gv0) = (None, None, None);
    let f = lambda_with(&mut g, "both", &[I64, I32], &[I64, I32], |s| {
        fn0 = Some(s.import_function("triple", Signature::new(&[I64], &[I64])));
        sig0 = Some(s.import_signature(pair));
        gv0 = Some(s.import_global("add"));
    });
    let (r, mem, io) = call(
        &mut g,
        f.body,
        fn0.unwrap(),
        &[f.params[0]],
        &[I64],
        f.mem,
        f.io,
    );
    let callee = symbol_addr(&mut g, f.body, gv0.unwrap());
    let indirect = InstructionData::CallIndirect {
        opcode: Opcode::CallIndirect,
        sig: sig0.unwrap(),
        args: vec![v0(); 3],
    };
    let n = inst(
        &mut g,
        f.body,
        indirect,
        &[callee, f.params[1], f.params[1], mem, io],
        &[Ty::Val(I32), Ty::Mem, Ty::Io],
    );
    finish(
        &mut g,
        &f,
        &[r[0], Origin::Out(n, 0)],
        Origin::Out(n, 1),
        Origin::Out(n, 2),
    );
    verify(&g).unwrap();
    let m = module(ir);
    let triple = |_: &mut vliw_ir::Memory, a: &[DataValue]| match a {
        [V64(x)] => Ok(vec![V64(3 * x)]),
        _ => Ok(vec![V32(0)]),
    };
    let mut interp = Interpreter::new(&m);
    interp.add_host("triple", triple);
    let mut ev = Evaluator::new(&g, &m);
    ev.add_host("triple", triple);
    let args = [V64(5), V32(21)];
    assert_eq!(ev.call("both", &args), Ok(vec![V64(15), V32(42)]));
    assert_eq!(ev.call("both", &args), interp.call("both", &args));
    assert_eq!(ev.call("triple", &[V64(2)]), Ok(vec![V64(6)]));
    // a host function that returns the wrong types, and no host function at all
    let mut interp = Interpreter::new(&m);
    interp.add_host("triple", |_, _| Ok(vec![]));
    let mut ev = Evaluator::new(&g, &m);
    ev.add_host("triple", |_, _| Ok(vec![]));
    let want = interp.call("both", &args).unwrap_err();
    let got = ev.call("both", &args).unwrap_err();
    assert_eq!((want.kind, what(&want)), (got.kind, what(&got)));
    assert_eq!(got.kind, TrapKind::BadSignature);
    same(ir, &g, &[("both", &args), ("add", &[V32(1)])]);
}
