//! Loop idiom recognition (LLVM's `LoopIdiomRecognize`, on θs): a loop that computes
//! what one instruction computes is replaced by that instruction. Recognized so far:
//!
//! - **Population count**: `do { x &= x - 1; c += 1 } while x != 0` (clearing the
//!   lowest set bit until none is left, Kernighan's loop). Its body runs once per set
//!   bit of the initial `x0`, and once when `x0` is 0 (a θ is tail-controlled: the
//!   `while` test before it, if any, is a γ around it), so afterwards
//!   `c = c0 + popcnt(x0) + (x0 == 0)` and `x = 0`; in the arm of a γ that runs only
//!   when `x0` is not 0 (the `while` test), `c = c0 + popcnt(x0)`. The machine's `popc` does it in
//!   one operation where the loop takes several bundles per set bit.
//!
//! **What is required:** the θ's body holds nothing but the loop's own computation:
//! `x`'s next value is `band x, (x - 1)` (`iadd x, -1` or `isub x, 1`), a counter's is
//! `iadd c, 1`, the predicate repeats exactly when that next `x` is not 0 (`icmp ne`
//! or `eq` with 0 through a `match`), every other loop variable passes through
//! unchanged (states included: the loop touches no memory and cannot trap) or is
//! dead (read neither in the loop nor after it), and there are no other nodes but
//! constants. Any other shape stays. It runs after θ-γ inversion and invariant value
//! redirection, which make `while` loops into this shape.
//!
//! Counter: `idiom.popcount`.

use vliw_ir::{InstructionData, IntCC, Opcode, Type};

use super::rewrite::Rewriter;
use crate::graph::{Node, NodeKind, Origin, Region, User};
use crate::ops::{Op, Rvsdg, Ty};
use crate::report::Report;

/// Replaces the idiom loops of `g`.
pub fn recognize_idioms(g: &mut Rvsdg, report: &mut Report) {
    let mut popcounts = 0;
    for l in g.lambdas() {
        let body = g.lambda_body(l);
        region(g, body, &mut popcounts);
    }
    report.count("idiom.popcount", popcounts);
}

fn region(g: &mut Rvsdg, r: Region, popcounts: &mut u64) {
    for n in g.topological_order(r) {
        if !g.is_alive(n) {
            continue;
        }
        let before = *popcounts;
        for s in g.kind(n).subregions().to_vec() {
            region(g, s, popcounts);
        }
        if *popcounts > before && matches!(g.kind(n), NodeKind::Gamma { .. }) {
            collapse_zero_guard(g, n);
        }
        if matches!(g.kind(n), NodeKind::Theta { .. })
            && let Some(shape) = popcount_shape(g, n)
        {
            replace_popcount(g, n, &shape);
            *popcounts += 1;
        }
    }
}

fn inst(g: &Rvsdg, n: Node) -> Option<&InstructionData> {
    match g.op(n)? {
        Op::Inst(d) => Some(d),
        _ => None,
    }
}

/// The value of integer constant `o`, sign-extended from its type.
fn constant(g: &Rvsdg, o: Origin) -> Option<i128> {
    let n = g.producer(o)?;
    match (inst(g, n)?, g.ty(o)) {
        (
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm,
            },
            Ty::Val(t),
        ) => Some(super::rewrite::sext(t, *imm)),
        _ => None,
    }
}

/// `n`'s binary opcode and operands.
fn binary(g: &Rvsdg, o: Origin) -> Option<(Opcode, Origin, Origin)> {
    let n = g.producer(o)?;
    match inst(g, n)? {
        InstructionData::Binary { opcode, .. } => Some((*opcode, g.input(n, 0), g.input(n, 1))),
        _ => None,
    }
}

/// A population count loop: its bit variable and its counters.
struct Popcount {
    bits: u32,
    counters: Vec<u32>,
}

/// Whether `o` is `x - 1` (`iadd x, -1` or `isub x, 1`).
fn minus_one(g: &Rvsdg, o: Origin, x: Origin) -> bool {
    match binary(g, o) {
        Some((Opcode::Iadd, a, b)) => {
            (a == x && constant(g, b) == Some(-1)) || (b == x && constant(g, a) == Some(-1))
        }
        Some((Opcode::Isub, a, b)) => a == x && constant(g, b) == Some(1),
        _ => false,
    }
}

fn popcount_shape(g: &Rvsdg, theta: Node) -> Option<Popcount> {
    let body = g.theta_body(theta);
    let results = g.results(body);
    let mut bits = None;
    let mut counters = Vec::new();
    let mut dead_results = Vec::new();
    for (k, &next) in results[1..].iter().enumerate() {
        let arg = Origin::Arg(body, k as u32);
        if next == arg {
            continue;
        }
        // a variable nothing reads, after the loop or in it (what dead node
        // elimination would remove): whatever it carries
        let unread = g
            .users(arg)
            .iter()
            .all(|&u| u == User::Res(body, k as u32 + 1));
        if unread && !g.has_users(Origin::Out(theta, k as u32)) && !g.ty(arg).is_state() {
            dead_results.push(next);
            continue;
        }
        let Ty::Val(t) = g.ty(arg) else { return None };
        if !t.is_int() || t == Type::I128 {
            return None;
        }
        match binary(g, next)? {
            (Opcode::Band, a, b)
                if (a == arg && minus_one(g, b, arg)) || (b == arg && minus_one(g, a, arg)) =>
            {
                if bits.replace(k as u32).is_some() {
                    return None;
                }
            }
            (Opcode::Iadd, a, b)
                if (a == arg && constant(g, b) == Some(1))
                    || (b == arg && constant(g, a) == Some(1)) =>
            {
                counters.push(k as u32);
            }
            _ => return None,
        }
    }
    let bits = bits?;
    let x_next = results[1 + bits as usize];
    // the predicate: repeat exactly when the next x is not 0
    let repeat = g.producer(results[0])?;
    let Some(Op::Match { cases, default, .. }) = g.op(repeat) else {
        return None;
    };
    let test = g.producer(g.input(repeat, 0))?;
    let Some(InstructionData::IntCompare { cond, .. }) = inst(g, test) else {
        return None;
    };
    let (a, b) = (g.input(test, 0), g.input(test, 1));
    let zero_compared =
        (a == x_next && constant(g, b) == Some(0)) || (b == x_next && constant(g, a) == Some(0));
    let alt = |v: u128| {
        cases
            .iter()
            .find(|&&(c, _)| c == v)
            .map_or(*default, |&(_, a)| a)
    };
    let repeats_when_nonzero = match cond {
        IntCC::Ne => alt(1) == 1 && alt(0) == 0,
        IntCC::Eq => alt(1) == 0 && alt(0) == 1,
        _ => false,
    };
    if !zero_compared || !repeats_when_nonzero {
        return None;
    }
    // nothing else that counts in the body: what the predicate and the live variables
    // read is the nodes above and constants (dead nodes go with dead node elimination;
    // nothing with a state is among them, since every state passes through)
    let mut allowed: Vec<Node> = vec![repeat, test];
    allowed.extend(g.producer(x_next));
    if let Some((_, a, b)) = binary(g, x_next) {
        allowed.extend(g.producer(a));
        allowed.extend(g.producer(b));
    }
    for &c in &counters {
        allowed.extend(g.producer(results[1 + c as usize]));
    }
    let mut work: Vec<Origin> = results
        .iter()
        .copied()
        .filter(|o| !dead_results.contains(o))
        .collect();
    let mut seen: Vec<Node> = Vec::new();
    let mut only_the_loop = true;
    while let Some(o) = work.pop() {
        let Some(n) = g.producer(o) else { continue };
        if seen.contains(&n) {
            continue;
        }
        seen.push(n);
        let constant_node =
            g.inputs(n).is_empty() && g.op(n).is_some_and(|op| op.is_constant_like());
        if !allowed.contains(&n) && !constant_node {
            only_the_loop = false;
            break;
        }
        work.extend(g.inputs(n).iter().copied());
    }
    only_the_loop.then_some(Popcount { bits, counters })
}

/// Whether `x` (an origin of region `r`) is an argument of a γ arm that runs only when
/// it is not 0: the γ's predicate is a `match` of `icmp eq` or `ne` of its entry and 0.
fn known_nonzero(g: &Rvsdg, r: Region, x: Origin) -> bool {
    let Origin::Arg(arm, i) = x else {
        return false;
    };
    let Some(gamma) = g.owner(arm) else {
        return false;
    };
    let NodeKind::Gamma { arms } = g.kind(gamma) else {
        return false;
    };
    let Some(k) = arms.iter().position(|&a| a == r && a == arm) else {
        return false;
    };
    let outer_x = g.input(gamma, i as usize + 1);
    let Some(m) = g.producer(g.input(gamma, 0)) else {
        return false;
    };
    let Some(Op::Match { cases, default, .. }) = g.op(m) else {
        return false;
    };
    let Some(c) = g.producer(g.input(m, 0)) else {
        return false;
    };
    let Some(Op::Inst(InstructionData::IntCompare { cond, .. })) = g.op(c) else {
        return false;
    };
    let (a, b) = (g.input(c, 0), g.input(c, 1));
    let is_zero = |o: Origin| super::rewrite::const_of(g, o) == Some(0);
    if !((a == outer_x && is_zero(b)) || (b == outer_x && is_zero(a))) {
        return false;
    }
    // the compare's value in arm k, if the match decides it
    let alt = |v: u128| cases.iter().find(|c| c.0 == v).map_or(*default, |c| c.1);
    let k = k as u32;
    let value_in_arm = match (alt(1) == k, alt(0) == k) {
        (true, false) => true,
        (false, true) => false,
        _ => return false,
    };
    match cond {
        IntCC::Eq => !value_in_arm,
        IntCC::Ne => value_in_arm,
        _ => false,
    }
}

/// A γ on `x == 0` (or `!=`) whose arm for `x != 0` computes, without states, what
/// its arm for `x == 0` passes through once `x` is 0 (`c + popcnt(x)` against `c`:
/// `popcnt(0) = 0`) is not needed: the work runs unconditionally, hoisted out of the
/// γ, which goes. What the arm computes is pure and cheap (a popcount and additions),
/// so running it when `x` is 0 costs less than the test and the guarded update.
fn collapse_zero_guard(g: &mut Rvsdg, gamma: Node) {
    let NodeKind::Gamma { arms } = g.kind(gamma) else {
        return;
    };
    if arms.len() != 2 {
        return;
    }
    let arms = arms.clone();
    // the arm where x != 0 and the entry of x
    let Some((work, x)) = arms.iter().enumerate().find_map(|(k, &a)| {
        (0..g.args(a).len())
            .find(|&i| known_nonzero(g, a, Origin::Arg(a, i as u32)))
            .map(|i| (k, i))
    }) else {
        return;
    };
    let (wa, pa) = (arms[work], arms[1 - work]);
    if g.nodes(wa).len() > 8 {
        return;
    }
    for &n in g.nodes(wa) {
        let pure = g.op(n).is_some_and(|op| op.states() == Default::default())
            && g.inputs(n).iter().all(|&o| !g.ty(o).is_state())
            && g.outputs(n).all(|o| !g.ty(o).is_state());
        if !pure {
            return;
        }
    }
    // each result of the working arm, at x = 0, is what the other arm gives
    for (j, (&rw_, &rp)) in g.results(wa).iter().zip(g.results(pa)).enumerate() {
        if !g.has_users(Origin::Out(gamma, j as u32)) {
            continue; // (x itself, 0 after the loop, usually)
        }
        let at_zero = value_at_zero(g, wa, x as u32, rw_);
        let passed = match rp {
            Origin::Arg(_, i) => Some(Sym::Entry(i)),
            o => constant(g, o).map(Sym::Const),
        };
        if at_zero.is_none() || at_zero != passed {
            return;
        }
    }
    // hoist the working arm's nodes in front of the γ, then take its results
    let outer = g.node(gamma).region;
    let mut map: rustc_hash::FxHashMap<Origin, Origin> = rustc_hash::FxHashMap::default();
    for (i, a) in g.arg_origins(wa).enumerate() {
        map.insert(a, g.input(gamma, i + 1));
    }
    for n in g.topological_order(wa) {
        let inputs: Vec<Origin> = g.inputs(n).iter().map(|o| map[o]).collect();
        let copy = g.copy_node(n, outer, &inputs);
        map.extend(g.outputs(n).zip(g.outputs(copy)));
    }
    let results: Vec<Origin> = g.results(wa).iter().map(|o| map[o]).collect();
    for (j, o) in results.into_iter().enumerate() {
        if g.has_users(Origin::Out(gamma, j as u32)) {
            g.divert_users(Origin::Out(gamma, j as u32), o);
        }
    }
    g.remove_node(gamma);
}

/// What a working arm's value is worth when its entry `x` is 0, in terms of the
/// γ's entries and constants, as far as these rules tell: `popcnt(x)` is 0, `a + 0`
/// and `a - 0` and `a | 0` and `a ^ 0` are `a`, extensions and truncations of a
/// constant 0 are 0.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Sym {
    Entry(u32),
    Const(i128),
}

fn value_at_zero(g: &Rvsdg, arm: Region, x: u32, o: Origin) -> Option<Sym> {
    match o {
        Origin::Arg(r, i) if r == arm => Some(if i == x { Sym::Const(0) } else { Sym::Entry(i) }),
        Origin::Arg(..) => None,
        Origin::Out(n, 0) => {
            if let Some(c) = constant(g, o) {
                return Some(Sym::Const(c));
            }
            let d = inst(g, n)?;
            let arg = |k: usize| value_at_zero(g, arm, x, g.input(n, k));
            match d {
                InstructionData::Unary { opcode, .. } => match (opcode, arg(0)?) {
                    (
                        Opcode::Popcnt | Opcode::Uextend | Opcode::Sextend | Opcode::Ireduce,
                        Sym::Const(0),
                    ) => Some(Sym::Const(0)),
                    _ => None,
                },
                InstructionData::Binary { opcode, .. } => {
                    let (a, b) = (arg(0)?, arg(1)?);
                    match (opcode, a, b) {
                        (Opcode::Iadd | Opcode::Bor | Opcode::Bxor, v, Sym::Const(0))
                        | (Opcode::Iadd | Opcode::Bor | Opcode::Bxor, Sym::Const(0), v)
                        | (Opcode::Isub, v, Sym::Const(0)) => Some(v),
                        _ => None,
                    }
                }
                _ => None,
            }
        }
        Origin::Out(..) => None,
    }
}

/// Replaces popcount loop `theta` by its result.
fn replace_popcount(g: &mut Rvsdg, theta: Node, shape: &Popcount) {
    let body = g.theta_body(theta);
    let outer = g.node(theta).region;
    let x0 = g.input(theta, shape.bits as usize);
    let Ty::Val(xt) = g.ty(x0) else {
        unreachable!("the shape's bits are an integer")
    };
    let mut rw = Rewriter::new(g);
    let popcnt = rw.unary(theta, Opcode::Popcnt, x0, xt);
    // the body runs once when x0 is 0 (not in the arm of the `while` test's γ that
    // runs the loop: there x0 is not 0)
    let zero = rw.int(theta, xt, 0);
    let iterations = if known_nonzero(rw.g, outer, x0) {
        popcnt
    } else {
        let is_zero = rw.icmp(theta, IntCC::Eq, x0, zero);
        let once = rw.unary(theta, Opcode::Uextend, is_zero, xt);
        rw.binary(theta, Opcode::Iadd, popcnt, once)
    };
    rw.replace(Origin::Out(theta, shape.bits), zero);
    for &c in &shape.counters {
        let c0 = rw.g.input(theta, c as usize);
        let Ty::Val(ct) = rw.g.ty(c0) else {
            unreachable!("a counter is an integer")
        };
        let n = match ct.bits().cmp(&xt.bits()) {
            std::cmp::Ordering::Equal => iterations,
            std::cmp::Ordering::Greater => rw.unary(theta, Opcode::Uextend, iterations, ct),
            // at most the width of x, which fits in any integer type but i1; a
            // narrower counter wraps as it would have in the loop
            std::cmp::Ordering::Less => rw.unary(theta, Opcode::Ireduce, iterations, ct),
        };
        let counted = rw.binary(theta, Opcode::Iadd, c0, n);
        rw.replace(Origin::Out(theta, c), counted);
    }
    // the others pass through: what went in comes out
    for k in 0..rw.g.inputs(theta).len() {
        if rw.g.results(body)[k + 1] == Origin::Arg(body, k as u32) {
            let init = rw.g.input(theta, k);
            rw.replace(Origin::Out(theta, k as u32), init);
        }
    }
    debug_assert!(!rw.g.is_used(theta), "every output of {theta} replaced");
    debug_assert_eq!(rw.g.node(theta).region, outer);
    rw.g.remove_node(theta);
}
