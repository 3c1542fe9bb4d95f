//! What the predicate of an enclosing γ says about a value (part of `rvsdg-fold`).
//!
//! A node in arm `k` of a γ runs only when the γ's predicate chose `k`. When that
//! predicate is `match` of an integer compare, and the value a node reads is, through
//! the entry variables of that γ (and of any γs between), one of the compare's
//! operands, the compare holds for it there. Folding uses this for the overflow
//! checks that follow a bound test: `i < n` (signed or unsigned) means `i` is not the
//! maximum of its type, so `i + 1` cannot overflow, and `i > n` that `i - 1` cannot.
//! `Range::next` and `Step::forward` check exactly that after testing `start < end`;
//! without the check the loop has no call, and can be promoted and pipelined.
//!
//! Only γ arms are crossed: a θ body's argument is a different value in every
//! iteration, so a test outside the loop says nothing about it.

use vliw_ir::{InstructionData, IntCC, Opcode, Type};

use super::rewrite::{const_of, vty};
use super::unroll::match2_alternatives;
use crate::graph::{Node, NodeKind, Origin, Region};
use crate::ops::{Op, Rvsdg, Ty};

/// Bounds a γ's guard gives for values of any depth below it are looked for this many
/// γs up.
const MAX_DEPTH: usize = 16;

/// When node `n` is an overflow check of `x + 1` or `x - 1` that the guards above it
/// exclude: the plain operation (`iadd` or `isub`) that gives its value.
pub(super) fn excluded_overflow(g: &Rvsdg, n: Node) -> Option<Opcode> {
    let Some(Op::Inst(data)) = g.op(n) else {
        return None;
    };
    let opcode = data.opcode();
    let (plain, signed) = match opcode {
        Opcode::UaddOverflow => (Opcode::Iadd, false),
        Opcode::SaddOverflow => (Opcode::Iadd, true),
        Opcode::UsubOverflow => (Opcode::Isub, false),
        Opcode::SsubOverflow => (Opcode::Isub, true),
        _ => return None,
    };
    let (a, b) = (g.input(n, 0), g.input(n, 1));
    // (in `i1`, a signed 1 is -1)
    if const_of(g, b) != Some(1) || vty(g, a) == Type::I1 {
        return None;
    }
    strictly_bounded(g, g.node(n).region, a, signed, plain == Opcode::Iadd).then_some(plain)
}

/// Whether `v`, read in region `r`, is known there to be strictly below (`below`) or
/// strictly above (`!below`) some other value of its type, in the signed order when
/// `signed`: so that adding (subtracting) one cannot overflow.
fn strictly_bounded(g: &Rvsdg, mut r: Region, mut v: Origin, signed: bool, below: bool) -> bool {
    for _ in 0..MAX_DEPTH {
        let Some(owner) = g.owner(r) else {
            return false;
        };
        let NodeKind::Gamma { arms } = g.kind(owner) else {
            return false;
        };
        let Some(k) = arms.iter().position(|&a| a == r) else {
            return false;
        };
        // only an entry variable stands for a value the predicate can speak of
        let Origin::Arg(ar, i) = v else {
            return false;
        };
        debug_assert_eq!(ar, r);
        let outer = g.input(owner, i as usize + 1);
        if let Some((cc, x, y)) = arm_condition(g, owner, k as u32)
            && bounds(cc, x, y, outer, signed, below)
        {
            return true;
        }
        v = outer;
        r = g.node(owner).region;
    }
    false
}

/// The compare that holds in arm `k` of γ `gamma`: its condition (inverted when the
/// arm is the one for false) and operands; none when the predicate is not a `match`
/// of a compare or the arm is chosen either way.
fn arm_condition(g: &Rvsdg, gamma: Node, k: u32) -> Option<(IntCC, Origin, Origin)> {
    let Origin::Out(m, 0) = g.input(gamma, 0) else {
        return None;
    };
    let [on_false, on_true] = match2_alternatives(g, m)?;
    let c = g.input(m, 0);
    if g.ty(c) != Ty::Val(Type::I1) {
        return None;
    }
    let Origin::Out(cmp, 0) = c else {
        return None;
    };
    let Some(Op::Inst(InstructionData::IntCompare { cond, .. })) = g.op(cmp) else {
        return None;
    };
    let cc = match (on_true == k, on_false == k) {
        (true, false) => *cond,
        (false, true) => cond.inverse(),
        _ => return None,
    };
    Some((cc, g.input(cmp, 0), g.input(cmp, 1)))
}

/// Whether `x cc y` makes `v` strictly below (above) the other operand.
fn bounds(cc: IntCC, x: Origin, y: Origin, v: Origin, signed: bool, below: bool) -> bool {
    let (lt, gt) = if signed {
        (IntCC::Slt, IntCC::Sgt)
    } else {
        (IntCC::Ult, IntCC::Ugt)
    };
    let (v_lhs, v_rhs) = (x == v && y != v, y == v && x != v);
    if below {
        (cc == lt && v_lhs) || (cc == gt && v_rhs)
    } else {
        (cc == gt && v_lhs) || (cc == lt && v_rhs)
    }
}

/// Folds, in the λs of `g` that have one, the overflow checks that their guards
/// exclude (what `rvsdg-promote` made visible: a range's bounds that lived in a
/// stack slot when `rvsdg-fold` ran), and the checks' γs that then know their arm;
/// how many overflow checks.
pub(super) fn fold_excluded_overflows(g: &mut Rvsdg) -> u64 {
    let lambdas: Vec<Node> = g
        .lambdas()
        .into_iter()
        .filter(|&l| {
            g.regions_below(g.lambda_body(l)).into_iter().any(|r| {
                g.nodes(r)
                    .iter()
                    .any(|&n| excluded_overflow(g, n).is_some())
            })
        })
        .collect();
    if lambdas.is_empty() {
        return 0;
    }
    let mut report = crate::report::Report::default();
    super::fold::fold_lambdas(g, &lambdas, &mut report);
    for &l in &lambdas {
        let body = g.lambda_body(l);
        super::gamma::inline_known_arms(g, body);
    }
    let folded = report.get("fold.overflow-excluded-by-guard");
    if folded > 0 {
        // the loops whose test could not be rotated for the call in their body; those
        // that carry whether they go on as a γ's constants test the compare itself
        super::invert::invert_loops(g, &mut report);
        for &l in &lambdas {
            let body = g.lambda_body(l);
            super::loop_tests::constant_exits_as_values(g, body);
        }
        super::fold::fold_lambdas(g, &lambdas, &mut report);
        // and the stack cells they could not carry for the call
        super::memory::promote_loop_cells(g, &mut report);
    }
    folded
}
