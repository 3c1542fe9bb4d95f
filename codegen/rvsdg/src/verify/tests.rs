//! Each rule against a hand-built graph that breaks it, and well-formed graphs.

use vliw_ir::{InstructionData, IntCC, MemFlags, Opcode, Type};

use super::{Place, Rule, verify, verify_changed};
use crate::changes::Changes;
use crate::graph::{NodeKind, Origin, User};
use crate::ops::{Op, Rvsdg, Ty};
use crate::testing::*;

use Type::{I32, I64};

/// `@f(i32, i32) -> i32`: the sum of the parameters.
fn small() -> (Rvsdg, Lambda, Origin) {
    let mut g = Rvsdg::new();
    let l = lambda(&mut g, "f", &[I32, I32], &[I32]);
    let sum = binary(&mut g, l.body, Opcode::Iadd, l.params[0], l.params[1]);
    finish(&mut g, &l, &[sum], l.mem, l.io);
    (g, l, sum)
}

/// The graph breaks `rule` with a message containing `text`.
#[track_caller]
fn rejects(g: &Rvsdg, rule: Rule, text: &str) {
    let errors = verify(g).expect_err("the graph verifies");
    assert!(
        errors
            .iter()
            .any(|e| e.rule == rule && e.to_string().contains(text)),
        "no {rule} error containing {text:?} in:\n{}",
        errors
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[track_caller]
fn accepts(g: &Rvsdg) {
    if let Err(errors) = verify(g) {
        panic!(
            "{}",
            errors
                .iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

// ---- well-formed graphs ----

#[test]
fn accepts_the_example() {
    accepts(&example());
}

#[test]
fn accepts_a_small_lambda_and_a_gamma_of_one_arm() {
    let (mut g, l, sum) = small();
    let pred = g.add_simple(l.body, Op::Ctl { alt: 0, alts: 1 }, &[], &[Ty::Ctl(1)]);
    let gamma = g.add_gamma(l.body, Origin::Out(pred, 0), &[sum], 1);
    let arm = g.kind(gamma).subregions()[0];
    let out = g.add_gamma_exit(gamma, &[Origin::Arg(arm, 0)]);
    g.set_result(l.body, 0, out);
    accepts(&g);
}

#[test]
fn accepts_control_values_through_gamma_exits_and_theta_variables() {
    // a θ whose predicate is computed by a γ in the body, and a loop-carried control
    // value
    let (mut g, l, sum) = small();
    let c = g.add_simple(l.body, Op::Ctl { alt: 1, alts: 2 }, &[], &[Ty::Ctl(2)]);
    let theta = g.add_theta(l.body, &[Origin::Out(c, 0), sum]);
    let body = g.theta_body(theta);
    let gamma = g.add_gamma(body, Origin::Arg(body, 0), &[], 2);
    let arms = g.kind(gamma).subregions().to_vec();
    let stop = g.add_simple(arms[0], Op::Ctl { alt: 0, alts: 2 }, &[], &[Ty::Ctl(2)]);
    let again = g.add_simple(arms[1], Op::Ctl { alt: 0, alts: 2 }, &[], &[Ty::Ctl(2)]);
    let p = g.add_gamma_exit(gamma, &[Origin::Out(stop, 0), Origin::Out(again, 0)]);
    g.set_theta_predicate(theta, p);
    g.set_result(body, 1, p);
    g.set_result(l.body, 0, Origin::Out(theta, 1));
    accepts(&g);
}

#[test]
fn is_linear_in_the_size_of_the_graph() {
    // one constant with 100 000 users, and a chain of 100 000 stores
    let mut g = Rvsdg::new();
    let l = lambda(&mut g, "wide", &[Type::Ptr], &[I32]);
    let c = iconst(&mut g, l.body, I32, 1);
    let mut acc = c;
    let mut mem = l.mem;
    for _ in 0..100_000 {
        acc = binary(&mut g, l.body, Opcode::Iadd, acc, c);
        let data = InstructionData::Store {
            opcode: Opcode::Store,
            flags: MemFlags::new(),
            args: [v0(), v0()],
            offset: 0,
        };
        mem = Origin::Out(
            inst(&mut g, l.body, data, &[c, l.params[0], mem], &[Ty::Mem]),
            0,
        );
    }
    finish(&mut g, &l, &[acc], mem, l.io);
    accepts(&g);
}

// ---- structure ----

#[test]
fn rejects_a_node_missing_from_its_region() {
    let (mut g, l, sum) = small();
    let n = g.producer(sum).unwrap();
    g.node_list_mut(l.body).retain(|&m| m != n);
    rejects(&g, Rule::Structure, "in the list of no region");
}

#[test]
fn rejects_a_node_listed_twice() {
    let (mut g, l, sum) = small();
    let n = g.producer(sum).unwrap();
    g.node_list_mut(l.body).push(n);
    rejects(&g, Rule::Structure, "which is listed already");
}

#[test]
fn rejects_a_node_listed_in_another_region() {
    let (mut g, l, sum) = small();
    let n = g.producer(sum).unwrap();
    let pred = g.add_simple(l.body, Op::Ctl { alt: 0, alts: 1 }, &[], &[Ty::Ctl(1)]);
    let gamma = g.add_gamma(l.body, Origin::Out(pred, 0), &[], 1);
    let arm = g.kind(gamma).subregions()[0];
    g.node_list_mut(l.body).retain(|&m| m != n);
    g.node_list_mut(arm).push(n);
    rejects(&g, Rule::Structure, "but says it is in");
}

#[test]
fn rejects_a_subregion_owned_by_another_node() {
    let (mut g, l, sum) = small();
    let pred = g.add_simple(l.body, Op::Ctl { alt: 0, alts: 1 }, &[], &[Ty::Ctl(1)]);
    let p = Origin::Out(pred, 0);
    let g1 = g.add_gamma(l.body, p, &[sum], 1);
    let g2 = g.add_gamma(l.body, p, &[sum], 1);
    let arms = g.kind(g1).subregions().to_vec();
    *g.kind_mut(g2) = NodeKind::Gamma { arms };
    rejects(&g, Rule::Structure, &format!("is owned by {g1}"));
}

#[test]
fn rejects_a_live_region_out_of_reach() {
    let (mut g, l, sum) = small();
    let pred = g.add_simple(l.body, Op::Ctl { alt: 0, alts: 2 }, &[], &[Ty::Ctl(2)]);
    let gamma = g.add_gamma(l.body, Origin::Out(pred, 0), &[sum], 2);
    let arms = g.kind(gamma).subregions().to_vec();
    *g.kind_mut(gamma) = NodeKind::Gamma {
        arms: vec![arms[0]],
    };
    rejects(&g, Rule::Structure, "not reachable from the root");
}

#[test]
fn rejects_a_simple_node_in_the_root() {
    let (mut g, _, _) = small();
    let root = g.root();
    iconst(&mut g, root, I32, 1);
    rejects(&g, Rule::Structure, "the root region holds only λs");
}

#[test]
fn rejects_a_lambda_outside_the_root() {
    let (mut g, l, _) = small();
    let inner = lambda(&mut g, "inner", &[], &[]);
    finish(&mut g, &inner, &[], inner.mem, inner.io);
    g.move_node(inner.node, l.body, &[]);
    rejects(&g, Rule::Structure, "a λ outside the root region");
}

#[test]
fn rejects_an_edge_from_another_region() {
    let (mut g, l, sum) = small();
    let pred = g.add_simple(l.body, Op::Ctl { alt: 0, alts: 1 }, &[], &[Ty::Ctl(1)]);
    let gamma = g.add_gamma(l.body, Origin::Out(pred, 0), &[sum], 1);
    let arm = g.kind(gamma).subregions()[0];
    let neg = InstructionData::Unary {
        opcode: Opcode::Ineg,
        arg: v0(),
    };
    let n = inst(&mut g, arm, neg, &[Origin::Arg(arm, 0)], &[Ty::Val(I32)]);
    g.add_gamma_exit(gamma, &[Origin::Out(n, 0)]);
    // the arm's node now reads the λ's parameter directly
    g.divert_users(Origin::Arg(arm, 0), l.params[0]);
    rejects(&g, Rule::Structure, "not here");
}

#[test]
fn rejects_a_user_missing_from_the_users_list() {
    let (mut g, _, sum) = small();
    g.users_mut(sum).clear();
    rejects(&g, Rule::Structure, "but is not in its users list");
}

#[test]
fn rejects_a_users_list_naming_a_non_user() {
    let (mut g, l, _) = small();
    g.users_mut(l.params[0]).push(User::Res(l.body, 0));
    rejects(&g, Rule::Structure, "which does not read it");
    let (mut g, _, sum) = small();
    let u = g.users(sum)[0];
    g.users_mut(sum).push(u);
    rejects(&g, Rule::Structure, "twice");
}

#[test]
fn rejects_a_reference_to_a_removed_node() {
    let (mut g, l, sum) = small();
    let neg = InstructionData::Unary {
        opcode: Opcode::Ineg,
        arg: v0(),
    };
    let n = inst(&mut g, l.body, neg, &[sum], &[Ty::Val(I32)]);
    g.set_result(l.body, 0, Origin::Out(n, 0));
    // remove the sum behind its user's back
    g.users_mut(sum).clear();
    g.remove_node(g.producer(sum).unwrap());
    rejects(&g, Rule::Structure, "a removed node's");
}

#[test]
fn rejects_a_theta_whose_predicate_is_never_set() {
    let (mut g, l, sum) = small();
    let theta = g.add_theta(l.body, &[sum]);
    g.set_result(l.body, 0, Origin::Out(theta, 0));
    rejects(
        &g,
        Rule::Structure,
        "placeholder of a θ predicate never set",
    );
}

// ---- acyclicity ----

#[test]
fn rejects_a_cycle() {
    let (mut g, l, sum) = small();
    let twice = binary(&mut g, l.body, Opcode::Iadd, sum, sum);
    g.set_result(l.body, 0, twice);
    g.set_input(g.producer(sum).unwrap(), 0, twice);
    rejects(&g, Rule::Acyclic, "on a cycle");
}

// ---- arities ----

#[test]
fn rejects_a_gamma_whose_predicate_has_the_wrong_number_of_alternatives() {
    let (mut g, l, sum) = small();
    let pred = g.add_simple(l.body, Op::Ctl { alt: 0, alts: 3 }, &[], &[Ty::Ctl(3)]);
    let gamma = g.add_gamma(l.body, Origin::Out(pred, 0), &[sum], 2);
    let arms = g.kind(gamma).subregions().to_vec();
    let out = g.add_gamma_exit(gamma, &[Origin::Arg(arms[0], 0), Origin::Arg(arms[1], 0)]);
    g.set_result(l.body, 0, out);
    rejects(
        &g,
        Rule::Arity,
        "the predicate has type ctl3, expected ctl2",
    );
}

#[test]
fn rejects_a_gamma_without_arms() {
    let (mut g, l, _) = small();
    let pred = g.add_simple(l.body, Op::Ctl { alt: 0, alts: 1 }, &[], &[Ty::Ctl(1)]);
    g.add_gamma(l.body, Origin::Out(pred, 0), &[], 0);
    rejects(&g, Rule::Arity, "a γ without arms");
}

#[test]
fn rejects_gamma_arms_that_do_not_match_the_entries_and_exits() {
    let (mut g, l, sum) = small();
    let pred = g.add_simple(l.body, Op::Ctl { alt: 0, alts: 2 }, &[], &[Ty::Ctl(2)]);
    let gamma = g.add_gamma(l.body, Origin::Out(pred, 0), &[sum], 2);
    let arms = g.kind(gamma).subregions().to_vec();
    let out = g.add_gamma_exit(gamma, &[Origin::Arg(arms[0], 0), Origin::Arg(arms[1], 0)]);
    g.set_result(l.body, 0, out);
    // an entry of another type than the arms' arguments
    let wide = iconst(&mut g, l.body, I64, 1);
    g.set_input(gamma, 1, wide);
    rejects(
        &g,
        Rule::Arity,
        "argument 0 of arm 0 has type i32, its entry variable i64",
    );
    // an arm with one result too many
    let (mut g, l, sum) = small();
    let pred = g.add_simple(l.body, Op::Ctl { alt: 0, alts: 2 }, &[], &[Ty::Ctl(2)]);
    let gamma = g.add_gamma(l.body, Origin::Out(pred, 0), &[sum], 2);
    let arms = g.kind(gamma).subregions().to_vec();
    g.add_result(arms[1], Origin::Arg(arms[1], 0));
    rejects(&g, Rule::Arity, "has 1 result(s) for 0 output(s)");
}

#[test]
fn rejects_a_theta_whose_predicate_is_not_a_control_value() {
    let (mut g, l, sum) = small();
    let theta = g.add_theta(l.body, &[sum]);
    let body = g.theta_body(theta);
    let zero = iconst(&mut g, body, I32, 0);
    let c = icmp(&mut g, body, IntCC::Ne, Origin::Arg(body, 0), zero);
    g.set_theta_predicate(theta, c);
    g.set_result(l.body, 0, Origin::Out(theta, 0));
    rejects(
        &g,
        Rule::Arity,
        "the predicate (result 0 of the body) has type i1, expected ctl2",
    );
}

#[test]
fn rejects_theta_loop_variables_of_mismatched_types() {
    let (mut g, l, sum) = small();
    let theta = g.add_theta(l.body, &[sum]);
    let body = g.theta_body(theta);
    let stop = g.add_simple(body, Op::Ctl { alt: 0, alts: 2 }, &[], &[Ty::Ctl(2)]);
    g.set_theta_predicate(theta, Origin::Out(stop, 0));
    let wide = iconst(&mut g, body, I64, 1);
    g.set_result(body, 1, wide);
    g.set_result(l.body, 0, Origin::Out(theta, 0));
    rejects(
        &g,
        Rule::Arity,
        "result 1 of the body has type i64, loop variable 0 i32",
    );
    // an output without its loop variable
    g.set_result(body, 1, Origin::Arg(body, 0));
    g.add_output(theta, Ty::Val(I32));
    rejects(
        &g,
        Rule::Arity,
        "1 input(s), 1 body argument(s), 2 output(s)",
    );
}

#[test]
fn rejects_a_lambda_body_that_does_not_match_its_signature() {
    let mut g = Rvsdg::new();
    let l = lambda(&mut g, "f", &[I32], &[I32]);
    // returns the parameter, then forgets the I/O state
    g.add_result(l.body, l.params[0]);
    g.add_result(l.body, l.mem);
    rejects(
        &g,
        Rule::Arity,
        "the body gives (i32, mem), the signature (i32) -> i32 needs (i32, mem, io)",
    );
}

// ---- typing ----

#[test]
fn rejects_operands_of_the_wrong_types() {
    let (mut g, l, sum) = small();
    let wide = iconst(&mut g, l.body, I64, 1);
    g.set_input(g.producer(sum).unwrap(), 1, wide);
    rejects(
        &g,
        Rule::Typing,
        "operands operand 0 (i32) and operand 1 (i64) differ in type",
    );
}

#[test]
fn rejects_outputs_of_the_wrong_types() {
    let (mut g, l, _) = small();
    let bad = g.add_simple(
        l.body,
        Op::from_inst(&InstructionData::Binary {
            opcode: Opcode::Iadd,
            args: [v0(), v0()],
        }),
        &[l.params[0], l.params[1]],
        &[Ty::Val(I64)],
    );
    let errors = verify(&g).unwrap_err();
    assert_eq!(errors.len(), 1);
    let e = &errors[0];
    assert_eq!(e.rule, Rule::Typing);
    assert_eq!(e.lambda.as_deref(), Some("@f"));
    assert_eq!(e.place, Place::Node(bad, "iadd".into()));
    assert_eq!(
        e.to_string(),
        format!("λ @f, {bad} (iadd): typing: outputs (i64), expected (i32)")
    );
}

#[test]
fn rejects_missing_or_misplaced_states() {
    // a load without the memory state
    let (mut g, l, _) = small();
    let p = iconst(&mut g, l.body, Type::Ptr, 0x1000);
    let data = InstructionData::Load {
        opcode: Opcode::Load,
        flags: MemFlags::new(),
        arg: v0(),
        offset: 0,
    };
    inst(&mut g, l.body, data, &[p], &[Ty::Val(I32)]);
    rejects(
        &g,
        Rule::Typing,
        "inputs (ptr), expected 1 operand(s) then the states (mem)",
    );
    // a division with its I/O state given as an operand's place
    let (mut g, l, _) = small();
    let data = InstructionData::Binary {
        opcode: Opcode::Sdiv,
        args: [v0(), v0()],
    };
    inst(
        &mut g,
        l.body,
        data,
        &[l.params[0], l.io, l.params[1]],
        &[Ty::Val(I32), Ty::Io],
    );
    rejects(&g, Rule::Typing, "operand 1 has type io, expected a value");
}

#[test]
fn rejects_control_flow_and_uncleared_operands() {
    let (mut g, l, _) = small();
    let data = InstructionData::Return {
        opcode: Opcode::Return,
        args: vec![],
    };
    inst(&mut g, l.body, data, &[], &[]);
    rejects(&g, Rule::Typing, "return is control flow");
    let (mut g, l, _) = small();
    let data = InstructionData::Unary {
        opcode: Opcode::Ineg,
        arg: vliw_ir::Value::from_u32(3),
    };
    g.add_simple(l.body, Op::Inst(data), &[l.params[0]], &[Ty::Val(I32)]);
    rejects(&g, Rule::Typing, "operands not cleared");
}

#[test]
fn rejects_a_safe_operation_that_is_not_a_division() {
    let (mut g, l, _) = small();
    g.add_simple(
        l.body,
        Op::SafeDiv(Opcode::Iadd),
        &[l.params[0], l.params[1]],
        &[Ty::Val(I32)],
    );
    rejects(&g, Rule::Typing, "iadd marked safe");
}

#[test]
fn rejects_ill_formed_matches_and_control_constants() {
    let (mut g, l, _) = small();
    let m = Op::Match {
        cases: Box::new([(1, 0), (1, 2), (0x1_0000_0000, 1)]),
        default: 3,
        alts: 3,
    };
    g.add_simple(l.body, m, &[l.params[0]], &[Ty::Ctl(3)]);
    rejects(&g, Rule::Typing, "the default is alternative 3 of 3");
    rejects(&g, Rule::Typing, "case value 0x1 is a duplicate");
    rejects(&g, Rule::Typing, "case value 0x100000000 does not fit i32");
    let (mut g, l, _) = small();
    let m = Op::Match {
        cases: Box::new([(1, 2)]),
        default: 0,
        alts: 2,
    };
    g.add_simple(l.body, m, &[l.params[0]], &[Ty::Ctl(3)]);
    rejects(
        &g,
        Rule::Typing,
        "case value 0x1 goes to alternative 2 of 2",
    );
    rejects(&g, Rule::Typing, "outputs (ctl3), expected (ctl2)");
    let (mut g, l, _) = small();
    let f = g.add_simple(l.body, Op::Ctl { alt: 0, alts: 2 }, &[], &[Ty::Ctl(2)]);
    let m = Op::Match {
        cases: Box::new([]),
        default: 0,
        alts: 1,
    };
    g.add_simple(l.body, m, &[Origin::Out(f, 0)], &[Ty::Ctl(1)]);
    rejects(
        &g,
        Rule::Typing,
        "the operand has type ctl2, expected an integer",
    );
    let (mut g, l, _) = small();
    g.add_simple(l.body, Op::Ctl { alt: 2, alts: 2 }, &[], &[Ty::Ctl(2)]);
    rejects(&g, Rule::Typing, "alternative 2 of 2");
}

#[test]
fn rejects_call_arguments_against_the_signature() {
    let mut g = Rvsdg::new();
    let mut shell = vliw_ir::Function::new(
        "f",
        vliw_ir::Signature::new(&[I32], &[]),
        vliw_ir::Linkage::Export,
    );
    let fn0 = shell.import_function("g", vliw_ir::Signature::new(&[I64], &[]));
    let l = lambda_of(&mut g, shell);
    let data = InstructionData::Call {
        opcode: Opcode::Call,
        func: fn0,
        args: vec![v0()],
    };
    let call = inst(
        &mut g,
        l.body,
        data,
        &[l.params[0], l.mem, l.io],
        &[Ty::Mem, Ty::Io],
    );
    finish(&mut g, &l, &[], Origin::Out(call, 0), Origin::Out(call, 1));
    rejects(
        &g,
        Rule::Typing,
        "argument 0 (operand 0) has type i32, the signature (i64) expects i64",
    );
}

// ---- references ----

#[test]
fn rejects_undeclared_references() {
    let (mut g, l, _) = small();
    let data = InstructionData::Call {
        opcode: Opcode::Call,
        func: vliw_ir::FuncRef::from_u32(5),
        args: vec![],
    };
    inst(&mut g, l.body, data, &[l.mem, l.io], &[Ty::Mem, Ty::Io]);
    rejects(&g, Rule::Reference, "fn5 is not declared in @f");
    let (mut g, l, _) = small();
    stack_addr(&mut g, l.body, vliw_ir::StackSlot::from_u32(1));
    rejects(&g, Rule::Reference, "ss1 is not declared in @f");
}

#[test]
fn rejects_two_lambdas_of_one_name() {
    let (mut g, _, _) = small();
    let again = lambda(&mut g, "f", &[], &[]);
    finish(&mut g, &again, &[], again.mem, again.io);
    rejects(&g, Rule::Reference, "a second λ named @f");
}

// ---- linearity ----

#[test]
fn rejects_a_state_used_twice() {
    let (mut g, l, _) = small();
    let p = iconst(&mut g, l.body, Type::Ptr, 0x1000);
    // two loads on the same memory state, which the result also reads
    load(&mut g, l.body, I32, 1, p, l.mem);
    load(&mut g, l.body, I32, 1, p, l.mem);
    rejects(&g, Rule::Linearity, "argument 2 of r1 (mem) has 3 users");
}

#[test]
fn rejects_an_unused_state() {
    let (mut g, l, _) = small();
    let p = iconst(&mut g, l.body, Type::Ptr, 0x1000);
    let (_, mem) = load(&mut g, l.body, I32, 1, p, l.mem);
    let ld = g.producer(mem).unwrap();
    rejects(
        &g,
        Rule::Linearity,
        &format!("output 1 of {ld} (mem) is not used"),
    );
}

#[test]
fn accepts_a_trap_sharing_its_states_with_the_results_but_not_two_traps() {
    let (mut g, l, _) = small();
    let trap = InstructionData::Trap {
        opcode: Opcode::Trap,
        code: 1,
    };
    inst(&mut g, l.body, trap.clone(), &[l.mem, l.io], &[]);
    accepts(&g);
    inst(&mut g, l.body, trap, &[l.mem, l.io], &[]);
    rejects(&g, Rule::Linearity, "(mem) has 3 users");
}

#[test]
fn accepts_a_gamma_of_trapping_arms_as_a_sink() {
    // a γ that takes the states and gives none back: each arm ends in a trap
    let (mut g, l, _) = small();
    let pred = g.add_simple(l.body, Op::Ctl { alt: 0, alts: 2 }, &[], &[Ty::Ctl(2)]);
    let gamma = g.add_gamma(l.body, Origin::Out(pred, 0), &[l.mem, l.io], 2);
    for arm in g.kind(gamma).subregions().to_vec() {
        let trap = InstructionData::Trap {
            opcode: Opcode::Trap,
            code: 2,
        };
        inst(
            &mut g,
            arm,
            trap,
            &[Origin::Arg(arm, 0), Origin::Arg(arm, 1)],
            &[],
        );
    }
    accepts(&g);
    // but an arm that does not trap drops the states
    let arms = g.kind(gamma).subregions().to_vec();
    let n = g.nodes(arms[1])[0];
    g.remove_node(n);
    rejects(&g, Rule::Linearity, "is not used");
}

// ---- memory state splitting ----

/// `@f(i32, i32) -> i32` whose memory state is split in `n` and joined again.
fn split_and_join(n: u32) -> (Rvsdg, Lambda, crate::graph::Node, crate::graph::Node) {
    let mut g = Rvsdg::new();
    let l = lambda(&mut g, "f", &[I32, I32], &[I32]);
    let split = g.add_simple(
        l.body,
        Op::MemSplit(n),
        &[l.mem],
        &vec![Ty::Mem; n as usize],
    );
    let states: Vec<Origin> = g.outputs(split).collect();
    let join = g.add_simple(l.body, Op::MemJoin(n), &states, &[Ty::Mem]);
    finish(&mut g, &l, &[l.params[0]], Origin::Out(join, 0), l.io);
    (g, l, split, join)
}

#[test]
fn accepts_a_split_memory_state_joined_again() {
    let (mut g, l, _, join) = split_and_join(3);
    accepts(&g);
    // a load on one of the states
    let p = iconst(&mut g, l.body, Type::Ptr, 0x1000);
    let state = g.input(join, 1);
    let (_, after) = load(&mut g, l.body, I32, 1, p, state);
    g.set_input(join, 1, after);
    accepts(&g);
}

#[test]
fn rejects_split_and_join_of_wrong_shapes() {
    let (g, ..) = split_and_join(1);
    rejects(&g, Rule::Typing, "mem_split 1: at least 2 memory states");
    let (mut g, _, split, _) = split_and_join(2);
    g.add_output(split, Ty::Io);
    rejects(
        &g,
        Rule::Typing,
        "mem_split 2 takes (mem) and gives (mem, mem, io)",
    );
    let (mut g, l, _, join) = split_and_join(2);
    g.add_input(join, l.io);
    rejects(
        &g,
        Rule::Typing,
        "mem_join 2 takes (mem, mem, io) and gives (mem)",
    );
}

#[test]
fn rejects_a_split_state_not_joined() {
    let (mut g, l, split, join) = split_and_join(2);
    // the λ's result reads one of the split states: the other is not used
    let res = g.results(l.body).len() - 2;
    let one = Origin::Out(split, 0);
    g.remove_input(join, 0);
    g.set_result(l.body, res, one);
    g.remove_node(join);
    rejects(&g, Rule::Linearity, "is not used");
}

// ---- what changed, and verifying only that ----

/// `small()` plus a second λ `@g() -> i32` returning a constant; the changes of their
/// construction taken.
fn two_lambdas() -> (Rvsdg, Lambda, Lambda, Origin) {
    let (mut g, f, sum) = small();
    let other = lambda(&mut g, "g", &[], &[I32]);
    let c = iconst(&mut g, other.body, I32, 7);
    finish(&mut g, &other, &[c], other.mem, other.io);
    g.take_changes();
    (g, f, other, sum)
}

#[test]
fn changes_name_the_regions_touched_the_lambdas_and_the_root() {
    let (mut g, f, other, sum) = two_lambdas();
    assert_eq!(g.take_changes(), Changes::default(), "nothing since");
    // an edge inside @f
    let neg = InstructionData::Unary {
        opcode: Opcode::Ineg,
        arg: v0(),
    };
    let n = inst(&mut g, f.body, neg, &[sum], &[Ty::Val(I32)]);
    g.set_result(f.body, 0, Origin::Out(n, 0));
    let changes = g.take_changes();
    assert_eq!(changes.regions, vec![f.body]);
    assert!(!changes.root && changes.lambdas.is_empty());
    // a node removed in @f; @g's data
    g.set_result(f.body, 0, sum);
    g.remove_node(n);
    g.lambda_info_mut(other.node).name = "g2".into();
    let changes = g.take_changes();
    assert_eq!(changes.regions, vec![f.body]);
    assert_eq!(changes.lambdas, vec![other.node]);
    // a γ in @f: its arms are new regions, the body changed
    let pred = g.add_simple(f.body, Op::Ctl { alt: 0, alts: 1 }, &[], &[Ty::Ctl(1)]);
    let gamma = g.add_gamma(f.body, Origin::Out(pred, 0), &[sum], 1);
    let arm = g.kind(gamma).subregions()[0];
    g.add_gamma_exit(gamma, &[Origin::Arg(arm, 0)]);
    assert_eq!(g.take_changes().regions, vec![f.body, arm]);
    // keeping every result or output changes nothing
    g.retain_results(arm, |_| true);
    g.retain_outputs(gamma, |_| true);
    assert_eq!(g.take_changes(), Changes::default());
    // a λ added, then removed
    let h = lambda(&mut g, "h", &[], &[]);
    finish(&mut g, &h, &[], h.mem, h.io);
    let changes = g.take_changes();
    assert_eq!((changes.root, changes.regions), (true, vec![h.body]));
    g.remove_node(h.node);
    let changes = g.take_changes();
    assert_eq!((changes.root, changes.regions), (true, vec![]));
}

#[test]
fn verify_changed_looks_into_the_regions_changed() {
    let (mut g, _, other, _) = two_lambdas();
    // @g broken behind the methods' backs, but through one that marks it
    let c = g.results(other.body)[0];
    g.users_mut(c).clear();
    let changes = g.take_changes();
    assert_eq!(changes.regions, vec![other.body]);
    let errors = verify_changed(&g, &changes).expect_err("the graph verifies");
    assert!(
        errors[0].to_string().contains("not in its users list"),
        "{errors:?}"
    );
    // a λ named twice is found from the root, whichever λ changed
    g.users_mut(c).push(User::Res(other.body, 0));
    g.lambda_info_mut(other.node).name = "f".into();
    let changes = g.take_changes();
    let errors = verify_changed(&g, &changes).expect_err("the graph verifies");
    assert!(
        errors.iter().any(|e| e.rule == Rule::Reference),
        "{errors:?}"
    );
}

#[test]
fn verify_changed_checks_the_shape_of_a_changed_regions_owner() {
    // an arm given an extra result: the arm changed, the γ's region did not
    let (mut g, f, _, sum) = two_lambdas();
    let pred = g.add_simple(f.body, Op::Ctl { alt: 0, alts: 1 }, &[], &[Ty::Ctl(1)]);
    let gamma = g.add_gamma(f.body, Origin::Out(pred, 0), &[sum], 1);
    let arm = g.kind(gamma).subregions()[0];
    g.add_gamma_exit(gamma, &[Origin::Arg(arm, 0)]);
    g.set_result(f.body, 0, Origin::Out(gamma, 0));
    g.take_changes();
    g.add_result(arm, Origin::Arg(arm, 0));
    let changes = g.take_changes();
    assert_eq!(changes.regions, vec![arm]);
    let errors = verify_changed(&g, &changes).expect_err("the graph verifies");
    assert!(errors.iter().any(|e| e.rule == Rule::Arity), "{errors:?}");
}
